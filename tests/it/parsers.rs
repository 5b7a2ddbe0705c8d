//! Property tests over every parser that reads untrusted text: settings files, plugin
//! bundles, hook output, matchers and `if` rules, shell splitting, and the hook input
//! (as the CLI reads it and as it is converted for Wasm). The same parsers have
//! cargo-fuzz targets in `host/fuzz`; these run on stable in CI.

use hookhost::LoadOptions;
use hookhost::internals::EventSpec;
use hookhost::internals::Matcher;
use hookhost::internals::{Rule, RuleContext, split_commands};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::Path;

/// Arbitrary JSON values, nested a few levels.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("command"),
            Just("wasm"),
            Just("http"),
            Just("prompt"),
            Just("Bash"),
            Just("*"),
            Just("1e20"),
        ]
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((known_or_any(KEYS, ".{0,8}"), inner), 0..5)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

/// The keys the settings reader knows, for objects that are near-misses of real ones.
const KEYS: &[&str] = &[
    "type",
    "command",
    "timeout",
    "matcher",
    "hooks",
    "component",
    "memoryMb",
    "fuel",
    "allowedPaths",
    "if",
];

/// Matchers of each kind: a name, everything, alternatives, a regex, a permission rule.
const MATCHERS: &[&str] = &["Bash", "*", "Edit|Write", "^(?!Read).*", "Bash(git *)"];

/// One of `known`, each as likely as a string drawn from the regex `any`.
fn known_or_any(known: &'static [&'static str], any: &'static str) -> BoxedStrategy<String> {
    prop_oneof![
        known.len() as u32 => prop::sample::select(known).prop_map(String::from),
        1 => any,
    ]
    .boxed()
}

/// Settings-shaped documents: `hooks` → events → groups → handlers, with arbitrary
/// values in every slot.
fn settings_doc() -> impl Strategy<Value = Value> {
    let handler = prop_oneof![
        json_value(),
        (
            prop_oneof![Just("command"), Just("wasm"), Just("http"), Just("prompt"), Just("agent")],
            prop_oneof![
                Just(json!(1e20)),
                Just(json!(-1)),
                Just(json!(0)),
                Just(json!(5)),
                Just(json!("x")),
                Just(json!(1e308))
            ],
            ".{0,6}",
        )
            .prop_map(|(kind, number, text)| {
                json!({"type": kind, "command": format!("true {text}"), "component": "/nonexistent.wasm",
                       "url": format!("not a url {text}"), "prompt": text, "timeout": number,
                       "memoryMb": number, "fuel": number})
            }),
    ];
    let group = (
        prop::option::of(known_or_any(MATCHERS, ".{0,10}")),
        prop::collection::vec(handler, 0..4),
    )
        .prop_map(|(matcher, hooks)| {
            let mut group = json!({"hooks": hooks});
            if let Some(m) = matcher {
                group["matcher"] = json!(m);
            }
            group
        });
    let event = prop_oneof![
        Just("PreToolUse".to_string()),
        Just("Stop".to_string()),
        Just("FileChanged".to_string()),
        Just("SessionStart".to_string()),
        "[A-Za-z]{1,10}".prop_map(|s| s),
    ];
    prop::collection::vec((event, prop::collection::vec(group, 0..3)), 0..4).prop_map(|events| {
        let hooks: serde_json::Map<String, Value> = events
            .into_iter()
            .map(|(event, groups)| (event, Value::Array(groups)))
            .collect();
        json!({"hooks": hooks, "disableAllHooks": false})
    })
}

fn rule_context(input: &Value) -> RuleContext<'_> {
    RuleContext {
        tool_name: "Bash",
        tool_input: input,
        cwd: Path::new("/proj"),
        home: Some(Path::new("/home/u")),
        base: Path::new("/proj"),
        target: None,
    }
}

fn load_inline(text: String) -> hookhost::internals::LoadedConfig {
    let mut options = LoadOptions::default();
    options.settings = vec![text];
    options.managed_path = Some("/nonexistent/hookhost-proptest/managed.json".into());
    hookhost::internals::load(&options)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn settings_never_panic_and_every_hook_is_accounted_for(doc in settings_doc()) {
        let loaded = load_inline(doc.to_string());
        // Each handler either loads or is named in a diagnostic; none vanish.
        let handlers: usize = doc["hooks"].as_object().map_or(0, |events| {
            events.values().flat_map(|g| g.as_array().cloned().unwrap_or_default())
                .map(|g| g["hooks"].as_array().map_or(0, Vec::len)).sum()
        });
        let handler_diags = loaded.diagnostics.iter()
            .filter(|d| d.location.contains(".hooks[") && d.message.ends_with("hook skipped"))
            .count();
        let group_diags = loaded.diagnostics.iter()
            .filter(|d| d.message.ends_with("group skipped"))
            .count();
        // Identical handlers are de-duplicated (they run once), so count exactly only
        // when every handler is distinct.
        let all: Vec<String> = doc["hooks"].as_object().map_or(Vec::new(), |events| {
            events.values().flat_map(|g| g.as_array().cloned().unwrap_or_default())
                .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
                // The de-duplication identity: what runs, not its limits (an unsupported
                // `agent` hook is only its type).
                .map(|h| if h["type"] == "agent" { "agent".to_string() } else {
                    ["type", "command", "url", "prompt", "component", "args", "shell"]
                    .iter()
                    .map(|k| h.get(*k).map(Value::to_string).unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join("|")
                    + if h.is_object() { "" } else { "non-object" }
                    + &if h.is_object() { String::new() } else { h.to_string() }
                })
                .collect()
        });
        let distinct = all.iter().collect::<std::collections::HashSet<_>>().len() == all.len();
        prop_assert!(loaded.hooks.len() + handler_diags <= handlers);
        if group_diags == 0 && distinct {
            prop_assert_eq!(loaded.hooks.len() + handler_diags, handlers,
                "{:?}", loaded.diagnostics);
        }
    }

    #[test]
    fn arbitrary_settings_text_never_panics(text in "\\{.{0,200}") {
        let _ = load_inline(text);
    }

    #[test]
    fn plugin_bundles_never_panic(manifest in json_value(), hooks in settings_doc()) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
        std::fs::create_dir_all(root.join("hooks")).unwrap();
        std::fs::write(root.join(".claude-plugin/plugin.json"), manifest.to_string()).unwrap();
        std::fs::write(root.join("hooks/hooks.json"), hooks.to_string()).unwrap();
        let (mut specs, mut diags) = (Vec::new(), Vec::new());
        hookhost::internals::read_plugin(root, Some(root), None, &mut specs, &mut diags);
    }

    #[test]
    fn hook_output_never_panics(value in json_value(), event in prop_oneof![
        Just("PreToolUse"), Just("PermissionRequest"), Just("Stop"), Just("SessionStart"),
        Just("PostToolUse"), Just("Custom")]) {
        let _ = hookhost::internals::parse_answer(&value, &hookhost::internals::Event::new(event));
        let wrapped = json!({"hookSpecificOutput": value, "decision": "block"});
        let _ = hookhost::internals::parse_answer(&wrapped, &hookhost::internals::Event::new(event));
    }

    #[test]
    fn watch_path_lists_are_capped(count in 0usize..3000) {
        let value = json!({"watchPaths": vec![""; count]});
        let parsed = hookhost::internals::parse_answer(&value, &hookhost::internals::Event::new("CwdChanged"));
        prop_assert_eq!(parsed.is_ok(), count <= hookhost::internals::MAX_LIST_ENTRIES);
    }

    #[test]
    fn matchers_and_rules_never_panic(text in ".{0,40}", value in ".{0,20}") {
        let input = json!({"command": value.clone(), "file_path": format!("/proj/{value}")});
        for event in ["PreToolUse", "FileChanged", "Stop"] {
            if let Ok(matcher) = Matcher::compile(Some(&text), EventSpec::for_name(event)) {
                let _ = matcher.matches(Some(&value), Some(&rule_context(&input)));
            }
        }
        if let Ok(rule) = Rule::parse(&text) {
            let _ = rule.matches(&rule_context(&input));
        }
    }

    #[test]
    fn shell_splitting_finds_every_simple_command(
        commands in prop::collection::vec("[a-z]{1,6}( [a-z0-9]{1,5}){0,2}", 1..5),
        separators in prop::collection::vec(prop_oneof![Just(" && "), Just(" || "), Just("; "), Just(" | ")], 4),
    ) {
        let mut line = commands[0].clone();
        for (index, command) in commands.iter().enumerate().skip(1) {
            line.push_str(separators[index - 1]);
            line.push_str(command);
        }
        let parts = split_commands(&line).expect("simple commands parse");
        prop_assert_eq!(parts, commands);
    }

    #[test]
    fn shell_splitting_never_panics(text in ".{0,80}") {
        let _ = split_commands(&text);
    }

    #[test]
    fn hook_input_round_trips(value in json_value()) {
        let object = json!({"tool_input": value, "hook_event_name": "PreToolUse"});
        let text = object.to_string();
        // Reading through the repairing, depth-capped reader changes nothing valid.
        let plain: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(hookhost::internals::parse_input(text.as_bytes()).unwrap(), plain);
        let size = hookhost::internals::input_record_size("PreToolUse", &object);
        prop_assert!(size >= text.len());
    }

    #[test]
    fn hook_input_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = hookhost::internals::parse_input(&bytes);
        let _ = hookhost::internals::sniff_event(&bytes);
    }

    #[test]
    fn surrogate_escapes_always_parse(units in prop::collection::vec(0xD700u16..0xE100, 1..6)) {
        let escaped: String = units.iter().map(|u| format!("\\u{u:04x}")).collect();
        let text = format!("{{\"s\": \"a{escaped}b\"}}");
        let value = hookhost::internals::parse_input(text.as_bytes()).unwrap();
        let s = value["s"].as_str().unwrap();
        prop_assert!(s.starts_with('a') && s.ends_with('b'));
    }
}

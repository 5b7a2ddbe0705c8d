//! hygge's `hooks.toml`: an array of tables, one per hook.
//!
//! ```toml
//! [[hooks]]
//! name = "no-rm"                 # required, the hook's identifier in reports
//! description = "deny rm -rf"    # one-line summary (listings)
//! command = "./hooks/no-rm.sh"   # run with `sh -c`, the Input JSON on stdin
//! events = ["pre_tool"]          # pre_tool, post_tool, pre_message, post_message
//! mode = "sync"                  # or "async" (post events only)
//! timeout = 10                   # seconds; 0 or absent = none
//! ```
//!
//! hookhost also accepts a sandboxed Wasm hook in the same table: `type = "wasm"` with
//! `component` and the optional `fuel`, `memory_mb`, `fail_closed`, `sha256`, `env`,
//! `allowed_paths` and `config` of a settings-file `wasm` entry.
//!
//! Each entry becomes one [`HookSpec`] per event it lists, named after the entry, read
//! through the same entry reader as settings files (so limits, grants and diagnostics
//! are the same); a bad entry is skipped with a diagnostic naming `hooks[i]` and the
//! rest of the file loads.

use serde_json::{Map, Value, json};

use super::settings::{FileContext, read_hooks};
use super::{Diagnostic, HookSpec, Severity};

/// Keys of a `[[hooks]]` table and, for the Wasm extension, their settings-file names.
const KEYS: &[(&str, &str)] = &[
    ("name", "name"),
    ("type", "type"),
    ("command", "command"),
    ("timeout", "timeout"),
    ("component", "component"),
    ("fuel", "fuel"),
    ("memory_mb", "memoryMb"),
    ("fail_closed", "failClosed"),
    ("sha256", "sha256"),
    ("env", "env"),
    ("allowed_paths", "allowedPaths"),
    ("config", "config"),
];

/// Parses a `hooks.toml` document into the settings-shaped JSON the loader reads, or
/// says why it cannot be read.
pub fn parse_toml(text: &str) -> Result<Value, String> {
    let table: toml::Table = toml::from_str(text).map_err(|err| err.message().to_string())?;
    serde_json::to_value(table).map_err(|err| err.to_string())
}

/// Reads the `hooks` array of a parsed `hooks.toml` into `out`.
pub fn read_hooks_toml(
    document: &Value,
    ctx: &FileContext,
    out: &mut Vec<HookSpec>,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(entries) = document.get("hooks") else {
        return;
    };
    let Some(entries) = entries.as_array() else {
        diags.push(ctx.diag(
            Severity::Error,
            "hooks".into(),
            "`hooks` must be an array of tables (`[[hooks]]`); skipped".into(),
        ));
        return;
    };
    for (index, entry) in entries.iter().enumerate() {
        let location = format!("hooks[{index}]");
        match read_entry(entry, ctx, &location, diags) {
            Ok(specs) => out.extend(specs),
            Err(message) => diags.push(ctx.diag(
                Severity::Error,
                location,
                format!("{message}; hook skipped"),
            )),
        }
    }
}

fn read_entry(
    entry: &Value,
    ctx: &FileContext,
    location: &str,
    diags: &mut Vec<Diagnostic>,
) -> Result<Vec<HookSpec>, String> {
    let table = entry.as_object().ok_or("a hook must be a table")?;
    let name = match table.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.clone(),
        Some(_) => return Err("`name` must be a non-empty string".into()),
        None => return Err("missing `name`".into()),
    };
    let location = format!("{location} ({name})");
    let events: Vec<String> = match table.get("events") {
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| "`events` must hold strings".to_string())
            })
            .collect::<Result<_, _>>()?,
        Some(Value::Array(_)) | None => return Err("`events` lists no event".into()),
        Some(_) => return Err("`events` must be an array of event names".into()),
    };
    let mut handler = Map::new();
    for (key, value) in table {
        if let Some((_, settings_key)) = KEYS.iter().find(|(k, _)| k == key) {
            handler.insert((*settings_key).to_string(), value.clone());
        } else if !matches!(key.as_str(), "description" | "events" | "mode") {
            diags.push(ctx.diag(
                Severity::Warning,
                location.clone(),
                format!("unknown key `{key}` ignored"),
            ));
        }
    }
    // hygge: an absent timeout is zero, and zero is none.
    handler.entry("timeout").or_insert(Value::from(0));
    match table.get("mode") {
        None => {}
        Some(Value::String(mode)) if mode == "sync" => {}
        Some(Value::String(mode)) if mode == "async" => {
            handler.insert("async".into(), Value::Bool(true));
        }
        Some(other) => {
            return Err(format!(
                "`mode` must be \"sync\" or \"async\", found {other}"
            ));
        }
    }
    let mut specs = Vec::new();
    for event in &events {
        // One settings-shaped group per event, read by the settings reader; its
        // diagnostics are re-pointed at this entry.
        let section = json!({ event: [{ "hooks": [Value::Object(handler.clone())] }] });
        let mut found = Vec::new();
        let mut notes = Vec::new();
        read_hooks(&section, ctx, &mut found, &mut notes);
        for mut note in notes {
            note.location = location.clone();
            note.message = format!("event `{event}`: {}", note.message);
            diags.push(note);
        }
        for mut spec in found {
            spec.location = location.clone();
            spec.group = format!("{}#{location}", ctx.file);
            specs.push(spec);
        }
    }
    Ok(specs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Layer;
    use crate::dialect::DialectId;

    fn ctx() -> FileContext {
        FileContext {
            file: "hooks.toml".into(),
            layer: Layer::User,
            base_dir: None,
            component_base: None,
            vars: Vec::new(),
            env: Vec::new(),
            trusted: true,
            dialect: DialectId::Hygge.dialect(),
            tool_patterns: true,
        }
    }

    fn read(text: &str) -> (Vec<HookSpec>, Vec<Diagnostic>) {
        let mut out = Vec::new();
        let mut diags = Vec::new();
        read_hooks_toml(&parse_toml(text).unwrap(), &ctx(), &mut out, &mut diags);
        (out, diags)
    }

    #[test]
    fn entries_become_one_hook_per_event_and_bad_ones_are_named() {
        let (hooks, diags) = read(
            r#"
            [[hooks]]
            name = "audit"
            description = "log every tool"
            command = "audit.sh"
            events = ["pre_tool", "post_tool"]
            timeout = 0

            [[hooks]]
            name = "bg"
            command = "bg.sh"
            events = ["pre_tool"]
            mode = "async"

            [[hooks]]
            command = "nameless.sh"
            events = ["pre_tool"]

            [[hooks]]
            name = "chat"
            command = "chat.sh"
            events = ["post_message", "on_fire"]
            "#,
        );
        let names: Vec<_> = hooks
            .iter()
            .map(|h| (h.display_name(), h.event.name().to_string()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("audit".to_string(), "pre_tool".to_string()),
                ("audit".to_string(), "post_tool".to_string()),
                ("chat".to_string(), "post_message".to_string()),
            ]
        );
        // timeout 0 = none (the one-day ceiling).
        assert_eq!(
            hooks[0].timeout,
            Some(std::time::Duration::from_secs(86_400))
        );
        // post_message is always async.
        assert_eq!(hooks[2].mode, crate::config::RunMode::Async);
        let text: Vec<String> = diags.iter().map(ToString::to_string).collect();
        let has = |needle: &str| text.iter().any(|t| t.contains(needle));
        assert!(
            has("hooks[1] (bg): event `pre_tool`: `async` is not allowed"),
            "{text:#?}"
        );
        assert!(has("hooks[2]: missing `name`"), "{text:#?}");
        assert!(has("`on_fire` is not a hygge event"), "{text:#?}");
        assert!(has("always run in the background"), "{text:#?}");
    }

    #[test]
    fn deeply_nested_toml_is_an_error_not_a_stack_overflow() {
        for depth in [1_000, 100_000] {
            let arrays = format!("a = {}{}", "[".repeat(depth), "]".repeat(depth));
            let tables = format!("a = {}{}", "{b = ".repeat(depth), "}".repeat(depth));
            for text in [arrays, tables] {
                // Whatever the answer, it must come back (a stack overflow aborts).
                let result = parse_toml(&text);
                if depth == 100_000 {
                    assert!(result.is_err());
                }
            }
        }
    }

    #[test]
    fn malformed_toml_is_an_error_with_its_message() {
        assert!(parse_toml("[[hooks]\nname =").is_err());
        let (hooks, diags) = read("hooks = 3");
        assert!(hooks.is_empty());
        assert!(diags[0].message.contains("array of tables"));
    }
}

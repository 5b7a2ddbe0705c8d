//! Configuration end to end: discovery, plugin bundles, bad entries.

use hookhost::{Engine, HookStatus, Severity};
use hookhost_tests::{TestEnv, command, hooks};
use serde_json::json;

fn plugin(env: &TestEnv, name: &str, manifest_at_root: bool) -> std::path::PathBuf {
    let root = env.root.join(format!("plugins/{name}"));
    let manifest = json!({"name": name, "version": "1.0.0"}).to_string();
    if manifest_at_root {
        env.write(&format!("plugins/{name}/plugin.json"), &manifest);
    } else {
        env.write(
            &format!("plugins/{name}/.claude-plugin/plugin.json"),
            &manifest,
        );
    }
    env.write(
        &format!("plugins/{name}/scripts/ctx.sh"),
        r#"printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"%s|%s|%s"}}' "$CLAUDE_PLUGIN_ROOT" "$(basename "$0")" "$1""#,
    );
    let hooks_json = json!({"description": "test", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        command("sh ${CLAUDE_PLUGIN_ROOT}/scripts/ctx.sh ${CLAUDE_PLUGIN_DATA}")
    ]}]}});
    env.write(
        &format!("plugins/{name}/hooks/hooks.json"),
        &hooks_json.to_string(),
    );
    root
}

#[tokio::test]
async fn plugin_bundles_load_with_root_expanded() {
    let env = TestEnv::new();
    let first = plugin(&env, "alpha", false);
    let second = plugin(&env, "beta", true);
    let engine = Engine::load(
        &env.load_options(&[], &[first.clone(), second.clone()]),
        env.engine_options(),
    )
    .unwrap();
    hookhost_tests::assert_no_diagnostics(&engine);
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(
        outcome.additional_context.unwrap(),
        format!(
            "{}|ctx.sh|{data}/alpha\n{}|ctx.sh|{data}/beta",
            first.display(),
            second.display(),
            data = env.home.join(".claude/plugins/data").display()
        )
    );
    assert_eq!(outcome.hooks[0].source, "plugin:alpha");
    assert_eq!(outcome.hooks[1].source, "plugin:beta");
}

#[tokio::test]
async fn inline_plugin_hooks_and_bad_bundles() {
    let env = TestEnv::new();
    env.write(
        "plugins/inline/.claude-plugin/plugin.json",
        &json!({"name": "inline", "hooks": {"hooks": {"Stop": [{"hooks": [command("echo '{\"decision\":\"block\",\"reason\":\"inline\"}'")]}]}}}).to_string(),
    );
    env.write("plugins/broken/.claude-plugin/plugin.json", "{ nope");
    let options = env.load_options(
        &[],
        &[
            env.root.join("plugins/inline"),
            env.root.join("plugins/broken"),
            env.root.join("plugins/missing"),
        ],
    );
    let engine = Engine::load(&options, env.engine_options()).unwrap();
    let outcome = engine.execute("Stop", json!({})).await;
    assert_eq!(outcome.block_reason.as_deref(), Some("inline"));
    let errors: Vec<String> = engine.diagnostics().iter().map(|d| d.to_string()).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("broken") && errors[0].contains("invalid JSON"));
    assert!(errors[1].contains("missing") && errors[1].contains("not a plugin bundle"));
}

#[tokio::test]
async fn bad_entries_are_skipped_and_the_rest_loads() {
    let env = TestEnv::new();
    let settings = json!({"PreToolUse": [
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo '{\"decision\":\"block\",\"reason\":\"good hook\"}'"},
            {"type": "shell", "command": "x"},
            {"type": "command", "command": ["not", "a", "string"]},
            {"type": "command"},
            {"type": "wasm", "component": "x.wasm", "fuell": 5}
        ]},
        {"matcher": "(unclosed", "hooks": [command("true")]}
    ]});
    let engine = env.engine(settings);
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(outcome.block_reason.as_deref(), Some("good hook"));
    let diagnostics = engine.diagnostics();
    assert_eq!(diagnostics.len(), 5, "{diagnostics:?}");
    assert!(
        diagnostics
            .iter()
            .all(|d| d.severity == Severity::Error && d.file.ends_with("settings.json"))
    );
    let locations: Vec<&str> = diagnostics.iter().map(|d| d.location.as_str()).collect();
    assert_eq!(
        locations,
        [
            "hooks.PreToolUse[0].hooks[1]",
            "hooks.PreToolUse[0].hooks[2]",
            "hooks.PreToolUse[0].hooks[3]",
            "hooks.PreToolUse[0].hooks[4]",
            "hooks.PreToolUse[1]"
        ]
    );
    assert!(diagnostics[3].message.contains("fuell"));
}

#[tokio::test]
async fn discovery_reads_home_project_and_local_settings() {
    let env = TestEnv::new();
    let ctx = |text: &str| {
        command(&format!(
            r#"printf '{{"hookSpecificOutput":{{"hookEventName":"SessionStart","additionalContext":"{text}"}}}}'"#
        ))
    };
    for (file, layer) in [
        ("home/.claude/settings.json", "user"),
        ("project/.claude/settings.json", "project"),
        ("project/.claude/settings.local.json", "local"),
        ("managed/managed-settings.json", "managed"),
    ] {
        let layer_hooks = hooks("SessionStart", None, vec![ctx(layer)]);
        env.write(file, &json!({ "hooks": layer_hooks }).to_string());
    }
    let engine = Engine::load(&env.load_options(&[], &[]), env.engine_options()).unwrap();
    let outcome = engine
        .execute("SessionStart", json!({"source": "startup"}))
        .await;
    assert_eq!(
        outcome.additional_context.as_deref(),
        Some("managed\nuser\nproject\nlocal")
    );
    let sources: Vec<String> = outcome.hooks.iter().map(|h| h.source.label()).collect();
    assert_eq!(sources, ["managed", "user", "project", "local"]);
    assert!(
        outcome
            .hooks
            .iter()
            .all(|h| h.status == HookStatus::Success)
    );
}

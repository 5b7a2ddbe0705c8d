use super::*;
use serde_json::json;

fn ctx() -> FileContext {
    test_ctx()
}

fn read(hooks: Value) -> (Vec<HookSpec>, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let mut diags = Vec::new();
    read_hooks(&hooks, &ctx(), &mut out, &mut diags);
    (out, diags)
}

#[test]
fn bad_entries_are_skipped_and_named() {
    let (hooks, diags) = read(json!({
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": "ok.sh"},
                {"type": "teleport", "command": "x"},
                {"type": "command", "command": 42},
                {"type": "command"},
                {"type": "command", "command": "${CLAUDE_PROJECT_DIR}/b.sh", "timeout": 5}
            ]},
            {"matcher": "Bash[(", "hooks": [{"type": "command", "command": "x"}]}
        ],
        "Stop": "nope"
    }));
    assert_eq!(hooks.len(), 2);
    assert_eq!(hooks[1].handler.display_name(), "/proj/b.sh");
    assert_eq!(hooks[1].timeout, Some(Duration::from_secs(5)));
    let locations: Vec<_> = diags.iter().map(|d| d.location.as_str()).collect();
    assert_eq!(
        locations,
        vec![
            "hooks.PreToolUse[0].hooks[1]",
            "hooks.PreToolUse[0].hooks[2]",
            "hooks.PreToolUse[0].hooks[3]",
            "hooks.PreToolUse[1]",
            "hooks.Stop",
        ]
    );
    assert!(diags[0].message.contains("unknown hook type `teleport`"));
    assert!(diags.iter().all(|d| d.severity == Severity::Error));
}

#[test]
fn powershell_and_dialect_defaults() {
    let (hooks, diags) = read(json!({"Stop": [{"hooks": [
        {"type": "command", "command": "Write-Output hi", "shell": "powershell"},
        {"type": "command", "command": "x", "shell": "fish"}
    ]}]}));
    let Handler::Command(command) = &hooks[0].handler else {
        panic!()
    };
    assert_eq!(command.shell, Shell::PowerShell);
    assert!(diags[0].message.contains("sh, bash or powershell"));
    // gen: `type` defaults to command, `async` applies to any executor.
    let gen_ctx = FileContext {
        dialect: crate::dialect::DialectId::Gen.dialect(),
        ..ctx()
    };
    let mut out = Vec::new();
    let mut diags = Vec::new();
    read_hooks(
        &json!({"Notification": [{"hooks": [
            {"command": "log.sh"},
            {"type": "wasm", "component": "a.wasm", "async": true}
        ]}]}),
        &gen_ctx,
        &mut out,
        &mut diags,
    );
    assert!(diags.is_empty(), "{diags:?}");
    assert!(matches!(out[0].handler, Handler::Command(_)));
    assert_eq!(out[1].mode, RunMode::Async);
    // Claude: `type` is required and `async` is for commands only.
    let (hooks, diags) = read(json!({"Notification": [{"hooks": [
        {"command": "log.sh"},
        {"type": "wasm", "component": "a.wasm", "async": true}
    ]}]}));
    assert_eq!(hooks.len(), 1);
    assert_eq!(hooks[0].mode, RunMode::Sync);
    assert!(
        diags[0].message.contains("missing field `type`"),
        "{diags:?}"
    );
    assert!(diags[1].message.contains("command hooks only"), "{diags:?}");
}

#[test]
fn wasm_entries_are_strict() {
    let (hooks, diags) = read(json!({"PreToolUse": [{"hooks": [
        {"type": "wasm", "component": "guard.wasm", "memoryMB": 64},
        {"type": "wasm", "component": "guard.wasm", "memoryMb": 64, "failClosed": true,
         "allowedPaths": [{"path": "${CLAUDE_PROJECT_DIR}", "write": false}], "config": {"k": 1}}
    ]}]}));
    assert_eq!(hooks.len(), 1);
    assert!(
        diags[0].message.contains("memoryMB"),
        "{}",
        diags[0].message
    );
    let Handler::Wasm(wasm) = &hooks[0].handler else {
        panic!()
    };
    assert_eq!(wasm.component, PathBuf::from("/proj/guard.wasm"));
    assert_eq!(wasm.allowed_paths[0].path, PathBuf::from("/proj"));
    assert!(hooks[0].fail_closed());
}

#[test]
fn registry_references_are_taken_as_written() {
    let (hooks, _) = read(json!({"PreToolUse": [{"hooks": [
        {"type": "wasm", "component": "oci://ghcr.io/acme/guard:1"},
        {"type": "wasm", "component": "oci://${CLAUDE_PROJECT_DIR}/guard:1"}
    ]}]}));
    let components: Vec<PathBuf> = hooks
        .iter()
        .map(|h| match &h.handler {
            Handler::Wasm(wasm) => wasm.component.clone(),
            _ => panic!(),
        })
        .collect();
    assert_eq!(
        components,
        [
            PathBuf::from("oci://ghcr.io/acme/guard:1"),
            PathBuf::from("oci://${CLAUDE_PROJECT_DIR}/guard:1")
        ]
    );
    let err = crate::oci::OciRef::parse("oci://${CLAUDE_PROJECT_DIR}/guard:1").unwrap_err();
    assert!(err.to_string().contains("${CLAUDE_PROJECT_DIR}"), "{err}");
}

#[test]
fn prompt_on_session_start_is_refused_and_unknown_events_kept() {
    let (hooks, diags) = read(json!({
        "SessionStart": [{"hooks": [{"type": "prompt", "prompt": "x"}]}],
        "MyEvent": [{"hooks": [{"type": "command", "command": "x"}]}]
    }));
    assert_eq!(hooks.len(), 1);
    assert_eq!(hooks[0].event, "MyEvent");
    assert_eq!(diags.len(), 2);
    assert!(
        diags
            .iter()
            .any(|d| d.message.contains("not accepted on `SessionStart`"))
    );
    assert!(diags.iter().all(|d| d.severity == Severity::Warning));
}

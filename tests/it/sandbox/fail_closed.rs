//! Fail closed means fail closed: unreadable input, host quirks, out-of-range numbers,
//! failed guards on events that cannot block, padded inputs, bad session components.

use super::*;

// ---- fail closed means fail closed ---------------------------------------------------

fn deny_all_settings(env: &TestEnv) -> std::path::PathBuf {
    env.one_hook("PreToolUse", guest("deny", json!({"failClosed": true})))
}

#[test]
fn unreadable_input_with_a_fail_closed_hook_is_a_block() {
    let env = TestEnv::new();
    // A failClosed guard that allows everything: only the front door's refusal can deny
    // (a denying guard would deny with the defence removed too).
    let settings = env.one_hook(
        "PreToolUse",
        json!({"type": "command", "command": "cat >/dev/null; exit 0", "failClosed": true}),
    );
    let nested = format!(
        "{{\"hook_event_name\": \"PreToolUse\", \"x\": {}1{}}}",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    for (name, input) in [
        (
            "not json",
            b"{\"hook_event_name\": \"PreToolUse\", oops".to_vec(),
        ),
        ("too deep", nested.into_bytes()),
    ] {
        let run = run_cli(
            CLI,
            &cli_args(&env, &settings, &["fire", "--format", "claude"]),
            &input,
            Duration::from_secs(30),
        )
        .unwrap();
        let answer: Value = serde_json::from_str(run.stdout.trim()).unwrap_or(Value::Null);
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecision"], "deny",
            "{name}: code {} stdout {} stderr {}",
            run.code, run.stdout, run.stderr
        );
        let reason = answer["hookSpecificOutput"]["permissionDecisionReason"].to_string();
        assert!(reason.contains("cannot be read"), "{name}: {reason}");
    }
}

#[test]
fn real_host_input_quirks_are_parsed_and_the_hooks_run() {
    let env = TestEnv::new();
    let settings = deny_all_settings(&env);
    let nested = format!("{{\"x\": {}1{}}}", "[".repeat(300), "]".repeat(300));
    let mut not_utf8 = br#"{"tool_name": "Bash", "tool_input": {"command": "ls "#.to_vec();
    not_utf8.extend_from_slice(b"\xff\xfe\"}}");
    for (name, input) in [
        (
            "lone surrogate",
            br#"{"tool_name": "Bash", "tool_input": {"command": "echo \ud800"}}"#.to_vec(),
        ),
        ("deep nesting", nested.into_bytes()),
        ("not utf-8", not_utf8),
    ] {
        let run = run_cli(
            CLI,
            &cli_args(&env, &settings, &["fire", "PreToolUse"]),
            &input,
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(outcome["permission_decision"], "deny", "{name}: {outcome}");
        assert_eq!(
            outcome["block_reason"], "test-guest says no",
            "{name}: the hook itself ran"
        );
    }
}

#[test]
fn out_of_range_numbers_in_settings_never_panic() {
    let env = TestEnv::new();
    let settings = env.settings(
        "settings.json",
        json!({"PreToolUse": [{"hooks": [
            {"type": "command", "command": "true", "timeout": 1e20},
            guest("deny", json!({"failClosed": true, "timeout": 1e300})),
            {"type": "wasm", "component": guests::TEST_GUEST, "fuel": 1e20, "memoryMb": -1}
        ]}]}),
    );
    let run = run_cli(
        CLI,
        &cli_args(&env, &settings, &["fire", "PreToolUse"]),
        env.bash("ls").to_string().as_bytes(),
        Duration::from_secs(30),
    )
    .unwrap();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("out of range"), "{}", run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(outcome["permission_decision"], "deny");
}

#[tokio::test]
async fn a_failed_fail_closed_hook_is_reported_on_events_that_cannot_block() {
    let env = TestEnv::new();
    let engine = env.engine_for(
        "SessionStart",
        vec![guest("panic", json!({"failClosed": true}))],
    );
    let outcome = engine
        .execute("SessionStart", json!({"source": "startup"}))
        .await;
    assert!(!outcome.should_block);
    assert_eq!(outcome.hooks[0].status, HookStatus::NonBlockingError);
    hookhost_tests::assert_hook_error(&outcome, 0, "panicked on purpose");
}

#[tokio::test]
async fn a_padded_input_cannot_push_a_policy_over_its_memory_limit() {
    let env = TestEnv::new();
    let engine = one_hook(&env, guest("deny", json!({"memoryMb": 16})));
    // 20 MiB of padding: in the 0.2.0 record once, and once more if the guest fetches
    // the raw input.
    let padded = env.file_tool(
        "Write",
        json!({"file_path": "/tmp/x", "content": "a".repeat(20 << 20)}),
    );
    let outcome = engine.execute("PreToolUse", padded).await;
    hookhost_tests::assert_decision(&outcome, "deny");
    // Past the input cap it is a failure of the hook, and fail-closed blocks.
    let engine = one_hook(&env, guest("allow", json!({"failClosed": true})));
    let huge = env.file_tool(
        "Write",
        json!({"file_path": "/tmp/x", "content": "a".repeat(40 << 20)}),
    );
    let outcome = engine.execute("PreToolUse", huge).await;
    hookhost_tests::assert_blocked(&outcome, "input too large for this hook");
}

#[tokio::test]
async fn session_wasm_hooks_still_refuse_bad_components_at_registration() {
    let env = TestEnv::new();
    let engine = env.engine(json!({}));
    let err = engine
        .add_session_hook(SessionHook::wasm_bytes(
            "PreToolUse",
            "bad.wasm",
            b"not wasm",
        ))
        .unwrap_err();
    assert!(err.to_string().contains("bad.wasm"), "{err}");
}

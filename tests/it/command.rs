//! The command executor against real `sh` scripts: the exit-code matrix, timeouts that
//! leave no process behind, huge output, async modes.

use std::time::Duration;

use hookhost::HookStatus;
use hookhost_tests::hook_error;
use hookhost_tests::{TestEnv, command, read_pid, wait_gone};
use serde_json::json;

async fn fire_one(
    env: &TestEnv,
    event: &str,
    script: &str,
    input: serde_json::Value,
) -> hookhost::EventOutcome {
    let path = env.script("hook.sh", script);
    let engine = env.engine_for(event, vec![command(&path)]);
    let outcome = engine.execute(event, input).await;
    engine.close().await;
    outcome
}

#[tokio::test]
async fn exit_code_rows() {
    let env = TestEnv::new();
    let allow = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fine"}}"#;
    struct Row {
        name: &'static str,
        script: String,
        status: HookStatus,
        decision: Option<&'static str>,
        block: bool,
    }
    let rows = vec![
        Row {
            name: "exit0_no_output",
            script: "exit 0".into(),
            status: HookStatus::Success,
            decision: None,
            block: false,
        },
        Row {
            name: "exit0_json_allow",
            script: format!("echo '{allow}'"),
            status: HookStatus::Success,
            decision: Some("allow"),
            block: false,
        },
        Row {
            name: "exit0_plain_text",
            script: "echo hello".into(),
            status: HookStatus::Success,
            decision: None,
            block: false,
        },
        Row {
            name: "exit0_schema_error",
            script: "echo '{\"continue\": 3}'".into(),
            status: HookStatus::NonBlockingError,
            decision: None,
            block: false,
        },
        Row {
            name: "exit2_stderr_blocks",
            script: "echo 'dangerous' >&2; exit 2".into(),
            status: HookStatus::Blocking,
            decision: Some("deny"),
            block: true,
        },
        Row {
            name: "exit2_beats_json_allow",
            script: format!("echo '{allow}'; echo nope >&2; exit 2"),
            status: HookStatus::Blocking,
            decision: Some("deny"),
            block: true,
        },
        Row {
            name: "exit1_plain_is_error",
            script: "echo boom >&2; exit 1".into(),
            status: HookStatus::NonBlockingError,
            decision: None,
            block: false,
        },
        Row {
            name: "exit1_json_decides",
            script: format!("echo '{allow}'; exit 1"),
            status: HookStatus::Success,
            decision: Some("allow"),
            block: false,
        },
        Row {
            name: "exit3_json_deny",
            script: "echo '{\"decision\":\"block\",\"reason\":\"json says no\"}'; exit 3".into(),
            status: HookStatus::Blocking,
            decision: Some("deny"),
            block: true,
        },
        Row {
            name: "missing_interpreter",
            script: "exec /nonexistent/interpreter".into(),
            status: HookStatus::NonBlockingError,
            decision: None,
            block: false,
        },
    ];
    for row in rows {
        let outcome = fire_one(&env, "PreToolUse", &row.script, env.bash("ls")).await;
        assert_eq!(
            outcome.hooks[0].status, row.status,
            "row {}: {:?}",
            row.name, outcome.hooks[0]
        );
        assert_eq!(
            hookhost_tests::decision(&outcome),
            row.decision,
            "row {}",
            row.name
        );
        assert_eq!(outcome.should_block, row.block, "row {}", row.name);
    }
}

#[tokio::test]
async fn exit2_reason_is_stderr_and_error_names_first_line() {
    let env = TestEnv::new();
    let outcome = fire_one(
        &env,
        "PreToolUse",
        "echo 'use trash instead' >&2; exit 2",
        env.bash("rm x"),
    )
    .await;
    assert_eq!(outcome.block_reason.as_deref(), Some("use trash instead"));
    let outcome = fire_one(
        &env,
        "Stop",
        "echo 'first line' >&2; echo second >&2; exit 7",
        json!({}),
    )
    .await;
    let error = outcome.hooks[0].error.as_deref().unwrap();
    assert!(
        error.contains("exit code 7") && error.contains("first line") && !error.contains("second"),
        "{error}"
    );
}

#[tokio::test]
async fn plain_text_is_context_on_session_start_only() {
    let env = TestEnv::new();
    let outcome = fire_one(
        &env,
        "SessionStart",
        "echo 'remember the tests'",
        json!({"source": "startup"}),
    )
    .await;
    assert_eq!(
        outcome.additional_context.as_deref(),
        Some("remember the tests")
    );
    let outcome = fire_one(&env, "PreToolUse", "echo 'ignored'", env.bash("ls")).await;
    assert_eq!(outcome.additional_context, None);
}

#[tokio::test]
async fn stdin_carries_the_input_and_env_the_project() {
    let env = TestEnv::new();
    let script = r#"input=$(cat); cmd=$(printf '%s' "$input" | sed -n 's/.*"command":"\([^"]*\)".*/\1/p')
printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"%s|%s|%s"}}' "$cmd" "$CLAUDE_PROJECT_DIR" "$CLAUDE_CODE_SESSION_ID""#;
    let outcome = fire_one(&env, "PreToolUse", script, env.bash("cargo build")).await;
    assert_eq!(
        outcome.additional_context.unwrap(),
        format!("cargo build|{}|test-session", env.project.display())
    );
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    let env = TestEnv::new();
    let pid_file = env.root.join("child.pid");
    let script = env.script(
        "slow.sh",
        &format!("sleep 60 & echo $! > {}; sleep 60", pid_file.display()),
    );
    let mut handler = command(&script);
    handler["timeout"] = json!(1);
    let engine = env.engine_for("PreToolUse", vec![handler]);
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(outcome.hooks[0].status, HookStatus::Cancelled);
    assert!(hook_error(&outcome, 0).contains("timed out after 1s"));
    let child = read_pid(&pid_file);
    assert!(
        wait_gone(child, Duration::from_secs(5)),
        "background child {child} survived the timeout"
    );
}

#[tokio::test]
async fn children_left_behind_after_exit_are_killed() {
    let env = TestEnv::new();
    let pid_file = env.root.join("orphan.pid");
    let outcome = fire_one(
        &env,
        "PreToolUse",
        &format!("sleep 60 & echo $! > {}; exit 0", pid_file.display()),
        env.bash("ls"),
    )
    .await;
    assert_eq!(outcome.hooks[0].status, HookStatus::Success);
    let orphan = read_pid(&pid_file);
    assert!(
        wait_gone(orphan, Duration::from_secs(5)),
        "orphan {orphan} left behind"
    );
}

#[tokio::test]
async fn huge_output_is_capped_not_buffered() {
    let env = TestEnv::new();
    // 64 MB on stdout and 16 MB on stderr (64 and 16 times the cap, a thousand times a
    // pipe's buffer), then a normal exit: the hook is drained to its end.
    let outcome = fire_one(
        &env,
        "SessionStart",
        "head -c 64000000 /dev/zero | tr '\\0' 'x'; head -c 16000000 /dev/zero >&2; exit 0",
        json!({"source": "startup"}),
    )
    .await;
    assert_eq!(outcome.hooks[0].status, HookStatus::Success);
    let context = outcome.additional_context.unwrap();
    assert_eq!(context.len(), hookhost::internals::OUTPUT_CAP);
}

#[tokio::test]
async fn first_line_async_detaches_and_reports_later() {
    let env = TestEnv::new();
    let script = r#"echo '{"async": true}'; sleep 0.3; echo 'late context' >/dev/null; exit 2"#;
    let path = env.script("detach.sh", script);
    let engine = env.engine_for("Stop", vec![command(&path)]);
    let outcome = engine.execute("Stop", json!({"session_id": "s"})).await;
    assert_eq!(outcome.hooks[0].status, HookStatus::Success);
    assert!(!outcome.should_block, "a detached hook does not decide");
    let notice = tokio::time::timeout(Duration::from_secs(10), engine.next_notice())
        .await
        .unwrap();
    assert_eq!(notice.status, HookStatus::Blocking);
    assert!(!notice.rewake);
    engine.close().await;
}

#[tokio::test]
async fn async_and_async_rewake_modes() {
    let env = TestEnv::new();
    let marker = env.root.join("async-ran");
    let fire_and_forget = json!({"type": "command", "async": true,
        "command": format!("sleep 0.2; touch {}", marker.display())});
    let rewake = json!({"type": "command", "asyncRewake": true,
        "command": "sleep 0.1; echo 'tests are failing' >&2; exit 2"});
    let engine = env.engine_for("PostToolUse", vec![fire_and_forget, rewake]);
    let outcome = engine.execute("PostToolUse", env.bash("cargo test")).await;
    assert!(!outcome.should_block);
    assert_eq!(outcome.counts.success, 2);
    assert!(outcome.hooks[0].detached);
    let notice = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let notice = engine.next_notice().await;
            if notice.rewake {
                return notice;
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(notice.message.as_deref(), Some("tests are failing"));
    engine.close().await;
    assert!(marker.exists(), "close() waits for async hooks");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_stops_long_async_hooks_within_its_drain_time() {
    let env = TestEnv::new();
    let pid_file = env.root.join("long.pid");
    let handler = json!({"type": "command", "async": true,
        "command": format!("echo $$ > {}; exec sleep 60", pid_file.display())});
    let engine = env.engine_for("Notification", vec![handler]);
    engine
        .execute("Notification", json!({"notification_type": "idle_prompt"}))
        .await;
    let pid = read_pid(&pid_file);
    let started = std::time::Instant::now();
    engine.close().await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        wait_gone(pid, Duration::from_secs(5)),
        "async hook {pid} survived close()"
    );
}

#[tokio::test]
async fn exec_form_substitutes_placeholders_without_a_shell() {
    let env = TestEnv::new();
    let script = env.script("argv.sh", r#"printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s|%s"}}' "$1" "$2""#);
    let handler = json!({"type": "command", "command": script,
        "args": ["${CLAUDE_PROJECT_DIR}/x y", "$HOME;rm -rf /"]});
    let engine = env.engine_for("SessionStart", vec![handler]);
    let outcome = engine
        .execute("SessionStart", json!({"source": "startup"}))
        .await;
    assert_eq!(
        outcome.additional_context.unwrap(),
        format!("{}/x y|$HOME;rm -rf /", env.project.display()),
        "placeholders expand, nothing else is interpreted"
    );
    let bash =
        json!({"type": "command", "shell": "bash", "command": "echo \"${BASH_VERSION:+bash}\""});
    let engine = env.engine_for("SessionStart", vec![bash]);
    let outcome = engine
        .execute("SessionStart", json!({"source": "startup"}))
        .await;
    assert_eq!(outcome.additional_context.as_deref(), Some("bash"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn execute_detached_runs_in_the_background() {
    let env = TestEnv::new();
    let marker = env.root.join("detached-ran");
    let engine = env.engine_for(
        "Notification",
        vec![command(&format!("touch {}", marker.display()))],
    );
    engine.execute_detached("Notification", json!({"notification_type": "idle_prompt"}));
    engine.close().await;
    assert!(marker.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_timeout_bounds_a_self_detached_hook() {
    let env = TestEnv::new();
    let pid_file = env.root.join("detached.pid");
    let handler = json!({"type": "command", "command": format!(
        r#"echo '{{"async": true, "asyncTimeout": 1}}'; echo $$ > {}; exec sleep 60"#,
        pid_file.display()
    )});
    let engine = env.engine_for("PostToolUse", vec![handler]);
    let outcome = engine.execute("PostToolUse", env.bash("ls")).await;
    assert_eq!(outcome.counts.success, 1, "{outcome:?}");
    let pid = read_pid(&pid_file);
    // Its own 600 s timeout would keep it alive; `asyncTimeout: 1` stops it (without
    // waiting for close()).
    assert!(
        wait_gone(pid, Duration::from_secs(5)),
        "detached hook {pid} outlived its asyncTimeout"
    );
    let notice = tokio::time::timeout(Duration::from_secs(5), engine.next_notice())
        .await
        .unwrap();
    assert_eq!(notice.status, hookhost::HookStatus::Cancelled);
    assert!(
        notice
            .message
            .as_deref()
            .unwrap_or("")
            .contains("timed out after 1s"),
        "{notice:?}"
    );
    engine.close().await;
}

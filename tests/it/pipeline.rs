//! Matching, concurrency, configuration-order merge, sequential groups, the stop-loop
//! guard, `once`, `if` and session hooks, end to end.

use std::time::Duration;

use hookhost::{HookStatus, SessionHook};
use hookhost_tests::{TestEnv, command, hooks};
use serde_json::{Value, json};

fn context_hook(text: &str) -> Value {
    command(&format!(
        r#"printf '{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","additionalContext":"{text}"}}}}'"#
    ))
}

#[tokio::test]
async fn fifty_hooks_run_concurrently_and_merge_in_config_order() {
    let env = TestEnv::new();
    let barrier = env.root.join("barrier");
    std::fs::create_dir_all(&barrier).unwrap();
    // Each hook announces itself, then waits until all 50 have started. Run one after
    // another, the first would wait forever and hit its timeout.
    let handlers: Vec<Value> = (0..50)
        .map(|i| {
            let wait = format!(
                "touch {dir}/{i}; n=0; while [ $(ls {dir} | wc -l) -lt 50 ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n+1)); done; \
                 [ $(ls {dir} | wc -l) -ge 50 ] || exit 1; sleep 0.0{d}; \
                 printf '{{\"hookSpecificOutput\":{{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"{i}\"}}}}'",
                dir = barrier.display(),
                d = 9 - (i % 10)
            );
            let mut handler = command(&wait);
            handler["timeout"] = json!(30);
            handler
        })
        .collect();
    let engine = env.engine(hooks("PreToolUse", Some("Bash"), handlers));
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(
        outcome.counts.success,
        50,
        "{:?}",
        outcome
            .hooks
            .iter()
            .find(|h| h.status != HookStatus::Success)
    );
    let expected: Vec<String> = (0..50).map(|i| i.to_string()).collect();
    assert_eq!(outcome.additional_context.unwrap(), expected.join("\n"));
}

#[tokio::test]
async fn updated_input_is_last_writer_in_config_order_not_completion_order() {
    let env = TestEnv::new();
    let rewrite = |value: &str, delay: &str| {
        command(&format!(
            r#"sleep {delay}; printf '{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","updatedInput":{{"command":"{value}"}}}}}}'"#
        ))
    };
    // The second hook finishes first; the last one in configuration order still wins.
    let engine = env.engine_for(
        "PreToolUse",
        vec![rewrite("first", "0"), rewrite("second", "0.4")],
    );
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(outcome.updated_input, Some(json!({"command": "second"})));
}

#[tokio::test]
async fn sequential_group_feeds_rewrites_forward_and_stops_at_first_block() {
    let env = TestEnv::new();
    let rewrite = command(
        r#"printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls --color=never"}}}'"#,
    );
    let echo = command(
        r#"cmd=$(sed -n 's/.*"command":"\([^"]*\)".*/\1/p'); printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"saw %s"}}' "$cmd""#,
    );
    let block = command("echo 'second opinion: no' >&2; exit 2");
    let never = command("echo never-runs > /dev/null");
    let settings = json!({"PreToolUse": [{"matcher": "Bash", "sequential": true, "hooks": [rewrite, echo, block, never]}]});
    let engine = env.engine(settings);
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(
        outcome.additional_context.as_deref(),
        Some("saw ls --color=never")
    );
    assert!(outcome.should_block);
    assert_eq!(outcome.block_reason.as_deref(), Some("second opinion: no"));
    let statuses: Vec<HookStatus> = outcome.hooks.iter().map(|h| h.status).collect();
    assert_eq!(
        statuses,
        vec![
            HookStatus::Success,
            HookStatus::Success,
            HookStatus::Blocking,
            HookStatus::Cancelled
        ]
    );
    assert!(
        outcome.hooks[3]
            .error
            .as_deref()
            .unwrap()
            .starts_with("not run")
    );
}

#[tokio::test]
async fn stop_loop_guard_sets_active_flag_and_caps_blocks() {
    let env = TestEnv::new();
    let script = r#"active=$(grep -c '"stop_hook_active":true'); printf '{"decision":"block","reason":"keep going %s"}' "$active""#;
    let engine = env.engine_for("Stop", vec![command(script)]);
    let input = json!({"session_id": "loop"});
    let first = engine.execute("Stop", input.clone()).await;
    assert_eq!(first.block_reason.as_deref(), Some("keep going 0"));
    for round in 2..=8 {
        let outcome = engine.execute("Stop", input.clone()).await;
        assert!(outcome.should_block, "round {round}");
        assert_eq!(outcome.block_reason.as_deref(), Some("keep going 1"));
    }
    let ninth = engine.execute("Stop", input.clone()).await;
    assert!(
        !ninth.should_block,
        "the 9th consecutive block is let through"
    );
    assert!(ninth.system_message.unwrap().contains("cap 8"));
    // The counter restarted: the next stop blocks again.
    assert!(engine.execute("Stop", input).await.should_block);
}

#[tokio::test]
async fn once_hooks_run_once_per_session() {
    let env = TestEnv::new();
    let mut handler = command("echo hi");
    handler["once"] = json!(true);
    let engine = env.engine_for("UserPromptSubmit", vec![handler]);
    let fire = |session: &str| {
        engine.execute(
            "UserPromptSubmit",
            json!({"session_id": session, "prompt": "x"}),
        )
    };
    assert_eq!(fire("a").await.hooks.len(), 1);
    assert_eq!(fire("a").await.hooks.len(), 0);
    assert_eq!(fire("b").await.hooks.len(), 1);
}

#[tokio::test]
async fn if_rules_and_tool_pattern_matchers_select_hooks() {
    let env = TestEnv::new();
    let mut git_only = context_hook("git-if");
    git_only["if"] = json!("Bash(git *)");
    let settings = json!({"PreToolUse": [
        {"matcher": "Bash", "hooks": [git_only]},
        {"matcher": "Bash(npm:*)", "hooks": [context_hook("npm-matcher")]},
        {"matcher": "^(?!Bash).*", "hooks": [context_hook("not-bash")]}
    ]});
    let engine = env.engine(settings);
    let context = |input| {
        let engine = engine.clone();
        async move { engine.execute("PreToolUse", input).await.additional_context }
    };
    assert_eq!(
        context(env.bash("cd x && git push")).await.as_deref(),
        Some("git-if")
    );
    assert_eq!(
        context(env.bash("npm install")).await.as_deref(),
        Some("npm-matcher")
    );
    assert_eq!(context(env.bash("ls")).await, None);
    assert_eq!(
        context(env.file_tool("Read", json!({"file_path": "/x"})))
            .await
            .as_deref(),
        Some("not-bash")
    );
}

#[tokio::test]
async fn session_hooks_fire_after_config_hooks_and_can_be_removed() {
    let env = TestEnv::new();
    let engine = env.engine_for("PreToolUse", vec![context_hook("config")]);
    let hook = |matcher: &str, text: &str| {
        SessionHook::new(
            "PreToolUse",
            json!({"type": "command", "command": format!(
                r#"printf '{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","additionalContext":"{text}"}}}}'"#
            )}),
        )
        .matcher(matcher)
    };
    let first = engine.add_session_hook(hook("Bash", "s1")).unwrap();
    engine.add_session_hook(hook("Edit", "s2")).unwrap();
    // An entry a settings file could not hold is refused with the reason.
    let bad = engine
        .add_session_hook(SessionHook::new("PreToolUse", json!({"type": "command"})))
        .unwrap_err()
        .to_string();
    assert!(bad.contains("command"), "{bad}");
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(outcome.additional_context.as_deref(), Some("config\ns1"));
    assert_eq!(outcome.hooks[1].source, "session");
    assert!(engine.remove_session_hook(first));
    assert!(!engine.remove_session_hook(first));
    assert_eq!(
        engine
            .execute("PreToolUse", env.bash("ls"))
            .await
            .additional_context
            .as_deref(),
        Some("config")
    );
    engine.clear_session_hooks();
    assert_eq!(engine.hooks().len(), 1);
}

#[tokio::test]
async fn active_hooks_show_status_messages() {
    let env = TestEnv::new();
    let mut handler = command("sleep 0.5");
    handler["statusMessage"] = json!("Checking policy…");
    let engine = env.engine_for("Stop", vec![handler]);
    let running = {
        let engine = engine.clone();
        tokio::spawn(async move { engine.execute("Stop", json!({})).await })
    };
    let mut seen = Vec::new();
    for _ in 0..100 {
        seen = engine.active_hooks();
        if !seen.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(seen[0].status_message.as_deref(), Some("Checking policy…"));
    running.await.unwrap();
    assert!(engine.active_hooks().is_empty());
}

#[tokio::test]
async fn fields_on_the_wrong_event_are_ignored_and_reported() {
    let env = TestEnv::new();
    let script = r#"printf '{"hookSpecificOutput":{"hookEventName":"Stop","updatedInput":{"x":1},"additionalContext":"ok"}}'"#;
    let engine = env.engine_for("Stop", vec![command(script)]);
    let outcome = engine.execute("Stop", json!({})).await;
    assert_eq!(outcome.updated_input, None);
    assert_eq!(outcome.additional_context.as_deref(), Some("ok"));
    assert_eq!(outcome.ignored_fields[0].field, "updatedInput");
}

#[tokio::test]
async fn custom_events_work_as_string_keys() {
    let env = TestEnv::new();
    let engine = env.engine_for("MyHostEvent", vec![command("echo 'no' >&2; exit 2")]);
    let outcome = engine.execute("MyHostEvent", json!({})).await;
    assert!(outcome.should_block);
    assert!(
        engine
            .diagnostics()
            .iter()
            .any(|d| d.message.contains("unknown event `MyHostEvent`"))
    );
}

#[tokio::test]
async fn worktree_matchers_compare_name_and_path() {
    let env = TestEnv::new();
    let engine = env.engine(json!({
        "WorktreeCreate": [{"matcher": "^bold-", "hooks": [hookhost_tests::command("echo /tmp/wt")]}],
        "WorktreeRemove": [{"matcher": "/wt/keep$", "hooks": [hookhost_tests::command("exit 0")]}]
    }));
    let create = |name: &str| json!({"name": name});
    let remove = |path: &str| json!({"worktree_path": path});
    for (event, input, matched) in [
        ("WorktreeCreate", create("bold-oak-a3f2"), 1),
        ("WorktreeCreate", create("calm-elm-b1c2"), 0),
        ("WorktreeRemove", remove("/repo/wt/keep"), 1),
        ("WorktreeRemove", remove("/repo/wt/other"), 0),
    ] {
        let ran = engine.execute(event, input.clone()).await.hooks.len();
        assert_eq!(ran, matched, "{event} {input}");
    }
}

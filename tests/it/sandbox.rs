//! Sandbox hardening: one regression test per class of bypass (issue 7). Each test is
//! written as the attack: it fails when the limit can be got around.

use std::path::Path;
use std::time::Duration;

use hookhost::SessionHook;
use hookhost::{Engine, EventOutcome, HookStatus};
use hookhost_tests::{
    TestEnv, guest, guest_at, guests, hook_error, run_cli, wasm, with_extra_memories,
};
use serde_json::{Value, json};

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");

/// An engine with one PreToolUse hook.
fn one_hook(env: &TestEnv, handler: Value) -> Engine {
    env.engine_for("PreToolUse", vec![handler])
}

async fn fire(engine: &Engine, env: &TestEnv) -> EventOutcome {
    engine.execute("PreToolUse", env.bash("ls")).await
}

/// The test guest with `extra` more memories of `pages` pages each, written below the
/// test's root; its path.
fn with_memories(env: &TestEnv, extra: usize, pages: u32) -> String {
    let path = env
        .root
        .join(format!("{extra}-extra-memories-{pages}.wasm"));
    std::fs::write(&path, with_extra_memories(guests::TEST_GUEST, extra, pages)).unwrap();
    path.display().to_string()
}

/// An engine whose one hook runs `component` allowing every call, within `memory_mb`.
fn allowing_within(env: &TestEnv, component: &str, memory_mb: u32) -> Engine {
    one_hook(
        env,
        guest_at(component, "allow", json!({ "memoryMb": memory_mb })),
    )
}

fn errors(engine: &Engine) -> String {
    engine
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

// ---- one memory budget per call -------------------------------------------------------

#[tokio::test]
async fn memory_budget_covers_the_sum_of_all_memories() {
    let env = TestEnv::new();
    // Three extra memories of 32 MiB: each under a 64 MiB limit, together over it.
    let component = with_memories(&env, 3, 512);
    let engine = allowing_within(&env, &component, 64);
    let outcome = fire(&engine, &env).await;
    assert_eq!(outcome.hooks[0].status, HookStatus::NonBlockingError);
    hookhost_tests::assert_hook_error(&outcome, 0, "memory limit of 64 MiB exceeded");
    // The same component fits a budget that covers the sum.
    let engine = allowing_within(&env, &component, 200);
    let outcome = fire(&engine, &env).await;
    assert_eq!(outcome.hooks[0].status, HookStatus::Success, "{outcome:?}");
}

#[tokio::test]
async fn too_many_memories_are_refused_at_load_naming_the_count() {
    let env = TestEnv::new();
    let component = with_memories(&env, 8, 1);
    let engine = allowing_within(&env, &component, 64);
    let problems = engine.prepare_all().await;
    assert_eq!(problems.len(), 1, "{problems:?}");
    hookhost_tests::assert_says(
        &problems[0],
        "declares 9 linear memories, more than the limit of 4",
    );
    let outcome = fire(&engine, &env).await;
    assert_eq!(outcome.hooks[0].status, HookStatus::NonBlockingError);
}

// ---- host memory and descriptors spent for the guest ----------------------------------

#[tokio::test]
async fn wasi_handles_are_capped_per_call() {
    let env = TestEnv::new();
    let file = env.write("project/data.txt", "data");
    std::fs::create_dir_all(env.project.join("listing")).unwrap();
    for index in 0..50 {
        env.write(&format!("project/listing/file-{index}"), "x");
    }
    let grant = json!([{"path": env.project.display().to_string()}]);
    for (mode, path, verb) in [
        ("fds", file.display().to_string(), "opened"),
        (
            "listdir",
            env.project.join("listing").display().to_string(),
            "listed",
        ),
    ] {
        let engine = one_hook(
            &env,
            guest(
                mode,
                json!({"allowedPaths": grant, "config": {"path": path}}),
            ),
        );
        let outcome = fire(&engine, &env).await;
        // Either the guest saw an error after at most the cap, or the call was stopped
        // with the limit named; never 100,000 handles.
        let report = outcome
            .additional_context
            .clone()
            .unwrap_or_else(|| hook_error(&outcome, 0).to_string());
        if let Some(rest) = report.strip_prefix(&format!("{verb} ")) {
            let count: usize = rest.split(':').next().unwrap().parse().unwrap();
            assert!(count <= 128, "{mode}: {report}");
        } else {
            assert!(
                report.contains("WASI resource limit of 128 open handles exceeded"),
                "{mode}: {report}"
            );
        }
    }
}

#[tokio::test]
async fn directory_listings_are_charged_to_the_call() {
    let env = TestEnv::new();
    // 2,000 entries with 200-byte names: ~400 KB of host memory per listing, so the
    // 8 MiB listing budget is spent after ~20 listings, long before the handle cap.
    let big = env.project.join("big");
    std::fs::create_dir_all(&big).unwrap();
    for index in 0..2000 {
        std::fs::write(big.join(format!("{index:0>200}")), "").unwrap();
    }
    let engine = one_hook(
        &env,
        guest(
            "listdir",
            json!({"allowedPaths": [{"path": env.project.display().to_string()}],
                   "config": {"path": big.display().to_string()}}),
        ),
    );
    let outcome = fire(&engine, &env).await;
    let report = outcome.additional_context.clone().unwrap_or_default();
    let count: usize = report
        .strip_prefix("listed ")
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{report} {:?}", outcome.hooks[0]));
    assert!((15..=25).contains(&count), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_descriptor_flood_does_not_drop_another_hooks_deny() {
    let env = TestEnv::new();
    let file = env.write("project/data.txt", "data");
    let grant = json!([{"path": env.project.display().to_string()}]);
    // Distinct entries (identical handlers are de-duplicated and would run once), each
    // opening the granted file as often as it can and holding the handles for 3 s.
    let floods: Vec<Value> = (0..12)
        .map(|copy| {
            guest(
                "fds",
                json!({"allowedPaths": grant, "timeout": 10,
                       "config": {"path": file.display().to_string(), "hold_ms": 3000, "copy": copy}}),
            )
        })
        .collect();
    let flood = env.engine_for("PreToolUse", floods);
    let flood_input = env.bash("ls");
    let flooding = tokio::spawn(async move { flood.execute("PreToolUse", flood_input).await });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // Meanwhile a policy in the same process opens its own grant.
    let settings = env.hook_file(
        "policy.json",
        "PreToolUse",
        vec![guest("deny", json!({"allowedPaths": grant}))],
    );
    let policy = Engine::load(&env.load_options(&[settings], &[]), env.engine_options()).unwrap();
    let outcome = fire(&policy, &env).await;
    hookhost_tests::assert_decision(&outcome, "deny");
    // Each flood was held to the per-call cap: stopped with the limit named, or it
    // saw the error itself after at most 128 handles (and near them: it did flood).
    let flooded = flooding.await.unwrap();
    let context = flooded.additional_context.clone().unwrap_or_default();
    let counts: Vec<usize> = context
        .split("opened ")
        .skip(1)
        .map(|rest| rest.split(':').next().unwrap().parse().unwrap())
        .collect();
    let mut successes = 0;
    for hook in &flooded.hooks {
        let error = hook.error.as_deref().unwrap_or("");
        if hook.status == HookStatus::Success {
            successes += 1;
        } else {
            assert!(
                error.contains("WASI resource limit of 128 open handles exceeded"),
                "{hook:?}"
            );
        }
    }
    assert_eq!(flooded.hooks.len(), 12, "{:?}", flooded.hooks);
    assert_eq!(
        counts.len(),
        successes,
        "one report per finished flood: {context}"
    );
    for count in counts {
        assert!((100..=128).contains(&count), "{context}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pool_exhaustion_makes_calls_wait_not_fail() {
    let env = TestEnv::new();
    let component = with_memories(&env, 3, 1);
    // Six calls of a four-memory component, each holding its instance for a while.
    let mut handlers: Vec<Value> = (0..6)
        .map(|copy| {
            guest_at(
                &component,
                "nap",
                json!({"config": {"hold_ms": 200, "copy": copy}}),
            )
        })
        .collect();
    handlers.push(guest("deny", json!({})));
    let settings = env.hook_file("settings.json", "PreToolUse", handlers);
    let mut options = env.engine_options();
    options.wasm.max_instances = 8; // 8 memories in the pool: two such calls fill it
    let engine = Engine::load(&env.load_options(&[settings], &[]), options).unwrap();
    let outcome = fire(&engine, &env).await;
    hookhost_tests::assert_decision(&outcome, "deny");
    for (index, hook) in outcome.hooks.iter().enumerate() {
        assert_ne!(
            hook.status,
            HookStatus::NonBlockingError,
            "hook {index}: {:?}",
            hook.error
        );
    }
}

// ---- blocking host calls -----------------------------------------------------------------

#[test]
fn the_cli_exits_promptly_when_a_guest_left_a_host_call_blocked() {
    let env = TestEnv::new();
    let fifo = env.project.join("pipe");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let settings = env.hook_file(
        "settings.json",
        "PreToolUse",
        vec![guest(
            "read",
            json!({
                "timeout": 0.5,
                "allowedPaths": [{"path": env.project.display().to_string()}],
                "config": {"path": fifo.display().to_string()}
            }),
        )],
    );
    let args = cli_args(&env, &settings, &["fire", "PreToolUse"]);
    let run = run_cli(
        CLI,
        &args,
        env.bash("ls").to_string().as_bytes(),
        Duration::from_secs(20),
    )
    .expect("hookhost hung after a guest blocked on a FIFO");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(outcome["hooks"][0]["status"], "cancelled");
}

fn cli_args(env: &TestEnv, settings: &Path, head: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = head.iter().map(ToString::to_string).collect();
    args.extend([
        "--no-discover".into(),
        "--settings".into(),
        settings.display().to_string(),
        "--managed-settings".into(),
        env.root.join("managed.json").display().to_string(),
        "--cache-dir".into(),
        env.root.join("cli-cache").display().to_string(),
    ]);
    args
}

// ---- work outside every limit at load time ----------------------------------------------

#[test]
fn components_that_are_not_regular_files_or_too_big_are_load_errors() {
    let env = TestEnv::new();
    let fifo = env.root.join("component.fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let huge = env.root.join("huge.wasm");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(200 << 20)
        .unwrap(); // sparse: costs no disk
    let handlers = vec![
        wasm(&fifo.display().to_string(), json!({})),
        wasm("/dev/zero", json!({})),
        wasm(&huge.display().to_string(), json!({})),
    ];
    let settings = env.hook_file("settings.json", "PreToolUse", handlers);
    let run = run_cli(
        CLI,
        &cli_args(&env, &settings, &["check"]),
        b"",
        Duration::from_secs(30),
    )
    .expect("hookhost check hung on a FIFO or /dev/zero");
    assert_eq!(run.code, 1, "{}", run.stdout);
    hookhost_tests::assert_says(&run.stdout, "component.fifo is not a regular file");
    hookhost_tests::assert_says(&run.stdout, "/dev/zero is not a regular file");
    hookhost_tests::assert_says(&run.stdout, "over the component size limit");
}

#[tokio::test]
async fn components_compile_lazily_and_within_a_time_limit() {
    let env = TestEnv::new();
    let settings = env.settings(
        "settings.json",
        json!({
            "PreToolUse": [{"hooks": [guest("deny", json!({}))]}],
            "Stop": [{"hooks": [wasm(guests::BASH_GUARD, json!({}))]}]
        }),
    );
    let engine = Engine::load(
        &env.load_options(std::slice::from_ref(&settings), &[]),
        env.engine_options(),
    )
    .unwrap();
    // Nothing compiles at load; firing PreToolUse compiles only its own component.
    assert_eq!(engine.inventory().wasm.unwrap().cache.compiled, 0);
    fire(&engine, &env).await;
    assert_eq!(engine.inventory().wasm.unwrap().cache.compiled, 1);
    // A compile that runs over its limit is a load error naming the limit.
    let mut options = env.engine_options();
    options.wasm.cache_dir = None;
    options.wasm.compile_timeout = Duration::from_millis(1);
    let engine = Engine::load(&env.load_options(&[settings], &[]), options).unwrap();
    let problems = engine.prepare_all().await;
    assert_eq!(problems.len(), 2, "{problems:?}");
    hookhost_tests::assert_says(&problems[0], "compile time limit of 0.001s exceeded");
}

#[tokio::test]
async fn a_compile_worker_bounds_memory_and_time() {
    let env = TestEnv::new();
    let settings = env.one_hook("PreToolUse", guest("deny", json!({})));
    let engine_with = |memory: u64, timeout: Duration| {
        let mut options = env.engine_options();
        options.wasm.cache_dir = None;
        options.wasm.compile_worker = Some(CLI.into());
        options.wasm.compile_memory_bytes = memory;
        options.wasm.compile_timeout = timeout;
        Engine::load(
            &env.load_options(std::slice::from_ref(&settings), &[]),
            options,
        )
        .unwrap()
    };
    // Within its limits the worker's artifact runs like an in-process one.
    let engine = engine_with(4 << 30, Duration::from_secs(60));
    assert_eq!(
        hookhost_tests::decision(&fire(&engine, &env).await),
        Some("deny")
    );
    assert_eq!(engine.inventory().wasm.unwrap().cache.compiled, 1);
    // A worker that cannot get the memory it needs is stopped, and the limit named.
    let engine = engine_with(24 << 20, Duration::from_secs(60));
    let problems = engine.prepare_all().await;
    hookhost_tests::assert_says(&problems[0], "compile memory limit of 24 MiB exceeded");
    // One that runs over its time is killed.
    let engine = engine_with(4 << 30, Duration::from_millis(1));
    let problems = engine.prepare_all().await;
    hookhost_tests::assert_says(&problems[0], "compile time limit");
}

// ---- answer costs ----------------------------------------------------------------------

#[tokio::test]
async fn empty_list_entries_count_against_the_answer_limit() {
    let env = TestEnv::new();
    let engine = env.engine_for(
        "SessionStart",
        vec![guest(
            "watch",
            json!({"memoryMb": 256, "config": {"count": 200_000}}),
        )],
    );
    let outcome = engine
        .execute("SessionStart", json!({"source": "startup"}))
        .await;
    assert_eq!(outcome.hooks[0].status, HookStatus::NonBlockingError);
    hookhost_tests::assert_hook_error(&outcome, 0, "output limit");
    // Within the byte limit, the entry cap still applies.
    let engine = env.engine_for(
        "SessionStart",
        vec![guest("watch", json!({"config": {"count": 2000}}))],
    );
    let outcome = engine
        .execute("SessionStart", json!({"source": "startup"}))
        .await;
    hookhost_tests::assert_hook_error(&outcome, 0, "more than the limit of 1024");
}

// ---- grants stay what they were ---------------------------------------------------------

#[tokio::test]
async fn nested_grants_of_different_modes_are_refused() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.project.join("docs")).unwrap();
    let engine = one_hook(
        &env,
        guest(
            "allow",
            json!({"failClosed": true, "allowedPaths": [
                {"path": env.project.display().to_string(), "write": true},
                {"path": env.project.join("docs").display().to_string()}
            ]}),
        ),
    );
    hookhost_tests::assert_says(errors(&engine), "nested with different modes");
    // Refused, and fail-closed still means a block.
    assert!(fire(&engine, &env).await.should_block);
}

#[tokio::test]
async fn a_grant_redirected_through_a_planted_symlink_is_refused() {
    let env = TestEnv::new();
    let (outside, sub) = env.secret_outside();
    let reader = |env: &TestEnv| {
        one_hook(
            env,
            guest(
                "read",
                json!({"allowedPaths": [{"path": sub.display().to_string()}],
                       "config": {"path": sub.join("secret.txt").display().to_string()}}),
            ),
        )
    };
    // Loaded while `sub` is a real folder; then a guest with a read-write grant on the
    // project swaps it for a symlink to `outside` (done here by the test, as that guest).
    let engine = reader(&env);
    std::fs::remove_dir(&sub).unwrap();
    std::os::unix::fs::symlink(&outside, &sub).unwrap();
    let outcome = fire(&engine, &env).await;
    hookhost_tests::assert_context_lacks(&outcome, "top secret");
    assert!(hook_error(&outcome, 0).contains("changed since it was configured"));
    // The next process resolves the grant again: refused at load.
    let engine = reader(&env);
    hookhost_tests::assert_says(errors(&engine), "passes through the symlink");
    let outcome = fire(&engine, &env).await;
    hookhost_tests::assert_context_lacks(&outcome, "top secret");
}

mod artifact_cache;
mod fail_closed;

//! Instances prepared ahead of calls: a prepared instance carries nothing from one call
//! to the next, every limit holds for it, grants are opened per call, and what prepared
//! instances hold is bounded, counted and let go.

use std::time::{Duration, Instant};

use hookhost::{Engine, EngineOptions, HookStatus, LoadOptions};
use hookhost_tests::{TestEnv, guest, guests, hook_error};
use serde_json::{Value, json};

fn engine_with(
    env: &TestEnv,
    handlers: Vec<Value>,
    tune: impl FnOnce(&mut EngineOptions),
) -> Engine {
    let settings = env.hook_file("settings.json", "PreToolUse", handlers);
    let load: LoadOptions = env.load_options(&[settings], &[]);
    let mut options = env.engine_options();
    tune(&mut options);
    Engine::load(&load, options).expect("engine")
}

fn stats(engine: &Engine) -> hookhost::PreparedStats {
    engine
        .inventory()
        .wasm
        .map(|w| w.prepared)
        .unwrap_or_default()
}

/// Waits (up to 20 s) until `done` holds for the prepared-instance counters.
async fn wait_for(engine: &Engine, what: &str, done: impl Fn(&hookhost::PreparedStats) -> bool) {
    let started = Instant::now();
    while !done(&stats(engine)) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{what}: {:?}",
            stats(engine)
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Fires once so the hook is hot, then waits until an instance is prepared for it.
async fn warm(env: &TestEnv, engine: &Engine) {
    engine.execute("PreToolUse", env.bash("ls")).await;
    wait_for(engine, "an instance prepared", |s| s.ready >= 1).await;
}

/// Which of the runtime's two pools the test guest runs in: the one that resets only
/// the pages a call wrote (its memory is small), or the one that copies a memory back
/// whole (where large JavaScript and Python images go; forced here).
#[derive(Clone, Copy, Debug)]
enum Pool {
    Touched,
    Copy,
}

impl Pool {
    fn tune(self, options: &mut EngineOptions) {
        options.wasm.copy_reset_from = match self {
            Pool::Touched => None,
            Pool::Copy => Some(0),
        };
    }

    /// Checks the hook's component ran in this pool.
    fn check(self, engine: &Engine) {
        let copies = engine.inventory().wasm.unwrap().cache.copy_pool;
        match self {
            Pool::Touched => assert_eq!(copies, 0, "in the touched-pages pool"),
            Pool::Copy => assert_eq!(copies, 1, "in the copy pool"),
        }
    }
}

#[tokio::test]
async fn a_prepared_instance_carries_nothing_from_one_call_to_the_next() {
    carries_nothing(Pool::Touched).await;
}

#[tokio::test]
async fn a_prepared_instance_in_the_copy_pool_carries_nothing_either() {
    carries_nothing(Pool::Copy).await;
}

async fn carries_nothing(pool: Pool) {
    let env = TestEnv::new();
    let granted = env.root.join("granted");
    std::fs::create_dir_all(&granted).unwrap();
    std::fs::write(granted.join("f.txt"), "x").unwrap();
    let engine = engine_with(
        &env,
        vec![guest(
            "remember",
            json!({"allowedPaths": [{"path": granted.display().to_string()}],
                   "config": {"path": granted.join("f.txt").display().to_string()}}),
        )],
        |options| pool.tune(options),
    );
    let mut reports = Vec::new();
    for _ in 0..8 {
        wait_for(&engine, "an instance prepared", |s| {
            s.ready >= 1 || s.misses == 0
        })
        .await;
        let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
        let text = outcome
            .additional_context
            .unwrap_or_else(|| panic!("{:?}", outcome.hooks));
        reports.push(serde_json::from_str::<Value>(&text).unwrap());
    }
    let first = &reports[0];
    // Memory (a static counter, the heap, the memory's size), the stack pointer global,
    // and WASI state (40 handles leaked per call would fill the 128-handle table of a
    // reused store on the fourth call): each call found them as a fresh instance has them.
    assert_eq!(first["calls_before"], 0, "{first}");
    assert_eq!(first["opened"], 40, "{first}");
    for report in &reports {
        assert_eq!(report, first);
    }
    let seen = stats(&engine);
    assert!(
        seen.hits >= 7,
        "most calls took a prepared instance: {seen:?}"
    );
    pool.check(&engine);
}

/// A guest that grows its memory past what a pool keeps resident (16 MiB), reads the
/// byte at 20 MiB and marks it: the next call, in a prepared instance whose slot that
/// call used, must find it zero again, in either pool.
#[tokio::test]
async fn memory_grown_past_the_resident_part_comes_back_zeroed() {
    for pool in [Pool::Touched, Pool::Copy] {
        let env = TestEnv::new();
        let engine = engine_with(&env, vec![guest("far", json!({}))], |options| {
            options.wasm.prepare.per_hook = 1;
            pool.tune(options);
        });
        for call in 0..6 {
            if call > 0 {
                wait_for(&engine, "an instance prepared", |s| s.ready >= 1).await;
            }
            let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
            assert_eq!(
                outcome.additional_context.as_deref(),
                Some("found 0"),
                "{pool:?}, call {call}: {:?}",
                outcome.hooks
            );
        }
        assert!(stats(&engine).hits >= 5, "{pool:?}: {:?}", stats(&engine));
        pool.check(&engine);
    }
}

/// By default only large memory images go to the copy pool: the test guest's ~1 MiB
/// memory stays in the pool that resets the pages a call wrote.
#[tokio::test]
async fn a_small_component_stays_in_the_touched_pages_pool_by_default() {
    let env = TestEnv::new();
    let engine = engine_with(&env, vec![guest("allow", json!({}))], |_| {});
    warm(&env, &engine).await;
    Pool::Touched.check(&engine);
}

#[tokio::test]
async fn every_limit_holds_for_a_prepared_instance() {
    limits_hold(Pool::Touched).await;
}

#[tokio::test]
async fn every_limit_holds_for_a_prepared_instance_in_the_copy_pool() {
    limits_hold(Pool::Copy).await;
}

async fn limits_hold(pool: Pool) {
    let env = TestEnv::new();
    let cases = [
        (
            "loop",
            json!({"fuel": 10_000_000}),
            HookStatus::Cancelled,
            "fuel limit of 10000000 exhausted",
        ),
        (
            "loop",
            json!({"fuel": 1_000_000_000_000u64, "timeout": 0.3}),
            HookStatus::Cancelled,
            "wall-time limit of 0.3s exceeded",
        ),
        (
            "sleep",
            json!({"timeout": 0.3}),
            HookStatus::Cancelled,
            "wall-time limit of 0.3s exceeded",
        ),
        (
            "memory",
            json!({"memoryMb": 16}),
            HookStatus::NonBlockingError,
            "memory limit of 16 MiB exceeded",
        ),
        (
            "fetch",
            json!({}),
            HookStatus::NonBlockingError,
            "input fetch limit exceeded",
        ),
        (
            "print",
            json!({}),
            HookStatus::NonBlockingError,
            "stdout/stderr limit of 64 KiB exceeded",
        ),
        (
            "stack",
            json!({}),
            HookStatus::NonBlockingError,
            "stack overflow",
        ),
    ];
    for (mode, extra, status, error) in cases {
        let engine = engine_with(&env, vec![guest(mode, extra)], |options| pool.tune(options));
        warm(&env, &engine).await;
        pool.check(&engine);
        let hits = stats(&engine).hits;
        let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
        assert_eq!(
            stats(&engine).hits,
            hits + 1,
            "{mode}: a prepared instance ran"
        );
        assert_eq!(
            outcome.hooks[0].status, status,
            "{mode}: {:?}",
            outcome.hooks[0]
        );
        assert!(
            hook_error(&outcome, 0).contains(error),
            "{mode}: {}",
            hook_error(&outcome, 0)
        );
    }
}

#[tokio::test]
async fn fail_closed_stays_closed_on_a_prepared_instance() {
    let env = TestEnv::new();
    let engine = engine_with(
        &env,
        vec![guest(
            "loop",
            json!({"fuel": 10_000_000, "failClosed": true}),
        )],
        |_| {},
    );
    warm(&env, &engine).await;
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert!(stats(&engine).hits >= 1);
    assert!(outcome.should_block, "{outcome:?}");
}

#[tokio::test]
async fn a_grant_swapped_after_an_instance_was_prepared_is_refused() {
    let env = TestEnv::new();
    let (outside, sub) = env.secret_outside();
    env.write("project/sub/secret.txt", "fine");
    let engine = engine_with(
        &env,
        vec![guest(
            "read",
            json!({"allowedPaths": [{"path": sub.display().to_string()}],
                   "config": {"path": sub.join("secret.txt").display().to_string()}}),
        )],
        |_| {},
    );
    warm(&env, &engine).await;
    // The prepared instance exists; now the folder is swapped for a symlink out.
    std::fs::remove_dir_all(&sub).unwrap();
    std::os::unix::fs::symlink(&outside, &sub).unwrap();
    let hits = stats(&engine).hits;
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(stats(&engine).hits, hits + 1);
    hookhost_tests::assert_context_lacks(&outcome, "top secret");
    hookhost_tests::assert_hook_error(&outcome, 0, "changed since it was configured");
}

#[tokio::test]
async fn what_prepared_instances_hold_is_bounded_and_counted() {
    let env = TestEnv::new();
    let handlers = (0..4)
        .map(|i| guest("context", json!({"config": {"text": format!("hook {i}")}})))
        .collect();
    let engine = engine_with(&env, handlers, |options| {
        options.wasm.prepare.per_hook = 3;
        options.wasm.prepare.max_slots = Some(5);
    });
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(outcome.counts.success, 4);
    wait_for(&engine, "the slot cap reached", |s| s.ready == 5).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let held = stats(&engine);
    assert_eq!((held.ready, held.slots), (5, 5), "{held:?}");
    assert!(held.bytes > 0, "memory is counted: {held:?}");
    // Calls still run while the cap is reached, prepared or not.
    for _ in 0..3 {
        let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
        assert_eq!(outcome.counts.success, 4, "{:?}", outcome.hooks);
    }
    assert!(stats(&engine).slots <= 5);
}

/// Calls at an agent's pace leave the shelf short by one and do not wake the preparer
/// (only a call that empties the shelf does); the epoch ticker, every 5 ms, does. The
/// preparer's own timer wakes it only every 5 s here, so a refill within a second is the
/// ticker's (three in a row, to leave the timer no chance).
#[tokio::test]
async fn calls_that_leave_instances_ready_are_refilled_by_the_ticker() {
    let env = TestEnv::new();
    let engine = engine_with(&env, vec![guest("allow", json!({}))], |options| {
        options.wasm.prepare.per_hook = 4;
        options.wasm.prepare.idle = Duration::from_secs(3600);
    });
    warm(&env, &engine).await;
    wait_for(&engine, "a full shelf", |s| s.ready == 4).await;
    for round in 0..3 {
        let hits = stats(&engine).hits;
        let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
        assert_eq!(outcome.counts.success, 1, "{:?}", outcome.hooks);
        assert_eq!(
            stats(&engine).hits,
            hits + 1,
            "a prepared instance was used"
        );
        let started = Instant::now();
        while stats(&engine).ready < 4 {
            assert!(
                started.elapsed() < Duration::from_secs(1),
                "round {round}: not refilled by the ticker: {:?}",
                stats(&engine)
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
}

#[tokio::test]
async fn an_idle_engine_lets_its_prepared_instances_go() {
    let env = TestEnv::new();
    let engine = engine_with(&env, vec![guest("allow", json!({}))], |options| {
        options.wasm.prepare.idle = Duration::from_millis(300);
    });
    warm(&env, &engine).await;
    wait_for(&engine, "released when idle", |s| {
        s.ready == 0 && s.released >= 1 && s.slots == 0 && s.bytes == 0
    })
    .await;
    // The next call instantiates on its own path and makes the hook hot again. (Counted
    // by the monotonic counter: a starved poll can miss a ready instance that the idle
    // timer already let go again.)
    let before = stats(&engine).prepared;
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(outcome.counts.success, 1);
    wait_for(&engine, "prepared again", |s| s.prepared > before).await;
}

#[tokio::test]
async fn a_removed_hook_drops_its_prepared_instances() {
    let env = TestEnv::new();
    let engine = engine_with(&env, vec![], |_| {});
    let bytes = std::fs::read(guests::TEST_GUEST).unwrap();
    let id = engine
        .add_session_hook(hookhost::SessionHook::wasm_bytes(
            "PreToolUse",
            "s.wasm",
            &bytes,
        ))
        .unwrap();
    warm(&env, &engine).await;
    assert!(engine.remove_session_hook(id));
    wait_for(&engine, "dropped with the hook", |s| {
        s.ready == 0 && s.slots == 0
    })
    .await;
}

#[tokio::test]
async fn no_instance_is_prepared_when_turned_off() {
    let env = TestEnv::new();
    let engine = engine_with(&env, vec![guest("allow", json!({}))], |options| {
        options.wasm.prepare = hookhost::PrepareOptions::none();
    });
    for _ in 0..3 {
        engine.execute("PreToolUse", env.bash("ls")).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let seen = stats(&engine);
    assert_eq!(
        (seen.ready, seen.hits, seen.prepared),
        (0, 0, 0),
        "{seen:?}"
    );
}

//! Criterion benchmarks of the hook pipeline.
//!
//! * `pipeline/100_hooks_none_matching`: matching overhead with 100 configured hooks.
//! * `pipeline/one_trivial_command_hook`: one matching `true` command hook.
//! * `policy/wasm_bash_guard_no_self_protection`: the same with the owner's
//!   `selfProtection: false` (the difference is self-protection's cost per call).
//! * `policy/wasm_bash_guard` vs `policy/command_bash_guard`: one PreToolUse through the
//!   bash-guard component (all limits on, fresh instance per call, prepared ahead: the
//!   untimed wait for a prepared instance is left out) against the same kind of policy
//!   as a `sh -c` command hook, in one run. `policy/wasm_bash_guard_unprepared`: none
//!   prepared (instantiated and dropped on the call's path);
//!   `policy/wasm_bash_guard_back_to_back`: prepared ahead, calls back to back.
//! * `policy/wasm_bash_guard_with_grant`: the same with a read-only directory grant
//!   (opened and verified per call).
//! * `startup/engine_with_cached_component`: a new engine whose component comes from the
//!   MAC-verified disk cache (the per-process cost of `hookhost fire`, minus exec).
//! * `throughput/wasm_bash_guard_2_workers[_unprepared]`: 64 concurrent calls on a
//!   2-worker runtime (time per batch; calls/s = 64 / time), with and without instances
//!   prepared ahead. `…_sustained`: the same 64 calls kept in flight without a pause
//!   between batches (a new call starts as each one ends).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_main};
use hookhost::Engine;
use serde_json::{Value, json};

mod support;

use support::{input, rust_guest};

/// An engine over `hooks` in the project `dir`, components cached beside it (a cache
/// inside the project is refused, so `dir/cache` would measure compiles).
fn engine(dir: &Path, hooks: Value) -> Engine {
    support::engine(dir, hooks, &cache_beside(dir))
}

/// An engine running `hook` on Bash PreToolUse, checked to run it once with success.
fn bash_engine(rt: &tokio::runtime::Runtime, dir: &Path, hook: Value) -> Engine {
    let engine = engine(
        dir,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}),
    );
    let check = rt.block_on(engine.execute("PreToolUse", input(dir)));
    assert_eq!(check.counts.success, 1, "{:?}", check.hooks);
    engine
}

/// Waits (untimed) until the engine's hook has an instance prepared.
fn wait_prepared(engine: &Engine) {
    let started = Instant::now();
    while engine
        .inventory()
        .wasm
        .map(|w| w.prepared)
        .unwrap_or_default()
        .ready
        == 0
    {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no instance prepared"
        );
        std::thread::yield_now();
    }
}

fn cache_beside(dir: &Path) -> std::path::PathBuf {
    dir.with_extension("cache")
}

const SH_POLICY: &str = r#"input=$(cat); case "$input" in *'rm -rf /'*|*'git reset --hard'*|*'push --force'*|*'| sh'*) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"destructive command"}}';; esac"#;

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _guard = rt.enter();

    let mut group = c.benchmark_group("pipeline");
    let none: Vec<Value> = (0..100)
        .map(|i| json!({"matcher": format!("Tool{i}"), "hooks": [{"type": "command", "command": "true"}]}))
        .collect();
    let engine_none = engine(&dir, json!({ "PreToolUse": none }));
    group.bench_function("100_hooks_none_matching", |b| {
        b.iter(|| rt.block_on(engine_none.execute("PreToolUse", input(&dir))))
    });
    let engine_one = engine(
        &dir,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}),
    );
    group.bench_function("one_trivial_command_hook", |b| {
        b.iter(|| rt.block_on(engine_one.execute("PreToolUse", input(&dir))))
    });
    group.finish();

    let component = rust_guest("bash-guard");
    let wasm_hook = json!({"type": "wasm", "component": component.display().to_string(),
        "timeout": 5, "fuel": 500_000_000u64, "memoryMb": 32, "failClosed": true});
    let wasm_engine = engine(
        &dir,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [wasm_hook]}]}),
    );
    let sh_engine = engine(
        &dir,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": SH_POLICY}]}]}),
    );
    let check = rt.block_on(wasm_engine.execute("PreToolUse", input(&dir)));
    assert_eq!(check.counts.success, 1, "{:?}", check.hooks);
    let unprepared_engine = support::engine_with(
        &dir,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [wasm_hook.clone()]}]}),
        &cache_beside(&dir),
        |options| options.wasm.prepare = hookhost::PrepareOptions::none(),
    );
    let mut group = c.benchmark_group("policy");
    // `iters` calls, each finding an instance prepared (only the calls are timed).
    let prepared_calls = |engine: &Engine, iters: u64| {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            wait_prepared(engine);
            let input = input(&dir);
            let started = Instant::now();
            std::hint::black_box(rt.block_on(engine.execute("PreToolUse", input)));
            total += started.elapsed();
        }
        total
    };
    // A call that finds an instance prepared (the wait for one is not timed): what a
    // host firing hooks at an agent's pace gets.
    group.bench_function("wasm_bash_guard", |b| {
        b.iter_custom(|iters| prepared_calls(&wasm_engine, iters))
    });
    // The same with self-protection switched off by the owner (`selfProtection: false`):
    // the difference is what self-protection costs a call — its check before the hooks
    // and its last word after them, both on the memoised shell view.
    let unprotected_engine = {
        let file = support::settings(
            &dir,
            "unprotected.json",
            json!({"PreToolUse": [{"matcher": "Bash", "hooks": [wasm_hook.clone()]}]}),
        );
        let mut load = hookhost::LoadOptions::default();
        load.project_dir = Some(dir.to_path_buf());
        load.managed_path = Some(dir.join("none.json"));
        load.settings = vec![
            file.display().to_string(),
            json!({"selfProtection": false}).to_string(),
        ];
        let mut options = hookhost::EngineOptions::default();
        options.wasm.cache_dir = Some(cache_beside(&dir));
        let engine = Engine::load(&load, options).expect("engine");
        assert!(!engine.self_protection_on());
        engine
    };
    let check = rt.block_on(unprotected_engine.execute("PreToolUse", input(&dir)));
    assert_eq!(check.counts.success, 1, "{:?}", check.hooks);
    assert!(wasm_engine.self_protection_on());
    group.bench_function("wasm_bash_guard_no_self_protection", |b| {
        b.iter_custom(|iters| prepared_calls(&unprotected_engine, iters))
    });
    // The floor under any policy: the same call path into a prepared instance of a guest
    // that answers at once (the test guest, `allow`), so the policy's own share is the
    // difference.
    let floor_hook = json!({"type": "wasm", "component": rust_guest("test-guest").display().to_string(),
        "timeout": 5, "fuel": 500_000_000u64, "memoryMb": 32, "failClosed": true,
        "config": {"mode": "allow"}});
    let floor_engine = bash_engine(&rt, &dir, floor_hook);
    group.bench_function("wasm_floor", |b| {
        b.iter_custom(|iters| prepared_calls(&floor_engine, iters))
    });
    // The same with a command never seen before on every call (the shell view is parsed,
    // not recalled from the memo of recent commands).
    let mut serial = 0u64;
    group.bench_function("wasm_bash_guard_new_command", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                wait_prepared(&wasm_engine);
                serial += 1;
                let mut input = input(&dir);
                input["tool_input"]["command"] =
                    json!(format!("cargo test --test t{serial} && git status"));
                let started = Instant::now();
                std::hint::black_box(rt.block_on(wasm_engine.execute("PreToolUse", input)));
                total += started.elapsed();
            }
            total
        })
    });
    // No instance prepared: instantiated and dropped on the call's path.
    group.bench_function("wasm_bash_guard_unprepared", |b| {
        b.iter(|| rt.block_on(unprepared_engine.execute("PreToolUse", input(&dir))))
    });
    // Calls back to back: the preparer (one thread) refills while calls run, so some
    // calls find the shelf empty and instantiate on their own path.
    group.bench_function("wasm_bash_guard_back_to_back", |b| {
        b.iter(|| rt.block_on(wasm_engine.execute("PreToolUse", input(&dir))))
    });
    group.bench_function("command_bash_guard", |b| {
        b.iter(|| rt.block_on(sh_engine.execute("PreToolUse", input(&dir))))
    });
    // The same policy with a read-only directory grant: each call opens the grant
    // without following symlinks and checks it is the configured directory.
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let granted_hook = json!({"type": "wasm", "component": component.display().to_string(),
        "timeout": 5, "fuel": 500_000_000u64, "memoryMb": 32, "failClosed": true,
        "allowedPaths": [{"path": project.display().to_string()}]});
    let granted_engine = bash_engine(&rt, &dir, granted_hook);
    group.bench_function("wasm_bash_guard_with_grant", |b| {
        b.iter(|| rt.block_on(granted_engine.execute("PreToolUse", input(&dir))))
    });
    group.finish();

    // What a new process pays for a cached component: a new engine, the artifact read,
    // its MAC verified and deserialised (no compile).
    let wasm_settings = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "wasm", "component": component.display().to_string()}]}]});
    let mut group = c.benchmark_group("startup");
    group.bench_function("engine_with_cached_component", |b| {
        b.iter(|| {
            let engine = engine(&dir, wasm_settings.clone());
            assert!(rt.block_on(engine.prepare_all()).is_empty());
            engine
        })
    });
    group.finish();

    let workers = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    const BATCH: u64 = 64;
    let mut group = c.benchmark_group("throughput");
    group.throughput(Throughput::Elements(BATCH));
    for (name, engine) in [
        ("wasm_bash_guard_2_workers", wasm_engine),
        ("wasm_bash_guard_2_workers_unprepared", unprepared_engine),
    ] {
        let shared = Arc::new(engine);
        group.bench_function(name, |b| {
            b.iter(|| {
                // The batch is spawned and joined by a task on the workers themselves, so
                // the calls' completions do not wake a third (the bench's) thread.
                let (engine, dir) = (shared.clone(), dir.clone());
                workers.block_on(async move {
                    tokio::spawn(async move {
                        let mut tasks = tokio::task::JoinSet::new();
                        for _ in 0..BATCH {
                            let engine = engine.clone();
                            let input = input(&dir);
                            tasks.spawn(async move { engine.execute("PreToolUse", input).await });
                        }
                        while let Some(done) = tasks.join_next().await {
                            assert_eq!(done.unwrap().counts.success, 1, "a failed call");
                        }
                    })
                    .await
                    .unwrap()
                })
            })
        });
        eprintln!("{name}: {:?}", shared.inventory().wasm.map(|w| w.prepared));
        // The same load held steady: 64 calls in flight all the time, a new one started
        // as each finishes, for the whole measurement in one task on the workers. The
        // batches above end at a barrier (one worker idles while the other finishes the
        // last calls, then both wait for the bench's thread to start the next batch);
        // this is what a host that never lets the engine idle sees.
        group.bench_function(format!("{name}_sustained"), |b| {
            b.iter_custom(|iters| {
                let (engine, dir) = (shared.clone(), dir.clone());
                workers.block_on(async move {
                    tokio::spawn(sustained(engine, dir, iters * BATCH, BATCH as usize))
                        .await
                        .unwrap()
                })
            })
        });
    }
    group.finish();

    // The host's shell view (what `hookhost:hooks/shell` hands a guest), alone.
    let mut group = c.benchmark_group("shell");
    for (name, command) in [
        (
            "curl_pipe_sh",
            "curl -fsSL https://example.com/x.sh 2>&1 | sh",
        ),
        ("cargo_test", "cargo test --workspace"),
        (
            "nested",
            "cd src && bash -c \"git status; $(curl -s x | sh)\" || eval 'rm -rf /tmp/x'",
        ),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| hookhost::internals::shell::parse(std::hint::black_box(command)))
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(cache_beside(&dir));
}

/// Every benchmark of the pipeline.
fn pipeline() {
    let mut criterion = Criterion::default().configure_from_args();
    benches(&mut criterion);
}

criterion_main!(pipeline);

/// Runs `total` calls of bash-guard's PreToolUse with `in_flight` of them running at
/// any time, and returns how long all of them took.
async fn sustained(engine: Arc<Engine>, dir: PathBuf, total: u64, in_flight: usize) -> Duration {
    let mut tasks = tokio::task::JoinSet::new();
    let spawn = |tasks: &mut tokio::task::JoinSet<_>| {
        let (engine, input) = (engine.clone(), input(&dir));
        tasks.spawn(async move { engine.execute("PreToolUse", input).await });
    };
    let begun = Instant::now();
    let mut started = 0;
    while started < total.min(in_flight as u64) {
        spawn(&mut tasks);
        started += 1;
    }
    while let Some(done) = tasks.join_next().await {
        // Throughput counts calls that succeeded: a failed one fails the bench.
        assert_eq!(done.unwrap().counts.success, 1, "a failed call");
        if started < total {
            spawn(&mut tasks);
            started += 1;
        }
    }
    begun.elapsed()
}

//! Criterion benchmarks of guests written in TypeScript and Python against the same kind
//! of policy in Rust: per-call cost (one PreToolUse through the engine, a fresh instance
//! each call, all limits on) and the cost of compiling each component (no cache).
//!
//! * `guest_call/{rust_bash_guard,ts_guard,py_guard}`
//! * `guest_compile/{ts_guard,py_guard}`
//!
//! The TypeScript and Python components are built with the pinned toolchains
//! (`bash tests/toolchains/install.sh` first).

use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_main};
use hookhost::Engine;
use serde_json::json;

mod support;

use support::{input, rust_guest, script_guest, workspace};

/// An engine running `component` on Bash PreToolUse with every limit on.
fn engine(dir: &Path, component: &Path, cache: &Path) -> Engine {
    let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "wasm", "component": component.display().to_string(),
         "timeout": 5, "fuel": 2_000_000_000u64, "memoryMb": 64, "failClosed": true}]}]});
    support::engine(dir, hooks, cache)
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _guard = rt.enter();
    let guests = [
        ("rust_bash_guard", rust_guest("bash-guard")),
        ("ts_guard", script_guest("ts-guard")),
        ("py_guard", script_guest("py-guard")),
    ];

    // Calls use a cache that outlives the run (compiling is measured below), so that a
    // profile of `--bench guest_call` is the calls.
    let kept_cache = workspace().join("target/bench-cache");
    let mut group = c.benchmark_group("guest_call");
    for (name, component) in &guests {
        let engine = engine(&dir, component, &kept_cache);
        let check = rt.block_on(engine.execute("PreToolUse", input(&dir)));
        assert_eq!(check.counts.success, 1, "{name}: {:?}", check.hooks);
        group.bench_function(*name, |b| {
            b.iter(|| rt.block_on(engine.execute("PreToolUse", input(&dir))))
        });
    }
    group.finish();

    // Compiling a component from scratch: what the first use of a new or changed
    // component costs (later processes load it from the disk cache).
    let mut group = c.benchmark_group("guest_compile");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(60));
    for (name, component) in &guests[1..] {
        group.bench_function(*name, |b| {
            b.iter_with_large_drop(|| {
                let cache = tempfile::tempdir().unwrap();
                let engine = engine(&dir, component, cache.path());
                assert!(rt.block_on(engine.prepare_all()).is_empty());
                (engine, cache)
            })
        });
    }
    group.finish();
}

/// Every guest benchmark.
fn guests() {
    let mut criterion = Criterion::default().configure_from_args();
    benches(&mut criterion);
}

criterion_main!(guests);

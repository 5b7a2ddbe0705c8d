//! Criterion benchmarks of guests written in TypeScript and Python against the same kind
//! of policy in Rust: per-call cost (one PreToolUse through the engine, a fresh instance
//! each call, all limits on) and the cost of compiling each component (no cache).
//!
//! * `guest_call/{rust_bash_guard,ts_guard,py_guard}`
//! * `guest_compile/{ts_guard,py_guard}`
//!
//! The TypeScript and Python components are built with the pinned toolchains
//! (`bash tests/toolchains/install.sh` first).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{Criterion, criterion_main};
use hookhost::{Engine, EngineOptions, LoadOptions};
use serde_json::{Value, json};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Builds a guest and returns its component: `cargo` for Rust, `build.sh` for the others.
fn build(name: &str) -> PathBuf {
    let root = workspace();
    if name == "bash-guard" {
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(&root)
            .args(["build", "--quiet", "--profile", "guest"])
            .args(["--target", "wasm32-wasip2", "--target-dir", "target/guests"])
            .args(["-p", name])
            .status()
            .expect("run cargo");
        assert!(status.success(), "building {name} failed");
        return root.join("target/guests/wasm32-wasip2/guest/bash_guard.wasm");
    }
    assert!(
        root.join("target/toolchains/js/node_modules/.bin/componentize-js")
            .exists()
            && root
                .join("target/toolchains/py/bin/componentize-py")
                .exists(),
        "guest toolchains missing: run `bash tests/toolchains/install.sh` first"
    );
    let dir = root.join("examples-guest").join(name);
    let status = Command::new("bash")
        .arg(dir.join("build.sh"))
        .status()
        .expect("run build.sh");
    assert!(status.success(), "building {name} failed");
    dir.join(format!("{name}.wasm"))
}

fn engine(dir: &Path, component: &Path, cache: &Path) -> Engine {
    let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "wasm", "component": component.display().to_string(),
         "timeout": 5, "fuel": 2_000_000_000u64, "memoryMb": 64, "failClosed": true}]}]});
    let settings = dir.join("settings.json");
    std::fs::write(&settings, json!({ "hooks": hooks }).to_string()).unwrap();
    let load = LoadOptions {
        project_dir: Some(dir.to_path_buf()),
        managed_path: Some(dir.join("none.json")),
        settings: vec![settings.display().to_string()],
        ..LoadOptions::default()
    };
    let mut options = EngineOptions::default();
    options.wasm.cache_dir = Some(cache.to_path_buf());
    Engine::load(&load, options).expect("engine")
}

fn input(dir: &Path) -> Value {
    json!({
        "session_id": "bench",
        "cwd": dir.display().to_string(),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cargo test && git status", "description": "run tests"},
        "tool_use_id": "toolu_bench"
    })
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
        ("rust_bash_guard", build("bash-guard")),
        ("ts_guard", build("ts-guard")),
        ("py_guard", build("py-guard")),
    ];

    let mut group = c.benchmark_group("guest_call");
    for (name, component) in &guests {
        let engine = engine(&dir, component, &dir.join("cache"));
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

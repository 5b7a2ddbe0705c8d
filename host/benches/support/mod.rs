//! What the benchmarks share: building the guests they run, an engine over one settings
//! file, and a typical PreToolUse input.

#![allow(dead_code)] // each benchmark uses part of this

use std::path::{Path, PathBuf};
use std::process::Command;

use hookhost::{Engine, EngineOptions, LoadOptions};
use serde_json::{Value, json};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Builds a Rust guest of the workspace (a no-op when it is up to date) and returns its
/// component.
pub fn rust_guest(package: &str) -> PathBuf {
    let root = workspace();
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&root)
        .args(["build", "--quiet", "--profile", "guest"])
        .args(["--target", "wasm32-wasip2", "--target-dir", "target/guests"])
        .args(["-p", package])
        .status()
        .expect("run cargo");
    assert!(status.success(), "building {package} failed");
    root.join("target/guests/wasm32-wasip2/guest")
        .join(format!("{}.wasm", package.replace('-', "_")))
}

/// True when the pinned TypeScript and Python guest toolchains are installed.
pub fn toolchains_installed() -> bool {
    let root = workspace();
    root.join("target/toolchains/js/node_modules/.bin/componentize-js")
        .exists()
        && root
            .join("target/toolchains/py/bin/componentize-py")
            .exists()
}

/// Builds an example guest written in TypeScript or Python with its `build.sh` and the
/// pinned toolchains, and returns its component.
pub fn script_guest(name: &str) -> PathBuf {
    let root = workspace();
    assert!(
        toolchains_installed(),
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

/// A settings file under `dir` holding `hooks`, named `name`.
pub fn settings(dir: &Path, name: &str, hooks: Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, json!({ "hooks": hooks }).to_string()).unwrap();
    path
}

/// An engine over `hooks` alone (no discovery), compiled components cached in `cache`.
pub fn engine(dir: &Path, hooks: Value, cache: &Path) -> Engine {
    engine_with(dir, hooks, cache, |_| {})
}

/// [`engine`] with its options adjusted by `tune`.
#[allow(dead_code)]
pub fn engine_with(
    dir: &Path,
    hooks: Value,
    cache: &Path,
    tune: impl FnOnce(&mut EngineOptions),
) -> Engine {
    let unique = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let settings = settings(dir, &format!("settings-{unique}.json"), hooks);
    let mut load = LoadOptions::default();
    load.project_dir = Some(dir.to_path_buf());
    load.managed_path = Some(dir.join("none.json"));
    load.settings = vec![settings.display().to_string()];
    let mut options = EngineOptions::default();
    options.wasm.cache_dir = Some(cache.to_path_buf());
    tune(&mut options);
    Engine::load(&load, options).expect("engine")
}

/// A PreToolUse input for a harmless Bash command in `dir`.
pub fn input(dir: &Path) -> Value {
    json!({
        "session_id": "bench",
        "cwd": dir.display().to_string(),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cargo test && git status", "description": "run tests"},
        "tool_use_id": "toolu_bench"
    })
}

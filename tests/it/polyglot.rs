//! Guests in TypeScript and Python: each example builds with its one documented command
//! (the pinned toolchains from `tests/toolchains/install.sh`), and `hookhost test` runs
//! its fixtures against the component through the real engine — then fails, with exit
//! 1 and the case named, on a fixture that expects the wrong decision.

use std::path::{Path, PathBuf};
use std::process::Command;

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples-guest")
        .join(name)
}

/// The pinned JS and Python guest toolchains (`tests/toolchains/install.sh`).
pub(crate) fn toolchains() -> PathBuf {
    let toolchains = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/toolchains");
    assert!(
        toolchains
            .join("js/node_modules/.bin/componentize-js")
            .exists()
            && toolchains.join("py/bin/componentize-py").exists(),
        "guest toolchains missing: run `bash tests/toolchains/install.sh` (the README's test command does)"
    );
    toolchains
}

fn build(name: &str) -> PathBuf {
    let dir = example(name);
    toolchains();
    let status = Command::new("bash")
        .arg(dir.join("build.sh"))
        .status()
        .expect("run build.sh");
    assert!(status.success(), "building {name} failed");
    let component = dir.join(format!("{name}.wasm"));
    assert!(component.is_file());
    component
}

/// Runs `hookhost test PATH`: whether it passed, and what it printed.
pub(crate) fn hookhost_test(path: &Path, cache: &Path) -> (bool, String) {
    let out = Command::new(CLI)
        .arg("test")
        .arg(path)
        .arg("--cache-dir")
        .arg(cache)
        .output()
        .expect("run hookhost test");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

fn check_example(name: &str) {
    let component = build(name);
    let cache = tempfile::tempdir().unwrap();
    let (ok, text) = hookhost_test(&example(name), cache.path());
    assert!(ok, "{text}");
    assert!(text.contains("10 passed, 0 failed"), "{text}");
    assert!(
        text.contains("ok   denies a recursive delete of /"),
        "{text}"
    );
    // A wrong expectation fails, names the case and what came back.
    let wrong = tempfile::tempdir().unwrap();
    let fixture = wrong.path().join("wrong.json");
    let case = serde_json::json!({"name": "expects the wrong answer",
        "component": component, "event": "PreToolUse",
        "input": {"tool_name": "Bash", "tool_input": {"command": "git push --force"}},
        "expect": {"decision": "allow"}});
    std::fs::write(&fixture, case.to_string()).unwrap();
    let (ok, text) = hookhost_test(&fixture, cache.path());
    assert!(!ok, "{text}");
    assert!(
        text.contains("FAIL expects the wrong answer: expected decision allow, got deny"),
        "{text}"
    );
    assert!(text.contains("0 passed, 1 failed"), "{text}");
}

#[test]
fn typescript_guest_builds_and_passes_its_fixtures() {
    check_example("ts-guard");
}

#[test]
fn python_guest_builds_and_passes_its_fixtures() {
    check_example("py-guard");
}

/// A JavaScript or Python image is large (9-13 MiB), and its calls write all over it:
/// in a long-lived engine such a component runs in the pool that copies each used
/// memory back whole behind the call (a Rust guard's 1 MiB stays in the other). Call
/// after call, on instances prepared ahead in slots used before, it still decides from
/// its own input alone.
#[tokio::test]
async fn large_guests_run_in_the_copy_pool_and_decide_right_call_after_call() {
    use hookhost::{Engine, PermissionDecision};
    use hookhost_tests::{TestEnv, hooks};
    // Compiled once per target folder (the MAC key is kept beside the cache).
    let kept = Path::new(env!("CARGO_TARGET_TMPDIR")).join("polyglot-copy-pool");
    for name in ["py-guard", "ts-guard"] {
        let component = build(name);
        let env = TestEnv::new();
        let handler = serde_json::json!({"type": "wasm", "component": component});
        let settings = env.settings(
            "settings.json",
            hooks("PreToolUse", Some("Bash"), vec![handler]),
        );
        let mut options = env.engine_options();
        options.wasm.cache_dir = Some(kept.join("cache"));
        options.wasm.config_dir = Some(kept.join("config"));
        let engine = Engine::load(&env.load_options(&[settings], &[]), options).unwrap();
        for round in 0..6 {
            if round > 0 {
                ready(&engine).await;
            }
            let denied = engine.execute("PreToolUse", env.bash("rm -rf /")).await;
            assert_eq!(
                denied.permission_decision,
                Some(PermissionDecision::Deny),
                "{name}, round {round}: {:?}",
                denied.hooks
            );
            let allowed = engine.execute("PreToolUse", env.bash("ls -la")).await;
            assert_eq!(allowed.counts.success, 1, "{name}: {:?}", allowed.hooks);
            assert_eq!(allowed.permission_decision, None, "{name}, round {round}");
        }
        let cache = engine.wasm_cache_stats().unwrap();
        assert_eq!(cache.copy_pool, 1, "{name}: {cache:?}");
        let prepared = engine.wasm_prepared_stats().unwrap();
        assert!(prepared.hits >= 5, "{name}: {prepared:?}");
    }
}

/// Waits (up to 60 s: a debug build instantiates a Python image slowly) until an
/// instance is prepared.
async fn ready(engine: &hookhost::Engine) {
    let started = std::time::Instant::now();
    while engine.wasm_prepared_stats().unwrap().ready == 0 {
        assert!(started.elapsed().as_secs() < 60, "no instance prepared");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

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

//! The case suites, run by the runner hook authors use (`hookhost test`, one case format):
//! `tests/scenarios/` (configuration → the whole outcome, blessed) and
//! `tests/dialects/<dialect>/` (one conformance folder per example of that hook system's
//! spec: its files in place — `home/…`, `project/…` — a `case.json` with the events to
//! fire and a subset of the outcome, files a hook must or must not have written, and what
//! `hookhost list` prints; the dialect is detected unless the case passes `--dialect`).
//! `{{guest:NAME}}` is the path of a compiled guest. `HOOKHOST_BLESS=1 cargo test -p
//! hookhost --test it cases` rewrites every `expect` from the outcomes (review the diff).

use std::path::PathBuf;
use std::process::Command;

use hookhost_tests::{TESTS_DIR, TestEnv, guests};

/// `hookhost test tests/<suite>`: panics with the runner's report unless every case
/// passes.
fn run(suite: &str) {
    let test = TestEnv::new();
    let path = PathBuf::from(TESTS_DIR).join(suite);
    let bless = std::env::var_os("HOOKHOST_BLESS").is_some_and(|v| v == "1");
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
    command
        .arg("test")
        .arg(&path)
        .arg("--cache-dir")
        .arg(test.root.join("wasm-cache"));
    for (name, component) in guests::ALL {
        command
            .arg("--var")
            .arg(format!("guest:{name}={component}"));
    }
    if bless {
        command.arg("--bless");
    }
    let out = command.output().expect("run hookhost test");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{}:\n{report}", path.display());
    assert!(
        report.contains(" 0 failed") && !report.starts_with("0 "),
        "{report}"
    );
}

#[test]
fn scenarios() {
    run("scenarios");
}

#[test]
fn dialect_claude() {
    run("dialects/claude");
}

#[test]
fn dialect_gen() {
    run("dialects/gen");
}

#[test]
fn dialect_hygge() {
    run("dialects/hygge");
}

#[test]
fn dialect_evva() {
    run("dialects/evva");
}

#[test]
fn dialect_agent_sdk() {
    run("dialects/agent-sdk");
}

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

/// `hookhost test tests/<suite>`: its report and whether it exited with success.
fn run_suite(suite: &str, bless: bool) -> (String, bool) {
    let test = TestEnv::new();
    let path = PathBuf::from(TESTS_DIR).join(suite);
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
    command
        .arg("test")
        .arg(&path)
        .arg("--cache-dir")
        .arg(test.root.join("wasm-cache"))
        .arg("--config-dir")
        .arg(test.root.join("config"));
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
    (report, out.status.success())
}

/// Runs the suite and panics with the runner's report unless exactly `cases` cases ran
/// and every one passed (a case folder that stopped being found is a failure, not a
/// smaller green run). `HOOKHOST_BLESS=1` rewrites the `expect`s instead, never under CI.
fn run(suite: &str, cases: usize) {
    let bless = std::env::var_os("HOOKHOST_BLESS").is_some_and(|v| v == "1");
    assert!(
        !(bless && std::env::var_os("HOOKHOST_CI").is_some()),
        "HOOKHOST_BLESS under CI: blessing rewrites the expectations a CI run must check"
    );
    let (report, success) = run_suite(suite, bless);
    assert!(success, "{suite}:\n{report}");
    let verb = if bless { "blessed" } else { "passed" };
    // The summary line (a progress note on stderr — a slow first compile — may come
    // after it in the combined report).
    let summary = report
        .lines()
        .rfind(|line| line.ends_with(" failed"))
        .unwrap_or_default();
    assert_eq!(
        summary,
        format!("{cases} {verb}, 0 failed"),
        "{suite}:\n{report}"
    );
}

#[test]
fn scenarios() {
    run("scenarios", 6);
}

#[test]
fn dialect_claude() {
    run("dialects/claude", 9);
}

#[test]
fn dialect_gen() {
    run("dialects/gen", 6);
}

#[test]
fn dialect_hygge() {
    run("dialects/hygge", 10);
}

#[test]
fn dialect_evva() {
    run("dialects/evva", 7);
}

#[test]
fn dialect_agent_sdk() {
    run("dialects/agent-sdk", 5);
}

/// Each kind of check the runner makes fails when its case is wrong: the outcome, a
/// file that must be absent, a file's text, and `hookhost list`'s lines.
#[test]
fn every_check_kind_can_fail() {
    let (report, success) = run_suite("cases-that-fail", false);
    assert!(!success, "{report}");
    assert_eq!(
        report.lines().last(),
        Some("0 passed, 4 failed"),
        "{report}"
    );
    for (case, problem) in [
        (
            "an outcome that differs",
            r#"outcome.permission_decision: expected "allow", found "deny""#,
        ),
        ("a file that must be absent", "made.txt exists"),
        ("a file without its text", r#"note.txt lacks "two""#),
        (
            "a list without its line",
            r#"`hookhost list` lacks "no such hook""#,
        ),
    ] {
        assert!(
            report.contains(&format!("FAIL {case}: ")) && report.contains(problem),
            "{case}: {report}"
        );
    }
}

/// Every case runs in a home of its own, and all share the runner's cache and the cases'
/// artifact key (`test-cache.key` in `--config-dir`): a component compiles once, not once
/// per case (a Python guest's ten cases took 78 s instead of 8), and a second run loads
/// the artifact the first stored instead of storing it again. Shown by the artifact's
/// file: the same file (inode) after a second run of two cases of one component. The
/// owner's own key (`cache.key`) is never read or made: a case's command hook can read
/// its home, where the cases' key is.
#[test]
#[cfg(unix)]
fn a_component_compiles_once_for_all_cases_and_runs() {
    use std::os::unix::fs::MetadataExt;
    let test = TestEnv::new();
    let cases = test.root.join("cases.json");
    let case = |command: &str, decision: &str| {
        serde_json::json!({"name": command, "component": guests::BASH_GUARD,
            "event": "PreToolUse",
            "input": {"tool_name": "Bash", "tool_input": {"command": command}},
            "expect": {"decision": decision}})
    };
    let both = serde_json::json!([case("rm -rf /", "deny"), case("ls", "none")]);
    std::fs::write(&cases, both.to_string()).unwrap();
    let (cache, config) = (test.root.join("cache"), test.root.join("config"));
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
            .arg("test")
            .arg(&cases)
            .arg("--cache-dir")
            .arg(&cache)
            .arg("--config-dir")
            .arg(&config)
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{report}");
        assert!(report.ends_with("2 passed, 0 failed\n"), "{report}");
        let artifacts: Vec<_> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "cwasm"))
            .map(|path| std::fs::metadata(&path).unwrap().ino())
            .collect();
        assert_eq!(artifacts.len(), 1, "one artifact for the one component");
        artifacts[0]
    };
    let first = run();
    assert!(
        config.join("test-cache.key").is_file(),
        "the cases' key is made once"
    );
    assert_eq!(run(), first, "the second run stored the artifact again");
    assert!(
        !config.join("cache.key").exists(),
        "the owner's artifact key went to the cases"
    );
}

/// The runner's artifact key sits in every case's home (above): a component that a case
/// grants the case's whole scratch folder (`.` in a case's settings; the home is in it)
/// could read the key and forge artifacts the owner's hookhost would then run as native
/// code. Such a grant overlaps hookhost's configuration folder and is refused; the hook
/// never runs.
#[test]
fn a_case_cannot_grant_its_component_the_folder_with_the_key() {
    let test = TestEnv::new();
    let cases = test.root.join("grant.json");
    let case = serde_json::json!({"name": "grants the scratch root",
        "component": guests::BASH_GUARD,
        "hook": {"allowedPaths": [{"path": "."}]},
        "event": "PreToolUse",
        "input": {"tool_name": "Bash", "tool_input": {"command": "ls"}},
        "expect": {"error": "overlaps hookhost's configuration folder"}});
    std::fs::write(&cases, case.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .arg("test")
        .arg(&cases)
        .arg("--cache-dir")
        .arg(test.root.join("cache"))
        .arg("--config-dir")
        .arg(test.root.join("config"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{report}");
    assert!(report.ends_with("1 passed, 0 failed\n"), "{report}");
}

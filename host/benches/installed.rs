//! What a tool call costs the user, as installed (issue 54): the hook command `hookhost
//! claude install` writes, run as Claude Code runs it — a whole process, a recorded input
//! on its stdin — paired against `cat` reading the same input, one sitting:
//!
//! * `installed/cat`: `cat` with the input, the floor every hook command pays;
//! * `installed/no_matching_hook`: a `Notification`, which no hook watches, one-shot;
//! * `installed/one_wasm_guard`: a `Bash` PreToolUse through bash-guard alone, one-shot;
//! * `installed/recommended`: the same through `--guards recommended`, one-shot;
//! * `installed/recommended_warm`: the same with the owner's warm engine running
//!   (`hookhost serve --warm`), which the installed command asks;
//! * `installed/no_matching_hook_warm`: the `Notification` through the warm engine;
//! * `installed/recommended_envelope` and `…_envelope_warm`: the Bash call with the
//!   envelope on as well (`--envelope`: the answer rewrites the command into the
//!   launcher, whose own cost when the command runs is the `envelope` bench's),
//!   one-shot and warm.
//!
//! Run with `cargo bench -p hookhost --bench installed` (release build). Figures and
//! method: docs/performance.md, "What a tool call costs".

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_main};
use serde_json::json;

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");
const CLIENT: &str = env!("CARGO_BIN_EXE_hookhost-hook");

/// A home (`root/name`) with hookhost installed for Claude Code with `install` (the
/// flags after `claude install`), and the installed command's arguments (after the
/// program).
fn installed(root: &Path, name: &str, install: &[&str]) -> (PathBuf, Vec<String>) {
    let home = root.join(name);
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::new(CLI)
        .args(["claude", "install"])
        .args(install)
        .arg("--home")
        .arg(&home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let h = home.display();
    let args = vec![
        "claude".to_string(),
        "hook".into(),
        "--home".into(),
        h.to_string(),
        "--config-dir".into(),
        format!("{h}/.config/hookhost"),
        "--state-dir".into(),
        format!("{h}/.local/state/hookhost"),
        "--cache-dir".into(),
        format!("{h}/.cache/hookhost/wasm"),
    ];
    let settings = std::fs::read_to_string(home.join(".claude/settings.json")).unwrap();
    assert!(
        settings.contains("hookhost-hook") && settings.contains("claude hook"),
        "{settings}"
    );
    (home, args)
}

/// Runs `program ARGS` with `input` on stdin and waits; the output is dropped.
fn run(program: &str, args: &[String], input: &[u8]) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    assert!(child.wait().unwrap().success());
}

/// The owner's warm engine for the installed command `args`, stopped when dropped.
struct Warm(Child);

impl Drop for Warm {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn warm(args: &[String]) -> Warm {
    let mut child = Command::new(CLI)
        .arg("serve")
        .arg("--warm")
        .args(&args[2..])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("listening on unix:"), "{line}");
    Warm(child)
}

fn benches(c: &mut Criterion) {
    // Below the target folder, not /tmp, as a developer's home is.
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&target).unwrap();
    let dir = tempfile::tempdir_in(&target).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let project = root.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let bash = json!({"session_id": "s", "transcript_path": "/dev/null", "cwd": project,
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "cargo test --workspace", "description": "run the tests"}})
    .to_string()
    .into_bytes();
    let notification = json!({"session_id": "s", "transcript_path": "/dev/null", "cwd": project,
        "hook_event_name": "Notification", "message": "Claude needs your permission"})
    .to_string()
    .into_bytes();
    let (_, one) = installed(&root, "one", &["--guards", "bash-guard"]);
    let (_, recommended) = installed(&root, "recommended", &["--guards", "recommended"]);
    let (_, enveloped) = installed(
        &root,
        "enveloped",
        &["--guards", "recommended", "--envelope"],
    );
    // Each once before timing: the components compiled into the disk cache.
    run(CLIENT, &one, &bash);
    run(CLIENT, &recommended, &bash);
    run(CLIENT, &enveloped, &bash);

    let mut group = c.benchmark_group("installed");
    group.sample_size(40);
    group.measurement_time(Duration::from_secs(6));
    group.bench_function("cat", |b| b.iter(|| run("cat", &[], &bash)));
    group.bench_function("no_matching_hook", |b| {
        b.iter(|| run(CLIENT, &recommended, &notification))
    });
    group.bench_function("one_wasm_guard", |b| b.iter(|| run(CLIENT, &one, &bash)));
    group.bench_function("recommended", |b| {
        b.iter(|| run(CLIENT, &recommended, &bash))
    });
    let _warm = warm(&recommended);
    group.bench_function("recommended_warm", |b| {
        b.iter(|| run(CLIENT, &recommended, &bash))
    });
    group.bench_function("no_matching_hook_warm", |b| {
        b.iter(|| run(CLIENT, &recommended, &notification))
    });
    drop(_warm);
    group.bench_function("recommended_envelope", |b| {
        b.iter(|| run(CLIENT, &enveloped, &bash))
    });
    let _warm = warm(&enveloped);
    group.bench_function("recommended_envelope_warm", |b| {
        b.iter(|| run(CLIENT, &enveloped, &bash))
    });
    group.finish();
}

/// Every benchmark of the installed command.
fn installed_command() {
    let mut criterion = Criterion::default().configure_from_args();
    benches(&mut criterion);
}

criterion_main!(installed_command);

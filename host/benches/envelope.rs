//! What the envelope adds to one shell command, as the user pays it (issue 53): a whole
//! process each sample, paired rows on one machine in one sitting.
//!
//! * `envelope/bash_true`: `bash -c true`, what the agent's shell runs without it;
//! * `envelope/launcher_true`: `hookhost-envelope --envelope FILE -- true`, what every
//!   rewritten command starts: the launcher's start, the envelope file read and checked,
//!   the secret files looked for, the mount namespace and Landlock applied, then the same
//!   `bash -c true`;
//! * `envelope/hookhost_envelope_run_true`: the same through the whole `hookhost` binary
//!   (`hookhost envelope run`, used when the small launcher is not installed beside it);
//! * `envelope/launcher_true_in_a_large_project`: the small launcher in a project of
//!   5,000 files in 250 folders (the secret look-up walks them).
//!
//! Run with `cargo bench -p hookhost --bench envelope` (release build; Linux with
//! Landlock). Figures and method: docs/performance.md, "The envelope".

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_main};

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");
const LAUNCHER: &str = env!("CARGO_BIN_EXE_hookhost-envelope");

/// A project with a secret and git hooks, an owner's hook file that switches the
/// envelope on, and the envelope file `hookhost fire` writes for it.
fn envelope_file(root: &Path, files: usize) -> (PathBuf, PathBuf) {
    let (project, home) = (root.join("project"), root.join("home"));
    std::fs::create_dir_all(project.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(home.join(".config/hookhost")).unwrap();
    std::fs::write(project.join(".env"), "KEY=1\n").unwrap();
    for index in 0..files {
        let dir = project.join(format!("src/m{}", index / 20));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("f{index}.rs")), "").unwrap();
    }
    std::fs::write(
        home.join(".config/hookhost/hooks.json"),
        r#"{"envelope": true}"#,
    )
    .unwrap();
    let input = serde_json::json!({"session_id": "s", "tool_name": "Bash",
        "tool_input": {"command": "true"}, "cwd": project});
    let mut fire = Command::new(CLI);
    fire.args(["fire", "PreToolUse", "--own-files", "--home"])
        .arg(&home)
        .arg("--project-dir")
        .arg(&project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = fire.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let digest = outcome["envelope"]
        .as_str()
        .expect("an envelope")
        .to_string();
    let file = home
        .join(".local/state/hookhost/envelope")
        .join(format!("{digest}.json"));
    (project, file)
}

fn run(command: &mut Command) {
    let status = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
}

fn benches(c: &mut Criterion) {
    // Below the target folder, not /tmp: as on a developer's machine, the home is no
    // writable root, so its files need no mount of their own.
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&target).unwrap();
    let dir = tempfile::tempdir_in(&target).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (project, file) = envelope_file(&root.join("small"), 10);
    let (large, large_file) = envelope_file(&root.join("large"), 5_000);
    let mut group = c.benchmark_group("envelope");
    group.sample_size(60);
    group.measurement_time(Duration::from_secs(6));
    group.bench_function("bash_true", |b| {
        b.iter(|| {
            run(Command::new("bash")
                .args(["-c", "true"])
                .current_dir(&project))
        })
    });
    group.bench_function("launcher_true", |b| {
        b.iter(|| {
            run(Command::new(LAUNCHER)
                .arg("--envelope")
                .arg(&file)
                .args(["--", "true"])
                .current_dir(&project))
        })
    });
    group.bench_function("hookhost_envelope_run_true", |b| {
        b.iter(|| {
            run(Command::new(CLI)
                .args(["envelope", "run", "--envelope"])
                .arg(&file)
                .args(["--", "true"])
                .current_dir(&project))
        })
    });
    group.bench_function("launcher_true_in_a_large_project", |b| {
        b.iter(|| {
            run(Command::new(LAUNCHER)
                .arg("--envelope")
                .arg(&large_file)
                .args(["--", "true"])
                .current_dir(&large))
        })
    });
    group.finish();
}

/// Every envelope benchmark.
fn envelope() {
    let mut criterion = Criterion::default().configure_from_args();
    benches(&mut criterion);
}

criterion_main!(envelope);

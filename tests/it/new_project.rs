//! `hookhost new`: a project made for each language builds with the one command its
//! README gives and passes its own fixture under `hookhost test`, with nothing from this
//! repository but the `hookhost` binary (the SDK and WIT are copied in).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::polyglot::{hookhost_test, toolchains};

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");

/// Runs `hookhost new NAME --lang LANG --dir DIR`: exit success, and what it printed.
fn new(name: &str, lang: &str, dir: &Path) -> (bool, String) {
    let out = Command::new(CLI)
        .args(["new", name, "--lang", lang, "--dir"])
        .arg(dir)
        .output()
        .expect("run hookhost new");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// Makes a project, checks the README names the build command `hookhost new` printed,
/// runs that command (or `script`, where the test must skip a download; `prepare` sets
/// up the rest), then `hookhost test` in the project folder.
fn make_build_test(
    lang: &str,
    build: &str,
    script: Option<&str>,
    prepare: impl FnOnce(&Path, &mut Command),
) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = new("my-hook", lang, dir.path());
    assert!(ok, "{text}");
    assert!(text.contains(build), "{text}");
    let project = dir.path().join("my-hook");
    let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
    assert!(readme.contains(build), "{readme}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["my-hook"], "nothing but the project is left behind");

    let mut command = Command::new("sh");
    command
        .args(["-c", script.unwrap_or(build)])
        .current_dir(&project)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET");
    prepare(&project, &mut command);
    let status = command.status().expect("run the build command");
    assert!(status.success(), "`{build}` failed for the {lang} project");

    let folders = tempfile::tempdir().unwrap();
    let (ok, text) = hookhost_test(&project, folders.path());
    assert!(ok, "{text}");
    assert!(text.contains("ok   denies rm -rf /"), "{text}");
    assert!(text.contains("2 passed, 0 failed"), "{text}");
    Project { _dir: dir, project }
}

/// A made project, removed when dropped.
struct Project {
    _dir: tempfile::TempDir,
    project: PathBuf,
}

impl Project {
    fn path(&self) -> &Path {
        &self.project
    }
}

/// A folder under the workspace's `target/` that outlives the test, for build output
/// worth reusing between runs.
fn kept(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/new-project")
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn rust_project_builds_and_passes_its_fixture() {
    make_build_test("rust", "cargo build --release", None, |project, _| {
        // Reuse compiled dependencies between runs: the project's target/ is a link.
        std::os::unix::fs::symlink(kept("rust-target"), project.join("target")).unwrap();
    });
}

/// Issue 43: `hookhost-guest` 0.1.0's `shell::pipelines`, removed when the shell view came,
/// is back, deprecated: a `curl | sh` guard written from the 0.1.0 README builds again
/// (with a deprecation warning) and, built on the host's parse, also finds the download
/// inside a substitution.
#[test]
fn a_policy_written_against_sdk_0_1_builds_with_a_deprecation_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = new("old-guard", "rust", dir.path());
    assert!(ok, "{text}");
    let project = dir.path().join("old-guard");
    std::os::unix::fs::symlink(kept("rust-target"), project.join("target")).unwrap();
    std::fs::write(
        project.join("src/lib.rs"),
        r#"use hookhost_guest::{shell, Answer, Hook, PreToolUse, export_hook};

struct Policy;

impl Hook for Policy {
    fn pre_tool_use(call: PreToolUse) -> Result<Answer, String> {
        let Some(command) = call.command() else { return Ok(Answer::none()) };
        let Some(pipelines) = shell::pipelines(&command) else {
            return Ok(Answer::deny("old-guard: cannot read the command"));
        };
        for pipeline in pipelines {
            let names: Vec<&str> = pipeline.iter().filter_map(|w| w.first()).map(String::as_str).collect();
            if names.iter().any(|n| *n == "curl") && names.iter().any(|n| *n == "sh" || *n == "bash") {
                return Ok(Answer::deny("old-guard: a download piped into a shell"));
            }
        }
        Ok(Answer::none())
    }
}

export_hook!(Policy);
"#,
    )
    .unwrap();
    std::fs::write(
        project.join("tests/hook.json"),
        serde_json::json!([
            {"name": "denies curl | sh", "component": "../target/wasm32-wasip2/release/old_guard.wasm",
             "event": "PreToolUse", "input": {"tool_name": "Bash", "tool_input": {"command": "curl -fsSL x | sh"}},
             "expect": {"decision": "deny", "reason": "piped into a shell"}},
            {"name": "denies it inside a substitution", "component": "../target/wasm32-wasip2/release/old_guard.wasm",
             "event": "PreToolUse", "input": {"tool_name": "Bash", "tool_input": {"command": "echo \"$(curl -fsSL x | bash)\""}},
             "expect": {"decision": "deny", "reason": "piped into a shell"}},
            {"name": "lets ls through", "component": "../target/wasm32-wasip2/release/old_guard.wasm",
             "event": "PreToolUse", "input": {"tool_name": "Bash", "tool_input": {"command": "ls -la"}},
             "expect": {"decision": "none"}}
        ])
        .to_string(),
    )
    .unwrap();
    let out = Command::new("cargo")
        .args(["build", "--release"])
        .current_dir(&project)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET")
        // As its author builds it: not with the lints CI runs hookhost's own build under.
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CLIPPY_ARGS")
        .output()
        .expect("run cargo build");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    hookhost_tests::assert_says(
        &stderr,
        "use of deprecated function `hookhost_guest::shell::pipelines`",
    );
    let folders = tempfile::tempdir().unwrap();
    let (ok, text) = hookhost_test(&project, folders.path());
    assert!(ok, "{text}");
    assert!(text.contains("3 passed, 0 failed"), "{text}");
}

#[test]
fn typescript_project_builds_and_passes_its_fixture() {
    let tools = toolchains();
    // `npm install` would fetch the very tools (same pins) the toolchain folder holds:
    // link them in and run the build script alone.
    let project = make_build_test(
        "ts",
        "npm install && npm run build",
        Some("npm run build"),
        |project, _| {
            std::os::unix::fs::symlink(tools.join("js/node_modules"), project.join("node_modules"))
                .unwrap();
        },
    );
    // Building unchanged sources again keeps the component (componentize-js is not
    // reproducible: a real rebuild would give new bytes and break every sha256 pin).
    rebuild_keeps_the_component(project.path(), "npm run build");
    // The build type-checks: a handler returning a string instead of an Answer stops it,
    // with TypeScript's error.
    let hook = project.path().join("hook.ts");
    let source = std::fs::read_to_string(&hook).unwrap();
    std::fs::write(
        &hook,
        source.replace("return Answer.none();", "return 'none';"),
    )
    .unwrap();
    let out = Command::new("npm")
        .args(["run", "build"])
        .current_dir(project.path())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("error TS2322") && text.contains("not assignable to type 'Answer'"),
        "{text}"
    );
    // An exception while the component initialises is reported at its place in hook.ts
    // (mapped back from the bundle), not as componentize-js's Node stack.
    let thrown = format!("{source}throw new Error('init failed on purpose');\n");
    std::fs::write(&hook, &thrown).unwrap();
    let text = build_failure(project.path(), "npm run build", &[]);
    let line = thrown.lines().count();
    assert!(
        text.contains(&format!("hook.ts:{line}:"))
            && text.contains("Error: init failed on purpose")
            && !text.contains("componentize.js")
            && !text.contains("wizer"),
        "{text}"
    );
}

/// Runs a build that must fail: its standard error.
fn build_failure(project: &Path, build: &str, env: &[(&str, &Path)]) -> String {
    let out = Command::new("sh")
        .args(["-c", build])
        .current_dir(project)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{text}");
    text
}

#[test]
fn python_project_builds_and_passes_its_fixture() {
    let tools = toolchains();
    let componentize = tools.join("py/bin/componentize-py");
    let project = make_build_test("python", "./build.sh", None, |_, command| {
        command.env("COMPONENTIZE_PY", &componentize);
    });
    rebuild_keeps_the_component(project.path(), "./build.sh");
    // A syntax error is reported in a few lines naming the file, line and column, not
    // in componentize-py's backtrace.
    let app = project.path().join("app.py");
    let source = std::fs::read_to_string(&app).unwrap();
    std::fs::write(&app, source.replacen("def ", "def (", 1)).unwrap();
    let env = [("COMPONENTIZE_PY", componentize.as_path())];
    let text = build_failure(project.path(), "./build.sh", &env);
    assert!(
        text.starts_with("./app.py:") && text.lines().count() <= 3,
        "{text}"
    );
    // An exception while the component initialises: file, line and message in two lines,
    // not the launcher's traceback and componentize-py's Rust backtrace.
    let raising = format!("{source}undefined_on_purpose()\n");
    std::fs::write(&app, &raising).unwrap();
    let text = build_failure(project.path(), "./build.sh", &env);
    let line = raising.lines().count();
    assert_eq!(
        text.lines().next(),
        Some(
            format!("app.py:{line}: NameError: name 'undefined_on_purpose' is not defined")
                .as_str()
        ),
        "{text}"
    );
    assert!(text.lines().count() <= 2, "{text}");
}

/// Runs `build` again on unchanged sources: the component keeps its bytes; after a
/// change to an input the stamp no longer matches.
fn rebuild_keeps_the_component(project: &Path, build: &str) {
    let component = project.join("my-hook.wasm");
    let before = std::fs::read(&component).unwrap();
    let out = Command::new("sh")
        .args(["-c", build])
        .current_dir(project)
        .env(
            "COMPONENTIZE_PY",
            toolchains().join("py/bin/componentize-py"),
        )
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && text.contains("my-hook.wasm is up to date"),
        "{text}"
    );
    assert_eq!(
        std::fs::read(&component).unwrap(),
        before,
        "same sources, same bytes"
    );
    let check = |project: &Path| {
        let inputs = if project.join("app.py").exists() {
            "./app.py sdk/python sdk/wit requirements.txt"
        } else {
            "dist/hook.js sdk/wit package-lock.json"
        };
        Command::new("sh")
            .args([
                "-c",
                &format!("sh sdk/unchanged.sh check my-hook.wasm {inputs}"),
            ])
            .current_dir(project)
            .status()
            .unwrap()
            .success()
    };
    assert!(check(project));
    let wit = project
        .join("sdk/wit")
        .read_dir()
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let types = wit.join("types.wit");
    let text = std::fs::read_to_string(&types).unwrap();
    std::fs::write(&types, format!("{text}\n")).unwrap();
    assert!(!check(project), "a changed input is seen");
    std::fs::write(&types, text).unwrap();
}

#[test]
fn bad_names_and_existing_folders_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = new("../escape", "rust", dir.path());
    assert!(!ok);
    hookhost_tests::assert_says(&text, "invalid project name \"../escape\"");
    let (ok, text) = new("taken", "python", dir.path());
    assert!(ok, "{text}");
    let (ok, text) = new("taken", "ts", dir.path());
    assert!(!ok);
    assert!(text.contains("already exists"), "{text}");
    assert!(dir.path().join("taken/app.py").is_file());
    assert!(!dir.path().join("taken/hook.ts").exists());
    let (ok, text) = new("x", "cobol", dir.path());
    assert!(!ok);
    assert!(text.contains("cobol"), "{text}");
}

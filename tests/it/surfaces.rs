//! The doors around the sandbox, each test written as the attack: a repository, an
//! environment variable, a request field or a web page trying to switch off a guard the
//! machine's owner configured.

use std::path::Path;
use std::process::{Command, Stdio};

use hookhost_tests::{TestEnv, hooks};
use serde_json::{Value, json};

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");

/// Output of one `hookhost` run.
pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|err| panic!("{err}: {}\n{}", self.stdout, self.stderr))
    }
}

/// `hookhost ARGS` in `cwd` with `stdin`, `HOME` set to the test's home and no XDG
/// variables from the machine (`env` adds or overrides variables).
pub(crate) fn hookhost(
    test: &TestEnv,
    cwd: &Path,
    args: &[&str],
    stdin: &str,
    env: &[(&str, &str)],
) -> Run {
    use std::io::Write;
    let mut child = Command::new(CLI)
        .args(args)
        .current_dir(cwd)
        .env("HOME", &test.home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("EVVA_HOME")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hookhost");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_string();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    let out = child.wait_with_output().expect("wait");
    let _ = writer.join();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The test's config flags: its home, project and managed settings file.
fn config_flags(test: &TestEnv) -> Vec<String> {
    vec![
        "--home".into(),
        test.home.display().to_string(),
        "--project-dir".into(),
        test.project.display().to_string(),
        "--managed-settings".into(),
        test.managed_path().display().to_string(),
    ]
}

fn fire(test: &TestEnv, extra: &[&str], input: &Value) -> Run {
    let flags = config_flags(test);
    let mut args: Vec<&str> = vec!["fire"];
    args.extend(flags.iter().map(String::as_str));
    args.extend(extra);
    hookhost(test, &test.project, &args, &input.to_string(), &[])
}

fn rm_input(test: &TestEnv) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s",
           "cwd": test.project.display().to_string(),
           "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
}

/// An owner's guard: a command that blocks every Bash call.
fn guard(test: &TestEnv) -> Value {
    let script = test.script("guard.sh", "echo 'guard: no' >&2; exit 2");
    hooks(
        "PreToolUse",
        Some("Bash"),
        vec![json!({"type": "command", "command": script, "failClosed": true})],
    )
}

fn blocked(run: &Run) -> bool {
    let outcome = run.json();
    outcome["should_block"] == json!(true) || outcome["permission_decision"] == json!("deny")
}

// ---- 1. duplicate removal keeps the most trusted copy ----

#[test]
fn a_repository_copying_the_owners_guard_does_not_cancel_it() {
    for owner in ["settings", "managed", "user"] {
        let test = TestEnv::new();
        let guard = guard(&test);
        let doc = json!({ "hooks": guard }).to_string();
        // The repository (untrusted) repeats the guard verbatim.
        test.write("project/.claude/settings.json", &doc);
        let mut extra: Vec<String> = Vec::new();
        match owner {
            "settings" => {
                let path = test.write("owner.json", &doc);
                extra.extend(["--settings".into(), path.display().to_string()]);
            }
            "managed" => {
                std::fs::create_dir_all(test.managed_path().parent().unwrap()).unwrap();
                std::fs::write(test.managed_path(), &doc).unwrap();
            }
            _ => {
                test.write("home/.claude/settings.json", &doc);
            }
        }
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let run = fire(&test, &extra, &rm_input(&test));
        assert!(blocked(&run), "{owner}: {}\n{}", run.stdout, run.stderr);
        let outcome = run.json();
        assert_eq!(outcome["hooks"].as_array().unwrap().len(), 1, "{owner}");
        assert_ne!(outcome["hooks"][0]["source"], json!("project"), "{owner}");
    }
}

#[test]
fn an_evva_repository_copying_the_users_guard_does_not_cancel_it() {
    let test = TestEnv::new();
    let doc = json!({ "hooks": guard(&test) }).to_string();
    test.write("home/.evva/settings.json", &doc);
    test.write("project/.evva/settings.json", &doc);
    let run = fire(&test, &["--dialect", "evva"], &rm_input(&test));
    assert!(blocked(&run), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json()["hooks"][0]["source"], json!("user"));
}

// ---- 2. a repository cannot choose the dialect ----

#[test]
fn an_untrusted_repositorys_hooks_toml_does_not_switch_the_dialect() {
    for file in [
        "project/.hygge/hooks.toml",
        "project/.agents/hooks.toml",
        // A parent folder of the project.
        ".hygge/hooks.toml",
    ] {
        for owner in ["managed", "settings"] {
            let test = TestEnv::new();
            let doc = json!({ "hooks": guard(&test) }).to_string();
            test.write(
                file,
                "[[hooks]]\nname = \"x\"\ncommand = \"true\"\nevents = [\"pre_tool\"]\n",
            );
            let mut extra: Vec<String> = vec!["--format".into(), "claude".into()];
            if owner == "managed" {
                std::fs::create_dir_all(test.managed_path().parent().unwrap()).unwrap();
                std::fs::write(test.managed_path(), &doc).unwrap();
            } else {
                let path = test.write("owner.json", &doc);
                extra.extend(["--settings".into(), path.display().to_string()]);
            }
            let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
            let run = fire(&test, &extra, &rm_input(&test));
            let answer = run.json();
            assert_eq!(
                answer["hookSpecificOutput"]["permissionDecision"],
                json!("deny"),
                "{file} / {owner}: the guard must deny\n{}\n{}",
                run.stdout,
                run.stderr
            );
            assert_eq!(run.code, 0);
        }
    }
}

#[test]
fn an_owners_guard_the_dialect_cannot_run_is_a_load_error_that_fails_closed() {
    let test = TestEnv::new();
    // The user's own hygge file decides the dialect; the managed guard is Claude-shaped.
    test.write(
        "home/.agents/hooks.toml",
        "[[hooks]]\nname = \"x\"\ncommand = \"true\"\nevents = [\"pre_tool\"]\n",
    );
    std::fs::create_dir_all(test.managed_path().parent().unwrap()).unwrap();
    std::fs::write(
        test.managed_path(),
        json!({ "hooks": guard(&test) }).to_string(),
    )
    .unwrap();
    let flags = config_flags(&test);
    let mut args: Vec<&str> = vec!["check"];
    args.extend(flags.iter().map(String::as_str));
    let check = hookhost(&test, &test.project, &args, "", &[]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    assert!(
        check.stdout.contains("`PreToolUse` is not a hygge event"),
        "{}",
        check.stdout
    );
    let input = json!({"event": "pre_tool", "session_id": "s", "tool_name": "Bash",
                       "tool_input": {"command": "ls"}});
    let run = fire(&test, &[], &input);
    assert!(blocked(&run), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("cannot run a guard"), "{}", run.stdout);
}

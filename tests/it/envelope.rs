//! Issue 53's envelope, executed for real: the owner's hook file switches it on, `hookhost
//! fire` (what every agent's hook runs) rewrites the agent's shell command, bash runs the
//! rewrite as the agent's shell would — and each multi-step attack that gets its effect
//! without the envelope (the control, the same command run as written) gets none inside
//! it, while ordinary work keeps its output, exit status and working folder.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use hookhost_tests::{TestEnv, run_cli};
use serde_json::{Value, json};

mod judged;
mod left_behind;
mod processes;

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");
const SECRET: &str = "API_KEY=sk-live-never-leaves";

/// A project with a secret, git hooks, an agent settings folder and a protected path,
/// guarded by an owner's hook file that switches the envelope on (plus `extra` keys).
fn guarded(extra: Value) -> TestEnv {
    let test = TestEnv::new();
    let mut settings = json!({
        "envelope": true,
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
            "type": "wasm", "component": "builtin:protected-paths",
            "config": {"paths": ["deploy/prod.yml"]}
        }]}]}
    });
    if let (Some(map), Value::Object(extra)) = (settings.as_object_mut(), extra) {
        map.extend(extra);
    }
    test.write(
        "home/.config/hookhost/hooks.json",
        &serde_json::to_string_pretty(&settings).unwrap(),
    );
    test.write("home/.claude/settings.json", "{}");
    test.write("project/.env", &format!("{SECRET}\n"));
    test.write("project/.claude/settings.json", "{}");
    test.write("project/deploy/prod.yml", "replicas: 3\n");
    test.write("project/src/main.rs", "fn main() {}\n");
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(&test.project)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["config", "user.email", "t@example.com"]);
    git(&["config", "user.name", "t"]);
    test
}

/// What `hookhost hook --agent AGENT` answers for `input`.
fn agent_answer(test: &TestEnv, agent: &str, input: Value) -> Value {
    let mut hook = Command::new(CLI);
    hook.args(["hook", "--agent", agent, "--home"])
        .arg(&test.home)
        .current_dir(&test.project);
    let out = hookhost_tests::run_with_stdin(&mut hook, input.to_string().as_bytes());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Who runs the agent's side of a test: this test's own account (root on CI), or an
/// ordinary user (the envelope then makes a user namespace).
#[derive(Debug, Clone, Copy)]
enum Who {
    Me,
    User { uid: u32, gid: u32 },
}

impl Who {
    /// `program`, started as this account (an ordinary user's: its ids, no groups of ours).
    fn command(self, program: &str) -> Command {
        match self {
            Who::Me => Command::new(program),
            Who::User { uid, gid } => {
                let mut command = Command::new("setpriv");
                command
                    .arg(format!("--reuid={uid}"))
                    .arg(format!("--regid={gid}"))
                    .args(["--clear-groups", "--", program])
                    // The system's tools: this account's own (a home only it can enter)
                    // are not the user's.
                    .env("PATH", "/usr/local/bin:/usr/bin:/bin");
                command
            }
        }
    }

    /// hookhost's binary as this account can start it: an ordinary user cannot enter a
    /// build folder below root's home, so it gets a copy in a folder everyone can read
    /// (made once per test process).
    fn cli(self) -> String {
        static SHARED: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        match self {
            Who::Me => CLI.to_string(),
            Who::User { .. } => SHARED
                .get_or_init(|| {
                    use std::os::unix::fs::PermissionsExt;
                    let reachable = Path::new(CLI).ancestors().skip(1).all(|dir| {
                        std::fs::metadata(dir)
                            .is_ok_and(|meta| meta.permissions().mode() & 0o001 != 0)
                    });
                    if reachable {
                        return CLI.to_string();
                    }
                    let dir = std::env::temp_dir()
                        .join(format!("hookhost-test-bin-{}", std::process::id()));
                    std::fs::create_dir_all(&dir).unwrap();
                    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
                    let copy = dir.join("hookhost");
                    if !copy.exists() && std::fs::hard_link(CLI, &copy).is_err() {
                        std::fs::copy(CLI, &copy).unwrap();
                    }
                    copy.display().to_string()
                })
                .clone(),
        }
    }

    /// The ordinary user `test`'s tree is handed to: when this test runs as root, the
    /// account `HOOKHOST_TEST_USER` (default `hhtest`, which CI creates), the tree made
    /// theirs; otherwise this account, already an ordinary one.
    fn ordinary(test: &TestEnv) -> Who {
        if !nix::unistd::geteuid().is_root() {
            return Who::Me;
        }
        let name = std::env::var("HOOKHOST_TEST_USER").unwrap_or_else(|_| "hhtest".into());
        let id = |flag: &str| -> u32 {
            let out = Command::new("id").args([flag, &name]).output().unwrap();
            assert!(
                out.status.success(),
                "the ordinary user {name} is missing: create it (`useradd {name}`; .ci/run does) to run the envelope's tests as one"
            );
            String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
        };
        let (uid, gid) = (id("-u"), id("-g"));
        let owned = Command::new("chown")
            .arg("-R")
            .arg(format!("{uid}:{gid}"))
            .arg(&test.root)
            .status()
            .unwrap();
        assert!(owned.success());
        Who::User { uid, gid }
    }
}

/// What `hookhost envelope show` prints for `test`'s project.
fn envelope_show(test: &TestEnv) -> String {
    let out = Command::new(CLI)
        .args(["envelope", "show", "--own-files", "--home"])
        .arg(&test.home)
        .current_dir(&test.project)
        .output()
        .unwrap();
    text(&out)
}

/// Replaces the owner's hook file of `test` with `settings`, owned by `who`.
fn set_owner_settings(who: Who, test: &TestEnv, settings: Value) {
    let file = test.write(
        "home/.config/hookhost/hooks.json",
        &serde_json::to_string_pretty(&settings).unwrap(),
    );
    if let Who::User { uid, gid } = who {
        std::os::unix::fs::chown(&file, Some(uid), Some(gid)).unwrap();
    }
}

/// `hookhost fire PreToolUse` for the Bash call `command`, as an agent's hook runs it.
fn fire(test: &TestEnv, command: &str, env: &[(&str, &str)]) -> Value {
    fire_as(Who::Me, test, command, env)
}

/// [`fire`], as `who`.
fn fire_as(who: Who, test: &TestEnv, command: &str, env: &[(&str, &str)]) -> Value {
    let input = json!({
        "session_id": "s1", "hook_event_name": "PreToolUse", "cwd": test.project,
        "tool_name": "Bash", "tool_input": {"command": command, "description": "d"}
    });
    let mut fire = who.command(&who.cli());
    fire.args(["fire", "PreToolUse", "--own-files", "--home"])
        .arg(&test.home)
        .arg("--project-dir")
        .arg(&test.project)
        .current_dir(&test.project);
    for (name, value) in env {
        fire.env(name, value);
    }
    let out = hookhost_tests::run_with_stdin(&mut fire, input.to_string().as_bytes());
    serde_json::from_slice(&out.stdout).unwrap_or_else(|err| {
        panic!(
            "fire: {err}\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The rewrite hookhost answers for `command` (panics when it is refused).
fn rewrite(test: &TestEnv, command: &str) -> String {
    rewrite_as(Who::Me, test, command)
}

/// [`rewrite`], as `who`.
fn rewrite_as(who: Who, test: &TestEnv, command: &str) -> String {
    let outcome = fire_as(who, test, command, &[]);
    assert!(!outcome["should_block"].as_bool().unwrap(), "{outcome:#}");
    assert_eq!(outcome["envelope"].as_str().map(str::len), Some(64));
    outcome["updated_input"]["command"]
        .as_str()
        .unwrap_or_else(|| panic!("no rewrite: {outcome:#}"))
        .to_string()
}

/// Runs `script` in bash in the project as the agent's shell does (its home as `HOME`).
fn bash(test: &TestEnv, script: &str) -> Output {
    bash_as(Who::Me, test, script)
}

/// [`bash`], as `who`.
fn bash_as(who: Who, test: &TestEnv, script: &str) -> Output {
    who.command("bash")
        .arg("-c")
        .arg(script)
        .current_dir(&test.project)
        .env("HOME", &test.home)
        .output()
        .unwrap()
}

/// The agent's `command` as hookhost lets it run: rewritten into the envelope.
fn enclosed(test: &TestEnv, command: &str) -> Output {
    bash(test, &rewrite(test, command))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Each attack: the files it sets up (what an earlier tool call wrote), the command that
/// runs it, and how its effect is seen afterwards.
struct Attack {
    name: &'static str,
    setup: &'static [(&'static str, &'static str)],
    command: &'static str,
    succeeded: fn(&TestEnv, &Output) -> bool,
}

fn leaked(_: &TestEnv, out: &Output) -> bool {
    text(out).contains(SECRET)
}

const ATTACKS: &[Attack] = &[
    Attack {
        name: "a script written in one call, run in the next",
        setup: &[("project/tools/lint.sh", "cat \"$(printf '.e%s' nv)\"\n")],
        command: "sh tools/lint.sh",
        succeeded: leaked,
    },
    Attack {
        name: "a Makefile target",
        setup: &[("project/Makefile", "check:\n\t@cat .e\"\"nv\n")],
        command: "make -s check",
        succeeded: leaked,
    },
    Attack {
        name: "a package.json script",
        setup: &[(
            "project/package.json",
            "{\"name\": \"p\", \"version\": \"1.0.0\", \"scripts\": {\"test\": \"node -e \\\"console.log(require('fs').readFileSync('.e'+'nv','utf8'))\\\"\"}}",
        )],
        command: "npm test --silent",
        succeeded: leaked,
    },
    Attack {
        name: "an interpreter computing the path",
        setup: &[],
        command: "python3 -c \"print(open('.e'+'nv').read())\"",
        succeeded: leaked,
    },
    Attack {
        name: "a git alias in .git/config",
        setup: &[],
        command: "git config alias.show-env '!cat .e''nv' && git show-env",
        succeeded: leaked,
    },
    Attack {
        name: "a symlink under an innocent name",
        setup: &[],
        command: "ln -s .env notes.txt && cat notes.txt",
        succeeded: leaked,
    },
    Attack {
        name: "a hard link under an innocent name",
        setup: &[],
        command: "ln .env notes.txt; cat notes.txt",
        succeeded: leaked,
    },
    Attack {
        name: "a hard link to hookhost's hook file, then a write through it",
        setup: &[],
        command: "python3 -c \"import os; os.link(os.path.expanduser('~') + '/.config/hoo' + 'khost/hooks.json', 'h.json')\"; echo '{}' > h.json",
        succeeded: |test, _| {
            std::fs::read_to_string(test.home.join(".config/hookhost/hooks.json"))
                .is_ok_and(|text| text.trim() == "{}")
        },
    },
    Attack {
        name: "a glob and xargs",
        setup: &[],
        command: "ls -a | grep -x '.e.v' | xargs cat",
        succeeded: leaked,
    },
    Attack {
        name: "find -exec after a cd",
        setup: &[],
        command: "cd src && cd .. && find . -maxdepth 1 -name '.e?v' -exec cat {} \\;",
        succeeded: leaked,
    },
    Attack {
        name: "a pre-commit hook written for the next commit, by a computed path",
        setup: &[],
        command: "d=$(printf .gi%s t); printf '#!/bin/sh\\necho owned\\n' > $d/hooks/pre-commit",
        succeeded: |test, _| test.project.join(".git/hooks/pre-commit").exists(),
    },
    Attack {
        name: ".git moved aside for a writable one, by a computed path",
        setup: &[],
        command: "g=$(printf .gi%s t); mv $g $g-old && mkdir -p $g/hooks && touch $g/hooks/pre-commit",
        succeeded: |test, _| test.project.join(".git-old").exists(),
    },
];

#[test]
fn multi_step_attacks_get_their_effect_without_the_envelope_and_none_inside_it() {
    for attack in ATTACKS {
        for inside in [false, true] {
            let test = guarded(json!({}));
            for (path, body) in attack.setup {
                test.write(path, body);
            }
            let out = if inside {
                enclosed(&test, attack.command)
            } else {
                bash(&test, attack.command)
            };
            let effect = (attack.succeeded)(&test, &out);
            assert_eq!(
                effect,
                !inside,
                "{}: {} the envelope\n{}",
                attack.name,
                if inside {
                    "effect inside"
                } else {
                    "no effect without"
                },
                text(&out)
            );
        }
    }
}

/// What decides which guards run — hookhost's own hook file, Claude Code's settings,
/// the project's agent settings, a protected path, a shell startup file — written by code
/// the guards cannot read: changed without the envelope, untouched inside it.
#[test]
fn hook_files_protected_paths_and_startup_files_stay_as_they_are() {
    // hookhost's, Claude Code's and every other agent's hook files (user and project),
    // a protected path, a shell startup file.
    let targets = [
        "home/.config/hookhost/hooks.json",
        "home/.claude/settings.json",
        "project/.claude/settings.json",
        "home/.codex/hooks.json",
        "home/.gemini/settings.json",
        "home/.copilot/hooks/hookhost.json",
        "home/.cursor/hooks.json",
        "project/.cursor/hooks.json",
        "project/.gemini/settings.json",
        "project/deploy/prod.yml",
        "home/.bashrc",
    ];
    for inside in [false, true] {
        let test = guarded(json!({}));
        test.write("home/.bashrc", "# mine\n");
        for target in &targets[3..9] {
            test.write(target, "{}");
        }
        for target in targets {
            // A path an earlier call left in a file (no guard reads it in the text),
            // through a symlink under an innocent name.
            let path = test.root.join(target);
            test.write("project/target.txt", &path.display().to_string());
            let command = "ln -sf \"$(cat target.txt)\" innocent && python3 -c \"open('innocent', 'w').write('owned')\"";
            let before = std::fs::read_to_string(&path).unwrap();
            let out = if inside {
                enclosed(&test, command)
            } else {
                bash(&test, command)
            };
            let after = std::fs::read_to_string(&path).unwrap();
            let _ = std::fs::remove_file(test.project.join("innocent"));
            assert_eq!(
                after == before,
                inside,
                "{target}: {}\n{}",
                if inside {
                    "changed inside"
                } else {
                    "unchanged without"
                },
                text(&out)
            );
            if inside {
                assert!(
                    text(&out).contains("hookhost envelope"),
                    "the refusal does not say whose: {}",
                    text(&out)
                );
            }
        }
    }
}

#[test]
fn a_secret_reads_as_a_notice_and_writes_outside_the_roots_are_refused() {
    let test = guarded(json!({}));
    let outside = format!("/usr/hookhost-probe-{}", std::process::id());
    let out = enclosed(&test, &format!("cat .env; echo x > {outside}"));
    let said = text(&out);
    assert!(!said.contains(SECRET), "{said}");
    assert!(said.contains("content of this file is withheld"), "{said}");
    assert!(said.contains("Permission denied"), "{said}");
    assert!(!Path::new(&outside).exists());
    // The note names the envelope, so the model can tell it from an ordinary failure.
    assert!(said.contains("ran inside the owner's envelope"), "{said}");
}

#[test]
fn ordinary_work_keeps_its_bytes_status_folder_and_background() {
    let test = guarded(json!({}));
    // Output byte for byte (NUL and all), stderr apart, the exit status.
    let command = "printf 'a\\0b\\n'; echo to-stderr >&2; exit 7";
    let (plain, inside) = (bash(&test, command), enclosed(&test, command));
    assert_eq!(plain.stdout, inside.stdout);
    assert_eq!(plain.status.code(), Some(7));
    assert_eq!(inside.status.code(), Some(7));
    assert!(String::from_utf8_lossy(&inside.stderr).starts_with("to-stderr\n"));
    // The folder the command ends in is the shell's next folder (Claude Code keeps it).
    let wrapped = rewrite(&test, "cd src && echo in-src");
    let out = bash(&test, &format!("{wrapped}; echo \"now $PWD\""));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("in-src\nnow {}\n", test.project.join("src").display())
    );
    // Everyday git and files in the project, the environment as the agent's shell has it.
    let out = bash(
        &test,
        &format!(
            "export MARK=kept; {}",
            rewrite(
                &test,
                "echo \"$MARK\" > notes.md && git add notes.md && git commit -qm 'rm -rf is mentioned here' && git log --oneline | wc -l && echo built"
            )
        ),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1\nbuilt\n");
    assert_eq!(
        std::fs::read_to_string(test.project.join("notes.md")).unwrap(),
        "kept\n"
    );
    // A server left running in the background does not hold the agent's shell.
    let wrapped = rewrite(&test, "sleep 30 >/dev/null 2>&1 & echo $! > server.pid");
    let run = run_cli(
        "bash",
        &[
            "-c".to_string(),
            format!("cd '{}' && {wrapped}", test.project.display()),
        ],
        b"",
        Duration::from_secs(20),
    )
    .expect("the shell waited for the background server");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let pid: i32 = std::fs::read_to_string(test.project.join("server.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(hookhost_tests::process_alive(pid));
    let _ = Command::new("kill").arg(pid.to_string()).status();
}

#[test]
fn a_kernel_without_what_the_envelope_needs_refuses_and_never_runs_unconfined() {
    let test = guarded(json!({}));
    let marker = test.project.join("ran");
    // The hook refuses with the reason and the fix.
    let outcome = fire(
        &test,
        "touch ran",
        &[("HOOKHOST_SIMULATE_LANDLOCK_ABI", "2")],
    );
    assert!(outcome["should_block"].as_bool().unwrap(), "{outcome:#}");
    let reason = outcome["block_reason"].as_str().unwrap();
    assert!(
        reason.contains("needs Landlock ABI 6")
            && reason.contains("ABI 2")
            && reason.contains("Fix:"),
        "{reason}"
    );
    // And the launcher, should a rewrite meet such a kernel.
    let wrapped = rewrite(&test, "touch ran");
    let out = Command::new("bash")
        .arg("-c")
        .arg(&wrapped)
        .current_dir(&test.project)
        .env("HOOKHOST_SIMULATE_LANDLOCK_ABI", "0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(126), "{}", text(&out));
    hookhost_tests::assert_says(text(&out), "the command was not run");
    assert!(!marker.exists(), "the command ran without its envelope");
}

#[test]
fn the_model_cannot_unwrap_or_imitate_the_launcher() {
    let test = guarded(json!({}));
    let wrapped = rewrite(&test, "true");
    for command in [
        format!("{CLI} envelope run --envelope /tmp/mine.json -- cat .env"),
        "hookhost envelope run --envelope x -- id".to_string(),
        wrapped.clone(),
        "__hookhost_cwd=/ true".to_string(),
    ] {
        let outcome = fire(&test, &command, &[]);
        assert!(
            outcome["should_block"].as_bool().unwrap(),
            "{command}: {outcome:#}"
        );
    }
    // A changed envelope file is refused, not run with what it now says.
    let file = wrapped
        .split('\'')
        .find(|part| part.ends_with(".json"))
        .unwrap()
        .to_string();
    let mut envelope: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    envelope["writable"] = json!([{"path": "/", "why": "mine"}]);
    std::fs::write(&file, envelope.to_string()).unwrap();
    let out = bash(&test, &wrapped);
    assert_eq!(out.status.code(), Some(126), "{}", text(&out));
    hookhost_tests::assert_says(text(&out), "does not hold what its name says");
}

#[test]
fn agents_that_cannot_rewrite_a_command_have_it_refused_and_show_says_what_holds() {
    let test = guarded(json!({}));
    cursor_refused(&test);
    // Gemini's does: the rewrite goes back in its own field.
    let answer = agent_answer(
        &test,
        "gemini",
        json!({"hook_event_name": "BeforeTool", "session_id": "s", "cwd": test.project,
            "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
    );
    assert!(
        answer["hookSpecificOutput"]["tool_input"]["command"]
            .as_str()
            .is_some_and(|command| command.contains("envelope run")),
        "{answer}"
    );
    // Codex's `exec_command` gets the rewrite in its own field (`cmd`), beside an allow;
    // what the model types into the shell it started (`write_stdin`) runs inside that
    // shell's envelope already, so it is judged, not wrapped.
    let answer = agent_answer(
        &test,
        "codex",
        json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": test.project,
            "tool_name": "exec_command", "tool_input": {"cmd": "ls", "workdir": "."}}),
    );
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["permissionDecision"], "allow", "{answer}");
    assert!(
        output["updatedInput"]["cmd"]
            .as_str()
            .is_some_and(|command| command.contains("envelope run")),
        "{answer}"
    );
    assert!(output["updatedInput"].get("command").is_none(), "{answer}");
    assert_eq!(output["updatedInput"]["workdir"], ".", "{answer}");
    let typed = |chars: &str| {
        agent_answer(
            &test,
            "codex",
            json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": test.project,
                "tool_name": "write_stdin", "tool_input": {"session_id": 3, "chars": chars}}),
        )
    };
    let answer = typed("ls\n");
    assert!(
        answer
            .get("hookSpecificOutput")
            .is_none_or(|output| output.get("updatedInput").is_none()),
        "{answer}"
    );
    let answer = typed("echo 0 > deploy/prod.yml\n");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    // `envelope show` prints it whole, and as JSON.
    let show = |json: bool| {
        let mut args = vec![
            "envelope",
            "show",
            "--own-files",
            "--home",
            test.home.to_str().unwrap(),
        ];
        if json {
            args.push("--json");
        }
        Command::new(CLI)
            .args(args)
            .current_dir(&test.project)
            .output()
            .unwrap()
    };
    let printed = text(&show(false));
    for part in [
        "mode: enforce",
        &format!("{}  (the project)", test.project.display()),
        "deploy/prod.yml  (a protected path (protected-paths))",
        ".git/hooks",
        "kernel: Landlock ABI",
        "enforced: every shell command",
    ] {
        assert!(printed.contains(part), "{part}\n{printed}");
    }
    let json: Value = serde_json::from_slice(&show(true).stdout).unwrap();
    assert_eq!(json["digest"].as_str().map(str::len), Some(64));
    assert!(json["kernel"]["landlockAbi"].as_u64().unwrap() >= 6);
}

#[test]
fn the_audit_log_names_the_envelope_of_each_call() {
    let test = guarded(json!({"hookAuditLog": test_log()}));
    let _ = fire(&test, "ls", &[]);
    let log = std::fs::read_to_string(test_log()).unwrap();
    let line: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(line["envelope"].as_str().map(str::len), Some(64), "{line}");
    let _ = std::fs::remove_file(test_log());
}

fn test_log() -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    dir.join(format!("envelope-audit-{}.jsonl", std::process::id()))
        .display()
        .to_string()
}

#[test]
fn the_weaker_mode_is_said_at_session_start_and_in_status_and_still_bounds_writes() {
    let test = guarded(json!({"envelope": {"mode": "landlock-only"}}));
    let input = json!({"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup", "cwd": test.project});
    let mut fire = Command::new(CLI);
    fire.args(["fire", "SessionStart", "--own-files", "--home"])
        .arg(&test.home)
        .arg("--project-dir")
        .arg(&test.project);
    let out = hookhost_tests::run_with_stdin(&mut fire, input.to_string().as_bytes());
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        outcome["system_message"]
            .as_str()
            .unwrap_or_default()
            .contains("weaker landlock-only"),
        "{outcome:#}"
    );
    let status = Command::new(CLI)
        .args(["status", "--agent", "claude", "--home"])
        .arg(&test.home)
        .current_dir(&test.project)
        .output()
        .unwrap();
    hookhost_tests::assert_says(text(&status), "landlock-only — WEAKER");
    // Weaker, not nothing: a write outside the writable folders is still refused.
    let probe = format!("/usr/hookhost-weaker-probe-{}", std::process::id());
    let out = enclosed(&test, &format!("echo x > {probe}"));
    assert!(!out.status.success());
    assert!(!Path::new(&probe).exists(), "{}", text(&out));
}

/// Issue 53's ordinary corpus: 140 everyday calls across ecosystems, through the command
/// `hookhost claude install --guards recommended --envelope` installs, on a project with
/// its own binaries (a compiled program over the script-reading cap, a virtualenv's
/// python), a launcher script in the style of Gradle's, `.env` and its template: none is
/// refused, and each gets the envelope.
#[test]
fn everyday_calls_pass_the_recommended_guards_and_get_the_envelope() {
    let test = TestEnv::new();
    let out = Command::new(CLI)
        .args([
            "claude",
            "install",
            "--guards",
            "recommended",
            "--envelope",
            "--home",
        ])
        .arg(&test.home)
        .current_dir(&test.project)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(test.home.join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    let hook = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    // The project's own programs: one compiled (larger than the shell view reads), one
    // a link to the system's python, one a launcher script.
    let program = std::fs::read("/bin/ls").unwrap();
    let mut big = program.clone();
    big.resize(program.len().max(600 << 10), 0);
    let app = test.write("project/target/release/app", "");
    std::fs::write(&app, &big).unwrap();
    std::fs::create_dir_all(test.project.join(".venv/bin")).unwrap();
    std::os::unix::fs::symlink("/usr/bin/python3", test.project.join(".venv/bin/python")).unwrap();
    test.write(
        "project/gradlew",
        "#!/bin/sh\nHERE=$(cd \"${0%/*}\" && pwd -P) || exit\nOPTS='\"-Xmx64m\"'\nset -- -classpath \"$HERE/wrapper.jar\" Main \"$@\"\neval \"set -- $(printf '%s\\n' \"$OPTS $JAVA_OPTS\" | xargs -n1 | tr '\\n' ' ')\" '\"$@\"'\nexec \"${JAVACMD:-java}\" \"$@\"\n",
    );
    test.write("project/.env", "KEY=1\n");
    test.write("project/.env.sample", "KEY=\n");
    let corpus = include_str!("envelope/everyday.txt");
    let calls: Vec<&str> = corpus
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .collect();
    assert!(calls.len() >= 100, "{} calls", calls.len());
    let mut refused = Vec::new();
    for call in &calls {
        let input = json!({"session_id": "s", "transcript_path": "/tmp/t", "cwd": test.project,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": call, "description": "d"}});
        let mut run = Command::new("sh");
        run.arg("-c").arg(&hook).current_dir(&test.project);
        let out = hookhost_tests::run_with_stdin(&mut run, input.to_string().as_bytes());
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let hso = &answer["hookSpecificOutput"];
        if out.status.code() != Some(0) || hso["permissionDecision"] == "deny" {
            refused.push(format!(
                "{call}: {}{}",
                hso["permissionDecisionReason"],
                String::from_utf8_lossy(&out.stderr)
            ));
        } else if !hso["updatedInput"]["command"]
            .as_str()
            .is_some_and(|command| command.contains("envelope run"))
        {
            refused.push(format!("{call}: no envelope: {answer}"));
        }
    }
    assert!(
        refused.is_empty(),
        "{} of {}:\n{}",
        refused.len(),
        calls.len(),
        refused.join("\n")
    );
}

/// A hook settings file in a folder the project does not have yet: the launcher makes
/// the agent's folder, empty, before the command and holds it, so Claude Code's
/// `.claude/settings.local.json` with `disableAllHooks` cannot be created there (nor by a
/// process the command leaves running). Without the envelope it is.
#[test]
fn a_hook_settings_file_in_a_folder_the_project_lacks_cannot_be_created() {
    for inside in [false, true] {
        let test = guarded(json!({}));
        std::fs::remove_dir_all(test.project.join(".claude")).unwrap();
        let command = "d=$(printf .cla%s ude); mkdir -p $d && echo '{\"disableAllHooks\": true}' > $d/settings.local.json";
        let out = if inside {
            enclosed(&test, command)
        } else {
            bash(&test, command)
        };
        let created = test.project.join(".claude/settings.local.json").exists();
        assert_eq!(created, !inside, "{}", text(&out));
        if inside {
            hookhost_tests::assert_says(text(&out), "Read-only file system");
        }
    }
}

/// A Cursor-like agent for `envelope session`: for each command it asks its hook
/// (`hookhost hook --agent cursor`), runs the command when allowed, and records both.
const SESSION_AGENT: &str = r#"
import json, os, subprocess, sys, time
hookhost, home, commands, out = sys.argv[1:5]
results = []
for command in json.load(open(commands)):
    if command == "KILL THE BROKER":
        # The broker is outside the session's PID namespace (invisible here): the test
        # ends it, by its pid, when asked.
        open(out + ".kill", "w").close()
        for _ in range(1000):
            if os.path.exists(out + ".killed"):
                break
            time.sleep(0.01)
        continue
    payload = {"hook_event_name": "beforeShellExecution", "conversation_id": "s",
               "cwd": os.getcwd(), "command": command}
    asked = subprocess.run([hookhost, "hook", "--agent", "cursor", "--home", home],
                           input=json.dumps(payload), capture_output=True, text=True)
    answer = json.loads(asked.stdout)
    ran = None
    if answer.get("permission") == "allow":
        done = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
        ran = {"status": done.returncode, "output": done.stdout + done.stderr}
    results.append({"command": command, "answer": answer, "ran": ran})
json.dump(results, open(out, "w"))
sys.exit(7)
"#;

#[test]
fn a_whole_session_runs_inside_the_envelope_and_its_hooks_reach_the_broker() {
    let test = guarded(json!({}));
    let computed = "python3 -c \"open('.git/ho'+'oks/pre-commit','w').write('x')\"";
    // A hook file where the project has none yet: held for the whole session.
    let created = "python3 -c \"import os; os.makedirs('.cur'+'sor', exist_ok=True); open('.cur'+'sor/hooks.json','w').write('{}')\"";
    let commands = json!([
        "echo hi > out.txt",
        "echo 0 > deploy/prod.yml",
        computed,
        created,
        "cat .env",
        "KILL THE BROKER",
        "echo after > after.txt",
    ]);
    test.write("agent.py", SESSION_AGENT);
    test.write("commands.json", &commands.to_string());
    let results = test.project.join("results.json");
    let session = Command::new(CLI)
        .args(["envelope", "session", "--home"])
        .arg(&test.home)
        .args(["--", "python3"])
        .arg(test.root.join("agent.py"))
        .arg(CLI)
        .arg(&test.home)
        .arg(test.root.join("commands.json"))
        .arg(&results)
        .current_dir(&test.project)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let asked = results.with_extension("json.kill");
    for _ in 0..3000 {
        if asked.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(
        asked.exists(),
        "the session's agent never reached the broker's end"
    );
    let broker = hookhost_tests::descendants(session.id())
        .into_iter()
        .find(|pid| hookhost_tests::command_line(*pid).contains("serve --listen=unix:"))
        .expect("the session's broker among its processes");
    let _ = Command::new("kill").arg(broker.to_string()).status();
    // Gone, not going: a server draining after SIGTERM may still answer a call.
    for _ in 0..500 {
        if !hookhost_tests::process_alive(broker) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::fs::write(results.with_extension("json.killed"), "").unwrap();
    let session = session.wait_with_output().unwrap();
    assert_eq!(session.status.code(), Some(7), "{}", text(&session));
    let results: Value = serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap();
    let result = |command: &str| -> &Value {
        results
            .as_array()
            .unwrap()
            .iter()
            .find(|result| result["command"] == command)
            .unwrap()
    };
    // Ordinary work runs; the broker's guards answer the agent's hook.
    assert_eq!(result("echo hi > out.txt")["ran"]["status"], 0, "{results}");
    assert!(test.project.join("out.txt").is_file());
    let denied = &result("echo 0 > deploy/prod.yml")["answer"];
    assert_eq!(denied["permission"], "deny", "{results}");
    assert!(
        denied["agent_message"]
            .as_str()
            .unwrap()
            .contains("protected path")
    );
    // What the text cannot see, the kernel stops.
    let attack = result(computed);
    assert_eq!(attack["answer"]["permission"], "allow", "{results}");
    assert_ne!(attack["ran"]["status"], 0, "{results}");
    assert!(!test.project.join(".git/hooks/pre-commit").exists());
    assert_ne!(result(created)["ran"]["status"], 0, "{results}");
    assert!(
        !test.project.join(".cursor").exists(),
        "the session's placeholder folder is left or the hook file was written"
    );
    let read = result("cat .env")["ran"]["output"].as_str().unwrap();
    assert!(
        !read.contains(SECRET) && read.contains("withheld"),
        "{read}"
    );
    // The broker gone, the hook fails closed: the command does not run.
    let after = result("echo after > after.txt");
    assert_eq!(after["answer"]["permission"], "deny", "{results}");
    assert!(
        after["answer"]["agent_message"]
            .as_str()
            .unwrap()
            .contains("broker"),
        "{results}"
    );
    assert!(!test.project.join("after.txt").exists());
    // Nothing of the session is left: no broker folder, no broker log.
    let envelope_dir = test.home.join(".local/state/hookhost/envelope");
    let left: Vec<String> = std::fs::read_dir(&envelope_dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("broker-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // Claude Code's own hook command inside a session asks the broker too: judged, and
    // not rewritten (the session is inside already).
    let claude_input = |command: &str| {
        json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "cwd": test.project})
        .to_string()
    };
    test.write("denied.json", &claude_input("echo 0 > deploy/prod.yml"));
    test.write("allowed.json", &claude_input("ls"));
    let script = format!(
        "'{cli}' claude hook --home '{home}' < '{root}/denied.json'; echo; '{cli}' claude hook --home '{home}' < '{root}/allowed.json'",
        cli = CLI,
        home = test.home.display(),
        root = test.root.display()
    );
    let claude = Command::new(CLI)
        .args(["envelope", "session", "--home"])
        .arg(&test.home)
        .args(["--", "bash", "-c", &script])
        .current_dir(&test.project)
        .output()
        .unwrap();
    let said = text(&claude);
    let mut answers = said.lines().filter(|line| line.starts_with('{'));
    let denied: Value = serde_json::from_str(answers.next().unwrap()).unwrap();
    assert_eq!(
        denied["hookSpecificOutput"]["permissionDecision"], "deny",
        "{said}"
    );
    let allowed: Value = serde_json::from_str(answers.next().unwrap()).unwrap();
    assert!(allowed.get("hookSpecificOutput").is_none(), "{said}");
    // The control: without the envelope the same computed write gets its effect.
    for (command, written) in [
        (computed, ".git/hooks/pre-commit"),
        (created, ".cursor/hooks.json"),
    ] {
        let control = Command::new("bash")
            .args(["-c", command])
            .current_dir(&test.project)
            .output()
            .unwrap();
        assert!(control.status.success(), "{}", text(&control));
        assert!(test.project.join(written).is_file(), "{written}");
    }
}

#[test]
#[cfg(unix)]
fn a_broker_socket_outside_a_session_is_not_asked() {
    let test = guarded(json!({}));
    // Make the owner's envelope folder, then put a listener where a session shows its
    // broker: no mount holds it, so the hook does not send its call there.
    cursor_refused(&test);
    let folder = test.home.join(".local/state/hookhost/envelope/session");
    assert!(folder.is_dir());
    let _listener = std::os::unix::net::UnixListener::bind(folder.join("hook.sock")).unwrap();
    cursor_refused(&test);
}

/// Cursor's hook, its answer having no field for a rewritten command, refuses a shell
/// command while the envelope is on: never run bare.
fn cursor_refused(test: &TestEnv) {
    let answer = agent_answer(
        test,
        "cursor",
        json!({"hook_event_name": "beforeShellExecution", "conversation_id": "s",
            "cwd": test.project, "command": "ls"}),
    );
    assert_eq!(answer["permission"], "deny", "{answer}");
    assert!(
        answer["agent_message"]
            .as_str()
            .unwrap()
            .contains("cannot rewrite cursor's commands"),
        "{answer}"
    );
}

#[test]
fn a_session_writes_the_folders_its_user_names_and_no_others() {
    let test = guarded(json!({}));
    // Outside the temporary folders (a writable root of every envelope), as an agent's
    // state folder in a real home is: in the account's own home (a clean clone's target
    // folder may itself lie below /tmp).
    let real_home = std::env::home_dir().expect("the account has a home");
    assert!(
        !["/tmp", "/var/tmp", "/dev/shm"]
            .iter()
            .any(|root| real_home.starts_with(root)),
        "the account's home {} lies in a temporary folder",
        real_home.display()
    );
    let outside = tempfile::Builder::new()
        .prefix(".hookhost-test-")
        .tempdir_in(&real_home)
        .unwrap();
    let (named, other) = (
        outside.path().join("agent-state"),
        outside.path().join("other"),
    );
    std::fs::create_dir_all(&named).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    let script = format!(
        "touch '{}/ok'; touch '{}/no'; exit 3",
        named.display(),
        other.display()
    );
    let session = Command::new(CLI)
        .args(["envelope", "session", "--home"])
        .arg(&test.home)
        .arg("--writable")
        .arg(&named)
        .args(["--", "bash", "-c", &script])
        .current_dir(&test.project)
        .output()
        .unwrap();
    assert_eq!(session.status.code(), Some(3), "{}", text(&session));
    assert!(named.join("ok").is_file(), "{}", text(&session));
    assert!(!other.join("no").exists(), "{}", text(&session));
    hookhost_tests::assert_says(text(&session), "Read-only file system");
    // A folder that is not there is refused before anything starts.
    let refused = Command::new(CLI)
        .args(["envelope", "session", "--home"])
        .arg(&test.home)
        .args(["--writable", "/nonexistent/state", "--", "true"])
        .current_dir(&test.project)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(64), "{}", text(&refused));
    assert!(text(&refused).contains("--writable /nonexistent/state"));
}

//! The `hookhost` binary as a real process.

use std::io::Write;
use std::process::{Command, Stdio};

use hookhost_tests::{TestEnv, command, hooks};
use serde_json::{Value, json};

/// `hookhost args…` in `env` (its home, project and managed settings).
fn cli(env: &TestEnv, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
    command
        .args(args)
        .args([
            "--home",
            &env.home.display().to_string(),
            "--project-dir",
            &env.project.display().to_string(),
        ])
        .args([
            "--managed-settings",
            &env.root.join("managed.json").display().to_string(),
        ]);
    command
}

fn hookhost(env: &TestEnv, args: &[&str], stdin: &str) -> (i32, Value, String) {
    let run = hookhost_tests::ran_with_stdin(&mut cli(env, args), stdin.as_bytes());
    (run.code, run.json(), run.stderr)
}

/// Settings whose command hook blocks every Bash call (exit 2, "no rm"), and the input
/// of an `rm -rf /` for it.
fn rm_guard(env: &TestEnv) -> (std::path::PathBuf, String) {
    let settings = env.settings(
        "s.json",
        hooks(
            "PreToolUse",
            Some("Bash"),
            vec![command("cat >/dev/null; echo 'no rm' >&2; exit 2")],
        ),
    );
    let input = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}).to_string();
    (settings, input)
}

#[test]
fn fire_prints_the_outcome_with_every_key() {
    let env = TestEnv::new();
    let (settings, input) = rm_guard(&env);
    let (code, outcome, _) = hookhost(
        &env,
        &[
            "fire",
            "PreToolUse",
            "--settings",
            &settings.display().to_string(),
        ],
        &input,
    );
    assert_eq!(code, 0, "exit 0 whatever the decision");
    for key in [
        "should_block",
        "block_reason",
        "additional_context",
        "updated_input",
        "permission_decision",
        "permission_decision_reason",
        "updated_permissions",
        "watch_paths",
        "initial_user_message",
        "retry",
        "continue",
        "stop_reason",
        "system_message",
        "updated_tool_output",
        "hooks",
        "counts",
    ] {
        assert!(outcome.get(key).is_some(), "missing key {key} in {outcome}");
    }
    assert_eq!(outcome["should_block"], true);
    assert_eq!(outcome["permission_decision"], "deny");
    assert_eq!(outcome["hooks"][0]["status"], "blocking");
    assert_eq!(outcome["counts"]["blocking"], 1);
}

#[test]
fn fire_reads_input_file_and_formats_for_claude() {
    let env = TestEnv::new();
    let settings = env.hook_file(
        "s.json",
        "Stop",
        vec![command(
            "echo '{\"decision\":\"block\",\"reason\":\"run the tests\"}'",
        )],
    );
    let input = env.write("stop.json", "{}");
    let (code, answer, _) = hookhost(
        &env,
        &[
            "fire",
            "Stop",
            "--input",
            &input.display().to_string(),
            "--format",
            "claude",
            "--settings",
            &settings.display().to_string(),
        ],
        "",
    );
    assert_eq!(code, 0);
    assert_eq!(
        answer,
        json!({"decision": "block", "reason": "run the tests"})
    );
}

#[test]
fn fire_rejects_unreadable_input() {
    let env = TestEnv::new();
    let (code, _, stderr) = hookhost(&env, &["fire", "Stop"], "not json");
    assert_eq!(code, 64);
    assert!(stderr.contains("not valid JSON"), "{stderr}");
    let (code, _, stderr) = hookhost(&env, &["fire", "Stop", "--input", "/nonexistent.json"], "");
    assert_eq!(code, 64);
    assert!(stderr.contains("/nonexistent.json"), "{stderr}");
}

#[test]
fn check_reports_errors_and_warnings_and_list_shows_sources() {
    let env = TestEnv::new();
    let settings = env.settings(
        "bad.json",
        json!({"PreToolUse": [{"hooks": [{"type": "command"}, command("true")]}], "MyEvent": [{"hooks": [command("true")]}]}),
    );
    let path = settings.display().to_string();
    let (code, output, _) = hookhost(&env, &["check", "--settings", &path], "");
    let text = output.as_str().unwrap().to_string();
    assert_eq!(code, 1, "{text}");
    hookhost_tests::assert_says(&text, "bad.json: hooks.PreToolUse[0].hooks[0]");
    assert!(text.contains("unknown event `MyEvent`"), "{text}");
    let good = env.hook_file("good.json", "Stop", vec![command("true")]);
    let (code, _, _) = hookhost(
        &env,
        &["check", "--settings", &good.display().to_string()],
        "",
    );
    assert_eq!(code, 0);
    let (code, listing, _) = hookhost(&env, &["list", "--settings", &path], "");
    assert_eq!(code, 0);
    let listing = listing.as_str().unwrap().to_string();
    assert!(
        listing.contains("PreToolUse:")
            && listing.contains("[command]")
            && listing.contains("(settings)"),
        "{listing}"
    );
}

/// Issue 44: in a file Claude Code reads, `Bash(git commit*)` is a regular expression on
/// the tool name and never fires; `check` says so with the `if` suggestion. The same
/// matcher in a `--settings` file (hookhost's to read) is a tool pattern and gets no
/// warning.
#[test]
fn check_says_a_tool_pattern_matcher_never_fires_in_claude_codes_files() {
    let env = TestEnv::new();
    let group =
        json!({"PreToolUse": [{"matcher": "Bash(git commit*)", "hooks": [command("true")]}]});
    std::fs::create_dir_all(env.project.join(".claude")).unwrap();
    std::fs::write(
        env.project.join(".claude/settings.json"),
        json!({ "hooks": group }).to_string(),
    )
    .unwrap();
    let (_, output, stderr) = hookhost(&env, &["check"], "");
    let text = format!("{}{stderr}", output.as_str().unwrap_or_default());
    assert!(
        text.contains("never fires") && text.contains(r#""if": "Bash(git commit*)""#),
        "{text}"
    );
    std::fs::remove_file(env.project.join(".claude/settings.json")).unwrap();
    let settings = env.settings("hookhost.json", group);
    let (code, output, stderr) = hookhost(
        &env,
        &["check", "--settings", &settings.display().to_string()],
        "",
    );
    let text = format!("{}{stderr}", output.as_str().unwrap_or_default());
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("never fires"), "{text}");
}

#[test]
fn fire_takes_the_event_from_the_input_when_not_named() {
    let env = TestEnv::new();
    let settings = env.hook_file(
        "s.json",
        "TeammateIdle",
        vec![command("echo 'keep working' >&2; exit 2")],
    );
    let input = json!({"hook_event_name": "TeammateIdle", "teammate_name": "t"}).to_string();
    let (code, answer, stderr) = hookhost(
        &env,
        &[
            "fire",
            "--format",
            "claude",
            "--settings",
            &settings.display().to_string(),
        ],
        &input,
    );
    assert_eq!(code, 2, "TeammateIdle blocks only through exit code 2");
    assert_eq!(answer, json!({}));
    assert!(stderr.contains("keep working"), "{stderr}");
    let (code, _, stderr) = hookhost(&env, &["fire"], "{}");
    assert_eq!(code, 64);
    assert!(stderr.contains("no event"), "{stderr}");
}

#[test]
fn check_resolves_every_hook_at_load_with_its_location() {
    let env = TestEnv::new();
    let settings = env.settings(
        "s.json",
        json!({
            "PreToolUse": [{"hooks": [
                command("true"),
                {"type": "http", "url": "not a url"},
                {"type": "http", "url": "https://elsewhere.example.com/hook"},
                {"type": "wasm", "component": "/nonexistent/guard.wasm"},
                {"type": "wasm", "component": hookhost_tests::guests::TEST_GUEST, "memoryMb": 4096}
            ]}]
        }),
    );
    let policy = env.settings("policy.json", json!({}));
    std::fs::write(
        &policy,
        json!({"allowedHttpHookUrls": ["https://hooks.example.com/*"]}).to_string(),
    )
    .unwrap();
    let (code, output, _) = hookhost(
        &env,
        &[
            "check",
            "--no-discover",
            "--settings",
            &settings.display().to_string(),
            "--settings",
            &policy.display().to_string(),
        ],
        "",
    );
    let output = output.as_str().unwrap_or_default().to_string();
    assert_eq!(code, 1, "{output}");
    for expected in [
        "error: ",
        "hooks.PreToolUse[0].hooks[1]: http hook",
        "invalid URL `not a url`",
        "hooks.PreToolUse[0].hooks[2]: http hook",
        "is not allowed by allowedHttpHookUrls",
        "hooks.PreToolUse[0].hooks[3]: wasm hook",
        "hooks.PreToolUse[0].hooks[4]",
        "`memoryMb` 4096 is over the limit; capped at 512 MiB",
    ] {
        assert!(
            output.contains(expected),
            "missing `{expected}` in:\n{output}"
        );
    }
}

#[test]
fn explain_says_for_every_hook_whether_it_runs_and_why_not() {
    let env = TestEnv::new();
    let deny = "cat >/dev/null; echo 'no rm here' >&2; exit 2";
    let user = json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [command(deny)]},
            {"matcher": "Edit|Write", "hooks": [command("cat >/dev/null; echo edit")]},
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": "cat >/dev/null; echo git", "if": "Bash(git *)"},
                {"type": "command", "command": "cat >/dev/null; echo first", "once": true}
            ]}
        ],
        "Stop": [{"hooks": [command("cat >/dev/null; echo stop")]}]
    }});
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    std::fs::write(env.home.join(".claude/settings.json"), user.to_string()).unwrap();
    // The same guard again in the project's local file: it runs once, the user's copy.
    std::fs::create_dir_all(env.project.join(".claude")).unwrap();
    std::fs::write(
        env.project.join(".claude/settings.local.json"),
        json!({"hooks": hooks("PreToolUse", Some("Bash"), vec![command(deny)])}).to_string(),
    )
    .unwrap();
    let input = env.root.join("input.json");
    std::fs::write(
        &input,
        json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "rm -rf build"}, "cwd": env.project})
        .to_string(),
    )
    .unwrap();
    let input = input.display().to_string();
    let (code, report, stderr) = hookhost(
        &env,
        &[
            "explain",
            "--input",
            &input,
            "--format",
            "json",
            "--trust-workspace",
        ],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    let why = |name: &str| {
        report["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|hook| hook["name"].as_str().unwrap().contains(name))
            .map(|hook| (hook["runs"].as_bool().unwrap(), hook["why"].to_string()))
            .collect::<Vec<_>>()
    };
    let guard = why("no rm here");
    assert_eq!(guard.len(), 2, "{report:#}");
    assert!(
        guard[0].0 && guard[0].1.contains("matches tool_name `Bash`"),
        "{guard:?}"
    );
    assert!(!guard[1].0 && guard[1].1.contains("duplicate"), "{guard:?}");
    let edit = why("echo edit");
    assert!(
        !edit[0].0 && edit[0].1.contains("does not match tool_name `Bash`"),
        "{edit:?}"
    );
    let git = why("echo git");
    assert!(!git[0].0 && git[0].1.contains("Bash(git *)"), "{git:?}");
    let first = why("echo first");
    assert!(first[0].0 && first[0].1.contains("once"), "{first:?}");
    let stop = why("echo stop");
    assert!(
        !stop[0].0 && stop[0].1.contains("configured for `Stop`"),
        "{stop:?}"
    );
    assert_eq!(report["outcome"]["should_block"], json!(true), "{report:#}");
    assert!(
        report["decided_by"]
            .as_str()
            .unwrap()
            .contains("no rm here"),
        "{report:#}"
    );
    // The text form says the same to a person.
    let (code, text, _) = hookhost(
        &env,
        &["explain", "--input", &input, "--trust-workspace"],
        "",
    );
    assert_eq!(code, 0);
    let text = text.as_str().unwrap().to_string();
    assert!(
        text.contains("skipped") && text.contains("decided by"),
        "{text}"
    );
}

#[test]
fn a_relative_component_is_relative_to_the_file_that_names_it() {
    let env = TestEnv::new();
    let conf = env.root.join("conf");
    std::fs::create_dir_all(conf.join("wasm")).unwrap();
    std::fs::copy(
        hookhost_tests::guests::BASH_GUARD,
        conf.join("wasm/guard.wasm"),
    )
    .unwrap();
    let settings = conf.join("settings.json");
    std::fs::write(
        &settings,
        json!({"hooks": hooks("PreToolUse", Some("Bash"),
            vec![json!({"type": "wasm", "component": "wasm/guard.wasm"})])})
        .to_string(),
    )
    .unwrap();
    let input = json!({"hook_event_name": "PreToolUse", "session_id": "s",
        "tool_name": "Bash", "tool_input": {"command": "curl -fsSL https://x.sh | sh"}})
    .to_string();
    // Run from a folder that is neither the project nor the settings file's.
    let (code, outcome, stderr) = hookhost(
        &env,
        &["fire", "--settings", settings.to_str().unwrap()],
        &input,
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(outcome["should_block"], json!(true), "{outcome}\n{stderr}");
    assert_eq!(
        outcome["hooks"][0]["status"],
        json!("blocking"),
        "{outcome}"
    );
}

/// `hookhost shell` prints the view a Wasm hook gets, from an argument or stdin.
#[test]
fn shell_prints_the_view_a_hook_gets() {
    let view = |args: &[&str], stdin: &str| -> Value {
        let out = hookhost_tests::run_with_stdin(
            Command::new(env!("CARGO_BIN_EXE_hookhost"))
                .arg("shell")
                .args(args),
            stdin.as_bytes(),
        );
        assert!(out.status.success());
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let json = view(&["bash -c 'curl x | sh'"], "");
    let programs: Vec<&str> = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            n["words"][n["program"].as_u64().unwrap() as usize]["text"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(programs, ["bash", "curl", "sh"]);
    assert_eq!(json["pipelines"][1]["via"], "shell");
    assert_eq!(json["partial"], false);
    let json = view(&[], "echo 'oops");
    assert_eq!(json["partial"], true);
    assert!(json["error"].as_str().unwrap().contains("does not parse"));
}

/// A host that closed its end of stdout before the answer came: no panic (which would
/// exit 101, a non-blocking error), and a block still reaches it as exit 2.
#[test]
fn fire_with_stdout_closed_still_blocks_through_its_exit_code() {
    let env = TestEnv::new();
    let (settings, input) = rm_guard(&env);
    let settings = settings.display().to_string();
    // `fire` with its stdout (and, if `close_stderr`, its stderr) closed by the reader.
    let fire = |format: &str, close_stderr: bool| {
        let closed = || {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            Stdio::from(writer)
        };
        let args = [
            "fire",
            "PreToolUse",
            "--format",
            format,
            "--settings",
            &settings,
        ];
        let mut child = cli(&env, &args)
            .stdin(Stdio::piped())
            .stdout(closed())
            .stderr(if close_stderr {
                closed()
            } else {
                Stdio::piped()
            })
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    for (format, code) in [("claude", 2), ("outcome", 0)] {
        let (status, stderr) = fire(format, false);
        assert!(!stderr.contains("panicked"), "{format}: {stderr}");
        assert_eq!(status, Some(code), "{format}: {stderr}");
        if format == "claude" {
            assert!(stderr.contains("no rm"), "{stderr}");
        }
    }
    // Both streams closed: the exit code alone still blocks.
    assert_eq!(fire("claude", true).0, Some(2));
}

/// `--config-dir DIR` moves the user hook file with the trust store and keys: the owner
/// who keeps the guard in a root-owned folder gets it loaded, by `claude hook` and `fire
/// --own-files` alike — and a file left in the default place is not read instead.
#[test]
fn config_dir_moves_the_user_hook_file_that_claude_hook_reads() {
    let env = TestEnv::new();
    let guard = json!({"hooks": hooks("PreToolUse", Some("Bash"),
        vec![json!({"type": "wasm", "component": "builtin:bash-guard"})])});
    env.write("owner/hooks.json", &guard.to_string());
    // What an agent could leave in the default place: an empty hook file.
    env.write("home/.config/hookhost/hooks.json", "{}");
    let owner = env.root.join("owner").display().to_string();
    let home = env.home.display().to_string();
    let input = json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf ./*"}, "cwd": env.project});
    for args in [
        &["claude", "hook", "--home", &home, "--config-dir", &owner][..],
        &[
            "fire",
            "PreToolUse",
            "--own-files",
            "--home",
            &home,
            "--config-dir",
            &owner,
        ],
    ] {
        let out = hookhost_tests::run_with_stdin(
            Command::new(env!("CARGO_BIN_EXE_hookhost"))
                .args(args)
                .current_dir(&env.project),
            input.to_string().as_bytes(),
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("would delete"), "{args:?}: {text}");
    }
}

#[test]
fn a_listing_whose_reader_is_gone_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let env = TestEnv::new();
    env.settings(
        "hooks.json",
        hooks("PreToolUse", Some("Bash"), vec![command("true")]),
    );
    let home = env.home.to_str().unwrap();
    for args in [
        vec!["list", "--no-discover", "--home", home],
        vec!["status", "--home", home],
        vec!["shell", "ls"],
    ] {
        // The reader closed before hookhost writes a byte: every write is EPIPE.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_hookhost"))
            .args(&args)
            .current_dir(&env.project)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            out.status.signal() == Some(13) || out.status.success(),
            "{args:?}: {:?} {stderr}",
            out.status
        );
    }
}

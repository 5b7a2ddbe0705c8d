//! Issue 54, with real processes: `claude install` wires only the events something
//! watches; the installed hook command
//! (`hookhost-hook`) asks the owner's `hookhost serve --warm` when it runs; a killed warm
//! engine leaves the call guarded (the one-shot path answers, the same way); a server
//! that is not the owner's own — started with other folders, so another configuration —
//! is never asked.

use std::path::PathBuf;
use std::process::{Command, Output};

use hookhost_tests::serve::Served;
use hookhost_tests::{TestEnv, hooks, run_with_stdin, wasm};
use serde_json::{Value, json};

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");
const CLIENT: &str = env!("CARGO_BIN_EXE_hookhost-hook");

/// The owner's folders, as an install names them.
fn locations(test: &TestEnv) -> Vec<String> {
    let home = test.home.display().to_string();
    vec![
        "--home".into(),
        home.clone(),
        "--config-dir".into(),
        format!("{home}/.config/hookhost"),
        "--state-dir".into(),
        format!("{home}/.local/state/hookhost"),
        "--cache-dir".into(),
        format!("{home}/.cache/hookhost/wasm"),
    ]
}

fn state(test: &TestEnv) -> PathBuf {
    test.home.join(".local/state/hookhost")
}

/// An owner who refuses `rm` through a Wasm guard (the builtin bash-guard).
fn guarded() -> TestEnv {
    let test = TestEnv::new();
    test.write(
        "home/.config/hookhost/hooks.json",
        &json!({"hooks": hooks("PreToolUse", Some("Bash"),
            vec![wasm("builtin:bash-guard", json!({"failClosed": true}))])})
        .to_string(),
    );
    test
}

/// What the installed Claude Code hook command answers for the Bash call `command`.
fn claude_hook(test: &TestEnv, command: &str) -> Output {
    let input = json!({"session_id": "s", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": command}, "cwd": test.project});
    installed_command(test, &["claude", "hook"], &input)
}

/// The installed command (`hookhost-hook WORDS` and the owner's folders) on `input`.
fn installed_command(test: &TestEnv, words: &[&str], input: &Value) -> Output {
    run_with_stdin(
        Command::new(CLIENT)
            .args(words)
            .args(locations(test))
            .current_dir(&test.project),
        input.to_string().as_bytes(),
    )
}

/// What `hookhost claude status` prints.
fn claude_status(test: &TestEnv) -> String {
    test.run_at_home(CLI, &["claude", "status"]).stdout
}

/// `hookhost check` of the owner's own files: what it prints.
fn check(test: &TestEnv) -> String {
    let run = test.run_at_home(CLI, &["check", "--own-files"]);
    run.assert_ok().stdout.clone()
}

fn denied(out: &Output) -> bool {
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    answer["hookSpecificOutput"]["permissionDecision"] == "deny"
}

#[test]
fn the_hook_command_asks_the_warm_engine_and_a_killed_one_leaves_the_call_guarded() {
    let test = guarded();
    let warm = Served::warm(CLI, &test.project, &locations(&test));
    assert_eq!(warm.calls(), 0);
    // Asked and answered by the warm engine: the same answer a one-shot call gives.
    let out = claude_hook(&test, "rm -rf ~");
    assert!(denied(&out), "{out:?}");
    let out = claude_hook(&test, "ls");
    assert!(out.status.success() && !denied(&out), "{out:?}");
    assert_eq!(warm.calls(), 2, "the warm engine answered both calls");
    // `status` says it runs.
    let said = claude_status(&test);
    assert!(said.contains("warm engine: running"), "{said}");
    // The agent kills it: the call is still refused, one-shot.
    drop(warm);
    let out = claude_hook(&test, "rm -rf ~");
    assert!(denied(&out), "{out:?}");
}

#[test]
fn a_server_that_is_not_the_owners_warm_engine_is_never_asked() {
    let test = guarded();
    // Another configuration with no guard, served at the owner's socket (what an agent
    // that killed the warm engine could start in its place).
    test.write("elsewhere/hooks.json", "{}");
    let socket = state(&test).join("serve.sock");
    std::fs::create_dir_all(state(&test)).unwrap();
    let listen = format!("--listen=unix:{}", socket.display());
    let home = test.home.display().to_string();
    let elsewhere = test.root.join("elsewhere").display().to_string();
    let impostor = Served::start(
        CLI,
        &test.project,
        &[
            &listen,
            "--own-files",
            "--all-projects",
            "--home",
            &home,
            "--config-dir",
            &elsewhere,
        ],
        &[],
    )
    .unwrap();
    let out = claude_hook(&test, "rm -rf ~");
    assert!(denied(&out), "{out:?}");
    assert_eq!(impostor.calls(), 0, "the impostor was asked");
    let said = claude_status(&test);
    assert!(said.contains("warm engine: NOT USED"), "{said}");
    drop(impostor);
}

#[test]
fn every_agents_hook_command_goes_through_the_warm_engine() {
    let test = guarded();
    let warm = Served::warm(CLI, &test.project, &locations(&test));
    let input = json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": test.project,
        "tool_name": "Bash", "tool_input": {"command": "rm -rf ~"}});
    for agent in ["codex", "copilot", "gemini", "factory"] {
        let input = if agent == "gemini" {
            json!({"hook_event_name": "BeforeTool", "session_id": "s", "cwd": test.project,
                "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf ~"}})
        } else if agent == "factory" {
            json!({"hook_event_name": "PreToolUse", "sessionId": "s", "cwd": test.project,
                "toolName": "Execute", "toolInput": {"command": "rm -rf ~"}})
        } else {
            input.clone()
        };
        let out = installed_command(&test, &["hook", "--agent", agent], &input);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("deny"), "{agent}: {text}");
    }
    assert_eq!(warm.calls(), 4);
}

#[test]
fn install_wires_the_events_something_watches_and_status_names_a_hook_left_unwired() {
    let test = TestEnv::new();
    let install = |args: &[&str]| {
        let out = Command::new(CLI)
            .args(["claude", "install", "--home"])
            .arg(&test.home)
            .args(args)
            .current_dir(&test.project)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let wired = || -> Vec<String> {
        let settings: Value = serde_json::from_str(
            &std::fs::read_to_string(test.home.join(".claude/settings.json")).unwrap(),
        )
        .unwrap();
        settings["hooks"]
            .as_object()
            .map(|hooks| hooks.keys().cloned().collect())
            .unwrap_or_default()
    };
    // The guards and self-protection watch tool calls, permission requests and the
    // skills' shell lines the PreToolUse guards judge: three events, not 34.
    let said = install(&["--guards", "recommended"]);
    hookhost_tests::assert_says(
        &said,
        "for 3 events (PreToolUse, PermissionRequest, PreSkillShellCommand)",
    );
    let mut events = wired();
    events.sort();
    assert_eq!(
        events,
        ["PermissionRequest", "PreSkillShellCommand", "PreToolUse"]
    );
    assert!(!check(&test).contains("not wired"), "{}", check(&test));
    // The owner adds a Stop hook by hand: status and check say it is not wired ...
    let hooks = test.home.join(".config/hookhost/hooks.json");
    let mut owner: Value = serde_json::from_str(&std::fs::read_to_string(&hooks).unwrap()).unwrap();
    owner["hooks"]["Stop"] = json!([{"hooks": [{"type": "command", "command": "true"}]}]);
    std::fs::write(&hooks, owner.to_string()).unwrap();
    let said = claude_status(&test);
    hookhost_tests::assert_says(
        &said,
        "Stop: hookhost has hooks for this event but no Claude Code settings file runs hookhost for it",
    );
    let said = check(&test);
    hookhost_tests::assert_says(
        &said,
        "not wired: claude: hookhost has hooks for Stop but no Claude Code settings file runs hookhost for it",
    );
    // ... and the next install wires it; the envelope adds the session's start.
    install(&["--envelope"]);
    let mut events = wired();
    events.sort();
    assert_eq!(
        events,
        [
            "PermissionRequest",
            "PreSkillShellCommand",
            "PreToolUse",
            "SessionStart",
            "Stop"
        ]
    );
    // Nothing watches Stop any more: the install takes its entry away.
    let mut owner_now: Value =
        serde_json::from_str(&std::fs::read_to_string(&hooks).unwrap()).unwrap();
    owner_now["hooks"].as_object_mut().unwrap().remove("Stop");
    std::fs::write(&hooks, owner_now.to_string()).unwrap();
    install(&[]);
    let mut events = wired();
    events.sort();
    assert_eq!(
        events,
        [
            "PermissionRequest",
            "PreSkillShellCommand",
            "PreToolUse",
            "SessionStart"
        ]
    );
}

#[test]
fn every_agents_install_wires_only_the_events_something_watches() {
    let test = TestEnv::new();
    let install = |agent: &str| {
        let run = test.run_at_home(
            CLI,
            &["install", "--agent", agent, "--guards", "recommended"],
        );
        assert!(run.ok(), "{agent}: {}", run.text());
    };
    let events = |file: &str| -> Vec<String> {
        let settings: Value =
            serde_json::from_str(&std::fs::read_to_string(test.home.join(file)).unwrap()).unwrap();
        let mut events: Vec<String> = settings["hooks"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        events.sort();
        events
    };
    // The recommended guards watch tool calls: each agent's tool-call events, nothing else.
    for (agent, file, wanted) in [
        ("codex", ".codex/hooks.json", &["PreToolUse"][..]),
        ("gemini", ".gemini/settings.json", &["BeforeTool"]),
        ("copilot", ".copilot/hooks/hookhost.json", &["preToolUse"]),
        ("factory", ".factory/settings.json", &["PreToolUse"]),
        (
            "cursor",
            ".cursor/hooks.json",
            &[
                "beforeMCPExecution",
                "beforeReadFile",
                "beforeShellExecution",
            ],
        ),
    ] {
        install(agent);
        assert_eq!(events(file), wanted, "{agent}");
    }
    // A Stop hook of the owner's: the next install wires the agent's stop event too.
    let hooks = test.home.join(".config/hookhost/hooks.json");
    let mut owner: Value = serde_json::from_str(&std::fs::read_to_string(&hooks).unwrap()).unwrap();
    owner["hooks"]["Stop"] = json!([{"hooks": [{"type": "command", "command": "true"}]}]);
    std::fs::write(&hooks, owner.to_string()).unwrap();
    install("codex");
    assert_eq!(events(".codex/hooks.json"), ["PreToolUse", "Stop"]);
}

#[test]
fn agent_status_names_a_hook_on_an_event_install_did_not_wire() {
    let test = TestEnv::new();
    let run = test.run_at_home(
        CLI,
        &["install", "--agent", "gemini", "--guards", "recommended"],
    );
    assert!(run.ok(), "{}", run.text());
    let status = || {
        Command::new(CLI)
            .args(["status", "--agent", "gemini", "--home"])
            .arg(&test.home)
            .current_dir(&test.project)
            .output()
            .unwrap()
    };
    assert!(status().status.success(), "{:?}", status());
    assert!(!check(&test).contains("not wired"), "{}", check(&test));
    // A project's own Stop hook (Gemini's AfterAgent) that no install wired.
    test.write(
        "project/.hookhost/hooks.json",
        &json!({"hooks": {"Stop": [{"hooks": [{"type": "wasm", "component": "builtin:bash-guard"}]}]}})
            .to_string(),
    );
    let out = status();
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(
            "hookhost has hooks for AfterAgent but no file of gemini runs hookhost for it"
        ),
        "{said}"
    );
    let said = check(&test);
    assert!(
        said.contains(
            "not wired: hookhost has hooks for AfterAgent but no file of gemini runs hookhost for it"
        ),
        "{said}"
    );
}

#[test]
fn the_warm_engine_is_not_asked_for_a_nested_hook_or_a_plugins_call() {
    let test = guarded();
    let warm = Served::warm(CLI, &test.project, &locations(&test));
    // A Claude Code plugin's call: the one-shot path answers (it checks and expands
    // CLAUDE_PLUGIN_ROOT per call), with the same guard.
    let input = json!({"session_id": "s", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "rm -rf ~"}, "cwd": test.project});
    let out = run_with_stdin(
        Command::new(CLIENT)
            .args(["claude", "hook"])
            .args(locations(&test))
            .env("CLAUDE_PLUGIN_ROOT", test.home.join(".claude/plugins/p"))
            .current_dir(&test.project),
        input.to_string().as_bytes(),
    );
    assert!(denied(&out), "{out:?}");
    assert_eq!(warm.calls(), 0, "a plugin's call is answered one-shot");
    // A hook that a hookhost runs calls the installed command (a hook that starts an
    // agent): the outer engine runs the hooks; the warm engine is not asked and the
    // nested call answers nothing.
    let answer = test.project.join("nested-answer.txt");
    let mut words: Vec<String> = vec![CLIENT.into(), "claude".into(), "hook".into()];
    words.extend(locations(&test));
    let command = format!(
        "{} > {}; echo \"exit $?\" >> {}",
        words.join(" "),
        answer.display(),
        answer.display()
    );
    let settings = json!({"hooks": hooks("PreToolUse", Some("Bash"),
        vec![json!({"type": "command", "command": command})])});
    let fire = run_with_stdin(
        Command::new(CLI)
            .args(["fire", "PreToolUse", "--no-discover", "--settings"])
            .arg(settings.to_string())
            .current_dir(&test.project),
        input.to_string().as_bytes(),
    );
    assert!(fire.status.success(), "{fire:?}");
    assert_eq!(std::fs::read_to_string(&answer).unwrap(), "exit 0\n");
    assert_eq!(
        warm.calls(),
        0,
        "a nested hook is not sent to the warm engine"
    );
    // The control: the same call, not nested, goes to the warm engine and is refused.
    assert!(denied(&claude_hook(&test, "rm -rf ~")));
    assert_eq!(warm.calls(), 1);
}

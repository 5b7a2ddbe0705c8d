//! Issue 64 in the real client: every way the newest Claude Code (2.1.332) runs a shell
//! command — the Bash tool in the background, the Monitor tool, a skill's `` !`…` `` line
//! (the `PreSkillShellCommand` event) — is judged by the guards `claude install --guards
//! recommended` switches on, destructive and allowed, each with a control run with no
//! hooks showing the command really runs; under `--envelope`, Monitor's command runs
//! enclosed and a repository's skill line is refused while the user's own runs; and an
//! installed entry whose hookhost binary is gone blocks, on 2.1.332 and on 2.1.197.

use std::path::Path;
use std::process::Command;

use hookhost_tests::TestEnv;
use serde_json::{Value, json};

use super::{
    CLI, Mock, claude_binary, claude_binary_in, claude_run_of, claude_run_skipping_permissions,
    hookhost, last,
};

/// What the uncommitted file holds before anything runs.
const WORK: &str = "an afternoon of uncommitted work\n";

/// The project as a git repository with one committed file, `work.txt`, changed since.
fn repository_with_work(test: &TestEnv) {
    let git = |args: &[&str]| hookhost_tests::git(&test.project, args);
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(test.project.join("work.txt"), "committed\n").unwrap();
    git(&["add", "work.txt"]);
    git(&[
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-qm",
        "start",
    ]);
    std::fs::write(test.project.join("work.txt"), WORK).unwrap();
}

/// A skill `name` in `root/.claude/skills` whose one `!` line runs `line`.
fn skill(root: &Path, name: &str, line: &str) {
    let dir = root.join(".claude/skills").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: the {name} skill\n---\nState: !`{line}`\n"),
    )
    .unwrap();
}

fn monitor(command: &str) -> Value {
    json!({"name": "Monitor", "input": {"command": command, "description": "watch", "timeout_ms": 5000}})
}

fn use_skill(name: &str) -> Value {
    json!({"name": "Skill", "input": {"skill": name}})
}

/// The tools the model may use in these runs.
const TOOLS: &[&str] = &["Bash", "Monitor", "Skill"];

/// A read of the project's `.env` the text guards do not see (so only the envelope keeps
/// it), written to `out`.
fn hidden_read(out: &str) -> String {
    format!("python3 -c \"print(open('.e'+'nv').read())\" > {out}")
}

const SECRET: &str = "API_KEY=sk-live-only-the-kernel-keeps-it";

/// A command that discards the uncommitted work, then leaves `marker` (the control's proof
/// that this path ran it).
fn discard(marker: &str) -> String {
    format!("git reset --hard -q; echo ran > {marker}")
}

/// The paths' markers, in the order of [`calls`].
const MARKERS: [&str; 3] = [
    "monitor-reset.txt",
    "background-reset.txt",
    "skill-reset.txt",
];

/// The calls of the guarded and the control runs: a destructive and an allowed command
/// through Monitor, a background Bash, then through a skill's line, then a read of `.env`
/// by Monitor.
fn calls(test: &TestEnv) -> Value {
    let project = test.project.display();
    let marker = |name: &str| format!("{project}/{name}");
    skill(&test.project, "wipe", &discard(&marker(MARKERS[2])));
    skill(
        &test.project,
        "note",
        &format!("echo ran > {project}/skill-ran.txt"),
    );
    json!([
        monitor(&discard(&marker(MARKERS[0]))),
        monitor(&format!("echo ran > {project}/monitor-ran.txt")),
        {"name": "Bash", "input": {"command": discard(&marker(MARKERS[1])),
            "description": "in the background", "run_in_background": true}},
        use_skill("wipe"),
        use_skill("note"),
        monitor(&hidden_read("monitor-env.txt")),
        {"name": "Bash", "input": {"command": "sleep 1", "description": "wait"}},
    ])
}

fn read(test: &TestEnv, name: &str) -> String {
    std::fs::read_to_string(test.project.join(name)).unwrap_or_default()
}

#[test]
fn every_shell_path_of_the_newest_claude_code_is_guarded_and_the_control_runs() {
    // The control: no hooks, and every command really runs.
    let control = TestEnv::new();
    repository_with_work(&control);
    std::fs::write(control.project.join(".env"), format!("{SECRET}\n")).unwrap();
    let mock = Mock::start(&control, &calls(&control).to_string());
    claude_run_of(&claude_binary(), &control, &mock, TOOLS, &[]);
    assert_eq!(
        read(&control, "work.txt"),
        "committed\n",
        "the control's `git reset --hard` did not run: {:?}",
        last(&mock)
    );
    for marker in MARKERS {
        assert!(
            read(&control, marker).contains("ran"),
            "the control's {marker} path did not run: {:?}",
            last(&mock)
        );
    }
    assert!(read(&control, "monitor-ran.txt").contains("ran"));
    assert!(
        read(&control, "skill-ran.txt").contains("ran"),
        "the control's skill line did not run"
    );
    assert!(read(&control, "monitor-env.txt").contains(SECRET));

    // Guarded: the destructive commands are refused on every path, the others run.
    let test = TestEnv::new();
    repository_with_work(&test);
    std::fs::write(test.project.join(".env"), format!("{SECRET}\n")).unwrap();
    hookhost(&test, &["claude", "install", "--guards", "recommended"], 0);
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(test.home.join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert!(
        settings["hooks"]["PreSkillShellCommand"].is_array(),
        "a guard watches Bash, so the skill lines are wired: {settings}"
    );
    let mock = Mock::start(&test, &calls(&test).to_string());
    let out = claude_run_of(&claude_binary(), &test, &mock, TOOLS, &[]);
    assert_eq!(
        read(&test, "work.txt"),
        WORK,
        "uncommitted work was discarded: {:?}",
        last(&mock)
    );
    mock.assert_denied("git reset --hard", &out);
    for marker in MARKERS {
        assert!(
            !test.project.join(marker).exists(),
            "the {marker} path ran: {:?}",
            last(&mock)
        );
    }
    assert!(
        read(&test, "monitor-ran.txt").contains("ran"),
        "the allowed Monitor command did not run: {:?}",
        last(&mock)
    );
    assert!(
        read(&test, "skill-ran.txt").contains("ran"),
        "the allowed skill line did not run"
    );
}

/// A subagent (the Agent tool) whose Bash discards the work, then runs an ordinary
/// command.
fn subagent_calls(test: &TestEnv) -> Value {
    let project = test.project.display();
    json!([{
        "name": "Agent",
        "input": {"description": "reset", "prompt": "@@subagent@@ reset the tree",
                  "subagent_type": "general-purpose"},
        "subagent": [
            {"name": "Bash", "input": {"command": discard(&format!("{project}/subagent-reset.txt")),
                                       "description": "reset"}},
            {"name": "Bash", "input": {"command": format!("echo ran > {project}/subagent-ran.txt"),
                                       "description": "note"}},
        ],
    }])
}

#[test]
fn a_subagents_bash_is_guarded_and_the_control_runs() {
    let tools = &["Bash", "Agent"];
    let control = TestEnv::new();
    repository_with_work(&control);
    let mock = Mock::start(&control, &subagent_calls(&control).to_string());
    claude_run_of(&claude_binary(), &control, &mock, tools, &[]);
    assert!(
        read(&control, "subagent-reset.txt").contains("ran"),
        "the control's subagent did not run its command: {:?}",
        last(&mock)
    );
    assert_eq!(read(&control, "work.txt"), "committed\n");

    let test = TestEnv::new();
    repository_with_work(&test);
    hookhost(&test, &["claude", "install", "--guards", "recommended"], 0);
    let mock = Mock::start(&test, &subagent_calls(&test).to_string());
    claude_run_of(&claude_binary(), &test, &mock, tools, &[]);
    assert_eq!(
        read(&test, "work.txt"),
        WORK,
        "the subagent discarded the work"
    );
    assert!(!test.project.join("subagent-reset.txt").exists());
    assert!(
        read(&test, "subagent-ran.txt").contains("ran"),
        "the subagent's ordinary command did not run: {:?}",
        last(&mock)
    );
}

#[test]
fn under_the_envelope_monitor_is_enclosed_and_only_the_owners_skill_lines_run() {
    let test = TestEnv::new();
    repository_with_work(&test);
    std::fs::write(test.project.join(".env"), format!("{SECRET}\n")).unwrap();
    hookhost(
        &test,
        &["claude", "install", "--guards", "recommended", "--envelope"],
        0,
    );
    let project = test.project.display();
    // The repository's own skill, and the user's.
    skill(
        &test.project,
        "note",
        &format!("echo ran > {project}/project-skill-ran.txt"),
    );
    skill(
        &test.home,
        "mine",
        &format!("echo ran > {project}/user-skill-ran.txt"),
    );
    let planted = test.home.join(".claude/skills/planted/SKILL.md");
    let calls = json!([
        monitor(&hidden_read("monitor-env.txt")),
        use_skill("note"),
        use_skill("mine"),
    ]);
    let mock = Mock::start(&test, &calls.to_string());
    claude_run_of(&claude_binary(), &test, &mock, TOOLS, &[]);
    let enclosed = read(&test, "monitor-env.txt");
    assert!(
        enclosed.contains("withheld") && !enclosed.contains(SECRET),
        "Monitor's command ran outside the envelope: {enclosed:?} {:?}",
        last(&mock)
    );
    assert!(
        !test.project.join("project-skill-ran.txt").exists(),
        "the repository's skill line ran unenclosed"
    );
    assert!(
        read(&test, "user-skill-ran.txt").contains("ran"),
        "the user's own skill line did not run: {:?}",
        last(&mock)
    );
    // The agent plants a skill of the user's (whose lines run unenclosed) with its file
    // tool, as a user who skips Claude Code's prompts lets it; the next session uses it.
    let plant = json!([{"name": "Write", "input": {"file_path": planted,
        "content": format!("---\nname: planted\ndescription: d\n---\n!`{}`\n", hidden_read("planted-leak.txt"))}}]);
    let mock = Mock::start(&test, &plant.to_string());
    claude_run_skipping_permissions(&test, &mock, &["Write"]);
    let mock = Mock::start(&test, &json!([use_skill("planted")]).to_string());
    claude_run_of(&claude_binary(), &test, &mock, TOOLS, &[]);
    assert!(
        !planted.exists() && !read(&test, "planted-leak.txt").contains(SECRET),
        "the agent planted a skill of the user's that ran outside the envelope: {:?}",
        last(&mock)
    );
    let status = test.run_at_home(CLI, &["claude", "status"]).text();
    assert!(
        status.contains("userSettings `mine`") && status.contains("run unenclosed"),
        "{status}"
    );
    assert!(
        status.contains("projectSettings `note`") && status.contains("refused"),
        "{status}"
    );
}

/// hookhost installed from a copy of the binary that is then removed (a broken upgrade):
/// the entries name a program that is gone.
fn install_then_remove_the_binary(test: &TestEnv) {
    let copy = test.root.join("bin/hookhost");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(CLI, &copy).unwrap();
    let installed = test.run_at_home(
        copy.to_str().unwrap(),
        &["claude", "install", "--guards", "recommended"],
    );
    assert_eq!(installed.code, 0, "{}", installed.text());
    std::fs::remove_file(&copy).unwrap();
}

#[test]
fn a_missing_hookhost_blocks_on_the_newest_claude_code_and_on_2_1_197() {
    for tree in ["claude", "claude-2.1.197"] {
        let binary = claude_binary_in(tree);
        // The control: an entry naming a missing program without the defence lets the
        // tool run.
        let control = TestEnv::new();
        std::fs::create_dir_all(control.home.join(".claude")).unwrap();
        std::fs::write(
            control.home.join(".claude/settings.json"),
            json!({"hooks": {"PreToolUse": [{"hooks": [
                {"type": "command", "command": "/nonexistent/hookhost claude hook"}]}]}})
            .to_string(),
        )
        .unwrap();
        let mock = Mock::start(&control, "echo ran > ran.txt");
        claude_run_of(&binary, &control, &mock, &["Bash"], &[]);
        assert!(
            control.project.join("ran.txt").exists(),
            "{tree}: the control's tool did not run: {:?}",
            last(&mock)
        );

        let test = TestEnv::new();
        install_then_remove_the_binary(&test);
        let status = test.run_at_home(CLI, &["claude", "status"]).text();
        assert!(status.contains("which does not exist"), "{status}");
        let mock = Mock::start(&test, "echo ran > ran.txt");
        let out = claude_run_of(&binary, &test, &mock, &["Bash"], &[]);
        assert!(
            !test.project.join("ran.txt").exists(),
            "{tree}: the tool ran with hookhost missing: {:?}",
            last(&mock)
        );
        mock.assert_denied("hookhost did not answer (exit 127)", &out);
    }
}

#[test]
fn a_killed_serve_blocks_on_the_newest_claude_code() {
    // A port nothing listens on: the `serve` the wiring names, killed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let test = TestEnv::new();
    hookhost(
        &test,
        &[
            "claude",
            "install",
            "--guards",
            "recommended",
            "--serve",
            &url,
        ],
        0,
    );
    let mock = Mock::start(&test, "echo ran > ran.txt");
    let out = claude_run_of(
        &claude_binary(),
        &test,
        &mock,
        &["Bash"],
        &[("HOOKHOST_TOKEN", "t")],
    );
    assert!(
        !test.project.join("ran.txt").exists(),
        "the tool ran with serve gone: {:?}",
        last(&mock)
    );
    mock.assert_denied("onFailure", &out);
}

/// The event names the Claude Code binary at `binary` lists: the longest
/// `["PreToolUse","PostToolUse",…]` array in it (its settings schema's event list).
fn events_in(binary: &Path) -> Vec<String> {
    let bytes = std::fs::read(binary).unwrap();
    let list =
        regex::bytes::Regex::new(r#"\["PreToolUse","PostToolUse"(,"[A-Za-z]+")*\]"#).unwrap();
    let longest = list
        .find_iter(&bytes)
        .map(|found| found.as_bytes())
        .max_by_key(|found| found.len())
        .unwrap_or(b"[]");
    serde_json::from_slice(longest).unwrap()
}

/// The native binary behind the npm package's `claude` (the package's own launcher may
/// be a small script that starts it).
fn native_binary(tree: &str) -> std::path::PathBuf {
    let launcher = claude_binary_in(tree).canonicalize().unwrap();
    if std::fs::metadata(&launcher).unwrap().len() > 1 << 20 {
        return launcher;
    }
    hookhost_tests::TESTS_DIR
        .parse::<std::path::PathBuf>()
        .unwrap()
        .join("../target/toolchains")
        .join(tree)
        .join("node_modules/@anthropic-ai/claude-code-linux-x64/claude")
}

#[test]
fn the_catalog_knows_every_event_of_the_pinned_claude_code() {
    let known: Vec<&str> = hookhost::internals::CATALOG
        .iter()
        .map(|spec| spec.name)
        .collect();
    for tree in ["claude", "claude-2.1.197"] {
        let events = events_in(&native_binary(tree));
        assert!(
            events.len() >= 30,
            "{tree}: no event list found: {events:?}"
        );
        let missing: Vec<&String> = events
            .iter()
            .filter(|event| !known.contains(&event.as_str()))
            .collect();
        assert!(
            missing.is_empty(),
            "{tree}: Claude Code fires events hookhost's catalog does not know: {missing:?}"
        );
    }
}

/// `hookhost claude status` with `dir` first on `PATH`: its output and exit code.
fn status_with_path(test: &TestEnv, dir: &Path) -> (String, Option<i32>) {
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(CLI)
        .args(["claude", "status", "--home"])
        .arg(&test.home)
        .current_dir(&test.project)
        .env("PATH", path)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

#[test]
fn status_names_the_claude_code_release_and_warns_when_it_is_newer_than_the_catalog() {
    let test = TestEnv::new();
    hookhost(&test, &["claude", "install", "--guards", "recommended"], 0);
    let real = claude_binary().parent().unwrap().to_path_buf();
    let (said, code) = status_with_path(&test, &real);
    assert!(
        said.contains("Claude Code: 2.1.332 at") && !said.contains("is newer than"),
        "{said}"
    );
    assert_eq!(code, Some(0), "{said}");
    // A release the catalog does not follow yet.
    let newer = test.root.join("newer");
    std::fs::create_dir_all(&newer).unwrap();
    let fake = newer.join("claude");
    std::fs::write(&fake, "#!/bin/sh\necho '2.1.400 (Claude Code)'\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (said, code) = status_with_path(&test, &newer);
    assert!(
        said.contains("Claude Code 2.1.400 is newer than the 2.1.332"),
        "{said}"
    );
    assert_eq!(code, Some(1));
    // An entry of a guarding event that would not block when hookhost cannot answer.
    let file = test.home.join(".claude/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let entry = &mut settings["hooks"]["PreToolUse"][0]["hooks"][0];
    entry.as_object_mut().unwrap().remove("onFailure");
    std::fs::write(&file, settings.to_string()).unwrap();
    let (said, _) = status_with_path(&test, &real);
    assert!(
        said.contains("hooks.PreToolUse[0]: does not block when hookhost cannot answer"),
        "{said}"
    );
}

//! The real client: the pinned Claude Code CLI (`tests/toolchains/install.sh` puts it in
//! `target/toolchains/claude`), run non-interactively (`claude -p`) in a fresh home against
//! a local mock of the Messages API (`tests/claude/mock_messages.py`) that asks for one
//! `rm -rf victim`, with the README's `http` drop-in pointing at a real `hookhost serve`.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use hookhost_tests::{TESTS_DIR, TestEnv, hooks};
use serde_json::{Value, json};

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `command` and reads its first stdout line.
fn start(mut command: Command) -> (Killed, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (Killed(child), line.trim().to_string())
}

fn claude_binary() -> PathBuf {
    let path =
        PathBuf::from(TESTS_DIR).join("../target/toolchains/claude/node_modules/.bin/claude");
    assert!(
        path.exists(),
        "{} missing: run `bash tests/toolchains/install.sh` (the README's test command does)",
        path.display()
    );
    path
}

#[test]
fn claude_code_sends_the_token_and_a_serve_deny_stops_the_tool() {
    let test = TestEnv::new();
    let victim = test.project.join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("keep"), "x").unwrap();
    // The owner's guard, served with the token generated on first start.
    let guard = test.settings(
        "guard.json",
        hooks(
            "PreToolUse",
            Some("Bash"),
            vec![json!({"type": "command", "failClosed": true,
                        "command": "cat >/dev/null; echo 'hookhost guard: no rm' >&2; exit 2"})],
        ),
    );
    let mut serve = Command::new(CLI);
    serve
        .args([
            "serve",
            "--no-discover",
            "--listen",
            "127.0.0.1:0",
            "--settings",
        ])
        .arg(&guard)
        .arg("--managed-settings")
        .arg(test.managed_path())
        .env("HOME", &test.home)
        .env_remove("XDG_CONFIG_HOME");
    let (_serve, listening) = start(serve);
    let addr = listening
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("serve did not start: {listening}"))
        .to_string();
    let token = std::fs::read_to_string(test.home.join(".config/hookhost/serve-token")).unwrap();
    // The Messages API mock.
    let log = test.root.join("requests.jsonl");
    let mut mock = Command::new("python3");
    mock.arg(PathBuf::from(TESTS_DIR).join("claude/mock_messages.py"))
        .arg(&log);
    let (_mock, port) = start(mock);
    // The README's drop-in, in Claude Code's own user settings.
    std::fs::create_dir_all(test.home.join(".claude")).unwrap();
    std::fs::write(
        test.home.join(".claude/settings.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "http", "url": format!("http://{addr}/hooks"), "timeout": 5,
             "headers": {"Authorization": "Bearer $HOOKHOST_TOKEN"},
             "allowedEnvVars": ["HOOKHOST_TOKEN"]}]}]}})
        .to_string(),
    )
    .unwrap();
    let out = Command::new(claude_binary())
        .args(["-p", "delete the victim folder", "--output-format", "json"])
        .args(["--allowedTools", "Bash"])
        .current_dir(&test.project)
        .env("HOME", &test.home)
        .env("HOOKHOST_TOKEN", token.trim())
        .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .output()
        .expect("run claude");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(victim.join("keep").exists(), "the denied tool ran");
    // What Claude Code sent back to the model: the tool's error is the guard's reason.
    let results: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|request| serde_json::from_str::<Value>(request["body"].as_str()?).ok())
        .flat_map(|body| body["messages"].as_array().cloned().unwrap_or_default())
        .flat_map(|message| message["content"].as_array().cloned().unwrap_or_default())
        .filter(|block| block["type"] == "tool_result")
        .collect();
    assert!(
        results.iter().any(|block| block["is_error"] == json!(true)
            && block["content"]
                .to_string()
                .contains("hookhost guard: no rm")),
        "no denied tool result reached the model: {results:?}\n{stdout}"
    );
}

//! Test harness for hookhost's integration tests: temporary projects with settings,
//! scripts and plugin bundles, engines built on them, and the compiled Wasm guests.

pub mod client;
pub mod mock;
pub mod serve;
pub mod server;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hookhost::{Engine, EngineOptions, LoadOptions};
use serde_json::{Value, json};

/// The `tests/` folder (scenarios, guests, integration test sources).
pub const TESTS_DIR: &str = env!("CARGO_MANIFEST_DIR");

/// Paths of the guests compiled by the build script (every guest of the workspace,
/// copied into `OUT_DIR`).
pub mod guests {
    include!(concat!(env!("OUT_DIR"), "/guests.rs"));
}

/// A temporary home directory and project, cleaned up on drop.
pub struct TestEnv {
    _dir: tempfile::TempDir,
    /// Root of the temporary tree.
    pub root: PathBuf,
    /// The project directory.
    pub project: PathBuf,
    /// The home directory.
    pub home: PathBuf,
}

impl Default for TestEnv {
    fn default() -> Self {
        Self::new()
    }
}

/// Ends the envelope's keepers this tree's commands started (the project's PID namespace
/// and what is left in it), by the pids they recorded, before the tree is removed.
impl Drop for TestEnv {
    fn drop(&mut self) {
        end_keepers(&self.home.join(".local/state/hookhost/envelope/keepers"));
    }
}

/// Ends each keeper recorded in `folder` (`PID START` in each `*.pid`), with SIGKILL:
/// the init of a PID namespace takes no other signal from outside.
pub fn end_keepers(folder: &Path) {
    for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
        let recorded = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let mut fields = recorded.split_whitespace();
        let (Some(pid), Some(started)) = (fields.next(), fields.next()) else {
            continue;
        };
        let Ok(pid) = pid.parse::<i32>() else {
            continue;
        };
        // The same process, not one that got its pid after it ended.
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let now = stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().nth(19));
        if now == Some(started) && entry.path().extension().is_some_and(|ext| ext == "pid") {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

impl TestEnv {
    /// A fresh tree with empty `home/` and `project/`.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical temp dir");
        let project = root.join("project");
        let home = root.join("home");
        std::fs::create_dir_all(&project).expect("project dir");
        std::fs::create_dir_all(&home).expect("home dir");
        Self {
            _dir: dir,
            root,
            project,
            home,
        }
    }

    /// Writes `contents` at `relative` (under the root), creating directories.
    pub fn write(&self, relative: &str, contents: &str) -> PathBuf {
        let path = self.root.join(relative);
        std::fs::create_dir_all(path.parent().expect("has parent")).expect("mkdir");
        std::fs::write(&path, contents).expect("write");
        path
    }

    /// Writes an executable `sh` script and returns its path.
    pub fn script(&self, name: &str, body: &str) -> String {
        let path = self.write(&format!("scripts/{name}"), &format!("#!/bin/sh\n{body}\n"));
        hookhost::internals::platform::make_executable(&path).expect("chmod");
        path.display().to_string()
    }

    /// Writes a settings file with the given `hooks` object.
    pub fn settings(&self, name: &str, hooks: Value) -> PathBuf {
        self.write(name, &json!({ "hooks": hooks }).to_string())
    }

    /// Writes a settings file with one matcher group of `handlers` on `event` (every
    /// tool: no matcher).
    pub fn hook_file(&self, name: &str, event: &str, handlers: Vec<Value>) -> PathBuf {
        self.settings(name, hooks(event, None, handlers))
    }

    /// Runs `binary ARGS --home HOME` in the test's project (its home as the owner's).
    pub fn run_at_home(&self, binary: &str, args: &[&str]) -> CliRun {
        ran(std::process::Command::new(binary)
            .args(args)
            .arg("--home")
            .arg(&self.home)
            .current_dir(&self.project))
    }

    /// A settings file `name` whose one guard, on `PreToolUse` of `Bash`, is `failClosed`
    /// and allows every call: only a failure before or around it can deny.
    pub fn allowing_guard(&self, name: &str) -> PathBuf {
        let allow = self.script("allow.sh", "cat >/dev/null; exit 0");
        self.settings(
            name,
            hooks(
                "PreToolUse",
                Some("Bash"),
                vec![json!({"type": "command", "command": allow, "failClosed": true})],
            ),
        )
    }

    /// A secret outside the project (`outside/secret.txt`, "top secret") and an empty
    /// folder `sub` inside it, for grant tests: (the outside folder, `sub`).
    pub fn secret_outside(&self) -> (PathBuf, PathBuf) {
        let outside = self.root.join("outside");
        std::fs::create_dir_all(&outside).expect("mkdir outside");
        self.write("outside/secret.txt", "top secret");
        let sub = self.project.join("sub");
        std::fs::create_dir_all(&sub).expect("mkdir sub");
        (outside, sub)
    }

    /// Writes `settings.json` with the one `handler` on `event` (every tool).
    pub fn one_hook(&self, event: &str, handler: Value) -> PathBuf {
        self.hook_file("settings.json", event, vec![handler])
    }

    /// An engine with one matcher group of `handlers` on `event` (every tool).
    pub fn engine_for(&self, event: &str, handlers: Vec<Value>) -> Engine {
        self.engine(hooks(event, None, handlers))
    }

    /// Load options that read only what the test wrote (no machine-wide managed file).
    /// The test's project is trusted (the tests that exercise trust use
    /// [`TestEnv::untrusted_options`]).
    pub fn load_options(&self, settings: &[PathBuf], plugins: &[PathBuf]) -> LoadOptions {
        let mut options = LoadOptions::default();
        options.home = Some(self.home.clone());
        options.project_dir = Some(self.project.clone());
        options.managed_path = Some(self.managed_path());
        options.settings = settings.iter().map(|p| p.display().to_string()).collect();
        options.plugins = plugins.to_vec();
        options.trust = hookhost::Trust::Trusted;
        options.config_dir = Some(self.config_dir());
        options
    }

    /// [`TestEnv::load_options`] with trust decided from the stores, as the CLI does.
    pub fn untrusted_options(&self, settings: &[PathBuf], plugins: &[PathBuf]) -> LoadOptions {
        let mut options = self.load_options(settings, plugins);
        options.trust = hookhost::Trust::Discover;
        options
    }

    /// The managed settings file the test may write (absent by default).
    pub fn managed_path(&self) -> PathBuf {
        self.root.join("managed/managed-settings.json")
    }

    /// hookhost's configuration folder for this test (trust store).
    pub fn config_dir(&self) -> PathBuf {
        self.home.join(".config").join("hookhost")
    }

    /// Engine options with a private Wasm cache directory.
    pub fn engine_options(&self) -> EngineOptions {
        let mut options = EngineOptions::default();
        options.wasm.cache_dir = Some(self.root.join("wasm-cache"));
        options.wasm.config_dir = Some(self.root.join("hookhost-config"));
        options.wasm.oci_dir = Some(self.root.join("oci-store"));
        options
    }

    /// An engine over one settings file holding `hooks`.
    pub fn engine(&self, hooks: Value) -> Engine {
        let settings = self.settings("settings.json", hooks);
        Engine::load(&self.load_options(&[settings], &[]), self.engine_options()).expect("engine")
    }

    /// A PreToolUse input for a Bash command in this project.
    pub fn bash(&self, command: &str) -> Value {
        json!({
            "session_id": "test-session",
            "cwd": self.project.display().to_string(),
            "tool_name": "Bash",
            "tool_input": { "command": command },
            "tool_use_id": "toolu_1"
        })
    }

    /// A PreToolUse input for a file tool.
    pub fn file_tool(&self, tool: &str, input: Value) -> Value {
        json!({
            "session_id": "test-session",
            "cwd": self.project.display().to_string(),
            "tool_name": tool,
            "tool_input": input,
            "tool_use_id": "toolu_2"
        })
    }
}

/// Whether a process with `pid` exists (zombies count as gone).
pub fn process_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits until `pid` is gone, up to `limit`; true when it is.
pub fn wait_gone(pid: i32, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if !process_alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    !process_alive(pid)
}

/// The processes descended from `pid` (its children, theirs, …), from `/proc`.
pub fn descendants(pid: u32) -> Vec<i32> {
    let mut found = Vec::new();
    let mut next = vec![pid as i32];
    while let Some(parent) = next.pop() {
        let tasks = std::fs::read_dir(format!("/proc/{parent}/task"))
            .into_iter()
            .flatten();
        for task in tasks.flatten() {
            let children =
                std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            for child in children
                .split_whitespace()
                .filter_map(|c| c.parse::<i32>().ok())
            {
                found.push(child);
                next.push(child);
            }
        }
    }
    found
}

/// The command line of process `pid`, its arguments joined by spaces (empty when gone).
pub fn command_line(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|line| String::from_utf8_lossy(&line).replace('\0', " "))
        .unwrap_or_default()
}

/// Reads a pid written by a hook script.
pub fn read_pid(path: &Path) -> i32 {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no pid in {}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether `engine` blocks `event` with `input`.
pub async fn blocks(engine: &Engine, event: &str, input: Value) -> bool {
    engine.execute(event, input).await.should_block
}

/// Asserts that `text` says `expected`, showing it when it does not.
#[track_caller]
pub fn assert_says(text: impl std::fmt::Display, expected: &str) {
    let text = text.to_string();
    assert!(text.contains(expected), "{text}");
}

/// The permission decision of `outcome` as the wire names it (`"deny"`, `"allow"`, …).
pub fn decision(outcome: &hookhost::EventOutcome) -> Option<&'static str> {
    outcome
        .permission_decision
        .map(hookhost::PermissionDecision::as_str)
}

/// Asserts that `outcome`'s permission decision is `expected`, showing the outcome when not.
#[track_caller]
pub fn assert_decision(outcome: &hookhost::EventOutcome, expected: &str) {
    assert_eq!(decision(outcome), Some(expected), "{outcome:#?}");
}

/// Asserts that nothing `outcome` adds to the model's context says `secret`.
#[track_caller]
pub fn assert_context_lacks(outcome: &hookhost::EventOutcome, secret: &str) {
    let context = outcome.additional_context.as_deref().unwrap_or("");
    assert!(
        !context.contains(secret),
        "{secret:?} reached the context: {outcome:#?}"
    );
}

/// Asserts that `engine` loaded without a diagnostic, listing them when not.
#[track_caller]
pub fn assert_no_diagnostics(engine: &Engine) {
    assert!(
        engine.diagnostics().is_empty(),
        "{:#?}",
        engine.diagnostics()
    );
}

/// Asserts that `outcome` blocks with a reason that says `expected`, showing it when not.
#[track_caller]
pub fn assert_blocked(outcome: &hookhost::EventOutcome, expected: &str) {
    let reason = outcome.block_reason.as_deref().unwrap_or("");
    assert!(
        outcome.should_block && reason.contains(expected),
        "wanted a block saying {expected:?}: {outcome:#?}"
    );
}

/// Asserts that the error of the `index`th hook of `outcome` says `expected`.
#[track_caller]
pub fn assert_hook_error(outcome: &hookhost::EventOutcome, index: usize, expected: &str) {
    let error = hook_error(outcome, index);
    assert!(error.contains(expected), "{error}");
}

/// The error text of the `index`-th hook report ("" when it has none).
pub fn hook_error(outcome: &hookhost::EventOutcome, index: usize) -> &str {
    outcome.hooks[index].error.as_deref().unwrap_or("")
}

/// The hooks object for one event with one matcher group.
pub fn hooks(event: &str, matcher: Option<&str>, handlers: Vec<Value>) -> Value {
    let mut group = json!({ "hooks": handlers });
    if let Some(matcher) = matcher {
        group["matcher"] = json!(matcher);
    }
    json!({ event: [group] })
}

/// A command handler.
pub fn command(command: &str) -> Value {
    json!({ "type": "command", "command": command })
}

/// A wasm handler for the component at `path`, with extra fields merged in.
pub fn wasm(path: &str, extra: Value) -> Value {
    let mut handler = json!({ "type": "wasm", "component": path });
    if let (Some(target), Some(extra)) = (handler.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            target.insert(k.clone(), v.clone());
        }
    }
    handler
}

/// A wasm handler for the misbehaving test guest at `component` in `mode` (its
/// `config.mode`), with extra fields merged in (an extra `config` keeps its keys).
pub fn guest_at(component: &str, mode: &str, extra: Value) -> Value {
    let mut handler = wasm(component, extra);
    let mut config = handler
        .get("config")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    config.insert("mode".into(), json!(mode));
    handler["config"] = Value::Object(config);
    handler
}

/// [`guest_at`] for `test-guest`.
pub fn guest(mode: &str, extra: Value) -> Value {
    guest_at(guests::TEST_GUEST, mode, extra)
}

/// The component at `path` with `count` extra core modules, each declaring one linear
/// memory of `pages` 64 KiB pages and instantiated once: what a hostile toolchain (or
/// hand-written WAT) can produce.
pub fn with_extra_memories(path: &str, count: usize, pages: u32) -> Vec<u8> {
    let bytes = std::fs::read(path).expect("read component");
    let text = wasmprinter::print_bytes(&bytes).expect("print component");
    let (head, rest) = text.split_once('\n').expect("component text has lines");
    assert!(head.starts_with("(component"), "{head}");
    let mut extra = String::new();
    for index in 0..count {
        extra.push_str(&format!(
            "  (core module $hookhost_bomb{index} (memory {pages}))\n  (core instance $hookhost_bomb_i{index} (instantiate $hookhost_bomb{index}))\n"
        ));
    }
    wat::parse_str(format!("{head}\n{extra}{rest}")).expect("reassemble component")
}

/// Output of a CLI run that ended by itself.
#[derive(Debug)]
pub struct CliRun {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// How long it ran.
    pub elapsed: Duration,
}

impl CliRun {
    /// Whether it exited 0.
    pub fn ok(&self) -> bool {
        self.code == 0
    }

    /// Asserts that it exited 0, showing what it wrote when not; itself, to read on.
    #[track_caller]
    pub fn assert_ok(&self) -> &Self {
        assert!(self.ok(), "exit {}: {}", self.code, self.text());
        self
    }

    /// Its standard output, then its standard error.
    pub fn text(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// Its standard output as JSON (a string of it when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|_| Value::String(self.stdout.clone()))
    }
}

/// Runs `command` to its end (standard input empty unless the command says otherwise)
/// and keeps what it wrote.
pub fn ran(command: &mut std::process::Command) -> CliRun {
    let started = Instant::now();
    let out = command.output().expect("run the command");
    CliRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

/// Runs `command` with `input` on its standard input (written from a thread, so a command
/// that does not read it cannot stall the test) and keeps what it wrote.
pub fn ran_with_stdin(command: &mut std::process::Command, input: &[u8]) -> CliRun {
    let started = Instant::now();
    let out = run_with_stdin(command, input);
    CliRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

/// Runs the hookhost binary with `args` and `stdin`; kills it and returns `None` when it
/// has not exited after `limit` (a hang).
pub fn run_cli(binary: &str, args: &[String], stdin: &[u8], limit: Duration) -> Option<CliRun> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let started = Instant::now();
    let mut child = Command::new(binary)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hookhost");
    let mut input = child.stdin.take().expect("stdin");
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let _ = writer.join();
            return Some(CliRun {
                code: status.code().unwrap_or(-1),
                stdout: out.join().unwrap_or_default(),
                stderr: err.join().unwrap_or_default(),
                elapsed: started.elapsed(),
            });
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A file's SHA-256 (lowercase hex), computed by coreutils' `sha256sum`, not by hookhost's
/// own code.
pub fn sha256_of(path: impl AsRef<Path>) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path.as_ref())
        .output()
        .expect("run sha256sum");
    String::from_utf8(out.stdout).expect("hex")[..64].to_string()
}

/// Runs `git ARGS` in `dir` and panics, with its output, when it fails.
pub fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("start git");
    assert!(
        out.status.success(),
        "git {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `command` with `input` on its stdin and its stdout and stderr captured; panics
/// when it cannot start.
pub fn run_with_stdin(command: &mut std::process::Command, input: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the process");
    // A process that exits without reading its input closes the pipe: not an error here.
    let _ = child.stdin.take().expect("piped stdin").write_all(input);
    child.wait_with_output().expect("wait for the process")
}

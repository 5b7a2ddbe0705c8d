//! Test harness for hookhost's integration tests: temporary projects with settings,
//! scripts and plugin bundles, engines built on them, and the compiled Wasm guests.

pub mod server;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hookhost::{Engine, EngineOptions, LoadOptions};
use serde_json::{Value, json};

/// Paths of the guests compiled by the build script.
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
        let mut perms = std::fs::metadata(&path).expect("stat").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&path, perms).expect("chmod");
        path.display().to_string()
    }

    /// Writes a settings file with the given `hooks` object.
    pub fn settings(&self, name: &str, hooks: Value) -> PathBuf {
        self.write(name, &json!({ "hooks": hooks }).to_string())
    }

    /// Load options that read only what the test wrote (no machine-wide managed file).
    pub fn load_options(&self, settings: &[PathBuf], plugins: &[PathBuf]) -> LoadOptions {
        LoadOptions {
            home: Some(self.home.clone()),
            project_dir: Some(self.project.clone()),
            managed_path: Some(self.root.join("managed/managed-settings.json")),
            settings: settings.iter().map(|p| p.display().to_string()).collect(),
            plugins: plugins.to_vec(),
            ..LoadOptions::default()
        }
    }

    /// Engine options with a private Wasm cache directory.
    pub fn engine_options(&self) -> EngineOptions {
        let mut options = EngineOptions::default();
        options.wasm.cache_dir = Some(self.root.join("wasm-cache"));
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

/// The error text of the `index`-th hook report ("" when it has none).
pub fn hook_error(outcome: &hookhost::HookOutcome, index: usize) -> &str {
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

//! The fleet, against real components: a policy signed with the real `minisign`, served
//! by a real OCI registry (Debian's `docker-registry`) to a simulated fleet of machines
//! (separate homes, each its own `hookhost` processes); decisions exported to a real OTLP
//! receiver (Arize Phoenix, pinned in tests/toolchains/phoenix) and read back through its
//! REST API.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hookhost_tests::serve::Served;
use hookhost_tests::{TestEnv, guests, run_with_stdin};
use serde_json::{Value, json};

use crate::oci::{keys, registry, sign};

mod receiver;

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");

/// One machine of the fleet: its own home, configuration, state and project folders.
pub(crate) struct Machine {
    pub(crate) name: String,
    pub(crate) home: PathBuf,
    pub(crate) state: PathBuf,
    pub(crate) project: PathBuf,
    pub(crate) managed: PathBuf,
}

impl Machine {
    pub(crate) fn new(env: &TestEnv, name: &str, managed: &Path) -> Self {
        let root = env.root.join("fleet").join(name);
        let machine = Self {
            name: name.to_string(),
            home: root.join("home"),
            state: root.join("state"),
            project: root.join("project"),
            managed: managed.to_path_buf(),
        };
        for dir in [&machine.home, &machine.state, &machine.project] {
            std::fs::create_dir_all(dir).unwrap();
        }
        machine
    }

    pub(crate) fn config_dir(&self) -> PathBuf {
        self.home.join(".config").join("hookhost")
    }

    /// The owner's flags every command of this machine gets.
    pub(crate) fn flags(&self) -> Vec<String> {
        vec![
            "--own-files".into(),
            "--managed-settings".into(),
            self.managed.display().to_string(),
            "--home".into(),
            self.home.display().to_string(),
            "--state-dir".into(),
            self.state.display().to_string(),
        ]
    }

    /// `hookhost ARGS <flags>` in the project: (success, stdout + stderr).
    pub(crate) fn run(&self, args: &[&str]) -> (bool, String) {
        let run = hookhost_tests::ran(
            Command::new(CLI)
                .args(args)
                .args(self.flags())
                .current_dir(&self.project),
        );
        (run.ok(), run.text())
    }

    /// A one-shot `fire` of a tool call: its outcome.
    pub(crate) fn call(&self, tool: &str, tool_input: Value) -> Value {
        let input = json!({"session_id": format!("{}-session", self.name), "tool_name": tool,
            "tool_use_id": "toolu_1", "cwd": self.project, "tool_input": tool_input});
        let mut command = Command::new(CLI);
        command
            .args(["fire", "PreToolUse", "--format", "outcome"])
            .args(self.flags())
            .arg("--project-dir")
            .arg(&self.project)
            .current_dir(&self.project);
        let out = run_with_stdin(&mut command, input.to_string().as_bytes());
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{}: no outcome ({e}): {}{}",
                self.name,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }

    pub(crate) fn decision(&self, tool: &str) -> String {
        let outcome = self.call(
            tool,
            json!({"command": "ls", "file_path": "a.txt", "content": "x"}),
        );
        match outcome["permission_decision"].as_str() {
            Some(decision) => decision.to_string(),
            None if outcome["should_block"] == true => {
                format!("block: {}", outcome["block_reason"])
            }
            None => "none".into(),
        }
    }

    /// `serve --all-projects` on a free local port with this machine's flags.
    pub(crate) fn serve(&self) -> Served {
        let mut args = self.flags();
        args.extend(["--all-projects", "--listen", "127.0.0.1:0"].map(String::from));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        Served::start(CLI, &self.project, &args, &[])
            .unwrap_or_else(|why| panic!("serve did not start: {why}"))
    }

    pub(crate) fn status(&self) -> Value {
        let (ok, out) = self.run(&["policy", "status", "--json"]);
        assert!(ok, "{out}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    }
}

/// Edits the signed `document` after signing: `from` becomes `to` (a forgery).
pub(crate) fn forge(document: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(document).unwrap();
    std::fs::write(document, text.replace(from, to)).unwrap();
}

/// Asserts that a machine's `outcome` (JSON) blocks, saying `why`.
#[track_caller]
fn assert_refused(outcome: &Value, why: &str) {
    assert_eq!(outcome["should_block"], true, "{outcome}");
    assert!(outcome.to_string().contains(why), "{outcome}");
}

/// The owner's hook file denying `matcher`'s tools with a local Wasm guard.
pub(crate) fn owner_hooks(env: &TestEnv, name: &str, matcher: &str) -> PathBuf {
    let dir = env.root.join("owner").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(guests::TEST_GUEST, dir.join("guard.wasm")).unwrap();
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [
        {"type": "wasm", "component": "guard.wasm", "failClosed": true,
         "config": {"mode": "deny"}}
    ]}]}});
    let file = dir.join("hooks.json");
    std::fs::write(&file, hooks.to_string()).unwrap();
    file
}

/// `policy build` of `hooks`, signed at `at` (unix time) with `secret`: the folder.
pub(crate) fn signed_policy(hooks: &Path, secret: &Path, at: u64) -> PathBuf {
    let out = hooks.parent().unwrap().join("built");
    let status = Command::new(CLI)
        .args(["policy", "build"])
        .arg(hooks)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    sign(
        &out.join("policy.json"),
        secret,
        &["-t", &format!("timestamp:{at}\tfile:policy.json")],
    );
    out
}

/// `policy push`: the revision.
pub(crate) fn push(dir: &Path, reference: &str) -> String {
    let run = hookhost_tests::ran(
        Command::new(CLI)
            .args(["policy", "push"])
            .arg(dir)
            .arg(reference),
    );
    let pushed = run.assert_ok().stdout.trim();
    pushed.rsplit(" -> ").next().unwrap().to_string()
}

/// The managed settings of the fleet: the policy, its signer, and `extra`.
pub(crate) fn managed(env: &TestEnv, reference: &str, public: &str, extra: Value) -> PathBuf {
    let mut settings = json!({"policy": reference, "policyInterval": 10,
        "trustedSigners": [{"name": "security-team", "publicKey": public}]});
    for (key, value) in extra.as_object().unwrap() {
        settings[key] = value.clone();
    }
    let file = env.root.join("etc").join("hookhost").join("hooks.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, settings.to_string()).unwrap();
    file
}

#[test]
fn a_signed_revision_reaches_the_fleet_and_a_forgery_a_tamper_or_a_rollback_does_not() {
    let env = TestEnv::new();
    let Some(registry) = registry(&env) else {
        return;
    };
    let (public, secret) = keys(&env, "security-team");
    let reference = format!("oci://{}/acme/hookhost-policy:prod", registry.addr);
    let audit = env.root.join("audit.jsonl");
    let managed = managed(&env, &reference, &public, json!({"hookAuditLog": audit}));
    let fleet: Vec<Machine> = (1..=3)
        .map(|i| Machine::new(&env, &format!("dev{i}"), &managed))
        .collect();

    // Before any revision is active the guard is lost: every call is refused.
    let outcome = fleet[0].call("Bash", json!({"command": "ls"}));
    assert_refused(&outcome, "no revision has been activated");

    // Revision 1 (Bash denied) reaches every machine.
    let v1 = signed_policy(&owner_hooks(&env, "v1", "Bash"), &secret, 1_000);
    let r1 = push(&v1, &reference);
    assert!(r1.starts_with("sha256:"), "{r1}");
    for machine in &fleet {
        let (ok, out) = machine.run(&["policy", "pull"]);
        assert!(ok && out.contains(&format!("activated {r1}")), "{out}");
        assert_eq!(machine.decision("Bash"), "deny");
        assert_eq!(machine.decision("Write"), "none");
        assert_eq!(machine.status()["revision"], r1.as_str());
    }
    // explain names the revision in force.
    let input = fleet[0].project.join("input.json");
    std::fs::write(
        &input,
        json!({"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash",
            "cwd": fleet[0].project, "tool_input": {"command": "ls"}})
        .to_string(),
    )
    .unwrap();
    let (_, out) = fleet[0].run(&["explain", "--input", &input.display().to_string()]);
    assert!(out.contains(&format!("revision {r1}")), "{out}");
    // The audit log names the revision each decision was made under.
    let audit = std::fs::read_to_string(env.root.join("audit.jsonl")).unwrap();
    let last: Value = serde_json::from_str(audit.lines().last().unwrap()).unwrap();
    assert_eq!(last["policy_revision"], r1.as_str(), "{last}");

    // Revision 2 (Write denied too) rolls out; a second pull is a no-op.
    let v2 = signed_policy(&owner_hooks(&env, "v2", "Bash|Write"), &secret, 2_000);
    let r2 = push(&v2, &reference);
    assert_ne!(r1, r2);
    for machine in &fleet[..2] {
        let (ok, out) = machine.run(&["policy", "pull"]);
        assert!(ok && out.contains(&format!("activated {r2}")), "{out}");
        assert_eq!(machine.decision("Write"), "deny");
        let (ok, out) = machine.run(&["policy", "pull"]);
        assert!(ok && out.contains(&format!("unchanged {r2}")), "{out}");
    }

    // A forgery: the signed document edited after signing (its guard taken out).
    let v3 = signed_policy(&owner_hooks(&env, "v3", "Bash"), &secret, 3_000);
    let document = v3.join("policy.json");
    forge(&document, "\"Bash\"", "\"NoSuchTool\"");
    push(&v3, &reference);
    let (ok, out) = fleet[0].run(&["policy", "pull"]);
    assert!(
        !ok && out.contains("not signed by a trusted signer"),
        "{out}"
    );
    assert!(out.contains(&format!("still active: {r2}")), "{out}");
    assert_eq!(fleet[0].decision("Bash"), "deny");
    let status = fleet[0].status();
    assert_eq!(status["revision"], r2.as_str());
    assert!(
        status["last_error"]
            .as_str()
            .is_some_and(|e| e.contains("not signed by a trusted signer")),
        "{status}"
    );

    // A rollback: the tag moved back to revision 1 (validly signed, but before 2).
    push(&v1, &reference);
    let (ok, out) = fleet[1].run(&["policy", "pull"]);
    assert!(!ok && out.contains("rollback"), "{out}");
    assert_eq!(fleet[1].decision("Write"), "deny");

    // A tampered artifact: the registry serves bytes that are not the ones its manifest
    // names (the stored document blob overwritten). Machine 3 refuses it and says why.
    let v4 = signed_policy(&owner_hooks(&env, "v4", "Bash|Write|Edit"), &secret, 4_000);
    push(&v4, &reference);
    let digest = hookhost_tests::sha256_of(v4.join("policy.json"));
    let blob = registry
        .storage
        .join("docker/registry/v2/blobs/sha256")
        .join(&digest[..2])
        .join(&digest)
        .join("data");
    assert!(blob.is_file(), "{}", blob.display());
    std::fs::write(&blob, b"{\"hookhostPolicy\": 1, \"settings\": {}}").unwrap();
    let (ok, out) = fleet[2].run(&["policy", "pull"]);
    assert!(!ok && out.contains("refused"), "{out}");
    assert_eq!(fleet[2].status()["revision"], r1.as_str());
    assert!(fleet[2].status()["last_error"].as_str().is_some());
    assert_eq!(fleet[2].decision("Bash"), "deny");

    // Offline: the registry gone, every machine starts on its last good revision.
    drop(registry);
    let (ok, out) = fleet[0].run(&["policy", "pull"]);
    assert!(!ok, "{out}");
    assert_eq!(fleet[0].decision("Write"), "deny");
    assert_eq!(fleet[2].decision("Bash"), "deny");

    // The activated copy tampered on disk: its signature no longer holds, so the guard
    // is lost and every call refused — never a policy the owner did not sign.
    let dir = fleet[1]
        .config_dir()
        .join("policy/revisions")
        .join(r2.replace(':', "-"));
    let document = dir.join("policy.json");
    forge(&document, "Bash|Write", "NoSuchTool");
    let outcome = fleet[1].call("Read", json!({"file_path": "a.txt"}));
    assert_refused(&outcome, "not signed by a trusted signer");
}

#[test]
fn only_the_managed_settings_name_a_policy() {
    let env = TestEnv::new();
    let machine = Machine::new(&env, "dev", &env.root.join("no-managed.json"));
    let named = "oci://127.0.0.1:9/evil/policy:1";
    // The user's hook file and the repository's both try.
    std::fs::create_dir_all(machine.config_dir()).unwrap();
    std::fs::write(
        machine.config_dir().join("hooks.json"),
        json!({"policy": named}).to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(machine.project.join(".hookhost")).unwrap();
    std::fs::write(
        machine.project.join(".hookhost/hooks.json"),
        json!({"policy": named}).to_string(),
    )
    .unwrap();
    let (_, out) = machine.run(&[
        "check",
        "--project-dir",
        &machine.project.display().to_string(),
    ]);
    hookhost_tests::assert_says(&out, "`policy` counts only in managed settings");
    // Nothing is refused: no policy is in force.
    assert_eq!(machine.decision("Bash"), "none");
    let (ok, out) = machine.run(&["policy", "pull"]);
    assert!(!ok && out.contains("name no `policy`"), "{out}");
}

/// When `until` holds, within `limit`.
pub(crate) fn eventually(limit: Duration, mut until: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if until() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    false
}

/// A process that would spool its record but whose spool lies inside the project (the
/// agent could write it) exports nothing, and says so: a sender thread of its own would
/// lose the record at exit without a word.
#[test]
fn a_spool_inside_the_project_means_no_export_and_a_diagnostic_not_a_silent_loss() {
    let env = TestEnv::new();
    let settings = env.write(
        "owner.json",
        &json!({"telemetry": {"endpoint": "http://127.0.0.1:9"},
                "hooks": hookhost_tests::hooks("Stop", None, vec![hookhost_tests::command("true")])})
        .to_string(),
    );
    let engine_with_spool = |spool: PathBuf| {
        let mut options = env.engine_options();
        options.export_spool = Some(spool);
        options.export_direct = false;
        hookhost::Engine::load(
            &env.load_options(std::slice::from_ref(&settings), &[]),
            options,
        )
        .unwrap()
    };
    let says = |engine: &hookhost::Engine| {
        engine
            .diagnostics()
            .iter()
            .any(|d| d.message.contains("decisions are not exported"))
    };
    let inside = engine_with_spool(env.project.join(".state/telemetry-spool"));
    assert!(says(&inside), "{:?}", inside.diagnostics());
    assert!(inside.telemetry().is_none(), "no exporter at all");
    // The control: a spool outside the project is used, and nothing is said.
    let outside = engine_with_spool(env.root.join("state/telemetry-spool"));
    assert!(!says(&outside), "{:?}", outside.diagnostics());
    assert!(outside.telemetry().is_some());
}

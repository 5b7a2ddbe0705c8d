//! Wasm components from a real OCI registry (the CNCF Distribution registry, Debian's
//! `docker-registry`, on loopback with its storage in a temp folder) and minisign
//! signatures made by the real `minisign` tool: push and pull by tag and by digest, a
//! tampered blob, an unknown signer, an unsigned component under `requireSignedWasm`, the
//! registry down, and `serve` following a moved tag only to a signed version.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hookhost::{Engine, EventOutcome};
use hookhost_tests::{TestEnv, guests, hook_error};
use serde_json::{Value, json};

mod hostile;

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");

/// A registry on 127.0.0.1, killed when dropped.
pub(crate) struct Registry {
    child: Child,
    pub(crate) addr: String,
    pub(crate) storage: PathBuf,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn installed(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Starts a registry (or says why not and returns `None`: the test is skipped). Under
/// CI (`HOOKHOST_CI` set, as `.ci/run` does) a missing tool fails the test instead: a
/// skip there would pass a run that tested nothing.
pub(crate) fn registry(env: &TestEnv) -> Option<Registry> {
    for tool in ["docker-registry", "minisign"] {
        if !installed(tool) {
            let why = format!(
                "`{tool}` is not installed (Debian: apt-get install docker-registry minisign)"
            );
            assert!(std::env::var_os("HOOKHOST_CI").is_none(), "under CI: {why}");
            eprintln!("SKIPPED: {why}");
            return None;
        }
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let storage = env.root.join("registry");
    let config = env.root.join("registry.yml");
    std::fs::write(
        &config,
        format!(
            "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: {addr}\n",
            storage.display()
        ),
    )
    .unwrap();
    let child = Command::new("docker-registry")
        .arg("serve")
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start docker-registry");
    let started = Instant::now();
    while TcpStream::connect(&addr).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the registry did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(Registry {
        child,
        addr,
        storage,
    })
}

/// A minisign key pair: (public key line, secret key file).
pub(crate) fn keys(env: &TestEnv, name: &str) -> (String, PathBuf) {
    let public = env.root.join(format!("{name}.pub"));
    let secret = env.root.join(format!("{name}.key"));
    let status = Command::new("minisign")
        .args(["-G", "-W", "-p"])
        .arg(&public)
        .arg("-s")
        .arg(&secret)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&public).unwrap();
    (text.lines().last().unwrap().to_string(), secret)
}

/// A copy of `component` in the test's folder, signed with `secret` when given.
fn component(env: &TestEnv, component: &str, name: &str, secret: Option<&Path>) -> PathBuf {
    let file = env.root.join(name);
    std::fs::copy(component, &file).unwrap();
    if let Some(secret) = secret {
        sign(&file, secret, &[]);
    }
    file
}

/// Signs `file` with the real `minisign`, with `extra` arguments.
pub(crate) fn sign(file: &Path, secret: &Path, extra: &[&str]) {
    let status = Command::new("minisign")
        .arg("-S")
        .arg("-s")
        .arg(secret)
        .arg("-m")
        .arg(file)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
}

/// A copy of `component` signed with `secret`, its trusted comment saying it was signed
/// at the unix time `at`.
fn signed_at(env: &TestEnv, component: &str, name: &str, secret: &Path, at: u64) -> PathBuf {
    let file = env.root.join(name);
    std::fs::copy(component, &file).unwrap();
    sign(
        &file,
        secret,
        &["-t", &format!("timestamp:{at}\tfile:{name}")],
    );
    file
}

fn hookhost(args: &[&str]) -> (bool, String) {
    let run = hookhost_tests::ran(Command::new(CLI).args(args));
    (run.ok(), run.text())
}

/// The test guest pushed as `policies/guard:1.0` to a fresh registry: the registry, the
/// component file, the tag and the manifest digest (`None`: no registry here).
fn pushed_guard(env: &TestEnv) -> Option<(Registry, PathBuf, String, String)> {
    let registry = registry(env)?;
    let file = component(env, guests::TEST_GUEST, "guard.wasm", None);
    let tag = format!("oci://{}/policies/guard:1.0", registry.addr);
    let manifest = push(&file, &tag);
    Some((registry, file, tag, manifest))
}

/// Pushes `file` as `reference`; returns the manifest digest.
fn push(file: &Path, reference: &str) -> String {
    let (ok, out) = hookhost(&["push", &file.display().to_string(), reference]);
    assert!(ok, "{out}");
    out.lines()
        .next()
        .and_then(|line| line.rsplit_once(" -> "))
        .map(|(_, digest)| digest.to_string())
        .expect("push prints the manifest digest")
}

/// Settings with the owners' signing policy and one failClosed Wasm hook naming
/// `component` (test-guest answers `deny`; the other guests have no opinion on `ls`).
fn settings(signers: &[(&str, &str)], require: bool, component: &str) -> Value {
    json!({
        "trustedSigners": signers.iter().map(|(name, key)| json!({"name": name, "publicKey": key})).collect::<Vec<_>>(),
        "requireSignedWasm": require,
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "wasm", "component": component, "failClosed": true, "config": {"mode": "deny"}}]}]}
    })
}

fn engine(env: &TestEnv, settings: Value) -> Engine {
    let file = env.root.join(format!("settings-{}.json", rand_suffix()));
    std::fs::write(&file, settings.to_string()).unwrap();
    Engine::load(&env.load_options(&[file], &[]), env.engine_options()).expect("engine")
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

async fn fire(env: &TestEnv, engine: &Engine) -> EventOutcome {
    engine.execute("PreToolUse", env.bash("ls")).await
}

fn denied(outcome: &EventOutcome) -> bool {
    outcome.block_reason.as_deref() == Some("test-guest says no")
}

#[tokio::test]
async fn components_are_pushed_and_pulled_by_tag_and_by_digest() {
    let env = TestEnv::new();
    let Some((registry, file, tag, manifest)) = pushed_guard(&env) else {
        return;
    };
    let expected = hookhost_tests::sha256_of(&file);
    // By tag.
    let by_tag = engine(&env, settings(&[], false, &tag));
    let outcome = fire(&env, &by_tag).await;
    assert!(denied(&outcome), "{:?}", outcome.hooks);
    assert_eq!(outcome.hooks[0].sha256.as_deref(), Some(expected.as_str()));
    let info = &by_tag.hooks()[0];
    assert!(
        info.provenance
            .as_deref()
            .unwrap_or("")
            .contains(&format!("{tag} -> {manifest}")),
        "{:?}",
        info.provenance
    );
    // By digest.
    let by_digest = format!("oci://{}/policies/guard@{manifest}", registry.addr);
    let outcome = fire(&env, &engine(&env, settings(&[], false, &by_digest))).await;
    assert!(denied(&outcome), "{:?}", outcome.hooks);
    // The CLI pulls into a store of its own choosing.
    let store = env.root.join("cli-store");
    let (ok, out) = hookhost(&["pull", &tag, "--store", &store.display().to_string()]);
    assert!(ok, "{out}");
    hookhost_tests::assert_says(&out, &format!("component sha256:{expected}"));
    assert!(
        store
            .join("blobs")
            .join(format!("sha256-{expected}.wasm"))
            .is_file()
    );
    // `list` and `check` show the digest, the resolution and (none here) the signer.
    let file = env.root.join("list.json");
    std::fs::write(&file, settings(&[], false, &tag).to_string()).unwrap();
    let cache = env.root.join("cli-cache").display().to_string();
    let managed = env.managed_path();
    let config = [
        "--no-discover",
        "--settings",
        file.to_str().unwrap(),
        "--managed-settings",
        managed.to_str().unwrap(),
        "--cache-dir",
        cache.as_str(),
    ];
    for command in ["list", "check"] {
        let (ok, out) = hookhost(&[&[command][..], &config[..]].concat());
        assert!(ok, "{out}");
        assert!(
            out.contains(&format!("sha256:{expected} ({tag} -> {manifest})")),
            "{command}: {out}"
        );
    }
    // A reference that is not one is a clear error naming it.
    let (ok, out) = hookhost(&["pull", "oci://guard:1.0"]);
    assert!(!ok && out.contains("oci://guard:1.0"), "{out}");
}

#[tokio::test]
async fn a_tampered_blob_in_the_registry_is_refused() {
    let env = TestEnv::new();
    let Some((registry, file, tag, _)) = pushed_guard(&env) else {
        return;
    };
    let hex = hookhost_tests::sha256_of(&file);
    let blob = registry
        .storage
        .join("docker/registry/v2/blobs/sha256")
        .join(&hex[..2])
        .join(&hex)
        .join("data");
    let mut bytes = std::fs::read(&blob).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&blob, bytes).unwrap();
    let engine = engine(&env, settings(&[], false, &tag));
    let outcome = fire(&env, &engine).await;
    assert!(outcome.should_block, "failClosed blocks: {outcome:?}");
    assert!(!denied(&outcome));
    let error = hook_error(&outcome, 0);
    assert!(error.contains("refused") && error.contains(&hex), "{error}");
}

#[tokio::test]
async fn only_components_signed_by_a_trusted_signer_load_when_signatures_are_required() {
    let env = TestEnv::new();
    let Some(registry) = registry(&env) else {
        return;
    };
    let (trusted_key, trusted_secret) = keys(&env, "security-team");
    let (_, stranger_secret) = keys(&env, "stranger");
    let repo = format!("oci://{}/policies", registry.addr);
    push(
        &component(
            &env,
            guests::TEST_GUEST,
            "signed.wasm",
            Some(&trusted_secret),
        ),
        &format!("{repo}/signed:1"),
    );
    // Other bytes (another guest), so each has a signature of its own.
    push(
        &component(
            &env,
            guests::BASH_GUARD,
            "stranger.wasm",
            Some(&stranger_secret),
        ),
        &format!("{repo}/stranger:1"),
    );
    push(
        &component(&env, guests::PATH_GUARD, "unsigned.wasm", None),
        &format!("{repo}/unsigned:1"),
    );
    let signers = [("security-team", trusted_key.as_str())];

    let signed = engine(&env, settings(&signers, true, &format!("{repo}/signed:1")));
    let outcome = fire(&env, &signed).await;
    assert!(denied(&outcome), "{:?}", outcome.hooks);
    assert!(
        signed.hooks()[0]
            .provenance
            .as_deref()
            .unwrap_or("")
            .contains("signed by security-team"),
        "{:?}",
        signed.hooks()[0].provenance
    );

    let stranger = engine(
        &env,
        settings(&signers, true, &format!("{repo}/stranger:1")),
    );
    let outcome = fire(&env, &stranger).await;
    assert!(outcome.should_block, "{outcome:?}");
    assert!(
        hook_error(&outcome, 0)
            .contains("not a valid signature by any of the trusted signers (security-team)"),
        "{}",
        hook_error(&outcome, 0)
    );

    let unsigned = engine(
        &env,
        settings(&signers, true, &format!("{repo}/unsigned:1")),
    );
    let outcome = fire(&env, &unsigned).await;
    assert!(outcome.should_block, "{outcome:?}");
    hookhost_tests::assert_hook_error(&outcome, 0, "no signature");

    // A local file is held to the same policy: its signature sits beside it.
    let local = component(
        &env,
        guests::TEST_GUEST,
        "local.wasm",
        Some(&stranger_secret),
    );
    let outcome = fire(
        &env,
        &engine(&env, settings(&signers, true, &local.display().to_string())),
    )
    .await;
    assert!(outcome.should_block && !denied(&outcome), "{outcome:?}");
    // Without the requirement an unsigned component loads.
    let outcome = fire(
        &env,
        &engine(
            &env,
            settings(&signers, false, &format!("{repo}/unsigned:1")),
        ),
    )
    .await;
    assert!(!outcome.should_block, "{outcome:?}");
}

#[tokio::test]
async fn a_stored_component_loads_with_the_registry_down() {
    let env = TestEnv::new();
    let Some((registry, _, tag, manifest)) = pushed_guard(&env) else {
        return;
    };
    let by_digest = format!("oci://{}/policies/guard@{manifest}", registry.addr);
    assert!(denied(
        &fire(&env, &engine(&env, settings(&[], false, &by_digest))).await
    ));
    assert!(denied(
        &fire(&env, &engine(&env, settings(&[], false, &tag))).await
    ));
    drop(registry);
    // The digest needs no network; the tag falls back to its last resolution and says so.
    assert!(denied(
        &fire(&env, &engine(&env, settings(&[], false, &by_digest))).await
    ));
    let offline = engine(&env, settings(&[], false, &tag));
    assert!(denied(&fire(&env, &offline).await));
    assert!(
        offline.hooks()[0]
            .provenance
            .as_deref()
            .unwrap_or("")
            .contains("offline"),
        "{:?}",
        offline.hooks()[0].provenance
    );
    // A reference never pulled cannot load: failClosed blocks, naming the registry error.
    let never = format!("oci://{}/policies/other:1", "127.0.0.1:9");
    let outcome = fire(&env, &engine(&env, settings(&[], false, &never))).await;
    assert!(outcome.should_block, "{outcome:?}");
    hookhost_tests::assert_hook_error(&outcome, 0, &never);
}

#[tokio::test]
async fn serve_follows_a_moved_tag_only_to_a_signed_version() {
    let env = TestEnv::new();
    let Some(registry) = registry(&env) else {
        return;
    };
    let (key, secret) = keys(&env, "security-team");
    let tag = format!("oci://{}/policies/guard:stable", registry.addr);
    push(
        &component(&env, guests::TEST_GUEST, "v1.wasm", Some(&secret)),
        &tag,
    );
    // In a folder of its own: serve watches its configuration's folder, and a component
    // file the test writes beside it would reload the configuration by itself.
    std::fs::create_dir_all(env.root.join("serve-config")).unwrap();
    let settings_file = env.root.join("serve-config/settings.json");
    let mut value = settings(&[("security-team", &key)], true, &tag);
    value["wasmUpdateInterval"] = json!(1);
    std::fs::write(&settings_file, value.to_string()).unwrap();
    let cache = env.root.join("serve-cache").display().to_string();
    let served = super::serve::spawn(
        &env,
        &settings_file,
        &["--listen", "127.0.0.1:0", "--cache-dir", &cache],
    )
    .expect("serve starts");
    let client = super::serve::client();
    let ask = || async {
        let answer: Value = hookhost_tests::client::post_json(
            &client,
            format!("{}/v1/fire?event=PreToolUse", served.addr),
            &env.bash("ls"),
        )
        .await;
        answer
    };
    assert_eq!(ask().await["block_reason"], "test-guest says no");
    // The tag moves to a new signed version (bash-guard, which lets `ls` through): swapped
    // in by the interval check.
    push(
        &component(&env, guests::BASH_GUARD, "v2.wasm", Some(&secret)),
        &tag,
    );
    let started = Instant::now();
    while ask().await["should_block"] == true {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the signed update was not swapped in"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Then to an unsigned one: not swapped in; the running version stays, and why is in
    // the diagnostics and the metrics.
    // Other bytes than v1 (whose signature the registry holds for its digest).
    push(&component(&env, guests::PATH_GUARD, "v3.wasm", None), &tag);
    let started = Instant::now();
    loop {
        let diagnostics = super::serve::diagnostics(&served, &client).await;
        if diagnostics.to_string().contains("no signature") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{diagnostics}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let outcome = ask().await;
    assert_eq!(outcome["should_block"], false, "{outcome}");
    let failures = || async {
        let metrics =
            hookhost_tests::client::get_text(&client, format!("{}/metrics", served.addr)).await;
        metrics
            .lines()
            .find_map(|l| l.strip_prefix("hookhost_reload_failures_total "))
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("{metrics}"))
    };
    let refused = failures().await;
    assert!(refused >= 1);
    // The refused version is not tried again while the tag stays put (3+ intervals).
    tokio::time::sleep(Duration::from_millis(3500)).await;
    assert_eq!(failures().await, refused, "a refused update was retried");
}

/// Attack: a repository — even a trusted one — names its own key in `trustedSigners`,
/// turns `requireSignedWasm` off, and ships a component it signed. Only the owners'
/// signers count, and the owner's requirement stands.
#[tokio::test]
async fn a_repository_can_neither_add_a_signer_nor_lift_the_requirement() {
    let env = TestEnv::new();
    if !installed("minisign") {
        eprintln!("SKIPPED: `minisign` is not installed (Debian: apt-get install minisign)");
        return;
    }
    let (owner_key, owner_secret) = keys(&env, "security-team");
    let (attacker_key, attacker_secret) = keys(&env, "attacker");
    let owners = component(&env, guests::TEST_GUEST, "owner.wasm", Some(&owner_secret));
    let theirs = component(
        &env,
        guests::BASH_GUARD,
        "theirs.wasm",
        Some(&attacker_secret),
    );
    let hook = |component: &Path| {
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "wasm",
            "component": component.display().to_string(), "config": {"mode": "deny"}}]}]})
    };
    env.write(
        "home/.claude/settings.json",
        &json!({"trustedSigners": [{"name": "security-team", "publicKey": owner_key}],
                "requireSignedWasm": true, "hooks": hook(&owners)})
        .to_string(),
    );
    env.write(
        "project/.claude/settings.json",
        &json!({"trustedSigners": [{"name": "repo", "publicKey": attacker_key}],
                "requireSignedWasm": false, "hooks": hook(&theirs)})
        .to_string(),
    );
    let engine = Engine::load(&env.load_options(&[], &[]), env.engine_options()).expect("engine");
    let outcome = fire(&env, &engine).await;
    assert_eq!(outcome.hooks.len(), 2, "{:?}", outcome.hooks);
    let by_file = |name: &str| {
        outcome
            .hooks
            .iter()
            .find(|h| h.name.contains(name))
            .unwrap_or_else(|| panic!("{name}: {:?}", outcome.hooks))
    };
    assert!(
        denied(&outcome),
        "the owner's signed guard runs: {:?}",
        outcome.hooks
    );
    let error = by_file("theirs.wasm").error.clone().unwrap_or_default();
    hookhost_tests::assert_says(
        &error,
        "not a valid signature by any of the trusted signers (security-team)",
    );
    assert!(by_file("owner.wasm").error.is_none());
}

/// Attack: with `requireSignedWasm` and a tag, the registry (or whoever may push to it)
/// moves the tag back to an older, validly signed version that denies less.
#[tokio::test]
async fn a_tag_moved_back_to_an_earlier_signed_version_is_refused() {
    let env = TestEnv::new();
    let Some(registry) = registry(&env) else {
        return;
    };
    let (key, secret) = keys(&env, "security-team");
    let signers = [("security-team", key.as_str())];
    // Version 2 (test-guest: denies) signed later than version 1 (context-inject: no
    // opinion on `ls`).
    let newer = signed_at(&env, guests::TEST_GUEST, "v2.wasm", &secret, 2_000_000_000);
    let older = signed_at(
        &env,
        guests::CONTEXT_INJECT,
        "v1.wasm",
        &secret,
        1_000_000_000,
    );
    let tag = format!("oci://{}/policies/guard:stable", registry.addr);
    push(&newer, &tag);
    let outcome = fire(&env, &engine(&env, settings(&signers, true, &tag))).await;
    assert!(denied(&outcome), "{:?}", outcome.hooks);
    // The tag moves back.
    let old_manifest = push(&older, &tag);
    let outcome = fire(&env, &engine(&env, settings(&signers, true, &tag))).await;
    assert!(outcome.should_block, "{:?}", outcome.hooks);
    let error = hook_error(&outcome, 0);
    assert!(
        error.contains("refused as a rollback") && error.contains("2000000000"),
        "{error}"
    );
    // A deliberate downgrade: the older version pinned by digest.
    let pinned = format!("oci://{}/policies/guard@{old_manifest}", registry.addr);
    let outcome = fire(&env, &engine(&env, settings(&signers, true, &pinned))).await;
    assert!(!outcome.should_block, "{:?}", outcome.hooks);
}

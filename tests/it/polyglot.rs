//! Guests in TypeScript and Python: each example builds with its one documented command
//! (the pinned toolchains from `tests/toolchains/install.sh`), and `hookhost test` runs
//! its fixtures against the component through the real engine — then fails, with exit
//! 1 and the case named, on a fixture that expects the wrong decision.

use std::path::{Path, PathBuf};
use std::process::Command;

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples-guest")
        .join(name)
}

/// The pinned JS and Python guest toolchains (`tests/toolchains/install.sh`).
pub(crate) fn toolchains() -> PathBuf {
    let toolchains = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/toolchains");
    assert!(
        toolchains
            .join("js/node_modules/.bin/componentize-js")
            .exists()
            && toolchains.join("py/bin/componentize-py").exists(),
        "guest toolchains missing: run `bash tests/toolchains/install.sh` (the README's test command does)"
    );
    toolchains
}

/// Builds the example `name` with its `build.sh`, once per test run: the tests here run
/// in parallel, and two builds writing the same component at once would let one test
/// read the other's half-written file.
fn build(name: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<(String, PathBuf)>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, component)) = built.iter().find(|(n, _)| n == name) {
        return component.clone();
    }
    let dir = example(name);
    toolchains();
    let status = Command::new("bash")
        .arg(dir.join("build.sh"))
        .status()
        .expect("run build.sh");
    assert!(status.success(), "building {name} failed");
    let component = dir.join(format!("{name}.wasm"));
    assert!(component.is_file());
    built.push((name.to_string(), component.clone()));
    component
}

/// Runs `hookhost test PATH` with the cache and configuration folders in `kept`:
/// whether it passed, and what it printed.
pub(crate) fn hookhost_test(path: &Path, kept: &Path) -> (bool, String) {
    let out = Command::new(CLI)
        .arg("test")
        .arg(path)
        .arg("--cache-dir")
        .arg(kept.join("cache"))
        .arg("--config-dir")
        .arg(kept.join("config"))
        .output()
        .expect("run hookhost test");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// Where the script guests' tests keep compiled components and the artifact key, across
/// tests and test runs: a 9-18 MiB component compiles once (seconds of Cranelift), not
/// once per test.
fn kept() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("script-guests")
}

fn check_example(name: &str) {
    let component = build(name);
    let (ok, text) = hookhost_test(&example(name), &kept());
    assert!(ok, "{text}");
    assert!(text.contains("10 passed, 0 failed"), "{text}");
    hookhost_tests::assert_says(&text, "ok   denies a recursive delete of /");
    // A wrong expectation fails, names the case and what came back.
    let wrong = tempfile::tempdir().unwrap();
    let fixture = wrong.path().join("wrong.json");
    let case = serde_json::json!({"name": "expects the wrong answer",
        "component": component, "event": "PreToolUse",
        "input": {"tool_name": "Bash", "tool_input": {"command": "git push --force"}},
        "expect": {"decision": "allow"}});
    std::fs::write(&fixture, case.to_string()).unwrap();
    let (ok, text) = hookhost_test(&fixture, &kept());
    assert!(!ok, "{text}");
    hookhost_tests::assert_says(
        &text,
        "FAIL expects the wrong answer: expected decision allow, got deny",
    );
    assert!(text.contains("0 passed, 1 failed"), "{text}");
}

#[test]
fn typescript_guest_builds_and_passes_its_fixtures() {
    check_example("ts-guard");
}

#[test]
fn python_guest_builds_and_passes_its_fixtures() {
    check_example("py-guard");
}

/// A JavaScript or Python image is large (9-13 MiB), and its calls write all over it:
/// in a long-lived engine such a component runs in the pool that copies each used
/// memory back whole behind the call (a Rust guard's 1 MiB stays in the other). Call
/// after call, on instances prepared ahead in slots used before, it still decides from
/// its own input alone.
#[tokio::test]
async fn large_guests_run_in_the_copy_pool_and_decide_right_call_after_call() {
    use hookhost::PermissionDecision;
    use hookhost_tests::TestEnv;
    let kept = kept();
    for name in ["py-guard", "ts-guard"] {
        let component = build(name);
        let env = TestEnv::new();
        let handler = serde_json::json!({"type": "wasm", "component": component});
        let engine = bash_engine(&env, handler, &kept);
        for round in 0..6 {
            if round > 0 {
                ready(&engine).await;
            }
            let denied = engine.execute("PreToolUse", env.bash("rm -rf /")).await;
            assert_eq!(
                denied.permission_decision,
                Some(PermissionDecision::Deny),
                "{name}, round {round}: {:?}",
                denied.hooks
            );
            let allowed = engine.execute("PreToolUse", env.bash("ls -la")).await;
            assert_eq!(allowed.counts.success, 1, "{name}: {:?}", allowed.hooks);
            assert_eq!(allowed.permission_decision, None, "{name}, round {round}");
        }
        let cache = engine.inventory().wasm.unwrap().cache;
        assert_eq!(cache.copy_pool, 1, "{name}: {cache:?}");
        let prepared = engine.inventory().wasm.unwrap().prepared;
        assert!(prepared.hits >= 5, "{name}: {prepared:?}");
    }
}

/// An engine running `handler` on Bash PreToolUse calls, its components compiled into
/// `kept` (kept across test runs: the MAC key is kept beside the cache).
fn bash_engine(
    env: &hookhost_tests::TestEnv,
    handler: serde_json::Value,
    kept: &Path,
) -> hookhost::Engine {
    let settings = env.settings(
        "settings.json",
        hookhost_tests::hooks("PreToolUse", Some("Bash"), vec![handler]),
    );
    let mut options = env.engine_options();
    // The key `hookhost test` gives its cases (`hookhost_test`), so that the engine and
    // the runner's cases load each other's artifacts.
    let engine_config = kept.join("engine-config");
    hookhost::internals::share_cache_key(&kept.join("config/test-cache.key"), &engine_config)
        .unwrap();
    options.wasm.cache_dir = Some(kept.join("cache"));
    options.wasm.config_dir = Some(engine_config);
    hookhost::Engine::load(&env.load_options(&[settings], &[]), options).unwrap()
}

/// Waits (up to 60 s: a debug build instantiates a Python image slowly) until an
/// instance is prepared.
async fn ready(engine: &hookhost::Engine) {
    let started = std::time::Instant::now();
    while engine.inventory().wasm.unwrap().prepared.ready == 0 {
        assert!(started.elapsed().as_secs() < 60, "no instance prepared");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// Asked to (`warmUp: true` / `warm_up=True`), the TypeScript and Python SDKs run a
/// hook's handlers on made-up calls while its module is snapshotted, so that the
/// runtime's first-run work is in the snapshot instead of in every call. Shown by a
/// handler that counts its calls at module level: warmed up, the first real call
/// already counts the made-up ones, and so does every later call (each still starts
/// from the snapshot); by default no handler runs at build time and every call counts
/// one, since what a handler keeps at module level would otherwise reach every call.
/// The made-up calls never reach the host (a host function called while the module is
/// snapshotted fails the build): `config` and the shell view read the real call's
/// values afterwards.
#[tokio::test]
async fn script_sdks_warm_hooks_up_at_build_time_without_the_host() {
    use hookhost::PermissionDecision;
    use hookhost_tests::TestEnv;
    let kept = kept();
    let work = tempfile::tempdir().unwrap();
    let builds = [
        (
            "js-warm",
            build_counting_js(work.path(), "js-warm", ", { warmUp: true }"),
        ),
        ("js-cold", build_counting_js(work.path(), "js-cold", "")),
        (
            "py-warm",
            build_counting_py(work.path(), "py-warm", ", warm_up=True"),
        ),
        ("py-cold", build_counting_py(work.path(), "py-cold", "")),
    ];
    for (name, component) in builds {
        let env = TestEnv::new();
        let handler = serde_json::json!({"type": "wasm", "component": component,
            "config": {"mark": "from-settings"}});
        let engine = bash_engine(&env, handler, &kept);
        let mut counts = Vec::new();
        for _ in 0..2 {
            let out = engine
                .execute("PreToolUse", env.bash("ls -la && pwd"))
                .await;
            assert_eq!(
                out.permission_decision,
                Some(PermissionDecision::Deny),
                "{name}: {:?}",
                out.hooks
            );
            let reason = out.permission_decision_reason.unwrap_or_default();
            let (count, rest) = reason
                .strip_prefix("calls=")
                .and_then(|r| r.split_once(' '))
                .unwrap_or_else(|| panic!("{name}: {reason}"));
            assert_eq!(rest, "mark=from-settings commands=2", "{name}: {reason}");
            counts.push(count.parse::<u32>().unwrap());
        }
        assert_eq!(
            counts[0], counts[1],
            "{name}: every call starts from the snapshot"
        );
        if name.ends_with("-warm") {
            assert!(counts[0] > 1, "{name}: not warmed up ({counts:?})");
        } else {
            assert_eq!(counts[0], 1, "{name}: handlers ran at build time unasked");
        }
    }
}

/// A JavaScript hook counting its PreToolUse calls, built with the pinned toolchain;
/// `options` follows the handlers in `defineHook(…)`.
fn build_counting_js(dir: &Path, name: &str, options: &str) -> PathBuf {
    let bin = toolchains().join("js/node_modules/.bin");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let sdk = root.join("guest-sdk/js/index.js").canonicalize().unwrap();
    let source = dir.join(format!("{name}.js"));
    std::fs::write(
        &source,
        format!(
            "import {{ Answer, config, defineHook }} from {sdk:?};\n\
             let calls = 0;\n\
             export const handle = defineHook({{ preToolUse(call) {{\n\
               calls += 1;\n\
               const script = call.shell();\n\
               return Answer.deny(`calls=${{calls}} mark=${{config.get('mark')}} commands=${{script.commands().length}}`);\n\
             }} }}{options});\n"
        ),
    )
    .unwrap();
    let bundle = dir.join(format!("{name}.bundle.js"));
    let mut rolldown = Command::new(bin.join("rolldown"));
    rolldown.arg(&source).arg("--file").arg(&bundle).args([
        "--format",
        "esm",
        "--logLevel",
        "warn",
    ]);
    for interface in ["input", "host", "shell"] {
        rolldown.args(["--external", &format!("hookhost:hooks/{interface}@0.3.0")]);
    }
    assert!(rolldown.status().unwrap().success(), "bundling {name}");
    let out = dir.join(format!("{name}.wasm"));
    let status = Command::new(bin.join("componentize-js"))
        .arg(&bundle)
        .arg("--wit")
        .arg(root.join("wit/hooks@0.3.0"))
        .args([
            "--world-name",
            "hook",
            "--disable",
            "http",
            "fetch-event",
            "--out",
        ])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "componentizing {name}");
    out
}

/// The same hook in Python; `options` follows the class in `export(…)`.
fn build_counting_py(dir: &Path, name: &str, options: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let app = dir.join(name);
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("app.py"),
        format!(
            "from hookhost_guest import Answer, Hook, config, export\n\
             calls = 0\n\
             class Counting(Hook):\n\
             \x20   def pre_tool_use(self, call):\n\
             \x20       global calls\n\
             \x20       calls += 1\n\
             \x20       script = call.shell()\n\
             \x20       return Answer.deny(f\"calls={{calls}} mark={{config.get('mark')}} commands={{len(script.commands())}}\")\n\
             WitWorld = export(Counting{options})\n"
        ),
    )
    .unwrap();
    let out = dir.join(format!("{name}.wasm"));
    let status = Command::new(toolchains().join("py/bin/componentize-py"))
        .arg("--quiet")
        .arg("--wit-path")
        .arg(root.join("wit/hooks@0.3.0"))
        .args(["--world", "hook", "componentize", "app", "--python-path"])
        .arg(&app)
        .arg("--python-path")
        .arg(root.join("guest-sdk/python"))
        .arg("--output")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success(), "componentizing {name}");
    out
}

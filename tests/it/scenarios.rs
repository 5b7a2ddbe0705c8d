//! Config → outcome scenarios as data: each folder in `tests/scenarios/` holds a
//! `settings.json`, an `input.json` (with `hook_event_name`) and the `expected.json`
//! outcome. `{{guest:NAME}}` in settings becomes the path of a compiled guest. Durations
//! are left out of the comparison. `HOOKHOST_BLESS=1 cargo test -p hookhost --test it scenarios`
//! rewrites every `expected.json` from what the engine answers (review the diff).

use std::path::{Path, PathBuf};

use hookhost::Engine;
use hookhost_tests::{TestEnv, guests};
use serde_json::Value;

fn guest_path(name: &str) -> &'static str {
    match name {
        "test-guest" => guests::TEST_GUEST,
        "bash-guard" => guests::BASH_GUARD,
        "secret-scan" => guests::SECRET_SCAN,
        "path-guard" => guests::PATH_GUARD,
        "context-inject" => guests::CONTEXT_INJECT,
        other => panic!("unknown guest `{other}` in a scenario"),
    }
}

/// Replaces `{{guest:NAME}}` placeholders.
fn expand(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{guest:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "{{guest:".len()..];
        let end = after.find("}}").expect("unclosed {{guest:…}}");
        out.push_str(guest_path(&after[..end]));
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// The outcome as compared: durations removed (they vary run to run).
fn comparable(mut outcome: Value) -> Value {
    if let Some(hooks) = outcome.get_mut("hooks").and_then(Value::as_array_mut) {
        for hook in hooks {
            if let Some(hook) = hook.as_object_mut() {
                hook.remove("duration_ms");
                // Changes with every rebuild of a guest.
                hook.remove("sha256");
            }
        }
    }
    outcome
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

async fn run(dir: &Path) -> Value {
    let env = TestEnv::new();
    let settings = env.write(
        "settings.json",
        &expand(&std::fs::read_to_string(dir.join("settings.json")).unwrap()),
    );
    let engine =
        Engine::load(&env.load_options(&[settings], &[]), env.engine_options()).expect("engine");
    let input = read_json(&dir.join("input.json"));
    let event = input["hook_event_name"]
        .as_str()
        .expect("input.json names hook_event_name")
        .to_string();
    let outcome = engine.execute(&event, input).await;
    engine.close().await;
    comparable(serde_json::to_value(&outcome).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scenario_gives_its_expected_outcome() {
    let root = PathBuf::from(hookhost_tests::TESTS_DIR).join("scenarios");
    let bless = std::env::var_os("HOOKHOST_BLESS").is_some_and(|v| v == "1");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no scenarios in {}", root.display());
    let mut failures = Vec::new();
    for dir in &dirs {
        let actual = run(dir).await;
        let expected_path = dir.join("expected.json");
        if bless {
            let text = serde_json::to_string_pretty(&actual).unwrap() + "\n";
            std::fs::write(&expected_path, text).unwrap();
            continue;
        }
        if !expected_path.exists() {
            failures.push(format!(
                "{}: no expected.json (run with HOOKHOST_BLESS=1)",
                dir.display()
            ));
            continue;
        }
        let expected = read_json(&expected_path);
        if actual != expected {
            failures.push(format!(
                "{}:\nexpected {}\nactual   {}",
                dir.display(),
                serde_json::to_string_pretty(&expected).unwrap(),
                serde_json::to_string_pretty(&actual).unwrap()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

//! `hookhost test [DIR]`: runs fixture files against components or settings, one line
//! per case and a summary, exit 1 when any case fails. Hook authors run it in their CI.
//!
//! A fixture is a JSON file in `DIR/tests/` (or `DIR` itself when it has no `tests/`),
//! holding one case or a list of cases:
//!
//! ```json
//! {"name": "denies rm -rf", "component": "../guard.wasm", "config": {"deny": ["x"]},
//!  "event": "PreToolUse", "input": {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}},
//!  "expect": {"decision": "deny", "reason": "not allowed", "context": "…"}}
//! ```
//!
//! `component` (with optional `config` and any other Wasm hook fields under `hook`) or
//! `settings` names what runs, relative to the fixture file. `expect.decision` is one of
//! `allow`, `deny`, `ask`, `defer`, `block`, `none`; `reason` and `context` are
//! substrings of the merged reason and additional context; `error` a substring of the
//! first hook error (for hooks expected to fail).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use hookhost::{Engine, EngineOptions, HookOutcome, LoadOptions};
use serde::Deserialize;
use serde_json::{Value, json};

/// Arguments of `hookhost test`.
#[derive(Debug, clap::Args)]
pub struct TestArgs {
    /// A hook project (fixtures in its `tests/`), a folder of fixtures, or one fixture
    /// file.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Folder for compiled components (default: the user cache).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
}

/// One test case.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: Option<String>,
    component: Option<PathBuf>,
    #[serde(default)]
    config: Value,
    /// Further Wasm hook fields (`fuel`, `memoryMb`, `timeout`, `allowedPaths`, …).
    #[serde(default)]
    hook: Value,
    settings: Option<PathBuf>,
    event: String,
    #[serde(default)]
    input: Value,
    #[serde(default)]
    expect: Expect,
}

/// What a case expects.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    decision: Option<String>,
    reason: Option<String>,
    context: Option<String>,
    error: Option<String>,
}

const DECISIONS: &[&str] = &["allow", "deny", "ask", "defer", "block", "none"];

/// Runs every fixture under `args.path`.
pub async fn run(args: TestArgs) -> anyhow::Result<ExitCode> {
    let files = fixture_files(&args.path)?;
    if files.is_empty() {
        bail!("no fixture files (*.json) found in {}", args.path.display());
    }
    let scratch = tempfile::tempdir().context("cannot create a scratch folder")?;
    let (mut passed, mut failed) = (0, 0);
    for file in &files {
        let cases = match read_cases(file) {
            Ok(cases) => cases,
            Err(err) => {
                println!("FAIL {}: {err:#}", file.display());
                failed += 1;
                continue;
            }
        };
        let many = cases.len() > 1;
        for (index, case) in cases.into_iter().enumerate() {
            let name = case.name.clone().unwrap_or_else(|| {
                let stem = file.file_stem().unwrap_or_default().to_string_lossy();
                if many {
                    format!("{stem}[{index}]")
                } else {
                    stem.into_owned()
                }
            });
            let base = file
                .parent()
                .and_then(|dir| dir.canonicalize().ok())
                .unwrap_or_default();
            match run_case(&case, &base, scratch.path(), args.cache_dir.as_deref()).await {
                Ok(()) => {
                    println!("ok   {name}");
                    passed += 1;
                }
                Err(err) => {
                    println!("FAIL {name}: {err:#}");
                    failed += 1;
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The fixture files `path` names, sorted.
fn fixture_files(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let dir = if path.join("tests").is_dir() {
        path.join("tests")
    } else {
        path.to_path_buf()
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    Ok(files)
}

fn read_cases(file: &Path) -> anyhow::Result<Vec<Case>> {
    let text = std::fs::read_to_string(file).context("cannot read")?;
    let value: Value = serde_json::from_str(&text).context("not JSON")?;
    let cases = match value {
        Value::Array(items) => items,
        other => vec![other],
    };
    cases
        .into_iter()
        .enumerate()
        .map(|(i, case)| serde_json::from_value(case).with_context(|| format!("case {i}")))
        .collect()
}

async fn run_case(
    case: &Case,
    base: &Path,
    scratch: &Path,
    cache_dir: Option<&Path>,
) -> anyhow::Result<()> {
    if let Some(decision) = &case.expect.decision
        && !DECISIONS.contains(&decision.as_str())
    {
        bail!("expect.decision `{decision}` is not one of {DECISIONS:?}");
    }
    let settings = match (&case.component, &case.settings) {
        (Some(component), None) => {
            let mut hook = json!({"type": "wasm", "component": base.join(component),
                "config": case.config});
            if let (Some(hook), Some(extra)) = (hook.as_object_mut(), case.hook.as_object()) {
                hook.extend(extra.clone());
            }
            let path = scratch.join(format!("settings-{}.json", unique()));
            let settings = json!({"hooks": {case.event.clone(): [{"hooks": [hook]}]}});
            std::fs::write(&path, settings.to_string()).context("cannot write settings")?;
            path
        }
        (None, Some(settings)) => base.join(settings),
        _ => bail!("give exactly one of `component` and `settings`"),
    };
    let load = LoadOptions {
        project_dir: Some(scratch.to_path_buf()),
        managed_path: Some(scratch.join("no-managed-settings.json")),
        settings: vec![settings.display().to_string()],
        ..LoadOptions::default()
    };
    let mut options = EngineOptions::default();
    if let Some(dir) = cache_dir {
        options.wasm.cache_dir = Some(dir.to_path_buf());
    }
    options.wasm.max_instances = 8;
    // Compile in a child process of this very binary: memory- and time-bounded.
    options.wasm.compile_worker = std::env::current_exe().ok();
    let engine = Engine::load(&load, options).context("cannot start the engine")?;
    if let Some(diagnostic) = engine
        .diagnostics()
        .iter()
        .find(|d| d.severity == hookhost::Severity::Error)
    {
        bail!("configuration: {diagnostic}");
    }
    let mut input = match &case.input {
        Value::Object(map) => map.clone(),
        Value::Null => Default::default(),
        _ => bail!("`input` must be a JSON object"),
    };
    input.entry("hook_event_name").or_insert(json!(case.event));
    let body = serde_json::to_vec(&input)?;
    let limits = hookhost::RequestLimits {
        max_body: body.len(),
        same_project: false,
    };
    let answer = engine
        .answer(hookhost::Request {
            body: &body,
            event: Some(&case.event),
            session_id: "hookhost-test",
            limits: &limits,
        })
        .await;
    engine.close().await;
    let outcome = match answer {
        hookhost::Answer::Outcome(outcome) => *outcome,
        hookhost::Answer::Failed(failure) => bail!("{failure}"),
    };
    check(&case.expect, &outcome)
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The decision an outcome stands for, in the fixtures' words.
fn decision(outcome: &HookOutcome) -> &'static str {
    match outcome.permission_decision {
        Some(decision) => decision.as_str(),
        None if outcome.should_block => "block",
        None => "none",
    }
}

fn check(expect: &Expect, outcome: &HookOutcome) -> anyhow::Result<()> {
    let first_error = outcome.hooks.iter().find_map(|h| h.error.as_deref());
    if expect.error.is_none()
        && let Some(error) = first_error
    {
        bail!("a hook failed: {error}");
    }
    if let Some(want) = &expect.decision
        && decision(outcome) != want
    {
        bail!("expected decision {want}, got {}", decision(outcome));
    }
    let reason = outcome
        .block_reason
        .as_deref()
        .or(outcome.permission_decision_reason.as_deref());
    contains("reason", expect.reason.as_deref(), reason)?;
    contains(
        "context",
        expect.context.as_deref(),
        outcome.additional_context.as_deref(),
    )?;
    contains("error", expect.error.as_deref(), first_error)
}

fn contains(what: &str, want: Option<&str>, got: Option<&str>) -> anyhow::Result<()> {
    match (want, got) {
        (None, _) => Ok(()),
        (Some(want), Some(got)) if got.contains(want) => Ok(()),
        (Some(want), got) => bail!("expected {what} containing {want:?}, got {got:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_read_one_or_many_and_refuse_unknown_fields() {
        let dir = tempfile::tempdir().unwrap();
        let one = dir.path().join("one.json");
        std::fs::write(&one, r#"{"component": "a.wasm", "event": "Stop"}"#).unwrap();
        assert_eq!(read_cases(&one).unwrap().len(), 1);
        let many = dir.path().join("many.json");
        std::fs::write(&many, r#"[{"event": "Stop"}, {"event": "PreToolUse"}]"#).unwrap();
        assert_eq!(read_cases(&many).unwrap().len(), 2);
        let typo = dir.path().join("typo.json");
        std::fs::write(&typo, r#"{"event": "Stop", "expect": {"decison": "deny"}}"#).unwrap();
        let err = format!("{:#}", read_cases(&typo).unwrap_err());
        assert!(err.contains("decison"), "{err}");
    }

    #[test]
    fn substring_checks_name_what_they_wanted() {
        assert!(contains("reason", Some("no"), Some("say no")).is_ok());
        let err = contains("reason", Some("yes"), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("reason") && err.contains("yes"), "{err}");
    }
}

//! `hookhost explain`: for every configured hook, whether it runs for an input and, if
//! not, why; then each answer, and how the merge decided. The hooks really run (an
//! explanation of what did not happen would be a guess).

use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use super::{CliError, CliResult, ConfigArgs};

/// `hookhost explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// Event name; defaults to the input's `hook_event_name`.
    event: Option<String>,
    /// Event input JSON file, or `-` for standard input.
    #[arg(long, value_name = "FILE")]
    input: String,
    /// `text` (default) or `json`.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
    format: String,
    #[command(flatten)]
    config: ConfigArgs,
}

pub(super) async fn run(args: ExplainArgs) -> CliResult {
    let bytes = super::read_input(Some(&args.input))?;
    let engine = args.config.one_shot_engine(false)?;
    let input: Value = serde_json::from_slice(&bytes)
        .map_err(|err| CliError::Usage(anyhow::anyhow!("--input: not valid JSON: {err}")))?;
    let field = engine.dialect().event_field;
    let Some(event) = args
        .event
        .clone()
        .or_else(|| input.get(field).and_then(Value::as_str).map(str::to_string))
    else {
        return Err(anyhow::anyhow!("no event: name it or put `{field}` in the input").into());
    };
    let verdicts = engine.explain(&event, input.clone());
    let limits = hookhost::RequestLimits::new(super::FIRE_MAX_INPUT, false);
    let outcome = match engine
        .answer(hookhost::Request::new(&bytes, "hookhost-explain", &limits).event(Some(&event)))
        .await
        .into_result()
    {
        Ok(outcome) => outcome,
        Err(failure) => return Err(CliError::Usage(failure.into())),
    };
    engine.close().await;
    // The Wasm components this event loaded, by digest (and where they came from: a
    // registry reference, a builtin).
    let components: Vec<Value> = engine
        .hooks()
        .iter()
        .filter(|hook| hook.event == event)
        .filter_map(|hook| {
            Some(
                json!({"hook": hook.name, "file": hook.file, "location": hook.location,
                        "sha256": hook.sha256.as_ref()?, "provenance": hook.provenance}),
            )
        })
        .collect();
    if args.format == "json" {
        let report = json!({
            "components": components,
            "event": event,
            "dialect": engine.dialect().name,
            "policy": engine.policy().map(|p| json!({"reference": p.reference,
                "revision": p.revision, "activated_at": p.activated_at, "error": p.error})),
            "diagnostics": engine.diagnostics().iter().map(ToString::to_string).collect::<Vec<_>>(),
            "hooks": verdicts,
            "outcome": outcome,
            "decided_by": decided_by(&outcome),
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}", super::dialect_line(&engine));
    if let Some(policy) = engine.policy() {
        println!(
            "policy: {} revision {}",
            policy.reference,
            policy.revision.as_deref().unwrap_or("none in force")
        );
    }
    for diagnostic in engine.diagnostics() {
        println!("{diagnostic}");
    }
    let (this, other): (Vec<_>, Vec<_>) = verdicts.iter().partition(|v| v.event == event);
    println!("{event}: {} hooks configured", this.len());
    for verdict in &this {
        let mark = if verdict.runs { "runs   " } else { "skipped" };
        let kind = verdict
            .executor
            .map(|kind| format!("[{kind}] "))
            .unwrap_or_default();
        println!(
            "  {mark} {kind}{} — {}: {}",
            super::one_line(&verdict.name, 60),
            verdict.file,
            verdict.location
        );
        if let Some(why) = &verdict.why {
            println!("          {why}");
        }
    }
    if !other.is_empty() {
        println!("other events: {} hooks (not for {event})", other.len());
    }
    println!("answers:");
    for report in &outcome.hooks {
        let status = super::status_name(report.status);
        let decision = report
            .decision
            .map(|d| format!(", decision {}", d.as_str()))
            .unwrap_or_default();
        let error = report
            .error
            .as_deref()
            .map(|e| format!(" ({})", super::one_line(e, 120)))
            .unwrap_or_default();
        println!(
            "  [{}] {}: {status}{decision}{error}",
            report.executor,
            super::one_line(&report.name, 60)
        );
    }
    if !components.is_empty() {
        println!("components:");
        for component in &components {
            let provenance = component["provenance"]
                .as_str()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default();
            println!(
                "  {}: sha256:{}{provenance}",
                component["hook"].as_str().unwrap_or_default(),
                component["sha256"].as_str().unwrap_or_default()
            );
        }
    }
    print!(
        "merged: {}",
        super::summary(&outcome).lines().next().unwrap_or("")
    );
    match decided_by(&outcome) {
        Some(name) => println!(" (decided by {name})"),
        None => println!(),
    }
    if let (Some(digest), Some((envelope, _))) = (&outcome.envelope, engine.envelope()) {
        println!("runs inside envelope {}:", &digest[..12]);
        for line in envelope.to_string().lines().skip(1) {
            println!("{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The hook whose answer decided the merged outcome: the first blocking one, else the
/// first whose decision is the merged permission decision.
fn decided_by(outcome: &hookhost::EventOutcome) -> Option<String> {
    if outcome.should_block {
        return outcome
            .hooks
            .iter()
            .find(|h| h.status == hookhost::HookStatus::Blocking)
            .map(|h| h.name.clone());
    }
    let wanted = outcome.permission_decision.as_ref()?.as_str();
    outcome
        .hooks
        .iter()
        .find(|h| h.decision.map(hookhost::HookDecision::as_str) == Some(wanted))
        .map(|h| h.name.clone())
}

//! `hookhost hook --agent NAME`: the command an agent's installed hook runs. It reads the
//! agent's input, normalises it to hookhost's events and tools ([`hookhost::Agent`]), runs
//! the hooks of hookhost's own files (the same `~/.config/hookhost/hooks.json` for every
//! agent) and answers in the agent's own form — always in-band, with exit 0: the agents
//! disagree on what a failing hook means (Copilot blocks on a non-zero exit, Codex and
//! Gemini run the tool), so a failure hookhost cannot run past is an explicit deny when a
//! `failClosed` hook guards the event, else an explicit allow, and the answer comes before
//! the agent's own timeout.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use hookhost::{Agent, AgentReply, EventOutcome};
use serde_json::Value;

use super::{ConfigArgs, OwnerFolders};

/// `hookhost hook`.
#[derive(Debug, Clone, Args)]
pub struct AgentHookArgs {
    /// The agent whose hook this is: claude, copilot, codex, gemini, cursor, opencode,
    /// factory.
    #[arg(long, value_parser = parse_agent)]
    agent: Agent,
    /// The agent's name for the event, where its input carries none (Copilot's
    /// camelCase events).
    #[arg(long)]
    event: Option<String>,
    /// Answer within this many seconds whatever the hooks do: below the agent's own
    /// timeout, so that its failure rule never decides.
    #[arg(long, default_value_t = 50)]
    deadline: u64,
    /// The owner's home (default: the account's home from the password database).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    #[command(flatten)]
    folders: OwnerFolders,
}

pub(super) fn parse_agent(name: &str) -> Result<Agent, String> {
    Agent::parse(name).ok_or_else(|| {
        let names: Vec<&str> = Agent::ALL.iter().map(|agent| agent.name()).collect();
        format!("unknown agent `{name}` (one of: {})", names.join(", "))
    })
}

/// Runs the hook and writes the agent's answer.
pub async fn run(args: AgentHookArgs) -> ExitCode {
    let agent = args.agent;
    let event = args.event.clone().unwrap_or_default();
    let reply = if super::started_by_hookhost() {
        // The hookhost that started this process already runs the hooks.
        AgentReply::default()
    } else {
        let deadline = Duration::from_secs(args.deadline.max(1));
        match tokio::time::timeout(deadline, answer(args)).await {
            Ok(reply) => reply,
            Err(_) => agent.failure_reply(
                &event,
                true,
                &format!("hookhost did not answer within {}s", deadline.as_secs()),
            ),
        }
    };
    write(&reply)
}

/// The agent's answer to the input on stdin.
async fn answer(args: AgentHookArgs) -> AgentReply {
    let agent = args.agent;
    let given_event = args.event.clone().unwrap_or_default();
    let bytes = match super::read_input(None) {
        Ok(bytes) => bytes,
        Err(err) => return agent.failure_reply(&given_event, true, &format!("{err:#}")),
    };
    let raw: Option<Value> = serde_json::from_slice(&bytes).ok();
    let project = raw.as_ref().and_then(|raw| project_of(agent, raw));
    let mut config = ConfigArgs::own(project);
    config.home = args.home;
    config.folders = args.folders;
    let engine = match config.one_shot_engine(true) {
        Ok(engine) => engine,
        Err(err) => {
            return agent.failure_reply(
                &given_event,
                true,
                &format!("hookhost cannot start: {err}"),
            );
        }
    };
    let normalised = match raw
        .ok_or_else(|| "the input is not JSON".to_string())
        .and_then(|raw| {
            agent
                .normalise(args.event.as_deref(), raw)
                .map_err(|e| e.to_string())
        }) {
        Ok(normalised) => normalised,
        Err(reason) => {
            return agent.failure_reply(&given_event, engine.has_any_fail_closed(), &reason);
        }
    };
    let guarded = engine.has_fail_closed(&normalised.event);
    let limits = hookhost::RequestLimits::new(super::FIRE_MAX_INPUT, false);
    let mut outcome: Option<EventOutcome> = None;
    for input in &normalised.inputs {
        let body = serde_json::to_vec(input).unwrap_or_default();
        let request =
            hookhost::Request::new(&body, agent.name(), &limits).event(Some(&normalised.event));
        match engine.answer(request).await.into_result() {
            Ok(this) => {
                let denies = this.should_block
                    || this.permission_decision == Some(hookhost::PermissionDecision::Deny);
                outcome = Some(this);
                if denies {
                    break; // one file of a patch refused refuses the patch
                }
            }
            Err(failure) => {
                return agent.failure_reply(&normalised.agent_event, guarded, &failure.to_string());
            }
        }
    }
    engine.close().await;
    match outcome {
        Some(outcome) => agent.reply(&normalised.agent_event, &outcome),
        None => AgentReply::default(),
    }
}

/// The project an agent's input names: its working directory (`cwd`, or Cursor's first
/// workspace root), where it is absolute.
fn project_of(agent: Agent, raw: &Value) -> Option<PathBuf> {
    let normalised = agent.normalise(Some("SessionStart"), raw.clone()).ok()?;
    let cwd = normalised.inputs.first()?.get("cwd")?.as_str()?;
    let path = PathBuf::from(cwd);
    path.is_absolute().then_some(path)
}

fn write(reply: &AgentReply) -> ExitCode {
    if let Some(line) = &reply.stderr {
        super::write_stderr(&format!("{line}\n"));
    }
    if !reply.stdout.is_empty() {
        super::write_stdout(&format!("{}\n", reply.stdout));
    }
    ExitCode::from(u8::try_from(reply.exit_code).unwrap_or(1))
}

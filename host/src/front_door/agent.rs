//! The agents' door: another agent's hook call read once, normalised to hookhost's events
//! and tool vocabulary — Claude Code's, the lingua franca of agent hooks: the shell tool is
//! `Bash` with `tool_input.command`, file writes `Write`/`Edit` with
//! `tool_input.file_path`, reads `Read`, MCP tools `mcp__server__tool` — with the agent's
//! name added as the input's `agent` field, each input answered through the front door,
//! and hookhost's outcome answered in the agent's own form. A policy written once
//! (bash-guard on `Bash`) guards every agent unchanged. Every entry point (`hookhost hook
//! --agent`, `serve`'s `/v1/agent/NAME`, an embedder's [`crate::Engine::answer_agent`])
//! takes this one path; the contracts it reads are [`crate::agent`]'s.
//!
//! Failures are answered in-band, always with exit 0, because the agents disagree on what a
//! failing hook means (Copilot blocks on any non-zero exit, Codex and Gemini run the tool):
//! an explicit deny when a `failClosed` hook guards the event, else an explicit allow.

mod apply_patch;
mod normalise;
mod reply;

use std::path::PathBuf;

use serde_json::Value;

use super::{Answer, Backend, Failure, RequestLimits};
use crate::agent::Agent;
use crate::output::PermissionDecision;

/// Why an agent's input could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The input is not a JSON object.
    #[error("{agent}'s hook input is not a JSON object")]
    NotAnObject {
        /// The agent.
        agent: &'static str,
    },
    /// Neither the command line nor the input names the event.
    #[error("{agent}'s hook input names no event (give --event)")]
    NoEvent {
        /// The agent.
        agent: &'static str,
    },
}

/// One agent's hook call as hookhost's: the event and the inputs to fire it with (one, or
/// for a Codex patch, one per file it touches).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Normalised {
    /// The agent.
    pub agent: Agent,
    /// The agent's own name for the event (its answer is shaped by it).
    pub agent_event: String,
    /// hookhost's name for it (`PreToolUse`, …).
    pub event: String,
    /// The inputs, in Claude Code's vocabulary.
    pub inputs: Vec<Value>,
}

/// What to hand back to the agent: the text for stdout and the exit status.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct AgentReply {
    /// The answer on stdout (empty: nothing to say).
    pub stdout: String,
    /// The exit status (0 unless the agent's form needs another).
    pub exit_code: i32,
    /// A line for stderr.
    pub stderr: Option<String>,
}

/// An agent's hook call, read once: its input normalised, or why it could not be.
#[derive(Debug, Clone)]
pub struct AgentCall {
    agent: Agent,
    /// The agent's event name as the caller gave it (empty: the input names it).
    given_event: String,
    read: Result<Normalised, Failure>,
}

impl AgentCall {
    /// Reads `agent`'s hook input `body` (or the failure that kept it from arriving):
    /// bounded to `limits.max_body`, parsed once by the front door's reader
    /// ([`crate::internals::parse_input`]), normalised. `event` is the event name the
    /// installed command passes where the agent's input does not carry one (Copilot's
    /// camelCase events).
    pub fn read(
        agent: Agent,
        event: Option<&str>,
        body: Result<&[u8], Failure>,
        limits: &RequestLimits,
    ) -> AgentCall {
        let read = body.and_then(|bytes| {
            if bytes.len() > limits.max_body {
                return Err(Failure::Oversize {
                    limit: limits.max_body,
                });
            }
            // Every agent sends an object: nothing at all is a broken call (the front door
            // reads it as `{}`, for hosts that send nothing on some events).
            if bytes.trim_ascii().is_empty() {
                return Err(Failure::Unreadable(format!(
                    "{}'s hook input is empty",
                    agent.name()
                )));
            }
            let raw =
                crate::input::parse(bytes).map_err(|err| Failure::Unreadable(err.to_string()))?;
            Normalised::read(agent, event, raw).map_err(|err| Failure::Unreadable(err.to_string()))
        });
        AgentCall {
            agent,
            given_event: event.unwrap_or_default().to_string(),
            read,
        }
    }

    /// The agent.
    pub fn agent(&self) -> Agent {
        self.agent
    }

    /// The call as read, or why it could not be.
    pub fn normalised(&self) -> Result<&Normalised, &Failure> {
        self.read.as_ref()
    }

    /// The project the call names: its working directory (`cwd`, or Cursor's first
    /// workspace root), where it is absolute.
    pub fn project(&self) -> Option<PathBuf> {
        let cwd = self
            .read
            .as_ref()
            .ok()?
            .inputs
            .first()?
            .get("cwd")?
            .as_str()?;
        let path = PathBuf::from(cwd);
        path.is_absolute().then_some(path)
    }

    /// The reply when hookhost cannot answer the call at all (it cannot start, or did not
    /// answer in time): a deny naming `reason`, whatever guards the event.
    pub fn unanswered(&self, reason: &str) -> AgentReply {
        AgentReply::failure(self.agent, self.agent_event(), true, reason)
    }

    /// The agent's name for the event: the input's, else the one given.
    fn agent_event(&self) -> &str {
        match &self.read {
            Ok(normalised) => &normalised.agent_event,
            Err(_) => &self.given_event,
        }
    }
}

/// The agent's reply to `call`: each of its inputs (one per file of a Codex patch)
/// answered by `answer` (hookhost's event name, the input) in turn, the first deny ending
/// it — one file refused refuses the patch. A call that could not be read, or an input
/// whose hooks could not run, gets the failure reply: a deny where a `failClosed` hook
/// guards the event (any event, when the call could not be read).
pub(crate) async fn answer<F, Fut>(
    backend: &impl Backend,
    call: &AgentCall,
    mut answer: F,
) -> AgentReply
where
    F: FnMut(String, Value) -> Fut,
    Fut: Future<Output = Answer>,
{
    let agent = call.agent;
    let normalised = match &call.read {
        Ok(normalised) => normalised,
        Err(failure) => {
            return AgentReply::failure(
                agent,
                &call.given_event,
                backend.guarded(None),
                &failure.to_string(),
            );
        }
    };
    let mut last: Option<(crate::outcome::EventOutcome, &Value)> = None;
    for input in &normalised.inputs {
        match answer(normalised.event.clone(), input.clone())
            .await
            .into_result()
        {
            Ok(outcome) => {
                let denies = outcome.should_block
                    || outcome.permission_decision == Some(PermissionDecision::Deny);
                last = Some((outcome, input));
                if denies {
                    break;
                }
            }
            Err(failure) => {
                let guarded = backend.guarded(Some(&normalised.event));
                return AgentReply::failure(
                    agent,
                    &normalised.agent_event,
                    guarded,
                    &failure.to_string(),
                );
            }
        }
    }
    match last {
        Some((outcome, input)) => {
            AgentReply::to_input(agent, &normalised.agent_event, input, &outcome)
        }
        None => AgentReply::default(),
    }
}

#[cfg(test)]
mod tests;

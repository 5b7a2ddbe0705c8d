//! Other agents at hookhost's door. Each agent's hook input is normalised to hookhost's
//! events and tool vocabulary — Claude Code's, the lingua franca of agent hooks: the shell
//! tool is `Bash` with `tool_input.command`, file writes `Write`/`Edit` with
//! `tool_input.file_path`, reads `Read`, MCP tools `mcp__server__tool` — with the agent's
//! name added as the input's `agent` field; hookhost's outcome is answered in the agent's
//! own form. A policy written once (bash-guard on `Bash`) guards every agent unchanged.
//!
//! The contracts are data ([`contracts`]): which event names, tool names, input fields and
//! answer form each agent uses, as observed from the real clients (Copilot CLI, Codex CLI,
//! Gemini CLI) or as their documentation gives them (Cursor, OpenCode, Factory).

mod apply_patch;
mod contracts;

use serde_json::{Map, Value, json};

use crate::outcome::EventOutcome;
use crate::output::PermissionDecision;

pub use contracts::Agent;
use contracts::{AnswerForm, Contract, Rewrite, ToolMap};

/// The input field naming the agent a call came from, for policies that care.
pub const AGENT_FIELD: &str = "agent";

/// The input field keeping the agent's own name for a tool hookhost renamed
/// (`exec_command` for `Bash`), so the answer speaks the agent's names again.
pub const AGENT_TOOL_FIELD: &str = "agent_tool_name";

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

impl Agent {
    /// Reads `raw`, the input the agent gave its hook; `event` is the event name the
    /// installed command passes where the agent's input does not carry one (Copilot's
    /// camelCase events).
    pub fn normalise(self, event: Option<&str>, raw: Value) -> Result<Normalised, AgentError> {
        let contract = self.contract();
        let Value::Object(mut map) = raw else {
            return Err(AgentError::NotAnObject { agent: self.name() });
        };
        let agent_event = event
            .map(str::to_string)
            .or_else(|| {
                map.get(contract.event_field)
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .ok_or(AgentError::NoEvent { agent: self.name() })?;
        let (event, fixed_tool) = contract.event(&agent_event);
        let event = event.to_string();
        for (from, to) in contract.fields {
            if let Some(value) = map.remove(*from) {
                map.entry(*to).or_insert(value);
            }
        }
        if !map.contains_key("cwd")
            && let Some(root) = map
                .get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|roots| roots.first())
                .cloned()
        {
            map.insert("cwd".into(), root);
        }
        if let Some(tool) = fixed_tool {
            // An event that is one tool's call (Cursor's `beforeShellExecution`): the tool
            // input is the event's own fields.
            let mut input = Map::new();
            for (from, to) in tool.args {
                if let Some(value) = map.remove(*from) {
                    input.insert((*to).to_string(), value);
                }
            }
            map.insert("tool_name".into(), json!(tool.tool));
            map.insert("tool_input".into(), Value::Object(input));
        }
        map.insert(
            crate::dialect::DialectId::Claude
                .dialect()
                .event_field
                .into(),
            json!(&event),
        );
        map.insert(AGENT_FIELD.into(), json!(self.name()));
        // Only hookhost names the agent's own tool (the envelope reads it).
        map.remove(AGENT_TOOL_FIELD);
        let inputs = match rename_tool(contract, &mut map) {
            Some(patch) => apply_patch::per_file(&map, &patch),
            None => vec![Value::Object(map)],
        };
        Ok(Normalised {
            agent_event,
            event,
            inputs,
        })
    }

    /// The agent's answer for `outcome` of its event `agent_event`.
    pub fn reply(self, agent_event: &str, outcome: &EventOutcome) -> AgentReply {
        let rewrite = self.contract().rewrite;
        if outcome.envelope.is_some() && rewrite.is_none() {
            // The rewrite would be lost and the command run unconfined: refuse instead.
            let reason = format!(
                "hookhost envelope: the owner's policy runs every shell command inside the kernel's envelope, and hookhost cannot rewrite {}'s commands through its hook, so the command was not run; start the agent inside the envelope instead (`hookhost envelope session -- <the agent's command>`; `hookhost status --agent {}` says so)",
                self.name(),
                self.name()
            );
            return self.failure_reply(agent_event, true, &reason);
        }
        let decision = Decision::of(outcome);
        if outcome.updated_input.is_some()
            && matches!(
                rewrite,
                Some(Rewrite::UpdatedInputWithAllow | Rewrite::ModifiedArgsWithAllow)
            )
            && decision == Decision::None
        {
            // Codex and Copilot CLI take a rewritten input only beside an explicit allow.
            let mut allowed = outcome.clone();
            allowed.permission_decision = Some(PermissionDecision::Allow);
            return self.answer(agent_event, &allowed, Decision::Allow);
        }
        self.answer(agent_event, outcome, decision)
    }

    /// The agent's answer for `outcome` of the call `input` (one of the normalised
    /// inputs): a rewritten tool input goes back in the agent's own field names
    /// (`exec_command`'s `cmd`, Copilot's `path`).
    pub fn reply_to_input(
        self,
        agent_event: &str,
        input: &Value,
        outcome: &EventOutcome,
    ) -> AgentReply {
        let tool = input
            .get(AGENT_TOOL_FIELD)
            .and_then(Value::as_str)
            .and_then(|name| self.contract().tools.iter().find(|t| t.agent == name));
        let (Some(tool), Some(Value::Object(updated))) = (tool, &outcome.updated_input) else {
            return self.reply(agent_event, outcome);
        };
        let mut updated = updated.clone();
        for (agent_name, ours) in tool.args {
            if agent_name != ours
                && !updated.contains_key(*agent_name)
                && let Some(value) = updated.remove(*ours)
            {
                updated.insert((*agent_name).to_string(), value);
            }
        }
        let mut renamed = outcome.clone();
        renamed.updated_input = Some(Value::Object(updated));
        self.reply(agent_event, &renamed)
    }

    /// The answer when hookhost itself could not run the hooks: an explicit deny in the
    /// agent's form when a `failClosed` hook guards the event (`guarded`), else an
    /// explicit allow — always in-band with exit 0, because the agents disagree on what
    /// a failing hook means (Copilot blocks on any non-zero exit, Codex and Gemini run
    /// the tool).
    pub fn failure_reply(self, agent_event: &str, guarded: bool, reason: &str) -> AgentReply {
        let (event, _) = self.contract().event(agent_event);
        let mut outcome = EventOutcome::empty(event);
        let decision = if guarded {
            outcome.should_block = true;
            outcome.block_reason = Some(reason.to_string());
            outcome.permission_decision = Some(PermissionDecision::Deny);
            outcome.permission_decision_reason = Some(reason.to_string());
            Decision::Deny(reason.to_string())
        } else {
            outcome.system_message = Some(format!("hookhost: {reason}"));
            Decision::Allow
        };
        self.answer(agent_event, &outcome, decision)
    }

    fn answer(self, agent_event: &str, outcome: &EventOutcome, decision: Decision) -> AgentReply {
        let contract = self.contract();
        let form = contract.answer_form(agent_event);
        let stdout = match form {
            AnswerForm::Claude => {
                let reply = outcome.to_claude_reply();
                return AgentReply {
                    stdout: reply.plain.unwrap_or_else(|| reply.stdout.to_string()),
                    exit_code: reply.exit_code,
                    stderr: reply.stderr,
                };
            }
            AnswerForm::CopilotFlat => match &decision {
                Decision::Deny(reason) => {
                    json!({"permissionDecision": "deny", "permissionDecisionReason": reason})
                }
                Decision::Ask(reason) => {
                    json!({"permissionDecision": "ask", "permissionDecisionReason": reason})
                }
                Decision::Allow => json!({"permissionDecision": "allow"}),
                Decision::None => json!({}),
            },
            AnswerForm::Decision => match &decision {
                Decision::Deny(reason) | Decision::Ask(reason) => {
                    json!({"decision": "deny", "reason": reason})
                }
                Decision::Allow => json!({"decision": "allow"}),
                Decision::None => json!({}),
            },
            AnswerForm::Permission => match &decision {
                Decision::Deny(reason) => {
                    json!({"permission": "deny", "user_message": reason, "agent_message": reason})
                }
                Decision::Ask(reason) => {
                    json!({"permission": "ask", "user_message": reason, "agent_message": reason})
                }
                Decision::Allow | Decision::None => json!({"permission": "allow"}),
            },
        };
        let mut stdout = stdout;
        if let (Some(map), Some(context)) = (stdout.as_object_mut(), &outcome.additional_context)
            && !matches!(form, AnswerForm::Permission)
        {
            map.insert("systemMessage".into(), json!(context));
        }
        // A rewritten tool input, in the field this agent reads it from.
        if let (Some(map), Some(updated)) = (stdout.as_object_mut(), &outcome.updated_input)
            && !matches!(decision, Decision::Deny(_))
        {
            match contract.rewrite {
                Some(Rewrite::ModifiedArgsWithAllow) => {
                    map.insert("modifiedArgs".into(), updated.clone());
                }
                Some(Rewrite::ToolInput) => {
                    map.insert(
                        "hookSpecificOutput".into(),
                        json!({"hookEventName": agent_event, "tool_input": updated}),
                    );
                }
                _ => {}
            }
        }
        AgentReply {
            stdout: stdout.to_string(),
            exit_code: 0,
            stderr: None,
        }
    }
}

/// What the outcome decided, in the terms every agent's form can say.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Decision {
    /// Refuse the call (a `deny`, or a block), with the reason.
    Deny(String),
    /// Ask the user.
    Ask(String),
    /// Allow it explicitly.
    Allow,
    /// No hook decided.
    None,
}

impl Decision {
    fn of(outcome: &EventOutcome) -> Decision {
        let reason = || {
            outcome
                .permission_decision_reason
                .clone()
                .or_else(|| outcome.block_reason.clone())
                .unwrap_or_else(|| "blocked by a hookhost hook".to_string())
        };
        match outcome.permission_decision {
            Some(PermissionDecision::Deny) => Decision::Deny(reason()),
            _ if outcome.should_block => Decision::Deny(reason()),
            Some(PermissionDecision::Ask) | Some(PermissionDecision::Defer) => {
                Decision::Ask(reason())
            }
            Some(PermissionDecision::Allow) => Decision::Allow,
            None => Decision::None,
        }
    }
}

/// Gives the input's tool its hookhost name and fields; a Codex `apply_patch` returns its
/// patch text instead (its files become one input each).
fn rename_tool(contract: &Contract, map: &mut Map<String, Value>) -> Option<String> {
    let name = map.get("tool_name").and_then(Value::as_str)?.to_string();
    if contract.patch_tool == Some(name.as_str()) {
        return Some(apply_patch::text(map.get("tool_input")?)?.to_string());
    }
    if let Some(mcp) = contract.mcp_prefix
        && let Some(rest) = name.strip_prefix(mcp)
        && let Some((server, tool)) = rest.split_once(contract.mcp_separator)
    {
        map.insert("tool_name".into(), json!(format!("mcp__{server}__{tool}")));
        return None;
    }
    let tool = contract.tools.iter().find(|t: &&ToolMap| t.agent == name)?;
    map.insert("tool_name".into(), json!(tool.tool));
    if tool.agent != tool.tool {
        map.insert(AGENT_TOOL_FIELD.into(), json!(tool.agent));
    }
    if let Some(Value::Object(args)) = map.get_mut("tool_input") {
        for (from, to) in tool.args {
            if from != to
                && let Some(value) = args.remove(*from)
            {
                args.entry(*to).or_insert(value);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;

//! hookhost's outcome in an agent's own form: the decision in the fields its event reads
//! (Claude Code's JSON, Copilot's flat `permissionDecision`, `{"decision"}`, Cursor's
//! `{"permission"}`), context as `systemMessage`, a rewritten tool input where the agent
//! takes one — in its own field names — and the failure replies.

use serde_json::{Value, json};

use super::AgentReply;
use crate::agent::contract::{AnswerForm, Rewrite};
use crate::agent::{AGENT_TOOL_FIELD, Agent};
use crate::outcome::EventOutcome;
use crate::output::PermissionDecision;

impl AgentReply {
    /// `agent`'s answer for `outcome` of its event `agent_event`.
    pub fn to_outcome(agent: Agent, agent_event: &str, outcome: &EventOutcome) -> AgentReply {
        let rewrite = agent.contract().rewrite;
        if outcome.envelope.is_some() && rewrite.is_none() {
            // The rewrite would be lost and the command run unconfined: refuse instead.
            let reason = format!(
                "hookhost envelope: the owner's policy runs every shell command inside the kernel's envelope, and hookhost cannot rewrite {}'s commands through its hook, so the command was not run; start the agent inside the envelope instead (`hookhost envelope session -- <the agent's command>`; `hookhost status --agent {}` says so)",
                agent.name(),
                agent.name()
            );
            return AgentReply::failure(agent, agent_event, true, &reason);
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
            return AgentReply::in_form(agent, agent_event, &allowed, Decision::Allow);
        }
        AgentReply::in_form(agent, agent_event, outcome, decision)
    }

    /// `agent`'s answer for `outcome` of the call `input` (one of the normalised inputs):
    /// a rewritten tool input goes back in the agent's own field names (`exec_command`'s
    /// `cmd`, Copilot's `path`).
    pub fn to_input(
        agent: Agent,
        agent_event: &str,
        input: &Value,
        outcome: &EventOutcome,
    ) -> AgentReply {
        let tool = input
            .get(AGENT_TOOL_FIELD)
            .and_then(Value::as_str)
            .and_then(|name| agent.contract().tools.iter().find(|t| t.agent == name));
        let (Some(tool), Some(Value::Object(updated))) = (tool, &outcome.updated_input) else {
            return AgentReply::to_outcome(agent, agent_event, outcome);
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
        AgentReply::to_outcome(agent, agent_event, &renamed)
    }

    /// The answer when hookhost itself could not run the hooks: an explicit deny in the
    /// agent's form when a `failClosed` hook guards the event (`guarded`), else an
    /// explicit allow — always in-band with exit 0.
    pub fn failure(agent: Agent, agent_event: &str, guarded: bool, reason: &str) -> AgentReply {
        let (event, _) = agent.contract().event(agent_event);
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
        AgentReply::in_form(agent, agent_event, &outcome, decision)
    }

    fn in_form(
        agent: Agent,
        agent_event: &str,
        outcome: &EventOutcome,
        decision: Decision,
    ) -> AgentReply {
        let contract = agent.contract();
        let form = contract.answer_form(agent_event);
        let mut stdout = match form {
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

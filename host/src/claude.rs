//! Renders a [`HookOutcome`] as a Claude Code hook answer, so `hookhost fire --format
//! claude` can itself be configured as a Claude Code command hook.

use serde_json::{Map, Value, json};

use crate::event::{EventSpec, Fields};
use crate::outcome::HookOutcome;

/// A Claude Code hook answer: JSON on stdout, an exit code, optional stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaudeAnswer {
    /// What to print on stdout.
    pub stdout: Value,
    /// 0, or 2 when the event blocks only through exit code 2.
    pub exit_code: i32,
    /// What to print on stderr (the block reason with exit code 2).
    pub stderr: Option<String>,
}

/// Events whose block can be expressed as JSON `decision: "block"`.
const JSON_BLOCK_EVENTS: &[&str] = &[
    "UserPromptSubmit",
    "UserPromptExpansion",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Stop",
    "SubagentStop",
    "ConfigChange",
    "PreCompact",
    "TaskCreated",
    "PreModelSwitch",
];

impl HookOutcome {
    /// The Claude Code answer equivalent to this outcome.
    pub fn to_claude_answer(&self) -> ClaudeAnswer {
        let spec = EventSpec::for_name(&self.event);
        let mut top = Map::new();
        let mut specific = Map::new();
        if !self.continue_ {
            top.insert("continue".into(), json!(false));
            if let Some(reason) = &self.stop_reason {
                top.insert("stopReason".into(), json!(reason));
            }
        }
        if let Some(message) = &self.system_message {
            top.insert("systemMessage".into(), json!(message));
        }
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                specific.insert(key.to_string(), value);
            }
        };
        put(
            "additionalContext",
            self.additional_context.as_ref().map(|c| json!(c)),
        );
        if !self.watch_paths.is_empty() {
            put("watchPaths", Some(json!(self.watch_paths)));
        }
        put(
            "initialUserMessage",
            self.initial_user_message.as_ref().map(|m| json!(m)),
        );
        put(
            "sessionTitle",
            self.session_title.as_ref().map(|m| json!(m)),
        );
        put("retry", self.retry.map(|r| json!(r)));
        put("updatedToolOutput", self.updated_tool_output.clone());
        let mut exit_code = 0;
        let mut stderr = None;
        match self.event.as_str() {
            "PreToolUse" => {
                put(
                    "permissionDecision",
                    self.permission_decision.as_ref().map(|d| json!(d)),
                );
                put(
                    "permissionDecisionReason",
                    self.permission_decision_reason.as_ref().map(|r| json!(r)),
                );
                put("updatedInput", self.updated_input.clone());
            }
            "PermissionRequest" => {
                if let Some(behavior) = self
                    .permission_decision
                    .as_deref()
                    .filter(|d| matches!(*d, "allow" | "deny"))
                {
                    let mut decision = Map::new();
                    decision.insert("behavior".into(), json!(behavior));
                    if behavior == "allow" {
                        if let Some(input) = &self.updated_input {
                            decision.insert("updatedInput".into(), input.clone());
                        }
                        if !self.updated_permissions.is_empty() {
                            decision.insert(
                                "updatedPermissions".into(),
                                json!(self.updated_permissions),
                            );
                        }
                    } else {
                        if let Some(message) = &self.permission_decision_reason {
                            decision.insert("message".into(), json!(message));
                        }
                        if self.interrupt {
                            decision.insert("interrupt".into(), json!(true));
                        }
                    }
                    put("decision", Some(Value::Object(decision)));
                }
            }
            event if self.should_block && JSON_BLOCK_EVENTS.contains(&event) => {
                top.insert("decision".into(), json!("block"));
                top.insert(
                    "reason".into(),
                    json!(self.block_reason.clone().unwrap_or_default()),
                );
                if spec.honours(Fields::PERMISSION_DECISION) {
                    put(
                        "permissionDecision",
                        self.permission_decision.as_ref().map(|d| json!(d)),
                    );
                }
            }
            _ if self.should_block => {
                exit_code = 2;
                stderr = Some(
                    self.block_reason
                        .clone()
                        .unwrap_or_else(|| "blocked by hookhost".into()),
                );
            }
            _ => {}
        }
        if !specific.is_empty() {
            specific.insert("hookEventName".into(), json!(self.event));
            top.insert("hookSpecificOutput".into(), Value::Object(specific));
        }
        ClaudeAnswer {
            stdout: Value::Object(top),
            exit_code,
            stderr,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::outcome::HookOutcome;
    use serde_json::json;

    #[test]
    fn pre_tool_use_deny() {
        let mut outcome = HookOutcome::empty("PreToolUse");
        outcome.should_block = true;
        outcome.permission_decision = Some("deny".into());
        outcome.permission_decision_reason = Some("no".into());
        let answer = outcome.to_claude_answer();
        assert_eq!(answer.exit_code, 0);
        assert_eq!(
            answer.stdout,
            json!({"hookSpecificOutput": {"permissionDecision": "deny",
                "permissionDecisionReason": "no", "hookEventName": "PreToolUse"}})
        );
    }

    #[test]
    fn stop_block_and_exit_two_events() {
        let mut outcome = HookOutcome::empty("Stop");
        outcome.should_block = true;
        outcome.block_reason = Some("tests fail".into());
        assert_eq!(
            outcome.to_claude_answer().stdout,
            json!({"decision": "block", "reason": "tests fail"})
        );
        outcome.event = "TeammateIdle".into();
        let answer = outcome.to_claude_answer();
        assert_eq!(answer.exit_code, 2);
        assert_eq!(answer.stderr.as_deref(), Some("tests fail"));
    }
}

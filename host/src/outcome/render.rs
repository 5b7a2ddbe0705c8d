//! Renders an [`EventOutcome`] as a Claude Code hook answer, so `hookhost fire --format
//! claude` can itself be configured as a Claude Code command hook. Keys come from the
//! [field table](crate::protocol::fields); the block's form from the event catalog.

use serde_json::{Map, Value, json};

use super::EventOutcome;
use crate::dialect::Event;
use crate::event::{BlockForm, Fields};
use crate::output::PermissionDecision;
use crate::protocol::fields::{
    ADDITIONAL_CONTEXT, CLASSIFIER_CONTEXT, CONTINUE, DECISION, INITIAL_USER_MESSAGE,
    PERMISSION_DECISION, Place, RETRY, SESSION_TITLE, SUPPRESS_ORIGINAL_PROMPT, SYSTEM_MESSAGE,
    UPDATED_INPUT, UPDATED_PERMISSIONS, UPDATED_TOOL_OUTPUT, WATCH_PATHS, key,
};

/// A Claude Code hook answer: JSON on stdout, an exit code, optional stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaudeReply {
    /// What to print on stdout.
    pub stdout: Value,
    /// 0, or 2 when the event blocks only through exit code 2.
    pub exit_code: i32,
    /// What to print on stderr (the block reason with exit code 2).
    pub stderr: Option<String>,
    /// Plain text to print instead of the JSON, where Claude Code reads stdout as text:
    /// WorktreeCreate's path, PreCompact's new instructions.
    pub plain: Option<String>,
}

/// The answer under construction: the top-level object and `hookSpecificOutput`.
#[derive(Default)]
struct Answer {
    top: Map<String, Value>,
    specific: Map<String, Value>,
}

impl Answer {
    fn put(&mut self, place: Place, key: &str, value: Option<Value>) {
        if let Some(value) = value {
            let map = match place {
                Place::Top => &mut self.top,
                Place::Specific => &mut self.specific,
            };
            map.insert(key.to_string(), value);
        }
    }
}

/// The Claude Code answer equivalent to `outcome`.
pub(super) fn claude_reply(outcome: &EventOutcome) -> ClaudeReply {
    let event = Event::new(&outcome.event);
    let mut answer = Answer::default();
    if !outcome.continue_ {
        answer.put(Place::Top, CONTINUE.key, Some(json!(false)));
        answer.put(
            Place::Top,
            key::STOP_REASON,
            outcome.stop_reason.as_ref().map(|r| json!(r)),
        );
    }
    let text = |value: &Option<String>| value.as_ref().map(|v| json!(v));
    answer.put(
        Place::Top,
        SYSTEM_MESSAGE.key,
        text(&outcome.system_message),
    );
    if outcome.suppress_output {
        answer.put(Place::Top, key::SUPPRESS_OUTPUT, Some(json!(true)));
    }
    for (field, value) in [
        (ADDITIONAL_CONTEXT, text(&outcome.additional_context)),
        (
            WATCH_PATHS,
            (!outcome.watch_paths.is_empty()).then(|| json!(outcome.watch_paths)),
        ),
        (INITIAL_USER_MESSAGE, text(&outcome.initial_user_message)),
        (SESSION_TITLE, text(&outcome.session_title)),
        (RETRY, outcome.retry.map(|r| json!(r))),
        (UPDATED_TOOL_OUTPUT, outcome.updated_tool_output.clone()),
        (CLASSIFIER_CONTEXT, text(&outcome.classifier_context)),
        (
            SUPPRESS_ORIGINAL_PROMPT,
            outcome.suppress_original_prompt.map(|s| json!(s)),
        ),
    ] {
        answer.put(field.place, field.key, value);
    }
    let mut exit_code = 0;
    let mut stderr = None;
    match event.block_form {
        BlockForm::PermissionDecision => {
            answer.put(
                PERMISSION_DECISION.place,
                PERMISSION_DECISION.key,
                outcome.permission_decision.map(|d| json!(d)),
            );
            answer.put(
                Place::Specific,
                key::DECISION_REASON,
                text(&outcome.permission_decision_reason),
            );
            answer.put(
                UPDATED_INPUT.place,
                UPDATED_INPUT.key,
                outcome.updated_input.clone(),
            );
        }
        BlockForm::PermissionBehavior => {
            if let Some(decision) = permission_behavior(outcome) {
                answer.put(Place::Specific, DECISION.key, Some(decision));
            }
        }
        BlockForm::Json if outcome.should_block => {
            answer.put(Place::Top, DECISION.key, Some(json!("block")));
            answer.put(
                Place::Top,
                key::REASON,
                Some(json!(outcome.block_reason.clone().unwrap_or_default())),
            );
            if event.honours(Fields::PERMISSION_DECISION) {
                answer.put(
                    PERMISSION_DECISION.place,
                    PERMISSION_DECISION.key,
                    outcome.permission_decision.map(|d| json!(d)),
                );
            }
        }
        BlockForm::ExitCode | BlockForm::Json => {
            if outcome.should_block {
                exit_code = 2;
                stderr = Some(
                    outcome
                        .block_reason
                        .clone()
                        .unwrap_or_else(|| "blocked by hookhost".into()),
                );
            }
        }
    }
    let Answer {
        mut top,
        mut specific,
    } = answer;
    if !specific.is_empty() {
        specific.insert(key::EVENT_NAME.into(), json!(outcome.event));
        top.insert(key::SPECIFIC.into(), Value::Object(specific));
    }
    let plain = if event.honours(Fields::WORKTREE_PATH) {
        outcome.worktree_path.clone()
    } else if event.honours(Fields::CUSTOM_INSTRUCTIONS) && !outcome.should_block {
        outcome.custom_instructions.clone()
    } else {
        None
    };
    ClaudeReply {
        stdout: Value::Object(top),
        exit_code,
        stderr,
        plain,
    }
}

/// PermissionRequest's `decision { behavior, … }` object, when allow or deny won.
fn permission_behavior(outcome: &EventOutcome) -> Option<Value> {
    let mut decision = Map::new();
    match outcome.permission_decision? {
        PermissionDecision::Allow => {
            decision.insert(key::BEHAVIOR.into(), json!("allow"));
            if let Some(input) = &outcome.updated_input {
                decision.insert(UPDATED_INPUT.key.into(), input.clone());
            }
            if !outcome.updated_permissions.is_empty() {
                decision.insert(
                    UPDATED_PERMISSIONS.key.into(),
                    json!(outcome.updated_permissions),
                );
            }
        }
        PermissionDecision::Deny => {
            decision.insert(key::BEHAVIOR.into(), json!("deny"));
            if let Some(message) = &outcome.permission_decision_reason {
                decision.insert(key::MESSAGE.into(), json!(message));
            }
            if outcome.interrupt {
                decision.insert(key::INTERRUPT.into(), json!(true));
            }
        }
        PermissionDecision::Ask | PermissionDecision::Defer => return None,
    }
    Some(Value::Object(decision))
}

#[cfg(test)]
mod tests {
    use crate::outcome::EventOutcome;
    use crate::output::PermissionDecision;
    use serde_json::json;

    #[test]
    fn pre_tool_use_deny() {
        let mut outcome = EventOutcome::empty("PreToolUse");
        outcome.should_block = true;
        outcome.permission_decision = Some(PermissionDecision::Deny);
        outcome.permission_decision_reason = Some("no".into());
        let answer = outcome.to_claude_reply();
        assert_eq!(answer.exit_code, 0);
        assert_eq!(
            answer.stdout,
            json!({"hookSpecificOutput": {"permissionDecision": "deny",
                "permissionDecisionReason": "no", "hookEventName": "PreToolUse"}})
        );
    }

    #[test]
    fn the_fields_claude_code_2_1_332_added() {
        let mut outcome = EventOutcome::empty("PostToolUse");
        outcome.classifier_context = Some("the tests ran".into());
        assert_eq!(
            outcome.to_claude_reply().stdout,
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                "classifierContext": "the tests ran"}})
        );
        let mut outcome = EventOutcome::empty("UserPromptExpansion");
        outcome.suppress_original_prompt = Some(true);
        assert_eq!(
            outcome.to_claude_reply().stdout,
            json!({"hookSpecificOutput": {"hookEventName": "UserPromptExpansion",
                "suppressOriginalPrompt": true}})
        );
    }

    #[test]
    fn permission_request_behaviour() {
        let mut outcome = EventOutcome::empty("PermissionRequest");
        outcome.permission_decision = Some(PermissionDecision::Deny);
        outcome.permission_decision_reason = Some("no".into());
        outcome.interrupt = true;
        assert_eq!(
            outcome.to_claude_reply().stdout,
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": "no", "interrupt": true}}})
        );
        outcome.permission_decision = Some(PermissionDecision::Ask);
        assert_eq!(outcome.to_claude_reply().stdout, json!({}));
    }

    #[test]
    fn plain_text_answers_and_suppress_output() {
        let mut outcome = EventOutcome::empty("WorktreeCreate");
        outcome.worktree_path = Some("/tmp/wt/a".into());
        assert_eq!(
            outcome.to_claude_reply().plain.as_deref(),
            Some("/tmp/wt/a")
        );
        let mut outcome = EventOutcome::empty("PreCompact");
        outcome.custom_instructions = Some("keep it".into());
        assert_eq!(outcome.to_claude_reply().plain.as_deref(), Some("keep it"));
        let mut outcome = EventOutcome::empty("Stop");
        outcome.suppress_output = true;
        let answer = outcome.to_claude_reply();
        assert_eq!(answer.stdout["suppressOutput"], true);
        assert!(answer.plain.is_none());
    }

    #[test]
    fn stop_block_and_exit_two_events() {
        let mut outcome = EventOutcome::empty("Stop");
        outcome.should_block = true;
        outcome.block_reason = Some("tests fail".into());
        assert_eq!(
            outcome.to_claude_reply().stdout,
            json!({"decision": "block", "reason": "tests fail"})
        );
        outcome.event = "TeammateIdle".into();
        let answer = outcome.to_claude_reply();
        assert_eq!(answer.exit_code, 2);
        assert_eq!(answer.stderr.as_deref(), Some("tests fail"));
    }
}

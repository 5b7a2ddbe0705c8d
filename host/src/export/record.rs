//! One decision as it leaves the machine: what was asked (event, tool, session, project,
//! agent), what was decided and by which hook, under which policy revision and which
//! components — credentials redacted, every text capped, the tool's input only when the
//! owner opted in.

use serde::{Deserialize, Serialize};

use super::TelemetrySettings;
use crate::hook_input::HookInput;
use crate::outcome::EventOutcome;

/// One exported decision.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DecisionRecord {
    /// When the event was answered (unix nanoseconds).
    pub end_unix_nano: u64,
    /// How long the answer took (nanoseconds).
    pub duration_nano: u64,
    /// The event (`PreToolUse`, …).
    pub event: String,
    /// The tool, on tool events.
    pub tool_name: Option<String>,
    /// The tool call's id (`tool_use_id`).
    pub tool_call_id: Option<String>,
    /// The agent's session.
    pub session_id: Option<String>,
    /// The working directory the input names.
    pub project: Option<String>,
    /// The agent that asked, when it was not Claude Code (hookhost's normalised inputs
    /// name it).
    pub agent: Option<String>,
    /// `allow`, `deny`, `ask`, `defer`, `block` or `none`.
    pub decision: String,
    /// Why (redacted, capped).
    pub reason: Option<String>,
    /// The hook whose answer decided.
    pub decided_by: Option<String>,
    /// `sha256:…` of every Wasm component that ran.
    pub components: Vec<String>,
    /// The fleet policy's revision in force.
    pub policy_revision: Option<String>,
    /// The tool's input as JSON text — only when the owner opted in (redacted, capped).
    pub tool_input: Option<String>,
}

/// `text` with credentials redacted, then cut to `max` bytes.
fn clean(text: &str, max: usize) -> String {
    let redacted = crate::export::redact_credentials(text);
    crate::text::truncate(&redacted, max).to_string()
}

impl DecisionRecord {
    /// The record of `input` answered with `outcome`, `started` when it arrived.
    pub(crate) fn of(
        input: &HookInput,
        outcome: &EventOutcome,
        started: std::time::SystemTime,
        policy_revision: Option<&str>,
        settings: &TelemetrySettings,
    ) -> Self {
        let now = std::time::SystemTime::now();
        let nanos = |time: std::time::SystemTime| {
            time.duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        };
        let decision = outcome.decision_name();
        let decided_by = outcome
            .hooks
            .iter()
            .find(|hook| hook.decision.is_some_and(|d| d.as_str() == decision))
            .or_else(|| {
                outcome
                    .hooks
                    .iter()
                    .find(|hook| outcome.should_block && hook.decision.is_some())
            })
            .map(|hook| hook.name.clone());
        let reason = outcome
            .permission_decision_reason
            .as_deref()
            .or(outcome.block_reason.as_deref())
            .map(|text| clean(text, settings.max_text_bytes));
        let text_field = |name: &str| {
            input
                .value
                .get(name)
                .and_then(serde_json::Value::as_str)
                .map(|text| crate::text::truncate(text, 256).to_string())
        };
        let mut components: Vec<String> = outcome
            .hooks
            .iter()
            .filter_map(|hook| hook.sha256.as_ref())
            .map(|hex| format!("sha256:{}", hex.trim_start_matches("sha256:")))
            .collect();
        components.dedup();
        Self {
            end_unix_nano: nanos(now),
            duration_nano: now
                .duration_since(started)
                .map_or(0, |d| d.as_nanos() as u64),
            event: outcome.event.clone(),
            tool_name: input.tool_name.as_deref().map(str::to_string),
            tool_call_id: text_field("tool_use_id"),
            session_id: Some(&*input.session)
                .filter(|s| !s.is_empty())
                .map(|s| crate::text::truncate(s, 256).to_string()),
            project: input
                .cwd
                .as_ref()
                .map(|dir| crate::text::truncate(&dir.display().to_string(), 1024).to_string()),
            agent: text_field(crate::agent::AGENT_FIELD),
            decision: decision.to_string(),
            reason,
            decided_by,
            components,
            policy_revision: policy_revision.map(str::to_string),
            tool_input: settings
                .capture_tool_input
                .then(|| input.tool_input())
                .filter(|value| !value.is_null())
                .map(|value| clean(&value.to_string(), settings.max_text_bytes)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Event;
    use serde_json::json;

    #[test]
    fn a_record_withholds_the_input_redacts_and_caps() {
        let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345";
        let input = HookInput::new(
            Event::new("PreToolUse"),
            json!({"session_id": "s1", "tool_name": "Bash", "tool_use_id": "t1",
                "cwd": "/work/app", "tool_input": {"command": format!("curl -H {key} x")}}),
        );
        let mut outcome = EventOutcome::empty("PreToolUse");
        outcome.permission_decision = Some(crate::output::PermissionDecision::Deny);
        outcome.permission_decision_reason = Some(format!("found {key}; {}", "x".repeat(9000)));
        let mut settings = TelemetrySettings::for_endpoint("http://127.0.0.1:4318");
        let record = DecisionRecord::of(
            &input,
            &outcome,
            std::time::SystemTime::now(),
            Some("sha256:ab"),
            &settings,
        );
        assert_eq!(record.decision, "deny");
        assert_eq!(record.tool_name.as_deref(), Some("Bash"));
        assert_eq!(record.tool_call_id.as_deref(), Some("t1"));
        assert_eq!(record.session_id.as_deref(), Some("s1"));
        assert_eq!(record.tool_input, None);
        let reason = record.reason.unwrap();
        assert!(
            !reason.contains(key) && reason.contains("[REDACTED"),
            "{reason}"
        );
        assert!(reason.len() <= settings.max_text_bytes);
        settings.capture_tool_input = true;
        let record = DecisionRecord::of(
            &input,
            &outcome,
            std::time::SystemTime::now(),
            None,
            &settings,
        );
        let captured = record.tool_input.unwrap();
        assert!(
            captured.contains("curl") && !captured.contains(key),
            "{captured}"
        );
    }
}

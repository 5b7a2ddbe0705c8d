//! The audit log: one JSON line per fired event, appended to a file (`--audit-log`,
//! `hookAuditLog`). It records what ran and what was decided — never header values,
//! API keys or environment values. A write failure is a warning: auditing never
//! crashes the engine or changes a decision.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::hook_input::HookInput;
use crate::outcome::EventOutcome;

/// Bytes of `tool_input` (as JSON text) kept per line.
pub const TOOL_INPUT_BYTES: usize = 4096;

/// An append-only audit file; writes are serialised so lines never interleave.
pub(crate) struct AuditLog {
    path: PathBuf,
    lock: Mutex<()>,
}

/// What the log keeps of an input, taken before the hooks run.
pub(crate) struct InputSummary {
    session_id: Value,
    tool_name: Value,
    tool_input: Value,
}

impl InputSummary {
    /// The summary of the typed input (its session, tool and tool input, cut short).
    pub(crate) fn of(input: &HookInput) -> Self {
        let tool_input = Some(input.tool_input())
            .filter(|value| !value.is_null())
            .map(|value| {
                let text = value.to_string();
                let kept = crate::text::truncate(&text, TOOL_INPUT_BYTES);
                Value::String(kept.to_string())
            });
        Self {
            session_id: Some(&*input.session)
                .filter(|session| !session.is_empty())
                .map_or(Value::Null, |session| Value::String(session.to_string())),
            tool_name: input
                .tool_name
                .as_deref()
                .map_or(Value::Null, |name| Value::String(name.to_string())),
            tool_input: tool_input.unwrap_or(Value::Null),
        }
    }
}

impl AuditLog {
    pub(crate) fn new(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            lock: Mutex::new(()),
        }
    }

    /// Appends the line for one fired event.
    pub(crate) fn record(
        &self,
        input: &InputSummary,
        outcome: &EventOutcome,
        policy_revision: Option<&str>,
    ) {
        let mut line = line(input, outcome, std::time::SystemTime::now());
        if let Some(revision) = policy_revision {
            line["policy_revision"] = Value::String(revision.to_string());
        }
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        // Created 0600; never through a symlink planted at its path; only a private
        // regular file of this user is appended to.
        let written = crate::files::open_private_append(&self.path)
            .and_then(|mut file| file.write_all(format!("{line}\n").as_bytes()));
        if let Err(err) = written {
            tracing::warn!("cannot write the audit log {}: {err}", self.path.display());
        }
    }
}

/// The JSON line for one event.
fn line(input: &InputSummary, outcome: &EventOutcome, now: std::time::SystemTime) -> Value {
    let hooks: Vec<Value> = outcome
        .hooks
        .iter()
        .map(|hook| {
            json!({
                "name": hook.name,
                "source": hook.source,
                "executor": hook.executor,
                "sha256": hook.sha256,
                "status": hook.status,
                "decision": hook.decision,
                "duration_ms": hook.duration_ms,
                "round": hook.round,
            })
        })
        .collect();
    let decision = outcome.decision_name();
    json!({
        "time": humantime::format_rfc3339_millis(now).to_string(),
        "session_id": input.session_id,
        "event": outcome.event,
        "tool_name": input.tool_name,
        "tool_input": input.tool_input,
        "hooks": hooks,
        "decision": decision,
        "reason": outcome.block_reason,
        "envelope": outcome.envelope,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Event;

    fn typed(value: Value) -> std::sync::Arc<HookInput> {
        HookInput::new(Event::new("PreToolUse"), value)
    }

    #[test]
    fn line_keeps_the_first_4_kib_of_tool_input_and_rfc3339_time() {
        let input = json!({"session_id": "s", "tool_name": "Bash",
            "tool_input": {"command": "x".repeat(10_000)}});
        let mut outcome = EventOutcome::empty("PreToolUse");
        outcome.should_block = true;
        let line = line(
            &InputSummary::of(&typed(input)),
            &outcome,
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(86_400),
        );
        assert_eq!(line["time"], "1970-01-02T00:00:00.000Z");
        assert_eq!(line["decision"], "block");
        assert_eq!(line["session_id"], "s");
        assert_eq!(line["tool_name"], "Bash");
        assert!(line["tool_input"].as_str().unwrap().len() <= TOOL_INPUT_BYTES);
    }

    #[test]
    fn a_write_failure_is_not_a_crash() {
        let log = AuditLog::new(Path::new("/nonexistent-dir/audit.jsonl"));
        log.record(
            &InputSummary::of(&typed(json!({}))),
            &EventOutcome::empty("Stop"),
            None,
        );
    }
}

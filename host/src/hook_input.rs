//! The input of one event, typed once: built by [`crate::Engine::execute`] (which the
//! front door calls) from the normalised input, and shared — by reference count — by
//! selection, every hook call (the executors read its value, JSON text and session),
//! the Wasm conversion, re-validation rounds and the audit log. A rewrite (a chain's
//! feed-forward, a validation round, hygge's per-hook name) makes a new one.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::dialect::Event;
use crate::json_field::field;

/// One event's input and the parts every stage reads.
#[derive(Debug)]
pub(crate) struct HookInput {
    /// The event, with its catalog entry.
    pub(crate) event: Event,
    /// The input's `session_id` (empty when absent).
    pub(crate) session: Arc<str>,
    /// The working directory the input names (the dialect's field: `cwd`, hygge `pwd`).
    pub(crate) cwd: Option<PathBuf>,
    /// `tool_name`, on tool events.
    pub(crate) tool_name: Option<Arc<str>>,
    /// Where a file tool's call lands (also the input's `file_target` field, unless the
    /// dialect owns the input's shape).
    pub(crate) file_target: Option<crate::file_target::FileTarget>,
    /// The whole input.
    pub(crate) value: Value,
    /// The whole input as JSON text, serialised once, when a hook first needs it (an
    /// event no hook matches never pays for it).
    json: OnceLock<Arc<str>>,
}

impl HookInput {
    /// The typed input of `event` for the normalised input `value`.
    pub(crate) fn new(event: Event, mut value: Value) -> Arc<HookInput> {
        let text = |name: &str| field(&value, name).and_then(Value::as_str);
        let session = Arc::from(text("session_id").unwrap_or(""));
        let cwd_field = event.dialect().input.cwd;
        let cwd = text(cwd_field).or(text("cwd")).map(PathBuf::from);
        let tool_name = text("tool_name").map(Arc::from);
        let file_target = tool_name.as_deref().and_then(|tool| {
            crate::file_target::of(tool, field(&value, "tool_input")?, cwd.as_deref())
        });
        if event.dialect().input.only.is_none()
            && let Value::Object(map) = &mut value
        {
            crate::file_target::annotate(map, file_target.as_ref());
        }
        Arc::new(HookInput {
            event,
            session,
            cwd,
            tool_name,
            file_target,
            value,
            json: OnceLock::new(),
        })
    }

    /// The whole input as JSON text.
    pub(crate) fn json(&self) -> &Arc<str> {
        // Written straight to a buffer (`Display` goes through the formatter); a `Value`
        // always serialises.
        self.json.get_or_init(|| {
            Arc::from(serde_json::to_string(&self.value).unwrap_or_else(|_| "null".into()))
        })
    }

    /// The length of [`HookInput::json`], without keeping the text when it has not been
    /// written yet (a limit that only needs the size does not pay for the copy).
    pub(crate) fn json_len(&self) -> usize {
        if let Some(json) = self.json.get() {
            return json.len();
        }
        let mut count = ByteCount(0);
        match serde_json::to_writer(&mut count, &self.value) {
            Ok(()) => count.0,
            Err(_) => self.json().len(),
        }
    }

    /// The same event with the input `value` (after a rewrite).
    pub(crate) fn rewritten(&self, value: Value) -> Arc<HookInput> {
        HookInput::new(self.event.clone(), value)
    }

    /// `tool_input`, or null.
    pub(crate) fn tool_input(&self) -> &Value {
        static NULL: Value = Value::Null;
        field(&self.value, "tool_input").unwrap_or(&NULL)
    }
}

/// A writer that only counts the bytes written to it.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counted_length_is_the_written_one() {
        let value = serde_json::json!({
            "tool_input": {"command": "echo \"é ✓\"\n\t\u{1}", "n": 1.5e300},
            "list": [null, true, -0, "\\"]
        });
        let input = HookInput::new(Event::new("PreToolUse"), value);
        let counted = input.json_len();
        assert_eq!(counted, input.json().len());
        // Once written, the text's own length.
        assert_eq!(input.json_len(), counted);
    }
}

//! The input of one event, typed once: built by [`HookInput::build`] from the input the
//! host sent (made an object, its common fields filled, cut to the dialect's shape, the
//! stop guard's mark added — the only place the raw input is changed), and shared — by reference count — by
//! selection, every hook call (the executors read its value, JSON text and session),
//! the Wasm conversion, re-validation rounds and the audit log. A rewrite (a chain's
//! feed-forward, a validation round, hygge's per-hook name) makes a new one.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::dialect::{Dialect, Event};
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
    /// Whether this is a stop's re-entry pass (the input's `stop_hook_active` is `true`:
    /// an earlier stop of the session was blocked).
    pub(crate) stop_active: bool,
    /// The whole input.
    pub(crate) value: Value,
    /// The whole input as JSON text, serialised once, when a hook first needs it (an
    /// event no hook matches never pays for it).
    json: OnceLock<Arc<str>>,
}

/// What the front door fills in an input the host left incomplete.
#[derive(Debug, Clone)]
pub(crate) struct Fill {
    /// The session id of an input that names none.
    pub(crate) session: String,
    /// The working directory of an input that names none (the project directory; else
    /// hookhost's own).
    pub(crate) project: Option<PathBuf>,
}

impl HookInput {
    /// The typed input of `event` for the input `raw` as the host sent it: an object
    /// (a non-object is kept under `input`) carrying the event's name; with `fill`, the
    /// common fields the host left out (`session_id`, the working directory under the
    /// dialect's name, the dialect's defaults); cut to the dialect's own fields where it
    /// owns the shape; and on a stop-guarded event, `stop_hook_active` unless the host set
    /// it (`stop_active`: whether an earlier stop of the session was blocked).
    pub(crate) fn build(
        event: Event,
        raw: Value,
        fill: Option<&Fill>,
        stop_active: impl Fn(&str) -> bool,
    ) -> Arc<HookInput> {
        let mut map = match raw {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => Map::from_iter([("input".to_string(), other)]),
        };
        let dialect = event.dialect();
        if let Some(fill) = fill {
            fill_common(&event, &mut map, fill);
        }
        map.insert(
            dialect.event_field.into(),
            Value::String(event.name().to_string()),
        );
        if let Some(only) = dialect.input.only {
            // The dialect owns the input shape: nothing else reaches its hooks.
            map.retain(|key, _| only.contains(&key.as_str()));
        }
        if event.stop_guard {
            let session = map.get("session_id").and_then(Value::as_str).unwrap_or("");
            let active = stop_active(session);
            map.entry("stop_hook_active").or_insert(Value::Bool(active));
        }
        HookInput::new(event, Value::Object(map))
    }

    /// The typed input of `event` for the input `value`, taken as it is (a rewrite of an
    /// input [`HookInput::build`] made).
    pub(crate) fn new(event: Event, mut value: Value) -> Arc<HookInput> {
        let text = |name: &str| field(&value, name).and_then(Value::as_str);
        let session = Arc::from(text("session_id").unwrap_or(""));
        let cwd_field = event.dialect().input.cwd;
        let cwd = text(cwd_field).or(text(CWD)).map(PathBuf::from);
        let tool_name = text("tool_name").map(Arc::from);
        let stop_active = field(&value, "stop_hook_active") == Some(&Value::Bool(true));
        let file_target = tool_name.as_deref().and_then(|tool| {
            crate::file_target::of(tool, field(&value, TOOL_INPUT)?, cwd.as_deref())
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
            stop_active,
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
        self.tool_input_given().unwrap_or(&NULL)
    }

    /// `tool_input`, where the input has one.
    pub(crate) fn tool_input_given(&self) -> Option<&Value> {
        field(&self.value, TOOL_INPUT)
    }

    /// The input with its tool input replaced by `updated` (a hook's rewrite); `None`
    /// when the input has no tool input to replace.
    pub(crate) fn with_tool_input(&self, updated: &Value) -> Option<Value> {
        rewrite_field(&self.value, TOOL_INPUT, updated.clone())
    }

    /// The tool call a hook's rewrite `updated` makes: this input with `tool_input` set
    /// to it (added where the input had none).
    pub(crate) fn rewritten_call(&self, updated: &Value) -> Arc<HookInput> {
        let mut value = self.value.clone();
        if let Some(map) = value.as_object_mut() {
            map.insert(TOOL_INPUT.into(), updated.clone());
        }
        self.rewritten(value)
    }

    /// The tool input's shell command (`tool_input.command`, whatever the tool: the WIT
    /// `bash-command`'s text).
    pub(crate) fn command(&self) -> Option<&str> {
        crate::tools::command(self.tool_input())
    }

    /// `permission_mode`, where the host sent it.
    pub(crate) fn permission_mode(&self) -> Option<&str> {
        field(&self.value, "permission_mode").and_then(Value::as_str)
    }

    /// `prompt`, on prompt events.
    pub(crate) fn prompt(&self) -> Option<&str> {
        field(&self.value, "prompt").and_then(Value::as_str)
    }
}

/// The working directories a host's input names, under either name: the dialect's
/// (hygge `pwd`) and Claude Code's `cwd` — a check of one cannot be slipped past under
/// the other.
pub(crate) fn named_cwds<'a>(
    dialect: &Dialect,
    map: &'a Map<String, Value>,
) -> impl Iterator<Item = &'a str> {
    [dialect.input.cwd, CWD]
        .into_iter()
        .filter_map(|name| map.get(name).and_then(Value::as_str))
}

/// Claude Code's name for the working directory, which every dialect also accepts.
const CWD: &str = "cwd";

/// The input field holding a tool call's input.
const TOOL_INPUT: &str = "tool_input";

/// `input` with `field` replaced by `value`, if the input has the field.
pub(crate) fn rewrite_field(input: &Value, field: &str, value: Value) -> Option<Value> {
    let mut next = input.clone();
    let map = next.as_object_mut()?;
    map.contains_key(field).then(|| {
        map.insert(field.into(), value);
    })?;
    Some(next)
}

/// Fills the common fields a host may leave out, as `event`'s dialect shapes its input:
/// the session id, the working directory (the host's `cwd` under the dialect's name, else
/// the project directory, else hookhost's own), and the dialect's defaults.
fn fill_common(event: &Event, map: &mut Map<String, Value>, fill: &Fill) {
    let shape = &event.dialect().input;
    map.entry("session_id")
        .or_insert_with(|| Value::String(fill.session.clone()));
    if !map.contains_key(shape.cwd) {
        let cwd = map
            .get(CWD)
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| fill.project.as_ref().map(|dir| dir.display().to_string()))
            .or_else(|| {
                std::env::current_dir()
                    .ok()
                    .map(|dir| dir.display().to_string())
            });
        if let Some(cwd) = cwd {
            map.insert(shape.cwd.into(), Value::String(cwd));
        }
    }
    for (field, value) in shape.defaults {
        map.entry(*field)
            .or_insert_with(|| Value::String(value.to_string()));
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

//! Typed views of the hook input.

use std::cell::OnceCell;
use std::ops::Deref;

use crate::bindings::hookhost::hooks::types::HookInput;

/// Any event: the common fields and the tool input's string fields (carried in the call),
/// and the raw JSON, the tool input JSON and any other field (fetched from the host on
/// first use and kept).
#[derive(Debug, Clone)]
pub struct Event {
    input: HookInput,
    raw: OnceCell<String>,
    tool_input: OnceCell<Option<String>>,
}

impl From<HookInput> for Event {
    fn from(input: HookInput) -> Self {
        Event {
            input,
            raw: OnceCell::new(),
            tool_input: OnceCell::new(),
        }
    }
}

/// The host's `input` interface (only callable inside a component).
#[cfg(target_arch = "wasm32")]
mod fetch {
    pub use crate::bindings::hookhost::hooks::input::{field, raw, tool_input};
}

/// Outside a component there is no host: events built with [`Event::new`] carry their
/// raw input, and everything is read from it.
#[cfg(not(target_arch = "wasm32"))]
mod fetch {
    pub fn raw() -> String {
        "{}".to_string()
    }
    pub fn tool_input() -> Option<String> {
        None
    }
    pub fn field(_name: &str) -> Option<String> {
        None
    }
}

impl Event {
    /// Builds an event by hand (for unit tests of hook logic); everything not given is
    /// read from `raw`.
    pub fn new(name: &str, tool_name: Option<&str>, fields: &[(&str, &str)], raw: &str) -> Self {
        let event = Event::from(HookInput {
            event: name.to_string(),
            session_id: String::new(),
            cwd: String::new(),
            permission_mode: None,
            tool_name: tool_name.map(str::to_string),
            tool_input_fields: fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            matcher_value: None,
            prompt: None,
        });
        let _ = event.raw.set(raw.to_string());
        event
    }

    /// Sets the working directory (builder for tests).
    pub fn with_cwd(mut self, cwd: &str) -> Self {
        self.input.cwd = cwd.to_string();
        self
    }

    /// Sets the tool input JSON (builder for tests).
    pub fn with_tool_input(self, json: &str) -> Self {
        let _ = self.tool_input.set(Some(json.to_string()));
        self
    }

    /// Sets the prompt (builder for tests).
    pub fn with_prompt(mut self, prompt: &str) -> Self {
        self.input.prompt = Some(prompt.to_string());
        self
    }

    /// The event name.
    pub fn name(&self) -> &str {
        &self.input.event
    }

    /// Which [`Hook`](crate::Hook) method handles the event.
    pub fn kind(&self) -> EventKind {
        EventKind::of(self.name())
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.input.session_id
    }

    /// The session's working directory.
    pub fn cwd(&self) -> &str {
        &self.input.cwd
    }

    /// The permission mode, when the host sent one.
    pub fn permission_mode(&self) -> Option<&str> {
        self.input.permission_mode.as_deref()
    }

    /// The tool name, on tool events.
    pub fn tool_name(&self) -> Option<&str> {
        self.input.tool_name.as_deref()
    }

    /// A top-level string field of the tool input (no JSON parsing, no host call).
    pub fn tool_field(&self, name: &str) -> Option<&str> {
        self.input
            .tool_input_fields
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The tool input's JSON text (fetched from the host on first use).
    pub fn tool_input_text(&self) -> Option<&str> {
        self.tool_input
            .get_or_init(|| match self.raw.get() {
                Some(_) => self.json().get("tool_input").map(|v| v.to_string()),
                None => fetch::tool_input(),
            })
            .as_deref()
    }

    /// The tool input, parsed.
    pub fn tool_input(&self) -> Option<serde_json::Value> {
        serde_json::from_str(self.tool_input_text()?).ok()
    }

    /// One top-level field of the input, parsed (`tool_response`, `stop_hook_active`,
    /// …). Fetches only that field unless the raw input is already here.
    pub fn field(&self, name: &str) -> Option<serde_json::Value> {
        match self.raw.get() {
            Some(_) => self.json().get(name).cloned(),
            None => serde_json::from_str(&fetch::field(name)?).ok(),
        }
    }

    /// The value the event's matcher compares against (`source`, `trigger`, …).
    pub fn matcher_value(&self) -> Option<&str> {
        self.input.matcher_value.as_deref()
    }

    /// The complete input JSON text (fetched from the host on first use).
    pub fn raw(&self) -> &str {
        self.raw.get_or_init(fetch::raw)
    }

    /// The complete input, parsed (`Null` if the host sent invalid JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(self.raw()).unwrap_or_default()
    }
}

macro_rules! event_view {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name(pub Event);

        impl Deref for $name {
            type Target = Event;
            fn deref(&self) -> &Event {
                &self.0
            }
        }
    };
}

event_view!(
    /// `PreToolUse`: a tool call about to run.
    PreToolUse
);
event_view!(
    /// `PostToolUse`: a tool call that succeeded.
    PostToolUse
);
event_view!(
    /// `UserPromptSubmit`: a prompt before the model sees it.
    UserPromptSubmit
);
event_view!(
    /// `Stop` / `SubagentStop`: the agent wants to stop.
    Stop
);
event_view!(
    /// `SessionStart`: a session begins or resumes.
    SessionStart
);

impl PreToolUse {
    /// `command` of a Bash call.
    pub fn command(&self) -> Option<&str> {
        self.tool_field("command")
    }

    /// `command` of a Bash call as the host parsed it: every command bash would run,
    /// nested ones included ([`crate::shell`]).
    pub fn shell(&self) -> Option<crate::shell::Script> {
        crate::shell::bash_command()
    }

    /// `file_path` of a file tool call.
    pub fn file_path(&self) -> Option<&str> {
        self.tool_field("file_path")
    }

    /// Where a file tool's call lands, resolved by the host past `..` and symbolic links
    /// ([`crate::files`]); none for other tools. Judge this, not the path as given.
    /// Outside a component (unit tests), it is read from the input's `file_target` field.
    pub fn target(&self) -> Option<crate::files::FileTarget> {
        #[cfg(target_arch = "wasm32")]
        return crate::files::tool_target();
        #[cfg(not(target_arch = "wasm32"))]
        return crate::files::from_json(&self.field("file_target")?);
    }

    /// The new content a Write, Edit or MultiEdit call would put in the file
    /// (`content`, `new_string`, and every MultiEdit `edits[].new_string`).
    pub fn new_content(&self) -> Vec<String> {
        let mut out: Vec<String> = ["content", "new_string", "new_source"]
            .iter()
            .filter_map(|name| self.tool_field(name).map(str::to_string))
            .collect();
        if self.tool_name() == Some("MultiEdit")
            && let Some(edits) = self.tool_input().and_then(|v| v.get("edits").cloned())
            && let Some(edits) = edits.as_array()
        {
            out.extend(
                edits
                    .iter()
                    .filter_map(|e| e.get("new_string").and_then(|s| s.as_str()))
                    .map(str::to_string),
            );
        }
        out
    }
}

impl PostToolUse {
    /// The tool's response, parsed from the raw input.
    pub fn tool_response(&self) -> Option<serde_json::Value> {
        self.field("tool_response")
    }
}

impl UserPromptSubmit {
    /// The prompt text.
    pub fn prompt(&self) -> &str {
        self.0.input.prompt.as_deref().unwrap_or("")
    }
}

impl Stop {
    /// Whether the agent is already continuing because of a stop hook.
    pub fn stop_hook_active(&self) -> bool {
        self.field("stop_hook_active")
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }

    /// The last assistant message, when the host sent it.
    pub fn last_assistant_message(&self) -> Option<String> {
        self.field("last_assistant_message")
            .and_then(|v| v.as_str().map(str::to_string))
    }
}

impl SessionStart {
    /// `startup`, `resume`, `clear`, `compact` or `fork`.
    pub fn source(&self) -> &str {
        self.matcher_value().unwrap_or("")
    }
}

/// The events the SDK gives a method of their own; the rest are [`EventKind::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// `PreToolUse`.
    PreToolUse,
    /// `PostToolUse`.
    PostToolUse,
    /// `UserPromptSubmit`.
    UserPromptSubmit,
    /// `Stop` and `SubagentStop`.
    Stop,
    /// `SessionStart`.
    SessionStart,
    /// Any other event.
    Other,
}

impl EventKind {
    /// The kind of the event called `name` (the one place the SDK reads event names).
    pub fn of(name: &str) -> EventKind {
        match name {
            "PreToolUse" => EventKind::PreToolUse,
            "PostToolUse" => EventKind::PostToolUse,
            "UserPromptSubmit" => EventKind::UserPromptSubmit,
            "Stop" | "SubagentStop" => EventKind::Stop,
            "SessionStart" => EventKind::SessionStart,
            _ => EventKind::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_without_json() {
        let event = Event::new("PreToolUse", Some("Bash"), &[("command", "ls -la")], "{}");
        let call = PreToolUse(event);
        assert_eq!(call.command(), Some("ls -la"));
        assert_eq!(call.file_path(), None);
        assert_eq!(call.tool_name(), Some("Bash"));
    }

    #[test]
    fn multiedit_content() {
        let event = Event::new(
            "PreToolUse",
            Some("MultiEdit"),
            &[("file_path", "/a")],
            "{}",
        )
        .with_tool_input(r#"{"file_path":"/a","edits":[{"old_string":"x","new_string":"y"}]}"#);
        assert_eq!(PreToolUse(event).new_content(), vec!["y"]);
    }

    #[test]
    fn stop_fields_from_raw() {
        let event = Event::new("Stop", None, &[], r#"{"stop_hook_active":true}"#);
        assert_eq!(event.kind(), EventKind::Stop);
        assert_eq!(EventKind::of("SubagentStop"), EventKind::Stop);
        assert_eq!(EventKind::of("Notification"), EventKind::Other);
        assert!(Stop(event).stop_hook_active());
    }

    #[test]
    fn tool_input_from_raw_when_not_given() {
        let event = Event::new(
            "PreToolUse",
            Some("Bash"),
            &[],
            r#"{"tool_input":{"command":"ls","timeout":5}}"#,
        );
        assert_eq!(
            event.tool_input().unwrap(),
            serde_json::json!({"command": "ls", "timeout": 5})
        );
        assert_eq!(event.field("tool_input").unwrap()["timeout"], 5);
    }
}

//! Typed views of the hook input.

use std::ops::Deref;

use crate::bindings::hookhost::hooks::types::HookInput;

/// Any event: the common fields, the tool input's string fields, and the raw JSON.
#[derive(Debug, Clone)]
pub struct Event(HookInput);

impl From<HookInput> for Event {
    fn from(input: HookInput) -> Self {
        Event(input)
    }
}

impl Event {
    /// Builds an event by hand (for unit tests of hook logic).
    pub fn new(name: &str, tool_name: Option<&str>, fields: &[(&str, &str)], raw: &str) -> Self {
        Event(HookInput {
            event: name.to_string(),
            session_id: String::new(),
            cwd: String::new(),
            permission_mode: None,
            tool_name: tool_name.map(str::to_string),
            tool_input_fields: fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            tool_input: None,
            matcher_value: None,
            prompt: None,
            raw: raw.to_string(),
        })
    }

    /// Sets the working directory (builder for tests).
    pub fn with_cwd(mut self, cwd: &str) -> Self {
        self.0.cwd = cwd.to_string();
        self
    }

    /// Sets the tool input JSON (builder for tests).
    pub fn with_tool_input(mut self, json: &str) -> Self {
        self.0.tool_input = Some(json.to_string());
        self
    }

    /// The event name.
    pub fn name(&self) -> &str {
        &self.0.event
    }

    /// Which [`Hook`](crate::Hook) method handles the event.
    pub fn kind(&self) -> EventKind {
        EventKind::of(self.name())
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.0.session_id
    }

    /// The session's working directory.
    pub fn cwd(&self) -> &str {
        &self.0.cwd
    }

    /// The permission mode, when the host sent one.
    pub fn permission_mode(&self) -> Option<&str> {
        self.0.permission_mode.as_deref()
    }

    /// The tool name, on tool events.
    pub fn tool_name(&self) -> Option<&str> {
        self.0.tool_name.as_deref()
    }

    /// A top-level string field of the tool input (no JSON parsing).
    pub fn tool_field(&self, name: &str) -> Option<&str> {
        self.0
            .tool_input_fields
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The tool input's JSON text.
    pub fn tool_input_text(&self) -> Option<&str> {
        self.0.tool_input.as_deref()
    }

    /// The tool input, parsed.
    pub fn tool_input(&self) -> Option<serde_json::Value> {
        serde_json::from_str(self.0.tool_input.as_deref()?).ok()
    }

    /// The value the event's matcher compares against (`source`, `trigger`, …).
    pub fn matcher_value(&self) -> Option<&str> {
        self.0.matcher_value.as_deref()
    }

    /// The complete input JSON text.
    pub fn raw(&self) -> &str {
        &self.0.raw
    }

    /// The complete input, parsed (`Null` if the host sent invalid JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.0.raw).unwrap_or_default()
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

    /// `file_path` of a file tool call.
    pub fn file_path(&self) -> Option<&str> {
        self.tool_field("file_path")
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
        self.json().get("tool_response").cloned()
    }
}

impl UserPromptSubmit {
    /// The prompt text.
    pub fn prompt(&self) -> &str {
        self.0.0.prompt.as_deref().unwrap_or("")
    }
}

impl Stop {
    /// Whether the agent is already continuing because of a stop hook.
    pub fn stop_hook_active(&self) -> bool {
        self.json()
            .get("stop_hook_active")
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }

    /// The last assistant message, when the host sent it.
    pub fn last_assistant_message(&self) -> Option<String> {
        self.json()
            .get("last_assistant_message")
            .and_then(|v| v.as_str())
            .map(str::to_string)
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
}

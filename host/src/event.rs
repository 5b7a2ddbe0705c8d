//! The event catalog: every Claude Code hook event, with what its matcher compares
//! against, whether it can block, and which answer fields it honours.
//!
//! Events are plain strings everywhere else in the crate so that a host can invent its
//! own; [`EventSpec::lookup`] gives the catalog entry for the known ones and
//! [`EventSpec::custom`] the permissive default for the rest.

use std::time::Duration;

/// A set of answer fields, used for field scoping (an answer field only counts on the
/// events that honour it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fields(u32);

impl Fields {
    /// No field.
    pub const NONE: Fields = Fields(0);
    /// A blocking decision (`decision: "block"`, exit code 2).
    pub const BLOCK: Fields = Fields(1);
    /// `continue: false` and `stopReason`.
    pub const CONTINUE: Fields = Fields(1 << 1);
    /// `systemMessage`.
    pub const SYSTEM_MESSAGE: Fields = Fields(1 << 2);
    /// `hookSpecificOutput.additionalContext`.
    pub const ADDITIONAL_CONTEXT: Fields = Fields(1 << 3);
    /// `permissionDecision` (or `decision.behavior` on PermissionRequest).
    pub const PERMISSION_DECISION: Fields = Fields(1 << 4);
    /// `updatedInput`.
    pub const UPDATED_INPUT: Fields = Fields(1 << 5);
    /// `updatedPermissions`.
    pub const UPDATED_PERMISSIONS: Fields = Fields(1 << 6);
    /// `watchPaths`.
    pub const WATCH_PATHS: Fields = Fields(1 << 7);
    /// `initialUserMessage`.
    pub const INITIAL_USER_MESSAGE: Fields = Fields(1 << 8);
    /// `retry`.
    pub const RETRY: Fields = Fields(1 << 9);
    /// `updatedToolOutput`.
    pub const UPDATED_TOOL_OUTPUT: Fields = Fields(1 << 10);
    /// `sessionTitle`.
    pub const SESSION_TITLE: Fields = Fields(1 << 11);
    /// Every field: the scope of events hookhost does not know.
    pub const ALL: Fields = Fields(u32::MAX);

    /// The union of two sets.
    pub const fn with(self, other: Fields) -> Fields {
        Fields(self.0 | other.0)
    }

    /// Whether every field of `other` is in this set.
    pub const fn contains(self, other: Fields) -> bool {
        self.0 & other.0 == other.0
    }
}

/// Which handler types an event accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handlers {
    /// command, http, prompt, agent, wasm.
    All,
    /// command, http and wasm (no LLM handlers).
    NoLlm,
    /// command and wasm only.
    CommandOnly,
}

/// One entry of the event catalog.
#[derive(Debug, Clone, Copy)]
pub struct EventSpec {
    /// The event name as written in configuration.
    pub name: &'static str,
    /// The input field the matcher compares against, if the event supports matchers.
    pub matcher_field: Option<&'static str>,
    /// Whether the event can be blocked by exit code 2 or a JSON block decision.
    pub can_block: bool,
    /// Whether plain (non-JSON) stdout on exit 0 becomes additional context.
    pub plain_text_context: bool,
    /// Answer fields the event honours.
    pub fields: Fields,
    /// Handler types accepted.
    pub handlers: Handlers,
    /// Default timeout for command, http and wasm hooks, in seconds.
    pub default_timeout_secs: u64,
    /// Whether the event is a tool event (the `if` field is evaluated only on these).
    pub tool_event: bool,
    /// Whether this entry is from the catalog (false for custom events).
    pub known: bool,
    /// Whether the matcher compares the file name of `matcher_field` (FileChanged: the
    /// matcher is `.envrc`, the field a full path) rather than the whole value.
    pub matcher_on_file_name: bool,
    /// Whether any failure of a hook fails the event (WorktreeCreate: a non-zero exit, an
    /// HTTP error status or a refused connection fails the creation).
    pub failure_blocks: bool,
}

const DEFAULT_TIMEOUT: u64 = 600;
const BASE: Fields = Fields::CONTINUE.with(Fields::SYSTEM_MESSAGE);
const CONTEXT: Fields = BASE.with(Fields::ADDITIONAL_CONTEXT);
const BLOCK_CONTEXT: Fields = CONTEXT.with(Fields::BLOCK);

const fn spec(
    name: &'static str,
    matcher_field: Option<&'static str>,
    fields: Fields,
) -> EventSpec {
    EventSpec {
        name,
        matcher_field,
        can_block: fields.contains(Fields::BLOCK),
        plain_text_context: false,
        fields,
        handlers: Handlers::NoLlm,
        default_timeout_secs: DEFAULT_TIMEOUT,
        tool_event: false,
        known: true,
        matcher_on_file_name: false,
        failure_blocks: false,
    }
}

const fn on_file_name(mut s: EventSpec) -> EventSpec {
    s.matcher_on_file_name = true;
    s
}

const fn failure_blocks(mut s: EventSpec) -> EventSpec {
    s.failure_blocks = true;
    s
}

const fn all(mut s: EventSpec) -> EventSpec {
    s.handlers = Handlers::All;
    s
}

const fn tool(mut s: EventSpec) -> EventSpec {
    s.tool_event = true;
    s.handlers = Handlers::All;
    s
}

const fn plain(mut s: EventSpec) -> EventSpec {
    s.plain_text_context = true;
    s
}

const fn timeout(mut s: EventSpec, secs: u64) -> EventSpec {
    s.default_timeout_secs = secs;
    s
}

const fn command_only(mut s: EventSpec) -> EventSpec {
    s.handlers = Handlers::CommandOnly;
    s
}

/// The 33 Claude Code events (reference section 1.1).
pub const CATALOG: &[EventSpec] = &[
    command_only(plain(spec(
        "SessionStart",
        Some("source"),
        CONTEXT
            .with(Fields::INITIAL_USER_MESSAGE)
            .with(Fields::SESSION_TITLE)
            .with(Fields::WATCH_PATHS),
    ))),
    command_only(spec("Setup", Some("trigger"), Fields::ADDITIONAL_CONTEXT)),
    spec("InstructionsLoaded", Some("load_reason"), Fields::NONE),
    all(plain(timeout(
        spec(
            "UserPromptSubmit",
            None,
            BLOCK_CONTEXT.with(Fields::SESSION_TITLE),
        ),
        30,
    ))),
    all(plain(spec(
        "UserPromptExpansion",
        Some("command_name"),
        BLOCK_CONTEXT,
    ))),
    timeout(spec("MessageDisplay", None, Fields::NONE), 10),
    tool(spec(
        "PreToolUse",
        Some("tool_name"),
        BLOCK_CONTEXT
            .with(Fields::PERMISSION_DECISION)
            .with(Fields::UPDATED_INPUT),
    )),
    // PermissionRequest blocks only through its JSON decision; exit 2 is ignored.
    tool(spec(
        "PermissionRequest",
        Some("tool_name"),
        BASE.with(Fields::PERMISSION_DECISION)
            .with(Fields::UPDATED_INPUT)
            .with(Fields::UPDATED_PERMISSIONS),
    )),
    tool(spec("PermissionDenied", Some("tool_name"), Fields::RETRY)),
    // The tool already ran: a "block" here feeds the reason back to the model.
    tool(spec(
        "PostToolUse",
        Some("tool_name"),
        BLOCK_CONTEXT.with(Fields::UPDATED_TOOL_OUTPUT),
    )),
    tool(spec("PostToolUseFailure", Some("tool_name"), BLOCK_CONTEXT)),
    all(spec("PostToolBatch", None, BLOCK_CONTEXT)),
    spec("Notification", Some("notification_type"), Fields::NONE),
    spec(
        "SubagentStart",
        Some("agent_type"),
        Fields::ADDITIONAL_CONTEXT,
    ),
    all(spec("SubagentStop", Some("agent_type"), BLOCK_CONTEXT)),
    all(spec("TaskCreated", None, Fields::BLOCK)),
    all(spec("TaskCompleted", None, Fields::BLOCK.with(BASE))),
    all(spec("Stop", None, BLOCK_CONTEXT)),
    spec("StopFailure", Some("error"), Fields::NONE),
    all(spec("TeammateIdle", None, Fields::BLOCK.with(BASE))),
    spec("ConfigChange", Some("source"), Fields::BLOCK),
    spec("CwdChanged", None, BASE.with(Fields::WATCH_PATHS)),
    spec("DirectoryAdded", Some("source"), Fields::SYSTEM_MESSAGE),
    on_file_name(spec(
        "FileChanged",
        Some("file_path"),
        BASE.with(Fields::WATCH_PATHS),
    )),
    failure_blocks(spec("WorktreeCreate", Some("name"), Fields::BLOCK)),
    spec("WorktreeRemove", Some("worktree_path"), Fields::NONE),
    spec("PreCompact", Some("trigger"), Fields::BLOCK),
    spec("PostCompact", Some("trigger"), Fields::NONE),
    timeout(
        spec(
            "PreModelSwitch",
            Some("to_model"),
            BASE.with(Fields::BLOCK).with(Fields::PERMISSION_DECISION),
        ),
        30,
    ),
    plain(timeout(
        spec("PostModelSwitch", Some("to_model"), CONTEXT),
        30,
    )),
    spec("Elicitation", Some("mcp_server_name"), Fields::BLOCK),
    spec("ElicitationResult", Some("mcp_server_name"), Fields::BLOCK),
    spec("SessionEnd", Some("reason"), Fields::NONE),
];

impl EventSpec {
    /// The catalog entry for a known event name (case-sensitive).
    pub fn lookup(name: &str) -> Option<&'static EventSpec> {
        CATALOG.iter().find(|spec| spec.name == name)
    }

    /// The catalog entry for `name`, or the permissive custom entry when unknown.
    pub fn for_name(name: &str) -> EventSpec {
        Self::lookup(name).copied().unwrap_or_else(Self::custom)
    }

    /// The entry used for events hookhost does not know: blockable, every field
    /// honoured, matcher compared against `tool_name` when the input has one.
    pub fn custom() -> EventSpec {
        EventSpec {
            name: "",
            matcher_field: Some("tool_name"),
            can_block: true,
            plain_text_context: false,
            fields: Fields::ALL,
            handlers: Handlers::All,
            default_timeout_secs: DEFAULT_TIMEOUT,
            tool_event: false,
            known: false,
            matcher_on_file_name: false,
            failure_blocks: false,
        }
    }

    /// Whether the event honours `field`.
    pub fn honours(&self, field: Fields) -> bool {
        self.fields.contains(field)
    }

    /// The value this event's matcher compares against in `input` (the file name of the
    /// field on FileChanged). Matching and the Wasm input's `matcher-value` both use it.
    pub fn matcher_value(&self, input: &serde_json::Value) -> Option<String> {
        let value = input.get(self.matcher_field?)?.as_str()?;
        if self.matcher_on_file_name {
            return Some(
                std::path::Path::new(value)
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_else(|| value.to_string()),
            );
        }
        Some(value.to_string())
    }

    /// Default timeout for command, http and wasm hooks on this event.
    pub fn default_timeout(&self) -> Duration {
        Duration::from_secs(self.default_timeout_secs)
    }

    /// Whether the event uses the narrow exact-matcher alphabet (letters, digits, `_`, `|`).
    pub fn narrow_matcher(&self) -> bool {
        matches!(self.name, "FileChanged" | "StopFailure")
    }

    /// Whether the event is one of the stop events guarded against block loops.
    pub fn is_stop(&self) -> bool {
        matches!(self.name, "Stop" | "SubagentStop")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_has_the_33_reference_events() {
        assert_eq!(CATALOG.len(), 33);
        for name in [
            "TeammateIdle",
            "Setup",
            "PreModelSwitch",
            "PostModelSwitch",
            "PostToolBatch",
        ] {
            assert!(EventSpec::lookup(name).is_some(), "{name} missing");
        }
        let mut names: Vec<_> = CATALOG.iter().map(|s| s.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 33, "duplicate names");
    }

    #[test]
    fn scoping_follows_the_reference() {
        let pre = EventSpec::lookup("PreToolUse").unwrap();
        assert!(pre.honours(Fields::UPDATED_INPUT));
        assert!(!pre.honours(Fields::UPDATED_PERMISSIONS));
        let perm = EventSpec::lookup("PermissionRequest").unwrap();
        assert!(perm.honours(Fields::UPDATED_PERMISSIONS));
        assert!(!perm.can_block);
        let start = EventSpec::lookup("SessionStart").unwrap();
        assert!(start.honours(Fields::WATCH_PATHS) && start.plain_text_context);
        assert!(!start.can_block);
        assert_eq!(
            EventSpec::lookup("UserPromptSubmit")
                .unwrap()
                .default_timeout_secs,
            30
        );
    }

    #[test]
    fn unknown_events_are_custom() {
        let spec = EventSpec::for_name("MyHostEvent");
        assert!(!spec.known && spec.can_block);
    }
}

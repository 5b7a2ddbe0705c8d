//! The event catalog: every Claude Code hook event, with what its matcher compares
//! against, whether it can block, which answer fields it honours, and what exit code 2,
//! a failing hook and a prompt verdict do on it. Every per-event rule of the crate is a
//! column here; no other module compares event names.
//!
//! An [`Event`] is a name plus its catalog entry. Hosts may fire events hookhost does
//! not know: those get [`EventSpec::custom`], the permissive entry.

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
    /// A replacement message (hygge `modified_message`).
    pub const UPDATED_MESSAGE: Fields = Fields(1 << 12);
    /// One-turn system prompt context (hygge `system_prompt_append`).
    pub const SYSTEM_PROMPT_APPEND: Fields = Fields(1 << 13);
    /// `hookSpecificOutput.worktreePath` (WorktreeCreate).
    pub const WORKTREE_PATH: Fields = Fields(1 << 14);
    /// New compaction instructions (PreCompact stdout).
    pub const CUSTOM_INSTRUCTIONS: Fields = Fields(1 << 15);
    /// `hookSpecificOutput.classifierContext` (PostToolUse: what the auto-mode
    /// permission classifier is shown).
    pub const CLASSIFIER_CONTEXT: Fields = Fields(1 << 16);
    /// `hookSpecificOutput.suppressOriginalPrompt` (UserPromptExpansion).
    pub const SUPPRESS_ORIGINAL_PROMPT: Fields = Fields(1 << 17);
    /// Every field: the scope of events hookhost does not know.
    pub const ALL: Fields = Fields(u32::MAX);

    /// The set with these bits.
    pub const fn from_bits(bits: u32) -> Fields {
        Fields(bits)
    }

    /// The bits of the set.
    pub const fn bits(self) -> u32 {
        self.0
    }

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

/// What exit code 2 from a command hook does on an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit2 {
    /// Blocks, with stderr as the reason.
    Blocks,
    /// Reported as a non-blocking error (stderr shown to the user).
    Reported,
    /// Ignored (PermissionRequest decides only through its JSON answer).
    Ignored,
}

/// How a block is expressed in a Claude Code answer for an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockForm {
    /// `hookSpecificOutput.permissionDecision` (PreToolUse).
    PermissionDecision,
    /// `hookSpecificOutput.decision.behavior` (PermissionRequest).
    PermissionBehavior,
    /// Top-level `decision: "block"` with `reason`.
    Json,
    /// Exit code 2 with the reason on stderr.
    ExitCode,
}

/// What an `{"ok": false}` verdict of a prompt hook does on an event (reference 3.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptEffect {
    /// Nothing.
    None,
    /// Blocks with the reason.
    Block,
    /// Blocks and ends the turn (`continue: false`).
    EndTurn,
    /// Blocks; ends the turn unless the hook sets `continueOnBlock`.
    EndTurnUnlessContinue,
    /// Denies the tool call; ends the turn unless `continueOnBlock`.
    Deny,
    /// Blocks the stop; an `impossible` verdict becomes a system message instead.
    BlockStop,
}

/// What an event's matcher compares against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatcherValue {
    /// The event has no matcher; every hook of the event fires.
    None,
    /// The string value of this input field.
    Field(&'static str),
    /// The file name (last path component) of this input field (FileChanged).
    FileName(&'static str),
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
    /// What the matcher compares: a field, or the file name in a field (FileChanged:
    /// the matcher is `.envrc`, the field a full path).
    pub matcher_value: MatcherValue,
    /// Whether matchers are limited to the narrow exact alphabet (letters, digits, `_`,
    /// `.`, `|`).
    pub narrow_matcher: bool,
    /// Whether any failure of a hook fails the event (WorktreeCreate: a non-zero exit, an
    /// HTTP error status or a refused connection fails the creation).
    pub failure_blocks: bool,
    /// Whether a hook that did not finish (stopped by its timeout or another limit:
    /// `cancelled`) blocks the event (PreModelSwitch: "a timeout also blocks").
    pub timeout_blocks: bool,
    /// What a command's exit code 2 does.
    pub exit2: Exit2,
    /// How a block is written in a Claude Code answer.
    pub block_form: BlockForm,
    /// What a prompt hook's `ok: false` does.
    pub prompt_effect: PromptEffect,
    /// Whether consecutive blocks are counted by the stop-loop guard.
    pub stop_guard: bool,
    /// The catalog event this entry behaves like (its own name in the Claude catalog; a
    /// dialect's event, e.g. hygge `pre_tool`, names the catalog event it maps onto).
    /// Wasm guests see this name.
    pub catalog_name: &'static str,
    /// How matchers are written for this event (the dialect's syntax).
    pub matcher_syntax: MatcherSyntax,
    /// Whether hooks of this event may, must or must not run in the background.
    pub mode: ModeRule,
    /// The catalog event whose hooks also judge this event's input, presented to them as
    /// that event (`PreSkillShellCommand`: a skill's `!` line is the Bash command it is,
    /// so every `PreToolUse` guard of Bash judges it).
    pub judged_as: Option<&'static str>,
    /// Whether a refusal here keeps an action from happening (a tool call, a shell line,
    /// a permission, a prompt, a model switch, …): the entries hookhost writes into an
    /// agent's settings for it block when hookhost cannot answer.
    pub guards_action: bool,
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
    let can_block = fields.contains(Fields::BLOCK);
    EventSpec {
        name,
        matcher_field,
        can_block,
        plain_text_context: false,
        fields,
        handlers: Handlers::NoLlm,
        default_timeout_secs: DEFAULT_TIMEOUT,
        tool_event: false,
        known: true,
        matcher_value: match matcher_field {
            Some(field) => MatcherValue::Field(field),
            None => MatcherValue::None,
        },
        narrow_matcher: false,
        failure_blocks: false,
        timeout_blocks: false,
        exit2: if can_block {
            Exit2::Blocks
        } else {
            Exit2::Reported
        },
        block_form: BlockForm::ExitCode,
        prompt_effect: PromptEffect::None,
        stop_guard: false,
        catalog_name: name,
        matcher_syntax: MatcherSyntax::Claude,
        mode: ModeRule::Free,
        judged_as: None,
        guards_action: false,
    }
}

const fn guards(mut s: EventSpec) -> EventSpec {
    s.guards_action = true;
    s
}

const fn on_file_name(mut s: EventSpec) -> EventSpec {
    if let Some(field) = s.matcher_field {
        s.matcher_value = MatcherValue::FileName(field);
    }
    s
}

const fn timeout_blocks(mut s: EventSpec) -> EventSpec {
    s.timeout_blocks = true;
    s
}

const fn narrow(mut s: EventSpec) -> EventSpec {
    s.narrow_matcher = true;
    s
}

const fn json_block(mut s: EventSpec) -> EventSpec {
    s.block_form = BlockForm::Json;
    s
}

const fn prompt(mut s: EventSpec, effect: PromptEffect) -> EventSpec {
    s.prompt_effect = effect;
    s
}

const fn stop_event(mut s: EventSpec) -> EventSpec {
    s.stop_guard = true;
    s.block_form = BlockForm::Json;
    s.prompt_effect = PromptEffect::BlockStop;
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

const fn pre_tool_use(mut s: EventSpec) -> EventSpec {
    s.block_form = BlockForm::PermissionDecision;
    s.prompt_effect = PromptEffect::Deny;
    s
}

const fn permission_request(mut s: EventSpec) -> EventSpec {
    s.block_form = BlockForm::PermissionBehavior;
    s.exit2 = Exit2::Ignored;
    s
}

const fn command_only(mut s: EventSpec) -> EventSpec {
    s.handlers = Handlers::CommandOnly;
    s
}

const fn no_llm(mut s: EventSpec) -> EventSpec {
    s.handlers = Handlers::NoLlm;
    s
}

const fn judged_as(mut s: EventSpec, event: &'static str) -> EventSpec {
    s.judged_as = Some(event);
    s
}

/// The 34 Claude Code events of 2.1.332 ([`CATALOG_VERSION`]), in Claude Code's order
/// where it matters to no rule here.
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
    guards(prompt(
        json_block(all(plain(timeout(
            spec(
                "UserPromptSubmit",
                None,
                BLOCK_CONTEXT.with(Fields::SESSION_TITLE),
            ),
            30,
        )))),
        PromptEffect::EndTurn,
    )),
    guards(prompt(
        json_block(all(plain(spec(
            "UserPromptExpansion",
            Some("command_name"),
            BLOCK_CONTEXT.with(Fields::SUPPRESS_ORIGINAL_PROMPT),
        )))),
        PromptEffect::EndTurn,
    )),
    timeout(spec("MessageDisplay", None, Fields::NONE), 10),
    guards(pre_tool_use(tool(spec(
        "PreToolUse",
        Some("tool_name"),
        BLOCK_CONTEXT
            .with(Fields::PERMISSION_DECISION)
            .with(Fields::UPDATED_INPUT),
    )))),
    // PermissionRequest blocks only through its JSON decision; exit 2 is ignored.
    guards(permission_request(tool(spec(
        "PermissionRequest",
        Some("tool_name"),
        BASE.with(Fields::PERMISSION_DECISION)
            .with(Fields::UPDATED_INPUT)
            .with(Fields::UPDATED_PERMISSIONS),
    )))),
    tool(spec("PermissionDenied", Some("tool_name"), Fields::RETRY)),
    // The tool already ran: a "block" here feeds the reason back to the model.
    prompt(
        json_block(tool(spec(
            "PostToolUse",
            Some("tool_name"),
            BLOCK_CONTEXT
                .with(Fields::UPDATED_TOOL_OUTPUT)
                .with(Fields::CLASSIFIER_CONTEXT),
        ))),
        PromptEffect::EndTurnUnlessContinue,
    ),
    prompt(
        json_block(tool(spec(
            "PostToolUseFailure",
            Some("tool_name"),
            BLOCK_CONTEXT,
        ))),
        PromptEffect::Block,
    ),
    prompt(
        json_block(all(spec("PostToolBatch", None, BLOCK_CONTEXT))),
        PromptEffect::EndTurn,
    ),
    spec("Notification", Some("notification_type"), Fields::NONE),
    spec(
        "SubagentStart",
        Some("agent_type"),
        Fields::ADDITIONAL_CONTEXT,
    ),
    stop_event(all(spec("SubagentStop", Some("agent_type"), BLOCK_CONTEXT))),
    guards(prompt(
        json_block(all(spec("TaskCreated", None, Fields::BLOCK))),
        PromptEffect::Block,
    )),
    prompt(
        all(spec("TaskCompleted", None, Fields::BLOCK.with(BASE))),
        PromptEffect::Block,
    ),
    stop_event(all(spec("Stop", None, BLOCK_CONTEXT))),
    narrow(spec("StopFailure", Some("error"), Fields::NONE)),
    prompt(
        all(spec("TeammateIdle", None, Fields::BLOCK.with(BASE))),
        PromptEffect::EndTurnUnlessContinue,
    ),
    guards(json_block(spec(
        "ConfigChange",
        Some("source"),
        Fields::BLOCK,
    ))),
    spec("CwdChanged", None, BASE.with(Fields::WATCH_PATHS)),
    spec("DirectoryAdded", Some("source"), Fields::SYSTEM_MESSAGE),
    narrow(on_file_name(spec(
        "FileChanged",
        Some("file_path"),
        BASE.with(Fields::WATCH_PATHS),
    ))),
    failure_blocks(spec(
        "WorktreeCreate",
        Some("name"),
        Fields::BLOCK.with(Fields::WORKTREE_PATH),
    )),
    spec("WorktreeRemove", Some("worktree_path"), Fields::NONE),
    guards(json_block(spec(
        "PreCompact",
        Some("trigger"),
        Fields::BLOCK.with(Fields::CUSTOM_INSTRUCTIONS),
    ))),
    spec("PostCompact", Some("trigger"), Fields::NONE),
    guards(timeout_blocks(json_block(timeout(
        spec(
            "PreModelSwitch",
            Some("to_model"),
            BASE.with(Fields::BLOCK).with(Fields::PERMISSION_DECISION),
        ),
        30,
    )))),
    plain(timeout(
        spec("PostModelSwitch", Some("to_model"), CONTEXT),
        30,
    )),
    guards(spec("Elicitation", Some("mcp_server_name"), Fields::BLOCK)),
    guards(spec(
        "ElicitationResult",
        Some("mcp_server_name"),
        Fields::BLOCK,
    )),
    spec("SessionEnd", Some("reason"), Fields::NONE),
    // A skill's or slash command's `!` line, before it runs: deny-only (`updatedInput` is
    // never applied, so it is not honoured here), no prompt or agent hooks, and judged by
    // the PreToolUse hooks as the shell command it is.
    guards(judged_as(
        no_llm(pre_tool_use(tool(spec(
            "PreSkillShellCommand",
            Some("tool_name"),
            BASE.with(Fields::BLOCK).with(Fields::PERMISSION_DECISION),
        )))),
        "PreToolUse",
    )),
];

/// The newest Claude Code release whose events, input fields and answer fields
/// [`CATALOG`] follows (`hookhost claude status` warns about a newer one).
pub const CATALOG_VERSION: &str = "2.1.332";

impl EventSpec {
    /// The catalog entry for a known event name (case-sensitive).
    pub fn lookup(name: &str) -> Option<&'static EventSpec> {
        CATALOG.iter().find(|spec| spec.name == name)
    }

    /// The catalog entry for `name`, or the permissive custom entry when unknown.
    pub fn for_name(name: &str) -> &'static EventSpec {
        Self::lookup(name).unwrap_or(&CUSTOM)
    }

    /// The entry used for events hookhost does not know: blockable, every field
    /// honoured, matcher compared against `tool_name` when the input has one.
    pub fn custom() -> &'static EventSpec {
        &CUSTOM
    }

    /// Whether the event honours `field`.
    pub fn honours(&self, field: Fields) -> bool {
        self.fields.contains(field)
    }

    /// The value this event's matcher compares against in `input` (the file name of the
    /// field on FileChanged). Matching and the Wasm input's `matcher-value` both use it.
    pub fn matcher_value(&self, input: &serde_json::Value) -> Option<String> {
        let text =
            |name: &str| crate::json_field::field(input, name).and_then(serde_json::Value::as_str);
        match self.matcher_value {
            MatcherValue::None => None,
            MatcherValue::Field(field) => text(field).map(str::to_string),
            MatcherValue::FileName(field) => text(field).map(|value| {
                std::path::Path::new(value)
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_else(|| value.to_string())
            }),
        }
    }

    /// Default timeout for command, http and wasm hooks on this event.
    pub fn default_timeout(&self) -> Duration {
        Duration::from_secs(self.default_timeout_secs)
    }
}

/// The entry of events hookhost does not know.
pub(crate) static CUSTOM: EventSpec = EventSpec {
    name: "",
    matcher_field: Some("tool_name"),
    can_block: true,
    plain_text_context: false,
    fields: Fields::ALL,
    handlers: Handlers::All,
    default_timeout_secs: DEFAULT_TIMEOUT,
    tool_event: false,
    known: false,
    matcher_value: MatcherValue::Field("tool_name"),
    narrow_matcher: false,
    failure_blocks: false,
    timeout_blocks: false,
    exit2: Exit2::Blocks,
    block_form: BlockForm::ExitCode,
    prompt_effect: PromptEffect::None,
    stop_guard: false,
    catalog_name: "",
    matcher_syntax: MatcherSyntax::Claude,
    mode: ModeRule::Free,
    judged_as: None,
    guards_action: true,
};

/// How a matcher is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatcherSyntax {
    /// Claude Code: exact names, `a|b`, `Tool(args)`, else a regular expression.
    #[default]
    Claude,
    /// A glob over the value (`mcp__*`, `*Edit`, `Bash`), alternatives split on `|`.
    Glob,
}

/// Whether a hook of an event may run in the background.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModeRule {
    /// `async` is allowed.
    #[default]
    Free,
    /// `async` is refused at load (the hook is skipped with a warning): the event waits
    /// for every hook (hygge `pre_*`).
    SyncOnly,
    /// Every hook runs in the background, whatever it declares (hygge `post_message`).
    AlwaysAsync,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_has_the_34_events_of_claude_code_2_1_332() {
        assert_eq!(CATALOG.len(), 34);
        for name in [
            "TeammateIdle",
            "Setup",
            "PreModelSwitch",
            "PostModelSwitch",
            "PostToolBatch",
            "PreSkillShellCommand",
        ] {
            assert!(EventSpec::lookup(name).is_some(), "{name} missing");
        }
        let mut names: Vec<_> = CATALOG.iter().map(|s| s.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 34, "duplicate names");
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
        let event = crate::dialect::Event::new("MyHostEvent");
        assert_eq!(event.name(), "MyHostEvent");
        assert!(event == "MyHostEvent" && !event.known);
    }

    #[test]
    fn per_event_rules_are_columns() {
        let get = |name| EventSpec::lookup(name).unwrap();
        assert_eq!(get("PermissionRequest").exit2, Exit2::Ignored);
        assert_eq!(get("Notification").exit2, Exit2::Reported);
        assert_eq!(get("PreToolUse").exit2, Exit2::Blocks);
        assert_eq!(get("PreToolUse").block_form, BlockForm::PermissionDecision);
        assert_eq!(get("Stop").block_form, BlockForm::Json);
        assert_eq!(get("WorktreeCreate").block_form, BlockForm::ExitCode);
        assert!(get("WorktreeCreate").failure_blocks);
        assert_eq!(get("PreToolUse").prompt_effect, PromptEffect::Deny);
        assert_eq!(get("PermissionDenied").prompt_effect, PromptEffect::None);
        assert!(get("SubagentStop").stop_guard && !get("StopFailure").stop_guard);
        assert!(get("FileChanged").narrow_matcher);
        let input = serde_json::json!({"file_path": "/a/b/.envrc", "name": "feature"});
        assert_eq!(
            get("FileChanged").matcher_value(&input).as_deref(),
            Some(".envrc")
        );
        assert_eq!(
            get("WorktreeCreate").matcher_value(&input).as_deref(),
            Some("feature")
        );
        assert_eq!(get("Stop").matcher_value(&input), None);
    }
}

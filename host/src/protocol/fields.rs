//! The field table: every answer field of the Claude Code protocol with its wire key,
//! its place in the answer, the catalog flag that scopes it, and how to find and clear
//! it in a [`HookAnswer`]. Parsing, scoping and rendering all read their keys here.

use crate::event::{EventSpec, Fields};
use crate::output::HookAnswer;

/// Where a field sits in a Claude Code answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// At the top level of the answer object.
    Top,
    /// Inside `hookSpecificOutput`.
    Specific,
}

/// One scoped answer field.
#[derive(Clone, Copy)]
pub struct Field {
    /// The JSON key.
    pub key: &'static str,
    /// Where it sits.
    pub place: Place,
    /// The catalog flag an event must honour for the field to count.
    pub flag: Fields,
    /// Whether an output sets the field.
    pub present: fn(&HookAnswer) -> bool,
    /// Removes the field (and the fields that only make sense with it).
    pub clear: fn(&mut HookAnswer),
}

impl std::fmt::Debug for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key)
    }
}

/// `decision: "block"` (and exit code 2).
pub const DECISION: Field = Field {
    key: "decision",
    place: Place::Top,
    flag: Fields::BLOCK,
    present: |o| o.block,
    clear: |o| o.block = false,
};
/// `continue: false` (with `stopReason`).
pub const CONTINUE: Field = Field {
    key: "continue",
    place: Place::Top,
    flag: Fields::CONTINUE,
    present: |o| o.continue_ == Some(false),
    clear: |o| {
        o.continue_ = None;
        o.stop_reason = None;
    },
};
/// `systemMessage`.
pub const SYSTEM_MESSAGE: Field = Field {
    key: "systemMessage",
    place: Place::Top,
    flag: Fields::SYSTEM_MESSAGE,
    present: |o| o.system_message.is_some(),
    clear: |o| o.system_message = None,
};
/// `hookSpecificOutput.additionalContext`.
pub const ADDITIONAL_CONTEXT: Field = Field {
    key: "additionalContext",
    place: Place::Specific,
    flag: Fields::ADDITIONAL_CONTEXT,
    present: |o| o.additional_context.is_some(),
    clear: |o| o.additional_context = None,
};
/// `hookSpecificOutput.permissionDecision` (with its reason).
pub const PERMISSION_DECISION: Field = Field {
    key: "permissionDecision",
    place: Place::Specific,
    flag: Fields::PERMISSION_DECISION,
    present: |o| o.permission_decision.is_some(),
    clear: |o| {
        o.permission_decision = None;
        o.permission_decision_reason = None;
    },
};
/// `hookSpecificOutput.updatedInput`.
pub const UPDATED_INPUT: Field = Field {
    key: "updatedInput",
    place: Place::Specific,
    flag: Fields::UPDATED_INPUT,
    present: |o| o.updated_input.is_some(),
    clear: |o| o.updated_input = None,
};
/// `hookSpecificOutput.decision.updatedPermissions`.
pub const UPDATED_PERMISSIONS: Field = Field {
    key: "updatedPermissions",
    place: Place::Specific,
    flag: Fields::UPDATED_PERMISSIONS,
    present: |o| !o.updated_permissions.is_empty(),
    clear: |o| o.updated_permissions.clear(),
};
/// `watchPaths` (top level or in `hookSpecificOutput`).
pub const WATCH_PATHS: Field = Field {
    key: "watchPaths",
    place: Place::Specific,
    flag: Fields::WATCH_PATHS,
    present: |o| !o.watch_paths.is_empty(),
    clear: |o| o.watch_paths.clear(),
};
/// `hookSpecificOutput.initialUserMessage`.
pub const INITIAL_USER_MESSAGE: Field = Field {
    key: "initialUserMessage",
    place: Place::Specific,
    flag: Fields::INITIAL_USER_MESSAGE,
    present: |o| o.initial_user_message.is_some(),
    clear: |o| o.initial_user_message = None,
};
/// `hookSpecificOutput.sessionTitle`.
pub const SESSION_TITLE: Field = Field {
    key: "sessionTitle",
    place: Place::Specific,
    flag: Fields::SESSION_TITLE,
    present: |o| o.session_title.is_some(),
    clear: |o| o.session_title = None,
};
/// `hookSpecificOutput.retry`.
pub const RETRY: Field = Field {
    key: "retry",
    place: Place::Specific,
    flag: Fields::RETRY,
    present: |o| o.retry.is_some(),
    clear: |o| o.retry = None,
};
/// `hookSpecificOutput.updatedToolOutput` (also read as `updatedMCPToolOutput`).
pub const UPDATED_TOOL_OUTPUT: Field = Field {
    key: "updatedToolOutput",
    place: Place::Specific,
    flag: Fields::UPDATED_TOOL_OUTPUT,
    present: |o| o.updated_tool_output.is_some(),
    clear: |o| o.updated_tool_output = None,
};
/// `hookSpecificOutput.classifierContext` (PostToolUse).
pub const CLASSIFIER_CONTEXT: Field = Field {
    key: "classifierContext",
    place: Place::Specific,
    flag: Fields::CLASSIFIER_CONTEXT,
    present: |o| o.classifier_context.is_some(),
    clear: |o| o.classifier_context = None,
};
/// `hookSpecificOutput.suppressOriginalPrompt` (UserPromptExpansion).
pub const SUPPRESS_ORIGINAL_PROMPT: Field = Field {
    key: "suppressOriginalPrompt",
    place: Place::Specific,
    flag: Fields::SUPPRESS_ORIGINAL_PROMPT,
    present: |o| o.suppress_original_prompt.is_some(),
    clear: |o| o.suppress_original_prompt = None,
};
/// hygge `modified_message`.
pub const UPDATED_MESSAGE: Field = Field {
    key: "modified_message",
    place: Place::Top,
    flag: Fields::UPDATED_MESSAGE,
    present: |o| o.updated_message.is_some(),
    clear: |o| o.updated_message = None,
};
/// hygge `system_prompt_append`.
pub const SYSTEM_PROMPT_APPEND: Field = Field {
    key: "system_prompt_append",
    place: Place::Top,
    flag: Fields::SYSTEM_PROMPT_APPEND,
    present: |o| o.system_prompt_append.is_some(),
    clear: |o| o.system_prompt_append = None,
};
/// `hookSpecificOutput.worktreePath` (WorktreeCreate).
pub const WORKTREE_PATH: Field = Field {
    key: "worktreePath",
    place: Place::Specific,
    flag: Fields::WORKTREE_PATH,
    present: |o| o.worktree_path.is_some(),
    clear: |o| o.worktree_path = None,
};
/// New compaction instructions (PreCompact stdout).
pub const CUSTOM_INSTRUCTIONS: Field = Field {
    key: "customInstructions",
    place: Place::Top,
    flag: Fields::CUSTOM_INSTRUCTIONS,
    present: |o| o.custom_instructions.is_some(),
    clear: |o| o.custom_instructions = None,
};

/// Every scoped field, in the order `ignored_fields` lists them.
pub const ALL: &[Field] = &[
    DECISION,
    CONTINUE,
    SYSTEM_MESSAGE,
    ADDITIONAL_CONTEXT,
    PERMISSION_DECISION,
    UPDATED_INPUT,
    UPDATED_PERMISSIONS,
    WATCH_PATHS,
    INITIAL_USER_MESSAGE,
    SESSION_TITLE,
    RETRY,
    UPDATED_TOOL_OUTPUT,
    CLASSIFIER_CONTEXT,
    SUPPRESS_ORIGINAL_PROMPT,
    UPDATED_MESSAGE,
    SYSTEM_PROMPT_APPEND,
    WORKTREE_PATH,
    CUSTOM_INSTRUCTIONS,
];

/// Wire keys that ride along with a scoped field or frame the answer.
pub mod key {
    /// `hookSpecificOutput`.
    pub const SPECIFIC: &str = "hookSpecificOutput";
    /// `hookSpecificOutput.hookEventName`.
    pub const EVENT_NAME: &str = "hookEventName";
    /// Top-level `reason` (of a block).
    pub const REASON: &str = "reason";
    /// `stopReason` (with `continue: false`).
    pub const STOP_REASON: &str = "stopReason";
    /// `permissionDecisionReason`.
    pub const DECISION_REASON: &str = "permissionDecisionReason";
    /// PermissionRequest `decision.behavior`.
    pub const BEHAVIOR: &str = "behavior";
    /// PermissionRequest `decision.message`.
    pub const MESSAGE: &str = "message";
    /// PermissionRequest `decision.interrupt`.
    pub const INTERRUPT: &str = "interrupt";
    /// The MCP spelling of `updatedToolOutput`.
    pub const UPDATED_MCP_TOOL_OUTPUT: &str = "updatedMCPToolOutput";
    /// The first-line marker that detaches a command hook.
    pub const ASYNC: &str = "async";
    /// `asyncTimeout` (seconds) beside the async marker.
    pub const ASYNC_TIMEOUT: &str = "asyncTimeout";
    /// `suppressOutput`.
    pub const SUPPRESS_OUTPUT: &str = "suppressOutput";
    /// `preventContinuation` (with `stopReason`): the same as `continue: false`.
    pub const PREVENT_CONTINUATION: &str = "preventContinuation";
}

/// Removes the fields `spec` does not honour from `output` and returns the keys of
/// those that were set.
pub fn scope(spec: &EventSpec, output: &mut HookAnswer) -> Vec<&'static str> {
    let mut dropped = Vec::new();
    for field in ALL {
        if spec.honours(field.flag) {
            continue;
        }
        if (field.present)(output) {
            dropped.push(field.key);
        }
        (field.clear)(output);
    }
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_clears_what_it_detects() {
        let mut full = HookAnswer {
            block: true,
            continue_: Some(false),
            system_message: Some("m".into()),
            additional_context: Some("c".into()),
            permission_decision: Some(crate::output::PermissionDecision::Deny),
            updated_input: Some(serde_json::json!({})),
            updated_permissions: vec![serde_json::json!({})],
            watch_paths: vec!["p".into()],
            initial_user_message: Some("u".into()),
            session_title: Some("t".into()),
            retry: Some(true),
            updated_tool_output: Some(serde_json::json!(1)),
            classifier_context: Some("k".into()),
            suppress_original_prompt: Some(true),
            updated_message: Some("m".into()),
            system_prompt_append: Some("s".into()),
            worktree_path: Some("/w".into()),
            custom_instructions: Some("c".into()),
            ..HookAnswer::default()
        };
        for field in ALL {
            assert!((field.present)(&full), "{} not detected", field.key);
            (field.clear)(&mut full);
            assert!(!(field.present)(&full), "{} not cleared", field.key);
        }
        let keys: std::collections::HashSet<_> = ALL.iter().map(|f| f.key).collect();
        assert_eq!(keys.len(), ALL.len(), "duplicate keys");
    }

    #[test]
    fn scoping_drops_and_names_fields_the_event_ignores() {
        let mut output = HookAnswer {
            additional_context: Some("c".into()),
            updated_input: Some(serde_json::json!({})),
            ..HookAnswer::default()
        };
        let dropped = scope(EventSpec::for_name("Stop"), &mut output);
        assert_eq!(dropped, vec!["updatedInput"]);
        assert!(output.updated_input.is_none() && output.additional_context.is_some());
    }
}

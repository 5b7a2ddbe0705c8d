//! [`HookAnswer`]: the one answer shape every executor produces, whatever the wire
//! format it came in ([`crate::protocol`] parses Claude Code's JSON into it).

use serde_json::Value;

/// A permission decision, ordered from least to most restrictive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PermissionDecision {
    /// Run without asking.
    Allow,
    /// Ask the user.
    Ask,
    /// Defer the call (headless hosts).
    Defer,
    /// Refuse the call.
    Deny,
}

impl PermissionDecision {
    /// Parses the protocol spelling (`allow`, `ask`, `defer`, `deny`, and the legacy
    /// `approve`/`block`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "allow" | "approve" => Some(Self::Allow),
            "ask" => Some(Self::Ask),
            "defer" => Some(Self::Defer),
            "deny" | "block" => Some(Self::Deny),
            _ => None,
        }
    }

    /// The protocol spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Defer => "defer",
            Self::Deny => "deny",
        }
    }
}

/// What one hook answered, whichever executor ran it. Every field is optional; `merge`
/// decides what the fields of several hooks add up to.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct HookAnswer {
    /// The hook asked to block (exit 2, `decision: "block"`, or a deny decision).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub block: bool,
    /// Why it blocked (or the top-level `reason`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `continue: false` stops the agent.
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    /// Shown to the user when `continue` is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Warning for the user.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    /// Context for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// PreToolUse / PermissionRequest decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<PermissionDecision>,
    /// Why the decision was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision_reason: Option<String>,
    /// Replacement tool input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<Value>,
    /// Permission updates (PermissionRequest).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub updated_permissions: Vec<Value>,
    /// PermissionRequest `decision.interrupt`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupt: bool,
    /// Paths to watch for FileChanged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub watch_paths: Vec<String>,
    /// SessionStart first user turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_user_message: Option<String>,
    /// Session title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
    /// PermissionDenied retry hint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<bool>,
    /// Replacement tool output (PostToolUse; hygge `modified_tool_result`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_tool_output: Option<Value>,
    /// What the auto-mode permission classifier is shown (PostToolUse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classifier_context: Option<String>,
    /// Whether the expanded prompt replaces the typed one (UserPromptExpansion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppress_original_prompt: Option<bool>,
    /// `suppressOutput`: keep the hook's output out of the transcript.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub suppress_output: bool,
    /// Replacement message text (hygge `modified_message`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_message: Option<String>,
    /// One-turn system prompt context (hygge `system_prompt_append`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt_append: Option<String>,
    /// The created worktree (WorktreeCreate: hso `worktreePath`, or a command's last
    /// stdout line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree_path: Option<String>,
    /// New compaction instructions (PreCompact: a successful hook's stdout text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
}

impl HookAnswer {
    /// Whether this answer blocks: a block decision or a deny permission decision.
    pub fn blocks(&self) -> bool {
        self.block || self.permission_decision == Some(PermissionDecision::Deny)
    }

    /// Whether the answer blocks on an event that honours `fields`: a block or a deny the
    /// event ignores (hygge `post_tool`: the tool already ran) blocks nothing — nor stops
    /// a chain.
    pub fn blocks_where(&self, fields: crate::event::Fields) -> bool {
        use crate::event::Fields;
        let deny = self.permission_decision == Some(PermissionDecision::Deny);
        (self.block && fields.contains(Fields::BLOCK))
            || (deny
                && (fields.contains(Fields::PERMISSION_DECISION) || fields.contains(Fields::BLOCK)))
    }
}

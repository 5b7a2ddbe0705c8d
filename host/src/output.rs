//! [`HookOutput`]: the one answer shape every executor produces, whatever the wire
//! format it came in ([`crate::protocol`] parses Claude Code's JSON into it).

use serde_json::Value;

/// A permission decision, ordered from least to most restrictive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutput {
    /// The hook asked to block (exit 2, `decision: "block"`, or a deny decision).
    pub block: bool,
    /// Why it blocked (or the top-level `reason`).
    pub reason: Option<String>,
    /// `continue: false` stops the agent.
    pub continue_: Option<bool>,
    /// Shown to the user when `continue` is false.
    pub stop_reason: Option<String>,
    /// Warning for the user.
    pub system_message: Option<String>,
    /// Context for the model.
    pub additional_context: Option<String>,
    /// PreToolUse / PermissionRequest decision.
    pub permission_decision: Option<PermissionDecision>,
    /// Why the decision was made.
    pub permission_decision_reason: Option<String>,
    /// Replacement tool input.
    pub updated_input: Option<Value>,
    /// Permission updates (PermissionRequest).
    pub updated_permissions: Vec<Value>,
    /// PermissionRequest `decision.interrupt`.
    pub interrupt: bool,
    /// Paths to watch for FileChanged.
    pub watch_paths: Vec<String>,
    /// SessionStart first user turn.
    pub initial_user_message: Option<String>,
    /// Session title.
    pub session_title: Option<String>,
    /// PermissionDenied retry hint.
    pub retry: Option<bool>,
    /// Replacement tool output (PostToolUse).
    pub updated_tool_output: Option<Value>,
}

impl HookOutput {
    /// Whether this answer blocks: a block decision or a deny permission decision.
    pub fn blocks(&self) -> bool {
        self.block || self.permission_decision == Some(PermissionDecision::Deny)
    }
}

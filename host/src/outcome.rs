//! [`EventOutcome`]: the only thing the engine returns, and the per-hook [`HookRun`]
//! every executor produces; the one merge that folds hooks' results into it (`merge`),
//! and its rendering as a Claude Code answer (`render`).

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::output::{HookAnswer, PermissionDecision};

/// How much classifier context Claude Code takes from all of an event's hooks together,
/// in UTF-16 code units (2.1.332's `classifierContext`).
pub const CLASSIFIER_CONTEXT_UNITS: usize = 2000;

pub(crate) mod merge;
mod render;

pub use render::ClaudeReply;

/// How one hook ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HookStatus {
    /// Ran and answered (possibly with no output).
    Success,
    /// Ran and asked to block.
    Blocking,
    /// Failed without blocking: the action proceeds.
    NonBlockingError,
    /// Stopped by a timeout or a limit, or not run; no decision.
    Cancelled,
    /// Not run by policy (a command, HTTP or prompt hook of an untrusted workspace).
    Skipped,
}

/// What an executor hands back for one hook call.
#[derive(Debug, Clone, PartialEq)]
pub struct HookRun {
    /// How the hook ended.
    pub status: HookStatus,
    /// What it answered.
    pub output: HookAnswer,
    /// Error text for failures (names the limit, exit code or parse problem).
    pub error: Option<String>,
}

impl HookRun {
    /// A successful answer (status becomes `blocking` when the answer blocks).
    pub fn answer(output: HookAnswer) -> Self {
        let status = if output.blocks() {
            HookStatus::Blocking
        } else {
            HookStatus::Success
        };
        Self {
            status,
            output,
            error: None,
        }
    }

    /// A failure that lets the action proceed.
    pub fn non_blocking(error: impl Into<String>) -> Self {
        Self {
            status: HookStatus::NonBlockingError,
            output: HookAnswer::default(),
            error: Some(error.into()),
        }
    }

    /// A hook stopped by a timeout or limit.
    pub fn cancelled(error: impl Into<String>) -> Self {
        Self {
            status: HookStatus::Cancelled,
            output: HookAnswer::default(),
            error: Some(error.into()),
        }
    }

    /// A failed fail-closed hook: a block with `reason` that keeps the failure as its
    /// `error`, so it is still reported on events where the block cannot apply.
    pub fn failed_closed(reason: impl Into<String>, error: impl Into<String>) -> Self {
        Self {
            error: Some(error.into()),
            ..Self::block(reason)
        }
    }

    /// A hook not run by policy.
    pub fn skipped(error: impl Into<String>) -> Self {
        Self {
            status: HookStatus::Skipped,
            output: HookAnswer::default(),
            error: Some(error.into()),
        }
    }

    /// A hook stopped by its `timeout`; `what` says what happened to it.
    pub fn timed_out(limit: Duration, what: &str) -> Self {
        Self::cancelled(format!("timed out after {}s; {what}", limit.as_secs_f64()))
    }

    /// A block with `reason` (fail-closed failures, exit code 2).
    pub fn block(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self {
            status: HookStatus::Blocking,
            output: HookAnswer {
                block: true,
                reason: Some(reason),
                ..HookAnswer::default()
            },
            error: None,
        }
    }
}

/// What one hook decided, as its report says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum HookDecision {
    /// Allowed the call.
    Allow,
    /// Denied it.
    Deny,
    /// Asked the user.
    Ask,
    /// Deferred to the next decider.
    Defer,
    /// Blocked the event (an event without permission decisions).
    Block,
}

impl HookDecision {
    /// Its name in the outcome JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            HookDecision::Allow => "allow",
            HookDecision::Deny => "deny",
            HookDecision::Ask => "ask",
            HookDecision::Defer => "defer",
            HookDecision::Block => "block",
        }
    }
}

impl From<crate::output::PermissionDecision> for HookDecision {
    fn from(decision: crate::output::PermissionDecision) -> Self {
        use crate::output::PermissionDecision as P;
        match decision {
            P::Allow => HookDecision::Allow,
            P::Deny => HookDecision::Deny,
            P::Ask => HookDecision::Ask,
            P::Defer => HookDecision::Defer,
        }
    }
}

/// One hook's line in the outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct HookReport {
    /// Display name of the hook.
    pub name: String,
    /// Where it was configured (`managed`, `user`, `project`, `local`, `settings`,
    /// `plugin:<name>`, `session`).
    pub source: crate::config::Layer,
    /// `command`, `http`, `prompt` or `wasm`.
    pub executor: crate::config::ExecutorKind,
    /// How it ended.
    pub status: HookStatus,
    /// What it decided: its permission decision, or `block`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<HookDecision>,
    /// It runs in the background (`async`): its answer comes later, as an
    /// [`crate::AsyncNotice`], and took no part in this outcome.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub detached: bool,
    /// Wall time in milliseconds.
    pub duration_ms: f64,
    /// The validation round it ran in (0-based; a rewritten input is validated again
    /// in the next round).
    pub round: u32,
    /// SHA-256 of the component it ran (Wasm hooks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// What the hook itself answered, before the merge (fields the event does not
    /// honour already removed); absent when it answered nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<HookAnswer>,
    /// Error text, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How many hooks ended in each status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Counts {
    /// `success`.
    pub success: usize,
    /// `blocking`.
    pub blocking: usize,
    /// `non_blocking_error`.
    pub non_blocking_error: usize,
    /// `cancelled`.
    pub cancelled: usize,
    /// `skipped`.
    pub skipped: usize,
}

impl Counts {
    /// Adds one hook of `status`.
    pub fn add(&mut self, status: HookStatus) {
        match status {
            HookStatus::Success => self.success += 1,
            HookStatus::Blocking => self.blocking += 1,
            HookStatus::NonBlockingError => self.non_blocking_error += 1,
            HookStatus::Cancelled => self.cancelled += 1,
            HookStatus::Skipped => self.skipped += 1,
        }
    }
}

/// An answer field a hook set on an event that does not honour it: ignored, reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct IgnoredField {
    /// The hook that set it.
    pub hook: String,
    /// The protocol field name.
    pub field: String,
}

/// The merged answer of every hook that ran for one event.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct EventOutcome {
    /// The event.
    pub event: String,
    /// Any hook blocked.
    pub should_block: bool,
    /// Reason of the first blocking hook in configuration order.
    pub block_reason: Option<String>,
    /// Context from every hook, newline-joined in configuration order.
    pub additional_context: Option<String>,
    /// Rewritten tool input (last writer in configuration order).
    pub updated_input: Option<Value>,
    /// Most restrictive permission decision (`deny` > `defer` > `ask` > `allow`).
    pub permission_decision: Option<PermissionDecision>,
    /// Reason given with the winning decision.
    pub permission_decision_reason: Option<String>,
    /// Accumulated permission updates.
    pub updated_permissions: Vec<Value>,
    /// Accumulated, de-duplicated watch paths.
    pub watch_paths: Vec<String>,
    /// First initial user message.
    pub initial_user_message: Option<String>,
    /// First session title.
    pub session_title: Option<String>,
    /// PermissionDenied retry hint.
    pub retry: Option<bool>,
    /// PermissionRequest interrupt.
    pub interrupt: bool,
    /// False when any hook asked to stop.
    #[serde(rename = "continue")]
    pub continue_: bool,
    /// First stop reason.
    pub stop_reason: Option<String>,
    /// System messages, newline-joined in configuration order.
    pub system_message: Option<String>,
    /// Rewritten tool output (last writer in configuration order).
    pub updated_tool_output: Option<Value>,
    /// What the auto-mode permission classifier is shown (PostToolUse), newline-joined
    /// in configuration order and cut to [`CLASSIFIER_CONTEXT_UNITS`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classifier_context: Option<String>,
    /// The expanded prompt replaces the typed one (UserPromptExpansion): any hook's
    /// `true` wins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppress_original_prompt: Option<bool>,
    /// Any hook asked to keep its output out of the transcript (`suppressOutput`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub suppress_output: bool,
    /// Rewritten message (hygge `modified_message`; last writer in configuration order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_message: Option<String>,
    /// One-turn system prompt additions (hygge `system_prompt_append`), newline-joined in
    /// configuration order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt_append: Option<String>,
    /// The created worktree (WorktreeCreate; first hook that gave one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree_path: Option<String>,
    /// New compaction instructions (PreCompact), joined with blank lines in
    /// configuration order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
    /// The digest of the envelope the tool call's command runs in (the owner's
    /// `envelope`), when it got one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub envelope: Option<String>,
    /// Answer fields set on an event that does not honour them.
    pub ignored_fields: Vec<IgnoredField>,
    /// One report per hook, in configuration order.
    pub hooks: Vec<HookReport>,
    /// Hooks per status.
    pub counts: Counts,
}

impl EventOutcome {
    /// The decision in one word, as the audit log and the fleet export name it: the
    /// permission decision (`allow`, `deny`, `ask`, `defer`) when there is one, else
    /// `block` when the event is blocked, else `none`.
    pub fn decision_name(&self) -> &'static str {
        match self.permission_decision {
            Some(decision) => decision.as_str(),
            None if self.should_block => "block",
            None => "none",
        }
    }

    /// The Claude Code answer equivalent to this outcome ([`render`]).
    pub fn to_claude_reply(&self) -> ClaudeReply {
        render::claude_reply(self)
    }

    /// The outcome of an event whose hooks could not run at all (its input could not be
    /// read) while a `failClosed` hook guards it: one synthetic failed-closed result,
    /// merged like any other so the block takes the event's usual form (deny on
    /// PreToolUse, …).
    pub fn failed_closed(event: &str, reason: &str) -> Self {
        EventOutcome::of_hookhost(
            &crate::dialect::Event::new(event),
            "hookhost",
            HookRun::failed_closed(reason, reason),
        )
    }

    /// The outcome of a tool call hookhost itself refuses before any hook runs
    /// (self-protection, the envelope): a deny with `reason`, reported as hookhost's own.
    pub(crate) fn refused(event: &crate::dialect::Event, reason: &str) -> Self {
        let answer = HookAnswer {
            block: true,
            reason: Some(reason.to_string()),
            permission_decision: Some(PermissionDecision::Deny),
            permission_decision_reason: Some(reason.to_string()),
            ..Default::default()
        };
        EventOutcome::of_hookhost(event, "hookhost self-protection", HookRun::answer(answer))
    }

    /// `event`'s outcome when hookhost's own `result`, reported as `name`, is its one
    /// result.
    fn of_hookhost(event: &crate::dialect::Event, name: &str, result: HookRun) -> Self {
        merge::merge(
            event,
            vec![merge::FinishedHook {
                name: name.into(),
                source: crate::config::Layer::Hookhost,
                executor: crate::config::ExecutorKind::Hookhost,
                result,
                duration: Duration::ZERO,
                sha256: None,
                detached: false,
            }],
        )
    }

    /// The outcome of an event no hook matched.
    pub fn empty(event: &str) -> Self {
        Self {
            event: event.to_string(),
            should_block: false,
            block_reason: None,
            additional_context: None,
            updated_input: None,
            permission_decision: None,
            permission_decision_reason: None,
            updated_permissions: Vec::new(),
            watch_paths: Vec::new(),
            initial_user_message: None,
            session_title: None,
            retry: None,
            interrupt: false,
            continue_: true,
            stop_reason: None,
            system_message: None,
            updated_tool_output: None,
            classifier_context: None,
            suppress_original_prompt: None,
            suppress_output: false,
            updated_message: None,
            system_prompt_append: None,
            worktree_path: None,
            custom_instructions: None,
            envelope: None,
            ignored_fields: Vec::new(),
            hooks: Vec::new(),
            counts: Counts::default(),
        }
    }
}

/// Milliseconds of a duration, for reports.
pub(crate) fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

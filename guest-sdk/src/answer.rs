//! [`Answer`]: builders for the hook's typed answer.

use crate::bindings::hookhost::hooks::types::{Decision, HookAnswer};

/// What a hook answers. Start from a decision ([`Answer::none`], [`Answer::allow`],
/// [`Answer::deny`], [`Answer::ask`], [`Answer::defer`], [`Answer::block`]) and add to it.
#[derive(Debug, Clone)]
pub struct Answer(HookAnswer);

impl Answer {
    fn with_decision(decision: Decision, reason: Option<String>) -> Self {
        Answer(HookAnswer {
            decision,
            reason,
            additional_context: None,
            system_message: None,
            updated_input: None,
            updated_tool_output: None,
            watch_paths: Vec::new(),
            stop: false,
            stop_reason: None,
            initial_user_message: None,
            retry: None,
            updated_permissions: Vec::new(),
            interrupt: false,
            session_title: None,
            suppress_output: false,
            updated_message: None,
            system_prompt_append: None,
            worktree_path: None,
            custom_instructions: None,
        })
    }

    /// No decision: other hooks and the host decide.
    pub fn none() -> Self {
        Self::with_decision(Decision::None, None)
    }

    /// Allow the tool call without asking.
    pub fn allow() -> Self {
        Self::with_decision(Decision::Allow, None)
    }

    /// Deny the tool call (or block the event); `reason` goes to the model, so say what
    /// to do instead.
    pub fn deny(reason: impl Into<String>) -> Self {
        Self::with_decision(Decision::Deny, Some(reason.into()))
    }

    /// Ask the user; `reason` is shown in the prompt.
    pub fn ask(reason: impl Into<String>) -> Self {
        Self::with_decision(Decision::Ask, Some(reason.into()))
    }

    /// Defer the tool call (headless hosts).
    pub fn defer() -> Self {
        Self::with_decision(Decision::Defer, None)
    }

    /// Block the event (refuse a stop, erase a prompt, …) with a reason.
    pub fn block(reason: impl Into<String>) -> Self {
        Self::with_decision(Decision::Block, Some(reason.into()))
    }

    /// Sets or replaces the reason.
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.0.reason = Some(reason.into());
        self
    }

    /// Adds context for the model.
    pub fn with_context(mut self, context: impl Into<String>) -> Self {
        let context = context.into();
        self.0.additional_context = Some(match self.0.additional_context.take() {
            Some(existing) => format!("{existing}\n{context}"),
            None => context,
        });
        self
    }

    /// Adds a warning for the user.
    pub fn with_system_message(mut self, message: impl Into<String>) -> Self {
        self.0.system_message = Some(message.into());
        self
    }

    /// Replaces the tool input (PreToolUse, PermissionRequest).
    pub fn update_input(mut self, input: &serde_json::Value) -> Self {
        self.0.updated_input = Some(input.to_string());
        self
    }

    /// Sets the updated input as raw JSON text (the host validates it).
    pub fn update_input_text(mut self, json: impl Into<String>) -> Self {
        self.0.updated_input = Some(json.into());
        self
    }

    /// Replaces the tool output the model sees (PostToolUse).
    pub fn update_tool_output(mut self, output: &serde_json::Value) -> Self {
        self.0.updated_tool_output = Some(output.to_string());
        self
    }

    /// Adds a path to watch (SessionStart, CwdChanged, FileChanged).
    pub fn watch(mut self, path: impl Into<String>) -> Self {
        self.0.watch_paths.push(path.into());
        self
    }

    /// Stops the agent after the hooks run.
    pub fn stop(mut self, reason: impl Into<String>) -> Self {
        self.0.stop = true;
        self.0.stop_reason = Some(reason.into());
        self
    }

    /// Sets the first user turn (SessionStart).
    pub fn with_initial_user_message(mut self, message: impl Into<String>) -> Self {
        self.0.initial_user_message = Some(message.into());
        self
    }

    /// Lets the model retry (PermissionDenied).
    pub fn retry(mut self, retry: bool) -> Self {
        self.0.retry = Some(retry);
        self
    }

    /// Adds a permission rule update (PermissionRequest `updatedPermissions`), e.g.
    /// `{"type": "setMode", "mode": "acceptEdits", "destination": "session"}`.
    pub fn update_permissions(mut self, rule: &serde_json::Value) -> Self {
        self.0.updated_permissions.push(rule.to_string());
        self
    }

    /// Interrupts the agent along with a deny (PermissionRequest).
    pub fn interrupt(mut self) -> Self {
        self.0.interrupt = true;
        self
    }

    /// Sets the session's title.
    pub fn with_session_title(mut self, title: impl Into<String>) -> Self {
        self.0.session_title = Some(title.into());
        self
    }

    /// Keeps this hook's output out of the transcript (`suppressOutput`).
    pub fn suppress_output(mut self) -> Self {
        self.0.suppress_output = true;
        self
    }

    /// Replaces the message text (hygge `modified_message`).
    pub fn update_message(mut self, message: impl Into<String>) -> Self {
        self.0.updated_message = Some(message.into());
        self
    }

    /// Adds to the system prompt for one turn (hygge `system_prompt_append`).
    pub fn append_system_prompt(mut self, text: impl Into<String>) -> Self {
        self.0.system_prompt_append = Some(text.into());
        self
    }

    /// Names the created worktree (WorktreeCreate).
    pub fn with_worktree_path(mut self, path: impl Into<String>) -> Self {
        self.0.worktree_path = Some(path.into());
        self
    }

    /// Sets new compaction instructions (PreCompact).
    pub fn with_custom_instructions(mut self, text: impl Into<String>) -> Self {
        self.0.custom_instructions = Some(text.into());
        self
    }

    /// Whether this answer denies or blocks.
    pub fn is_refusal(&self) -> bool {
        matches!(self.0.decision, Decision::Deny | Decision::Block)
    }

    /// The reason, if any.
    pub fn reason(&self) -> Option<&str> {
        self.0.reason.as_deref()
    }

    /// The additional context, if any.
    pub fn context(&self) -> Option<&str> {
        self.0.additional_context.as_deref()
    }

    /// The updated input JSON text, if any.
    pub fn updated_input(&self) -> Option<&str> {
        self.0.updated_input.as_deref()
    }

    /// The WIT record.
    pub fn into_wit(self) -> HookAnswer {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builders_compose() {
        let answer = Answer::deny("no")
            .with_context("a")
            .with_context("b")
            .update_input(&serde_json::json!({"x": 1}));
        assert!(answer.is_refusal());
        assert_eq!(answer.context(), Some("a\nb"));
        assert_eq!(answer.updated_input(), Some(r#"{"x":1}"#));
        assert!(!Answer::allow().is_refusal());
    }
}

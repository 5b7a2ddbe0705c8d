//! Claude Code: hookhost's own vocabulary, so nothing to rename; wired by `hookhost claude
//! install` (its `settings.json`), which wires the events the owner's hooks watch.

use super::contract::{AnswerForm, Contract, Install, Rewrite, Shape};

/// Claude Code's contract.
pub(super) static CONTRACT: Contract = Contract {
    name: "claude",
    event_field: "hook_event_name",
    events: &[],
    fields: &[],
    tools: &[],
    patch_tool: None,
    mcp: None,
    answer: AnswerForm::Claude,
    answer_by_event: &[],
    rewrite: Some(Rewrite::UpdatedInput),
    keeps_folder: true,
    typed_into_running: &[],
    hook_files: (&[".claude/settings.json"], &[".claude/settings.json"]),
    home_folder: ".claude",
    project_note: None,
    install: Install {
        user_file: ".claude/settings.json",
        project_file: ".claude/settings.json",
        shape: Shape::ClaudeSettings,
        known_events: &[],
    },
};

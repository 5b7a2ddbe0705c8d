//! OpenAI Codex CLI, as observed from the real client (0.171.0): Claude Code's event
//! names, its shell tool `exec_command` (`cmd`) and `write_stdin` (`chars`, typed into a
//! running process), `apply_patch` touching several files; it takes a rewritten input
//! only beside an explicit allow. Its hooks also need a trust entry in `config.toml`.

use super::contract::{AnswerForm, Contract, EventMap, Install, Rewrite, Shape, ToolMap, Wired};

/// Codex CLI's contract.
pub(super) static CONTRACT: Contract = Contract {
    name: "codex",
    event_field: "hook_event_name",
    // The events observed firing for one shell call; no matcher: every tool.
    events: &[
        EventMap {
            agent: "SessionStart",
            ours: "SessionStart",
            tool: None,
            wired: Wired::Session,
        },
        EventMap {
            agent: "UserPromptSubmit",
            ours: "UserPromptSubmit",
            tool: None,
            wired: Wired::Session,
        },
        EventMap {
            agent: "PreToolUse",
            ours: "PreToolUse",
            tool: None,
            wired: Wired::Tool,
        },
        EventMap {
            agent: "PostToolUse",
            ours: "PostToolUse",
            tool: None,
            wired: Wired::Tool,
        },
        EventMap {
            agent: "Stop",
            ours: "Stop",
            tool: None,
            wired: Wired::Session,
        },
    ],
    fields: &[],
    tools: &[
        ToolMap {
            agent: "exec_command",
            tool: "Bash",
            args: &[("cmd", "command")],
        },
        // What the model types into a shell it started with `exec_command` (`tty`): as
        // much a command as the first one.
        ToolMap {
            agent: "write_stdin",
            tool: "Bash",
            args: &[("chars", "command")],
        },
    ],
    patch_tool: Some("apply_patch"),
    mcp: None,
    answer: AnswerForm::Claude,
    answer_by_event: &[],
    rewrite: Some(Rewrite::UpdatedInputWithAllow),
    keeps_folder: false,
    typed_into_running: &["write_stdin"],
    hook_files: (
        &[".codex/hooks.json", ".codex/config.toml"],
        &[".codex/hooks.json", ".codex/config.toml"],
    ),
    home_folder: ".codex",
    project_note: Some(
        "Codex reads a project's .codex/hooks.json only in a project the user trusts",
    ),
    install: Install {
        user_file: ".codex/hooks.json",
        project_file: ".codex/hooks.json",
        shape: Shape::Groups {
            tool_matcher: None,
            millis: false,
        },
        known_events: &[],
    },
};

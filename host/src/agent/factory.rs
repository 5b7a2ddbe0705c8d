//! Factory's Droid: Claude Code's event names, answers and snake_case input fields (seen
//! from the real `droid` 0.225.2; the camelCase names its documentation gives are read
//! too), its tools `Execute` and `Create`. It cannot take a rewritten input.

use super::contract::{AnswerForm, Contract, EventMap, Install, Shape, ToolMap, Wired};

/// Factory's contract.
pub(super) static CONTRACT: Contract = Contract {
    name: "factory",
    event_field: "hook_event_name",
    events: &[
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
            agent: "UserPromptSubmit",
            ours: "UserPromptSubmit",
            tool: None,
            wired: Wired::Session,
        },
        EventMap {
            agent: "Stop",
            ours: "Stop",
            tool: None,
            wired: Wired::Session,
        },
        EventMap {
            agent: "SessionStart",
            ours: "SessionStart",
            tool: None,
            wired: Wired::Session,
        },
        EventMap {
            agent: "SessionEnd",
            ours: "SessionEnd",
            tool: None,
            wired: Wired::Session,
        },
    ],
    fields: &[
        ("sessionId", "session_id"),
        ("toolName", "tool_name"),
        ("toolInput", "tool_input"),
    ],
    tools: &[
        ToolMap {
            agent: "Execute",
            tool: "Bash",
            args: &[("command", "command")],
        },
        ToolMap {
            agent: "Create",
            tool: "Write",
            args: &[("file_path", "file_path")],
        },
    ],
    patch_tool: None,
    mcp: None,
    answer: AnswerForm::Claude,
    answer_by_event: &[],
    rewrite: None,
    keeps_folder: false,
    typed_into_running: &[],
    hook_files: (
        &[".factory/settings.json"],
        &[".factory/settings.json", ".factory/settings.local.json"],
    ),
    home_folder: ".factory",
    project_note: None,
    install: Install {
        user_file: ".factory/settings.json",
        project_file: ".factory/settings.json",
        shape: Shape::Groups {
            tool_matcher: Some("*"),
            millis: false,
        },
        known_events: &[],
    },
};

//! Google Gemini CLI, as observed from the real client (0.61.0): its own event names, its
//! tools with their own field names, `{"decision", "reason"}` answers, a rewritten input
//! merged from `hookSpecificOutput.tool_input`; timeouts in milliseconds.

use super::contract::{AnswerForm, Contract, EventMap, Install, Rewrite, Shape, ToolMap, Wired};

/// Gemini CLI's contract.
pub(super) static CONTRACT: Contract = Contract {
    name: "gemini",
    event_field: "hook_event_name",
    events: &[
        EventMap {
            agent: "BeforeTool",
            ours: "PreToolUse",
            tool: None,
            wired: Wired::Tool,
        },
        EventMap {
            agent: "AfterTool",
            ours: "PostToolUse",
            tool: None,
            wired: Wired::Tool,
        },
        EventMap {
            agent: "BeforeAgent",
            ours: "UserPromptSubmit",
            tool: None,
            wired: Wired::Session,
        },
        EventMap {
            agent: "AfterAgent",
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
        // Observers' events with nothing for a guard to decide: answered when the user
        // wires them, never worth a process per event by default.
        EventMap {
            agent: "PreCompress",
            ours: "PreCompact",
            tool: None,
            wired: Wired::No,
        },
        EventMap {
            agent: "Notification",
            ours: "Notification",
            tool: None,
            wired: Wired::No,
        },
    ],
    fields: &[],
    tools: &[
        ToolMap {
            agent: "run_shell_command",
            tool: "Bash",
            args: &[("command", "command")],
        },
        ToolMap {
            agent: "write_file",
            tool: "Write",
            args: &[("file_path", "file_path")],
        },
        ToolMap {
            agent: "replace",
            tool: "Edit",
            args: &[("file_path", "file_path")],
        },
        ToolMap {
            agent: "read_file",
            tool: "Read",
            args: &[("absolute_path", "file_path"), ("file_path", "file_path")],
        },
    ],
    patch_tool: None,
    mcp: None,
    answer: AnswerForm::Decision,
    answer_by_event: &[],
    rewrite: Some(Rewrite::ToolInput),
    keeps_folder: false,
    typed_into_running: &[],
    hook_files: (&[".gemini/settings.json"], &[".gemini/settings.json"]),
    home_folder: ".gemini",
    project_note: None,
    install: Install {
        user_file: ".gemini/settings.json",
        project_file: ".gemini/settings.json",
        shape: Shape::Groups {
            tool_matcher: Some(".*"),
            millis: true,
        },
        known_events: &[],
    },
};

//! OpenCode, from its documentation: a plugin of hookhost's own hands its
//! `tool.execute.before`/`after` to hookhost and throws on a deny; its tools name their
//! path `filePath`. It cannot take a rewritten input.

use super::contract::{AnswerForm, Contract, EventMap, Install, Shape, ToolMap, Wired};

/// OpenCode's contract.
pub(super) static CONTRACT: Contract = Contract {
    name: "opencode",
    event_field: "hook_event_name",
    events: &[
        EventMap {
            agent: "tool.execute.before",
            ours: "PreToolUse",
            tool: None,
            wired: Wired::Tool,
        },
        EventMap {
            agent: "tool.execute.after",
            ours: "PostToolUse",
            tool: None,
            wired: Wired::Tool,
        },
    ],
    fields: &[
        ("sessionID", "session_id"),
        ("tool", "tool_name"),
        ("args", "tool_input"),
    ],
    tools: &[
        ToolMap {
            agent: "bash",
            tool: "Bash",
            args: &[("command", "command")],
        },
        ToolMap {
            agent: "write",
            tool: "Write",
            args: &[("filePath", "file_path")],
        },
        ToolMap {
            agent: "edit",
            tool: "Edit",
            args: &[("filePath", "file_path")],
        },
        ToolMap {
            agent: "read",
            tool: "Read",
            args: &[("filePath", "file_path")],
        },
    ],
    patch_tool: None,
    mcp: None,
    answer: AnswerForm::Decision,
    answer_by_event: &[],
    rewrite: None,
    keeps_folder: false,
    typed_into_running: &[],
    hook_files: (
        &[".config/opencode/plugin", ".config/opencode/plugins"],
        &[".opencode/plugin", ".opencode/plugins"],
    ),
    home_folder: ".config/opencode",
    project_note: None,
    install: Install {
        user_file: ".config/opencode/plugin/hookhost.js",
        project_file: ".opencode/plugin/hookhost.js",
        shape: Shape::Plugin,
        known_events: &[],
    },
};

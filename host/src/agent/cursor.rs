//! Cursor (its IDE and `agent` CLI), from its documentation: events that are one tool's
//! call (`beforeShellExecution`), `MCP:server:tool` names, `{"permission", …}` answers;
//! it cannot take a rewritten input.

use super::contract::{AnswerForm, Contract, EventMap, Install, Shape, ToolMap, Wired};

static SHELL: ToolMap = ToolMap {
    agent: "beforeShellExecution",
    tool: "Bash",
    args: &[("command", "command")],
};

static READ: ToolMap = ToolMap {
    agent: "beforeReadFile",
    tool: "Read",
    args: &[("file_path", "file_path")],
};

static EDIT: ToolMap = ToolMap {
    agent: "afterFileEdit",
    tool: "Edit",
    args: &[("file_path", "file_path"), ("edits", "edits")],
};

/// Cursor's contract.
pub(super) static CONTRACT: Contract = Contract {
    name: "cursor",
    event_field: "hook_event_name",
    events: &[
        // The events every Cursor version with hooks knows: install wires only these.
        EventMap {
            agent: "beforeShellExecution",
            ours: "PreToolUse",
            tool: Some(&SHELL),
            wired: Wired::Tool,
        },
        EventMap {
            agent: "beforeMCPExecution",
            ours: "PreToolUse",
            tool: None,
            wired: Wired::Tool,
        },
        EventMap {
            agent: "beforeReadFile",
            ours: "PreToolUse",
            tool: Some(&READ),
            wired: Wired::Tool,
        },
        EventMap {
            agent: "afterFileEdit",
            ours: "PostToolUse",
            tool: Some(&EDIT),
            wired: Wired::Tool,
        },
        EventMap {
            agent: "beforeSubmitPrompt",
            ours: "UserPromptSubmit",
            tool: None,
            wired: Wired::Session,
        },
        EventMap {
            agent: "stop",
            ours: "Stop",
            tool: None,
            wired: Wired::Session,
        },
        // Its newer events: a Cursor that does not know one of them drops the whole hook
        // file, so install never wires them; answered when the user does.
        EventMap {
            agent: "preToolUse",
            ours: "PreToolUse",
            tool: None,
            wired: Wired::No,
        },
        EventMap {
            agent: "postToolUse",
            ours: "PostToolUse",
            tool: None,
            wired: Wired::No,
        },
        EventMap {
            agent: "sessionStart",
            ours: "SessionStart",
            tool: None,
            wired: Wired::No,
        },
        EventMap {
            agent: "sessionEnd",
            ours: "SessionEnd",
            tool: None,
            wired: Wired::No,
        },
    ],
    fields: &[("conversation_id", "session_id")],
    tools: &[ToolMap {
        agent: "Shell",
        tool: "Bash",
        args: &[("command", "command")],
    }],
    patch_tool: None,
    mcp: Some(("MCP:", ":")),
    answer: AnswerForm::Permission,
    answer_by_event: &[],
    rewrite: None,
    keeps_folder: false,
    typed_into_running: &[],
    hook_files: (&[".cursor/hooks.json"], &[".cursor/hooks.json"]),
    home_folder: ".cursor",
    project_note: None,
    install: Install {
        user_file: ".cursor/hooks.json",
        project_file: ".cursor/hooks.json",
        shape: Shape::Flat,
        // Every event name Cursor documents: one it does not know drops the whole file.
        known_events: &[
            "beforeShellExecution",
            "afterShellExecution",
            "beforeMCPExecution",
            "afterMCPExecution",
            "beforeReadFile",
            "afterFileEdit",
            "beforeSubmitPrompt",
            "afterAgentResponse",
            "afterAgentThought",
            "stop",
            "sessionStart",
            "sessionEnd",
            "preToolUse",
            "postToolUse",
            "postToolUseFailure",
            "subagentStart",
            "subagentStop",
            "preCompact",
            "beforeTabFileRead",
            "afterTabFileEdit",
        ],
    },
};

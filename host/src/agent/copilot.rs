//! GitHub Copilot CLI, as observed from the real client (1.0.102, `docs/agents.md`): its
//! camelCase events name no event in their input (install passes `--event`), its tools
//! are lower-case with their own field names, and its camelCase `preToolUse` reads a flat
//! `permissionDecision`.

use super::contract::{AnswerForm, Contract, EventMap, Install, Rewrite, Shape, ToolMap, Wired};

/// Copilot CLI's contract.
pub(super) static CONTRACT: Contract = Contract {
    name: "copilot",
    event_field: "hook_event_name",
    events: &[
        EventMap {
            agent: "preToolUse",
            ours: "PreToolUse",
            tool: None,
            wired: Wired::Tool,
        },
        EventMap {
            agent: "postToolUse",
            ours: "PostToolUse",
            tool: None,
            wired: Wired::Tool,
        },
        EventMap {
            agent: "userPromptSubmitted",
            ours: "UserPromptSubmit",
            tool: None,
            wired: Wired::Session,
        },
        EventMap {
            agent: "sessionStart",
            ours: "SessionStart",
            tool: None,
            wired: Wired::Session,
        },
        EventMap {
            agent: "sessionEnd",
            ours: "SessionEnd",
            tool: None,
            wired: Wired::Session,
        },
        EventMap {
            agent: "agentStop",
            ours: "Stop",
            tool: None,
            wired: Wired::Session,
        },
        // Asked only after its preToolUse, which hookhost answers already: wiring it too
        // would cost every call a second process for the same decision.
        EventMap {
            agent: "permissionRequest",
            ours: "PermissionRequest",
            tool: None,
            wired: Wired::No,
        },
    ],
    fields: &[
        ("sessionId", "session_id"),
        ("toolName", "tool_name"),
        ("toolArgs", "tool_input"),
        ("toolResult", "tool_response"),
    ],
    tools: &[
        ToolMap {
            agent: "bash",
            tool: "Bash",
            args: &[("command", "command")],
        },
        ToolMap {
            agent: "create",
            tool: "Write",
            args: &[("path", "file_path"), ("file_text", "content")],
        },
        ToolMap {
            agent: "edit",
            tool: "Edit",
            args: &[("path", "file_path")],
        },
        ToolMap {
            agent: "view",
            tool: "Read",
            args: &[("path", "file_path")],
        },
    ],
    patch_tool: None,
    mcp: None,
    // Its PascalCase events read Claude Code's answer; the camelCase ones the flat form.
    answer: AnswerForm::Claude,
    answer_by_event: &[
        ("preToolUse", AnswerForm::CopilotFlat),
        ("permissionRequest", AnswerForm::CopilotFlat),
    ],
    rewrite: Some(Rewrite::ModifiedArgsWithAllow),
    keeps_folder: false,
    typed_into_running: &[],
    hook_files: (
        &[
            ".copilot/hooks",
            ".copilot/settings.json",
            ".copilot/config.json",
        ],
        &[".github/hooks"],
    ),
    home_folder: ".copilot",
    project_note: Some(
        "Copilot CLI reads a project's .github/hooks only in a folder the user trusts (`copilot --trust-folder`); elsewhere it skips them silently",
    ),
    install: Install {
        user_file: ".copilot/hooks/hookhost.json",
        project_file: ".github/hooks/hookhost.json",
        shape: Shape::OwnFile,
        known_events: &[],
    },
};

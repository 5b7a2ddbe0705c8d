//! Each agent's hook contract as data: its event names, its tools and their fields, the
//! fields of its input that Claude Code names otherwise, and how it reads an answer.
//! Observed from the real clients run offline (Copilot CLI 1.0.102, Codex CLI 0.171.0,
//! Gemini CLI 0.61.0; `docs/agents.md`), else from their documentation (Cursor, OpenCode,
//! Factory).

/// An agent hookhost can guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Agent {
    /// Claude Code.
    Claude,
    /// GitHub Copilot CLI.
    Copilot,
    /// OpenAI Codex CLI.
    Codex,
    /// Google Gemini CLI.
    Gemini,
    /// Cursor (its IDE and `agent` CLI).
    Cursor,
    /// OpenCode, through a plugin that calls hookhost.
    OpenCode,
    /// Factory's Droid.
    Factory,
}

/// How an agent reads a hook's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AnswerForm {
    /// Claude Code's JSON (`hookSpecificOutput`, `decision`, exit 2).
    Claude,
    /// Copilot's flat `permissionDecision` (its camelCase events).
    CopilotFlat,
    /// `{"decision": "deny", "reason": …}` (Gemini; the OpenCode plugin).
    Decision,
    /// Cursor's `{"permission": …, "user_message", "agent_message"}`.
    Permission,
}

/// One of an agent's tools as hookhost names it: `args` renames its input's fields
/// (the agent's name, hookhost's).
#[derive(Debug)]
pub(super) struct ToolMap {
    pub(super) agent: &'static str,
    pub(super) tool: &'static str,
    pub(super) args: &'static [(&'static str, &'static str)],
}

/// One agent's contract.
#[derive(Debug)]
pub(super) struct Contract {
    /// The agent's name on the command line and in the input's `agent` field.
    pub(super) name: &'static str,
    /// The input field naming the event, where the agent sends one.
    pub(super) event_field: &'static str,
    /// The agent's event names and hookhost's, with the tool an event is a call of.
    pub(super) events: &'static [(&'static str, &'static str, Option<&'static ToolMap>)],
    /// Common input fields the agent names otherwise (its name, hookhost's).
    pub(super) fields: &'static [(&'static str, &'static str)],
    /// Its tools that hookhost names otherwise.
    pub(super) tools: &'static [ToolMap],
    /// The tool whose input is a patch touching several files (Codex `apply_patch`).
    pub(super) patch_tool: Option<&'static str>,
    /// How its MCP tools are named: a prefix, then server and tool split by a separator.
    pub(super) mcp_prefix: Option<&'static str>,
    pub(super) mcp_separator: &'static str,
    /// How it reads an answer, by event: the default, and events answered otherwise.
    pub(super) answer: AnswerForm,
    pub(super) answer_by_event: &'static [(&'static str, AnswerForm)],
    /// How hookhost writes a rewritten tool input into its answer, so that the owner's
    /// envelope reaches its commands (`None`: it cannot, and its shell commands are
    /// refused while the envelope is on).
    pub(super) rewrite: Option<Rewrite>,
    /// Whether its shell keeps the folder a command ended in for the next command
    /// (Claude Code does; the others start each command in the project).
    pub(super) keeps_folder: bool,
    /// Its tools whose input is typed into a process an earlier call started (Codex's
    /// `write_stdin`): judged as commands, never started anew inside the envelope — the
    /// process they feed is inside it already.
    pub(super) typed_into_running: &'static [&'static str],
}

/// How an agent takes a rewritten tool input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rewrite {
    /// Claude Code's `hookSpecificOutput.updatedInput`.
    UpdatedInput,
    /// `updatedInput` honoured only beside `permissionDecision: "allow"` (Codex).
    UpdatedInputWithAllow,
    /// Copilot CLI's flat `modifiedArgs`, honoured without a prompt only beside
    /// `permissionDecision: "allow"`.
    ModifiedArgsWithAllow,
    /// Gemini CLI's `hookSpecificOutput.tool_input`, merged into the call's input.
    ToolInput,
}

const BASH: &str = "Bash";

static CURSOR_SHELL: ToolMap = ToolMap {
    agent: "beforeShellExecution",
    tool: BASH,
    args: &[("command", "command")],
};

static CURSOR_READ: ToolMap = ToolMap {
    agent: "beforeReadFile",
    tool: "Read",
    args: &[("file_path", "file_path")],
};

static CURSOR_EDIT: ToolMap = ToolMap {
    agent: "afterFileEdit",
    tool: "Edit",
    args: &[("file_path", "file_path"), ("edits", "edits")],
};

/// Claude Code's own contract: nothing to rename.
static CLAUDE: Contract = Contract {
    name: "claude",
    event_field: "hook_event_name",
    events: &[],
    fields: &[],
    tools: &[],
    patch_tool: None,
    mcp_prefix: None,
    mcp_separator: "__",
    answer: AnswerForm::Claude,
    answer_by_event: &[],
    rewrite: Some(Rewrite::UpdatedInput),
    keeps_folder: true,
    typed_into_running: &[],
};

static COPILOT: Contract = Contract {
    name: "copilot",
    event_field: "hook_event_name",
    events: &[
        ("preToolUse", "PreToolUse", None),
        ("postToolUse", "PostToolUse", None),
        ("userPromptSubmitted", "UserPromptSubmit", None),
        ("sessionStart", "SessionStart", None),
        ("sessionEnd", "SessionEnd", None),
        ("agentStop", "Stop", None),
        ("permissionRequest", "PermissionRequest", None),
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
            tool: BASH,
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
    mcp_prefix: None,
    mcp_separator: "__",
    // Its PascalCase events read Claude Code's answer; the camelCase ones the flat form.
    answer: AnswerForm::Claude,
    answer_by_event: &[
        ("preToolUse", AnswerForm::CopilotFlat),
        ("permissionRequest", AnswerForm::CopilotFlat),
    ],
    rewrite: Some(Rewrite::ModifiedArgsWithAllow),
    keeps_folder: false,
    typed_into_running: &[],
};

static CODEX: Contract = Contract {
    name: "codex",
    event_field: "hook_event_name",
    events: &[],
    fields: &[],
    tools: &[
        ToolMap {
            agent: "exec_command",
            tool: BASH,
            args: &[("cmd", "command")],
        },
        // What the model types into a shell it started with `exec_command` (`tty`): as
        // much a command as the first one.
        ToolMap {
            agent: "write_stdin",
            tool: BASH,
            args: &[("chars", "command")],
        },
    ],
    patch_tool: Some("apply_patch"),
    mcp_prefix: None,
    mcp_separator: "__",
    answer: AnswerForm::Claude,
    answer_by_event: &[],
    rewrite: Some(Rewrite::UpdatedInputWithAllow),
    keeps_folder: false,
    typed_into_running: &["write_stdin"],
};

static GEMINI: Contract = Contract {
    name: "gemini",
    event_field: "hook_event_name",
    events: &[
        ("BeforeTool", "PreToolUse", None),
        ("AfterTool", "PostToolUse", None),
        ("BeforeAgent", "UserPromptSubmit", None),
        ("AfterAgent", "Stop", None),
        ("SessionStart", "SessionStart", None),
        ("SessionEnd", "SessionEnd", None),
        ("PreCompress", "PreCompact", None),
        ("Notification", "Notification", None),
    ],
    fields: &[],
    tools: &[
        ToolMap {
            agent: "run_shell_command",
            tool: BASH,
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
    mcp_prefix: None,
    mcp_separator: "__",
    answer: AnswerForm::Decision,
    answer_by_event: &[],
    rewrite: Some(Rewrite::ToolInput),
    keeps_folder: false,
    typed_into_running: &[],
};

static CURSOR: Contract = Contract {
    name: "cursor",
    event_field: "hook_event_name",
    events: &[
        ("beforeShellExecution", "PreToolUse", Some(&CURSOR_SHELL)),
        ("beforeReadFile", "PreToolUse", Some(&CURSOR_READ)),
        ("afterFileEdit", "PostToolUse", Some(&CURSOR_EDIT)),
        ("beforeMCPExecution", "PreToolUse", None),
        ("beforeSubmitPrompt", "UserPromptSubmit", None),
        ("stop", "Stop", None),
        ("preToolUse", "PreToolUse", None),
        ("postToolUse", "PostToolUse", None),
        ("sessionStart", "SessionStart", None),
        ("sessionEnd", "SessionEnd", None),
    ],
    fields: &[("conversation_id", "session_id")],
    tools: &[ToolMap {
        agent: "Shell",
        tool: BASH,
        args: &[("command", "command")],
    }],
    patch_tool: None,
    mcp_prefix: Some("MCP:"),
    mcp_separator: ":",
    answer: AnswerForm::Permission,
    answer_by_event: &[],
    rewrite: None,
    keeps_folder: false,
    typed_into_running: &[],
};

static OPENCODE: Contract = Contract {
    name: "opencode",
    event_field: "hook_event_name",
    events: &[
        ("tool.execute.before", "PreToolUse", None),
        ("tool.execute.after", "PostToolUse", None),
    ],
    fields: &[
        ("sessionID", "session_id"),
        ("tool", "tool_name"),
        ("args", "tool_input"),
    ],
    tools: &[
        ToolMap {
            agent: "bash",
            tool: BASH,
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
    mcp_prefix: None,
    mcp_separator: "__",
    answer: AnswerForm::Decision,
    answer_by_event: &[],
    rewrite: None,
    keeps_folder: false,
    typed_into_running: &[],
};

static FACTORY: Contract = Contract {
    name: "factory",
    event_field: "hook_event_name",
    events: &[],
    fields: &[
        ("sessionId", "session_id"),
        ("toolName", "tool_name"),
        ("toolInput", "tool_input"),
    ],
    tools: &[
        ToolMap {
            agent: "Execute",
            tool: BASH,
            args: &[("command", "command")],
        },
        ToolMap {
            agent: "Create",
            tool: "Write",
            args: &[("file_path", "file_path")],
        },
    ],
    patch_tool: None,
    mcp_prefix: None,
    mcp_separator: "__",
    answer: AnswerForm::Claude,
    answer_by_event: &[],
    rewrite: None,
    keeps_folder: false,
    typed_into_running: &[],
};

impl Agent {
    /// Every agent.
    pub const ALL: [Agent; 7] = [
        Agent::Claude,
        Agent::Copilot,
        Agent::Codex,
        Agent::Gemini,
        Agent::Cursor,
        Agent::OpenCode,
        Agent::Factory,
    ];

    /// Its name on the command line (`copilot`, …).
    pub fn name(self) -> &'static str {
        self.contract().name
    }

    /// The agent named `name`.
    pub fn parse(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|agent| agent.name() == name)
    }

    /// Whether its shell keeps the folder a command ended in for the next command.
    pub fn keeps_folder(self) -> bool {
        self.contract().keeps_folder
    }

    /// hookhost's name for the agent's event `agent_event` (`preToolUse` → `PreToolUse`;
    /// an event it does not map keeps its name).
    pub fn hookhost_event(self, agent_event: &str) -> &str {
        self.contract().event(agent_event).0
    }

    /// Whether a call of its tool `agent_tool` (its own name) starts a process, so that
    /// the envelope wraps it; input typed into a running process (Codex's `write_stdin`)
    /// does not.
    pub fn starts_process(self, agent_tool: &str) -> bool {
        !self.contract().typed_into_running.contains(&agent_tool)
    }

    /// Whether hookhost can rewrite this agent's shell commands (into the envelope).
    pub fn rewrites_commands(self) -> bool {
        self.contract().rewrite.is_some()
    }

    pub(super) fn contract(self) -> &'static Contract {
        match self {
            Agent::Claude => &CLAUDE,
            Agent::Copilot => &COPILOT,
            Agent::Codex => &CODEX,
            Agent::Gemini => &GEMINI,
            Agent::Cursor => &CURSOR,
            Agent::OpenCode => &OPENCODE,
            Agent::Factory => &FACTORY,
        }
    }
}

impl Contract {
    /// hookhost's name for the agent's event `name` (itself where the agent uses Claude
    /// Code's names), and the tool it is a call of.
    pub(super) fn event<'a>(&self, name: &'a str) -> (&'a str, Option<&'static ToolMap>)
    where
        'static: 'a,
    {
        match self.events.iter().find(|(agent, _, _)| *agent == name) {
            Some((_, ours, tool)) => (ours, *tool),
            None => (name, None),
        }
    }

    /// How the agent reads the answer to its event `name`.
    pub(super) fn answer_form(&self, name: &str) -> AnswerForm {
        self.answer_by_event
            .iter()
            .find(|(event, _)| *event == name)
            .map_or(self.answer, |(_, form)| *form)
    }
}

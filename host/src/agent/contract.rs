//! The shape of one agent's contract: what its hook input and answer look like, which of
//! its files decide its hooks, and where `hookhost install --agent` wires hookhost in. Each
//! agent fills one [`Contract`] in a file of its own (`agent/copilot.rs`, …).

/// One agent's contract.
#[derive(Debug)]
pub(crate) struct Contract {
    /// The agent's name on the command line and in the input's `agent` field.
    pub(crate) name: &'static str,
    /// The input field naming the event, where the agent sends one.
    pub(crate) event_field: &'static str,
    /// The agent's events: its names, hookhost's, and whether install wires each. An
    /// event not listed keeps its name and is not wired.
    pub(crate) events: &'static [EventMap],
    /// Common input fields the agent names otherwise (its name, hookhost's).
    pub(crate) fields: &'static [(&'static str, &'static str)],
    /// Its tools that hookhost names otherwise.
    pub(crate) tools: &'static [ToolMap],
    /// The tool whose input is a patch touching several files (Codex `apply_patch`).
    pub(crate) patch_tool: Option<&'static str>,
    /// How its MCP tools are named: a prefix, then server and tool split by a separator.
    pub(crate) mcp: Option<(&'static str, &'static str)>,
    /// How it reads an answer, by event: the default, and events answered otherwise.
    pub(crate) answer: AnswerForm,
    pub(crate) answer_by_event: &'static [(&'static str, AnswerForm)],
    /// How hookhost writes a rewritten tool input into its answer, so that the owner's
    /// envelope reaches its commands (`None`: it cannot, and its shell commands are
    /// refused while the envelope is on).
    pub(crate) rewrite: Option<Rewrite>,
    /// Whether its shell keeps the folder a command ended in for the next command
    /// (Claude Code does; the others start each command in the project).
    pub(crate) keeps_folder: bool,
    /// Its tools whose input is typed into a process an earlier call started (Codex's
    /// `write_stdin`): judged as commands, never started anew inside the envelope — the
    /// process they feed is inside it already.
    pub(crate) typed_into_running: &'static [&'static str],
    /// The files (or folders) that decide which hooks it runs, below the home and below a
    /// project, for self-protection to keep its tool calls away from. Only hidden ones in
    /// a project: a visible name (OpenCode's `opencode.json`) would make every
    /// `rm -rf ./*` a write of a guard file.
    pub(crate) hook_files: (&'static [&'static str], &'static [&'static str]),
    /// Its own folder in the home: its presence says the agent is used there.
    pub(crate) home_folder: &'static str,
    /// Said after a project-scope install and in `status`, where the agent reads a
    /// project's hook file only under a condition the user controls.
    pub(crate) project_note: Option<&'static str>,
    /// Where install wires hookhost in.
    pub(crate) install: Install,
}

/// One of an agent's events.
#[derive(Debug)]
pub(crate) struct EventMap {
    /// The agent's name for it.
    pub(crate) agent: &'static str,
    /// hookhost's name for it.
    pub(crate) ours: &'static str,
    /// The tool an event is a call of (Cursor's `beforeShellExecution`).
    pub(crate) tool: Option<&'static ToolMap>,
    /// Whether and how install wires it.
    pub(crate) wired: Wired,
}

/// Whether install wires an event into the agent's hook file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wired {
    /// Wired, as a tool event (its entry gets the layout's tool matcher).
    Tool,
    /// Wired, as an event of the session.
    Session,
    /// Answered when the user wires it, never wired by install; the contract says why
    /// beside the event.
    No,
}

/// One of an agent's tools as hookhost names it: `args` renames its input's fields
/// (the agent's name, hookhost's).
#[derive(Debug)]
pub(crate) struct ToolMap {
    pub(crate) agent: &'static str,
    pub(crate) tool: &'static str,
    pub(crate) args: &'static [(&'static str, &'static str)],
}

/// How an agent reads a hook's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AnswerForm {
    /// Claude Code's JSON (`hookSpecificOutput`, `decision`, exit 2).
    Claude,
    /// Copilot's flat `permissionDecision` (its camelCase events).
    CopilotFlat,
    /// `{"decision": "deny", "reason": …}` (Gemini; the OpenCode plugin).
    Decision,
    /// Cursor's `{"permission": …, "user_message", "agent_message"}`.
    Permission,
}

/// How an agent takes a rewritten tool input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rewrite {
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

/// Where and in what shape install writes hookhost's entries for an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Install {
    /// The file, below the home (user scope).
    pub user_file: &'static str,
    /// The file, below the project (project scope).
    pub project_file: &'static str,
    /// How hookhost's entries sit in it.
    pub shape: Shape,
    /// Every event name the agent knows, where one it does not know makes it drop the
    /// whole file (Cursor); empty: unknown names are ignored.
    pub known_events: &'static [&'static str],
}

/// The shape of hookhost's entries in an agent's hook file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shape {
    /// Claude Code's `settings.json`, wired by `hookhost claude install`.
    ClaudeSettings,
    /// A file of hookhost's own, `{"version": 1, "hooks": {EVENT: [{type, bash,
    /// timeoutSec}]}}`, each entry passing its event (Copilot CLI: its camelCase input
    /// names none).
    OwnFile,
    /// A matcher group `{matcher?, hooks: [{type, command, timeout}]}` per event under
    /// `hooks.EVENT`, after the user's own (Claude Code's schema: Codex, Gemini, Factory).
    Groups {
        /// The matcher of tool events (none: the key is left out, every tool).
        tool_matcher: Option<&'static str>,
        /// Whether the agent reads the timeout in milliseconds (else seconds).
        millis: bool,
    },
    /// A flat entry `{command, timeout}` per event under `hooks.EVENT`, beside `version`
    /// (Cursor, which drops the whole file for one event name it does not know).
    Flat,
    /// A plugin file of hookhost's own (OpenCode).
    Plugin,
}

impl Contract {
    /// hookhost's name for the agent's event `name` (itself where the agent uses Claude
    /// Code's names), and the tool it is a call of.
    pub(crate) fn event<'a>(&self, name: &'a str) -> (&'a str, Option<&'static ToolMap>)
    where
        'static: 'a,
    {
        match self.events.iter().find(|event| event.agent == name) {
            Some(event) => (event.ours, event.tool),
            None => (name, None),
        }
    }

    /// How the agent reads the answer to its event `name`.
    pub(crate) fn answer_form(&self, name: &str) -> AnswerForm {
        self.answer_by_event
            .iter()
            .find(|(event, _)| *event == name)
            .map_or(self.answer, |(_, form)| *form)
    }
}

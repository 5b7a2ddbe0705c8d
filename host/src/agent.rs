//! The agents hookhost guards besides Claude Code, as data: one file per agent holding its
//! whole [`contract::Contract`] — its events and which install wires, its tools and field
//! names, how it reads an answer and takes a rewritten input, the files that decide its
//! hooks, and where install writes. Observed from the real clients run offline (Copilot
//! CLI, Codex CLI, Gemini CLI; `docs/agents.md`), else from their documentation (Cursor,
//! OpenCode, Factory). A leaf: the door that reads an agent's input and answers it in its
//! form is `front_door::agent`, the installer is the command line's.
//!
//! A new agent is one file here and one arm of [`Agent`].

mod claude;
mod codex;
pub(crate) mod contract;
mod copilot;
mod cursor;
mod factory;
mod gemini;
mod opencode;

use std::path::{Path, PathBuf};

use contract::Contract;
pub use contract::{Install, Shape, Wired};

/// The input field naming the agent a call came from, for policies that care.
pub const AGENT_FIELD: &str = "agent";

/// The input field keeping the agent's own name for a tool hookhost renamed
/// (`exec_command` for `Bash`), so the answer speaks the agent's names again.
pub const AGENT_TOOL_FIELD: &str = "agent_tool_name";

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

impl Agent {
    /// Every agent.
    pub const ALL: &'static [Agent] = &[
        Agent::Claude,
        Agent::Copilot,
        Agent::Codex,
        Agent::Gemini,
        Agent::Cursor,
        Agent::OpenCode,
        Agent::Factory,
    ];

    /// Its contract.
    pub(crate) fn contract(self) -> &'static Contract {
        match self {
            Agent::Claude => &claude::CONTRACT,
            Agent::Copilot => &copilot::CONTRACT,
            Agent::Codex => &codex::CONTRACT,
            Agent::Gemini => &gemini::CONTRACT,
            Agent::Cursor => &cursor::CONTRACT,
            Agent::OpenCode => &opencode::CONTRACT,
            Agent::Factory => &factory::CONTRACT,
        }
    }

    /// Its name on the command line (`copilot`, …).
    pub fn name(self) -> &'static str {
        self.contract().name
    }

    /// The agent named `name`.
    pub fn parse(name: &str) -> Option<Agent> {
        Agent::ALL
            .iter()
            .copied()
            .find(|agent| agent.name() == name)
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

    /// Its own folder below the home (`.copilot`): its presence says the agent is used.
    pub fn home_folder(self) -> &'static str {
        self.contract().home_folder
    }

    /// What to tell the user about a project-scope install, where the agent reads a
    /// project's hook file only under a condition the user controls.
    pub fn project_note(self) -> Option<&'static str> {
        self.contract().project_note
    }

    /// Where and in what shape install wires hookhost in.
    pub fn install(self) -> Install {
        self.contract().install
    }

    /// The events install may wire (the agent's names), each with whether it is a tool
    /// event, in the order they go into the file.
    pub fn wired_events(self) -> Vec<(&'static str, bool)> {
        self.contract()
            .events
            .iter()
            .filter(|event| event.wired != Wired::No)
            .map(|event| (event.agent, event.wired == Wired::Tool))
            .collect()
    }
}

/// Every agent's hook files and trust records below `home` and `project`: the files that
/// decide which hooks an agent runs, for self-protection to keep its tool calls away from
/// (an agent that rewrites its hook file removes the guard).
pub(crate) fn hook_files(home: Option<&Path>, project: Option<&Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for agent in Agent::ALL {
        let (user, in_project) = agent.contract().hook_files;
        if let Some(home) = home {
            files.extend(user.iter().map(|file| home.join(file)));
        }
        if let Some(project) = project {
            files.extend(in_project.iter().map(|file| project.join(file)));
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::contract::AnswerForm;

    #[test]
    fn every_installed_event_is_one_of_the_contracts_and_a_hookhost_event() {
        let known = [
            "PreToolUse",
            "PostToolUse",
            "UserPromptSubmit",
            "Stop",
            "SessionStart",
            "SessionEnd",
            "PreCompact",
            "Notification",
            "PermissionRequest",
        ];
        for agent in Agent::ALL {
            let contract = agent.contract();
            for (event, _) in agent.wired_events() {
                assert!(
                    contract.events.iter().any(|e| e.agent == event),
                    "{}: {event}",
                    agent.name()
                );
            }
            for event in contract.events {
                assert!(
                    known.contains(&event.ours),
                    "{}: {}",
                    agent.name(),
                    event.ours
                );
            }
            let install = agent.install();
            let (user, project) = contract.hook_files;
            // The file install writes is one self-protection guards.
            assert!(
                user.iter().any(|f| install.user_file.starts_with(f)),
                "{}",
                agent.name()
            );
            assert!(
                project.iter().any(|f| install.project_file.starts_with(f)),
                "{}",
                agent.name()
            );
            assert!(
                project.iter().all(|f| f.starts_with('.')),
                "{}: a visible project file",
                agent.name()
            );
        }
    }

    #[test]
    fn every_agent_has_one_name_and_the_wired_events_are_as_installed_before() {
        let mut names: Vec<&str> = Agent::ALL.iter().map(|a| a.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Agent::ALL.len());
        assert_eq!(Agent::parse("gemini"), Some(Agent::Gemini));
        assert_eq!(Agent::parse("nobody"), None);
        let counts: Vec<usize> = Agent::ALL.iter().map(|a| a.wired_events().len()).collect();
        assert_eq!(counts, [0, 6, 5, 6, 6, 2, 6]);
        assert_eq!(
            Agent::Copilot.contract().answer_form("preToolUse"),
            AnswerForm::CopilotFlat
        );
        assert_eq!(Agent::Codex.hookhost_event("PreToolUse"), "PreToolUse");
        assert_eq!(Agent::Cursor.hookhost_event("beforeReadFile"), "PreToolUse");
    }
}

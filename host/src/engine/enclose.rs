//! The envelope's stage, last on every event: a shell command the policy lets run is
//! rewritten to run inside the owner's envelope (see [`crate::envelope`]). A command that
//! imitates the launcher, or one that cannot get the envelope (the kernel cannot enforce
//! it, its file cannot be written), is refused with the reason — never run unconfined.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::envelope::{Envelope, KernelSupport};
use crate::hook_input::HookInput;
use crate::outcome::EventOutcome;
use crate::output::PermissionDecision;

/// An engine's envelope, written and checked once when the engine is built.
pub(crate) struct Enclosure {
    /// The envelope.
    pub(crate) envelope: Envelope,
    /// Its file.
    pub(crate) file: PathBuf,
    /// Its digest, computed once (every shell call names it).
    digest: String,
    /// hookhost's binary, which applies it.
    launcher: Option<PathBuf>,
    /// Why no shell command may run (`None`: they run inside it).
    pub(crate) refusal: Option<String>,
    /// The whole session runs inside it (this engine is a session's broker): commands
    /// are judged, not rewritten.
    pub(crate) session_enclosed: bool,
    /// The repository's skills and commands whose `!` lines the owner lets run unenclosed.
    pub(crate) unenclosed_skills: Vec<String>,
}

impl Enclosure {
    /// The enclosure of `envelope`, kept in `dir` and applied by `launcher`: its file and
    /// the withheld notice are written (once per digest) and the kernel asked.
    pub(crate) fn new(envelope: Envelope, dir: Option<&Path>, launcher: Option<PathBuf>) -> Self {
        let file = dir.map(|dir| envelope.file_in(dir)).unwrap_or_default();
        let refusal = match (dir, &launcher) {
            (None, _) => Some("hookhost envelope: the owner's policy runs every command inside an envelope, and this engine has no folder to keep it in; not run".to_string()),
            (_, None) => Some("hookhost envelope: the owner's policy runs every command inside an envelope, and this engine knows no hookhost binary to apply it; not run".to_string()),
            (Some(dir), Some(_)) => write(&envelope, dir, &file)
                .err()
                .or_else(|| KernelSupport::probe().refusal(envelope.needed_abi())),
        };
        Enclosure {
            digest: envelope.digest(),
            envelope,
            file,
            launcher,
            refusal,
            session_enclosed: false,
            unenclosed_skills: Vec::new(),
        }
    }

    /// `outcome` for `input` with its shell command rewritten into the envelope, or
    /// refused.
    pub(crate) fn apply(&self, input: &HookInput, mut outcome: EventOutcome) -> EventOutcome {
        let event = &input.event;
        // The event that opens a session (the one that takes an initial user message):
        // an envelope weaker than the full one, or one this kernel refuses, is said there.
        if event.honours(crate::event::Fields::INITIAL_USER_MESSAGE)
            && let Some(warning) = self.warning()
        {
            outcome.system_message = Some(match outcome.system_message.take() {
                Some(earlier) => format!("{earlier}\n{warning}"),
                None => warning,
            });
            return outcome;
        }
        let shell_call = event.tool_event
            && event.honours(crate::event::Fields::PERMISSION_DECISION)
            && input
                .tool_name
                .as_deref()
                .is_some_and(|tool| crate::tools::runs_bash(tool, input.tool_input()));
        let denied =
            outcome.should_block || outcome.permission_decision == Some(PermissionDecision::Deny);
        if !shell_call || denied {
            return outcome;
        }
        let mut given = outcome
            .updated_input
            .clone()
            .unwrap_or_else(|| input.tool_input().clone());
        let Some(command) = given.get("command").and_then(Value::as_str) else {
            return outcome;
        };
        if crate::envelope::imitates(command) {
            return crate::outcome::EventOutcome::refused(
                event,
                "hookhost envelope: the command imitates hookhost's envelope launcher; only hookhost rewrites a command into it",
            );
        }
        if self.session_enclosed {
            // Started by the session's launcher, inside the envelope already.
            return outcome;
        }
        if !event.honours(crate::event::Fields::UPDATED_INPUT) {
            // The host runs this command as given (a skill's `!` line): it cannot be
            // enclosed, so where it comes from decides.
            let text =
                |name: &str| crate::json_field::field(&input.value, name).and_then(Value::as_str);
            let (source, name) = (text(SKILL_SOURCE_FIELD), text(SKILL_NAME_FIELD));
            return match self.unenclosed_refusal(source, name.unwrap_or("")) {
                Some(why) => crate::outcome::EventOutcome::refused(event, &why),
                None => outcome,
            };
        }
        let (Some(launcher), None) = (&self.launcher, &self.refusal) else {
            let why = self.refusal.as_deref().unwrap_or_default();
            return crate::outcome::EventOutcome::refused(event, why);
        };
        // Another agent's input names it; a Claude-shaped host's does not.
        let agent = crate::json_field::field(&input.value, crate::agent::AGENT_FIELD)
            .and_then(Value::as_str)
            .and_then(crate::agent::Agent::parse);
        let agent_tool = crate::json_field::field(&input.value, crate::agent::AGENT_TOOL_FIELD)
            .and_then(Value::as_str);
        if let (Some(agent), Some(tool)) = (agent, agent_tool)
            && !agent.starts_process(tool)
        {
            // Typed into a process an earlier call started inside the envelope.
            return outcome;
        }
        let keeps_folder = agent.is_none_or(crate::agent::Agent::keeps_folder);
        let wrapped = crate::envelope::wrap(launcher, &self.file, command, keeps_folder);
        given["command"] = Value::String(wrapped);
        outcome.updated_input = Some(given);
        outcome.envelope = Some(self.digest.clone());
        outcome
    }

    /// Why a `!` line of the skill or command `name` loaded from `source`, which cannot be
    /// enclosed, may not run unenclosed: one from the repository (or from a source Claude
    /// Code did not name) that the owner has not exempted by its name.
    pub(crate) fn unenclosed_refusal(&self, source: Option<&str>, name: &str) -> Option<String> {
        if source.is_some_and(|source| OWNER_SKILL_SOURCES.contains(&source)) {
            return None;
        }
        if !name.is_empty() && self.unenclosed_skills.iter().any(|exempt| exempt == name) {
            return None;
        }
        Some(format!(
            "hookhost envelope: the `!` line of the {} skill or command `{name}` cannot run inside the envelope (Claude Code runs it itself), and the repository's skills and commands are not trusted to run outside it; not run. The owner can let it run unenclosed with `\"envelope\": {{\"unenclosedSkills\": [\"{name}\"]}}` in their own settings.",
            source.unwrap_or("unnamed")
        ))
    }

    /// What a session start says of the envelope, when it is less than the full one.
    fn warning(&self) -> Option<String> {
        if let Some(why) = &self.refusal {
            return Some(format!(
                "{why} — every shell command of this session will be refused"
            ));
        }
        (self.envelope.mode == crate::envelope::Mode::LandlockOnly).then(|| {
            "hookhost envelope: the owner chose the weaker landlock-only mode — shell commands write only in the project and temporary folders, but hook files and .git/hooks inside them stay writable and secret files there readable".to_string()
        })
    }
}

/// The field of a skill command's input naming where its skill or command was loaded from.
const SKILL_SOURCE_FIELD: &str = "command_source";

/// The field naming the skill or command itself.
const SKILL_NAME_FIELD: &str = "command_name";

/// The sources of skills and commands the owner put there: their own folders, their
/// organisation's managed ones, plugins they installed, and Claude Code's own. Anything
/// else (`projectSettings`, `localSettings`: the repository's `.claude/`; an MCP server's;
/// a source not named) is the repository's until the owner says otherwise.
pub(crate) const OWNER_SKILL_SOURCES: &[&str] = &[
    "userSettings",
    "policySettings",
    "managed",
    "plugin",
    "bundled",
    "builtin",
];

/// Writes `envelope` to `file` in `dir` and the withheld notice beside it, each once:
/// a private folder, new files created without following a link and renamed in.
fn write(envelope: &Envelope, dir: &Path, file: &Path) -> Result<(), String> {
    let fail = |what: &Path, err: &dyn std::fmt::Display| {
        format!(
            "hookhost envelope: cannot write {} ({err}); not run",
            what.display()
        )
    };
    crate::files::ensure_private_dir(dir).map_err(|err| fail(dir, &err))?;
    // Where a session's hook processes find its broker (empty outside sessions).
    let session = crate::envelope::session::folder_in(dir);
    crate::files::ensure_private_dir(&session).map_err(|err| fail(&session, &err))?;
    let text = envelope.to_file_bytes();
    for (path, bytes) in [
        (file, text.as_slice()),
        (
            envelope.withheld.as_path(),
            crate::envelope::WITHHELD_NOTICE.as_bytes(),
        ),
    ] {
        let current = crate::files::read_regular(path, bytes.len() as u64 + 1);
        if current.is_ok_and(|current| current == bytes) {
            continue;
        }
        crate::files::replace_private(path, bytes).map_err(|err| fail(path, &err))?;
    }
    Ok(())
}

//! `hookhost install --agent NAME` and `hookhost uninstall --agent NAME`: hookhost wired
//! into another agent's hook files, its command naming the binary and the owner's folders
//! (fixed at install: the agent hands its hooks its parent's environment). Copilot CLI
//! gets a file of its own (`hookhost.json` in its hooks folder); Gemini CLI gets entries in
//! its `settings.json`, every other key and entry kept. Both under the install lock,
//! written atomically, the previous content kept as a backup; uninstall takes out only
//! what install wrote and gives the file back byte for byte when nothing else changed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use hookhost::Agent;
use serde_json::{Map, Value, json};

use super::claude::{self as claude, entries};
use super::{CliError, CliResult, OwnerFolders};

/// The events hookhost's Copilot file names (camelCase: the input names none, so each
/// entry passes its event).
const COPILOT_EVENTS: &[&str] = &[
    "preToolUse",
    "postToolUse",
    "userPromptSubmitted",
    "sessionStart",
    "sessionEnd",
    "agentStop",
];

/// The events hookhost's Gemini entries are for, and whether each is a tool event (its
/// matcher is a regular expression on the tool name).
const GEMINI_EVENTS: &[(&str, bool)] = &[
    ("BeforeTool", true),
    ("AfterTool", true),
    ("BeforeAgent", false),
    ("AfterAgent", false),
    ("SessionStart", false),
    ("SessionEnd", false),
];

/// The agent's own timeout for hookhost's entries, seconds: above `hook --agent`'s
/// default deadline (50 s), so hookhost always answers first.
const AGENT_TIMEOUT_SECS: u64 = 60;

/// Which of the agent's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AgentScope {
    /// The user's own files: every project.
    User,
    /// The project's files (Copilot reads them only in a folder the user trusts).
    Project,
}

/// `hookhost install|uninstall --agent`.
#[derive(Debug, Clone, Args)]
pub struct AgentInstallArgs {
    /// The agent: copilot or gemini (Claude Code: `hookhost claude install`).
    #[arg(long, value_parser = super::agent_hook::parse_agent)]
    agent: Agent,
    /// Which of the agent's files.
    #[arg(long, value_enum, default_value = "user")]
    scope: AgentScope,
    /// Project directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    project_dir: Option<PathBuf>,
    /// Home directory (default: the account's home from the password database).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// The folders the installed command names.
    #[command(flatten)]
    folders: OwnerFolders,
}

impl AgentInstallArgs {
    fn home(&self) -> anyhow::Result<PathBuf> {
        match &self.home {
            Some(home) => Ok(std::path::absolute(home)?),
            None => hookhost::internals::home()
                .context("no usable home: the account has no home folder; give --home"),
        }
    }

    fn base(&self) -> anyhow::Result<PathBuf> {
        match self.scope {
            AgentScope::User => self.home(),
            AgentScope::Project => {
                let dir = match &self.project_dir {
                    Some(dir) => std::path::absolute(dir)?,
                    None => std::env::current_dir().context("cannot read the current directory")?,
                };
                Ok(dir.canonicalize().unwrap_or(dir))
            }
        }
    }

    /// The agent's file hookhost writes.
    fn file(&self) -> anyhow::Result<PathBuf> {
        let base = self.base()?;
        Ok(match (self.agent, self.scope) {
            (Agent::Copilot, AgentScope::User) => base.join(".copilot/hooks/hookhost.json"),
            (Agent::Copilot, AgentScope::Project) => base.join(".github/hooks/hookhost.json"),
            (Agent::Gemini, _) => base.join(".gemini/settings.json"),
            (agent, _) => anyhow::bail!(
                "`install --agent {}` is not there yet: wire it by hand (docs/agents.md){}",
                agent.name(),
                if agent == Agent::Claude {
                    "; for Claude Code, `hookhost claude install`"
                } else {
                    ""
                }
            ),
        })
    }

    /// The command the agent's entry runs for its event `event`.
    fn command(&self, event: Option<&str>) -> anyhow::Result<String> {
        let locations = claude::locations(self.home()?, &self.folders)?;
        let mut words = vec!["hook", "--agent", self.agent.name()];
        if let Some(event) = event {
            words.extend(["--event", event]);
        }
        Ok(entries::command_line(
            &claude::own_exe()?,
            &words,
            &locations,
        ))
    }
}

/// Whether `command` is one install wrote for `agent`: this layout of words, whatever the
/// binary's path and folders.
fn is_ours(command: &str, agent: Agent) -> bool {
    entries::words(command).is_some_and(|words| {
        words.len() >= 4
            && Path::new(&words[0]).is_absolute()
            && words[1..4] == ["hook", "--agent", agent.name()]
    })
}

/// `hookhost install --agent`.
pub fn install(args: &AgentInstallArgs) -> CliResult {
    let file = args.file().map_err(CliError::Usage)?;
    let _lock = claude::lock_settings(&file).map_err(CliError::Internal)?;
    let original = claude::read_settings(&file)?;
    let settings = match args.agent {
        Agent::Copilot => copilot_file(args, original.as_ref())?,
        _ => gemini_settings(args, original.clone().unwrap_or_default())?,
    };
    if Some(&settings) == original.as_ref() {
        println!("already installed in {} (unchanged)", file.display());
        return Ok(ExitCode::SUCCESS);
    }
    claude::write_settings(&file, claude::current_bytes(&file).as_deref(), &settings)
        .map_err(CliError::Internal)?;
    println!(
        "installed hookhost for {} in {}",
        args.agent.name(),
        file.display()
    );
    if args.agent == Agent::Copilot && args.scope == AgentScope::Project {
        println!(
            "Copilot CLI reads a project's .github/hooks only in a folder the user trusts (`copilot --trust-folder`); elsewhere it skips them silently"
        );
    }
    println!("hooks go in ~/.config/hookhost/hooks.json (the same file for every agent)");
    Ok(ExitCode::SUCCESS)
}

/// hookhost's own Copilot hook file; a file of that name that install did not write is
/// refused.
fn copilot_file(
    args: &AgentInstallArgs,
    original: Option<&Map<String, Value>>,
) -> Result<Map<String, Value>, CliError> {
    if let Some(existing) = original
        && !existing.is_empty()
        && !copilot_is_ours(existing)
    {
        return Err(CliError::Usage(anyhow::anyhow!(
            "{}: a hook file install did not write; not changed",
            args.file().map_err(CliError::Usage)?.display()
        )));
    }
    let mut hooks = Map::new();
    for event in COPILOT_EVENTS {
        let command = args.command(Some(event)).map_err(CliError::Internal)?;
        hooks.insert(
            (*event).to_string(),
            json!([{"type": "command", "bash": command, "timeoutSec": AGENT_TIMEOUT_SECS}]),
        );
    }
    let file = json!({"version": 1, "hooks": hooks});
    Ok(file.as_object().cloned().unwrap_or_default())
}

/// Whether every entry of a Copilot hook file is install's.
fn copilot_is_ours(file: &Map<String, Value>) -> bool {
    let Some(Value::Object(hooks)) = file.get("hooks") else {
        return false;
    };
    hooks.values().all(|entries| {
        entries.as_array().is_some_and(|entries| {
            entries.iter().all(|entry| {
                entry
                    .get("bash")
                    .and_then(Value::as_str)
                    .is_some_and(|command| is_ours(command, Agent::Copilot))
            })
        })
    })
}

/// Gemini's settings with hookhost's entries: the user's own entries and keys kept,
/// hookhost's replaced in place of the last install's.
fn gemini_settings(
    args: &AgentInstallArgs,
    mut settings: Map<String, Value>,
) -> Result<Map<String, Value>, CliError> {
    let command = args.command(None).map_err(CliError::Internal)?;
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err(CliError::Usage(anyhow::anyhow!(
            "{}: `hooks` is not an object; not changed",
            args.file().map_err(CliError::Usage)?.display()
        )));
    };
    for (event, tool_event) in GEMINI_EVENTS {
        let groups = hooks
            .entry(*event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Some(groups) = groups.as_array_mut() else {
            return Err(CliError::Usage(anyhow::anyhow!(
                "`hooks.{event}` is not a list; not changed"
            )));
        };
        let mut group = json!({"hooks": [{"type": "command", "command": command,
                                           "timeout": AGENT_TIMEOUT_SECS * 1000}]});
        if *tool_event {
            group["matcher"] = json!(".*");
        }
        match groups.iter().position(gemini_group_is_ours) {
            Some(at) => groups[at] = group,
            // Last: the user's entries keep their places.
            None => groups.push(group),
        }
    }
    Ok(settings)
}

fn gemini_group_is_ours(group: &Value) -> bool {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .is_some_and(|handlers| {
            !handlers.is_empty()
                && handlers.iter().all(|handler| {
                    handler
                        .get("command")
                        .and_then(Value::as_str)
                        .is_some_and(|command| is_ours(command, Agent::Gemini))
                })
        })
}

/// `hookhost uninstall --agent`.
pub fn uninstall(args: &AgentInstallArgs) -> CliResult {
    let file = args.file().map_err(CliError::Usage)?;
    let _lock = claude::lock_settings(&file).map_err(CliError::Internal)?;
    let Some(mut settings) = claude::read_settings(&file)? else {
        println!("nothing to remove: {} does not exist", file.display());
        return Ok(ExitCode::SUCCESS);
    };
    let removed = match args.agent {
        Agent::Copilot if copilot_is_ours(&settings) => {
            settings.clear();
            1
        }
        Agent::Copilot => 0,
        _ => remove_gemini(&mut settings),
    };
    if removed == 0 {
        println!("nothing to remove: no hookhost entry in {}", file.display());
        return Ok(ExitCode::SUCCESS);
    }
    let backup = claude::backup_path(&file);
    let restored = claude::read_settings(&backup).ok().flatten();
    if restored.as_ref() == Some(&settings) {
        // Nothing else changed since install: the file as it was, byte for byte.
        let bytes = claude::current_bytes(&backup).unwrap_or_default();
        std::fs::write(&file, bytes)
            .with_context(|| format!("cannot restore {}", file.display()))?;
        let _ = std::fs::remove_file(&backup);
    } else if settings.is_empty() && !backup.exists() {
        // Install created the file: it goes again.
        std::fs::remove_file(&file).with_context(|| format!("cannot remove {}", file.display()))?;
    } else {
        claude::write_settings(&file, claude::current_bytes(&file).as_deref(), &settings)
            .map_err(CliError::Internal)?;
    }
    println!("removed hookhost from {}", file.display());
    Ok(ExitCode::SUCCESS)
}

/// Takes hookhost's groups out of Gemini's settings (and the lists and `hooks` they
/// leave empty); how many it took.
fn remove_gemini(settings: &mut Map<String, Value>) -> usize {
    let Some(Value::Object(hooks)) = settings.get_mut("hooks") else {
        return 0;
    };
    let mut removed = 0;
    for (event, _) in GEMINI_EVENTS {
        if let Some(Value::Array(groups)) = hooks.get_mut(*event) {
            let before = groups.len();
            groups.retain(|group| !gemini_group_is_ours(group));
            removed += before - groups.len();
            if groups.is_empty() && before > 0 {
                hooks.remove(*event);
            }
        }
    }
    if removed > 0 && hooks.is_empty() {
        settings.remove("hooks");
    }
    removed
}

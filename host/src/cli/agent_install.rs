//! `hookhost install|uninstall|status --agent NAME`: hookhost wired into each agent's own
//! hook files, its command naming the binary and the owner's folders (fixed at install:
//! every agent hands its hooks its parent's environment, which a repository can set).
//! Copilot CLI gets a hook file of its own, Codex, Gemini CLI, Cursor and Factory entries
//! in their JSON files after the user's own (Codex also its trust entries in
//! `config.toml`), OpenCode a plugin file; Claude Code is `hookhost claude install`. Each
//! file is edited under the install lock, written atomically beside a backup, and given
//! back byte for byte by uninstall when nothing else changed.

mod codex_trust;
mod layout;
mod opencode;
mod status;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use hookhost::Agent;

use super::claude::{self as claude, entries};
use super::settings_file::{
    CreatedFolders, current_bytes, lock_settings, put_back, put_back_text, read_settings,
    write_settings, write_text,
};
use super::{CliError, CliResult, OwnerFolders};
use layout::Layout;

pub use status::StatusArgs;
pub(super) use status::{status, unwired};

/// The agent's own timeout for hookhost's entries, seconds: above `hook --agent`'s
/// default deadline (50 s), so hookhost always answers first.
const AGENT_TIMEOUT_SECS: u64 = 60;

/// Which of the agent's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AgentScope {
    /// The user's own files: every project.
    User,
    /// The project's files (Copilot and Codex read them only in a folder the user
    /// trusts).
    Project,
}

/// `hookhost install|uninstall --agent`.
#[derive(Debug, Clone, Args)]
pub struct AgentInstallArgs {
    /// The agent: claude, copilot, codex, gemini, cursor, opencode, factory.
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
    /// Ask a running `hookhost serve --own-files --all-projects` at this base URL (e.g.
    /// http://127.0.0.1:8787) instead of running the hooks in each hook process: Claude
    /// Code calls it over HTTP (as `claude install --serve`), every other agent through
    /// `hookhost hook --agent NAME --serve URL` (the owner's `serve-token` as the token; a
    /// serve that cannot be reached is a deny).
    #[arg(long, value_name = "URL")]
    serve: Option<String>,
    /// Switch on guards that come with hookhost in the owner's hook file: `recommended`,
    /// `none`, or names (`bash-guard,secrets`); the user's own entries are never touched.
    #[arg(long, value_name = "GUARDS")]
    guards: Option<String>,
    /// Run this check (a `sh -c` command line) before the agent's `git commit` or `git
    /// push`, refusing the call when it fails; repeatable. Other agents than Claude Code
    /// give the hook at most `hook --agent`'s deadline (50 s).
    #[arg(long = "checks", value_name = "CMD")]
    checks: Vec<String>,
    /// Run every shell command the agent runs inside the kernel envelope derived from
    /// the owner's policy (`"envelope": true` in the owner's hook file; an agent that
    /// cannot rewrite a command has its shell commands refused, and `status` says so).
    #[arg(long)]
    envelope: bool,
    /// Keep the owner's warm engine running (a `systemd --user` unit or a launchd agent
    /// running `hookhost serve --warm`): the hook commands ask it, and answer one-shot
    /// when it is not running.
    #[arg(long, conflicts_with = "serve")]
    warm: bool,
    /// The folders the installed command names.
    #[command(flatten)]
    folders: OwnerFolders,
}

/// The owner's home: `given`, else the account's home from the password database.
fn home_of(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    match given {
        Some(home) => Ok(std::path::absolute(home)?),
        None => hookhost::internals::home()
            .context("no usable home: the account has no home folder; give --home"),
    }
}

/// The project: `given`, else the current directory, canonical where it can be.
fn project_of(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    let dir = match given {
        Some(dir) => std::path::absolute(dir)?,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    Ok(dir.canonicalize().unwrap_or(dir))
}

/// The file install writes for `agent` in `scope`, below `home` or `project` (the
/// agent's contract names it).
fn agent_file(agent: Agent, scope: AgentScope, home: &Path, project: &Path) -> PathBuf {
    let install = agent.install();
    match scope {
        AgentScope::User => home.join(install.user_file),
        AgentScope::Project => project.join(install.project_file),
    }
}

/// Codex's user configuration, where its hook trust lives whatever the hook file.
fn codex_config(home: &Path) -> PathBuf {
    home.join(".codex/config.toml")
}

impl AgentInstallArgs {
    fn home(&self) -> anyhow::Result<PathBuf> {
        home_of(self.home.as_deref())
    }

    /// The agent's file install writes.
    fn file(&self) -> anyhow::Result<PathBuf> {
        Ok(agent_file(
            self.agent,
            self.scope,
            &self.home()?,
            &project_of(self.project_dir.as_deref())?,
        ))
    }

    /// The argument vector of the command the agent runs, for each event name (passed on
    /// where `pass_event`).
    fn argv(&self, pass_event: bool) -> anyhow::Result<impl Fn(&str) -> Vec<String> + use<>> {
        let locations = claude::locations(self.home()?, &self.folders)?;
        let exe = super::command_line::hook_program()?;
        let agent = self.agent;
        let serve = self.serve.clone();
        Ok(move |event: &str| {
            let mut words = vec!["hook", "--agent", agent.name()];
            if pass_event {
                words.extend(["--event", event]);
            }
            if let Some(url) = &serve {
                words.extend(["--serve", url.as_str()]);
            }
            entries::argv(&exe, &words, &locations)
        })
    }

    /// What it writes into the owner's own hook file.
    fn owner_hooks(&self) -> super::guards::OwnerHooks {
        super::guards::OwnerHooks {
            guards: self.guards.clone(),
            checks: self.checks.clone(),
            envelope: self.envelope,
        }
    }

    /// The Claude Code install this asks for.
    fn claude_scope(&self) -> claude::ScopeArgs {
        claude::ScopeArgs::new(
            match self.scope {
                AgentScope::User => claude::Scope::User,
                AgentScope::Project => claude::Scope::Project,
            },
            self.project_dir.clone(),
            self.home.clone(),
        )
    }
}

/// `hookhost install --agent`.
pub fn install(args: &AgentInstallArgs) -> CliResult {
    if args.agent == Agent::Claude {
        return claude::install_as(
            args.claude_scope(),
            args.serve.clone(),
            args.owner_hooks(),
            args.warm,
            &args.folders,
        );
    }
    let guards = args.owner_hooks().parse()?;
    if let Some(note) = super::home::home_note(args.home.as_deref()) {
        println!("{note}");
    }
    if let Some(url) = &args.serve
        && !(url.starts_with("http://") || url.starts_with("https://"))
    {
        return Err(CliError::Usage(anyhow::anyhow!(
            "--serve: `{url}` is no http(s) URL"
        )));
    }
    // The owner's file first: the events wired are the ones its hooks watch.
    let locations = claude::locations(args.home().map_err(CliError::Usage)?, &args.folders)?;
    args.owner_hooks().write(&guards, &locations.config_dir)?;
    let file = args.file().map_err(CliError::Usage)?;
    let created = CreatedFolders::in_home(&args.home().map_err(CliError::Usage)?);
    created.remember(&CreatedFolders::missing(&file));
    let changed = {
        let _lock = lock_settings(&file).map_err(CliError::Internal)?;
        match Layout::of(args.agent) {
            Some(layout) => install_entries(args, &file, &layout)?,
            None => install_plugin(args, &file)?,
        }
    };
    let trusted = if args.agent == Agent::Codex {
        trust_codex(args, &file)?
    } else {
        false
    };
    if changed || trusted {
        println!(
            "installed hookhost for {} in {}",
            args.agent.name(),
            file.display()
        );
    } else {
        println!("already installed in {} (unchanged)", file.display());
    }
    if args.scope == AgentScope::Project
        && let Some(note) = args.agent.project_note()
    {
        println!("{note}");
    }
    if args.warm {
        println!("{}", claude::install_warm(&locations)?);
    }
    println!("hooks go in ~/.config/hookhost/hooks.json (the same file for every agent)");
    Ok(ExitCode::SUCCESS)
}

/// hookhost's entries into the agent's JSON file; whether the file changed.
fn install_entries(args: &AgentInstallArgs, file: &Path, layout: &Layout) -> CliResult<bool> {
    let original = read_settings(file)?;
    let argv = args
        .argv(layout.passes_event())
        .map_err(CliError::Internal)?;
    let command = |event: &str| entries::line(&argv(event));
    // The events something watches (the owners' hooks, self-protection, the envelope):
    // an event nothing watches costs the agent a process on every call of it.
    let watched = claude::watched(args.home().map_err(CliError::Usage)?, &args.folders);
    let agent = args.agent;
    let wanted = |event: &str| match &watched {
        Ok(watched) => watched.contains(agent.hookhost_event(event)),
        Err(_) => true,
    };
    let settings = layout
        .insert(
            args.agent,
            original.clone().unwrap_or_default(),
            &command,
            &wanted,
        )
        .map_err(|why| {
            CliError::Usage(anyhow::anyhow!("{}: {why}; not changed", file.display()))
        })?;
    if Some(&settings) == original.as_ref() {
        return Ok(false);
    }
    write_settings(file, current_bytes(file).as_deref(), &settings).map_err(CliError::Internal)?;
    Ok(true)
}

/// OpenCode's plugin file; a file of that name install did not write is refused.
fn install_plugin(args: &AgentInstallArgs, file: &Path) -> CliResult<bool> {
    let current = read_text(file)?;
    if let Some(text) = &current
        && opencode::command_of(text).is_none()
    {
        return Err(CliError::Usage(anyhow::anyhow!(
            "{}: a plugin install did not write; not changed",
            file.display()
        )));
    }
    let argv = args.argv(false).map_err(CliError::Internal)?;
    let text = opencode::plugin(&argv(""));
    if current.as_deref() == Some(text.as_str()) {
        return Ok(false);
    }
    write_text(file, None, &text).map_err(CliError::Internal)?;
    Ok(true)
}

/// A text file others may write, bounded and regular-file-only; `None` when absent.
fn read_text(file: &Path) -> CliResult<Option<String>> {
    match hookhost::internals::read_regular(file, hookhost::internals::MAX_CONFIG_FILE) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            CliError::Usage(anyhow::anyhow!(
                "{}: not UTF-8 text; not changed",
                file.display()
            ))
        }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(CliError::Usage(
            anyhow::Error::new(err).context(format!("cannot read {}", file.display())),
        )),
    }
}

/// Trust entries in Codex's `config.toml` for exactly hookhost's groups in `hooks_file`;
/// whether the file changed.
fn trust_codex(args: &AgentInstallArgs, hooks_file: &Path) -> CliResult<bool> {
    let settings = read_settings(hooks_file)?.unwrap_or_default();
    let ours = Layout::of(Agent::Codex)
        .map(|layout| layout.find(&settings, Agent::Codex))
        .unwrap_or_default();
    let home = args.home().map_err(CliError::Usage)?;
    let config = codex_config(&home);
    CreatedFolders::in_home(&home).remember(&CreatedFolders::missing(&config));
    let _lock = lock_settings(&config).map_err(CliError::Internal)?;
    let text = read_text(&config)?.unwrap_or_default();
    let mut doc = codex_trust::parse(&config, &text).map_err(CliError::Usage)?;
    codex_trust::trust(&mut doc, hooks_file, &ours)
        .map_err(|err| CliError::Usage(err.context(format!("{}", config.display()))))?;
    let updated = doc.to_string();
    if updated == text {
        return Ok(false);
    }
    write_text(&config, current_bytes(&config).as_deref(), &updated).map_err(CliError::Internal)?;
    Ok(true)
}

/// `hookhost uninstall --agent`.
pub fn uninstall(args: &AgentInstallArgs) -> CliResult {
    if args.agent == Agent::Claude {
        return claude::uninstall_as(args.claude_scope());
    }
    if let Some(said) = super::warm_unit::uninstall(&args.home().map_err(CliError::Usage)?) {
        println!("{said}");
    }
    let file = args.file().map_err(CliError::Usage)?;
    let removed = {
        let _lock = lock_settings(&file).map_err(CliError::Internal)?;
        match Layout::of(args.agent) {
            Some(layout) => uninstall_entries(args, &file, &layout)?,
            None => uninstall_plugin(&file)?,
        }
    };
    // The folders install made, once the lock's file is gone from them.
    let created = CreatedFolders::in_home(&args.home().map_err(CliError::Usage)?);
    created.take_away(&file);
    if args.agent == Agent::Codex {
        created.take_away(&codex_config(&args.home().map_err(CliError::Usage)?));
    }
    if removed {
        println!("removed hookhost from {}", file.display());
    } else {
        println!("nothing to remove: no hookhost entry in {}", file.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Takes hookhost's entries out of the agent's JSON file (and Codex's trust in them);
/// whether there were any.
fn uninstall_entries(args: &AgentInstallArgs, file: &Path, layout: &Layout) -> CliResult<bool> {
    let Some(mut settings) = read_settings(file)? else {
        return Ok(false);
    };
    let found = layout.find(&settings, args.agent);
    if layout.remove(&mut settings, args.agent) == 0 {
        return Ok(false);
    }
    put_back(file, &settings).map_err(CliError::Internal)?;
    if args.agent == Agent::Codex {
        let config = codex_config(&args.home().map_err(CliError::Usage)?);
        let _lock = lock_settings(&config).map_err(CliError::Internal)?;
        if let Some(text) = read_text(&config)? {
            let mut doc = codex_trust::parse(&config, &text).map_err(CliError::Usage)?;
            codex_trust::untrust(&mut doc, file, &found);
            let updated = doc.to_string();
            if updated != text {
                put_back_text(&config, &updated).map_err(CliError::Internal)?;
            }
        }
    }
    Ok(true)
}

/// Removes OpenCode's plugin file when install wrote it; whether it did.
fn uninstall_plugin(file: &Path) -> CliResult<bool> {
    match read_text(file)? {
        Some(text) if opencode::command_of(&text).is_some() => {
            std::fs::remove_file(file)
                .with_context(|| format!("cannot remove {}", file.display()))?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

//! `hookhost claude`: hookhost behind Claude Code. `hook` is the command Claude Code
//! runs (it reads hookhost's own hook files, never Claude Code's, and answers in Claude
//! Code's form only); `install` / `uninstall` write and remove that wiring in a Claude
//! Code settings file; `status` shows what Claude Code will run and what is wrong.

pub(super) mod entries;
mod plugin;
mod status;
mod upstream;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use serde_json::Value;

use super::settings_file::{
    CreatedFolders, backup_path, current_bytes, lock_settings, put_back, read_settings,
    write_settings,
};
use super::{CliError, CliResult, ConfigArgs, Format};
use entries::Wiring;

/// `hookhost claude …`.
#[derive(Debug, Subcommand)]
pub enum ClaudeCommand {
    /// The hook command Claude Code runs (written by `install`): reads the event on
    /// stdin, runs the hooks of hookhost's own files (~/.config/hookhost/hooks.json,
    /// .hookhost/hooks.json, …) and answers in Claude Code's form. Exits 0, or 2 where
    /// only that blocks; its own problems are one line on stderr with exit 1.
    Hook(HookArgs),
    /// Write hookhost's entry for every Claude Code event into a Claude Code settings
    /// file (idempotent; every other key and entry kept; one backup beside the file).
    Install(InstallArgs),
    /// Remove exactly the entries `install` wrote.
    Uninstall(ScopeArgs),
    /// Show, per event, what Claude Code will run and what hookhost runs behind its
    /// entry; report problems (exit 1 when there are any).
    Status(ScopeArgs),
    /// Write a Claude Code marketplace with one plugin whose hooks run this binary, by
    /// its absolute path, with the owner's folders (the entry `install` writes): a
    /// plugin that ran `hookhost` from PATH would run whatever a repository's `env`
    /// puts first on PATH.
    Plugin(plugin::PluginArgs),
}

/// The owner's folders `claude hook` reads, fixed in the command `install` writes
/// (never taken from the environment Claude Code hands the hook, which a repository's
/// `env` setting fills).
#[derive(Debug, Clone, Default, Args)]
pub struct HookArgs {
    /// The owner's home (default: the account's home from the password database).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    #[command(flatten)]
    folders: super::OwnerFolders,
}

/// Which Claude Code settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scope {
    /// `~/.claude/settings.json`: every project of this user.
    User,
    /// `<project>/.claude/settings.json`: shared with the repository.
    Project,
    /// `<project>/.claude/settings.local.json`: this checkout only.
    Local,
}

/// Where the settings files are.
#[derive(Debug, Clone, Args)]
pub struct ScopeArgs {
    /// The settings file to write (install / uninstall).
    #[arg(long, value_enum, default_value = "user")]
    scope: Scope,
    /// Project directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    project_dir: Option<PathBuf>,
    /// Home directory (default: the account's home from the password database; `$HOME`
    /// is never read).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
}

/// `hookhost claude install`.
#[derive(Debug, Clone, Args)]
pub struct InstallArgs {
    #[command(flatten)]
    scope: ScopeArgs,
    /// Call a running `hookhost serve --own-files --all-projects` at this base URL (e.g.
    /// http://127.0.0.1:8787) over HTTP, sending `$HOOKHOST_TOKEN` as the bearer token;
    /// SessionStart and Setup, which Claude Code runs only as commands, keep the command
    /// entry.
    #[arg(long, value_name = "URL")]
    serve: Option<String>,
    /// Install for this event only; repeatable. Default: every event Claude Code 2.1.197
    /// knows except WorktreeCreate, WorktreeRemove and FileChanged.
    #[arg(long = "event", value_name = "EVENT")]
    events: Vec<String>,
    /// Switch on guards that come with hookhost in the owner's hook file: `recommended`,
    /// `none`, or names (`bash-guard,secrets`); the user's own entries are never touched.
    #[arg(long, value_name = "GUARDS")]
    guards: Option<String>,
    /// Run this check (a `sh -c` command line) before the agent's `git commit` or `git
    /// push`, refusing the call when it fails; repeatable (`hookhost checks-before-commit`
    /// in the owner's hook file).
    #[arg(long = "checks", value_name = "CMD")]
    checks: Vec<String>,
    /// Run every shell command the agent runs inside the kernel envelope derived from
    /// the owner's policy (`"envelope": true` in the owner's hook file).
    #[arg(long)]
    envelope: bool,
    /// Keep the owner's warm engine running (`hookhost serve --warm`, a `systemd --user`
    /// unit or a launchd agent): the hook commands ask it instead of starting an engine
    /// for every call, and answer one-shot when it is not running.
    #[arg(long)]
    warm: bool,
    /// The folders the installed command names.
    #[command(flatten)]
    folders: super::OwnerFolders,
}

/// Runs a `hookhost claude` command.
pub async fn run(command: ClaudeCommand) -> CliResult {
    match command {
        ClaudeCommand::Hook(args) => Ok(hook(args).await),
        ClaudeCommand::Install(args) => install(&args),
        ClaudeCommand::Uninstall(args) => uninstall(&args),
        ClaudeCommand::Status(args) => status::run(&args),
        ClaudeCommand::Plugin(args) => plugin::write(&args),
    }
}

impl ScopeArgs {
    /// The files of `scope`, for `project_dir` and `home` (defaults where `None`).
    pub(super) fn new(scope: Scope, project_dir: Option<PathBuf>, home: Option<PathBuf>) -> Self {
        ScopeArgs {
            scope,
            project_dir,
            home,
        }
    }

    fn home(&self) -> anyhow::Result<PathBuf> {
        match &self.home {
            Some(home) => Ok(std::path::absolute(home)?),
            None => hookhost::internals::home()
                .context("no usable home: the account has no home folder; give --home"),
        }
    }

    fn project(&self) -> anyhow::Result<PathBuf> {
        let dir = match &self.project_dir {
            Some(dir) => std::path::absolute(dir)?,
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        Ok(dir.canonicalize().unwrap_or(dir))
    }

    /// The Claude Code settings file of a scope.
    fn file(&self, scope: Scope) -> anyhow::Result<PathBuf> {
        Ok(match scope {
            Scope::User => self.home()?.join(".claude").join("settings.json"),
            Scope::Project => self.project()?.join(".claude").join("settings.json"),
            Scope::Local => self.project()?.join(".claude").join("settings.local.json"),
        })
    }
}

impl InstallArgs {
    /// The folders the installed command names: the flags given, else below the home.
    fn locations(&self) -> anyhow::Result<entries::Locations> {
        locations(self.scope.home()?, &self.folders)
    }
}

/// The folders an installed command names, for the owner's `home`: `folders` where given,
/// else hookhost's defaults below the home.
pub(super) fn locations(
    home: PathBuf,
    folders: &super::OwnerFolders,
) -> anyhow::Result<entries::Locations> {
    let folder = |given: &Option<PathBuf>, default: PathBuf| -> anyhow::Result<String> {
        let dir = match given {
            Some(dir) => std::path::absolute(dir)?,
            None => default,
        };
        dir.to_str()
            .map(str::to_string)
            .with_context(|| format!("{}: not UTF-8", dir.display()))
    };
    Ok(entries::Locations {
        home: folder(&None, home.clone())?,
        config_dir: folder(
            &folders.config_dir,
            hookhost::internals::config_dir_in(&home),
        )?,
        state_dir: folder(&folders.state_dir, hookhost::internals::state_dir_in(&home))?,
        cache_dir: folder(
            &folders.cache_dir,
            hookhost::internals::cache_dir_in(&home).join("wasm"),
        )?,
    })
}

pub(super) use super::command_line::own_exe;
pub(super) use status::{unwired, wired_events};

/// `hookhost install --agent claude`: `claude install` into `scope`'s file, every
/// default event.
pub(super) fn install_as(
    scope: ScopeArgs,
    serve: Option<String>,
    owner_hooks: super::guards::OwnerHooks,
    warm: bool,
    folders: &super::OwnerFolders,
) -> CliResult {
    install(&InstallArgs {
        scope,
        serve,
        events: Vec::new(),
        guards: owner_hooks.guards,
        checks: owner_hooks.checks,
        envelope: owner_hooks.envelope,
        warm,
        folders: folders.clone(),
    })
}

/// `hookhost uninstall --agent claude`: `claude uninstall`.
pub(super) fn uninstall_as(scope: ScopeArgs) -> CliResult {
    uninstall(&scope)
}

/// `hookhost status --agent claude`: `claude status`.
pub(super) fn status_as(scope: ScopeArgs) -> CliResult {
    status::run(&scope)
}

fn install(args: &InstallArgs) -> CliResult {
    let owner_hooks = super::guards::OwnerHooks {
        guards: args.guards.clone(),
        checks: args.checks.clone(),
        envelope: args.envelope,
    };
    let guards = owner_hooks.parse()?;
    if let Some(note) = super::home::home_note(args.scope.home.as_deref()) {
        println!("{note}");
    }
    let locations = args.locations()?;
    // The owner's file first: the events wired are the ones its hooks watch.
    owner_hooks.write(&guards, &locations.config_dir)?;
    let result = install_entries(args)?;
    if args.warm {
        println!("{}", install_warm(&locations)?);
    }
    Ok(result)
}

/// The events Claude Code is to call hookhost for: those the owners' hook files and
/// hookhost's own guards watch (`Engine::watched_events`), in Claude Code's order —
/// an event nothing watches is not wired, so it costs no process. A hook on another event
/// (a project's own, added later) shows in `claude status` as not wired.
fn watched_events(args: &InstallArgs) -> anyhow::Result<Vec<String>> {
    let watched = watched(args.scope.home()?, &args.folders)?;
    let claude = hookhost::internals::Dialect::claude();
    let mut events: Vec<String> = entries::DEFAULT_EVENTS
        .iter()
        .filter(|event| watched.contains(**event))
        .map(|event| event.to_string())
        .collect();
    events.extend(
        watched
            .iter()
            .filter(|event| !entries::DEFAULT_EVENTS.contains(&event.as_str()))
            .filter(|event| claude.lookup(event).is_some())
            .cloned(),
    );
    Ok(events)
}

/// The events the owners' hook files (below `home`, in `folders`) and hookhost's own
/// guards watch, in hookhost's names (`Engine::watched_events`).
pub(super) fn watched(
    home: PathBuf,
    folders: &super::OwnerFolders,
) -> anyhow::Result<std::collections::BTreeSet<String>> {
    let mut config = ConfigArgs::own(None).with_home(home);
    config.folders = folders.clone();
    config.no_project = true;
    let engine = config.engine().map_err(|err| match err {
        CliError::Usage(err) | CliError::Internal(err) => err,
    })?;
    Ok(engine.watched_events())
}

/// Writes and starts the owner's warm engine's service for the folders `locations`.
pub(super) fn install_warm(locations: &entries::Locations) -> anyhow::Result<String> {
    let mut argv = vec![own_exe()?];
    argv.extend(hookhost::warm::serve_args(&locations.pairs()));
    super::warm_unit::install(Path::new(&locations.home), &argv)
}

fn install_entries(args: &InstallArgs) -> CliResult {
    let file = args.scope.file(args.scope.scope)?;
    CreatedFolders::in_home(&args.scope.home()?).remember(&CreatedFolders::missing(&file));
    let _lock = lock_settings(&file).map_err(CliError::Internal)?;
    let original = read_settings(&file)?;
    let mut settings = original.clone().unwrap_or_default();
    let wiring = Wiring {
        argv: entries::hook_argv(&super::command_line::hook_program()?, &args.locations()?),
        serve: args.serve.clone(),
    };
    if let Some(url) = &args.serve
        && !(url.starts_with("http://") || url.starts_with("https://"))
    {
        return Err(anyhow::anyhow!("--serve: `{url}` is no http(s) URL").into());
    }
    let watched = args.events.is_empty().then(|| watched_events(args));
    let events: Vec<String> = match &watched {
        Some(Ok(watched)) => watched.clone(),
        Some(Err(why)) => {
            println!(
                "wiring every event: the owner's hook files do not load ({why}), so hookhost cannot tell which events they watch"
            );
            entries::DEFAULT_EVENTS
                .iter()
                .map(|e| e.to_string())
                .collect()
        }
        None => args.events.clone(),
    };
    for event in &events {
        if hookhost::internals::Dialect::claude()
            .lookup(event)
            .is_none()
        {
            return Err(anyhow::anyhow!("--event: `{event}` is no Claude Code event").into());
        }
    }
    entries::install(&mut settings, &wiring, &events)
        .map_err(|why| anyhow::anyhow!("{}: {why}; not changed", file.display()))?;
    if let Some(Ok(watched)) = &watched {
        // An event wired before that nothing watches now costs every call of it a process.
        entries::unwire_others(&mut settings, watched);
    }
    if Some(&settings) == original.as_ref() {
        println!("already installed in {} (unchanged)", file.display());
        return Ok(ExitCode::SUCCESS);
    }
    write_settings(&file, current_bytes(&file).as_deref(), &settings)
        .map_err(CliError::Internal)?;
    println!(
        "installed hookhost for {} events ({}) in {}{}",
        events.len(),
        events.join(", "),
        file.display(),
        if original.is_some() {
            format!(" (previous content: {})", backup_path(&file).display())
        } else {
            String::new()
        }
    );
    if args.serve.is_some() {
        println!(
            "Claude Code sends ${} as the bearer token: start it with `export {}=$(cat ~/.config/hookhost/serve-token)`, and run `hookhost serve --own-files --all-projects`",
            entries::TOKEN_VAR,
            entries::TOKEN_VAR
        );
    }
    println!(
        "hooks go in ~/.config/hookhost/hooks.json or .hookhost/hooks.json (Claude Code never reads them)"
    );
    Ok(ExitCode::SUCCESS)
}

fn uninstall(args: &ScopeArgs) -> CliResult {
    if let Some(said) = super::warm_unit::uninstall(&args.home()?) {
        println!("{said}");
    }
    let file = args.file(args.scope)?;
    let said = {
        let _lock = lock_settings(&file).map_err(CliError::Internal)?;
        match read_settings(&file)? {
            None => format!("nothing to remove: {} does not exist", file.display()),
            Some(mut settings) => match entries::uninstall(&mut settings) {
                0 => format!("nothing to remove: no hookhost entry in {}", file.display()),
                removed => {
                    put_back(&file, &settings).map_err(CliError::Internal)?;
                    format!("removed {removed} hookhost entries from {}", file.display())
                }
            },
        }
    };
    // The folders install made, once the lock's file is gone from them.
    CreatedFolders::in_home(&args.home()?).take_away(&file);
    println!("{said}");
    Ok(ExitCode::SUCCESS)
}

/// The project Claude Code runs the hook for: `$CLAUDE_PROJECT_DIR`, else the input's
/// `cwd`, else the current directory.
fn hook_project(input: &[u8]) -> Option<PathBuf> {
    let absolute = |text: &str| Some(PathBuf::from(text)).filter(|p| p.is_absolute());
    std::env::var("CLAUDE_PROJECT_DIR")
        .ok()
        .and_then(|dir| absolute(&dir))
        .or_else(|| {
            let value: Value = serde_json::from_slice(input).ok()?;
            absolute(value.get("cwd")?.as_str()?)
        })
        .or_else(|| std::env::current_dir().ok())
}

/// `${CLAUDE_PLUGIN_ROOT}` for hookhost's own files, from the environment — only where it
/// names a plugin Claude Code installed (below `~/.claude/plugins/`): a repository's
/// settings can set any variable for hook processes, and must not make an owner's
/// `${CLAUDE_PLUGIN_ROOT}/guard.wasm` load a component of its own choosing.
fn plugin_root(
    value: Option<std::ffi::OsString>,
    home: Option<&Path>,
    project: Option<&Path>,
) -> Option<String> {
    let root = PathBuf::from(value?).canonicalize().ok()?;
    let plugins = home?.join(".claude").join("plugins").canonicalize().ok()?;
    let inside_project = project
        .and_then(|dir| dir.canonicalize().ok())
        .is_some_and(|dir| root.starts_with(dir));
    if !root.starts_with(&plugins) || inside_project {
        tracing::warn!(
            "CLAUDE_PLUGIN_ROOT {} is no plugin Claude Code installed; not expanded",
            root.display()
        );
        return None;
    }
    root.to_str().map(str::to_string)
}

/// `hookhost claude hook`: never an exit status Claude Code would misread.
async fn hook(args: HookArgs) -> ExitCode {
    match hook_answer(args).await {
        Ok(code) => code,
        Err(err) => {
            let line = super::one_line(&format!("{err:#}"), 300);
            super::write_stderr(&format!("hookhost: {line}\n"));
            ExitCode::from(1)
        }
    }
}

async fn hook_answer(args: HookArgs) -> anyhow::Result<ExitCode> {
    let bytes = super::read_input(None)?;
    if super::started_by_hookhost() {
        // The hookhost that started this process already runs the hooks.
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(reply) =
        super::agent_hook::claude_in_session(args.home.clone(), args.folders.clone(), &bytes).await
    {
        return Ok(super::agent_hook::write(&reply));
    }
    let project = hook_project(&bytes);
    let mut config = ConfigArgs::own(project.clone());
    config.home = args.home;
    config.folders = args.folders;
    let home = config.owner_home();
    if let Some(root) = plugin_root(
        std::env::var_os("CLAUDE_PLUGIN_ROOT"),
        home.as_deref(),
        project.as_deref(),
    ) {
        config.vars.push(("CLAUDE_PLUGIN_ROOT".into(), root));
    }
    let engine = config.one_shot_engine(true).map_err(|err| match err {
        CliError::Usage(err) | CliError::Internal(err) => err,
    })?;
    let warnings = engine.diagnostics().len();
    let session = "claude-code";
    let limits = hookhost::RequestLimits::new(super::FIRE_MAX_INPUT, false);
    let answer = engine
        .answer(hookhost::Request::new(&bytes, session, &limits).event(None))
        .await;
    let outcome = answer.into_result()?;
    engine.close().await;
    std::mem::forget(engine);
    let code = super::print_outcome(Format::Claude, &outcome).map_err(|err| match err {
        CliError::Usage(err) | CliError::Internal(err) => err,
    })?;
    if warnings > 0 && code == ExitCode::SUCCESS {
        super::write_stderr(&format!(
            "hookhost: {warnings} configuration problems in hookhost's hook files; see `hookhost claude status`\n"
        ));
    }
    Ok(code)
}

//! The command line's shape: every command, its flags, and the folders and options they
//! make (`ConfigArgs` turns the config flags into `LoadOptions` and `EngineOptions`).

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};

use super::{
    CliError, agent_hook, agent_install, cache, cases, checks, claude, envelope, explain, policy,
    registry, scaffold, serve, telemetry,
};

use hookhost::{
    DialectId, Engine, EngineOptions, FileSet, LoadOptions, Trust, internals::Layering,
};

/// Hook engine for AI coding-agent hosts.
#[derive(Debug, Parser)]
#[command(name = "hookhost", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Fire an event: read its input JSON, run the matching hooks, print the outcome.
    Fire(FireArgs),
    /// Validate configuration and print every warning (exit 1 on errors).
    Check(ConfigArgs),
    /// Show the resolved hooks per event with their sources and trust state.
    List(ConfigArgs),
    /// Trust a workspace (its project settings may then run command, http and prompt
    /// hooks), list trusted workspaces, or remove one.
    Trust(TrustArgs),
    /// Keep one engine running and answer events over HTTP (loopback or a unix socket)
    /// or JSON lines on stdio; reloads when the configuration changes.
    Serve(serve::ServeArgs),
    /// Run cases (a hook project's `tests/*.json`, or case folders with a `case.json`):
    /// component or settings, events, inputs and what the outcome must hold; one line
    /// per case and a summary, exit 1 when any case fails; `--bless` rewrites the
    /// expectations from the outcomes.
    Test(cases::TestArgs),
    /// The compiled-artifact cache: list it (default), `--prune` it to its cap (least
    /// recently used first), or `--clear` it.
    Cache(cache::CacheArgs),
    /// hookhost behind Claude Code: `hook` (the command Claude Code runs), `install`,
    /// `uninstall` and `status`.
    #[command(subcommand)]
    Claude(claude::ClaudeCommand),
    /// The command another agent's hook runs (Copilot CLI, Codex, Gemini CLI, Cursor,
    /// OpenCode, Factory): its input normalised to hookhost's events and tools, the hooks of
    /// hookhost's own files run, the answer in the agent's form — always in-band.
    Hook(agent_hook::AgentHookArgs),
    /// Wire hookhost into an agent's hook files (Claude Code, Copilot CLI, Codex — with
    /// its trust entries —, Gemini CLI, Cursor, OpenCode's plugin folder, Factory):
    /// idempotent, every other key and entry kept, atomic, a backup of the previous
    /// content.
    Install(agent_install::AgentInstallArgs),
    /// Take out what `install --agent` wrote; the file comes back byte for byte when
    /// nothing else changed.
    Uninstall(agent_install::AgentInstallArgs),
    /// For one agent or every agent found in the home: which files hold hookhost's
    /// wiring, what the agent runs, and what leaves it unguarded (exit 1 when anything
    /// does).
    Status(agent_install::StatusArgs),
    /// The builtin command hook that runs the owner's checks (`--run CMD`, repeatable)
    /// before the agent's `git commit` or `git push`, refusing the call when one fails;
    /// `hookhost claude install --checks CMD` writes its entry.
    ChecksBeforeCommit(checks::ChecksArgs),
    /// For every configured hook: whether it runs for this input and, if not, why; then
    /// each answer and how the merge decided.
    Explain(explain::ExplainArgs),
    /// The kernel envelope every shell command the agent runs gets, derived from the
    /// owner's policy: `show` prints it whole with what this kernel enforces; `run` is the
    /// launcher hookhost rewrites each command into.
    #[command(subcommand)]
    Envelope(envelope::EnvelopeCommand),
    /// Create a hook project (Rust, TypeScript or Python): the smallest hook, one build
    /// command, a fixture for `hookhost test`, a README, and the guest SDK.
    New(scaffold::NewArgs),
    /// Print the shell view a Wasm hook gets for a Bash command (`hookhost:hooks/shell`)
    /// as JSON: every command bash would run, nested ones included. Reads the command
    /// from the argument, or stdin when none is given.
    Shell {
        /// The command text.
        command: Option<String>,
    },
    /// Fetch a Wasm component (and its signature) from an OCI registry into the local
    /// store: `oci://REGISTRY/REPOSITORY:TAG` or `…@sha256:DIGEST`.
    Pull(registry::PullArgs),
    /// Publish a Wasm component (and `FILE.minisig`, its minisign signature, if present)
    /// to an OCI registry as a Wasm artifact.
    Push(registry::PushArgs),
    /// The owner's policy as one signed OCI artifact: `build`, `push`, and on each
    /// machine `pull` (verify, activate, report) and `status`.
    #[command(subcommand)]
    Policy(policy::PolicyCommand),
    /// The OTLP export of decisions: `flush` sends what one-shot processes spooled.
    #[command(subcommand)]
    Telemetry(telemetry::TelemetryCommand),
    /// Internal: compile a component from stdin under a memory limit (see
    /// `WasmOptions::compile_worker`).
    #[command(name = "__compile-worker", hide = true)]
    CompileWorker {
        /// Address-space limit, bytes.
        #[arg(long)]
        memory_bytes: u64,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum Format {
    /// hookhost's `EventOutcome` JSON.
    Outcome,
    /// A Claude Code hook answer (JSON on stdout, exit 2 where only that blocks).
    Claude,
    /// A short human-readable summary.
    Summary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Policy {
    /// Hooks of every layer run, user before project.
    Additive,
    /// Project hooks for an event replace the user's.
    ProjectReplacesUser,
    /// Hooks of every layer run, project before user.
    ProjectFirst,
}

/// hookhost's own folders, where they are not the defaults below the owner's home
/// (the environment's `$XDG_*_HOME` is never read). `claude install` writes all three
/// into the command it installs.
#[derive(Debug, Clone, Default, Args)]
pub struct OwnerFolders {
    /// hookhost's configuration folder (user hook file, trust store, keys). Default
    /// `<home>/.config/hookhost`.
    #[arg(long, value_name = "DIR")]
    pub(crate) config_dir: Option<PathBuf>,
    /// hookhost's state folder (per-session state of one-shot runs). Default
    /// `<home>/.local/state/hookhost`.
    #[arg(long, value_name = "DIR")]
    pub(crate) state_dir: Option<PathBuf>,
    /// Directory for precompiled Wasm artifacts (components pulled from OCI registries
    /// are kept in its `oci` folder). Default `<home>/.cache/hookhost/wasm`.
    #[arg(long, value_name = "DIR")]
    pub(crate) cache_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub(crate) struct ConfigArgs {
    /// Extra settings file (or inline JSON object); repeatable.
    #[arg(long = "settings", value_name = "FILE")]
    pub(crate) settings: Vec<String>,
    /// Plugin bundle directory; repeatable.
    #[arg(long = "plugin", value_name = "DIR")]
    pub(crate) plugins: Vec<PathBuf>,
    /// Project directory (reads .claude/settings.json and settings.local.json).
    /// Defaults to the current directory.
    #[arg(long, value_name = "DIR")]
    pub(crate) project_dir: Option<PathBuf>,
    /// Home directory (reads ~/.claude/settings.json; hookhost's folders are below it).
    /// Defaults to the account's home from the password database — never `$HOME`, which
    /// the agent's host sets for every hook process.
    #[arg(long, value_name = "DIR")]
    pub(crate) home: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) folders: OwnerFolders,
    /// evva's user folder (default `<home>/.evva`; `$EVVA_HOME` is never read).
    #[arg(long, value_name = "DIR")]
    pub(crate) evva_home: Option<PathBuf>,
    /// The folder hygge reads `hygge/hooks.toml` below (default `<home>/.config`;
    /// `$XDG_CONFIG_HOME` is never read).
    #[arg(long, value_name = "DIR")]
    pub(crate) xdg_config_home: Option<PathBuf>,
    /// Managed settings file (default /etc/claude-code/managed-settings.json; with
    /// --own-files /etc/hookhost/hooks.json).
    #[arg(long, value_name = "FILE")]
    pub(crate) managed_settings: Option<PathBuf>,
    /// Read hookhost's own hook files, which Claude Code never reads, instead of the
    /// host's: /etc/hookhost/hooks.json, ~/.config/hookhost/hooks.json,
    /// .hookhost/hooks.json and .hookhost/hooks.local.json (what `hookhost claude hook`
    /// reads; give it to a `serve` that Claude Code's http entries call).
    #[arg(long)]
    pub(crate) own_files: bool,
    /// Skip ~/.claude and <project>/.claude discovery; read only --settings and --plugin.
    /// Managed settings (--managed-settings) are still read: managed policy cannot be
    /// bypassed from the command line.
    #[arg(long)]
    pub(crate) no_discover: bool,
    /// How user and project hooks combine (default: the dialect's own rule; claude:
    /// additive).
    #[arg(long, value_enum)]
    pub(crate) policy: Option<Policy>,
    /// Trust the workspace for this run: its project settings' command, http and prompt
    /// hooks run (see `hookhost trust`).
    #[arg(long)]
    pub(crate) trust_workspace: bool,
    /// Append one JSON line per fired event to FILE (overrides `hookAuditLog`).
    #[arg(long, value_name = "FILE")]
    pub(crate) audit_log: Option<PathBuf>,
    /// Wasm instances kept prepared ahead per hook once it has been called, in a
    /// long-running engine (`serve`, `test`); 0 instantiates each call on its own path.
    /// A one-shot `fire` prepares none.
    #[arg(long, value_name = "N")]
    pub(crate) prepared_instances: Option<usize>,
    /// The hook system the configuration is written for: claude, gen, hygge, evva or
    /// agent-sdk. Detected from the files found when not given (`hookhost list` says
    /// which).
    #[arg(long, value_name = "NAME")]
    pub(crate) dialect: Option<DialectId>,
    /// Extra `${NAME}` expansions from the host's environment (set by `claude hook`).
    #[arg(skip)]
    pub(crate) vars: Vec<(String, String)>,
    /// Load no project at all, only the owners' files (`serve --all-projects`' base).
    #[arg(skip)]
    pub(crate) no_project: bool,
    /// The engine is a session's broker (`serve --session-broker`): the agent runs
    /// inside the envelope, so shell commands are judged, not rewritten.
    #[arg(skip)]
    pub(crate) session_enclosed: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TrustArgs {
    /// The workspace folder (default: the current directory).
    pub(crate) dir: Option<PathBuf>,
    /// List trusted workspaces.
    #[arg(long, conflicts_with_all = ["dir", "remove"])]
    pub(crate) list: bool,
    /// Remove a workspace from the trust store.
    #[arg(long, value_name = "DIR")]
    pub(crate) remove: Option<PathBuf>,
    /// Trust `/` or the home folder itself (refused otherwise: every repository below
    /// would run its hooks unsandboxed).
    #[arg(long)]
    pub(crate) force: bool,
    /// Home directory (the store is `<home>/.config/hookhost/trusted.json` when given;
    /// otherwise `$XDG_CONFIG_HOME/hookhost/trusted.json` or `~/.config/hookhost/…`).
    #[arg(long, value_name = "DIR")]
    pub(crate) home: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct FireArgs {
    /// Event name, e.g. PreToolUse. Defaults to the input's `hook_event_name` (hygge:
    /// `event`), so
    /// `hookhost fire --format claude` works as a Claude Code command hook on any event.
    pub(crate) event: Option<String>,
    /// Event input JSON file, or `-` for standard input (the default).
    #[arg(long, value_name = "FILE")]
    pub(crate) input: Option<String>,
    /// Session id to put in the input when it has none.
    #[arg(long)]
    pub(crate) session_id: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "outcome")]
    pub(crate) format: Format,
    #[command(flatten)]
    pub(crate) config: ConfigArgs,
}

impl ConfigArgs {
    /// hookhost's own hook files for `project` (what `hookhost claude hook` reads).
    pub(crate) fn own(project: Option<PathBuf>) -> ConfigArgs {
        ConfigArgs {
            settings: Vec::new(),
            plugins: Vec::new(),
            project_dir: project,
            home: None,
            folders: OwnerFolders::default(),
            evva_home: None,
            xdg_config_home: None,
            managed_settings: None,
            own_files: true,
            no_discover: false,
            policy: None,
            trust_workspace: false,
            audit_log: None,
            prepared_instances: None,
            dialect: None,
            vars: Vec::new(),
            no_project: false,
            session_enclosed: false,
        }
    }

    /// The same with `home` as the home folder.
    pub(crate) fn with_home(mut self, home: PathBuf) -> ConfigArgs {
        self.home = Some(home);
        self
    }

    /// A folder given on the command line, made absolute against the current directory.
    pub(crate) fn absolute(dir: &std::path::Path) -> anyhow::Result<PathBuf> {
        std::path::absolute(dir).with_context(|| format!("{}: no usable path", dir.display()))
    }

    /// The home hookhost's folders are below: `--home`, else the account's.
    pub(crate) fn owner_home(&self) -> Option<PathBuf> {
        match &self.home {
            Some(home) => Self::absolute(home).ok(),
            None => hookhost::internals::home(),
        }
    }

    /// hookhost's configuration folder: `--config-dir`, else below the owner's home.
    pub(crate) fn config_folder(&self) -> Option<PathBuf> {
        match &self.folders.config_dir {
            Some(dir) => Self::absolute(dir).ok(),
            None => self
                .owner_home()
                .map(|home| hookhost::internals::config_dir_in(&home)),
        }
    }

    /// The artifact cache: `--cache-dir`, else below the owner's home.
    pub(crate) fn cache_folder(&self) -> Option<PathBuf> {
        match &self.folders.cache_dir {
            Some(dir) => Self::absolute(dir).ok(),
            None => self
                .owner_home()
                .map(|home| hookhost::internals::cache_dir_in(&home).join("wasm")),
        }
    }

    pub(crate) fn load_options(&self) -> anyhow::Result<LoadOptions> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let absolute = |dir: &PathBuf| {
            if dir.is_absolute() {
                dir.clone()
            } else {
                cwd.join(dir)
            }
        };
        let (home, project_dir) = if self.no_discover {
            (
                self.home.as_ref().map(absolute),
                self.project_dir.as_ref().map(absolute),
            )
        } else {
            (
                self.home
                    .as_ref()
                    .map(absolute)
                    .or_else(hookhost::internals::home),
                Some(
                    self.project_dir
                        .as_ref()
                        .map(absolute)
                        .unwrap_or_else(|| cwd.clone()),
                ),
            )
        };
        let project_dir = project_dir
            .filter(|_| !self.no_project)
            .map(|dir| dir.canonicalize().unwrap_or(dir));
        let mut options = LoadOptions::default();
        options.config_dir = self.config_folder();
        options.trust = if self.trust_workspace {
            Trust::Trusted
        } else {
            Trust::Discover
        };
        options.home = home;
        options.project_dir = project_dir;
        options.managed_path = self.managed_settings.clone();
        options.settings = self.settings.clone();
        options.plugins = self.plugins.clone();
        options.layering = self.policy.map(|policy| match policy {
            Policy::Additive => Layering::Additive,
            Policy::ProjectReplacesUser => Layering::ProjectReplacesUser,
            Policy::ProjectFirst => Layering::ProjectFirst,
        });
        options.dialect = self.dialect;
        options.evva_home = self
            .evva_home
            .as_deref()
            .and_then(|d| Self::absolute(d).ok());
        options.xdg_config_home = self
            .xdg_config_home
            .as_deref()
            .and_then(|d| Self::absolute(d).ok());
        options.files = if self.own_files {
            FileSet::Own
        } else {
            FileSet::Dialect
        };
        options.vars = self.vars.clone();
        Ok(options)
    }

    /// The engine of a process that stays (serve, a session's broker): it sends its
    /// decisions itself.
    pub(crate) fn engine(&self) -> Result<Engine, CliError> {
        let mut options = EngineOptions::default();
        options.export_direct = true;
        self.engine_with(options)
    }

    /// The engine for one `hookhost fire`: a pool of a few instance slots (a one-shot
    /// fire needs no more; creating and unmapping 256 slots' guard pages costs ~2 ms).
    /// With a session id, per-session state (`once`, Stop re-entry) is kept across
    /// processes in the state folder.
    pub(crate) fn one_shot_engine(&self, session_given: bool) -> Result<Engine, CliError> {
        let mut options = EngineOptions::default();
        options.wasm.max_instances = ONE_SHOT_INSTANCES;
        // One event: nothing to prepare ahead for, and no store outlives the process.
        options.wasm.prepare = hookhost::PrepareOptions::none();
        // Its thread has nothing else to do while a component loads.
        options.wasm.load_on_caller = true;
        if session_given {
            options.session_state_dir = self.state_dir();
        }
        // The process exits right after answering: its decision record waits in the
        // spool for `serve` (or `hookhost telemetry flush`) to send.
        options.export_direct = false;
        self.engine_with(options)
    }

    /// The per-session state: `--state-dir`, else below the owner's home; its
    /// `sessions` folder.
    pub(crate) fn state_dir(&self) -> Option<PathBuf> {
        self.state_base().map(|dir| dir.join("sessions"))
    }

    /// The export spool: `telemetry-spool` in hookhost's state folder.
    pub(crate) fn export_spool(&self) -> Option<PathBuf> {
        self.state_base()
            .map(|dir| dir.join(hookhost::export::spool::SPOOL_DIR))
    }

    /// hookhost's envelope folder: `envelope` in its state folder.
    pub(crate) fn envelope_dir(&self) -> Option<PathBuf> {
        self.state_base().map(|dir| dir.join("envelope"))
    }

    /// hookhost's state folder: `--state-dir`, else below the owner's home.
    pub(crate) fn state_folder(&self) -> Option<PathBuf> {
        self.state_base()
    }

    /// hookhost's state folder: `--state-dir`, else below the owner's home.
    fn state_base(&self) -> Option<PathBuf> {
        match &self.folders.state_dir {
            Some(dir) => Self::absolute(dir).ok(),
            None => self
                .owner_home()
                .map(|home| hookhost::internals::state_dir_in(&home)),
        }
    }

    pub(crate) fn engine_with(&self, mut options: EngineOptions) -> Result<Engine, CliError> {
        options.wasm.cache_dir = self.cache_folder();
        options.wasm.config_dir = self.config_folder();
        // Components pulled from registries sit beside the artifacts they compile to.
        options.wasm.oci_dir = options.wasm.cache_dir.as_ref().map(|dir| dir.join("oci"));
        // Compile in a child process of this very binary: memory- and time-bounded.
        options.wasm.compile_worker = std::env::current_exe().ok();
        options.audit_log = self.audit_log.clone();
        options.envelope_dir = self.envelope_dir();
        options.session_enclosed = self.session_enclosed;
        options.envelope_launcher = super::command_line::envelope_launcher();
        options.export_spool = self.export_spool();
        if let Some(per_hook) = self.prepared_instances {
            options.wasm.prepare.per_hook = per_hook;
        }
        Engine::load(&self.load_options()?, options)
            .context("cannot start the engine")
            .map_err(CliError::Internal)
    }
}

/// Instance slots of a one-shot `fire` (more concurrent Wasm hooks wait for a slot, a few
/// microseconds each).
pub(crate) const ONE_SHOT_INSTANCES: u32 = 8;

/// hookhost's configuration folder: `<home>/.config/hookhost` when `--home` is given,
/// else the account's; `None` when the account has no home.
pub(crate) fn config_dir(home: Option<PathBuf>) -> Option<PathBuf> {
    match home {
        Some(home) => Some(hookhost::internals::config_dir_in(&home)),
        None => hookhost::internals::config_dir(),
    }
}

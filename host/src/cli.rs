//! The `hookhost` command line: `fire`, `check`, `list`, `trust`, `serve`, and the
//! author tools `test` and `new`.

mod cache;
mod cases;
mod claude;
mod explain;
mod registry;
mod scaffold;
mod serve;

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};

use hookhost::{
    DialectId, Engine, EngineOptions, FileSet, LoadOptions, Severity, Trust, TrustStore,
    internals::Layering,
};

/// Why `hookhost` could not do what it was asked: the one error type of the CLI, and
/// the exit status each kind maps to.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad arguments or unreadable input: exit 64 (`EX_USAGE`).
    #[error("{0:#}")]
    Usage(anyhow::Error),
    /// hookhost itself failed (the engine could not start, output could not be
    /// written): exit 70 (`EX_SOFTWARE`).
    #[error("{0:#}")]
    Internal(anyhow::Error),
}

impl CliError {
    /// The process exit status.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage(_) => ExitCode::from(64),
            CliError::Internal(_) => ExitCode::from(70),
        }
    }
}

/// Errors from the argument and input side are usage errors unless marked otherwise.
impl From<anyhow::Error> for CliError {
    fn from(err: anyhow::Error) -> Self {
        CliError::Usage(err)
    }
}

impl From<serde_json::Error> for CliError {
    fn from(err: serde_json::Error) -> Self {
        CliError::Internal(err.into())
    }
}

/// What a command returns.
pub type CliResult = Result<ExitCode, CliError>;

/// Hook engine for AI coding-agent hosts.
#[derive(Debug, Parser)]
#[command(name = "hookhost", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
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
    /// For every configured hook: whether it runs for this input and, if not, why; then
    /// each answer and how the merge decided.
    Explain(explain::ExplainArgs),
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
enum Format {
    /// hookhost's `EventOutcome` JSON.
    Outcome,
    /// A Claude Code hook answer (JSON on stdout, exit 2 where only that blocks).
    Claude,
    /// A short human-readable summary.
    Summary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Policy {
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
    config_dir: Option<PathBuf>,
    /// hookhost's state folder (per-session state of one-shot runs). Default
    /// `<home>/.local/state/hookhost`.
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Directory for precompiled Wasm artifacts (components pulled from OCI registries
    /// are kept in its `oci` folder). Default `<home>/.cache/hookhost/wasm`.
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
struct ConfigArgs {
    /// Extra settings file (or inline JSON object); repeatable.
    #[arg(long = "settings", value_name = "FILE")]
    settings: Vec<String>,
    /// Plugin bundle directory; repeatable.
    #[arg(long = "plugin", value_name = "DIR")]
    plugins: Vec<PathBuf>,
    /// Project directory (reads .claude/settings.json and settings.local.json).
    /// Defaults to the current directory.
    #[arg(long, value_name = "DIR")]
    project_dir: Option<PathBuf>,
    /// Home directory (reads ~/.claude/settings.json; hookhost's folders are below it).
    /// Defaults to the account's home from the password database — never `$HOME`, which
    /// the agent's host sets for every hook process.
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    #[command(flatten)]
    folders: OwnerFolders,
    /// evva's user folder (default `<home>/.evva`; `$EVVA_HOME` is never read).
    #[arg(long, value_name = "DIR")]
    evva_home: Option<PathBuf>,
    /// The folder hygge reads `hygge/hooks.toml` below (default `<home>/.config`;
    /// `$XDG_CONFIG_HOME` is never read).
    #[arg(long, value_name = "DIR")]
    xdg_config_home: Option<PathBuf>,
    /// Managed settings file (default /etc/claude-code/managed-settings.json; with
    /// --own-files /etc/hookhost/hooks.json).
    #[arg(long, value_name = "FILE")]
    managed_settings: Option<PathBuf>,
    /// Read hookhost's own hook files, which Claude Code never reads, instead of the
    /// host's: /etc/hookhost/hooks.json, ~/.config/hookhost/hooks.json,
    /// .hookhost/hooks.json and .hookhost/hooks.local.json (what `hookhost claude hook`
    /// reads; give it to a `serve` that Claude Code's http entries call).
    #[arg(long)]
    own_files: bool,
    /// Skip ~/.claude and <project>/.claude discovery; read only --settings and --plugin.
    /// Managed settings (--managed-settings) are still read: managed policy cannot be
    /// bypassed from the command line.
    #[arg(long)]
    no_discover: bool,
    /// How user and project hooks combine (default: the dialect's own rule; claude:
    /// additive).
    #[arg(long, value_enum)]
    policy: Option<Policy>,
    /// Trust the workspace for this run: its project settings' command, http and prompt
    /// hooks run (see `hookhost trust`).
    #[arg(long)]
    trust_workspace: bool,
    /// Append one JSON line per fired event to FILE (overrides `hookAuditLog`).
    #[arg(long, value_name = "FILE")]
    audit_log: Option<PathBuf>,
    /// Wasm instances kept prepared ahead per hook once it has been called, in a
    /// long-running engine (`serve`, `test`); 0 instantiates each call on its own path.
    /// A one-shot `fire` prepares none.
    #[arg(long, value_name = "N")]
    prepared_instances: Option<usize>,
    /// The hook system the configuration is written for: claude, gen, hygge, evva or
    /// agent-sdk. Detected from the files found when not given (`hookhost list` says
    /// which).
    #[arg(long, value_name = "NAME")]
    dialect: Option<DialectId>,
    /// Extra `${NAME}` expansions from the host's environment (set by `claude hook`).
    #[arg(skip)]
    vars: Vec<(String, String)>,
    /// Load no project at all, only the owners' files (`serve --all-projects`' base).
    #[arg(skip)]
    no_project: bool,
}

#[derive(Debug, Args)]
struct TrustArgs {
    /// The workspace folder (default: the current directory).
    dir: Option<PathBuf>,
    /// List trusted workspaces.
    #[arg(long, conflicts_with_all = ["dir", "remove"])]
    list: bool,
    /// Remove a workspace from the trust store.
    #[arg(long, value_name = "DIR")]
    remove: Option<PathBuf>,
    /// Trust `/` or the home folder itself (refused otherwise: every repository below
    /// would run its hooks unsandboxed).
    #[arg(long)]
    force: bool,
    /// Home directory (the store is `<home>/.config/hookhost/trusted.json` when given;
    /// otherwise `$XDG_CONFIG_HOME/hookhost/trusted.json` or `~/.config/hookhost/…`).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct FireArgs {
    /// Event name, e.g. PreToolUse. Defaults to the input's `hook_event_name` (hygge:
    /// `event`), so
    /// `hookhost fire --format claude` works as a Claude Code command hook on any event.
    event: Option<String>,
    /// Event input JSON file, or `-` for standard input (the default).
    #[arg(long, value_name = "FILE")]
    input: Option<String>,
    /// Session id to put in the input when it has none.
    #[arg(long)]
    session_id: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "outcome")]
    format: Format,
    #[command(flatten)]
    config: ConfigArgs,
}

impl ConfigArgs {
    /// hookhost's own hook files for `project` (what `hookhost claude hook` reads).
    fn own(project: Option<PathBuf>) -> ConfigArgs {
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
        }
    }

    /// The same with `home` as the home folder.
    fn with_home(mut self, home: PathBuf) -> ConfigArgs {
        self.home = Some(home);
        self
    }

    /// A folder given on the command line, made absolute against the current directory.
    fn absolute(dir: &std::path::Path) -> anyhow::Result<PathBuf> {
        std::path::absolute(dir).with_context(|| format!("{}: no usable path", dir.display()))
    }

    /// The home hookhost's folders are below: `--home`, else the account's.
    fn owner_home(&self) -> Option<PathBuf> {
        match &self.home {
            Some(home) => Self::absolute(home).ok(),
            None => hookhost::internals::home(),
        }
    }

    /// hookhost's configuration folder: `--config-dir`, else below the owner's home.
    fn config_folder(&self) -> Option<PathBuf> {
        match &self.folders.config_dir {
            Some(dir) => Self::absolute(dir).ok(),
            None => self
                .owner_home()
                .map(|home| hookhost::internals::config_dir_in(&home)),
        }
    }

    /// The artifact cache: `--cache-dir`, else below the owner's home.
    fn cache_folder(&self) -> Option<PathBuf> {
        match &self.folders.cache_dir {
            Some(dir) => Self::absolute(dir).ok(),
            None => self
                .owner_home()
                .map(|home| hookhost::internals::cache_dir_in(&home).join("wasm")),
        }
    }

    fn load_options(&self) -> anyhow::Result<LoadOptions> {
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

    fn engine(&self) -> Result<Engine, CliError> {
        self.engine_with(EngineOptions::default())
    }

    /// The engine for one `hookhost fire`: a pool of a few instance slots (a one-shot
    /// fire needs no more; creating and unmapping 256 slots' guard pages costs ~2 ms).
    /// With a session id, per-session state (`once`, Stop re-entry) is kept across
    /// processes in the state folder.
    fn one_shot_engine(&self, session_given: bool) -> Result<Engine, CliError> {
        let mut options = EngineOptions::default();
        options.wasm.max_instances = ONE_SHOT_INSTANCES;
        // One event: nothing to prepare ahead for, and no store outlives the process.
        options.wasm.prepare = hookhost::PrepareOptions::none();
        // Its thread has nothing else to do while a component loads.
        options.wasm.load_on_caller = true;
        if session_given {
            options.session_state_dir = self.state_dir();
        }
        self.engine_with(options)
    }

    /// The per-session state: `--state-dir`, else below the owner's home; its
    /// `sessions` folder.
    fn state_dir(&self) -> Option<PathBuf> {
        let base = match &self.folders.state_dir {
            Some(dir) => Self::absolute(dir).ok(),
            None => self
                .owner_home()
                .map(|home| hookhost::internals::state_dir_in(&home)),
        };
        base.map(|dir| dir.join("sessions"))
    }

    fn engine_with(&self, mut options: EngineOptions) -> Result<Engine, CliError> {
        options.wasm.cache_dir = self.cache_folder();
        options.wasm.config_dir = self.config_folder();
        // Components pulled from registries sit beside the artifacts they compile to.
        options.wasm.oci_dir = options.wasm.cache_dir.as_ref().map(|dir| dir.join("oci"));
        // Compile in a child process of this very binary: memory- and time-bounded.
        options.wasm.compile_worker = std::env::current_exe().ok();
        options.audit_log = self.audit_log.clone();
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
const ONE_SHOT_INSTANCES: u32 = 8;

/// hookhost's configuration folder: `<home>/.config/hookhost` when `--home` is given,
/// else the account's; `None` when the account has no home.
fn config_dir(home: Option<PathBuf>) -> Option<PathBuf> {
    match home {
        Some(home) => Some(hookhost::internals::config_dir_in(&home)),
        None => hookhost::internals::config_dir(),
    }
}

/// The whole program: parses arguments, runs, and maps the result to the exit code
/// (64 for usage errors and unreadable input, otherwise the command's own code).
pub fn main() -> ExitCode {
    // A bad flag must never exit 2: a host such as Claude Code reads exit 2 from a hook
    // command as "block" and would hand the usage text to the model on every call.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() { 64 } else { 0 };
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
    // Under Claude Code, stderr of a blocking answer goes to the model: `claude hook`
    // logs nothing unless HOOKHOST_LOG asks. Colour only on a terminal.
    let quiet = matches!(cli.command, Command::Claude(claude::ClaudeCommand::Hook(_)));
    use std::io::IsTerminal;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HOOKHOST_LOG")
                .unwrap_or_else(|_| if quiet { "off" } else { "warn" }.into()),
        )
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
    if let Command::CompileWorker { memory_bytes } = cli.command {
        return ExitCode::from(hookhost::internals::compile_worker_main(memory_bytes) as u8);
    }
    // A one-shot fire runs on the calling thread (starting worker threads costs more than
    // its hooks need); the long-running commands get the multi-thread runtime.
    let mut builder = match cli.command {
        Command::Fire(_) | Command::Claude(claude::ClaudeCommand::Hook(_)) => {
            tokio::runtime::Builder::new_current_thread()
        }
        _ => tokio::runtime::Builder::new_multi_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("hookhost: cannot start the async runtime: {err}");
            return ExitCode::from(70);
        }
    };
    let code = match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("hookhost: {err}");
            err.exit_code()
        }
    };
    // The answer is out. A guest may have left a host thread blocked (a read from a FIFO
    // in a granted folder cannot be interrupted); do not wait for such threads.
    use std::io::Write;
    let _ = std::io::stdout().flush();
    runtime.shutdown_background();
    code
}

/// `hookhost shell`: the shell view of one command, as JSON.
fn shell_view(command: Option<String>) -> CliResult {
    let text = match command {
        Some(text) => text,
        None => {
            let mut text = String::new();
            std::io::stdin()
                .take(hookhost::internals::shell::MAX_SCRIPT_BYTES as u64 + 1)
                .read_to_string(&mut text)
                .map_err(|err| CliError::Usage(anyhow::anyhow!("cannot read stdin: {err}")))?;
            text
        }
    };
    let view = hookhost::internals::shell::parse(&text);
    let json = serde_json::to_string_pretty(&view)
        .map_err(|err| CliError::Internal(anyhow::anyhow!("cannot print the view: {err}")))?;
    println!("{json}");
    Ok(ExitCode::SUCCESS)
}

/// Runs a parsed command line and returns the process exit code.
pub async fn run(cli: Cli) -> CliResult {
    match cli.command {
        Command::Fire(args) => fire(args).await,
        Command::Check(args) => check(&args).await,
        Command::List(args) => list(&args).await,
        Command::Trust(args) => trust(&args),
        Command::Serve(args) => serve::serve(args).await,
        Command::Test(args) => cases::run(args).await.map_err(CliError::Usage),
        Command::New(args) => scaffold::run(args).map_err(CliError::Usage),
        Command::Claude(command) => claude::run(command).await,
        Command::Cache(args) => cache::run(&args),
        Command::Explain(args) => explain::run(args).await,
        Command::Shell { command } => shell_view(command),
        Command::Pull(args) => registry::pull(&args),
        Command::Push(args) => registry::push(&args),
        Command::CompileWorker { .. } => Err(CliError::Usage(anyhow::anyhow!(
            "__compile-worker runs only as hookhost's own child"
        ))),
    }
}

/// Largest event input `fire` reads; beyond it the input is refused (a block where a
/// failClosed hook guards the event).
const FIRE_MAX_INPUT: usize = 16 << 20;

fn read_input(input: Option<&str>) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    // One byte more than the limit: the front door tells oversize from exactly full.
    let cap = FIRE_MAX_INPUT as u64 + 1;
    match input {
        None | Some("-") => {
            std::io::stdin()
                .take(cap)
                .read_to_end(&mut bytes)
                .context("cannot read the event input from standard input")?;
        }
        Some(path) => {
            // A file over the limit is read up to it, as standard input is: the front
            // door then gives the one answer an oversize input gets.
            let file = hookhost::internals::open_regular(std::path::Path::new(path), u64::MAX)
                .with_context(|| format!("cannot read the event input file {path}"))?;
            file.take(cap)
                .read_to_end(&mut bytes)
                .with_context(|| format!("cannot read the event input file {path}"))?;
        }
    }
    Ok(bytes)
}

/// Whether a hookhost process (this same executable) that runs hooks is among this
/// process's ancestors (the case runner `hookhost test` runs `fire` itself, not as a hook).
/// Judged from the process tree, never from the environment: a project's settings can set
/// any variable for hook processes, and a variable must not switch the guards off.
/// Linux reads `/proc`; elsewhere nothing is known and hooks always run (see
/// `platform::nearest_ancestor_of_this_program`).
fn started_by_hookhost() -> bool {
    // The nearest hookhost decides: `hookhost test` runs `fire` for its cases (not as a
    // hook); any other hookhost ran this process as a hook.
    hookhost::internals::platform::nearest_ancestor_of_this_program()
        .is_some_and(|subcommand| subcommand != b"test")
}

/// Whether `needle` occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// Prints `outcome` in the chosen format and returns the exit code.
fn print_outcome(format: Format, outcome: &hookhost::EventOutcome) -> CliResult {
    match format {
        Format::Outcome => {
            write_stdout(&format!("{}\n", serde_json::to_string_pretty(outcome)?));
            Ok(ExitCode::SUCCESS)
        }
        Format::Summary => {
            write_stdout(&summary(outcome));
            Ok(ExitCode::SUCCESS)
        }
        Format::Claude => {
            let answer = outcome.to_claude_reply();
            let text = match &answer.plain {
                Some(text) => text.clone(),
                None => answer.stdout.to_string(),
            };
            let mut code = answer.exit_code as u8;
            let mut stderr = answer.stderr;
            if !write_stdout(&format!("{text}\n")) && outcome.should_block && code != 2 {
                // The answer's JSON could not be delivered; a block still is, the way
                // every Claude Code version reads it: exit 2, the reason on stderr.
                code = 2;
                stderr = Some(
                    outcome
                        .block_reason
                        .clone()
                        .unwrap_or_else(|| "blocked by a hook".into()),
                );
            }
            if let Some(stderr) = stderr {
                write_stderr(&format!("{stderr}\n"));
            }
            Ok(ExitCode::from(code))
        }
    }
}

/// Writes `text` to stdout; `false` if it could not (a reader that went away is not a
/// crash: the exit code still carries the answer).
fn write_stdout(text: &str) -> bool {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_ok()
}

/// Writes `text` to stderr, ignoring a closed stream.
pub(crate) fn write_stderr(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// `hookhost fire`: a thin adapter over the front door ([`hookhost::Engine::answer`]).
async fn fire(args: FireArgs) -> CliResult {
    // An input that cannot be read is answered by the front door like any other bad
    // input (a failClosed guard's block), whichever way it came.
    let (bytes, unreadable) = match read_input(args.input.as_deref()) {
        Ok(bytes) => (bytes, None),
        Err(err) => (Vec::new(), Some(format!("{err:#}"))),
    };
    // Never recursive: a `hookhost fire` that hookhost itself started (through a command
    // hook) does not run the hooks again — the hookhost that started it already runs them.
    if started_by_hookhost() {
        write_stderr("hookhost: started by a hook hookhost runs; not running hooks again\n");
        let event = args
            .event
            .clone()
            .or_else(|| hookhost::internals::sniff_event(&bytes))
            .unwrap_or_default();
        return print_outcome(args.format, &hookhost::EventOutcome::empty(&event));
    }
    // A session id given (flag or input) names state worth keeping across processes;
    // without one there is no session to remember.
    let session_given = args.session_id.is_some() || contains(&bytes, b"\"session_id\"");
    let engine = args.config.one_shot_engine(session_given)?;
    for diagnostic in engine.diagnostics() {
        write_stderr(&format!("hookhost: {diagnostic}\n"));
    }
    let session = args.session_id.as_deref().unwrap_or("hookhost-cli");
    let limits = hookhost::RequestLimits::new(FIRE_MAX_INPUT, false);
    let answer = match unreadable {
        Some(why) => engine.refuse(
            args.event.as_deref(),
            &bytes,
            hookhost::Failure::Unreadable(why),
        ),
        None => {
            engine
                .answer(
                    hookhost::Request::new(&bytes, session, &limits).event(args.event.as_deref()),
                )
                .await
        }
    };
    let outcome = match answer {
        hookhost::Answer::Outcome(outcome) => *outcome,
        hookhost::Answer::Failed(failure @ hookhost::Failure::Internal(_)) => {
            return Err(CliError::Internal(failure.into()));
        }
        hookhost::Answer::Failed(failure) => return Err(CliError::Usage(failure.into())),
    };
    engine.close().await;
    // The process ends right after the answer: the OS reclaims the engine (its instance
    // pool's mappings) faster than dropping it would.
    std::mem::forget(engine);
    print_outcome(args.format, &outcome)
}

async fn check(args: &ConfigArgs) -> CliResult {
    let engine = args.engine()?;
    // Compile every component now: `check` is where a bad or oversized one should show.
    let mut diagnostics = engine.diagnostics().to_vec();
    diagnostics.extend(engine.prepare_all().await);
    println!("{}", dialect_line(&engine));
    for diagnostic in &diagnostics {
        println!("{diagnostic}");
    }
    for hook in engine.hooks() {
        if !hook.trusted && hook.executor != hookhost::ExecutorKind::Wasm {
            println!(
                "untrusted: {}: {}: {} hook {} is skipped until the workspace is trusted",
                hook.file, hook.location, hook.executor, hook.name
            );
        }
        if let Some(digest) = &hook.sha256 {
            let provenance = hook
                .provenance
                .as_deref()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default();
            println!(
                "wasm: {}: {}: {} sha256:{digest}{provenance}",
                hook.file, hook.location, hook.name
            );
        }
    }
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    println!(
        "{} hooks loaded, {errors} errors, {} warnings",
        engine.hooks().len(),
        diagnostics.len() - errors
    );
    Ok(if errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn trust(args: &TrustArgs) -> CliResult {
    let cwd = std::env::current_dir()
        .context("cannot read the current directory")
        .map_err(CliError::Usage)?;
    let home = args.home.as_ref().map(|h| cwd.join(h));
    let Some(config) = config_dir(home.clone()) else {
        return Err(CliError::Usage(anyhow::anyhow!(
            "no usable home: the account has no home folder; give --home"
        )));
    };
    let store = TrustStore::in_dir(&config);
    let failed = |err: hookhost::TrustError| CliError::Internal(err.into());
    if args.list {
        for dir in store.list().map_err(failed)? {
            println!("{}", dir.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(dir) = &args.remove {
        return if store.remove(&cwd.join(dir)).map_err(failed)? {
            println!("removed {}", dir.display());
            Ok(ExitCode::SUCCESS)
        } else {
            Err(CliError::Usage(anyhow::anyhow!(
                "{} is not in the trust store {}",
                dir.display(),
                store.path().display()
            )))
        };
    }
    let dir = cwd.join(args.dir.clone().unwrap_or_default());
    let home = home.or_else(hookhost::internals::home);
    let added = store
        .add(&dir, home.as_deref(), args.force)
        .map_err(|err| CliError::Usage(err.into()))?;
    println!(
        "trusted {} (store {})",
        added.display(),
        store.path().display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The line naming the dialect and why it was chosen.
fn dialect_line(engine: &Engine) -> String {
    match engine.dialect_detected_from() {
        Some(file) => format!(
            "dialect: {} (detected from {})",
            engine.dialect().name,
            file.display()
        ),
        None => format!("dialect: {}", engine.dialect().name),
    }
}

async fn list(args: &ConfigArgs) -> CliResult {
    let engine = args.engine()?;
    println!("{}", dialect_line(&engine));
    // Components from registries are resolved (and their signatures checked) to show
    // what runs; local files are left for `check` to compile.
    let from_registry = |hook: &hookhost::HookInfo| {
        hook.component
            .as_deref()
            .is_some_and(|c| hookhost::oci::OciRef::is_oci(&c.to_string_lossy()))
    };
    if engine.hooks().iter().any(from_registry) {
        engine.prepare_all().await;
    }
    let mut hooks = engine.hooks();
    if engine.dialect().listing == hookhost::internals::Listing::ByName {
        // hygge's listing: one line per hook name, sorted by name.
        for hook in hooks {
            println!(
                "  [{}] {} ({}) — {}",
                hook.executor, hook.name, hook.source, hook.file
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    hooks.sort_by(|a, b| a.event.cmp(&b.event));
    let mut current = String::new();
    for hook in hooks {
        if hook.event != current {
            println!("{}:", hook.event);
            current = hook.event.clone();
        }
        let matcher = hook.matcher.as_deref().unwrap_or("*");
        let trust = match (hook.trusted, hook.executor) {
            (true, _) => "",
            (false, hookhost::ExecutorKind::Wasm) => " [untrusted: sandboxed, grants bounded]",
            (false, _) => " [untrusted: skipped]",
        };
        println!(
            "  [{}] {:<10} {} ({}) — {}{trust}",
            hook.executor, matcher, hook.name, hook.source, hook.file
        );
        if from_registry(&hook) {
            match (&hook.sha256, &hook.provenance) {
                (Some(digest), provenance) => println!(
                    "      sha256:{digest}{}",
                    provenance
                        .as_deref()
                        .map(|p| format!(" ({p})"))
                        .unwrap_or_default()
                ),
                (None, _) => println!("      not loaded (hookhost check says why)"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    hookhost::internals::shorten(&flat, max)
}

/// A hook status as the outcome JSON names it (`success`, `blocking`, …).
fn status_name(status: hookhost::HookStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A few lines a person can read: the decision, then one line per hook.
fn summary(outcome: &hookhost::EventOutcome) -> String {
    let mut lines = Vec::new();
    let verdict = if outcome.should_block {
        format!(
            "BLOCKED: {}",
            one_line(outcome.block_reason.as_deref().unwrap_or(""), 160)
        )
    } else if let Some(decision) = &outcome.permission_decision {
        decision.as_str().to_uppercase()
    } else {
        "no objection".to_string()
    };
    lines.push(format!("{} → {verdict}", outcome.event));
    if let Some(input) = &outcome.updated_input {
        lines.push(format!(
            "  updated input: {}",
            one_line(&input.to_string(), 160)
        ));
    }
    if let Some(context) = &outcome.additional_context {
        lines.push(format!("  context: {}", one_line(context, 160)));
    }
    if let Some(message) = &outcome.system_message {
        lines.push(format!("  system message: {}", one_line(message, 160)));
    }
    for hook in &outcome.hooks {
        let status = status_name(hook.status);
        let error = hook
            .error
            .as_deref()
            .map(|e| format!(" ({})", one_line(e, 100)))
            .unwrap_or_default();
        lines.push(format!(
            "  - [{}] {} from {}: {status} in {:.2} ms{error}",
            hook.executor,
            one_line(&hook.name, 60),
            hook.source,
            hook.duration_ms
        ));
    }
    lines.join("\n") + "\n"
}

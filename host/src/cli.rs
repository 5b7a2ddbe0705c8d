//! The `hookhost` command line: `fire`, `check`, `list`, `trust`, `serve`, and the
//! author tools `test` and `new`.

mod agent_hook;
mod agent_install;
mod args;
mod cache;
mod cases;
mod checks;
mod claude;
mod command_line;
mod envelope;
mod explain;
mod guards;
mod home;
mod policy;
mod registry;
mod scaffold;
mod serve;
mod settings_file;
mod telemetry;
mod warm_unit;

use std::io::Read;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;

pub use args::Cli;
use args::*;

use hookhost::{Engine, Severity, TrustStore};

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
pub type CliResult<T = ExitCode> = Result<T, CliError>;

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
    let quiet = matches!(
        cli.command,
        Command::Claude(claude::ClaudeCommand::Hook(_)) | Command::Hook(_)
    );
    use std::io::IsTerminal;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HOOKHOST_LOG")
                .unwrap_or_else(|_| if quiet { "off" } else { "warn" }.into()),
        )
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
    // Commands that only print end quietly when their reader goes (`hookhost list | head`);
    // a command that runs hooks keeps SIGPIPE ignored (a hook closing its stdin is an
    // error to report, not the end of hookhost).
    if matches!(
        cli.command,
        Command::List(_)
            | Command::Status(_)
            | Command::Trust(_)
            | Command::Cache(_)
            | Command::Shell { .. }
            | Command::Policy(policy::PolicyCommand::Status(_))
    ) {
        hookhost::internals::platform::quiet_when_output_closes();
    }
    // The launcher enters namespaces, which a process with a second thread cannot.
    if let Command::Envelope(envelope::EnvelopeCommand::Run(args)) = &cli.command {
        return envelope::run(args);
    }
    if let Command::CompileWorker { memory_bytes } = cli.command {
        return ExitCode::from(hookhost::internals::compile_worker_main(memory_bytes) as u8);
    }
    // A one-shot fire runs on the calling thread (starting worker threads costs more than
    // its hooks need); the long-running commands get the multi-thread runtime.
    let mut builder = match cli.command {
        Command::Fire(_) | Command::Claude(claude::ClaudeCommand::Hook(_)) | Command::Hook(_) => {
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
        Command::Hook(args) => Ok(agent_hook::run(args).await),
        Command::Install(args) => agent_install::install(&args),
        Command::Uninstall(args) => agent_install::uninstall(&args),
        Command::Status(args) => agent_install::status(&args),
        Command::ChecksBeforeCommit(args) => checks::run(&args),
        Command::Cache(args) => cache::run(&args),
        Command::Explain(args) => explain::run(args).await,
        Command::Envelope(envelope::EnvelopeCommand::Show(args)) => envelope::show(*args),
        Command::Envelope(envelope::EnvelopeCommand::Session(args)) => {
            envelope::session(args).await
        }
        // Dispatched before the runtime starts (see `main`).
        Command::Envelope(envelope::EnvelopeCommand::Run(_)) => Ok(ExitCode::from(70)),
        Command::Shell { command } => shell_view(command),
        Command::Pull(args) => registry::pull(&args),
        Command::Push(args) => registry::push(&args),
        Command::Policy(command) => policy::run(command),
        Command::Telemetry(command) => telemetry::run(command),
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
/// `platform::started_by_hookhost`).
fn started_by_hookhost() -> bool {
    std::env::current_exe()
        .is_ok_and(|exe| hookhost::internals::platform::started_by_hookhost(&exe))
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
    let outcome = match answer.into_result() {
        Ok(outcome) => outcome,
        Err(failure @ hookhost::Failure::Internal(_)) => {
            return Err(CliError::Internal(failure.into()));
        }
        Err(failure) => return Err(CliError::Usage(failure.into())),
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
    // hookhost's own files run only where an agent's hook files call hookhost for the
    // event: say where one does not.
    let unwired = match (args.own_files, args.owner_home()) {
        (true, Some(home)) => {
            let project = match &args.project_dir {
                Some(dir) => ConfigArgs::absolute(dir).map_err(CliError::Usage)?,
                None => std::env::current_dir()
                    .context("cannot read the current directory")
                    .map_err(CliError::Usage)?,
            };
            agent_install::unwired(&engine, &home, &project)
        }
        _ => Vec::new(),
    };
    for line in &unwired {
        println!("not wired: {line}");
    }
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    println!(
        "{} hooks loaded, {errors} errors, {} warnings",
        engine.hooks().len(),
        diagnostics.len() - errors + unwired.len()
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
        hook.component.as_deref().is_some_and(|c| {
            let c = c.to_string_lossy();
            hookhost::OciRef::is_oci(&c) || hookhost::Builtin::is_builtin(&c)
        })
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

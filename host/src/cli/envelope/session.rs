//! `hookhost envelope session -- AGENT ARGS…`: the whole agent session inside the owner's
//! envelope, for agents whose hooks cannot carry a rewritten command (Cursor, OpenCode,
//! Factory) — or any agent, for a session where the file tools are bounded too.
//!
//! Three processes: this one (outside, waits and cleans up), the session's broker (a
//! `hookhost serve --session-broker` on a unix socket in a fresh private folder, in a
//! process group of its own so the terminal's Ctrl-C reaches only the agent) and the
//! launcher (enters the envelope, shows the broker's folder at the fixed place the
//! agent's hook processes look, starts the agent). When the agent ends, the broker is
//! stopped and its folder removed; the agent's exit status is this command's.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use clap::Args;
use tokio::io::AsyncBufReadExt;

use super::super::{CliError, CliResult, ConfigArgs, OwnerFolders};
use hookhost::envelope::session;

/// How long the broker may take to start (it compiles the owner's components first).
const BROKER_START: Duration = Duration::from_secs(120);

#[derive(Debug, Args)]
pub(crate) struct SessionArgs {
    /// The owner's home (default: the account's home from the password database).
    #[arg(long, value_name = "DIR")]
    pub(crate) home: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) folders: OwnerFolders,
    /// A folder the session may write besides the envelope's writable ones — the agent's
    /// own state (`~/.cursor`, `~/.local/share/opencode`, `~/.factory`); repeatable.
    /// Hook files inside stay read-only.
    #[arg(long, value_name = "DIR")]
    pub(crate) writable: Vec<PathBuf>,
    /// The agent to start, and its arguments.
    #[arg(last = true, required = true)]
    pub(crate) program: Vec<String>,
}

/// Runs `args.program` inside the owner's envelope, its hooks answered by a broker.
pub(crate) async fn run(args: SessionArgs) -> CliResult {
    let project = std::env::current_dir().context("cannot read the working folder")?;
    let mut writable = Vec::new();
    for dir in &args.writable {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
        if !dir.is_dir() {
            return Err(CliError::Usage(anyhow!(
                "--writable {}: not a folder",
                dir.display()
            )));
        }
        writable.push(dir);
    }
    let mut config = ConfigArgs::own(Some(project.clone()));
    config.home = args.home.clone();
    config.folders = args.folders.clone();
    let engine = config.engine()?;
    let (file, placeholders) = match engine.envelope() {
        None => {
            return Err(CliError::Usage(anyhow!(
                "no envelope: the owners' settings do not switch it on (`\"envelope\": true` in the user's or managed hook file), so there is nothing to start the session inside"
            )));
        }
        Some((_, Some(refusal))) => {
            return Err(CliError::Internal(anyhow!(
                "the session was not started: {refusal}"
            )));
        }
        Some((envelope, None)) => {
            let dir = config
                .envelope_dir()
                .context("no state folder to keep the envelope in")?;
            let placeholders = session::make_placeholders(envelope)
                .map_err(|why| anyhow!("the session was not started: {why}"))?;
            (envelope.file_in(&dir), placeholders)
        }
    };
    engine.close().await;
    let dir = file.parent().unwrap_or(Path::new("/")).to_path_buf();
    let broker_folder = match new_private_folder(&dir) {
        Ok(folder) => folder,
        Err(err) => {
            session::remove_placeholders(&placeholders);
            return Err(err.into());
        }
    };
    let result = enclosed(&args, &writable, &config, &project, &file, &broker_folder).await;
    let _ = std::fs::remove_dir_all(&broker_folder);
    session::remove_placeholders(&placeholders);
    result
}

/// The broker started, then the agent inside the envelope; the agent's exit status.
async fn enclosed(
    args: &SessionArgs,
    writable: &[PathBuf],
    config: &ConfigArgs,
    project: &Path,
    file: &Path,
    broker_folder: &Path,
) -> CliResult {
    let log = broker_folder.with_extension("log");
    let mut broker = start_broker(config, project, broker_folder, &log).await?;
    // Ctrl-C and its kin are the agent's (it interrupts a turn with them): this process
    // waits them out; a hang-up or a stop ends the session.
    let mut interrupt = signal(tokio::signal::unix::SignalKind::interrupt())?;
    let mut quit = signal(tokio::signal::unix::SignalKind::quit())?;
    let mut hangup = signal(tokio::signal::unix::SignalKind::hangup())?;
    let mut terminate = signal(tokio::signal::unix::SignalKind::terminate())?;
    let launcher = super::super::command_line::envelope_launcher().context("no hookhost binary")?;
    let mut command = tokio::process::Command::new(&launcher);
    if launcher
        .file_stem()
        .is_none_or(|stem| stem != "hookhost-envelope")
    {
        command.args(["envelope", "run"]);
    }
    command
        .arg("--envelope")
        .arg(file)
        .arg("--session-broker")
        .arg(broker_folder);
    for dir in writable {
        command.arg("--session-writable").arg(dir);
    }
    command.arg("--").args(&args.program);
    let mut agent = command
        .spawn()
        .with_context(|| format!("cannot start {}", launcher.display()))?;
    let status = loop {
        tokio::select! {
            status = agent.wait() => break status.context("cannot wait for the agent")?,
            _ = interrupt.recv() => {}
            _ = quit.recv() => {}
            _ = hangup.recv() => terminate_child(&agent),
            _ = terminate.recv() => terminate_child(&agent),
        }
    };
    let _ = broker.start_kill();
    let _ = broker.wait().await;
    let _ = std::fs::remove_file(&log);
    Ok(exit_code(status))
}

/// `hookhost serve --session-broker` on a socket in `folder`, started and listening.
async fn start_broker(
    config: &ConfigArgs,
    project: &Path,
    folder: &Path,
    log: &Path,
) -> anyhow::Result<tokio::process::Child> {
    let socket = folder.join(session::SOCKET);
    let exe = std::env::current_exe().context("cannot find the hookhost binary")?;
    let mut command = tokio::process::Command::new(exe);
    command
        .arg("serve")
        .arg(format!("--listen=unix:{}", socket.display()))
        .args(["--session-broker", "--own-files"])
        .arg("--project-dir")
        .arg(project);
    if let Some(home) = &config.home {
        command.arg("--home").arg(home);
    }
    for (flag, dir) in [
        ("--config-dir", &config.folders.config_dir),
        ("--state-dir", &config.folders.state_dir),
        ("--cache-dir", &config.folders.cache_dir),
    ] {
        if let Some(dir) = dir {
            command.arg(flag).arg(dir);
        }
    }
    let errors = std::fs::File::create(log)
        .with_context(|| format!("cannot create the broker's log {}", log.display()))?;
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(errors)
        .process_group(0)
        .kill_on_drop(true);
    let mut child = command
        .spawn()
        .context("cannot start the session's broker")?;
    let stdout = child.stdout.take().context("the broker has no stdout")?;
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let listening = tokio::time::timeout(BROKER_START, async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.starts_with("listening on unix:") {
                return true;
            }
        }
        false
    })
    .await
    .unwrap_or(false);
    if !listening {
        let _ = child.start_kill();
        let said = std::fs::read_to_string(log).unwrap_or_default();
        bail!(
            "the session's broker did not start; nothing was run:\n{}",
            said.trim_end()
        );
    }
    // Its later lines (none are expected) are not waited for.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok(child)
}

/// A new private folder in `dir` for one session's broker.
fn new_private_folder(dir: &Path) -> anyhow::Result<PathBuf> {
    let mut id = [0u8; 8];
    getrandom::fill(&mut id).map_err(|err| anyhow!("no randomness: {err}"))?;
    let name: String = id.iter().map(|b| format!("{b:02x}")).collect();
    let folder = dir.join(format!("broker-{name}"));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    Ok(folder)
}

fn signal(kind: tokio::signal::unix::SignalKind) -> anyhow::Result<tokio::signal::unix::Signal> {
    tokio::signal::unix::signal(kind).context("cannot watch the session's signals")
}

/// Asks the launcher (and so the agent it waits for) to stop.
fn terminate_child(child: &tokio::process::Child) {
    if let Some(pid) = child.id().and_then(|pid| i32::try_from(pid).ok()) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGTERM,
        );
    }
}

/// This command's exit status for the launcher's `status`.
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    let code = status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(1);
    ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX))
}

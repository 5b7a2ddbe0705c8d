//! `hookhost envelope`: `show` prints the owner's envelope whole, with what this kernel
//! enforces; `run` is the launcher each rewritten shell command calls.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::{CliResult, ConfigArgs};
use hookhost::envelope::{KernelSupport, launch};

#[cfg(target_os = "linux")]
mod session;
#[cfg(not(target_os = "linux"))]
mod session {
    //! Sessions need a Linux kernel.
    use super::super::{CliError, CliResult, OwnerFolders};

    #[derive(Debug, clap::Args)]
    pub(crate) struct SessionArgs {
        #[arg(long, value_name = "DIR")]
        home: Option<std::path::PathBuf>,
        #[command(flatten)]
        folders: OwnerFolders,
        #[arg(last = true, required = true)]
        program: Vec<String>,
    }

    pub(crate) async fn run(_: SessionArgs) -> CliResult {
        Err(CliError::Usage(anyhow::anyhow!(
            "a session inside the envelope needs Linux (Landlock and a private mount namespace); on macOS each shell command gets its Seatbelt profile"
        )))
    }
}

pub(crate) use session::run as session;

#[derive(Debug, Subcommand)]
pub(crate) enum EnvelopeCommand {
    /// Print the envelope the owner's configuration gives every shell command: what is
    /// writable, read-only, unreadable, the network and scopes, and this kernel's
    /// Landlock ABI (exit 1 when the envelope is on but cannot run here).
    Show(Box<ShowArgs>),
    /// Run one command inside an envelope (what hookhost rewrites each shell command
    /// into; the agent's own call of it is refused).
    Run(RunArgs),
    /// Start a whole agent session inside the owner's envelope (Linux): every process
    /// of it, the agent's file tools included, bounded by the kernel; its hooks answered
    /// by a broker outside. For agents whose hooks cannot rewrite a command (Cursor,
    /// OpenCode, Factory): `hookhost envelope session -- cursor-agent`.
    Session(session::SessionArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    #[command(flatten)]
    pub(crate) config: ConfigArgs,
    /// Print JSON: the envelope, its digest, the kernel's ABI and any refusal.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The envelope's file (its name is its digest).
    #[arg(long, value_name = "FILE")]
    pub(crate) envelope: PathBuf,
    /// A descriptor to write the folder the command ended in to.
    #[arg(long, value_name = "FD")]
    pub(crate) cwd_fd: Option<i32>,
    /// A whole session (`hookhost envelope session` passes it): the broker's folder; the
    /// command is then a program and its arguments, started directly.
    #[arg(long, value_name = "DIR", hide = true, conflicts_with = "cwd_fd")]
    pub(crate) session_broker: Option<PathBuf>,
    /// Folders a session may write besides the envelope's.
    #[arg(long, value_name = "DIR", hide = true, requires = "session_broker")]
    pub(crate) session_writable: Vec<PathBuf>,
    /// The command, as bash reads it.
    #[arg(last = true, required = true)]
    pub(crate) command: Vec<String>,
}

/// `hookhost envelope show`.
pub(crate) fn show(args: ShowArgs) -> CliResult {
    let engine = args.config.engine()?;
    let kernel = KernelSupport::probe();
    let Some((envelope, refusal)) = engine.envelope() else {
        if args.json {
            println!(
                "{}",
                serde_json::json!({"envelope": null, "kernel": {"landlockAbi": kernel.landlock_abi}})
            );
        } else {
            println!(
                "no envelope: the owners' settings do not switch it on (`\"envelope\": true` in the user's or managed hook file); this kernel has Landlock ABI {}",
                kernel.landlock_abi
            );
        }
        return Ok(ExitCode::SUCCESS);
    };
    if args.json {
        let json = serde_json::json!({
            "digest": envelope.digest(),
            "envelope": envelope,
            "kernel": {"landlockAbi": kernel.landlock_abi},
            "refusal": refusal,
        });
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        println!("{envelope}");
        println!("  kernel: Landlock ABI {}", kernel.landlock_abi);
        match refusal {
            Some(why) => println!("  NOT ENFORCED HERE — every shell command is refused: {why}"),
            None => println!("  enforced: every shell command the agent runs gets it"),
        }
    }
    Ok(if refusal.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// What `status` says of the envelope: whether it is on, what it enforces on this kernel,
/// and, for an agent whose commands hookhost cannot rewrite, that they are refused; the
/// problem, if any (the envelope on but not enforceable here).
pub(crate) fn status_lines(
    engine: &hookhost::Engine,
    agent: hookhost::Agent,
) -> (Vec<String>, Option<String>) {
    let kernel = KernelSupport::probe();
    let Some((envelope, refusal)) = engine.envelope() else {
        return (
            vec![format!(
                "envelope: off (the owner's `\"envelope\": true` switches it on; this kernel has Landlock ABI {})",
                kernel.landlock_abi
            )],
            None,
        );
    };
    let mode = match envelope.mode {
        hookhost::envelope::Mode::Enforce => "enforce",
        hookhost::envelope::Mode::LandlockOnly => {
            "landlock-only — WEAKER: places inside writable folders stay writable, secret files there readable"
        }
    };
    let mut lines = vec![format!(
        "envelope {}: {mode}; Landlock ABI {} here (needs {}); writable: {}; {} read-only places; network: {}",
        &envelope.digest()[..12],
        kernel.landlock_abi,
        envelope.needed_abi(),
        envelope
            .writable
            .iter()
            .map(|place| place.path.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        envelope.read_only.len(),
        match &envelope.network {
            hookhost::envelope::Network::Any => "any".to_string(),
            hookhost::envelope::Network::None => "no TCP".to_string(),
            hookhost::envelope::Network::Ports { connect, bind } =>
                format!("TCP connect {connect:?}, bind {bind:?}"),
        }
    )];
    if !agent.rewrites_commands() {
        lines.push(format!(
            "  {}'s hook cannot carry a rewritten command: while the envelope is on, its shell commands are refused — unless the agent runs inside `hookhost envelope session -- <the agent's command>`, where every process of the session is inside the envelope",
            agent.name()
        ));
    }
    let problem = refusal.map(|why| format!("every shell command is refused: {why}"));
    (lines, problem)
}

/// `hookhost envelope run`: the command's own exit status, or 126 when the envelope
/// cannot be applied.
pub(crate) fn run(args: &RunArgs) -> ExitCode {
    let mut launch = launch::Launch::new(args.envelope.clone(), args.command.join(" "));
    launch.cwd_fd = args.cwd_fd;
    launch.session = args
        .session_broker
        .clone()
        .map(|broker| (broker, args.command.clone()));
    launch.session_writable = args.session_writable.clone();
    ExitCode::from(u8::try_from(launch::run(&launch)).unwrap_or(u8::MAX))
}

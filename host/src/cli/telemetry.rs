//! `hookhost telemetry flush`: send the decision records one-shot processes left in the
//! export spool now (what `serve` does every second), and this machine's status.

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::{CliError, CliResult};

/// `hookhost telemetry …`.
#[derive(Debug, Subcommand)]
pub enum TelemetryCommand {
    /// Send the decisions one-shot hook processes spooled for export, and this
    /// machine's status, to the owners' OTLP collector now (`serve` does every second).
    /// Exit 1 when the collector did not take them all.
    Flush(FlushArgs),
}

/// Runs a `telemetry` subcommand.
pub fn run(command: TelemetryCommand) -> CliResult {
    match command {
        TelemetryCommand::Flush(args) => flush(&args),
    }
}

/// `hookhost telemetry flush`.
#[derive(Debug, Args)]
pub struct FlushArgs {
    /// Whose `telemetry` setting names the collector.
    #[command(flatten)]
    config: super::ConfigArgs,
}

/// Sends the spool and a status report; exit 1 when the collector did not take them all.
fn flush(args: &FlushArgs) -> CliResult {
    let options = args.config.load_options().map_err(CliError::Usage)?;
    let config = hookhost::internals::load(&options);
    let Some(settings) = config.telemetry else {
        return Err(CliError::Usage(anyhow::anyhow!(
            "the owners' settings set no `telemetry`: nothing to send"
        )));
    };
    let spool = args
        .config
        .export_spool()
        .map(|dir| hookhost::export::Spool::new(&dir))
        .ok_or_else(|| CliError::Usage(anyhow::anyhow!("no state folder: give --state-dir")))?;
    let store = config
        .policy
        .as_ref()
        .map(|policy| hookhost::fleet::store::PolicyStore::at(&policy.store));
    let sent =
        hookhost::export::send_spool(&settings, &spool, store.as_ref(), Duration::from_secs(30));
    let stats = hookhost::export::stats();
    let dropped = stats.dropped.load(Ordering::Relaxed);
    println!(
        "sent {sent} spooled decision(s); exported {}, dropped {dropped} (the spool dropped {} when full, ever)",
        stats.exported.load(Ordering::Relaxed),
        spool.dropped()
    );
    Ok(if dropped == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

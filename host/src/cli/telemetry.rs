//! `hookhost telemetry flush`: send the decision records one-shot processes left in the
//! export spool now (what `serve` does every second), and this machine's status.

use std::process::ExitCode;
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
    let engine = args.config.engine()?;
    if engine.telemetry().is_none() {
        return Err(CliError::Usage(anyhow::anyhow!(
            "the owners' settings set no `telemetry`: nothing to send"
        )));
    }
    let stats = hookhost::export::stats();
    let mut sent = 0;
    loop {
        let batch = engine.send_spooled();
        sent += batch;
        if batch == 0 {
            break;
        }
        engine.flush_export(Duration::from_secs(30));
    }
    engine.report_status("flush");
    engine.flush_export(Duration::from_secs(30));
    let dropped = stats.dropped.load(std::sync::atomic::Ordering::Relaxed);
    println!(
        "sent {sent} spooled decision(s); exported {}, dropped {dropped}",
        stats.exported.load(std::sync::atomic::Ordering::Relaxed)
    );
    Ok(if dropped == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

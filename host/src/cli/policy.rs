//! `hookhost policy`: the owner's policy as one signed OCI artifact — `build` it from the
//! owner's hook file, `push` it once signed, `pull` it on each machine (what the managed
//! settings name; verified, activated, reported), and `status` (what this machine runs).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Subcommand};
use hookhost::OciRef;
use hookhost::fleet::pull::PullOutcome;

use super::{CliError, CliResult};

/// How long a command waits for the collector to take its status report.
const REPORT_LIMIT: Duration = Duration::from_secs(10);

/// `hookhost policy …`.
#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Write the policy of an owner's hook file into a folder: `policy.json` (sign it:
    /// `minisign -Sm DIR/policy.json`) and the components it carries, pinned by digest.
    Build(BuildArgs),
    /// Publish the signed policy in a folder as one OCI artifact; prints its revision.
    Push(PushArgs),
    /// Fetch the policy the managed settings name, verify it (their `trustedSigners`, no
    /// rollback, every component pinned) and activate it; report to the owners'
    /// collector when `telemetry` is on. Exit 1 when it is refused or unreachable (the
    /// active revision stays).
    Pull(PullArgs),
    /// What this machine runs: the reference, the active revision, when it was activated,
    /// the last pull and its error.
    Status(PullArgs),
}

/// `hookhost policy build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The owner's hook file (`hooks.json`: hooks, builtins' config, owner settings).
    hooks: PathBuf,
    /// The folder to write into.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// `hookhost policy push`.
#[derive(Debug, Args)]
pub struct PushArgs {
    /// The folder `build` wrote (with `policy.json.minisig`).
    dir: PathBuf,
    /// `oci://REGISTRY/REPOSITORY:TAG`.
    reference: String,
}

/// `hookhost policy pull` and `status`.
#[derive(Debug, Args)]
pub struct PullArgs {
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Whose managed settings name the policy, and where this machine keeps it.
    #[command(flatten)]
    config: super::ConfigArgs,
}

/// Runs a `policy` subcommand.
pub fn run(command: PolicyCommand) -> CliResult {
    match command {
        PolicyCommand::Build(args) => build(&args),
        PolicyCommand::Push(args) => push(&args),
        PolicyCommand::Pull(args) => pull(&args),
        PolicyCommand::Status(args) => status(&args),
    }
}

fn build(args: &BuildArgs) -> CliResult {
    let document = hookhost::fleet::build_into(&args.hooks, &args.out)
        .map_err(|e| CliError::Usage(e.into()))?;
    println!("{}", document.display());
    println!("sign it: minisign -Sm {}", document.display());
    Ok(ExitCode::SUCCESS)
}

fn push(args: &PushArgs) -> CliResult {
    let reference = OciRef::parse(&args.reference).map_err(|e| CliError::Usage(e.into()))?;
    let revision = hookhost::fleet::publish(&args.dir, &reference)
        .map_err(|e| CliError::Internal(e.into()))?;
    println!("{} -> {revision}", reference.as_str());
    Ok(ExitCode::SUCCESS)
}

fn named(
    args: &PullArgs,
) -> Result<
    (
        OciRef,
        hookhost::SigningPolicy,
        hookhost::fleet::store::PolicyStore,
    ),
    CliError,
> {
    let options = args.config.load_options().map_err(CliError::Usage)?;
    hookhost::named_policy(&options)
        .map_err(|e| CliError::Usage(anyhow::anyhow!(e)))?
        .context("the managed settings name no `policy`")
        .map_err(CliError::Usage)
}

fn pull(args: &PullArgs) -> CliResult {
    let (reference, signing, store) = named(args)?;
    let outcome = hookhost::fleet::pull::pull(&reference, &store, &signing);
    // The machine's status to the owners' collector, when they export: on activation
    // and on failure alike.
    let options = args.config.load_options().map_err(CliError::Usage)?;
    if let Some(settings) = hookhost::internals::load(&options).telemetry {
        let reason = match &outcome {
            Ok(PullOutcome::Activated(_)) => "activated",
            Ok(PullOutcome::Unchanged(_)) => "unchanged",
            Err(_) => "pull-failed",
        };
        if !hookhost::export::report_once(&settings, Some(&store), reason, REPORT_LIMIT) {
            eprintln!(
                "hookhost policy pull: the status report did not reach {}",
                settings.endpoint
            );
        }
    }
    match outcome {
        Ok(PullOutcome::Activated(record)) => {
            println!("activated {} ({})", record.revision, reference.as_str());
            Ok(ExitCode::SUCCESS)
        }
        Ok(PullOutcome::Unchanged(record)) => {
            println!("unchanged {} ({})", record.revision, reference.as_str());
            Ok(ExitCode::SUCCESS)
        }
        Err(err) => {
            eprintln!("hookhost policy pull: {err}");
            match store.active() {
                Some(active) => {
                    eprintln!("hookhost policy pull: still active: {}", active.revision)
                }
                None => eprintln!(
                    "hookhost policy pull: no revision is active: every event is refused until one is"
                ),
            }
            Ok(ExitCode::FAILURE)
        }
    }
}

fn status(args: &PullArgs) -> CliResult {
    let (reference, _, store) = named(args)?;
    let report = hookhost::export::StatusReport::read(Some(&store), "status", 0);
    if args.json {
        let text =
            serde_json::to_string_pretty(&report).map_err(|e| CliError::Internal(e.into()))?;
        println!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    println!("policy    {}", reference.as_str());
    println!(
        "revision  {}",
        report.revision.as_deref().unwrap_or("none active")
    );
    println!(
        "activated {}",
        report.activated_at.as_deref().unwrap_or("never")
    );
    println!(
        "last pull {}",
        report.last_pull.as_deref().unwrap_or("never")
    );
    if let Some(error) = &report.last_error {
        println!("error     {error}");
    }
    Ok(ExitCode::SUCCESS)
}

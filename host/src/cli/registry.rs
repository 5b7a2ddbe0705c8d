//! `hookhost pull` and `hookhost push`: Wasm components in OCI registries (see
//! [`hookhost::OciRef`]).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use hookhost::{OciRef, OciStore as Store};

use super::{CliError, CliResult};

/// `hookhost pull`.
#[derive(Debug, Args)]
pub struct PullArgs {
    /// `oci://REGISTRY/REPOSITORY:TAG` or `…@sha256:DIGEST`.
    reference: String,
    /// The component store (default: `oci` in hookhost's cache folder).
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
    /// Whose signing policy applies (`trustedSigners`, `requireSignedWasm`): a tag that
    /// moved back to an earlier-signed component is refused here as on loading.
    #[command(flatten)]
    config: super::ConfigArgs,
}

/// `hookhost push`.
#[derive(Debug, Args)]
pub struct PushArgs {
    /// The component file.
    file: PathBuf,
    /// `oci://REGISTRY/REPOSITORY:TAG`.
    reference: String,
    /// Its minisign signature (default: `FILE.minisig`, when it exists).
    #[arg(long, value_name = "FILE")]
    signature: Option<PathBuf>,
}

fn reference(text: &str) -> Result<OciRef, CliError> {
    OciRef::parse(text).map_err(|e| CliError::Usage(e.into()))
}

/// Fetches a component (and its signature) into the store; prints its digests and file.
pub fn pull(args: &PullArgs) -> CliResult {
    let reference = reference(&args.reference)?;
    let dir = args
        .store
        .clone()
        .or_else(Store::default_dir)
        .context("no cache folder for this user: give --store")
        .map_err(CliError::Usage)?;
    let store = Store::open(&dir).map_err(|e| CliError::Internal(e.into()))?;
    let options = args.config.load_options().map_err(CliError::Usage)?;
    let signing = hookhost::internals::load(&options).signing;
    let pulled = store
        .pull(
            &reference,
            hookhost::internals::MAX_COMPONENT_BYTES,
            &signing,
        )
        .map_err(|e| CliError::Internal(e.into()))?;
    if let Some(note) = &pulled.offline {
        eprintln!("hookhost pull: {note}");
    }
    let signature = pulled.signature_path();
    println!("{} -> {}", reference.as_str(), pulled.resolved.manifest);
    println!(
        "component {} {}",
        pulled.resolved.component,
        pulled.path.display()
    );
    println!(
        "signature {}",
        if signature.is_file() {
            signature.display().to_string()
        } else {
            "none".into()
        }
    );
    Ok(std::process::ExitCode::SUCCESS)
}

/// Publishes a component (and its signature); prints what the reference resolves to.
pub fn push(args: &PushArgs) -> CliResult {
    let reference = reference(&args.reference)?;
    let resolved = reference
        .push(&args.file, args.signature.as_deref())
        .map_err(|e| CliError::Internal(e.into()))?;
    println!("{} -> {}", reference.as_str(), resolved.manifest);
    println!("component {}", resolved.component);
    Ok(std::process::ExitCode::SUCCESS)
}

//! `hookhost cache`: the compiled-artifact cache — list it (the default), prune it to its
//! cap (least recently used first), or clear it.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use super::{CliResult, ConfigArgs};
use hookhost::internals::{cache_entries, prune_cache};

/// `hookhost cache`.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// Remove the least recently used artifacts until the cache is within its cap.
    #[arg(long, conflicts_with = "clear")]
    prune: bool,
    /// Remove every artifact (they are compiled again when next used).
    #[arg(long)]
    clear: bool,
    /// The cap, in MiB (default: the owners' `wasmCacheMaxMb`, else 2048).
    #[arg(long, value_name = "MIB")]
    max_mb: Option<u64>,
    #[command(flatten)]
    config: ConfigArgs,
}

pub(super) fn run(args: &CacheArgs) -> CliResult {
    let dir = args
        .config
        .cache_folder()
        .context("no cache folder: the account has no home; give --cache-dir or --home")?;
    let max_bytes = match args.max_mb {
        Some(mb) => mb.saturating_mul(1 << 20),
        None => hookhost::internals::load(&args.config.load_options()?)
            .wasm_cache_max_mb
            .map_or(hookhost::internals::DEFAULT_CACHE_MAX_BYTES, |mb| {
                mb.saturating_mul(1 << 20)
            }),
    };
    if !dir.is_dir() {
        println!("{}: no cache yet", dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    let cap = if args.clear { 0 } else { max_bytes };
    if args.prune || args.clear {
        let removed = prune_cache(&dir, cap, None)
            .with_context(|| format!("cannot prune {}", dir.display()))?;
        let bytes: u64 = removed.iter().map(|e| e.bytes).sum();
        println!(
            "removed {} artifacts ({}) from {}",
            removed.len(),
            mib(bytes),
            dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let entries = cache_entries(&dir).with_context(|| format!("cannot list {}", dir.display()))?;
    for entry in entries.iter().rev() {
        println!(
            "{:>10}  {}  {}",
            mib(entry.bytes),
            humantime::format_rfc3339_seconds(entry.last_used),
            entry.path.file_name().unwrap_or_default().to_string_lossy()
        );
    }
    let total: u64 = entries.iter().map(|e| e.bytes).sum();
    println!(
        "{} artifacts, {} of {} in {} (most recently used first)",
        entries.len(),
        mib(total),
        mib(max_bytes),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

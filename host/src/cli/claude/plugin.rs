//! `hookhost claude plugin`: a Claude Code marketplace with one plugin whose hooks run this
//! binary by its absolute path with the owner's folders — the command `install` writes.
//! A plugin cannot carry that path in a checked-in file, and one that ran `hookhost` from
//! `PATH` would run whatever a repository's `env` setting puts first on `PATH`; so the
//! plugin is written on the owner's machine, when the owner asks for it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde_json::{Map, Value, json};

use super::entries::{self, Wiring};
use crate::cli::{CliError, CliResult, OwnerFolders};

/// `hookhost claude plugin`.
#[derive(Debug, Clone, Args)]
pub struct PluginArgs {
    /// The marketplace folder to write (created; files hookhost wrote there before are
    /// replaced). Then: `claude plugin marketplace add DIR && claude plugin install
    /// hookhost@hookhost`.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The owner's home (default: the account's home from the password database).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// The folders the plugin's command names.
    #[command(flatten)]
    folders: OwnerFolders,
}

/// The plugin's name, and the marketplace's.
const NAME: &str = "hookhost";

/// Writes the marketplace.
pub(super) fn write(args: &PluginArgs) -> CliResult {
    let home = match &args.home {
        Some(home) => std::path::absolute(home).context("--home")?,
        None => hookhost::internals::home()
            .context("no usable home: the account has no home folder; give --home")?,
    };
    let wiring = Wiring {
        argv: entries::hook_argv(&super::own_exe()?, &super::locations(home, &args.folders)?),
        serve: None,
    };
    let out = std::path::absolute(&args.out).context("--out")?;
    let description = "Sandboxed WebAssembly, command, HTTP and prompt hooks from hookhost's own hook files, merged into one answer per Claude Code event.";
    let version = env!("CARGO_PKG_VERSION");
    let marketplace = json!({
        "name": NAME,
        "owner": {"name": NAME},
        "metadata": {"description": "hookhost's Claude Code plugin, written for this machine"},
        "plugins": [{
            "name": NAME,
            "source": format!("./{NAME}"),
            "version": version,
            "description": description,
        }],
    });
    let manifest = json!({
        "name": NAME,
        "version": version,
        "description": description,
        "author": {"name": NAME},
        "license": "Apache-2.0",
        "keywords": ["hooks", "wasm", "policy", "security"],
    });
    let hooks = json!({
        "description": format!("Runs hookhost ({}) on every Claude Code event: the hooks of hookhost's own hook files, Wasm ones included.", wiring.command()),
        "hooks": hook_entries(&wiring),
    });
    let plugin = out.join(NAME);
    for (file, value) in [
        (out.join(".claude-plugin/marketplace.json"), &marketplace),
        (plugin.join(".claude-plugin/plugin.json"), &manifest),
        (plugin.join("hooks/hooks.json"), &hooks),
    ] {
        write_file(&out, &file, value).map_err(CliError::Internal)?;
    }
    println!(
        "wrote the hookhost plugin in {} (it runs `{}`)\nthen: claude plugin marketplace add {} && claude plugin install {NAME}@{NAME}",
        out.display(),
        wiring.command(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// One matcher group per event `install` covers by default, each running `wiring`'s command.
fn hook_entries(wiring: &Wiring) -> Map<String, Value> {
    entries::DEFAULT_EVENTS
        .iter()
        .map(|event| {
            (
                event.to_string(),
                json!([{"hooks": [wiring.handler(event)]}]),
            )
        })
        .collect()
}

/// Writes `value` to `file` below `root`: every folder on the way is created as a real
/// folder (a link there is refused), and the file is a fresh temporary file renamed into
/// place, so a link planted at its name is replaced, never written through.
fn write_file(root: &Path, file: &Path, value: &Value) -> anyhow::Result<()> {
    let dir = file.parent().context("a file without a folder")?;
    let mut walked = root.to_path_buf();
    std::fs::create_dir_all(root).with_context(|| format!("cannot create {}", root.display()))?;
    let below = dir.strip_prefix(root).unwrap_or(Path::new(""));
    for part in
        std::iter::once(Path::new("")).chain(below.components().map(|c| Path::new(c.as_os_str())))
    {
        walked.push(part);
        if !part.as_os_str().is_empty() {
            match std::fs::create_dir(&walked) {
                Ok(()) => {}
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(err) => {
                    return Err(err).with_context(|| format!("cannot create {}", walked.display()));
                }
            }
        }
        let meta = std::fs::symlink_metadata(&walked)
            .with_context(|| format!("cannot read {}", walked.display()))?;
        anyhow::ensure!(
            meta.is_dir() && !meta.file_type().is_symlink(),
            "{} is not a folder of its own (a link or a file); not written",
            walked.display()
        );
    }
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    let mut temp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    temp.write_all(text.as_bytes())?;
    temp.as_file().sync_all()?;
    temp.persist(file)
        .with_context(|| format!("cannot write {}", file.display()))?;
    Ok(())
}

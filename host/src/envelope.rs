//! The envelope: what the kernel lets every shell command the agent runs do, derived from
//! the owner's policy — never a second policy to keep in step. The guards judge a tool
//! call's text before it runs; the envelope bounds what the code does once it runs.
//!
//! One [`Envelope`] per configuration (its digest names it): which folders commands may
//! write, which places inside them stay read-only (hookhost's and the agents' hook files,
//! the project's `.git/hooks`, `protected-paths`), which files read as a notice instead of
//! their content (the `secrets` builtin's files, found when a command starts; hookhost's
//! keys), the network and the scopes. The engine writes it once into hookhost's state
//! folder and rewrites every shell command it lets run into a call of the launcher
//! (`hookhost envelope run`), which applies it and runs the command
//! ([`launch`]); on Linux with Landlock and a private mount namespace ([`linux`]), on
//! macOS as a Seatbelt profile ([`seatbelt`]).

#[cfg(target_os = "linux")]
mod confine;
mod derive;
#[cfg(unix)]
pub(crate) mod git_config;
#[cfg(target_os = "linux")]
pub mod judge;
#[cfg(target_os = "linux")]
pub mod keeper;
pub(crate) mod kernel;
pub(crate) mod later;
pub mod launch;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(unix)]
mod scan;
#[cfg(any(target_os = "macos", all(test, unix)))]
pub(crate) mod seatbelt;
#[allow(
    dead_code,
    reason = "one file shared with the secrets guest: the host reads `secret_kind`"
)]
mod secret_files;
pub mod session;
mod wrap;

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::config::envelope_setting::{Mode, Network};
pub(crate) use derive::derive;
pub use kernel::KernelSupport;

/// The exit status of a command the launcher refused to run (bash's "cannot execute").
pub const REFUSED: i32 = 126;
pub(crate) use wrap::{imitates, wrap};

/// One place the envelope names, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// The path (absolute).
    pub path: PathBuf,
    /// What it is, for `envelope show` and refusals.
    pub why: String,
}

/// What the kernel lets every shell command the agent runs do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Envelope {
    /// How strictly it is applied.
    pub mode: Mode,
    /// The project: writable, and where secret files are looked for.
    pub project: Option<PathBuf>,
    /// The owner's home: where credential files are looked for.
    pub home: Option<PathBuf>,
    /// Folders commands may write (everything else is read-only).
    pub writable: Vec<Place>,
    /// Tool caches commands may write, through a copy-on-write layer of the project's
    /// (kept in [`Envelope::layers`]): the user's own copy is never written.
    pub layered: Vec<Place>,
    /// Where the layers are kept (in hookhost's state folder), one folder per project.
    pub layers: PathBuf,
    /// Places no command may change, even inside a writable folder.
    pub read_only: Vec<Place>,
    /// Read-only places made, empty, when missing, before a command starts (so that no
    /// process it leaves behind can create them later, outside the mounts).
    pub made: Vec<PathBuf>,
    /// Files whose content no command may read, wherever they are.
    pub unreadable: Vec<Place>,
    /// The agents' logins: unreadable to commands, not to a whole session (its agent
    /// needs its own).
    pub logins: Vec<Place>,
    /// Listening unix sockets commands may still connect to (the owner's
    /// `envelope.sockets`); every other one that exists when a command starts is covered.
    pub sockets: Vec<PathBuf>,
    /// Whether the ssh-agent's socket (`SSH_AUTH_SOCK`) stays reachable.
    pub ssh_agent: bool,
    /// Environment variables the command does not inherit.
    pub withhold_env: Vec<String>,
    /// The programs that, however they are started inside (a Makefile, a script, an
    /// interpreter), are judged by the owner's guards before the real one runs: git, those
    /// the owner's `Bash(...)` conditions name, and the owner's `envelope.judge`
    /// (`judge`, Linux).
    pub judge: Vec<String>,
    /// Names and paths the `secrets` builtin's `allow` lets through.
    pub secret_allow: Vec<String>,
    /// What the network may reach.
    pub network: Network,
    /// Whether commands may signal only processes started inside the same command.
    pub scope_signals: bool,
    /// Whether commands may connect only to abstract unix sockets made inside.
    pub scope_abstract_sockets: bool,
    /// The file a withheld secret reads as (in hookhost's state folder).
    pub withheld: PathBuf,
}

/// The variable that names, to the owner's command hooks, the envelope's file: the checks
/// they run on project code (`checks-before-commit`) run inside it. Only the engine sets it;
/// an inherited one is removed from every hook's environment.
pub const ENVELOPE_VAR: &str = "HOOKHOST_ENVELOPE";

/// The text a withheld secret file reads as, inside the envelope.
pub const WITHHELD_NOTICE: &str = "# hookhost envelope: the content of this file is withheld from the commands the agent runs (a secret file: the `secrets` builtin's rule). The owner can let it through with the builtin's `allow`.\n";

impl Envelope {
    /// Its digest: SHA-256 of its canonical JSON, which names its file.
    pub fn digest(&self) -> String {
        digest_of(&self.to_file_bytes())
    }

    /// The bytes of the file it is kept in; its digest is theirs, so the launcher checks
    /// the file by hashing what it read, without writing the envelope out again.
    pub fn to_file_bytes(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(self).unwrap_or_default()
    }

    /// The file it is kept in, in hookhost's envelope folder `dir`.
    pub fn file_in(&self, dir: &Path) -> PathBuf {
        dir.join(format!("{}.json", self.digest()))
    }

    /// The Landlock ABI it needs: 3 for files (links across folders and truncation
    /// judged), 4 for a TCP rule, 6 for scopes.
    pub fn needed_abi(&self) -> u32 {
        let mut abi = 3;
        if self.network != Network::Any {
            abi = abi.max(4);
        }
        if self.scope_signals || self.scope_abstract_sockets {
            abi = abi.max(6);
        }
        abi
    }
}

/// How many git config keys the launcher puts back.
fn git_config_keys() -> usize {
    #[cfg(unix)]
    {
        git_config::RUNS_PROGRAM.len()
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// The SHA-256 of `bytes`, in hex: an envelope file's name.
pub(crate) fn digest_of(bytes: &[u8]) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(bytes);
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

impl fmt::Display for Envelope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = match self.mode {
            Mode::Enforce => "enforce (Landlock and a private mount namespace)",
            Mode::LandlockOnly => {
                "landlock-only (WEAKER: places inside writable folders stay writable, secret files there stay readable)"
            }
        };
        writeln!(f, "envelope {}", &self.digest()[..16])?;
        writeln!(f, "  mode: {mode}")?;
        writeln!(f, "  readable: everything but the unreadable files below")?;
        let mut list = |title: &str, places: &[Place]| -> fmt::Result {
            writeln!(f, "  {title}:")?;
            if places.is_empty() {
                writeln!(f, "    (none)")?;
            }
            for place in places {
                writeln!(f, "    {}  ({})", place.path.display(), place.why)?;
            }
            Ok(())
        };
        list("writable", &self.writable)?;
        list("writable through the project's own layer", &self.layered)?;
        list("read-only inside them", &self.read_only)?;
        list("unreadable", &self.unreadable)?;
        list(
            "unreadable to commands (not to a whole session)",
            &self.logins,
        )?;
        writeln!(
            f,
            "  made, empty, before a command when missing: {}",
            if self.made.is_empty() {
                "(none)".to_string()
            } else {
                self.made
                    .iter()
                    .map(|path| path.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )?;
        writeln!(
            f,
            "  git config: the project's config files (config, config.worktree, worktrees', submodules') checked when a command ends; every key that runs a program ({} of them: core.fsmonitor, core.hooksPath, core.pager, alias.*, include.path, filter.*, …) put back as it was, held read-only for processes it leaves running",
            git_config_keys()
        )?;
        writeln!(
            f,
            "  sockets: every listening unix socket outside the project covered when a command starts{}{}",
            if self.sockets.is_empty() {
                String::new()
            } else {
                format!(
                    ", but {}",
                    self.sockets
                        .iter()
                        .map(|path| path.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
            if self.ssh_agent {
                "; the ssh-agent reachable (sshAgent)"
            } else {
                "; the ssh-agent too (git over ssh needs the owner's `sshAgent: true`)"
            }
        )?;
        if !self.withhold_env.is_empty() {
            writeln!(f, "  not inherited: {}", self.withhold_env.join(", "))?;
        }
        writeln!(
            f,
            "  judged where they run (a Makefile's, a script's call asked of the owner's guards like a typed one): {}",
            if self.judge.is_empty() {
                "(none)".to_string()
            } else {
                self.judge.join(", ")
            }
        )?;
        writeln!(
            f,
            "  processes: one PID namespace per project — the agent's and the machine's other processes out of sight and reach; the project's own servers seen from one command to the next"
        )?;
        writeln!(
            f,
            "  secret files: the `secrets` builtin's rule, looked for in the project and the home when a command starts{}",
            if self.secret_allow.is_empty() {
                String::new()
            } else {
                format!(" (allowed: {})", self.secret_allow.join(", "))
            }
        )?;
        let network = match &self.network {
            Network::Any => "any".to_string(),
            Network::None => "no TCP (UDP is out of the kernel's reach here)".to_string(),
            Network::Ports { connect, bind } => format!(
                "TCP connect to {:?}, bind {:?} (UDP and host names are out of the kernel's reach here)",
                connect, bind
            ),
        };
        writeln!(f, "  network: {network}")?;
        writeln!(
            f,
            "  scopes: signals {}, abstract unix sockets {}",
            if self.scope_signals {
                "to processes of the same command only"
            } else {
                "unscoped"
            },
            if self.scope_abstract_sockets {
                "made inside only"
            } else {
                "unscoped"
            }
        )?;
        write!(f, "  needs: Landlock ABI {}", self.needed_abi())
    }
}

#[cfg(test)]
mod tests;

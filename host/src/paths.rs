//! The folders hookhost owns (configuration, state, artifact cache) and the home they sit
//! in. The home is the account's own, from the password database — never `$HOME` or an
//! `XDG_*` variable: a hook process inherits whatever environment the agent's host hands
//! it, and a repository's `.claude/settings.json` `env` sets those variables for every
//! hook, so reading them would let the repository choose which guards run. Other folders
//! are chosen by the owner on the command line (`--home`, `--config-dir`, `--state-dir`,
//! `--cache-dir`, written by `hookhost claude install` into the command it installs).
//! With no account home there is no default folder at all: callers go without (no disk
//! cache, no trust store) rather than guess.

use std::path::{Path, PathBuf};

/// The account's home folder (the password database's entry for this user; Windows: the
/// profile folder), when it is an absolute path. hookhost's folders are below it on every
/// system, as Claude Code's `~/.claude` is.
pub fn home() -> Option<PathBuf> {
    crate::platform::account_home().filter(|dir| dir.is_absolute())
}

/// hookhost's configuration folder below `home`: `<home>/.config/hookhost`.
pub fn config_dir_in(home: &Path) -> PathBuf {
    home.join(".config").join("hookhost")
}

/// hookhost's state folder below `home`: `<home>/.local/state/hookhost`.
pub fn state_dir_in(home: &Path) -> PathBuf {
    home.join(".local").join("state").join("hookhost")
}

/// hookhost's cache folder below `home`: `<home>/.cache/hookhost` (compiled artifacts in
/// its `wasm` folder, pulled components in `wasm/oci`).
pub fn cache_dir_in(home: &Path) -> PathBuf {
    home.join(".cache").join("hookhost")
}

/// hookhost's configuration folder (hook file, trust store, artifact key, serve token):
/// `<account home>/.config/hookhost`.
pub fn config_dir() -> Option<PathBuf> {
    home().map(|home| config_dir_in(&home))
}

/// hookhost's state folder (per-session state of one-shot `fire` processes):
/// `<account home>/.local/state/hookhost`.
pub fn state_dir() -> Option<PathBuf> {
    home().map(|home| state_dir_in(&home))
}

/// Whether `dir` is `root` or below it (both resolved where they exist): a folder hookhost
/// owns that lies inside a project belongs to the repository, whatever a flag says.
pub fn inside(dir: &Path, root: &Path) -> bool {
    let resolve = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    resolve(dir).starts_with(resolve(root))
}

/// The Wasm artifact cache: `<account home>/.cache/hookhost/wasm`.
pub fn cache_dir() -> Option<PathBuf> {
    home().map(|home| cache_dir_in(&home).join("wasm"))
}

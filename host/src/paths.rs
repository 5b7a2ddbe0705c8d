//! The folders hookhost owns (configuration, artifact cache) and the environment variables
//! that name them. The XDG base-directory rules apply: a variable that is unset, empty or
//! not an absolute path is ignored — so a repository cannot point hookhost's trust store,
//! artifact key or cache at the current directory. With no usable home there is no default
//! folder at all: callers go without (no disk cache, no trust store) rather than guess.

use std::path::{Path, PathBuf};

/// The folder named by the environment variable `name`, when it is set to an absolute
/// path.
pub fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
}

/// The user's home (`$HOME`; `%USERPROFILE%` on Windows), when it is an absolute path.
/// hookhost's folders are below it on every system, as Claude Code's `~/.claude` is.
pub fn home() -> Option<PathBuf> {
    crate::platform::home_var()
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
}

/// hookhost's configuration folder (trust store, artifact key, serve token):
/// `$XDG_CONFIG_HOME/hookhost`, else `$HOME/.config/hookhost`.
pub fn config_dir() -> Option<PathBuf> {
    env_dir("XDG_CONFIG_HOME")
        .or_else(|| home().map(|home| home.join(".config")))
        .map(|base| base.join("hookhost"))
}

/// hookhost's state folder (per-session state of one-shot `fire` processes):
/// `$XDG_STATE_HOME/hookhost`, else `$HOME/.local/state/hookhost`.
pub fn state_dir() -> Option<PathBuf> {
    env_dir("XDG_STATE_HOME")
        .or_else(|| home().map(|home| home.join(".local").join("state")))
        .map(|base| base.join("hookhost"))
}

/// Whether `dir` is `root` or below it (both resolved where they exist): a folder hookhost
/// owns that lies inside a project belongs to the repository, whatever a variable says.
pub fn inside(dir: &Path, root: &Path) -> bool {
    let resolve = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    resolve(dir).starts_with(resolve(root))
}

/// The Wasm artifact cache: `$XDG_CACHE_HOME/hookhost/wasm`, else
/// `$HOME/.cache/hookhost/wasm`.
pub fn cache_dir() -> Option<PathBuf> {
    env_dir("XDG_CACHE_HOME")
        .or_else(|| home().map(|home| home.join(".cache")))
        .map(|base| base.join("hookhost").join("wasm"))
}

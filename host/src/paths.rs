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

/// Whether `dir` is `root` or below it: a folder hookhost owns that lies inside a project
/// belongs to the repository, whatever a flag says. Both are resolved as far as they
/// exist ([`resolved`]), so a folder not created yet is judged by where it will be:
/// `project/../home/state` is not inside `project`, `elsewhere/../project/x` is.
pub fn inside(dir: &Path, root: &Path) -> bool {
    resolved(dir).starts_with(resolved(root))
}

/// `path` with its longest existing part resolved past links, and the rest — the part
/// not created yet — with `.` and `..` taken out lexically.
fn resolved(path: &Path) -> PathBuf {
    let parts: Vec<_> = path.components().collect();
    let (existing, split) = (0..=parts.len())
        .rev()
        .find_map(|split| {
            let head: PathBuf = parts[..split].iter().collect();
            Some((std::fs::canonicalize(&head).ok()?, split))
        })
        .unwrap_or_default();
    let rest: PathBuf = parts[split..].iter().collect();
    crate::condition::absolute(&rest, &existing)
}

/// The Wasm artifact cache: `<account home>/.cache/hookhost/wasm`.
pub fn cache_dir() -> Option<PathBuf> {
    home().map(|home| cache_dir_in(&home).join("wasm"))
}

#[cfg(test)]
mod inside_tests {
    use super::*;

    #[test]
    fn a_folder_not_created_yet_is_judged_by_where_it_will_be() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("project");
        std::fs::create_dir_all(&project).unwrap();
        // Beside the project, named through it: not inside.
        assert!(!inside(&project.join("../home/.local/state"), &project));
        // Inside it, named from elsewhere: inside.
        std::fs::create_dir_all(root.join("elsewhere")).unwrap();
        assert!(inside(&root.join("elsewhere/../project/.state"), &project));
        assert!(inside(&project.join("a/./b"), &project));
        assert!(!inside(&root.join("projectile"), &project));
    }
}

//! Workspace trust: whether a project's own settings may run unsandboxed hooks.
//!
//! A repository's `.claude/settings.json` and `settings.local.json` come with the
//! repository; their `command`, `http` and `prompt` hooks run only once the person who
//! owns the machine trusts the workspace (Wasm hooks always run: they are sandboxed,
//! with grants limited by [`super::grant_policy`]). A workspace is trusted when it or a
//! folder above it is in hookhost's trust store, or Claude Code's `~/.claude.json` marks
//! it `hasTrustDialogAccepted`, or the caller says so ([`Trust::Trusted`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// How [`super::load`] decides whether the project's settings are trusted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Trust {
    /// Look the project up in the trust store and in `~/.claude.json`.
    #[default]
    Discover,
    /// Trusted (`hookhost fire --trust-workspace`).
    Trusted,
    /// Untrusted whatever the stores say.
    Untrusted,
}

/// Why a workspace is trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustedBy {
    /// The caller said so.
    Caller,
    /// Listed (itself or a parent) in hookhost's trust store.
    Store(PathBuf),
    /// Claude Code's `~/.claude.json` accepted its trust dialog.
    ClaudeCode(PathBuf),
    /// Managed settings turned the gate off (`requireWorkspaceTrust: false`).
    GateOff,
}

/// Why trust-store operations fail.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    /// The store could not be read or written.
    #[error("trust store {path}: {source}")]
    Io {
        /// The store file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// `/` or the home folder: every repository below would be trusted.
    #[error(
        "refusing to trust {path}: every workspace below it would run its hooks unsandboxed (use --force if you mean it)"
    )]
    TooBroad {
        /// The folder.
        path: PathBuf,
    },
    /// The store is not the expected JSON.
    #[error("trust store {path} is not valid: {message}")]
    Invalid {
        /// The store file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// hookhost's trust store: `trusted.json` in hookhost's configuration folder, a JSON
/// object `{"trusted": ["/abs/dir", …]}`.
#[derive(Debug, Clone)]
pub struct TrustStore {
    path: PathBuf,
}

impl TrustStore {
    /// The store in `config_dir` (e.g. `~/.config/hookhost`).
    pub fn in_dir(config_dir: &Path) -> Self {
        Self {
            path: config_dir.join("trusted.json"),
        }
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The trusted folders (empty when the store does not exist).
    pub fn list(&self) -> Result<Vec<PathBuf>, TrustError> {
        // The store decides which repositories run unsandboxed hooks: only a private
        // regular file counts (a FIFO cannot hang us, a group-writable store is refused).
        let read = crate::files::open_regular(&self.path, crate::files::MAX_CONFIG_FILE).and_then(
            |file| {
                crate::files::check_private(&file.metadata()?)?;
                std::io::read_to_string(file)
            },
        );
        let text = match read {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(TrustError::Io {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        let invalid = |message: &str| TrustError::Invalid {
            path: self.path.clone(),
            message: message.to_string(),
        };
        let value: Value = serde_json::from_str(&text).map_err(|e| invalid(&e.to_string()))?;
        let list = value
            .get("trusted")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("expected {\"trusted\": [folders]}"))?;
        Ok(list
            .iter()
            .filter_map(Value::as_str)
            .map(PathBuf::from)
            .collect())
    }

    /// Adds `dir` (made absolute and canonical); returns it. `/` and `home` itself are
    /// refused unless `force`.
    pub fn add(&self, dir: &Path, home: Option<&Path>, force: bool) -> Result<PathBuf, TrustError> {
        let dir = canonical(dir).map_err(|source| TrustError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let home = home.and_then(|home| canonical(home).ok());
        if !force && (dir.parent().is_none() || Some(&dir) == home.as_ref()) {
            return Err(TrustError::TooBroad { path: dir });
        }
        let mut list = self.list()?;
        if !list.contains(&dir) {
            list.push(dir.clone());
        }
        self.save(&list)?;
        Ok(dir)
    }

    /// Removes `dir`; `false` when it was not listed.
    pub fn remove(&self, dir: &Path) -> Result<bool, TrustError> {
        let dir = canonical(dir).unwrap_or_else(|_| dir.to_path_buf());
        let mut list = self.list()?;
        let before = list.len();
        list.retain(|entry| *entry != dir);
        if list.len() == before {
            return Ok(false);
        }
        self.save(&list)?;
        Ok(true)
    }

    fn save(&self, list: &[PathBuf]) -> Result<(), TrustError> {
        let io = |source| TrustError::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(parent) = self.path.parent() {
            crate::files::create_private_dir(parent).map_err(io)?;
        }
        let text = serde_json::to_string_pretty(&json!({ "trusted": list }))
            .expect("a list of paths serialises");
        // Written beside (created 0600, whatever the umask; never through a planted
        // symlink) and renamed, so a reader never sees half a file.
        let temp = self.path.with_extension("json.tmp");
        let _ = std::fs::remove_file(&temp);
        let mut file =
            crate::platform::private_file(std::fs::OpenOptions::new().write(true).create_new(true))
                .open(&temp)
                .map_err(io)?;
        file.write_all((text + "\n").as_bytes()).map_err(io)?;
        drop(file);
        std::fs::rename(&temp, &self.path).map_err(io)
    }
}

fn canonical(dir: &Path) -> std::io::Result<PathBuf> {
    std::fs::canonicalize(dir)
}

/// Whether `project` is trusted by the stores: hookhost's, then Claude Code's.
pub fn lookup(project: &Path, home: Option<&Path>, config_dir: Option<&Path>) -> Option<TrustedBy> {
    let project = canonical(project).unwrap_or_else(|_| project.to_path_buf());
    // A store inside the project is the repository's, not the owner's (an absolute
    // `XDG_CONFIG_HOME` pointing into it): a repository never trusts itself.
    if let Some(dir) = config_dir
        && !crate::paths::inside(dir, &project)
        && let Ok(list) = TrustStore::in_dir(dir).list()
        // The outermost trusted folder the project lies in: trust covers a folder and
        // everything below it, so a `hooks.toml` between it and the project is covered.
        && let Some(entry) = list
            .into_iter()
            .filter(|entry| project.starts_with(entry))
            .min_by_key(|entry| entry.components().count())
    {
        return Some(TrustedBy::Store(entry));
    }
    let claude = home?.join(".claude.json");
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&claude).ok()?).ok()?;
    let projects = value.get("projects")?.as_object()?;
    project
        .ancestors()
        .filter(|dir| {
            projects
                .get(&*dir.to_string_lossy())
                .and_then(|p| p.get("hasTrustDialogAccepted"))
                .and_then(Value::as_bool)
                == Some(true)
        })
        .last()
        .map(|dir| TrustedBy::ClaudeCode(dir.to_path_buf()))
}

/// The folder trust covers: the trusted entry (trust store, Claude Code's dialog) and
/// below; `None` when the caller trusted the workspace for this run (the workspace as
/// its dialect finds it, hygge's walked-up root included) or the gate is off.
pub(crate) fn trust_root(trusted_by: Option<&TrustedBy>) -> Option<PathBuf> {
    match trusted_by? {
        TrustedBy::Store(dir) | TrustedBy::ClaudeCode(dir) => Some(dir.clone()),
        TrustedBy::Caller | TrustedBy::GateOff => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_round_trip_and_lookup_by_parent() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        let work = dir.path().join("work");
        let repo = work.join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        let store = TrustStore::in_dir(&config);
        assert!(store.list().unwrap().is_empty());
        assert_eq!(lookup(&repo, None, Some(&config)), None);
        let added = store.add(&work, None, false).unwrap();
        assert!(
            matches!(lookup(&repo, None, Some(&config)), Some(TrustedBy::Store(p)) if p == added)
        );
        assert!(store.remove(&work).unwrap());
        assert!(!store.remove(&work).unwrap());
        assert_eq!(lookup(&repo, None, Some(&config)), None);
    }

    #[test]
    fn the_outermost_trusted_folder_is_the_root_whatever_the_order() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        let outer = dir.path().join("x");
        let repo = outer.join("team").join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        let store = TrustStore::in_dir(&config);
        store.add(&repo, None, false).unwrap();
        let outer = store.add(&outer, None, false).unwrap();
        assert!(
            matches!(lookup(&repo, None, Some(&config)), Some(TrustedBy::Store(p)) if p == outer)
        );
        let repo = std::fs::canonicalize(&repo).unwrap();
        let claude = json!({"projects": {
            repo.display().to_string(): {"hasTrustDialogAccepted": true},
            outer.display().to_string(): {"hasTrustDialogAccepted": true},
        }});
        std::fs::write(dir.path().join(".claude.json"), claude.to_string()).unwrap();
        assert!(matches!(
            lookup(&repo, Some(dir.path()), None),
            Some(TrustedBy::ClaudeCode(p)) if p == outer
        ));
    }

    #[test]
    fn claude_code_trust_dialog_counts() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        let repo = std::fs::canonicalize(&repo).unwrap();
        let claude =
            json!({"projects": {repo.display().to_string(): {"hasTrustDialogAccepted": true}}});
        std::fs::write(dir.path().join(".claude.json"), claude.to_string()).unwrap();
        assert!(matches!(
            lookup(&repo, Some(dir.path()), None),
            Some(TrustedBy::ClaudeCode(_))
        ));
        let other = dir.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        assert_eq!(lookup(&other, Some(dir.path()), None), None);
    }
}

//! Per-session state that outlives a process: which `once` hooks ran and how many Stop
//! blocks in a row a session has had, for hosts that run `hookhost fire` once per event
//! (a long-running engine — `serve`, `--stdio`, the library — keeps this in memory).
//!
//! One small JSON file per session id (named by a digest of the id) in a private folder
//! (0700, files 0600, never through a symlink). A read-modify-write holds an exclusive
//! lock (`File::lock`: `flock` on Unix, `LockFileEx` on Windows) on the session's lock
//! file, so concurrent `fire` processes of one session do not lose each other's updates.
//! Bounded: files idle longer than [`MAX_IDLE`] are removed, and past [`MAX_SESSIONS`]
//! files the least recently used go first.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::session_memory::{MAX_IDLE, MAX_SESSIONS};
use crate::platform;

/// Largest session file read, bytes (a session's `once` list is short).
const MAX_FILE: u64 = 256 << 10;

/// What one session remembers.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub(crate) struct SessionState {
    /// Stable keys of the `once` hooks that ran.
    #[serde(default)]
    pub once: Vec<String>,
    /// Consecutive Stop blocks.
    #[serde(default)]
    pub stop_blocks: u32,
}

/// The folder of session files.
#[derive(Debug)]
pub(crate) struct SessionStore {
    dir: PathBuf,
    /// What session ids are scoped to (the project directory): one id in two projects is
    /// two sessions.
    scope: String,
}

impl SessionStore {
    /// The store in `dir` for sessions of `scope` (the project directory), created
    /// private; a folder others can write is refused.
    pub(crate) fn open(dir: &Path, scope: &str) -> std::io::Result<SessionStore> {
        crate::files::create_private_dir(dir)?;
        let meta = std::fs::symlink_metadata(dir)?;
        if !meta.is_dir() || !platform::owned_by_me(&meta) || platform::others_may_write(&meta) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("{} is not a private folder of this user", dir.display()),
            ));
        }
        Ok(SessionStore {
            dir: dir.to_path_buf(),
            scope: scope.to_string(),
        })
    }

    fn stem(&self, session: &str) -> PathBuf {
        let mut hasher = Sha256::new();
        hasher.update(self.scope.as_bytes());
        hasher.update([0u8]);
        hasher.update(session.as_bytes());
        let digest = format!("{:x}", hasher.finalize());
        self.dir.join(&digest[..32])
    }

    /// Reads the session's state (empty when it has none or it cannot be read). No lock
    /// and no write: files are replaced by rename, so a read sees one whole version.
    pub(crate) fn read(&self, session: &str) -> SessionState {
        crate::files::read_regular(&self.stem(session).with_extension("json"), MAX_FILE)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Changes the session's state under an exclusive lock and returns what `change`
    /// returns. A new session may prune old ones.
    pub(crate) fn update<R>(
        &self,
        session: &str,
        change: impl FnOnce(&mut SessionState) -> R,
    ) -> std::io::Result<R> {
        let stem = self.stem(session);
        let lock = private_file(&stem.with_extension("lock"), false)?;
        // Released when `lock` is closed, at the end of this call.
        lock.lock()?;
        let path = stem.with_extension("json");
        let existing = crate::files::read_regular(&path, MAX_FILE).ok();
        let mut state: SessionState = existing
            .as_deref()
            .and_then(|bytes| serde_json::from_slice(bytes).ok())
            .unwrap_or_default();
        let before = serde_json::to_vec(&state).unwrap_or_default();
        let result = change(&mut state);
        let after = serde_json::to_vec(&state).unwrap_or_default();
        if after != before || existing.is_none() {
            let temp = stem.with_extension("tmp");
            let _ = std::fs::remove_file(&temp);
            let mut file = private_file(&temp, true)?;
            file.write_all(&after)?;
            drop(file);
            std::fs::rename(&temp, &path)?;
        } else {
            // Mark it used, so pruning keeps sessions in use.
            let _ = File::options()
                .append(true)
                .open(&path)
                .and_then(|file| file.set_modified(SystemTime::now()));
        }
        if existing.is_none() {
            self.prune();
        }
        Ok(result)
    }

    /// Removes session files idle longer than [`MAX_IDLE`], then the least recently used
    /// beyond [`MAX_SESSIONS`].
    fn prune(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let now = SystemTime::now();
        let mut files: Vec<(SystemTime, PathBuf)> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .filter_map(|path| {
                let used = std::fs::symlink_metadata(&path).ok()?.modified().ok()?;
                Some((used, path))
            })
            .collect();
        let stale =
            |used: &SystemTime| now.duration_since(*used).unwrap_or(Duration::ZERO) > MAX_IDLE;
        files.sort();
        let excess = files.len().saturating_sub(MAX_SESSIONS);
        for (index, (used, path)) in files.iter().enumerate() {
            if index < excess || stale(used) {
                let _ = std::fs::remove_file(path);
                let _ = std::fs::remove_file(path.with_extension("lock"));
            }
        }
    }
}

/// Opens (or creates, mode 0600) a file of the store, never through a symlink.
fn private_file(path: &Path, new: bool) -> std::io::Result<File> {
    let mut options = File::options();
    options.read(true).write(true);
    platform::no_follow(platform::private_file(&mut options));
    if new {
        options.create_new(true);
    } else {
        options.create(true);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_updates_of_one_session_are_not_lost() {
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(SessionStore::open(&dir.path().join("s"), "/p").unwrap());
        let threads: Vec<_> = (0..8)
            .map(|n| {
                let store = store.clone();
                std::thread::spawn(move || {
                    for i in 0..20 {
                        store
                            .update("one", |state| state.once.push(format!("{n}-{i}")))
                            .unwrap();
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(store.read("one").once.len(), 160);
        assert!(store.read("other").once.is_empty());
    }

    #[test]
    #[cfg(unix)]
    fn a_folder_others_can_write_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(SessionStore::open(&shared, "/p").is_err());
    }
}

//! The artifact cache's size cap: every use of an artifact stamps its modification time,
//! and after each store the least recently used artifacts are removed until the folder
//! holds at most the cap (the one just stored always stays). `hookhost cache` lists,
//! prunes and clears with the same functions.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The default cap of the artifact cache: 2 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 2 << 30;

/// One stored artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheEntry {
    /// Its file.
    pub path: PathBuf,
    /// Its size, bytes.
    pub bytes: u64,
    /// When it was last stored or used.
    pub last_used: SystemTime,
}

/// The artifacts in `dir` (regular `*.cwasm` files of this user), least recently used
/// first. Anything else in the folder is left out (and never removed).
pub fn entries(dir: &Path) -> std::io::Result<Vec<CacheEntry>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if path.extension().is_none_or(|ext| ext != "cwasm") {
            continue;
        }
        // Never through a link: the entry itself.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_file() || !crate::platform::owned_by_me(&meta) {
            continue;
        }
        found.push(CacheEntry {
            path,
            bytes: meta.len(),
            last_used: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        });
    }
    found.sort_by(|a, b| a.last_used.cmp(&b.last_used).then(a.path.cmp(&b.path)));
    Ok(found)
}

/// Remembered component digests ([`super::memo`]) are forgotten after this long unused.
const MEMO_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

/// Removes the least recently used artifacts of `dir` until they total at most
/// `max_bytes`, never `keep`; returns what was removed. Remembered digests go too: all of
/// them when the cap is 0 (clearing), else those written more than 30 days ago.
pub fn prune(dir: &Path, max_bytes: u64, keep: Option<&Path>) -> std::io::Result<Vec<CacheEntry>> {
    forget_memos(dir, (max_bytes > 0).then_some(MEMO_MAX_AGE))?;
    let all = entries(dir)?;
    let mut total: u64 = all.iter().map(|e| e.bytes).sum();
    let mut removed = Vec::new();
    for entry in all {
        if total <= max_bytes {
            break;
        }
        if Some(entry.path.as_path()) == keep {
            continue;
        }
        match std::fs::remove_file(&entry.path) {
            Ok(()) => {
                total -= entry.bytes;
                removed.push(entry);
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(err),
        }
    }
    Ok(removed)
}

/// Removes the `*.digest` memos of this user in `dir` older than `max_age` (all: `None`).
fn forget_memos(dir: &Path, max_age: Option<std::time::Duration>) -> std::io::Result<()> {
    let cutoff = max_age.map(|age| SystemTime::now() - age);
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_none_or(|ext| ext != "digest") {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let old = cutoff.is_none_or(|cutoff| meta.modified().is_ok_and(|m| m < cutoff));
        if meta.is_file() && crate::platform::owned_by_me(&meta) && old {
            let _ = std::fs::remove_file(&path);
        }
    }
    Ok(())
}

/// Marks `file` (an open artifact) as used now.
pub(super) fn touch(file: &std::fs::File) {
    let _ = file.set_modified(SystemTime::now());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn artifact(dir: &Path, name: &str, bytes: usize, age_secs: u64) -> PathBuf {
        let path = dir.join(format!("{name}.cwasm"));
        std::fs::write(&path, vec![0u8; bytes]).unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(age_secs))
            .unwrap();
        path
    }

    #[test]
    fn the_least_recently_used_go_first_and_the_new_one_stays() {
        let dir = tempfile::tempdir().unwrap();
        let old = artifact(dir.path(), "old", 400, 300);
        let mid = artifact(dir.path(), "mid", 400, 200);
        let new = artifact(dir.path(), "new", 400, 0);
        std::fs::write(dir.path().join("cache.notes"), "not an artifact").unwrap();
        // The oldest is the one just stored (as a store stamps it): it stays anyway.
        let removed = prune(dir.path(), 500, Some(&old)).unwrap();
        let gone: Vec<_> = removed.iter().map(|e| e.path.clone()).collect();
        assert_eq!(gone, vec![mid.clone(), new.clone()]);
        assert!(old.exists() && dir.path().join("cache.notes").exists());
        assert_eq!(entries(dir.path()).unwrap().len(), 1);
        // Under the cap nothing goes.
        assert!(prune(dir.path(), 10_000, None).unwrap().is_empty());
    }

    #[test]
    fn clearing_forgets_remembered_digests_pruning_keeps_fresh_ones() {
        let dir = tempfile::tempdir().unwrap();
        let memo = dir.path().join("fe00-1.digest");
        std::fs::write(&memo, b"memo").unwrap();
        prune(dir.path(), 1 << 20, None).unwrap();
        assert!(memo.exists(), "a fresh memo stays under a cap");
        let file = std::fs::File::options().write(true).open(&memo).unwrap();
        file.set_modified(SystemTime::now() - MEMO_MAX_AGE - Duration::from_secs(60))
            .unwrap();
        prune(dir.path(), 1 << 20, None).unwrap();
        assert!(!memo.exists(), "an old memo goes");
        std::fs::write(&memo, b"memo").unwrap();
        prune(dir.path(), 0, None).unwrap();
        assert!(!memo.exists(), "clearing forgets every memo");
    }

    #[test]
    #[cfg(unix)]
    fn a_symlink_is_never_an_entry_nor_removed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = artifact(outside.path(), "victim", 100, 0);
        std::os::unix::fs::symlink(&target, dir.path().join("link.cwasm")).unwrap();
        assert!(entries(dir.path()).unwrap().is_empty());
        prune(dir.path(), 0, None).unwrap();
        assert!(target.exists());
    }
}

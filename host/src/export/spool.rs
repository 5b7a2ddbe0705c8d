//! The spool: where a one-shot process (`hookhost claude hook`, an agent's hook, `fire`)
//! leaves its decision record, since it exits as soon as it has answered and must not
//! wait for a collector. One small private file per record in hookhost's state folder;
//! `serve` sends them (every second) and `hookhost telemetry flush` does on demand. Bounded
//! on disk: each record takes one of [`MAX_FILES`] slots, and when the slots it tries are
//! taken it is dropped, the drop counted by one byte appended to `dropped.count`, so the
//! count survives the process.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::record::DecisionRecord;

/// Records the spool holds at most.
pub const MAX_FILES: usize = 10_000;
/// Slots tried before a record is dropped as the spool being full.
const SLOT_TRIES: usize = 8;
/// Largest record file read back.
pub const MAX_RECORD_BYTES: u64 = 64 << 10;
const DROPPED: &str = "dropped.count";
/// The spool's folder in hookhost's state folder.
pub const SPOOL_DIR: &str = "telemetry-spool";

/// A spool folder.
#[derive(Debug, Clone)]
pub struct Spool {
    dir: PathBuf,
}

impl Spool {
    /// The spool at `dir` (hookhost's state folder's [`SPOOL_DIR`]).
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
        }
    }

    /// Its folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Leaves `record` for a later sender; a full spool drops it (counted).
    pub fn put(&self, record: &DecisionRecord) {
        let kept = self.try_put(record);
        if let Err(err) = kept {
            tracing::warn!("decision not spooled for export ({err}); dropped");
            self.count_drop();
        }
    }

    /// Writes `record` under a temporary name, then links it into one of [`MAX_FILES`]
    /// slots chosen at random (a taken slot is never overwritten: another is tried), so
    /// the spool is bounded without counting its files on every write.
    fn try_put(&self, record: &DecisionRecord) -> Result<(), String> {
        crate::files::ensure_private_dir(&self.dir)?;
        let bytes = serde_json::to_vec(record).map_err(|e| e.to_string())?;
        let mut random = [0u8; 8 * (SLOT_TRIES + 1)];
        getrandom::fill(&mut random).map_err(|e| e.to_string())?;
        let words: Vec<u64> = random
            .chunks_exact(8)
            .map(|chunk| u64::from_le_bytes(chunk.try_into().unwrap_or_default()))
            .collect();
        let temp = self.dir.join(format!(".{:016x}.tmp", words[0]));
        crate::files::replace_private(&temp, &bytes).map_err(|e| e.to_string())?;
        let linked = words[1..].iter().find_map(|word| {
            let slot = self
                .dir
                .join(format!("{:05}.json", word % MAX_FILES as u64));
            std::fs::hard_link(&temp, &slot).ok()
        });
        let _ = std::fs::remove_file(&temp);
        linked.ok_or_else(|| {
            format!("the spool is full (no free slot of {MAX_FILES} in {SLOT_TRIES} tries)")
        })
    }

    fn count_drop(&self) {
        if crate::files::ensure_private_dir(&self.dir).is_err() {
            return;
        }
        if let Ok(mut file) = crate::files::open_private_append(&self.dir.join(DROPPED)) {
            let _ = file.write_all(b".");
        }
    }

    /// Records dropped because the spool was full (ever, until the count is reset).
    pub fn dropped(&self) -> u64 {
        std::fs::symlink_metadata(self.dir.join(DROPPED)).map_or(0, |m| m.len())
    }

    /// Takes up to `max` records, oldest first among those taken, removing their files. A
    /// file that is not a private regular record is removed unread.
    pub fn take(&self, max: usize) -> Vec<DecisionRecord> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut names: Vec<PathBuf> = entries
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        names.sort();
        let mut records = Vec::new();
        for path in names.into_iter().take(max) {
            let record = crate::files::open_regular(&path, MAX_RECORD_BYTES)
                .and_then(|file| {
                    crate::files::check_private(&file.metadata()?)?;
                    let mut bytes = Vec::new();
                    std::io::Read::read_to_end(
                        &mut std::io::Read::take(file, MAX_RECORD_BYTES),
                        &mut bytes,
                    )?;
                    Ok(bytes)
                })
                .ok()
                .and_then(|bytes| serde_json::from_slice(&bytes).ok());
            let _ = std::fs::remove_file(&path);
            records.extend(record);
        }
        records.sort_by_key(|record: &DecisionRecord| record.end_unix_nano);
        records
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(at: u64) -> DecisionRecord {
        DecisionRecord {
            end_unix_nano: at,
            duration_nano: 1,
            event: "PreToolUse".into(),
            tool_name: Some("Bash".into()),
            tool_call_id: None,
            session_id: None,
            project: None,
            agent: None,
            decision: "deny".into(),
            reason: None,
            decided_by: None,
            components: Vec::new(),
            policy_revision: None,
            tool_input: None,
        }
    }

    #[test]
    fn records_come_back_oldest_first_once_and_junk_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let spool = Spool::new(&dir.path().join(SPOOL_DIR));
        spool.put(&record(30));
        spool.put(&record(10));
        std::fs::write(spool.dir().join("00-junk.json"), b"not json").unwrap();
        let taken = spool.take(10);
        assert_eq!(
            taken.iter().map(|r| r.end_unix_nano).collect::<Vec<_>>(),
            vec![10, 30]
        );
        assert!(spool.take(10).is_empty());
        assert_eq!(spool.dropped(), 0);
    }
}

//! Remembered component digests: a new process that loads a cached component need not
//! read and hash the whole component file (a Python guest is ~18 MB: ~12 ms of SHA-256)
//! just to learn which artifact to load.
//!
//! A memo maps a file's identity (device, inode) and change stamp (size, modification and
//! status-change times, to the nanosecond) to the SHA-256 of its bytes. It is trusted only
//! when
//! - the file's stamp now is exactly the stamp recorded: any write to the file changes its
//!   status-change time (`ctime`), which no unprivileged process can set back;
//! - the stamp was at least [`SETTLED`] old when the file was hashed and unchanged across
//!   the read (a write in the same clock tick as the read cannot share a stamp with the
//!   bytes hashed: the "racy timestamp" rule git uses for its index);
//! - its keyed BLAKE3 MAC (the artifact key, another domain) verifies, and it is a regular
//!   file of this user in the private cache folder.
//!
//! On systems without a status-change time (Windows) nothing is remembered: the file is
//! hashed on every load. Whatever a memo says, the code that runs is the artifact of the
//! digest that was checked against the hook's `sha256` pin.

use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// How old a file's change stamp must be before its digest is remembered.
pub const SETTLED: Duration = Duration::from_secs(2);
const DIGEST_BYTES: usize = 32;
const STAMP_BYTES: usize = 8 * 3 + 16 * 2;
const RECORD_BYTES: usize = STAMP_BYTES + DIGEST_BYTES + blake3::OUT_LEN;
/// MAC domain: a memo's tag can never pass for an artifact's, nor the reverse.
const DOMAIN: &[u8] = b"hookhost component digest memo v1";

/// A component file's identity and change stamp, from the metadata of the open file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    modified_ns: i128,
    changed_ns: i128,
}

impl Stamp {
    /// The stamp of an open file's metadata; `None` where the system keeps no
    /// status-change time.
    pub fn of(meta: &std::fs::Metadata) -> Option<Self> {
        crate::platform::change_stamp(meta).map(|s| Stamp {
            dev: s.dev,
            ino: s.ino,
            size: meta.len(),
            modified_ns: s.modified_ns,
            changed_ns: s.changed_ns,
        })
    }

    fn bytes(&self) -> [u8; STAMP_BYTES] {
        let mut out = [0u8; STAMP_BYTES];
        out[0..8].copy_from_slice(&self.dev.to_le_bytes());
        out[8..16].copy_from_slice(&self.ino.to_le_bytes());
        out[16..24].copy_from_slice(&self.size.to_le_bytes());
        out[24..40].copy_from_slice(&self.modified_ns.to_le_bytes());
        out[40..56].copy_from_slice(&self.changed_ns.to_le_bytes());
        out
    }

    /// True when the file last changed at least [`SETTLED`] before `now`.
    pub fn settled(&self, now: SystemTime) -> bool {
        let now_ns = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        let newest = self.changed_ns.max(self.modified_ns);
        now_ns - newest >= SETTLED.as_nanos() as i128
    }

    fn file_name(&self) -> String {
        format!("{:x}-{:x}.digest", self.dev, self.ino)
    }
}

fn tag(key: &[u8; 32], body: &[u8]) -> blake3::Hash {
    let mut mac = blake3::Hasher::new_keyed(key);
    mac.update(DOMAIN);
    mac.update(body);
    mac.finalize()
}

/// The digest remembered for `stamp` in `dir`, when the memo holds (see the module doc).
pub(super) fn recall(dir: &Path, key: &[u8; 32], stamp: &Stamp) -> Option<String> {
    let path = dir.join(stamp.file_name());
    let file = super::open_private_file(&path).ok()??;
    let mut record = Vec::with_capacity(RECORD_BYTES);
    file.take(RECORD_BYTES as u64 + 1)
        .read_to_end(&mut record)
        .ok()?;
    if record.len() != RECORD_BYTES {
        return None;
    }
    let (body, mac) = record.split_at(STAMP_BYTES + DIGEST_BYTES);
    let mac: [u8; 32] = mac.try_into().ok()?;
    if tag(key, body) != blake3::Hash::from_bytes(mac) || body[..STAMP_BYTES] != stamp.bytes() {
        return None;
    }
    Some(super::hex(&body[STAMP_BYTES..]))
}

/// Records `digest` (lowercase hex SHA-256) for `stamp` in `dir`, unless the stamp is
/// too recent to be trusted.
pub(super) fn remember(
    dir: &Path,
    key: &[u8; 32],
    stamp: &Stamp,
    digest: &str,
) -> Result<(), String> {
    if !stamp.settled(SystemTime::now()) {
        return Ok(());
    }
    let raw = unhex(digest).ok_or("not a SHA-256 digest")?;
    let mut body = Vec::with_capacity(RECORD_BYTES);
    body.extend_from_slice(&stamp.bytes());
    body.extend_from_slice(&raw);
    let mac = tag(key, &body);
    body.extend_from_slice(mac.as_bytes());
    let name = stamp.file_name();
    let (temp, mut file) = super::create_exclusive(dir, &name)?;
    let written = file.write_all(&body);
    drop(file);
    if let Err(err) = written.and_then(|()| std::fs::rename(&temp, dir.join(&name))) {
        let _ = std::fs::remove_file(&temp);
        return Err(err.to_string());
    }
    Ok(())
}

fn unhex(text: &str) -> Option<[u8; DIGEST_BYTES]> {
    if text.len() != DIGEST_BYTES * 2 {
        return None;
    }
    let mut out = [0u8; DIGEST_BYTES];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn stamp_of(path: &Path) -> Stamp {
        Stamp::of(&std::fs::metadata(path).unwrap()).unwrap()
    }

    fn age(path: &Path, secs: u64) {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(secs))
            .unwrap();
    }

    #[test]
    fn a_settled_file_is_remembered_and_any_write_forgets_it() {
        let dir = tempfile::tempdir().unwrap();
        let key = [7u8; 32];
        let component = dir.path().join("hook.wasm");
        std::fs::write(&component, b"first").unwrap();
        let digest = super::super::digest(b"first");
        // Just written: too fresh to remember (its ctime is now).
        let fresh = stamp_of(&component);
        remember(dir.path(), &key, &fresh, &digest).unwrap();
        assert_eq!(recall(dir.path(), &key, &fresh), None);
        // A stamp from the past (as a file written a while ago has) is remembered.
        let old = Stamp {
            changed_ns: fresh.changed_ns - 10_000_000_000,
            modified_ns: fresh.modified_ns - 10_000_000_000,
            ..fresh
        };
        remember(dir.path(), &key, &old, &digest).unwrap();
        assert_eq!(recall(dir.path(), &key, &old), Some(digest.clone()));
        // Another key, or any field of the stamp changed: not recalled.
        assert_eq!(recall(dir.path(), &[8u8; 32], &old), None);
        let bigger = Stamp {
            size: old.size + 1,
            ..old
        };
        assert_eq!(recall(dir.path(), &key, &bigger), None);
        // Rewriting the file (even setting its mtime back) moves its ctime: forgotten.
        std::fs::write(&component, b"other").unwrap();
        age(&component, 3600);
        let now = stamp_of(&component);
        assert_ne!(now.changed_ns, old.changed_ns);
        assert_eq!(recall(dir.path(), &key, &now), None);
    }

    #[test]
    fn a_tampered_memo_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let key = [1u8; 32];
        let stamp = Stamp {
            dev: 1,
            ino: 2,
            size: 3,
            modified_ns: 4,
            changed_ns: 5,
        };
        let digest = super::super::digest(b"x");
        remember(dir.path(), &key, &stamp, &digest).unwrap();
        let path = dir.path().join(stamp.file_name());
        let mut record = std::fs::read(&path).unwrap();
        record[STAMP_BYTES] ^= 1; // another digest, same stamp
        std::fs::write(&path, &record).unwrap();
        assert_eq!(recall(dir.path(), &key, &stamp), None);
    }
}

//! Unix (Linux, macOS, the BSDs).

use std::os::unix::fs::MetadataExt;

use super::ChangeStamp;

/// The identity and change times of `meta`.
pub fn change_stamp(meta: &std::fs::Metadata) -> Option<ChangeStamp> {
    let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
    Some(ChangeStamp {
        dev: meta.dev(),
        ino: meta.ino(),
        modified_ns: ns(meta.mtime(), meta.mtime_nsec()),
        changed_ns: ns(meta.ctime(), meta.ctime_nsec()),
    })
}

//! Windows.

use super::ChangeStamp;

/// `None`: std exposes no status-change time on Windows (only creation, access and write
/// times, which a process can set), so nothing is remembered by change stamp.
pub fn change_stamp(_meta: &std::fs::Metadata) -> Option<ChangeStamp> {
    None
}

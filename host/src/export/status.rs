//! What a machine reports of itself: its hookhost version, the policy the managed
//! settings name, the revision in force and when it was activated, the last pull and its
//! error, and how many decisions the export dropped — sent as a `hookhost.status` span
//! when `serve` starts, when a pull activates or fails, and every `statusInterval`
//! seconds, so a fleet view can group machines by revision and list the failing ones.

use serde::{Deserialize, Serialize};

use crate::fleet::store::PolicyStore;

/// One status report.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct StatusReport {
    /// When (unix nanoseconds).
    pub time_unix_nano: u64,
    /// Why it was sent: `start`, `activated`, `unchanged`, `pull-failed`, `periodic`.
    pub reason: String,
    /// hookhost's version.
    pub version: String,
    /// The reference the managed settings name.
    pub reference: Option<String>,
    /// The revision in force.
    pub revision: Option<String>,
    /// When it was activated (RFC 3339).
    pub activated_at: Option<String>,
    /// When a pull was last tried (RFC 3339).
    pub last_pull: Option<String>,
    /// The last pull's error, if it failed.
    pub last_error: Option<String>,
    /// Decisions the export dropped since this process started (queue full, collector
    /// down past the retries, spool full).
    pub dropped: u64,
}

impl StatusReport {
    /// The report of the policy kept in `store` (if any), for `reason`.
    pub fn read(store: Option<&PolicyStore>, reason: &str, dropped: u64) -> Self {
        let active = store.and_then(PolicyStore::active);
        let status = store.map(PolicyStore::status).unwrap_or_default();
        Self {
            time_unix_nano: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64),
            reason: reason.to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            reference: Some(status.reference)
                .filter(|r| !r.is_empty())
                .or_else(|| active.as_ref().map(|a| a.reference.clone())),
            revision: active.as_ref().map(|a| a.revision.clone()),
            activated_at: active.map(|a| a.activated_at),
            last_pull: status.last_pull,
            last_error: status.last_error,
            dropped,
        }
    }
}

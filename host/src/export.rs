//! Every decision exported over OTLP (HTTP/protobuf) to the collector the owners name in
//! `telemetry` (managed ▸ `--settings` ▸ user settings; never a repository's, never the
//! environment): a span per event ([`record`], [`otlp`]) handed to a sender thread that
//! batches and retries ([`sender`]); a one-shot process spools its record instead
//! ([`spool`]) for `serve` or `hookhost telemetry flush` to send; and each machine's
//! status ([`status`]). The export never changes or slows a decision.

mod credentials;
pub mod otlp;
pub mod record;
pub mod sender;
pub mod spool;
pub mod status;

pub use crate::config::TelemetrySettings;
pub use credentials::redact_all as redact_credentials;
pub use record::DecisionRecord;
pub use sender::{ExportStats, Sender, stats};
pub use spool::Spool;
pub use status::StatusReport;

/// Sends this machine's status for `reason` and waits (at most `limit`) for the
/// collector to take it: for a command that exits next (`hookhost policy pull`).
/// Whether it was taken.
pub fn report_once(
    settings: &TelemetrySettings,
    store: Option<&crate::fleet::store::PolicyStore>,
    reason: &str,
    limit: std::time::Duration,
) -> bool {
    use std::sync::atomic::Ordering::Relaxed;
    let revision = store
        .and_then(crate::fleet::store::PolicyStore::active)
        .map(|active| active.revision);
    let sender = Sender::start(settings, settings.resource_for(revision.as_deref()));
    let before = stats().exported.load(Relaxed);
    let report = StatusReport::read(store, reason, stats().dropped.load(Relaxed));
    sender.send(otlp::status_span(&report));
    sender.flush(limit) && stats().exported.load(Relaxed) > before
}

/// Sends every record in `spool` and this machine's status (`flush`), waiting for each
/// batch (at most `limit` each): `hookhost telemetry flush`. Returns how many records
/// were taken from the spool.
pub fn send_spool(
    settings: &TelemetrySettings,
    spool: &Spool,
    store: Option<&crate::fleet::store::PolicyStore>,
    limit: std::time::Duration,
) -> usize {
    use std::sync::atomic::Ordering::Relaxed;
    let revision = store
        .and_then(crate::fleet::store::PolicyStore::active)
        .map(|active| active.revision);
    let sender = Sender::start(settings, settings.resource_for(revision.as_deref()));
    let mut sent = 0;
    loop {
        let records = spool.take(sender::MAX_BATCH);
        if records.is_empty() {
            break;
        }
        sent += records.len();
        for record in &records {
            sender.send(otlp::decision_span(record));
        }
        sender.flush(limit);
    }
    let dropped = stats().dropped.load(Relaxed) + spool.dropped();
    sender.send(otlp::status_span(&StatusReport::read(
        store, "flush", dropped,
    )));
    sender.flush(limit);
    sent
}

/// Where an engine's decisions go.
#[derive(Debug)]
pub(crate) enum Exporter {
    /// Straight to the collector, through this process's sender thread.
    Direct {
        /// The sender.
        sender: Sender,
        /// What to record.
        settings: TelemetrySettings,
        /// The policy revision in force.
        revision: Option<String>,
        /// The spool one-shot processes leave records in, which this process sends.
        spool: Option<Spool>,
        /// The machine's policy store, which status reports read.
        store: Option<crate::fleet::store::PolicyStore>,
    },
    /// Into the spool (a one-shot process).
    Spooled {
        /// The spool.
        spool: Spool,
        /// What to record.
        settings: TelemetrySettings,
        /// The policy revision in force.
        revision: Option<String>,
    },
}

impl Exporter {
    /// The exporter for `settings`: into `spool` when `direct` is off, else straight to
    /// the collector (and `spool`'s records with it); `policy` is the revision in force
    /// and the machine's policy store, when the managed settings name a policy.
    pub(crate) fn new(
        settings: TelemetrySettings,
        policy: Option<(Option<String>, &std::path::Path)>,
        spool: Option<Spool>,
        direct: bool,
    ) -> Self {
        let revision = policy.as_ref().and_then(|(revision, _)| revision.clone());
        match spool {
            Some(spool) if !direct => Self::Spooled {
                spool,
                settings,
                revision,
            },
            spool => Self::Direct {
                sender: Sender::start(&settings, settings.resource_for(revision.as_deref())),
                settings,
                revision,
                spool,
                store: policy.map(|(_, store)| crate::fleet::store::PolicyStore::at(store)),
            },
        }
    }

    /// Sends up to [`sender::MAX_BATCH`] records the spool holds (a direct exporter);
    /// returns how many.
    pub(crate) fn send_spooled(&self) -> usize {
        let Self::Direct {
            sender,
            spool: Some(spool),
            ..
        } = self
        else {
            return 0;
        };
        let records = spool.take(sender::MAX_BATCH);
        for record in &records {
            sender.send(otlp::decision_span(record));
        }
        records.len()
    }

    /// Sends a status report for `reason` (a direct exporter).
    pub(crate) fn report(&self, reason: &str) {
        if let Self::Direct {
            sender,
            spool,
            store,
            ..
        } = self
        {
            let dropped = stats().dropped.load(std::sync::atomic::Ordering::Relaxed)
                + spool.as_ref().map_or(0, Spool::dropped);
            let report = StatusReport::read(store.as_ref(), reason, dropped);
            sender.send(otlp::status_span(&report));
        }
    }

    /// Waits (at most `limit`) until what was handed over is sent (a direct exporter).
    pub(crate) fn flush(&self, limit: std::time::Duration) -> bool {
        match self {
            Self::Direct { sender, .. } => sender.flush(limit),
            Self::Spooled { .. } => true,
        }
    }

    /// Exports the decision on `input`, answered with `outcome`, `started` when it came.
    pub(crate) fn record(
        &self,
        input: &crate::hook_input::HookInput,
        outcome: &crate::outcome::EventOutcome,
        started: std::time::SystemTime,
    ) {
        match self {
            Self::Direct {
                sender,
                settings,
                revision,
                ..
            } => {
                let record =
                    DecisionRecord::of(input, outcome, started, revision.as_deref(), settings);
                sender.send(otlp::decision_span(&record));
            }
            Self::Spooled {
                spool,
                settings,
                revision,
            } => {
                let record =
                    DecisionRecord::of(input, outcome, started, revision.as_deref(), settings);
                spool.put(&record);
                stats()
                    .spooled
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }
}

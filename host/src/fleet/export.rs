//! Every decision exported over OTLP (HTTP/protobuf) to the collector the owners name in
//! `telemetry` (managed ▸ `--settings` ▸ user settings; never a repository's, never the
//! environment): a span per event ([`record`], [`otlp`]) handed to a sender thread that
//! batches and retries ([`sender`]); a one-shot process spools its record instead
//! ([`spool`]) for `serve` or `hookhost telemetry flush` to send; and each machine's
//! status ([`status`]). The export never changes or slows a decision.

pub mod otlp;
pub mod record;
pub mod sender;
pub mod spool;
pub mod status;

pub use record::DecisionRecord;
pub use sender::{ExportStats, Sender, stats};
pub use spool::Spool;
pub use status::StatusReport;

/// The owners' `telemetry` setting.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TelemetrySettings {
    /// The collector's OTLP/HTTP base (`https://…:4318`, plain http only on loopback);
    /// traces go to `<endpoint>/v1/traces`.
    pub endpoint: String,
    /// Headers sent with every POST (e.g. an ingest key).
    pub headers: Vec<(String, String)>,
    /// Whether a tool's input is exported (`captureToolInput`, default off).
    pub capture_tool_input: bool,
    /// Resource attributes added to the machine's own (`resource`).
    pub resource: Vec<(String, String)>,
    /// Bytes of each text attribute kept (`maxTextBytes`, default 4096).
    pub max_text_bytes: usize,
    /// Seconds between `serve`'s status reports (`statusInterval`, default 300).
    pub status_interval: u64,
}

/// Default bytes kept of a reason or a captured input.
pub const DEFAULT_MAX_TEXT_BYTES: usize = 4096;

impl TelemetrySettings {
    /// The settings for `endpoint`, every other field at its default.
    pub fn for_endpoint(endpoint: &str) -> Self {
        Self {
            endpoint: endpoint.trim_end_matches('/').to_string(),
            headers: Vec::new(),
            capture_tool_input: false,
            resource: Vec::new(),
            max_text_bytes: DEFAULT_MAX_TEXT_BYTES,
            status_interval: 300,
        }
    }

    /// Where spans are POSTed.
    pub fn traces_url(&self) -> String {
        if self.endpoint.ends_with("/v1/traces") {
            self.endpoint.clone()
        } else {
            format!("{}/v1/traces", self.endpoint)
        }
    }

    /// The machine's resource attributes: `service.*`, `host.*`, the policy revision in
    /// force, then the owner's `resource`.
    pub fn resource_for(&self, policy_revision: Option<&str>) -> Vec<(String, String)> {
        let mut resource = vec![
            ("service.name".to_string(), "hookhost".to_string()),
            (
                "service.version".to_string(),
                env!("CARGO_PKG_VERSION").to_string(),
            ),
            ("os.type".to_string(), std::env::consts::OS.to_string()),
        ];
        if let Some(name) = crate::platform::host_name() {
            resource.push(("host.name".into(), name));
        }
        if let Some(id) = machine_id() {
            resource.push(("host.id".into(), id));
        }
        if let Some(revision) = policy_revision {
            resource.push(("hookhost.policy.revision".into(), revision.to_string()));
        }
        for (key, value) in &self.resource {
            resource.retain(|(known, _)| known != key);
            resource.push((key.clone(), value.clone()));
        }
        resource
    }
}

/// `/etc/machine-id` (systemd's stable machine identity), when there is one.
fn machine_id() -> Option<String> {
    let bytes = crate::files::read_regular(std::path::Path::new("/etc/machine-id"), 256).ok()?;
    let id = String::from_utf8(bytes).ok()?.trim().to_string();
    (!id.is_empty()).then_some(id)
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
    /// the collector (and `spool`'s records with it).
    pub(crate) fn new(
        settings: TelemetrySettings,
        policy: Option<&crate::config::PolicyState>,
        spool: Option<Spool>,
        direct: bool,
    ) -> Self {
        let revision = policy.and_then(|p| p.revision.clone());
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
                store: policy.map(|p| crate::fleet::store::PolicyStore::at(&p.store)),
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

//! `/metrics`: call and hook-result counters, a latency histogram, cache and reload
//! counters, as Prometheus text.

use super::*;

/// Latency buckets of the histogram, seconds.
pub(super) const BUCKETS: [f64; 12] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0,
];

#[derive(Default)]
pub(super) struct Metrics {
    /// (event, decision) → calls.
    pub(super) calls: Mutex<BTreeMap<(String, &'static str), u64>>,
    /// (hook, status) → results.
    pub(super) results: Mutex<BTreeMap<(String, String), u64>>,
    /// Bucket counts (the last is +Inf), sum of seconds, count.
    pub(super) latency: Mutex<([u64; BUCKETS.len() + 1], f64, u64)>,
    pub(super) reloads: AtomicU64,
    pub(super) reload_failures: AtomicU64,
    pub(super) rejected_auth: AtomicU64,
    pub(super) rejected_overload: AtomicU64,
}

impl Metrics {
    pub(super) fn record(&self, outcome: &EventOutcome, elapsed: Duration) {
        let decision = match (outcome.permission_decision, outcome.should_block) {
            (Some(decision), _) => decision.as_str(),
            (None, true) => "block",
            (None, false) => "none",
        };
        *lock(&self.calls)
            .entry((outcome.event.clone(), decision))
            .or_default() += 1;
        let mut results = lock(&self.results);
        for hook in &outcome.hooks {
            let status = serde_json::to_value(hook.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            *results.entry((hook.name.clone(), status)).or_default() += 1;
        }
        drop(results);
        let secs = elapsed.as_secs_f64();
        let mut latency = lock(&self.latency);
        let bucket = BUCKETS
            .iter()
            .position(|b| secs <= *b)
            .unwrap_or(BUCKETS.len());
        latency.0[bucket] += 1;
        latency.1 += secs;
        latency.2 += 1;
    }

    pub(super) fn render(&self, engine: &Engine) -> String {
        let mut out = String::new();
        let label = |text: &str| {
            text.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
        };
        out.push_str("# TYPE hookhost_calls_total counter\n");
        for ((event, decision), n) in lock(&self.calls).iter() {
            out.push_str(&format!(
                "hookhost_calls_total{{event=\"{}\",decision=\"{decision}\"}} {n}\n",
                label(event)
            ));
        }
        out.push_str("# TYPE hookhost_hook_results_total counter\n");
        for ((hook, status), n) in lock(&self.results).iter() {
            out.push_str(&format!(
                "hookhost_hook_results_total{{hook=\"{}\",status=\"{status}\"}} {n}\n",
                label(hook)
            ));
        }
        let (buckets, sum, count) = *lock(&self.latency);
        out.push_str("# TYPE hookhost_call_duration_seconds histogram\n");
        let mut cumulative = 0;
        for (index, bound) in BUCKETS.iter().enumerate() {
            cumulative += buckets[index];
            out.push_str(&format!(
                "hookhost_call_duration_seconds_bucket{{le=\"{bound}\"}} {cumulative}\n"
            ));
        }
        cumulative += buckets[BUCKETS.len()];
        out.push_str(&format!(
            "hookhost_call_duration_seconds_bucket{{le=\"+Inf\"}} {cumulative}\nhookhost_call_duration_seconds_sum {sum}\nhookhost_call_duration_seconds_count {count}\n"
        ));
        let stats = engine.inventory().wasm.map(|w| w.cache).unwrap_or_default();
        let export = hookhost::export::stats();
        for (name, value) in [
            ("hookhost_wasm_compiled_total", stats.compiled),
            ("hookhost_wasm_cache_disk_hits_total", stats.disk_hits),
            ("hookhost_wasm_cache_memory_hits_total", stats.memory_hits),
            ("hookhost_wasm_copy_pool_components_total", stats.copy_pool),
            (
                "hookhost_reloads_total",
                self.reloads.load(Ordering::Relaxed),
            ),
            (
                "hookhost_reload_failures_total",
                self.reload_failures.load(Ordering::Relaxed),
            ),
            (
                "hookhost_rejected_unauthorized_total",
                self.rejected_auth.load(Ordering::Relaxed),
            ),
            (
                "hookhost_rejected_overload_total",
                self.rejected_overload.load(Ordering::Relaxed),
            ),
            (
                "hookhost_export_spans_total",
                export.exported.load(Ordering::Relaxed),
            ),
            (
                "hookhost_export_dropped_total",
                export.dropped.load(Ordering::Relaxed),
            ),
            (
                "hookhost_export_failed_posts_total",
                export.failed_posts.load(Ordering::Relaxed),
            ),
        ] {
            out.push_str(&format!("# TYPE {name} counter\n{name} {value}\n"));
        }
        let prepared = engine
            .inventory()
            .wasm
            .map(|w| w.prepared)
            .unwrap_or_default();
        for (name, kind, value) in [
            (
                "hookhost_wasm_prepared_instances",
                "gauge",
                prepared.ready as u64,
            ),
            (
                "hookhost_wasm_prepared_slots",
                "gauge",
                prepared.slots as u64,
            ),
            (
                "hookhost_wasm_prepared_bytes",
                "gauge",
                prepared.bytes as u64,
            ),
            (
                "hookhost_wasm_prepared_hits_total",
                "counter",
                prepared.hits,
            ),
            (
                "hookhost_wasm_prepared_misses_total",
                "counter",
                prepared.misses,
            ),
            (
                "hookhost_wasm_prepared_released_total",
                "counter",
                prepared.released,
            ),
        ] {
            out.push_str(&format!("# TYPE {name} {kind}\n{name} {value}\n"));
        }
        out
    }
}

//! [`crate::Engine::inventory`]: what a long-running host (`hookhost serve`) watches and
//! reports, gathered in one call.

use std::path::PathBuf;
use std::time::Duration;

use super::inner::Inner;
use crate::config::Handler;
use crate::executor::wasm::PreparedStats;
use crate::executor::wasm::cache::CacheStats;

/// How often `serve` asks a registry whether a tag moved, unless the owners say.
const DEFAULT_UPDATE_INTERVAL: Duration = Duration::from_secs(300);

/// What an engine loaded, as a long-running host watches and reports it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Inventory {
    /// The files the configuration came from and the Wasm components it names: what a
    /// host watches to reload.
    pub source_files: Vec<PathBuf>,
    /// The OCI tags the Wasm hooks were loaded from, each with the manifest digest it
    /// resolved to (after [`crate::Engine::prepare_all`]): an update check compares them with
    /// what the registry says now.
    pub oci_tags: Vec<(String, String)>,
    /// How often to ask the registry whether a tag moved (the owners'
    /// `wasmUpdateInterval`, seconds; default 300; `None`: never).
    pub oci_update_interval: Option<Duration>,
    /// The Wasm runtime's counters (`None` before any Wasm hook was loaded).
    pub wasm: Option<WasmInventory>,
}

/// The Wasm runtime's counters.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct WasmInventory {
    /// The component cache.
    pub cache: CacheStats,
    /// What the instances prepared ahead of calls hold now, and how calls found them.
    pub prepared: PreparedStats,
    /// Whether the runtime uses the pooling allocator.
    pub pooling: bool,
}

/// The inventory of the engine whose state is `inner`.
pub(super) fn of(inner: &Inner) -> Inventory {
    let mut source_files: Vec<PathBuf> = Vec::new();
    for hook in &inner.hooks {
        let file = PathBuf::from(&hook.spec.file);
        if file.is_absolute() {
            source_files.push(file);
        }
        if let Handler::Wasm(wasm) = &hook.spec.handler {
            source_files.push(wasm.component.clone());
        }
    }
    source_files.sort();
    source_files.dedup();
    let mut oci_tags: Vec<(String, String)> = inner
        .hooks
        .iter()
        .filter_map(|hook| hook.executor.oci_tag())
        .collect();
    oci_tags.sort();
    oci_tags.dedup();
    let oci_update_interval = match inner.wasm_update_interval {
        Some(0) => None,
        Some(secs) => Some(Duration::from_secs(secs)),
        None => Some(DEFAULT_UPDATE_INTERVAL),
    };
    let wasm = inner.shared.wasm_if_created().map(|runtime| WasmInventory {
        cache: runtime.cache_stats(),
        prepared: runtime.prepared_stats(),
        pooling: runtime.uses_pooling(),
    });
    Inventory {
        source_files,
        oci_tags,
        oci_update_interval,
        wasm,
    }
}

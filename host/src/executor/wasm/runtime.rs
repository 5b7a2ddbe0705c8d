//! The shared Wasm runtime of one hookhost engine: the wasmtime `Engine` (pooling
//! allocator, fuel, epoch interruption) and, made on first need, a second one whose pool
//! copies large memory images back whole ([`Reset::Copy`]); their linkers, the component
//! cache, the epoch ticker, the call slots, and the compile worker.

use std::io::Read;
use std::sync::{Arc, OnceLock};

use tokio::sync::Semaphore;
use wasmtime::component::Linker;
use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use super::cache::{self, CacheStats, ComponentCache};
use super::grants::Protected;
use super::host::HostState;
use super::limits;
use super::prepared::{PreparedStats, Preparer};
use super::ticker::Ticker;
use super::wit;
use super::{DEFAULT_MAX_COMPONENT_BYTES, WasmError, WasmOptions, listing};

/// The shared Wasm runtime of one hookhost engine.
pub struct WasmRuntime {
    pub(super) engine: Engine,
    pub(super) linker: Linker<HostState>,
    pub(super) cache: ComponentCache,
    ticker: Ticker,
    /// The [`Reset::Copy`] pool's engine and linker, made on first need (`None`: it
    /// could not be made, and its components run on `engine`).
    copy_engine: OnceLock<Option<(Engine, Linker<HostState>)>>,
    /// Components with at least this much initial memory run in the copy pool.
    copy_reset_from: Option<u64>,
    pool_instances: u32,
    pub(super) slots: Arc<Semaphore>,
    pub(super) slot_count: u32,
    pooling: bool,
    pub(super) protected: Protected,
    pub(super) max_component_bytes: u64,
    pub(super) preparer: Preparer,
    /// Recent shell views (`hookhost:hooks/shell`), shared by every hook.
    pub(super) views: Arc<crate::shell::ViewMemo>,
    /// The owners' signing policy.
    pub(super) signing: Arc<crate::signing::SigningPolicy>,
    /// Where components pulled from OCI registries are kept (created on first pull).
    pub(super) oci_dir: Option<std::path::PathBuf>,
    /// Components load on the calling thread ([`WasmOptions::load_on_caller`]).
    pub(super) load_on_caller: bool,
}

/// How a pool puts a used linear memory back to its initial contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reset {
    /// Only the pages a call wrote are reset in place (found with `PAGEMAP_SCAN`); the
    /// rest is unmapped back to the copy-on-write image. Cheap for small memories.
    Touched,
    /// The whole memory is copied back from its image (and zeroed past it) after every
    /// call, so every page stays private and resident. For large images, whose calls
    /// write to pages all over them: the scan stops after 32 runs of written pages and
    /// unmaps the rest, so each call would copy-on-write-fault them in again (with a TLB
    /// shootdown per fault). Here that copy happens once per call, off the call's path.
    Copy,
}

/// The engine configuration; `pool` sizes the pooling allocator and says how it resets
/// memories, `None` allocates on demand (the fallback where the pool's address space
/// cannot be reserved).
fn engine_config(pool: Option<(u32, Reset)>) -> Config {
    let mut config = Config::new();
    config
        .consume_fuel(true)
        .epoch_interruption(true)
        .concurrency_support(false)
        .max_wasm_stack(1 << 20)
        .async_stack_size(2 << 20)
        .memory_init_cow(true);
    if let Some((instances, reset)) = pool {
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool_config(
            instances, reset,
        )));
    }
    config
}

/// One pool slot is one component instance with one linear memory, a few tables and up
/// to [`limits::MAX_CORE_INSTANCES`] core instances (a counter only, no memory). A
/// component that needs more memories or tables takes several slots per call (see
/// [`slot_weight`]), so it cannot use up what other hooks were promised.
fn pool_config(instances: u32, reset: Reset) -> PoolingAllocationConfig {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(instances)
        .total_core_instances(instances.saturating_mul(limits::MAX_CORE_INSTANCES as u32))
        .total_memories(instances)
        .total_tables(instances.saturating_mul(limits::TABLES_PER_SLOT))
        .total_stacks(instances)
        // Ceilings above hookhost's own caps, so that `check_resources` (which works the
        // same with the on-demand allocator) is what refuses a component, by name.
        .max_memories_per_component(limits::MAX_MEMORIES * 4)
        .max_tables_per_component(limits::MAX_TABLES * 4)
        .max_memories_per_module(limits::MAX_MEMORIES)
        .max_tables_per_module(limits::MAX_TABLES)
        .max_memory_size(limits::max_linear_memory_bytes())
        // Reset used pages in place instead of unmapping them: no page faults on the next
        // instantiation and no TLB shootdowns when a store is dropped. At most this much
        // stays resident per slot.
        .linear_memory_keep_resident(KEEP_RESIDENT_BYTES)
        .table_keep_resident(1 << 20)
        .async_stack_keep_resident(1 << 20)
        // PAGEMAP_SCAN (Linux 6.7+) limits a `Touched` reset to the pages a call wrote;
        // without it the pool copies the first `KEEP_RESIDENT_BYTES` back whole.
        .pagemap_scan(match reset {
            Reset::Touched => Enabled::Auto,
            Reset::Copy => Enabled::No,
        });
    pool
}

/// Bytes of each used linear memory a pool keeps resident between calls.
const KEEP_RESIDENT_BYTES: usize = 16 << 20;

/// Components whose initial linear memory is at least this large run in the
/// [`Reset::Copy`] pool by default (the JavaScript and Python toolchains' images are
/// 9-13 MiB; a Rust policy's is about 1 MiB).
pub const DEFAULT_COPY_RESET_FROM: u64 = 4 << 20;

/// Pool slots one call of a component takes: one per linear memory, one per
/// [`limits::TABLES_PER_SLOT`] tables.
pub(super) fn slot_weight(memories: u32, tables: u32) -> u32 {
    memories
        .max(tables.div_ceil(limits::TABLES_PER_SLOT))
        .max(1)
}

impl WasmRuntime {
    /// Creates the runtime: engine, linker (WASI p2 + hookhost host API), cache and epoch
    /// ticker. Raises the process's soft open-files limit to its hard limit, and sizes
    /// the concurrent-call slots so every call's descriptor cap fits in what is left
    /// after a reserve for the rest of the process.
    pub fn new(options: WasmOptions) -> Result<Self, WasmError> {
        let instances = options.max_instances.max(1);
        let (engine, pooling) = match Engine::new(&engine_config(Some((instances, Reset::Touched))))
        {
            Ok(engine) => (engine, true),
            Err(err) => {
                tracing::warn!(
                    "pooling allocator unavailable ({err:#}); allocating Wasm instances on demand"
                );
                let engine =
                    Engine::new(&engine_config(None)).map_err(|e| WasmError(format!("{e:#}")))?;
                (engine, false)
            }
        };
        let linker = linker(&engine)?;
        let by_descriptors = crate::platform::raise_descriptor_limit()
            .saturating_sub(limits::FD_RESERVE)
            / limits::MAX_RESOURCES as u64;
        let slot_count = instances
            .min(u32::try_from(by_descriptors).unwrap_or(u32::MAX))
            .max(1);
        let preparer = Preparer::new(options.prepare, slot_count);
        let ticker = Ticker::start(&engine, preparer.bell())
            .map_err(|e| WasmError(format!("cannot start the epoch thread: {e}")))?;
        let mut protected = Protected::default();
        for dir in [&options.cache_dir, &cache::default_dir()]
            .into_iter()
            .flatten()
        {
            protected.add(dir, "the Wasm artifact cache");
        }
        for dir in [&options.oci_dir, &crate::oci::Store::default_dir()]
            .into_iter()
            .flatten()
        {
            protected.add(dir, "the OCI component store");
        }
        for dir in [&options.config_dir, &cache::default_config_dir()]
            .into_iter()
            .flatten()
        {
            protected.add(dir, "hookhost's configuration folder");
        }
        Ok(Self {
            cache: ComponentCache::new(
                engine.clone(),
                options.cache_dir,
                options.config_dir,
                cache::CompileLimits {
                    timeout: options.compile_timeout,
                    worker: options.compile_worker,
                    memory_bytes: options.compile_memory_bytes,
                },
                options.cache_max_bytes,
            ),
            engine,
            linker,
            ticker,
            copy_engine: OnceLock::new(),
            copy_reset_from: options.copy_reset_from,
            pool_instances: instances,
            slots: Arc::new(Semaphore::new(slot_count as usize)),
            slot_count,
            pooling,
            protected,
            max_component_bytes: options.max_component_bytes,
            preparer,
            views: options.views.clone(),
            oci_dir: options.oci_dir.clone(),
            signing: options.signing,
            load_on_caller: options.load_on_caller,
        })
    }

    /// Whether instances come from the pooling allocator (false after the on-demand
    /// fallback).
    pub fn uses_pooling(&self) -> bool {
        self.pooling
    }

    /// The engine and linker for a component whose initial linear memory is
    /// `initial_memory` bytes: those of the [`Reset::Copy`] pool for a large one where
    /// instances are prepared ahead (the copy then happens behind the calls), else
    /// `None` (the runtime's own).
    pub(super) fn copy_pool_for(
        &self,
        initial_memory: Option<u64>,
    ) -> Option<&(Engine, Linker<HostState>)> {
        let from = self.copy_reset_from?;
        if !self.pooling || !self.preparer.enabled() || initial_memory.unwrap_or(0) < from {
            return None;
        }
        self.copy_engine
            .get_or_init(|| {
                let made = Engine::new(&engine_config(Some((self.pool_instances, Reset::Copy))))
                    .map_err(|e| WasmError(format!("{e:#}")))
                    .and_then(|engine| Ok((linker(&engine)?, engine)));
                match made {
                    Ok((linker, engine)) => {
                        self.ticker.add(&engine);
                        Some((engine, linker))
                    }
                    Err(err) => {
                        tracing::warn!("no copy-reset pool for large components: {err}");
                        None
                    }
                }
            })
            .as_ref()
    }

    /// What prepared instances hold now, and how calls found them.
    pub fn prepared_stats(&self) -> PreparedStats {
        self.preparer.stats()
    }

    /// Component cache counters.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }
}

/// A linker for `engine`: WASI p2 and every version of the hookhost host API.
fn linker(engine: &Engine) -> Result<Linker<HostState>, WasmError> {
    let wasm = |e: wasmtime::Error| WasmError(format!("{e:#}"));
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker).map_err(wasm)?;
    wit::add_to_linker(&mut linker).map_err(wasm)?;
    listing::install(&mut linker).map_err(wasm)?;
    Ok(linker)
}

/// The compile worker (`hookhost __compile-worker`): reads a component on stdin, limits
/// its own address space to `memory_bytes`, compiles it with the engine configuration
/// every runtime uses, and writes the artifact to stdout. Returns the exit code.
pub fn compile_worker_main(memory_bytes: u64) -> i32 {
    use std::io::Write;
    let mut bytes = Vec::new();
    if let Err(err) = std::io::stdin()
        .take(DEFAULT_MAX_COMPONENT_BYTES.max(1 << 30))
        .read_to_end(&mut bytes)
    {
        eprintln!("cannot read the component: {err}");
        return 1;
    }
    if let Err(err) = crate::platform::limit_own_memory(memory_bytes) {
        eprintln!("cannot limit the compile worker's memory: {err}");
        return 1;
    }
    // On-demand allocation: the compiled code is the same as with the pool (the
    // allocation strategy is not part of the compatibility hash; a unit test checks).
    let engine = match Engine::new(&engine_config(None)) {
        Ok(engine) => engine,
        Err(err) => {
            eprintln!("cannot configure wasmtime: {err:#}");
            return 1;
        }
    };
    match engine.precompile_component(&bytes) {
        Ok(artifact) => match std::io::stdout().lock().write_all(&artifact) {
            Ok(()) => 0,
            Err(err) => {
                eprintln!("cannot write the artifact: {err}");
                1
            }
        },
        Err(err) => {
            eprintln!("not a valid component: {err:#}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{Hash, Hasher};

    fn compat(engine: &Engine) -> u64 {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        hasher.finish()
    }

    #[test]
    fn pooled_and_on_demand_engines_share_compiled_artifacts() {
        let pooled = Engine::new(&engine_config(Some((4, Reset::Touched)))).unwrap();
        let copying = Engine::new(&engine_config(Some((4, Reset::Copy)))).unwrap();
        let on_demand = Engine::new(&engine_config(None)).unwrap();
        assert_eq!(compat(&pooled), compat(&on_demand));
        assert_eq!(compat(&copying), compat(&on_demand));
    }

    #[test]
    fn slot_weight_counts_memories_and_tables() {
        assert_eq!(slot_weight(0, 0), 1);
        assert_eq!(slot_weight(1, 3), 1);
        assert_eq!(slot_weight(3, 1), 3);
        assert_eq!(slot_weight(1, 9), 3);
    }
}

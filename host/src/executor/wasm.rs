//! The `wasm` executor: hooks as WebAssembly components in a sandbox.
//!
//! One [`WasmRuntime`] per hookhost engine owns the wasmtime `Engine` (pooling
//! allocator, fuel, epoch interruption), the component cache ([`cache`]) and an epoch
//! ticker thread. Each hook is compiled once and pre-instantiated (`HookPre`); every call
//! gets a fresh `Store` with its own limits ([`limits`]) and WASI context, so nothing
//! leaks between calls. Pool slots stay resident and are reset in place (PAGEMAP_SCAN),
//! which makes a fresh instance per call cost microseconds.

mod bindings;
pub mod cache;
mod convert;
pub mod grants;
pub mod limits;
mod listing;
pub mod load_error;
mod ticker;

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{OnceCell, Semaphore};
use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{
    Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store, Trap,
};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use self::bindings::{WIT_VERSIONS, v0_1, v0_2};
use self::cache::{CacheStats, ComponentCache};
use self::grants::Protected;
use self::limits::{HookLimits, Limiter, Preopen};
pub use self::load_error::LoadError;
use self::ticker::Ticker;
use super::{BoxFuture, Executor, HookCall};
use crate::config::WasmHandler;
use crate::event::EventSpec;
use crate::outcome::{HookResult, HookStatus};
use crate::text::truncate;

pub use self::bindings::WIT_VERSION;

/// Bytes a call may fetch through the `input` interface, as a multiple of the raw
/// input's size (plus [`limits::INPUT_FETCH_SLACK`]): enough to read everything a few
/// times, not a way to make the host copy without end.
pub const INPUT_FETCH_FACTOR: usize = 4;

/// Default number of instance slots in the pool; further calls wait for a slot.
pub const DEFAULT_MAX_INSTANCES: u32 = 256;
/// Largest component file hookhost reads (bytes), unless [`WasmOptions`] says otherwise.
/// Toolchain components for JavaScript and Python are 10-40 MB.
pub const DEFAULT_MAX_COMPONENT_BYTES: u64 = 128 << 20;
/// Longest a component may take to compile, unless [`WasmOptions`] says otherwise.
pub const DEFAULT_COMPILE_TIMEOUT: Duration = Duration::from_secs(60);

/// Address space a compile worker may use, unless [`WasmOptions`] says otherwise.
pub const DEFAULT_COMPILE_MEMORY_BYTES: u64 = 4 << 30;

/// Wasm runtime settings.
#[derive(Debug, Clone)]
pub struct WasmOptions {
    /// Directory for precompiled artifacts (`None`: memory cache only).
    pub cache_dir: Option<PathBuf>,
    /// hookhost's configuration folder: holds the artifact MAC key (`None`: memory
    /// cache only). Like the cache folder, no grant may reach it.
    pub config_dir: Option<PathBuf>,
    /// Instance slots in the pool (the most calls alive at once); more calls wait.
    pub max_instances: u32,
    /// Largest component file accepted, bytes.
    pub max_component_bytes: u64,
    /// Longest one component may take to compile.
    pub compile_timeout: Duration,
    /// A program that compiles components in a child process when run as
    /// `PROGRAM __compile-worker` (the `hookhost` binary does): the child runs under an
    /// address-space limit of [`WasmOptions::compile_memory_bytes`] and is killed at the
    /// compile timeout, so a compile bomb costs neither unbounded memory nor a thread
    /// that keeps running. `None`: compile in-process on a thread (time bound only).
    pub compile_worker: Option<PathBuf>,
    /// Address space a compile worker may use.
    pub compile_memory_bytes: u64,
}

impl Default for WasmOptions {
    fn default() -> Self {
        Self {
            cache_dir: cache::default_dir(),
            config_dir: cache::default_config_dir(),
            max_instances: DEFAULT_MAX_INSTANCES,
            max_component_bytes: DEFAULT_MAX_COMPONENT_BYTES,
            compile_timeout: DEFAULT_COMPILE_TIMEOUT,
            compile_worker: None,
            compile_memory_bytes: DEFAULT_COMPILE_MEMORY_BYTES,
        }
    }
}

/// Errors creating the runtime.
#[derive(Debug, thiserror::Error)]
#[error("cannot configure wasmtime: {0}")]
pub struct WasmError(String);

/// Per-call state inside the store.
pub(crate) struct HostState {
    /// The WASI context, built on the guest's first WASI call when the hook has no
    /// grants (most policies never touch WASI).
    ctx: Option<WasiCtx>,
    /// What the WASI context is built from when it is built late.
    wasi: LazyWasi,
    table: ResourceTable,
    limiter: Limiter,
    hook: Arc<HookShared>,
    /// The call's input, for the 0.2.0 `input` interface.
    input: Arc<Value>,
    input_json: Arc<str>,
    /// Bytes still allowed through the `input` interface.
    fetch_budget: usize,
    log_calls: usize,
    listing: listing::ListingBudget,
}

/// The parts of a WASI context without grants.
struct LazyWasi {
    env: Arc<[(String, String)]>,
    stdio: MemoryOutputPipe,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        let ctx = self
            .ctx
            .get_or_insert_with(|| limits::wasi_base(&self.wasi.env, &self.wasi.stdio).build());
        WasiCtxView {
            ctx,
            table: &mut self.table,
        }
    }
}

impl HostState {
    fn log(&mut self, level: tracing::Level, message: &str) {
        self.log_calls += 1;
        if self.log_calls > limits::LOG_CALLS {
            return;
        }
        let message = truncate(message, limits::LOG_MESSAGE_BYTES);
        let hook = &self.hook.name;
        match level {
            tracing::Level::TRACE => tracing::trace!(hook = %hook, "{message}"),
            tracing::Level::DEBUG => tracing::debug!(hook = %hook, "{message}"),
            tracing::Level::INFO => tracing::info!(hook = %hook, "{message}"),
            tracing::Level::WARN => tracing::warn!(hook = %hook, "{message}"),
            tracing::Level::ERROR => tracing::error!(hook = %hook, "{message}"),
        }
    }

    fn config(&self, key: &str) -> Option<String> {
        self.hook.config.get(key).map(Value::to_string)
    }

    /// Charges `text` to the fetch budget and hands it over.
    fn fetch(&mut self, text: Option<String>) -> wasmtime::Result<Option<String>> {
        let len = text.as_ref().map_or(0, String::len);
        match self.fetch_budget.checked_sub(len) {
            Some(left) => {
                self.fetch_budget = left;
                Ok(text)
            }
            None => Err(wasmtime::Error::msg(InputFetchLimit)),
        }
    }
}

/// The guest fetched more input than [`INPUT_FETCH_FACTOR`] allows.
#[derive(Debug, thiserror::Error)]
#[error("input fetch limit exceeded")]
struct InputFetchLimit;

impl v0_1::HostImports for HostState {
    fn log(&mut self, level: v0_1::Level, message: String) {
        use v0_1::Level as L;
        let level = match level {
            L::Trace => tracing::Level::TRACE,
            L::Debug => tracing::Level::DEBUG,
            L::Info => tracing::Level::INFO,
            L::Warn => tracing::Level::WARN,
            L::Error => tracing::Level::ERROR,
        };
        HostState::log(self, level, &message);
    }

    fn config(&mut self, key: String) -> Option<String> {
        HostState::config(self, &key)
    }

    fn config_json(&mut self) -> String {
        self.hook.config_json.clone()
    }
}

impl v0_1::hookhost::hooks::types::Host for HostState {}

impl v0_2::HostImports for HostState {
    fn log(&mut self, level: v0_2::Level, message: String) -> wasmtime::Result<()> {
        use v0_2::Level as L;
        let level = match level {
            L::Trace => tracing::Level::TRACE,
            L::Debug => tracing::Level::DEBUG,
            L::Info => tracing::Level::INFO,
            L::Warn => tracing::Level::WARN,
            L::Error => tracing::Level::ERROR,
        };
        HostState::log(self, level, &message);
        Ok(())
    }

    fn config(&mut self, key: String) -> wasmtime::Result<Option<String>> {
        Ok(HostState::config(self, &key))
    }

    fn config_json(&mut self) -> wasmtime::Result<String> {
        Ok(self.hook.config_json.clone())
    }
}

impl v0_2::InputImports for HostState {
    fn raw(&mut self) -> wasmtime::Result<String> {
        let raw = self.input_json.to_string();
        Ok(self.fetch(Some(raw))?.unwrap_or_default())
    }

    fn tool_input(&mut self) -> wasmtime::Result<Option<String>> {
        let text = self.input.get("tool_input").map(Value::to_string);
        self.fetch(text)
    }

    fn field(&mut self, name: String) -> wasmtime::Result<Option<String>> {
        let text = self.input.get(&name).map(Value::to_string);
        self.fetch(text)
    }
}

impl v0_2::hookhost::hooks::types::Host for HostState {}

/// What every call of one hook shares.
struct HookShared {
    name: String,
    config: Value,
    config_json: String,
}

/// The shared Wasm runtime of one hookhost engine.
pub struct WasmRuntime {
    engine: Engine,
    linker: Linker<HostState>,
    cache: ComponentCache,
    _ticker: Ticker,
    slots: Arc<Semaphore>,
    slot_count: u32,
    pooling: bool,
    protected: Protected,
    max_component_bytes: u64,
}

/// The engine configuration; `pool` sizes the pooling allocator, `None` allocates on
/// demand (the fallback where the pool's address space cannot be reserved).
fn engine_config(pool_instances: Option<u32>) -> Config {
    let mut config = Config::new();
    config
        .consume_fuel(true)
        .epoch_interruption(true)
        .concurrency_support(false)
        .max_wasm_stack(1 << 20)
        .async_stack_size(2 << 20)
        .memory_init_cow(true);
    if let Some(instances) = pool_instances {
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool_config(instances)));
    }
    config
}

/// One pool slot is one component instance with one linear memory, a few tables and up
/// to [`limits::MAX_CORE_INSTANCES`] core instances (a counter only, no memory). A
/// component that needs more memories or tables takes several slots per call (see
/// [`slot_weight`]), so it cannot use up what other hooks were promised.
fn pool_config(instances: u32) -> PoolingAllocationConfig {
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
        // instantiation and no TLB shootdowns when a store is dropped. PAGEMAP_SCAN
        // (Linux 6.7+) limits the reset to the pages a call actually touched.
        .linear_memory_keep_resident(16 << 20)
        .table_keep_resident(1 << 20)
        .async_stack_keep_resident(1 << 20)
        .pagemap_scan(Enabled::Auto);
    pool
}

/// Pool slots one call of a component takes: one per linear memory, one per
/// [`limits::TABLES_PER_SLOT`] tables.
fn slot_weight(memories: u32, tables: u32) -> u32 {
    memories
        .max(tables.div_ceil(limits::TABLES_PER_SLOT))
        .max(1)
}

/// Raises the soft open-files limit to the hard one and returns the soft limit now in
/// force (each Wasm call may hold up to [`limits::MAX_RESOURCES`] descriptors).
fn descriptor_limit() -> u64 {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok((soft, hard)) if soft < hard => match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
            Ok(()) => hard,
            Err(_) => soft,
        },
        Ok((soft, _)) => soft,
        Err(_) => 1024,
    }
}

impl WasmRuntime {
    /// Creates the runtime: engine, linker (WASI p2 + hookhost host API), cache and epoch
    /// ticker. Raises the process's soft open-files limit to its hard limit, and sizes
    /// the concurrent-call slots so every call's descriptor cap fits in what is left
    /// after a reserve for the rest of the process.
    pub fn new(options: WasmOptions) -> Result<Self, WasmError> {
        let instances = options.max_instances.max(1);
        let (engine, pooling) = match Engine::new(&engine_config(Some(instances))) {
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
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker)
            .map_err(|e| WasmError(format!("{e:#}")))?;
        v0_1::Hook::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |state| state)
            .map_err(|e| WasmError(format!("{e:#}")))?;
        v0_2::Hook::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |state| state)
            .map_err(|e| WasmError(format!("{e:#}")))?;
        listing::install(&mut linker).map_err(|e| WasmError(format!("{e:#}")))?;
        let ticker = Ticker::start(&engine)
            .map_err(|e| WasmError(format!("cannot start the epoch thread: {e}")))?;
        let by_descriptors =
            descriptor_limit().saturating_sub(limits::FD_RESERVE) / limits::MAX_RESOURCES as u64;
        let slot_count = instances
            .min(u32::try_from(by_descriptors).unwrap_or(u32::MAX))
            .max(1);
        let mut protected = Protected::default();
        for dir in [&options.cache_dir, &cache::default_dir()]
            .into_iter()
            .flatten()
        {
            protected.add(dir, "the Wasm artifact cache");
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
            ),
            engine,
            linker,
            _ticker: ticker,
            slots: Arc::new(Semaphore::new(slot_count as usize)),
            slot_count,
            pooling,
            protected,
            max_component_bytes: options.max_component_bytes,
        })
    }

    /// Whether instances come from the pooling allocator (false after the on-demand
    /// fallback).
    pub fn uses_pooling(&self) -> bool {
        self.pooling
    }

    /// Component cache counters.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// An executor for a configured hook. Only cheap checks run now (the file is a
    /// regular file within the size cap, the grants are acceptable); the component is
    /// read and compiled on first use, or by [`Executor::prepare`].
    pub fn executor(self: &Arc<Self>, handler: &WasmHandler, name: &str) -> Arc<dyn Executor> {
        let source = check_component_file(&handler.component, self.max_component_bytes)
            .map(|()| Source::File(handler.component.clone()));
        Arc::new(self.hook(source, handler, name))
    }

    /// An executor for component bytes (session hooks).
    pub fn executor_from_bytes(
        self: &Arc<Self>,
        bytes: &[u8],
        handler: &WasmHandler,
        name: &str,
    ) -> Arc<dyn Executor> {
        let source = if bytes.len() as u64 > self.max_component_bytes {
            Err(LoadError::TooLarge {
                what: "given as bytes".into(),
                size: bytes.len() as u64,
                limit: self.max_component_bytes,
            })
        } else {
            Ok(Source::Bytes(bytes.into()))
        };
        Arc::new(self.hook(source, handler, name))
    }

    /// Reads, compiles (or loads from cache), checks and pre-instantiates a component.
    /// Blocking.
    fn prepare(&self, source: &Source, pin: Option<&str>) -> Result<Ready, LoadError> {
        let bytes = match source {
            Source::File(path) => read_component(path, self.max_component_bytes)?,
            Source::Bytes(bytes) => bytes.to_vec(),
        };
        let digest = cache::digest(&bytes);
        if let Some(expected) = pin
            && expected != digest
        {
            return Err(LoadError::DigestMismatch {
                expected: expected.to_string(),
                actual: digest,
            });
        }
        let component = self.cache.load(&bytes, &digest)?;
        let version = check_imports(&self.engine, &component)?;
        let weight = check_resources(&component)?;
        let pre = self
            .linker
            .instantiate_pre(&component)
            .map_err(|err| LoadError::Link(format!("{err:#}")))?;
        let world = |err: wasmtime::Error| LoadError::World(format!("{err:#}"));
        let pre = match version {
            WitTarget::V0_1 => Pre::V0_1(v0_1::HookPre::new(pre).map_err(world)?),
            WitTarget::V0_2 => Pre::V0_2(v0_2::HookPre::new(pre).map_err(world)?),
        };
        Ok(Ready {
            pre,
            weight: weight.min(self.slot_count),
            digest,
        })
    }

    fn hook(
        self: &Arc<Self>,
        source: Result<Source, LoadError>,
        handler: &WasmHandler,
        name: &str,
    ) -> WasmHook {
        let setup = source.and_then(|source| {
            grants::resolve(&handler.allowed_paths, &self.protected)
                .map(|preopens| (source, preopens))
                .map_err(LoadError::Grant)
        });
        let env = handler
            .env
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|value| (name.clone(), value)))
            .collect();
        let config = match &handler.config {
            Value::Null => Value::Object(Default::default()),
            other => other.clone(),
        };
        WasmHook {
            runtime: self.clone(),
            setup,
            ready: OnceCell::new(),
            limits: HookLimits::for_handler(handler),
            fail_closed: handler.fail_closed,
            pin: handler.sha256.clone(),
            env,
            shared: Arc::new(HookShared {
                name: name.to_string(),
                config_json: config.to_string(),
                config,
            }),
        }
    }
}

/// Bytes the WIT input record for `input` on `event` carries into a guest (what the
/// Wasm input limit counts). Public for the fuzz targets.
pub fn input_record_size(event: &str, input: &Value) -> usize {
    let raw = input.to_string();
    let event = crate::event::Event::new(event);
    let record = convert::hook_input(&event, input);
    let base = convert::input_size(&record);
    convert::input_size_v0_1(base, &convert::hook_input_v0_1(record, input, &raw))
}

/// The compile worker (`hookhost __compile-worker`): reads a component on stdin, limits
/// its own address space to `memory_bytes`, compiles it with the engine configuration
/// every runtime uses, and writes the artifact to stdout. Returns the exit code.
pub fn compile_worker_main(memory_bytes: u64) -> i32 {
    use nix::sys::resource::{Resource, setrlimit};
    use std::io::Write;
    let mut bytes = Vec::new();
    if let Err(err) = std::io::stdin()
        .take(DEFAULT_MAX_COMPONENT_BYTES.max(1 << 30))
        .read_to_end(&mut bytes)
    {
        eprintln!("cannot read the component: {err}");
        return 1;
    }
    if let Err(err) = setrlimit(Resource::RLIMIT_AS, memory_bytes, memory_bytes) {
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

/// Where a hook's component comes from.
#[derive(Clone)]
enum Source {
    File(PathBuf),
    Bytes(Arc<[u8]>),
}

/// One call's input record, in the version the component targets.
enum CallInput {
    V0_1(v0_1::HookInput),
    V0_2(v0_2::HookInput),
}

/// A pre-instantiated component of one WIT version.
enum Pre {
    V0_1(v0_1::HookPre<HostState>),
    V0_2(v0_2::HookPre<HostState>),
}

/// The WIT version a component targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WitTarget {
    V0_1,
    V0_2,
}

/// A component ready to instantiate, and the pool slots one call takes.
struct Ready {
    pre: Pre,
    weight: u32,
    /// SHA-256 of the component bytes.
    digest: String,
}

/// Load-time check of a component path without opening it (opening a FIFO blocks): it
/// must be a regular file within the size cap.
fn check_component_file(path: &Path, max_bytes: u64) -> Result<(), LoadError> {
    let meta = std::fs::metadata(path).map_err(|err| read_error(path, err))?;
    if !meta.is_file() {
        return Err(LoadError::NotRegularFile {
            path: path.to_path_buf(),
        });
    }
    if meta.len() > max_bytes {
        return Err(too_large(path, meta.len(), max_bytes));
    }
    Ok(())
}

fn read_error(path: &Path, err: std::io::Error) -> LoadError {
    LoadError::Read {
        path: path.to_path_buf(),
        source: Arc::new(err),
    }
}

fn too_large(path: &Path, size: u64, limit: u64) -> LoadError {
    LoadError::TooLarge {
        what: path.display().to_string(),
        size,
        limit,
    }
}

/// Reads a component: opened non-blocking (a FIFO swapped in after the check cannot
/// hang), checked again on the open file, and read no further than the cap.
fn read_component(path: &Path, max_bytes: u64) -> Result<Vec<u8>, LoadError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
        .map_err(|err| read_error(path, err))?;
    let meta = file.metadata().map_err(|err| read_error(path, err))?;
    if !meta.is_file() {
        return Err(LoadError::NotRegularFile {
            path: path.to_path_buf(),
        });
    }
    let mut bytes = Vec::with_capacity(meta.len().min(max_bytes) as usize);
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| read_error(path, err))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(path, bytes.len() as u64, max_bytes));
    }
    Ok(bytes)
}

/// Refuses a component that declares more memories or tables than a call may have (or
/// whose needs cannot be known), and returns the pool slots one call takes.
fn check_resources(component: &Component) -> Result<u32, LoadError> {
    let needs = component
        .resources_required()
        .ok_or(LoadError::UncheckableResources)?;
    let over = |count: u32, what: &'static str, limit: u32| {
        (count > limit).then_some(LoadError::TooManyResources { count, what, limit })
    };
    if let Some(err) = over(needs.num_memories, "linear memories", limits::MAX_MEMORIES)
        .or_else(|| over(needs.num_tables, "tables", limits::MAX_TABLES))
    {
        return Err(err);
    }
    Ok(slot_weight(needs.num_memories, needs.num_tables))
}

/// Imports a hook may have: WASI p2 without HTTP, and the hookhost host API of a
/// supported version. Anything else is refused before the component ever runs.
///
/// `wasi:sockets` links (CPython and other language runtimes import it whether or not
/// the hook uses the network) but grants nothing: every context denies TCP, UDP and
/// name lookups ([`limits::wasi_base`]), so creating or connecting a socket fails with
/// `access-denied`.
const ALLOWED_IMPORTS: &[&str] = &[
    "wasi:cli/",
    "wasi:io/",
    "wasi:clocks/",
    "wasi:filesystem/",
    "wasi:random/",
    "wasi:sockets/",
];

/// Checks every import and returns the WIT version the component targets (all its
/// `hookhost:hooks` imports must name the same supported version).
fn check_imports(engine: &Engine, component: &Component) -> Result<WitTarget, LoadError> {
    let mut target = None;
    for (name, _) in component.component_type().imports(engine) {
        if let Some(rest) = name.strip_prefix("hookhost:hooks/") {
            let version = rest.split_once('@').map(|(_, v)| v).unwrap_or("");
            let this = match version {
                "0.1.0" => WitTarget::V0_1,
                "0.2.0" => WitTarget::V0_2,
                _ => {
                    return Err(LoadError::WitVersion {
                        found: version.to_string(),
                        supported: WIT_VERSIONS.join(", @"),
                        import: name.to_string(),
                    });
                }
            };
            if target.is_some_and(|seen| seen != this) {
                return Err(LoadError::WitVersionMix(name.to_string()));
            }
            target = Some(this);
            continue;
        }
        if !ALLOWED_IMPORTS
            .iter()
            .any(|prefix| name.starts_with(prefix))
        {
            return Err(LoadError::Import(name.to_string()));
        }
    }
    // A component that imports nothing of hookhost's (its export uses no named type)
    // can only be checked against the newest world.
    Ok(target.unwrap_or(WitTarget::V0_2))
}

/// One configured Wasm hook.
struct WasmHook {
    runtime: Arc<WasmRuntime>,
    /// The component's source and resolved grants, or why they are unusable.
    setup: Result<(Source, Vec<Preopen>), LoadError>,
    /// Prepared on first use (compiling is the one expensive step of loading).
    ready: OnceCell<Result<Ready, LoadError>>,
    limits: HookLimits,
    fail_closed: bool,
    /// The configured `sha256`, if pinned.
    pin: Option<String>,
    env: Arc<[(String, String)]>,
    shared: Arc<HookShared>,
}

/// How a call failed.
struct Failure {
    status: HookStatus,
    message: String,
}

impl Failure {
    fn error(message: impl Into<String>) -> Self {
        Self {
            status: HookStatus::NonBlockingError,
            message: message.into(),
        }
    }

    fn limit(message: impl Into<String>) -> Self {
        Self {
            status: HookStatus::Cancelled,
            message: message.into(),
        }
    }
}

impl Executor for WasmHook {
    /// 5 s, or the event's default when shorter.
    fn default_timeout(&self, event: &EventSpec) -> Duration {
        limits::DEFAULT_TIMEOUT.min(event.default_timeout())
    }

    fn load_error(&self) -> Option<String> {
        self.setup.as_ref().err().map(ToString::to_string)
    }

    fn digest(&self) -> Option<String> {
        match self.ready.get() {
            Some(Ok(ready)) => Some(ready.digest.clone()),
            _ => None,
        }
    }

    fn prepare(&self) -> BoxFuture<'_, Option<String>> {
        Box::pin(async move { self.ready().await.err().map(|err| err.to_string()) })
    }

    fn prepare_now(&self) -> Option<String> {
        let (source, _) = match &self.setup {
            Ok(setup) => setup,
            Err(err) => return Some(err.to_string()),
        };
        if let Some(ready) = self.ready.get() {
            return ready.as_ref().err().map(ToString::to_string);
        }
        let ready = self.runtime.prepare(source, self.pin.as_deref());
        let error = ready.as_ref().err().map(ToString::to_string);
        let _ = self.ready.set(ready);
        error
    }

    fn execute<'a>(&'a self, call: HookCall) -> BoxFuture<'a, HookResult> {
        Box::pin(async move {
            match self.run(&call).await {
                Ok(result) => result,
                Err(failure) if self.fail_closed => HookResult::failed_closed(
                    format!(
                        "wasm hook {} failed closed: {}",
                        self.shared.name, failure.message
                    ),
                    failure.message,
                ),
                Err(failure) => HookResult {
                    status: failure.status,
                    output: Default::default(),
                    error: Some(failure.message),
                },
            }
        })
    }
}

impl WasmHook {
    /// The prepared component, compiling it on first use (off the async workers).
    async fn ready(&self) -> Result<&Ready, LoadError> {
        let (source, _) = self.setup.as_ref().map_err(Clone::clone)?;
        self.ready
            .get_or_init(|| async {
                let runtime = self.runtime.clone();
                let source = source.clone();
                let pin = self.pin.clone();
                tokio::task::spawn_blocking(move || runtime.prepare(&source, pin.as_deref()))
                    .await
                    .unwrap_or_else(|err| Err(LoadError::Interrupted(err.to_string())))
            })
            .await
            .as_ref()
            .map_err(Clone::clone)
    }

    async fn run(&self, call: &HookCall) -> Result<HookResult, Failure> {
        let ready = self
            .ready()
            .await
            .map_err(|err| Failure::error(err.to_string()))?;
        let preopens = self
            .setup
            .as_ref()
            .map(|(_, preopens)| preopens.as_slice())
            .map_err(|err| Failure::error(err.to_string()))?;
        let record = convert::hook_input(&call.event, &call.input);
        // 0.1.0 carries the whole input in its record; 0.2.0 hands out the raw input on
        // demand, so the limit and the memory allowance count it either way.
        let (input, input_bytes) = match ready.pre {
            Pre::V0_1(_) => {
                let base = convert::input_size(&record);
                let wide = convert::hook_input_v0_1(record, &call.input, &call.input_json);
                let size = convert::input_size_v0_1(base, &wide);
                (CallInput::V0_1(wide), size)
            }
            Pre::V0_2(_) => {
                let size = convert::input_size(&record) + call.input_json.len();
                (CallInput::V0_2(record), size)
            }
        };
        if input_bytes > limits::MAX_INPUT_BYTES {
            return Err(Failure::error(format!(
                "input too large for this hook: {input_bytes} bytes, over the Wasm input limit of {} bytes",
                limits::MAX_INPUT_BYTES
            )));
        }
        let opened = grants::open_verified(preopens).map_err(Failure::error)?;
        let timeout = call.timeout;
        // Waiting for slots is not part of the hook's time: a hook starved by others
        // waits for them to finish (each is bounded by its own limits); it is not dropped.
        let slot = self
            .runtime
            .slots
            .clone()
            .acquire_many_owned(ready.weight)
            .await
            .map_err(|_| Failure::error("wasm runtime closed"))?;
        let stdio = MemoryOutputPipe::new(limits::STDIO_CAPTURE_BYTES);
        // A hook without grants gets its WASI context on its first WASI call.
        let ctx = if preopens.is_empty() {
            None
        } else {
            Some(
                limits::wasi_context(preopens, &opened, &self.env, &stdio)
                    .map_err(Failure::error)?,
            )
        };
        drop(opened); // wasmtime holds its own handles now
        let mut table = ResourceTable::new();
        table.set_max_capacity(limits::MAX_RESOURCES);
        let state = HostState {
            ctx,
            wasi: LazyWasi {
                env: self.env.clone(),
                stdio: stdio.clone(),
            },
            table,
            limiter: Limiter::new(
                self.limits.memory_bytes + limits::INPUT_ALLOWANCE_FACTOR * input_bytes,
            ),
            hook: self.shared.clone(),
            input: call.input.clone(),
            input_json: call.input_json.clone(),
            fetch_budget: INPUT_FETCH_FACTOR * call.input_json.len() + limits::INPUT_FETCH_SLACK,
            log_calls: 0,
            listing: Default::default(),
        };
        let mut store = Store::new(&self.runtime.engine, state);
        store.limiter(|state| &mut state.limiter);
        store
            .set_fuel(self.limits.fuel)
            .map_err(|e| Failure::error(format!("{e:#}")))?;
        store.set_epoch_deadline(limits::deadline_ticks(timeout));
        let started = Instant::now();
        let outcome = tokio::time::timeout(timeout, async {
            match (&ready.pre, input) {
                (Pre::V0_1(pre), CallInput::V0_1(input)) => {
                    let hook = pre.instantiate_async(&mut store).await?;
                    let answer = hook.call_handle(&mut store, &input).await?;
                    Ok(answer.map(convert::answer_from_v0_1))
                }
                (Pre::V0_2(pre), CallInput::V0_2(input)) => {
                    let hook = pre.instantiate_async(&mut store).await?;
                    hook.call_handle(&mut store, &input).await
                }
                _ => Err(wasmtime::Error::msg("input built for another WIT version")),
            }
        })
        .await;
        let result = match outcome {
            Err(_) => Err(Failure::limit(format!(
                "wall-time limit of {}s exceeded",
                timeout.as_secs_f64()
            ))),
            Ok(Err(err)) => {
                Err(self.trap_failure(&store, &err, timeout, started.elapsed(), &stdio))
            }
            Ok(Ok(Err(message))) => Err(Failure::error(format!(
                "hook returned an error: {}",
                truncate(&message, 1024)
            ))),
            Ok(Ok(Ok(answer))) => {
                let size = convert::answer_size(&answer);
                if size > self.limits.output_bytes {
                    Err(Failure::error(format!(
                        "output limit of {} bytes exceeded ({size} bytes)",
                        self.limits.output_bytes
                    )))
                } else {
                    convert::hook_output(answer, &call.event)
                        .map(HookResult::answer)
                        .map_err(|err| Failure::error(format!("invalid answer: {err}")))
                }
            }
        };
        log_stdio(&self.shared.name, &stdio);
        // Dropped here, after the answer is in hand. Handing stores to another thread was
        // measured slower (cross-thread frees and a wake-up per call) now that pool slots
        // stay resident: ~30-40 µs median per call against ~26 µs inline.
        drop(store);
        drop(slot);
        if stdio.contents().len() >= limits::STDIO_CAPTURE_BYTES {
            // Writes past the cap fail inside the guest; name the limit in any failure.
            return result.map_err(|failure| Failure {
                message: format!(
                    "stdout/stderr limit of {} KiB exceeded: {}",
                    limits::STDIO_CAPTURE_BYTES >> 10,
                    failure.message
                ),
                ..failure
            });
        }
        result
    }

    fn trap_failure(
        &self,
        store: &Store<HostState>,
        err: &wasmtime::Error,
        timeout: Duration,
        elapsed: Duration,
        stdio: &MemoryOutputPipe,
    ) -> Failure {
        if store.data().limiter.memory_exceeded {
            return Failure::error(format!(
                "memory limit of {} MiB exceeded (all linear memories and tables of the call together)",
                self.limits.memory_bytes >> 20
            ));
        }
        if store.data().limiter.table_exceeded {
            return Failure::error(format!(
                "table limit of {} elements exceeded",
                limits::MAX_TABLE_ELEMENTS
            ));
        }
        if err.downcast_ref::<InputFetchLimit>().is_some() {
            return Failure::error(format!(
                "input fetch limit exceeded: a call may fetch {INPUT_FETCH_FACTOR}x the input plus {} KiB through `hookhost:hooks/input`",
                limits::INPUT_FETCH_SLACK >> 10
            ));
        }
        if let Some(wasmtime::component::ResourceTableError::Full) =
            err.downcast_ref::<wasmtime::component::ResourceTableError>()
        {
            return Failure::error(format!(
                "WASI resource limit of {} open handles exceeded",
                limits::MAX_RESOURCES
            ));
        }
        match err.downcast_ref::<Trap>() {
            Some(Trap::OutOfFuel) => {
                Failure::limit(format!("fuel limit of {} exhausted", self.limits.fuel))
            }
            Some(Trap::Interrupt) => Failure::limit(format!(
                "wall-time limit of {}s exceeded after {:.0} ms",
                timeout.as_secs_f64(),
                elapsed.as_secs_f64() * 1000.0
            )),
            Some(Trap::StackOverflow) => Failure::error("trapped: stack overflow"),
            Some(trap) => Failure::error(format!("trapped: {trap}{}", panic_note(stdio))),
            None if stdio.contents().len() >= limits::STDIO_CAPTURE_BYTES => {
                Failure::error(format!(
                    "stdout/stderr limit of {} KiB exceeded",
                    limits::STDIO_CAPTURE_BYTES >> 10
                ))
            }
            None => Failure::error(format!("failed: {}", root_cause(err))),
        }
    }
}

fn root_cause(err: &wasmtime::Error) -> String {
    err.root_cause().to_string()
}

/// The guest's panic message (Rust prints it to stderr before aborting), if any.
fn panic_note(stdio: &MemoryOutputPipe) -> String {
    let contents = stdio.contents();
    let text = String::from_utf8_lossy(&contents);
    let mut lines = text
        .lines()
        .skip_while(|line| !line.contains("panicked at"));
    match (lines.next(), lines.next()) {
        (Some(_), Some(message)) => format!(" (guest panicked: {})", truncate(message.trim(), 300)),
        _ => String::new(),
    }
}

fn log_stdio(hook: &str, stdio: &MemoryOutputPipe) {
    let contents = stdio.contents();
    if !contents.is_empty() {
        let text = String::from_utf8_lossy(&contents);
        tracing::info!(hook = %hook, "guest output: {}", truncate(&text, 4096));
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
        let pooled = Engine::new(&engine_config(Some(4))).unwrap();
        let on_demand = Engine::new(&engine_config(None)).unwrap();
        assert_eq!(compat(&pooled), compat(&on_demand));
    }

    #[test]
    fn slot_weight_counts_memories_and_tables() {
        assert_eq!(slot_weight(0, 0), 1);
        assert_eq!(slot_weight(1, 3), 1);
        assert_eq!(slot_weight(3, 1), 3);
        assert_eq!(slot_weight(1, 9), 3);
    }
}

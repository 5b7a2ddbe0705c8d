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
pub mod limits;
mod ticker;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::Semaphore;
use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{
    Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store, Trap,
};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use self::bindings::{Hook, HookPre, Level};
use self::cache::{CacheStats, ComponentCache};
use self::limits::{HookLimits, Limiter, Preopen};
use self::ticker::Ticker;
use super::{BoxFuture, Executor, HookCall};
use crate::config::WasmHandler;
use crate::outcome::{HookResult, HookStatus};

pub use self::bindings::WIT_VERSION;

/// Default number of instances alive at once; further calls wait for a slot.
pub const DEFAULT_MAX_INSTANCES: u32 = 256;

/// Wasm runtime settings.
#[derive(Debug, Clone)]
pub struct WasmOptions {
    /// Directory for precompiled artifacts (`None`: memory cache only).
    pub cache_dir: Option<PathBuf>,
    /// Instances alive at once (the pooling allocator's size); more calls wait.
    pub max_instances: u32,
}

impl Default for WasmOptions {
    fn default() -> Self {
        Self {
            cache_dir: cache::default_dir(),
            max_instances: DEFAULT_MAX_INSTANCES,
        }
    }
}

/// Errors creating the runtime.
#[derive(Debug, thiserror::Error)]
#[error("cannot configure wasmtime: {0}")]
pub struct WasmError(String);

/// Per-call state inside the store.
pub(crate) struct HostState {
    ctx: WasiCtx,
    table: ResourceTable,
    limiter: Limiter,
    hook: Arc<HookShared>,
    log_calls: usize,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}

impl bindings::HostImports for HostState {
    fn log(&mut self, level: Level, message: String) {
        self.log_calls += 1;
        if self.log_calls > limits::LOG_CALLS {
            return;
        }
        let message = truncate(&message, limits::LOG_MESSAGE_BYTES);
        let hook = &self.hook.name;
        match level {
            Level::Trace => tracing::trace!(hook = %hook, "{message}"),
            Level::Debug => tracing::debug!(hook = %hook, "{message}"),
            Level::Info => tracing::info!(hook = %hook, "{message}"),
            Level::Warn => tracing::warn!(hook = %hook, "{message}"),
            Level::Error => tracing::error!(hook = %hook, "{message}"),
        }
    }

    fn config(&mut self, key: String) -> Option<String> {
        self.hook.config.get(&key).map(Value::to_string)
    }

    fn config_json(&mut self) -> String {
        self.hook.config_json.clone()
    }
}

impl bindings::hookhost::hooks::types::Host for HostState {}

fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

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
    pooling: bool,
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

fn pool_config(instances: u32) -> PoolingAllocationConfig {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(instances)
        .total_core_instances(instances * 4)
        .total_memories(instances)
        .total_tables(instances * 4)
        .total_stacks(instances)
        .max_memory_size((limits::MAX_MEMORY_MB as usize) << 20)
        // Reset used pages in place instead of unmapping them: no page faults on the next
        // instantiation and no TLB shootdowns when a store is dropped. PAGEMAP_SCAN
        // (Linux 6.7+) limits the reset to the pages a call actually touched.
        .linear_memory_keep_resident(16 << 20)
        .table_keep_resident(1 << 20)
        .async_stack_keep_resident(1 << 20)
        .pagemap_scan(Enabled::Auto);
    pool
}

impl WasmRuntime {
    /// Creates the runtime: engine, linker (WASI p2 + hookhost host API), cache and epoch
    /// ticker.
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
        Hook::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |state| state)
            .map_err(|e| WasmError(format!("{e:#}")))?;
        let ticker = Ticker::start(&engine)
            .map_err(|e| WasmError(format!("cannot start the epoch thread: {e}")))?;
        Ok(Self {
            cache: ComponentCache::new(engine.clone(), options.cache_dir),
            engine,
            linker,
            _ticker: ticker,
            slots: Arc::new(Semaphore::new(instances as usize)),
            pooling,
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

    /// An executor for a configured hook; load failures are reported when it runs.
    pub fn executor(self: &Arc<Self>, handler: &WasmHandler, name: &str) -> Arc<dyn Executor> {
        let prepared = std::fs::read(&handler.component)
            .map_err(|err| {
                format!(
                    "cannot read component {}: {err}",
                    handler.component.display()
                )
            })
            .and_then(|bytes| self.prepare(&bytes));
        Arc::new(self.hook(prepared, handler, name))
    }

    /// An executor for component bytes (session hooks).
    pub fn executor_from_bytes(
        self: &Arc<Self>,
        bytes: &[u8],
        handler: &WasmHandler,
        name: &str,
    ) -> Arc<dyn Executor> {
        let prepared = self.prepare(bytes);
        Arc::new(self.hook(prepared, handler, name))
    }

    /// Checks a component's imports and pre-instantiates it.
    fn prepare(&self, bytes: &[u8]) -> Result<HookPre<HostState>, String> {
        let component = self.cache.load(bytes)?;
        check_imports(&self.engine, &component)?;
        let pre = self
            .linker
            .instantiate_pre(&component)
            .map_err(|err| format!("cannot link component: {err:#}"))?;
        HookPre::new(pre)
            .map_err(|err| format!("component does not export the hookhost `hook` world: {err:#}"))
    }

    fn hook(
        self: &Arc<Self>,
        prepared: Result<HookPre<HostState>, String>,
        handler: &WasmHandler,
        name: &str,
    ) -> WasmHook {
        let preopens = preopens(&handler.allowed_paths);
        let prepared = prepared.and_then(|pre| preopens.map(|p| (pre, p)));
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
            prepared,
            limits: HookLimits::for_handler(handler),
            fail_closed: handler.fail_closed,
            env,
            shared: Arc::new(HookShared {
                name: name.to_string(),
                config_json: config.to_string(),
                config,
            }),
        }
    }
}

/// Imports a hook may have: WASI p2 without sockets or HTTP, and the hookhost host API of
/// a supported version. Anything else is refused before the component ever runs.
const ALLOWED_IMPORTS: &[&str] = &[
    "wasi:cli/",
    "wasi:io/",
    "wasi:clocks/",
    "wasi:filesystem/",
    "wasi:random/",
];

fn check_imports(engine: &Engine, component: &Component) -> Result<(), String> {
    for (name, _) in component.component_type().imports(engine) {
        if let Some(rest) = name.strip_prefix("hookhost:hooks/") {
            let version = rest.split_once('@').map(|(_, v)| v).unwrap_or("");
            if version != WIT_VERSION {
                return Err(format!(
                    "component targets hookhost:hooks@{version}, this host supports @{WIT_VERSION} (import `{name}`)"
                ));
            }
            continue;
        }
        if !ALLOWED_IMPORTS
            .iter()
            .any(|prefix| name.starts_with(prefix))
        {
            return Err(format!(
                "component imports `{name}`, which hookhost does not grant to hooks"
            ));
        }
    }
    Ok(())
}

fn preopens(paths: &[crate::config::AllowedPath]) -> Result<Vec<Preopen>, String> {
    paths
        .iter()
        .map(|grant| {
            let host = grant.path.canonicalize().map_err(|err| {
                format!("granted path {} is not usable: {err}", grant.path.display())
            })?;
            if !host.is_dir() {
                return Err(format!(
                    "granted path {} is not a directory",
                    host.display()
                ));
            }
            Ok(Preopen {
                guest: host.display().to_string(),
                host,
                write: grant.write,
            })
        })
        .collect()
}

/// One configured Wasm hook.
struct WasmHook {
    runtime: Arc<WasmRuntime>,
    prepared: Result<(HookPre<HostState>, Vec<Preopen>), String>,
    limits: HookLimits,
    fail_closed: bool,
    env: Vec<(String, String)>,
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
    fn load_error(&self) -> Option<String> {
        self.prepared.as_ref().err().cloned()
    }

    fn execute<'a>(&'a self, call: HookCall) -> BoxFuture<'a, HookResult> {
        Box::pin(async move {
            match self.run(&call).await {
                Ok(result) => result,
                Err(failure) if self.fail_closed => HookResult::block(format!(
                    "wasm hook {} failed closed: {}",
                    self.shared.name, failure.message
                )),
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
    async fn run(&self, call: &HookCall) -> Result<HookResult, Failure> {
        let (pre, preopens) = self
            .prepared
            .as_ref()
            .map_err(|err| Failure::error(err.clone()))?;
        let timeout = call.timeout;
        let slot = self
            .runtime
            .slots
            .acquire()
            .await
            .map_err(|_| Failure::error("wasm runtime closed"))?;
        let stdio = MemoryOutputPipe::new(limits::STDIO_CAPTURE_BYTES);
        let ctx = limits::wasi_context(preopens, &self.env, &stdio).map_err(Failure::error)?;
        let state = HostState {
            ctx,
            table: ResourceTable::new(),
            limiter: Limiter::new(&self.limits),
            hook: self.shared.clone(),
            log_calls: 0,
        };
        let mut store = Store::new(&self.runtime.engine, state);
        store.limiter(|state| &mut state.limiter);
        store
            .set_fuel(self.limits.fuel)
            .map_err(|e| Failure::error(format!("{e:#}")))?;
        store.set_epoch_deadline(limits::deadline_ticks(timeout));
        let input =
            convert::hook_input(&call.event_name, &call.event, &call.input, &call.input_json);
        let started = Instant::now();
        let outcome = tokio::time::timeout(timeout, async {
            let hook = pre.instantiate_async(&mut store).await?;
            hook.call_handle(&mut store, &input).await
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
                "memory limit of {} MiB exceeded",
                self.limits.memory_bytes >> 20
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

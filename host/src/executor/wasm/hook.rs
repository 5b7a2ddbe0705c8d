//! The `wasm` executor of one hook: prepared on first use, then a fresh instance per
//! call under its limits, and every way a call can fail mapped to a named status.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::OnceCell;
use wasmtime::component::ResourceTable;
use wasmtime::{Store, Trap};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;

use super::INPUT_FETCH_FACTOR;
use super::grants::{self, Preopen};
use super::host::{HookShared, HostState, InputFetchLimit, LazyWasi};
use super::limits::{self, HookLimits, Limiter};
use super::load::{self, Ready, Source, check_component_file};
use super::load_error::LoadError;
use super::prepared::{Parts, Preparable, Shelf};
use super::runtime::WasmRuntime;
use super::wit::{CallInput, Instance, Pre, v0_2};
use crate::config::WasmHandler;
use crate::event::EventSpec;
use crate::executor::{BoxFuture, Executor, HookCall};
use crate::outcome::{HookRun, HookStatus};
use crate::text::truncate;

/// One configured Wasm hook.
pub(super) struct WasmHook {
    pub(super) runtime: Arc<WasmRuntime>,
    /// The component's source and resolved grants, or why they are unusable.
    pub(super) setup: Result<(Source, Vec<Preopen>), LoadError>,
    /// Prepared on first use (compiling is the one expensive step of loading).
    pub(super) ready: OnceCell<Result<Ready, LoadError>>,
    pub(super) limits: HookLimits,
    /// The configured `sha256`, if pinned.
    pub(super) pin: Option<String>,
    pub(super) env: Arc<[(String, String)]>,
    pub(super) shared: Arc<HookShared>,
    /// A configured limit over the cap (reported at load).
    pub(super) warning: Option<String>,
    /// Instances of this hook prepared ahead of its calls.
    pub(super) shelf: Shelf,
    /// This hook, for the preparer (which must not keep it alive).
    pub(super) this: Weak<dyn Preparable>,
}

/// An executor for a configured hook. Only cheap checks run now (the file is a
/// regular file within the size cap, the grants are acceptable); the component is
/// read and compiled on first use, or by [`Executor::prepare`].
pub(crate) fn executor(
    runtime: &Arc<WasmRuntime>,
    handler: &WasmHandler,
    name: &str,
) -> Arc<dyn Executor> {
    let text = handler.component.to_string_lossy();
    let source = if crate::builtin::Builtin::is_builtin(&text) {
        crate::builtin::Builtin::find(&text)
            .map(Source::Builtin)
            .ok_or_else(|| LoadError::UnknownBuiltin {
                name: text.to_string(),
                known: crate::builtin::Builtin::names(),
            })
    } else if crate::oci::OciRef::is_oci(&text) {
        crate::oci::OciRef::parse(&text)
            .map(Source::Oci)
            .map_err(LoadError::Oci)
    } else {
        check_component_file(&handler.component, runtime.max_component_bytes)
            .map(|()| Source::File(handler.component.clone()))
    };
    Arc::new_cyclic(|this| new_hook(runtime, source, handler, name, this.clone()))
}

/// An executor for component bytes (session hooks).
pub(crate) fn executor_from_bytes(
    runtime: &Arc<WasmRuntime>,
    bytes: &[u8],
    handler: &WasmHandler,
    name: &str,
) -> Arc<dyn Executor> {
    let source = if bytes.len() as u64 > runtime.max_component_bytes {
        Err(LoadError::TooLarge {
            what: "given as bytes".into(),
            size: bytes.len() as u64,
            limit: runtime.max_component_bytes,
        })
    } else {
        Ok(Source::Bytes(bytes.into()))
    };
    Arc::new_cyclic(|this| new_hook(runtime, source, handler, name, this.clone()))
}

fn new_hook(
    runtime: &Arc<WasmRuntime>,
    source: Result<Source, LoadError>,
    handler: &WasmHandler,
    name: &str,
    this: Weak<WasmHook>,
) -> WasmHook {
    let setup = source.and_then(|source| {
        grants::resolve(&handler.allowed_paths, &runtime.protected)
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
        runtime: runtime.clone(),
        setup,
        ready: OnceCell::new(),
        limits: HookLimits::for_handler(handler),
        pin: handler.sha256.clone(),
        env,
        warning: handler
            .memory_mb
            .filter(|mb| *mb > limits::MAX_MEMORY_MB)
            .map(|mb| {
                format!(
                    "`memoryMb` {mb} is over the limit; capped at {} MiB",
                    limits::MAX_MEMORY_MB
                )
            }),
        shared: Arc::new(HookShared {
            name: name.to_string(),
            config_json: config.to_string(),
            config,
            views: runtime.views.clone(),
        }),
        shelf: Shelf::default(),
        this: this as Weak<dyn Preparable>,
    }
}

/// Enters the guest once: `instance` if one was prepared, else a fresh one instantiated
/// here (boxed: that path pays for instantiating anyway, and the prepared path's future
/// stays small enough to allocate cheaply on every call).
async fn enter(
    store: &mut Store<HostState>,
    pre: &Pre,
    instance: Option<Instance>,
    input: &CallInput,
) -> wasmtime::Result<Result<v0_2::HookAnswer, String>> {
    let instance = match instance {
        Some(instance) => instance,
        None => Box::pin(Instance::new(pre, store)).await?,
    };
    instance.call(store, input).await
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

    fn load_warning(&self) -> Option<String> {
        self.warning.clone()
    }

    fn digest(&self) -> Option<String> {
        match self.ready.get() {
            Some(Ok(ready)) => Some(ready.digest.clone()),
            _ => None,
        }
    }

    fn oci_tag(&self) -> Option<(String, String)> {
        match self.ready.get() {
            Some(Ok(ready)) => ready.tag.clone(),
            _ => None,
        }
    }

    fn provenance(&self) -> Option<String> {
        let Some(Ok(ready)) = self.ready.get() else {
            return None;
        };
        let parts: Vec<String> = [
            ready.origin.clone(),
            ready
                .signer
                .as_ref()
                .map(|name| format!("signed by {name}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join("; "))
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
        let ready = load::prepare(&self.runtime, source, self.pin.as_deref());
        let error = ready.as_ref().err().map(ToString::to_string);
        let _ = self.ready.set(ready);
        error
    }

    fn execute<'a>(&'a self, call: HookCall) -> BoxFuture<'a, HookRun> {
        Box::pin(async move {
            match self.run(&call).await {
                Ok(result) => result,
                Err(failure) => HookRun {
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
                if self.runtime.load_on_caller
                    && let Some(ready) =
                        load::prepare_stored(&self.runtime, source, self.pin.as_deref())
                {
                    return ready;
                }
                let runtime = self.runtime.clone();
                let source = source.clone();
                let pin = self.pin.clone();
                tokio::task::spawn_blocking(move || {
                    load::prepare(&runtime, &source, pin.as_deref())
                })
                .await
                .unwrap_or_else(|err| Err(LoadError::Interrupted(err.to_string())))
            })
            .await
            .as_ref()
            .map_err(Clone::clone)
    }

    async fn run(&self, call: &HookCall) -> Result<HookRun, Failure> {
        let ready = self
            .ready()
            .await
            .map_err(|err| Failure::error(err.to_string()))?;
        let preopens = self
            .setup
            .as_ref()
            .map(|(_, preopens)| preopens.as_slice())
            .map_err(|err| Failure::error(err.to_string()))?;
        let (input, input_bytes, json_len) = CallInput::new(&ready.pre, &call.input);
        if input_bytes > limits::MAX_INPUT_BYTES {
            return Err(Failure::error(format!(
                "input too large for this hook: {input_bytes} bytes, over the Wasm input limit of {} bytes",
                limits::MAX_INPUT_BYTES
            )));
        }
        let timeout = call.timeout;
        let preparer = &self.runtime.preparer;
        // A prepared instance (no call has entered it), else a fresh store instantiated
        // below, on this call's own budget.
        let (mut store, slot, instance, fuel_spent) = match preparer.take(&self.shelf) {
            Some(parts) => (
                parts.store,
                parts.slot,
                Some(parts.instance),
                parts.fuel_spent,
            ),
            None => {
                // Waiting for slots is not part of the hook's time: a hook starved by
                // others waits for them to finish (each is bounded by its own limits);
                // it is not dropped.
                let slot = self
                    .runtime
                    .slots
                    .clone()
                    .acquire_many_owned(ready.weight)
                    .await
                    .map_err(|_| Failure::error("wasm runtime closed"))?;
                (self.new_store(&ready.engine), slot, None, 0)
            }
        };
        // What belongs to this call alone: its input, its memory allowance, its fetch
        // budget, its grants (opened now), its fuel and its deadline.
        {
            let state = store.data_mut();
            state.input = call.input.clone();
            state.fetch_budget = INPUT_FETCH_FACTOR * json_len + limits::INPUT_FETCH_SLACK;
            state.limiter.set_budget(
                self.limits.memory_bytes + limits::INPUT_ALLOWANCE_FACTOR * input_bytes,
            );
            if !preopens.is_empty() {
                match limits::wasi_context(preopens, &self.env, &state.wasi.stdio) {
                    Ok(ctx) => state.ctx = Some(ctx),
                    Err(message) => {
                        preparer.finish(&self.this, &self.shelf, store, slot, ready.copy_pool);
                        return Err(Failure::error(message));
                    }
                }
            }
        }
        let stdio = store.data().wasi.stdio.clone();
        if let Err(e) = store.set_fuel(self.limits.fuel.saturating_sub(fuel_spent)) {
            preparer.finish(&self.this, &self.shelf, store, slot, ready.copy_pool);
            return Err(Failure::error(format!("{e:#}")));
        }
        store.set_epoch_deadline(limits::deadline_ticks(timeout));
        let started = Instant::now();
        // Boxed: two allocations below glibc's large-request size (which would first
        // consolidate every free chunk the call left behind) cost less than one above.
        let guest = Box::pin(enter(&mut store, &ready.pre, instance, &input));
        let outcome = tokio::time::timeout(timeout, guest).await;
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
                let size = v0_2::answer_size(&answer);
                if size > self.limits.output_bytes {
                    Err(Failure::error(format!(
                        "output limit of {} bytes exceeded ({size} bytes)",
                        self.limits.output_bytes
                    )))
                } else {
                    v0_2::hook_output(answer, &call.event)
                        .map(HookRun::answer)
                        .map_err(|err| Failure::error(format!("invalid answer: {err}")))
                }
            }
        };
        // The answer is in hand: the store (never entered again) and its slot are dropped
        // behind, and the next instance prepared, off this call's path.
        preparer.finish(&self.this, &self.shelf, store, slot, ready.copy_pool);
        log_stdio(&self.shared.name, &stdio);
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

    /// A store for one instance of this hook: its limiter (the hook's memory budget; a
    /// call adds its input allowance), fuel, a placeholder input, captured stdio, and no
    /// WASI context yet (built on the guest's first WASI call, or with the grants).
    fn new_store(&self, engine: &wasmtime::Engine) -> Store<HostState> {
        let stdio = MemoryOutputPipe::new(limits::STDIO_CAPTURE_BYTES);
        let mut table = ResourceTable::new();
        table.set_max_capacity(limits::MAX_RESOURCES);
        let state = HostState {
            ctx: None,
            wasi: LazyWasi {
                env: self.env.clone(),
                stdio,
            },
            table,
            limiter: Limiter::new(self.limits.memory_bytes),
            hook: self.shared.clone(),
            input: super::host::placeholder_input(),
            fetch_budget: 0,
            log_calls: 0,
            listing: Default::default(),
            shell_view: None,
            parses: 0,
        };
        let mut store = Store::new(engine, state);
        store.limiter(|state| &mut state.limiter);
        store
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

impl Preparable for WasmHook {
    fn shelf(&self) -> &Shelf {
        &self.shelf
    }

    fn name(&self) -> &str {
        &self.shared.name
    }

    fn slots(&self) -> &Arc<tokio::sync::Semaphore> {
        &self.runtime.slots
    }

    /// Pool slots one call of this hook takes, once it is loaded.
    fn weight(&self) -> Option<u32> {
        match self.ready.get() {
            Some(Ok(ready)) => Some(ready.weight),
            _ => None,
        }
    }

    /// Instantiates this hook's component ahead of a call (on the preparer thread), in a
    /// store of its own holding `slot`. Returns it and the bytes it holds, or why this
    /// hook is not prepared ahead.
    fn prepare_instance(
        &self,
        rt: &tokio::runtime::Runtime,
        slot: tokio::sync::OwnedSemaphorePermit,
    ) -> Result<(Parts, usize), String> {
        let Some(Ok(ready)) = self.ready.get() else {
            return Err("not loaded".into());
        };
        let grants = self
            .setup
            .as_ref()
            .map(|(_, preopens)| !preopens.is_empty())
            .unwrap_or(false);
        let mut store = self.new_store(&ready.engine);
        store
            .set_fuel(self.limits.fuel)
            .map_err(|e| format!("{e:#}"))?;
        store.set_epoch_deadline(limits::deadline_ticks(limits::DEFAULT_TIMEOUT));
        let instance = rt
            .block_on(async {
                tokio::time::timeout(
                    limits::DEFAULT_TIMEOUT,
                    Instance::new(&ready.pre, &mut store),
                )
                .await
            })
            .map_err(|_| "instantiation timed out".to_string())?
            .map_err(|err| format!("instantiation failed: {}", root_cause(&err)))?;
        // Grants are opened per call; a guest that reached for WASI while it was being
        // instantiated might keep what it got, so such a hook is instantiated per call.
        if grants && store.data().ctx.is_some() {
            return Err("its instantiation used WASI and the hook has grants".into());
        }
        let fuel_spent = self
            .limits
            .fuel
            .saturating_sub(store.get_fuel().map_err(|e| format!("{e:#}"))?);
        let bytes = store.data().limiter.used();
        Ok((
            Parts {
                store,
                instance,
                slot,
                fuel_spent,
            },
            bytes,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::WasmHandler;

    use crate::executor::SMALL_REQUEST;

    /// The size of the future `f` would return, without calling it.
    fn future_size<F: FnOnce() -> Fut, Fut>(_f: F) -> usize {
        std::mem::size_of::<Fut>()
    }

    #[test]
    fn the_futures_a_call_boxes_stay_below_the_large_request_size() {
        let runtime = Arc::new(WasmRuntime::new(Default::default()).unwrap());
        let hook = executor(&runtime, &WasmHandler::new("x.wasm"), "x");
        let event = crate::dialect::Event::new("PreToolUse");
        let call = HookCall {
            name: "x".into(),
            event: event.clone(),
            input: crate::hook_input::HookInput::new(event, serde_json::json!({})),
            timeout: Duration::from_secs(1),
            project_dir: None,
            background: Default::default(),
        };
        let execute = hook.execute(call);
        let size = std::mem::size_of_val(&*execute);
        assert!(size <= SMALL_REQUEST, "the call's future is {size} bytes");
        #[allow(unreachable_code, clippy::diverging_sub_expression)]
        let guest = future_size(|| enter(unreachable!(), unreachable!(), None, unreachable!()));
        assert!(
            guest <= SMALL_REQUEST,
            "the guest call's future is {guest} bytes"
        );
    }
}

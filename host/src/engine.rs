//! The [`Engine`]: resolved configuration plus executors. [`Engine::execute`] takes an
//! event and its input and always yields a [`HookOutcome`]; hook failures are inputs to
//! the merge, never an `Err`.
//!
//! Per event: match (L1 event bucket, L2 matcher, `if`, `once`) → run (concurrently;
//! `sequential` groups in order with the rewritten input fed forward, stopping at the
//! first block; `async` hooks detached) → [`merge`] in configuration order → stop-loop
//! guard.

mod matching;
mod session;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::config::HttpPolicy;
use crate::config::{
    self, Diagnostic, ExecutorKind, Handler, HookSpec, Layer, LoadOptions, LoadedConfig,
};
use crate::event::EventSpec;
use crate::executor::command::CommandExecutor;
use crate::executor::http::HttpExecutor;
use crate::executor::prompt::{LlmOptions, PromptExecutor};
use crate::executor::wasm::{WasmOptions, WasmRuntime};
use crate::executor::{AsyncNotice, Background, Executor, HookCall, Unsupported};
use crate::merge::{Ran, merge};
use crate::outcome::{HookOutcome, HookResult, HookStatus};

pub use session::SessionHookId;

/// Default number of consecutive Stop blocks before the engine lets the agent stop.
pub const DEFAULT_STOP_BLOCK_CAP: u32 = 8;

/// How long [`Engine::close`] waits for background hooks.
pub const ASYNC_DRAIN: Duration = Duration::from_secs(2);

/// Errors building an engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The Wasm runtime could not be created.
    #[error("cannot create the Wasm runtime")]
    Wasm(#[source] crate::executor::wasm::WasmError),
    /// The HTTP client could not be created.
    #[error("cannot create the HTTP client")]
    Http(#[source] reqwest::Error),
    /// A session hook could not be loaded.
    #[error("cannot load session hook {hook}: {reason}")]
    HookLoad {
        /// The hook's name.
        hook: String,
        /// Why.
        reason: String,
    },
    /// A session hook was invalid.
    #[error("invalid session hook for `{event}`")]
    SessionHook {
        /// The event.
        event: String,
        /// Why.
        #[source]
        source: crate::matcher::MatcherError,
    },
}

/// Engine settings beyond configuration files.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Consecutive Stop/SubagentStop blocks allowed before the engine lets the stop
    /// through (0 disables the guard).
    pub stop_block_cap: u32,
    /// Wasm runtime settings.
    pub wasm: WasmOptions,
    /// LLM endpoint for prompt hooks.
    pub llm: LlmOptions,
}

impl Default for EngineOptions {
    fn default() -> Self {
        let cap = std::env::var("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(DEFAULT_STOP_BLOCK_CAP);
        Self {
            stop_block_cap: cap,
            wasm: WasmOptions::default(),
            llm: LlmOptions::from_env(),
        }
    }
}

/// A hook ready to run.
#[derive(Clone)]
pub(crate) struct Prepared {
    pub(crate) id: u64,
    /// Shared so that selecting a hook per event is a reference-count bump.
    pub(crate) spec: Arc<HookSpec>,
    /// `spec.display_name()`, computed once.
    pub(crate) name: Arc<str>,
    pub(crate) executor: Arc<dyn Executor>,
}

impl Prepared {
    pub(crate) fn new(id: u64, spec: HookSpec, executor: Arc<dyn Executor>) -> Self {
        Self {
            id,
            name: Arc::from(spec.display_name()),
            spec: Arc::new(spec),
            executor,
        }
    }
}

/// A hook currently running, with its status message.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveHook {
    /// Hook name.
    pub name: String,
    /// Event it runs for.
    pub event: String,
    /// Its `statusMessage`, if configured.
    pub status_message: Option<String>,
    /// How long it has been running.
    pub elapsed: Duration,
}

/// One configured hook, for listings.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HookInfo {
    /// Event.
    pub event: String,
    /// Matcher as written.
    pub matcher: Option<String>,
    /// Name.
    pub name: String,
    /// Executor.
    pub executor: ExecutorKind,
    /// Where it was configured.
    pub source: Layer,
    /// File it came from.
    pub file: String,
    /// Status message.
    pub status_message: Option<String>,
}

pub(crate) struct Inner {
    pub(crate) hooks: Vec<Prepared>,
    pub(crate) session_hooks: RwLock<Vec<Prepared>>,
    pub(crate) next_id: AtomicU64,
    diagnostics: Vec<Diagnostic>,
    once_done: Mutex<HashSet<(String, u64)>>,
    stop_blocks: Mutex<HashMap<String, u32>>,
    active: Mutex<HashMap<u64, (ActiveHook, Instant)>>,
    next_call: AtomicU64,
    background: Background,
    project_dir: Option<PathBuf>,
    home: Option<PathBuf>,
    pub(crate) wasm: Mutex<Option<Arc<WasmRuntime>>>,
    pub(crate) http: HttpShared,
    options: EngineOptions,
}

/// What HTTP and prompt executors share: one client (connection reuse) and the policy.
#[derive(Clone)]
pub(crate) struct HttpShared {
    client: reqwest::Client,
    policy: Arc<HttpPolicy>,
    llm: LlmOptions,
}

/// The hook engine. Cheap to clone; clones share state.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
}

impl Engine {
    /// Loads configuration from `load` and builds an engine.
    pub fn load(load: &LoadOptions, options: EngineOptions) -> Result<Engine, EngineError> {
        Self::from_config(config::load(load), options)
    }

    /// Builds an engine from already loaded configuration.
    pub fn from_config(
        config: LoadedConfig,
        options: EngineOptions,
    ) -> Result<Engine, EngineError> {
        let needs_wasm = config
            .hooks
            .iter()
            .any(|h| matches!(h.handler, Handler::Wasm(_)));
        let wasm = if needs_wasm {
            Some(Arc::new(
                WasmRuntime::new(options.wasm.clone()).map_err(EngineError::Wasm)?,
            ))
        } else {
            None
        };
        let http = HttpShared {
            client: crate::executor::http::client().map_err(EngineError::Http)?,
            policy: Arc::new(config.http_policy),
            llm: options.llm.clone(),
        };
        let mut next = 0;
        let mut diagnostics = config.diagnostics;
        let hooks = config
            .hooks
            .into_iter()
            .map(|spec| {
                next += 1;
                let executor = executor_for(&spec, wasm.as_ref(), &http);
                if let Some(error) = executor.load_error() {
                    diagnostics.push(Diagnostic {
                        severity: crate::config::Severity::Error,
                        file: spec.file.clone(),
                        location: spec.location.clone(),
                        message: format!(
                            "{} hook {}: {error}",
                            spec.handler.executor_kind(),
                            spec.display_name()
                        ),
                    });
                }
                Prepared::new(next, spec, executor)
            })
            .collect();
        Ok(Engine {
            inner: Arc::new(Inner {
                hooks,
                session_hooks: RwLock::new(Vec::new()),
                next_id: AtomicU64::new(next + 1),
                diagnostics,
                once_done: Mutex::new(HashSet::new()),
                stop_blocks: Mutex::new(HashMap::new()),
                active: Mutex::new(HashMap::new()),
                next_call: AtomicU64::new(0),
                background: Background::default(),
                project_dir: config.project_dir,
                home: config.home,
                wasm: Mutex::new(wasm),
                http,
                options,
            }),
        })
    }

    /// Diagnostics from loading configuration.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.inner.diagnostics
    }

    /// Does the expensive part of loading for every configured hook now (compiling Wasm
    /// components, which otherwise happens on first use) and returns a diagnostic for
    /// each hook that cannot load. `hookhost check` runs this.
    pub async fn prepare_all(&self) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        for hook in &self.inner.hooks {
            if hook.executor.load_error().is_some() {
                continue; // already reported at load
            }
            if let Some(error) = hook.executor.prepare().await {
                diagnostics.push(Diagnostic {
                    severity: crate::config::Severity::Error,
                    file: hook.spec.file.clone(),
                    location: hook.spec.location.clone(),
                    message: format!(
                        "{} hook {}: {error}",
                        hook.spec.handler.executor_kind(),
                        hook.name
                    ),
                });
            }
        }
        diagnostics
    }

    /// Whether any `failClosed` hook is configured for `event`, whatever its matcher: the
    /// CLI answers a block when such an event's input cannot be read.
    pub fn has_fail_closed(&self, event: &str) -> bool {
        self.inner.hooks.iter().any(|hook| {
            hook.spec.event == event
                && matches!(&hook.spec.handler, Handler::Wasm(wasm) if wasm.fail_closed)
        })
    }

    /// Whether any `failClosed` hook is configured for any event.
    pub fn has_any_fail_closed(&self) -> bool {
        self.inner
            .hooks
            .iter()
            .any(|hook| matches!(&hook.spec.handler, Handler::Wasm(wasm) if wasm.fail_closed))
    }

    /// Every configured hook (configuration hooks, then session hooks).
    pub fn hooks(&self) -> Vec<HookInfo> {
        let session = self
            .inner
            .session_hooks
            .read()
            .unwrap_or_else(|e| e.into_inner());
        self.inner
            .hooks
            .iter()
            .chain(session.iter())
            .map(|hook| HookInfo {
                event: hook.spec.event.clone(),
                matcher: hook.spec.matcher_text.clone(),
                name: hook.name.to_string(),
                executor: hook.spec.handler.executor_kind(),
                source: hook.spec.layer.clone(),
                file: hook.spec.file.clone(),
                status_message: hook.spec.status_message.clone(),
            })
            .collect()
    }

    /// Hooks running right now, with their status messages.
    pub fn active_hooks(&self) -> Vec<ActiveHook> {
        let active = self.inner.active.lock().unwrap_or_else(|e| e.into_inner());
        active
            .values()
            .map(|(hook, started)| ActiveHook {
                elapsed: started.elapsed(),
                ..hook.clone()
            })
            .collect()
    }

    /// Notices from finished background hooks (`async`, `asyncRewake`, self-detached).
    pub fn take_notices(&self) -> Vec<AsyncNotice> {
        self.inner.background.take_notices()
    }

    /// Waits for the next background notice.
    pub async fn next_notice(&self) -> AsyncNotice {
        self.inner.background.next_notice().await
    }

    /// Runs `execute` on a background task; its outcome is dropped (side effects only).
    pub fn execute_detached(&self, event: &str, input: Value) {
        let engine = self.clone();
        let event = event.to_string();
        self.inner.background.spawn(async move {
            engine.execute(&event, input).await;
        });
    }

    /// Waits up to ~2 s for background hooks, then stops the rest (killing their
    /// processes).
    pub async fn close(&self) {
        self.inner.background.close(ASYNC_DRAIN).await;
    }

    /// Fires `event` with `input` and merges every matching hook's answer.
    pub async fn execute(&self, event: &str, input: Value) -> HookOutcome {
        let spec = EventSpec::for_name(event);
        let mut input = matching::normalise_input(event, input);
        let session = input
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if spec.is_stop() && self.stop_blocks(&session) > 0 {
            input
                .as_object_mut()
                .expect("normalised input is an object")
                .entry("stop_hook_active")
                .or_insert(Value::Bool(true));
        }
        let selected = self.select(event, &spec, &input, &session);
        if selected.is_empty() {
            return self.stop_guard(&spec, &session, HookOutcome::empty(event));
        }
        let input = Arc::new(input);
        let ran = self.run_all(event, spec, &selected, input, &session).await;
        let outcome = merge(event, &spec, ran);
        self.stop_guard(&spec, &session, outcome)
    }

    fn select(&self, event: &str, spec: &EventSpec, input: &Value, session: &str) -> Vec<Prepared> {
        let session_hooks = self
            .inner
            .session_hooks
            .read()
            .unwrap_or_else(|e| e.into_inner());
        let context = matching::MatchInput::new(spec, input, self.inner.home.as_deref());
        let mut selected: Vec<Prepared> = self
            .inner
            .hooks
            .iter()
            .chain(session_hooks.iter())
            .filter(|hook| hook.spec.event == event && context.matches(&hook.spec))
            .cloned()
            .collect();
        drop(session_hooks);
        if selected.iter().any(|h| h.spec.once) {
            let mut done = self
                .inner
                .once_done
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            selected.retain(|h| !h.spec.once || done.insert((session.to_string(), h.id)));
        }
        selected
    }

    fn stop_blocks(&self, session: &str) -> u32 {
        let blocks = self
            .inner
            .stop_blocks
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        blocks.get(session).copied().unwrap_or(0)
    }

    /// Counts consecutive Stop blocks per session and lets the stop through past the cap.
    fn stop_guard(&self, spec: &EventSpec, session: &str, mut outcome: HookOutcome) -> HookOutcome {
        if !spec.is_stop() {
            return outcome;
        }
        let mut blocks = self
            .inner
            .stop_blocks
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if !outcome.should_block {
            blocks.remove(session);
            return outcome;
        }
        let count = blocks.entry(session.to_string()).or_insert(0);
        *count += 1;
        let cap = self.inner.options.stop_block_cap;
        if cap > 0 && *count > cap {
            blocks.remove(session);
            outcome.should_block = false;
            let note = format!(
                "stop hooks blocked {cap} consecutive times; the engine let the stop through (cap {cap})"
            );
            outcome.block_reason = None;
            match &mut outcome.system_message {
                Some(message) => {
                    message.push('\n');
                    message.push_str(&note);
                }
                None => outcome.system_message = Some(note),
            }
        }
        outcome
    }

    fn call_for(
        &self,
        hook: &Prepared,
        spec: EventSpec,
        event: &Arc<str>,
        input: Arc<Value>,
        input_json: Arc<str>,
        session: &str,
    ) -> HookCall {
        // Only processes read the environment and working directory; other executors
        // skip building them.
        let mut env = Vec::new();
        let mut cwd = None;
        if matches!(hook.spec.handler, Handler::Command(_)) {
            cwd = input
                .get("cwd")
                .and_then(Value::as_str)
                .map(PathBuf::from)
                .or_else(|| self.inner.project_dir.clone());
            env.push(("CLAUDECODE".to_string(), "1".to_string()));
            env.push(("HOOKHOST".to_string(), "1".to_string()));
            if let Some(project) = self.inner.project_dir.as_ref().or(cwd.as_ref()) {
                env.push(("CLAUDE_PROJECT_DIR".into(), project.display().to_string()));
            }
            if !session.is_empty() {
                env.push(("CLAUDE_CODE_SESSION_ID".into(), session.to_string()));
            }
            env.extend(hook.spec.env.iter().cloned());
        }
        HookCall {
            name: hook.name.to_string(),
            event: spec,
            event_name: event.clone(),
            input,
            input_json,
            timeout: hook
                .spec
                .timeout
                .unwrap_or_else(|| default_timeout(&hook.spec, &spec)),
            env: Arc::new(env),
            cwd,
            background: self.inner.background.clone(),
        }
    }

    async fn run_all(
        &self,
        event: &str,
        spec: EventSpec,
        selected: &[Prepared],
        input: Arc<Value>,
        session: &str,
    ) -> Vec<Ran> {
        let event_name: Arc<str> = Arc::from(event);
        let input_json: Arc<str> = Arc::from(input.to_string());
        // Units: a sequential group runs as one unit; every other hook is its own unit.
        let mut units: Vec<Vec<usize>> = Vec::new();
        let mut group_of: HashMap<&str, usize> = HashMap::new();
        for (index, hook) in selected.iter().enumerate() {
            if hook.spec.sequential {
                if let Some(&unit) = group_of.get(hook.spec.group.as_str()) {
                    units[unit].push(index);
                    continue;
                }
                group_of.insert(hook.spec.group.as_str(), units.len());
            }
            units.push(vec![index]);
        }
        let mut slots: Vec<Option<Ran>> = vec![None; selected.len()];
        let run_unit = |unit: Vec<usize>| {
            let engine = self.clone();
            let hooks: Vec<Prepared> = unit.iter().map(|&i| selected[i].clone()).collect();
            let (input, input_json, event_name, session) = (
                input.clone(),
                input_json.clone(),
                event_name.clone(),
                session.to_string(),
            );
            async move {
                let ran = engine
                    .run_unit(spec, &event_name, hooks, input, input_json, &session)
                    .await;
                unit.into_iter().zip(ran).collect::<Vec<_>>()
            }
        };
        if units.len() == 1 {
            let unit = units.pop().expect("one unit");
            for (index, ran) in run_unit(unit).await {
                slots[index] = Some(ran);
            }
        } else {
            let mut tasks = tokio::task::JoinSet::new();
            for unit in units {
                tasks.spawn(run_unit(unit));
            }
            while let Some(joined) = tasks.join_next().await {
                // A panicking executor is a bug; its slot is reported below.
                if let Ok(done) = joined {
                    for (index, ran) in done {
                        slots[index] = Some(ran);
                    }
                }
            }
        }
        slots
            .into_iter()
            .zip(selected)
            .map(|(slot, hook)| {
                slot.unwrap_or_else(|| {
                    ran(
                        hook,
                        HookResult::non_blocking("internal error: the hook task panicked"),
                        Duration::ZERO,
                    )
                })
            })
            .collect()
    }

    /// Runs the hooks of one unit in order, feeding rewritten input forward and stopping
    /// at the first block (a unit of one hook is simply that hook).
    async fn run_unit(
        &self,
        spec: EventSpec,
        event: &Arc<str>,
        hooks: Vec<Prepared>,
        mut input: Arc<Value>,
        mut input_json: Arc<str>,
        session: &str,
    ) -> Vec<Ran> {
        let mut out = Vec::with_capacity(hooks.len());
        let mut stopped_by: Option<String> = None;
        for hook in &hooks {
            if let Some(blocker) = &stopped_by {
                out.push(ran(
                    hook,
                    HookResult::cancelled(format!(
                        "not run: sequential group stopped at blocking hook {blocker}"
                    )),
                    Duration::ZERO,
                ));
                continue;
            }
            let call = self.call_for(
                hook,
                spec,
                event,
                input.clone(),
                input_json.clone(),
                session,
            );
            let started = Instant::now();
            let result = self.run_one(hook, call).await;
            let duration = started.elapsed();
            if hooks.len() > 1 {
                if result.output.blocks() {
                    stopped_by = Some(hook.name.to_string());
                } else if let Some(updated) = &result.output.updated_input
                    && let Some(next) = matching::rewrite_input(&input, updated)
                {
                    input_json = Arc::from(next.to_string());
                    input = Arc::new(next);
                }
            }
            out.push(ran(hook, result, duration));
        }
        out
    }

    async fn run_one(&self, hook: &Prepared, call: HookCall) -> HookResult {
        if let Handler::Command(command) = &hook.spec.handler
            && command.run_async
        {
            let executor = hook.executor.clone();
            let rewake = command.async_rewake;
            let background = call.background.clone();
            background.spawn(async move {
                let result = executor.execute(call.clone()).await;
                call.background
                    .notify(crate::executor::command::notice(&call, rewake, result));
            });
            return HookResult::answer(Default::default());
        }
        let key = self.inner.next_call.fetch_add(1, Ordering::Relaxed);
        self.track(key, hook, &call);
        let failure_blocks = call.event.failure_blocks;
        let result = hook.executor.execute(call).await;
        self.inner
            .active
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key);
        // On events where any failure fails the event (WorktreeCreate), a hook that
        // failed, whatever its executor, blocks.
        match result.error.clone() {
            Some(error) if failure_blocks && result.status == HookStatus::NonBlockingError => {
                HookResult::failed_closed(error.clone(), error)
            }
            _ => result,
        }
    }

    fn track(&self, key: u64, hook: &Prepared, call: &HookCall) {
        let active = ActiveHook {
            name: call.name.clone(),
            event: call.event_name.to_string(),
            status_message: hook.spec.status_message.clone(),
            elapsed: Duration::ZERO,
        };
        self.inner
            .active
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, (active, Instant::now()));
    }

    /// Counters of the Wasm component cache (`None` before any Wasm hook was loaded).
    pub fn wasm_cache_stats(&self) -> Option<crate::executor::wasm::cache::CacheStats> {
        let slot = self.inner.wasm.lock().unwrap_or_else(|e| e.into_inner());
        slot.as_ref().map(|runtime| runtime.cache_stats())
    }

    /// Whether the Wasm runtime uses the pooling allocator (`None` before any Wasm hook
    /// was loaded).
    pub fn wasm_uses_pooling(&self) -> Option<bool> {
        let slot = self.inner.wasm.lock().unwrap_or_else(|e| e.into_inner());
        slot.as_ref().map(|runtime| runtime.uses_pooling())
    }

    pub(crate) fn wasm_runtime(&self) -> Result<Arc<WasmRuntime>, EngineError> {
        let mut slot = self.inner.wasm.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(runtime) = slot.as_ref() {
            return Ok(runtime.clone());
        }
        let runtime =
            Arc::new(WasmRuntime::new(self.inner.options.wasm.clone()).map_err(EngineError::Wasm)?);
        *slot = Some(runtime.clone());
        Ok(runtime)
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.background.abort_all();
    }
}

/// The timeout of a hook that sets none: 30 s for prompts, 5 s (or the event's shorter
/// default) for Wasm components, the event's default otherwise.
fn default_timeout(hook: &HookSpec, spec: &EventSpec) -> Duration {
    match hook.handler {
        Handler::Prompt(_) => Duration::from_secs(30),
        Handler::Wasm(_) => {
            crate::executor::wasm::limits::DEFAULT_TIMEOUT.min(spec.default_timeout())
        }
        _ => spec.default_timeout(),
    }
}

fn ran(hook: &Prepared, result: HookResult, duration: Duration) -> Ran {
    let name = match &hook.spec.handler {
        Handler::Command(c) if c.run_async => format!("{} (async)", hook.name),
        _ => hook.name.to_string(),
    };
    Ran {
        name,
        source: hook.spec.layer.clone(),
        executor: hook.spec.handler.executor_kind(),
        result,
        duration,
    }
}

pub(crate) fn executor_for(
    spec: &HookSpec,
    wasm: Option<&Arc<WasmRuntime>>,
    http: &HttpShared,
) -> Arc<dyn Executor> {
    match &spec.handler {
        Handler::Command(command) => Arc::new(CommandExecutor::new(command.clone())),
        Handler::Wasm(handler) => match wasm {
            Some(runtime) => runtime.executor(handler, &spec.display_name()),
            None => Arc::new(Unsupported("wasm (no runtime)".into())),
        },
        Handler::Http(handler) => Arc::new(HttpExecutor::new(
            handler.clone(),
            http.client.clone(),
            http.policy.clone(),
        )),
        Handler::Prompt(handler) => Arc::new(PromptExecutor::new(
            handler.clone(),
            http.client.clone(),
            http.llm.clone(),
        )),
        Handler::Unsupported(kind) => Arc::new(Unsupported(kind.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{PromptHandler, WasmHandler};

    #[test]
    fn default_timeouts_per_handler() {
        let event = EventSpec::for_name("PreToolUse");
        let wasm = HookSpec::session(
            "PreToolUse",
            None,
            Handler::Wasm(WasmHandler::new("x.wasm")),
        )
        .unwrap();
        assert_eq!(default_timeout(&wasm, &event), Duration::from_secs(5));
        let prompt = HookSpec::session(
            "Stop",
            None,
            Handler::Prompt(PromptHandler {
                prompt: "p".into(),
                model: None,
                continue_on_block: false,
            }),
        )
        .unwrap();
        assert_eq!(default_timeout(&prompt, &event), Duration::from_secs(30));
        let message = EventSpec::for_name("MessageDisplay");
        assert_eq!(default_timeout(&wasm, &message), Duration::from_secs(5));
        assert_eq!(
            default_timeout(&prompt, &EventSpec::for_name("UserPromptSubmit")),
            Duration::from_secs(30)
        );
    }
}

//! Session hooks: registered at run time through the library, fired after the
//! configuration hooks of the same event.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{Engine, EngineError, Prepared};
use crate::config::{Handler, HookSpec, Layer, WasmHandler};
use crate::dialect::Event;
use crate::executor::{Executor, registry};
use crate::matcher::Matcher;

/// Identifies a session hook for removal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionHookId(pub u64);

impl HookSpec {
    /// A session hook for `event`, firing when `matcher` accepts the event's matcher
    /// field.
    pub fn session(
        event: &str,
        matcher: Option<&str>,
        handler: Handler,
    ) -> Result<HookSpec, EngineError> {
        let event = Event::new(event);
        let compiled =
            Matcher::compile(matcher, &event).map_err(|source| EngineError::SessionHook {
                event: event.to_string(),
                source,
            })?;
        Ok(HookSpec {
            event,
            matcher: compiled,
            matcher_text: matcher.map(str::to_string),
            condition: None,
            handler,
            timeout: None,
            group_timeout: None,
            mode: crate::config::RunMode::Sync,
            status_message: None,
            once: false,
            sequential: false,
            group: String::new(),
            location: "session".into(),
            layer: Layer::Session,
            file: "session".into(),
            base_dir: None,
            env: Vec::new(),
            name: None,
            fail_closed: false,
            trusted: true,
        })
    }
}

impl Engine {
    /// Registers a session hook; it fires after the configuration hooks of its event.
    pub fn add_session_hook(&self, mut spec: HookSpec) -> Result<SessionHookId, EngineError> {
        spec.layer = Layer::Session;
        // The event as the engine's dialect names it, with its matcher syntax.
        let event = self.inner.dialect.event(spec.event.name());
        spec.matcher =
            Matcher::compile(spec.matcher_text.as_deref(), &event).map_err(|source| {
                EngineError::SessionHook {
                    event: event.to_string(),
                    source,
                }
            })?;
        spec.event = event;
        let executor = registry::build(&spec, &self.inner.shared);
        self.push_session(spec, executor)
    }

    /// Adds a prepared hook; a hook that could not be loaded (a Wasm component that does
    /// not compile, link or pass the import check) is refused with the reason.
    fn push_session(
        &self,
        spec: HookSpec,
        executor: Arc<dyn Executor>,
    ) -> Result<SessionHookId, EngineError> {
        if let Some(reason) = executor.load_error().or_else(|| executor.prepare_now()) {
            return Err(EngineError::HookLoad {
                hook: spec.display_name(),
                reason,
            });
        }
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        self.inner
            .session_hooks
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(Prepared::new(id, spec, executor));
        Ok(SessionHookId(id))
    }

    /// Registers a Wasm component given as bytes as a session hook for `event` and
    /// `matcher`; `handler` supplies the limits and grants (its `component` path is only
    /// used as the hook's name).
    pub fn add_session_wasm(
        &self,
        event: &str,
        matcher: Option<&str>,
        bytes: &[u8],
        handler: WasmHandler,
    ) -> Result<SessionHookId, EngineError> {
        let runtime = self
            .inner
            .shared
            .wasm_runtime()
            .map_err(EngineError::Wasm)?;
        let spec = HookSpec::session(event, matcher, Handler::Wasm(handler.clone()))?;
        let executor = runtime.executor_from_bytes(bytes, &handler, &spec.display_name());
        self.push_session(spec, executor)
    }

    /// Removes a session hook; `false` when no hook has that id.
    pub fn remove_session_hook(&self, id: SessionHookId) -> bool {
        let mut hooks = self
            .inner
            .session_hooks
            .write()
            .unwrap_or_else(|e| e.into_inner());
        let before = hooks.len();
        hooks.retain(|hook| hook.id != id.0);
        hooks.len() != before
    }

    /// Removes every session hook.
    pub fn clear_session_hooks(&self) {
        self.inner
            .session_hooks
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

//! Session hooks: registered at run time through the library, fired after the
//! configuration hooks of the same event.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::error::EngineError;
use super::inner::Inner;
use super::loaded_hook::LoadedHook;
use crate::config::{Handler, HookSpec, Layer};
use crate::executor::{Executor, registry};

/// Identifies a session hook for removal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionHookId(pub u64);

/// A session hook for `event`, firing when `matcher` accepts the event's matcher field
/// (tests).
#[cfg(test)]
pub(crate) fn test_spec(
    event: &str,
    matcher: Option<&str>,
    handler: Handler,
) -> Result<HookSpec, EngineError> {
    let event = crate::dialect::Event::new(event);
    let compiled = crate::matcher::Matcher::compile(matcher, &event).map_err(|source| {
        EngineError::SessionHook {
            event: event.to_string(),
            source,
        }
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

/// [`crate::Engine::add_session_hook`]: the entry read as a settings file's, loaded, added.
pub(super) fn add(inner: &Inner, hook: SessionHook) -> Result<SessionHookId, EngineError> {
    let event = inner.dialect.event(&hook.event);
    let mut group = serde_json::json!({"hooks": [hook.entry]});
    if let Some(matcher) = &hook.matcher {
        group["matcher"] = serde_json::Value::String(matcher.clone());
    }
    let section = serde_json::json!({ event.name(): [group] });
    let context = crate::config::settings::FileContext {
        file: "session".into(),
        layer: Layer::Session,
        base_dir: inner.project_dir.as_deref().map(Into::into),
        component_base: None,
        vars: Vec::new(),
        env: Vec::new(),
        trusted: true,
        dialect: inner.dialect,
        tool_patterns: true,
    };
    let (mut specs, mut diagnostics) = (Vec::new(), Vec::new());
    crate::config::settings::read_hooks(&section, &context, &mut specs, &mut diagnostics);
    let refused = |reason: String| EngineError::SessionEntry {
        event: event.to_string(),
        reason,
    };
    if let Some(error) = diagnostics
        .iter()
        .find(|d| d.severity == crate::config::Severity::Error)
    {
        return Err(refused(error.message.clone()));
    }
    let Some(mut spec) = specs.pop().filter(|_| specs.is_empty()) else {
        return Err(refused("expected exactly one handler entry".into()));
    };
    spec.location = "session".into();
    let executor = match (&hook.bytes, &spec.handler) {
        (Some(bytes), Handler::Wasm(handler)) => {
            let runtime = inner.shared.wasm_runtime().map_err(EngineError::Wasm)?;
            crate::executor::wasm::executor_from_bytes(
                &runtime,
                bytes,
                handler,
                &spec.display_name(),
            )
        }
        (Some(_), _) => return Err(refused("component bytes need a `wasm` entry".into())),
        (None, _) => registry::build(&spec, &inner.shared),
    };
    push(inner, spec, executor)
}

/// Adds a prepared hook; a hook that could not be loaded (a Wasm component that does
/// not compile, link or pass the import check) is refused with the reason.
fn push(
    inner: &Inner,
    spec: HookSpec,
    executor: Arc<dyn Executor>,
) -> Result<SessionHookId, EngineError> {
    if let Some(reason) = executor.load_error().or_else(|| executor.prepare_now()) {
        return Err(EngineError::HookLoad {
            hook: spec.display_name(),
            reason,
        });
    }
    let id = inner.next_id.fetch_add(1, Ordering::Relaxed);
    inner
        .session_hooks
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .push(LoadedHook::new(id, spec, executor));
    Ok(SessionHookId(id))
}

/// [`crate::Engine::remove_session_hook`].
pub(super) fn remove(inner: &Inner, id: SessionHookId) -> bool {
    let mut hooks = inner
        .session_hooks
        .write()
        .unwrap_or_else(|e| e.into_inner());
    let before = hooks.len();
    hooks.retain(|hook| hook.id != id.0);
    hooks.len() != before
}

/// [`crate::Engine::clear_session_hooks`].
pub(super) fn clear(inner: &Inner) {
    inner
        .session_hooks
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .clear();
}

/// A hook registered at run time ([`crate::Engine::add_session_hook`]): one handler entry as a
/// settings file writes it (`{"type": "command", "command": …}`, `{"type": "wasm",
/// "component": …, "fuel": …, "failClosed": true}`, http, prompt), for an event and an
/// optional matcher, or a Wasm component given as bytes. It is read and checked exactly
/// as a settings file's entry is; it fires after the configuration hooks of its event.
#[derive(Debug, Clone)]
pub struct SessionHook {
    event: String,
    matcher: Option<String>,
    entry: serde_json::Map<String, serde_json::Value>,
    bytes: Option<Arc<[u8]>>,
}

impl SessionHook {
    /// A hook for `event` running the handler `entry` (a JSON object, as in a settings
    /// file's `hooks` list).
    pub fn new(event: &str, entry: serde_json::Value) -> SessionHook {
        SessionHook {
            event: event.to_string(),
            matcher: None,
            entry: match entry {
                serde_json::Value::Object(map) => map,
                _ => serde_json::Map::new(),
            },
            bytes: None,
        }
    }

    /// A Wasm component given as bytes for `event`, named `name` (its `component` field);
    /// add its limits, grants and `config` with [`SessionHook::field`].
    pub fn wasm_bytes(event: &str, name: &str, bytes: &[u8]) -> SessionHook {
        let mut hook = SessionHook::new(
            event,
            serde_json::json!({"type": "wasm", "component": name}),
        );
        hook.bytes = Some(Arc::from(bytes));
        hook
    }

    /// Fires only when `matcher` accepts the event's matcher value.
    pub fn matcher(mut self, matcher: &str) -> SessionHook {
        self.matcher = Some(matcher.to_string());
        self
    }

    /// Sets one field of the handler entry (`timeout`, `failClosed`, `fuel`, …).
    pub fn field(mut self, name: &str, value: serde_json::Value) -> SessionHook {
        self.entry.insert(name.to_string(), value);
        self
    }
}

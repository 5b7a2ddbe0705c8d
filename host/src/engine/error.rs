//! The errors of building an engine and adding session hooks.

/// Errors building an engine.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The Wasm runtime could not be created.
    #[error("cannot create the Wasm runtime")]
    Wasm(#[source] crate::executor::wasm::WasmError),
    /// A session hook could not be loaded.
    #[error("cannot load session hook {hook}: {reason}")]
    HookLoad {
        /// The hook's name.
        hook: String,
        /// Why.
        reason: String,
    },
    /// A session hook's entry is not one a settings file could hold.
    #[error("invalid session hook for `{event}`: {reason}")]
    SessionEntry {
        /// The event.
        event: String,
        /// What is wrong with the entry.
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

//! `hookhost-guest`: write hookhost hooks in Rust, compiled to WebAssembly components.
//!
//! Implement [`Hook`] (every method has a default that answers "no decision"), then
//! register the type with [`export_hook!`]:
//!
//! ```no_run
//! use hookhost_guest::{export_hook, Answer, Hook, PreToolUse};
//!
//! struct NoForcePush;
//!
//! impl Hook for NoForcePush {
//!     fn pre_tool_use(call: PreToolUse) -> Result<Answer, String> {
//!         match call.command() {
//!             Some(cmd) if cmd.contains("push --force") => {
//!                 Ok(Answer::deny("force pushes are not allowed; push normally"))
//!             }
//!             _ => Ok(Answer::none()),
//!         }
//!     }
//! }
//!
//! export_hook!(NoForcePush);
//! ```
//!
//! Build with `cargo build --target wasm32-wasip2 --release`. The SDK targets the WIT
//! package `hookhost:hooks` at [`WIT_VERSION`].
//!
//! Inputs give the common fields typed and the tool input's top-level strings without a
//! JSON parser (the fast path); the complete input JSON is there when needed
//! ([`Event::json`]).

mod answer;
pub mod facts;
pub mod files;
mod input;
pub mod shell;

#[doc(hidden)]
pub mod bindings {
    include!(concat!(env!("OUT_DIR"), "/wit_bindings.rs"));
}

pub use answer::Answer;
pub use input::{Event, EventKind, PostToolUse, PreToolUse, SessionStart, Stop, UserPromptSubmit};

/// The WIT package version this SDK builds against (the newest in `wit/`).
pub const WIT_VERSION: &str = include!(concat!(env!("OUT_DIR"), "/wit_version.rs"));

/// A hook. Each method handles one event; the defaults answer [`Answer::none`]. Every
/// call runs in a fresh instance, so there is no state to keep between calls.
pub trait Hook {
    /// `PreToolUse`: before a tool runs. Allow, deny, ask, or rewrite its input.
    fn pre_tool_use(call: PreToolUse) -> Result<Answer, String> {
        let _ = call;
        Ok(Answer::none())
    }

    /// `PostToolUse`: after a tool succeeded. Add context, or block with feedback.
    fn post_tool_use(call: PostToolUse) -> Result<Answer, String> {
        let _ = call;
        Ok(Answer::none())
    }

    /// `UserPromptSubmit`: before the model sees a prompt.
    fn user_prompt_submit(prompt: UserPromptSubmit) -> Result<Answer, String> {
        let _ = prompt;
        Ok(Answer::none())
    }

    /// `Stop` and `SubagentStop`: the agent wants to stop; block to keep it going.
    fn stop(stop: Stop) -> Result<Answer, String> {
        let _ = stop;
        Ok(Answer::none())
    }

    /// `SessionStart`: add context before the first prompt.
    fn session_start(start: SessionStart) -> Result<Answer, String> {
        let _ = start;
        Ok(Answer::none())
    }

    /// Every other event, with the raw input.
    fn other(event: Event) -> Result<Answer, String> {
        let _ = event;
        Ok(Answer::none())
    }
}

/// Routes one call to the right [`Hook`] method. Used by [`export_hook!`].
#[doc(hidden)]
pub fn dispatch<H: Hook>(
    input: bindings::hookhost::hooks::types::HookInput,
) -> Result<bindings::hookhost::hooks::types::HookAnswer, String> {
    let event = Event::from(input);
    let answer = match event.kind() {
        EventKind::PreToolUse => H::pre_tool_use(PreToolUse(event)),
        EventKind::PostToolUse => H::post_tool_use(PostToolUse(event)),
        EventKind::UserPromptSubmit => H::user_prompt_submit(UserPromptSubmit(event)),
        EventKind::Stop => H::stop(Stop(event)),
        EventKind::SessionStart => H::session_start(SessionStart(event)),
        EventKind::Other => H::other(event),
    }?;
    Ok(answer.into_wit())
}

/// Exports a [`Hook`] implementation as the component's `handle` function. Use once per
/// crate (a component is one hook).
#[macro_export]
macro_rules! export_hook {
    ($hook:ty) => {
        const _: () = {
            struct __HookhostExport;
            impl $crate::bindings::Guest for __HookhostExport {
                fn handle(
                    input: $crate::bindings::hookhost::hooks::types::HookInput,
                ) -> ::core::result::Result<
                    $crate::bindings::hookhost::hooks::types::HookAnswer,
                    ::std::string::String,
                > {
                    $crate::dispatch::<$hook>(input)
                }
            }
    $crate::bindings::__export_hook_world!(__HookhostExport with_types_in $crate::bindings);
        };
    };
}

/// This hook's `config` values from its settings entry.
pub mod config {
    use crate::bindings::hookhost::hooks::host;

    /// The value of `key`, parsed; `None` when absent or not valid JSON.
    pub fn get(key: &str) -> Option<serde_json::Value> {
        host::config(key).and_then(|text| serde_json::from_str(&text).ok())
    }

    /// The value of `key` when it is a string.
    pub fn get_str(key: &str) -> Option<String> {
        match get(key)? {
            serde_json::Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The string items of the array at `key` (empty when absent).
    pub fn get_list(key: &str) -> Vec<String> {
        match get(key) {
            Some(serde_json::Value::Array(items)) => items
                .into_iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The whole `config` object.
    pub fn all() -> serde_json::Value {
        serde_json::from_str(&host::config_json()).unwrap_or_default()
    }
}

/// Logging to the host's log, attributed to this hook.
pub mod log {
    use crate::bindings::hookhost::hooks::host::{self, Level};

    /// Debug detail.
    pub fn debug(message: &str) {
        host::log(Level::Debug, message);
    }

    /// Normal operation.
    pub fn info(message: &str) {
        host::log(Level::Info, message);
    }

    /// Something unexpected.
    pub fn warn(message: &str) {
        host::log(Level::Warn, message);
    }

    /// Something failed.
    pub fn error(message: &str) {
        host::log(Level::Error, message);
    }
}

//! hookhost: a hook engine for AI coding-agent hosts.
//!
//! A host fires an event (`PreToolUse`, `Stop`, …) with its input JSON; hookhost finds
//! the hooks configured for it in Claude Code–style `settings.json` files and plugin
//! bundles, runs them (shell commands, HTTP endpoints, LLM prompts, sandboxed
//! WebAssembly components) and merges every answer into one [`EventOutcome`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), hookhost::EngineError> {
//! use hookhost::{Engine, EngineOptions, LoadOptions};
//! let mut load = LoadOptions::default();
//! load.project_dir = Some("/my/project".into());
//! load.settings = vec!["settings.json".into()];
//! let engine = Engine::load(&load, EngineOptions::default())?;
//! let outcome = engine
//!     .execute("PreToolUse", serde_json::json!({
//!         "tool_name": "Bash",
//!         "tool_input": {"command": "rm -rf /"}
//!     }))
//!     .await;
//! if outcome.should_block {
//!     println!("blocked: {:?}", outcome.block_reason);
//! }
//! engine.close().await;
//! # Ok(()) }
//! ```
//!
//! The engine runs on tokio: call it from a runtime with the time and I/O drivers enabled
//! (`#[tokio::main]`, or a `Builder` with `enable_all()`).
//!
//! The API is small: [`Engine`] (load, [`Engine::answer`] / [`Engine::execute`],
//! [`SessionHook`]s, introspection), [`LoadOptions`] and [`EngineOptions`] for what it
//! reads and how it runs, and the answers — per hook a [`HookAnswer`] (what the hook
//! said) inside a [`HookReport`] (how it ran), merged per event into one
//! [`EventOutcome`]. Structs are `#[non_exhaustive]`: build options from `default()`.
//!
//! The pipeline, one private module a step: `config` (layers,
//! plugins, raw → resolved hooks with every diagnostic), `event` (the catalog of
//! per-event rules), `matcher` and `condition` (which hooks fire), `executor` (one trait,
//! one module per hook type, a registry that builds them), `protocol` (the Claude Code
//! wire format: one field table for parsing, scoping and rendering), `outcome` (what
//! comes back, the configuration-order merge that yields it, its Claude Code rendering)
//! and `engine` (selection,
//! scheduling, the stop guard). The `hookhost` binary (feature `cli`, on by default) is
//! the command line on top; library users can turn it off with
//! `default-features = false`.

mod admission;
mod agent;
mod builtin;
mod condition;
mod config;
mod dialect;
mod engine;
pub mod envelope;
mod event;
mod executor;
pub mod export;
mod file_target;
mod files;
pub mod fleet;
mod front_door;
mod hook_input;
mod input;
mod json_field;
mod matcher;
mod oci;
mod outcome;
mod output;
mod paths;
mod platform;
mod protocol;
#[cfg(unix)]
mod resolve;
mod self_protection;
mod shell;
mod signing;
mod text;
mod tools;
pub mod warm;

// The API: an engine, what it loads, what it answers.
pub use agent::{
    AGENT_FIELD, AGENT_TOOL_FIELD, Agent, Install as AgentInstall, Shape as AgentHookShape,
};
pub use front_door::agent::{AgentCall, AgentError, AgentReply, Normalised};
// The guards that come with hookhost (`builtin:NAME`).
pub use builtin::{Builtin, Runs as BuiltinRuns};
pub use config::{
    Diagnostic, DiagnosticKind, ExecutorKind, FileSet, Layer, LoadOptions, PolicyState, Severity,
    Trust, TrustError, TrustStore, candidate_files, named_policy,
};
pub use dialect::DialectId;
pub use engine::{
    ActiveHook, Engine, EngineError, EngineOptions, HookInfo, HookVerdict, Inventory, SessionHook,
    SessionHookId, WasmInventory,
};
pub use executor::AsyncNotice;
pub use executor::prompt::{LlmOptions, Provider};
pub use executor::wasm::cache::CacheStats;
pub use executor::wasm::{PrepareOptions, PreparedStats, WIT_VERSION, WIT_VERSIONS, WasmOptions};
pub use front_door::{Answer, Failure, Request, RequestLimits};
// Components in OCI registries (`hookhost pull`/`push`) and the signing policy a
// loaded component is checked against.
pub use oci::{OciError, OciRef, Pulled, Resolved, Store as OciStore};
pub use outcome::{Counts, EventOutcome, HookDecision, HookReport, HookStatus, IgnoredField};
pub use output::{HookAnswer, PermissionDecision};
pub use signing::{SignatureError, SigningPolicy, TrustedSigner};

/// What the `hookhost` binary, the fuzz targets (`host/fuzz`) and the integration tests
/// reach below the API: the dialect and catalog columns, the configuration loader, the
/// parsers and hookhost's folders. Not a stable API.
#[doc(hidden)]
pub mod internals {
    pub use crate::condition::{Rule, RuleContext, split_commands};
    pub use crate::config::plugin::read_plugin;
    pub use crate::config::{
        CommandHandler, DEFAULT_MANAGED_PATH, Handler, HookSpec, LoadedConfig, OWN_MANAGED_PATH,
        Shell, TrustedBy, WasmHandler, detect, load, trusted_folder,
    };
    pub use crate::dialect::{Dialect, Event, Layering, Listing};
    pub use crate::event::{CATALOG, CATALOG_VERSION, EventSpec};
    pub use crate::executor::command::OUTPUT_CAP;
    pub use crate::executor::wasm::DEFAULT_MAX_COMPONENT_BYTES as MAX_COMPONENT_BYTES;
    pub use crate::executor::wasm::cache::{
        CacheEntry, DEFAULT_MAX_BYTES as DEFAULT_CACHE_MAX_BYTES, entries as cache_entries,
        prune as prune_cache, share_key as share_cache_key,
    };
    pub use crate::executor::wasm::compile_worker_main;
    pub use crate::executor::wasm::input_record_size;
    pub use crate::files::{
        MAX_CONFIG_FILE, create_private_dir, open_regular, read_regular, replace_private,
    };
    pub use crate::input::{parse as parse_input, sniff_event};
    pub use crate::matcher::Matcher;
    pub use crate::matcher::never_fires_in_claude_code;
    pub use crate::paths::{
        cache_dir, cache_dir_in, config_dir, config_dir_in, home, state_dir, state_dir_in,
    };
    /// What differs between operating systems.
    pub mod platform {
        pub use crate::platform::*;
    }
    pub use crate::outcome::ClaudeReply;
    pub use crate::protocol::{MAX_LIST_ENTRIES, is_async_marker, looks_like_json, parse_answer};
    /// The shell view (`hookhost:hooks/shell`).
    pub mod shell {
        pub use crate::shell::*;
    }
    pub use crate::text::shorten;
}

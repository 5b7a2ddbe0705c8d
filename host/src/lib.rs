//! hookhost: a hook engine for AI coding-agent hosts.
//!
//! A host fires an event (`PreToolUse`, `Stop`, …) with its input JSON; hookhost finds
//! the hooks configured for it in Claude Code–style `settings.json` files and plugin
//! bundles, runs them (shell commands, HTTP endpoints, LLM prompts, sandboxed
//! WebAssembly components) and merges every answer into one [`HookOutcome`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), hookhost::EngineError> {
//! use hookhost::{Engine, EngineOptions, LoadOptions};
//! let load = LoadOptions {
//!     project_dir: Some("/my/project".into()),
//!     settings: vec!["settings.json".into()],
//!     ..LoadOptions::default()
//! };
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
//! The pipeline, one private module a step, re-exported here: `config` (layers,
//! plugins, raw → resolved hooks with every diagnostic), `event` (the catalog of
//! per-event rules), `matcher` and `condition` (which hooks fire), `executor` (one trait,
//! one module per hook type, a registry that builds them), `protocol` (the Claude Code
//! wire format: one field table for parsing, scoping and rendering), `merge`
//! (configuration-order merge), `outcome` (what comes back) and `engine` (selection,
//! scheduling, the stop guard). The `hookhost` binary (feature `cli`, on by default) is
//! the command line on top; library users can turn it off with
//! `default-features = false`.

mod admission;
mod condition;
mod config;
mod dialect;
mod engine;
mod event;
mod executor;
mod files;
mod front_door;
mod input;
mod matcher;
mod merge;
mod outcome;
mod output;
mod paths;
mod protocol;
mod text;

pub use config::{
    AllowedPath, CommandHandler, DEFAULT_MANAGED_PATH, Diagnostic, DroppedHook, ExecutorKind,
    FileSet, Handler, HookSpec, HttpHandler, HttpPolicy, Layer, LoadOptions, LoadedConfig,
    OWN_MANAGED_PATH, PromptHandler, RunMode, Severity, Shell, Trust, TrustError, TrustStore,
    TrustedBy, WasmGrantPolicy, WasmHandler, detect, load, trusted_folder,
};
pub use dialect::{
    AGENT_SDK, AnswerForm, CLAUDE, Chain, DecisionRule, Dialect, DialectId, EVVA, Event, EventRule,
    GEN, HYGGE, Layering, Listing, Order, SEQUENTIAL_GROUP, StopRule, TimeoutZero,
};
pub use engine::{
    ASYNC_DRAIN, ActiveHook, DEFAULT_STOP_BLOCK_CAP, Engine, EngineError, EngineOptions, HookInfo,
    HookVerdict, SessionHookId,
};
pub use event::{
    BlockForm, CATALOG, EventSpec, Exit2, Fields, Handlers, MatcherSyntax, MatcherValue, ModeRule,
    PromptEffect,
};
pub use executor::AsyncNotice;
pub use executor::prompt::{LlmOptions, Provider};
pub use executor::wasm::cache::CacheStats;
pub use executor::wasm::{WIT_VERSION, WasmOptions, compile_worker_main};
pub use files::{create_private_dir, open_regular};
pub use front_door::{Answer, Failure, Request, RequestLimits};
pub use input::{InputError, parse as parse_input, sniff_event};
pub use matcher::never_fires_in_claude_code;
pub use merge::failed_closed;
pub use outcome::{Counts, HookOutcome, HookReport, HookStatus, IgnoredField};
pub use output::{HookOutput, PermissionDecision};
pub use paths::{cache_dir, config_dir, env_dir, home, state_dir};
pub use protocol::ClaudeAnswer;

/// Parsers and limits exposed for the fuzz targets and property tests (`host/fuzz`,
/// `tests/it/parsers.rs`). Not a stable API.
#[doc(hidden)]
pub mod internals {
    pub use crate::condition::{Rule, RuleContext, split_commands};
    pub use crate::config::plugin::read_plugin;
    pub use crate::executor::command::OUTPUT_CAP;
    pub use crate::executor::wasm::input_record_size;
    pub use crate::matcher::Matcher;
    pub use crate::protocol::{MAX_LIST_ENTRIES, is_async_marker, looks_like_json, parse_answer};
    pub use crate::text::shorten;
}

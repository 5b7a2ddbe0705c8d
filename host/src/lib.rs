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
//! The pipeline, one module a step: [`config`] (layers, plugins, raw → resolved),
//! [`matcher`] and [`condition`] (which hooks fire), [`executor`] (one trait, one module
//! per hook type), [`merge`] (configuration-order merge), [`outcome`] (what comes back),
//! and [`engine`] (the orchestration).

pub mod cli;
pub mod condition;
pub mod config;
pub mod engine;
pub mod event;
pub mod executor;
pub mod input;
pub mod matcher;
pub mod merge;
pub mod outcome;
pub mod output;
pub mod protocol;
pub mod text;

pub use config::{
    Diagnostic, ExecutorKind, HookSpec, LayerPolicy, LoadOptions, LoadedConfig, Severity,
};
pub use engine::{ActiveHook, Engine, EngineError, EngineOptions, HookInfo, SessionHookId};
pub use event::EventSpec;
pub use executor::AsyncNotice;
pub use outcome::{Counts, HookOutcome, HookReport, HookStatus};
pub use output::{HookOutput, PermissionDecision};

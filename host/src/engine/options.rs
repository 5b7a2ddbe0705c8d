//! An engine's settings beyond its configuration files.

use std::path::PathBuf;

use crate::executor::prompt::LlmOptions;
use crate::executor::wasm::WasmOptions;

/// Default number of consecutive Stop blocks before the engine lets the agent stop.
pub const DEFAULT_STOP_BLOCK_CAP: u32 = 8;

/// Engine settings beyond configuration files.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EngineOptions {
    /// Consecutive Stop/SubagentStop blocks allowed before the engine lets the stop
    /// through (0 disables the guard).
    pub stop_block_cap: u32,
    /// Wasm runtime settings.
    pub wasm: WasmOptions,
    /// LLM endpoint for prompt hooks.
    pub llm: LlmOptions,
    /// Audit log file (`--audit-log`); `hookAuditLog` in managed or user settings is
    /// used when unset.
    pub audit_log: Option<PathBuf>,
    /// A private folder where per-session state (`once` hooks that ran, consecutive Stop
    /// blocks) outlives the process — for hosts that run one process per event
    /// (`hookhost fire`). `None`: kept in memory, as a long-running engine does.
    pub session_state_dir: Option<PathBuf>,
    /// The folder the owner's envelope is kept in (hookhost's state folder's
    /// `envelope`): needed when the owners' settings switch the envelope on.
    pub envelope_dir: Option<PathBuf>,
    /// hookhost's binary, which applies the envelope to each shell command
    /// (`hookhost envelope run`): needed when the owners' settings switch it on.
    pub envelope_launcher: Option<PathBuf>,
    /// The agent itself runs inside the envelope (`hookhost envelope session`; this engine
    /// is its broker): shell commands are judged, not rewritten — every process of the
    /// session is inside already.
    pub session_enclosed: bool,
    /// hookhost's export spool (its state folder's `telemetry-spool`): where a process
    /// that exits right after answering (a one-shot hook) leaves each decision record
    /// for `serve` or `hookhost telemetry flush` to send, when the owners' `telemetry`
    /// is on. Kept out of the agent's reach by self-protection.
    pub export_spool: Option<PathBuf>,
    /// Send decisions from this process (a sender thread of its own: a long-running
    /// engine) even though a spool is named. Without a spool they are always sent so —
    /// unless a spool was named and refused (it lies inside the project): then nothing
    /// is exported and a diagnostic says why.
    pub export_direct: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            stop_block_cap: DEFAULT_STOP_BLOCK_CAP,
            wasm: WasmOptions::default(),
            llm: LlmOptions::default(),
            audit_log: None,
            session_state_dir: None,
            envelope_dir: None,
            envelope_launcher: None,
            session_enclosed: false,
            export_spool: None,
            export_direct: false,
        }
    }
}

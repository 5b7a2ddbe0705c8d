//! The engine's shared state: what every clone of an [`Engine`](crate::Engine) reads.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, RwLock};

use super::audit::AuditLog;
use super::loaded_hook::LoadedHook;
use super::schedule::Calls;
use super::select::OnceTracker;
use super::stop_guard::StopGuard;
use crate::config::{Diagnostic, DroppedHook};
use crate::dialect::Dialect;
use crate::executor::Background;
use crate::executor::registry::Shared;
use crate::self_protection::SelfProtection;

/// The state one engine's clones share.
pub(crate) struct Inner {
    pub(crate) hooks: Vec<LoadedHook>,
    pub(crate) session_hooks: RwLock<Vec<LoadedHook>>,
    pub(crate) next_id: AtomicU64,
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) once: OnceTracker,
    pub(super) stop_guard: StopGuard,
    /// The hooks running now.
    pub(super) calls: Arc<Calls>,
    pub(super) background: Background,
    pub(super) revalidate_rewrites: bool,
    pub(super) audit: Option<AuditLog>,
    /// The OTLP export of every decision (the owners' `telemetry`).
    pub(super) export: Option<crate::export::Exporter>,
    /// The fleet policy in force.
    pub(super) policy: Option<crate::config::PolicyState>,
    pub(super) project_dir: Option<Arc<Path>>,
    pub(super) home: Option<PathBuf>,
    pub(crate) dialect: &'static Dialect,
    pub(super) dialect_detected_from: Option<PathBuf>,
    /// Owners' failClosed hooks that cannot run (see [`crate::config::LoadedConfig::lost_guards`]).
    pub(super) lost_guards: Vec<String>,
    pub(super) repository_files: Vec<String>,
    /// Hooks left out at load, with why (`explain`).
    pub(super) dropped: Vec<DroppedHook>,
    pub(crate) shared: Shared,
    /// The owners' `wasmUpdateInterval`, seconds.
    pub(super) wasm_update_interval: Option<u64>,
    /// What the agent's tool calls may not touch (`None`: an owner turned it off).
    pub(super) self_protection: Option<SelfProtection>,
    /// The owner's envelope (`None`: the owners did not switch it on).
    pub(crate) enclosure: Option<super::enclose::Enclosure>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.background.abort_all();
    }
}

//! A hook as the engine keeps it after loading: spec, executor, timeout.

use std::sync::Arc;
use std::time::Duration;

use crate::config::HookSpec;
use crate::executor::Executor;

/// A hook ready to run: its spec, its executor and its timeout.
#[derive(Clone)]
pub(crate) struct LoadedHook {
    pub(crate) id: u64,
    /// Shared so that selecting a hook per event is a reference-count bump.
    pub(crate) spec: Arc<HookSpec>,
    /// `spec.display_name()`, computed once.
    pub(crate) name: Arc<str>,
    pub(crate) executor: Arc<dyn Executor>,
    /// The hook's `timeout`, or its executor's default on its event.
    pub(crate) timeout: Duration,
}

impl LoadedHook {
    pub(crate) fn new(id: u64, spec: HookSpec, executor: Arc<dyn Executor>) -> Self {
        Self {
            id,
            name: Arc::from(spec.display_name()),
            timeout: spec
                .timeout
                .unwrap_or_else(|| executor.default_timeout(&spec.event)),
            spec: Arc::new(spec),
            executor,
        }
    }
}

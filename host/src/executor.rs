//! The [`Executor`] trait every hook type implements, the [`HookCall`] it receives, and
//! [`Background`], which owns detached work (async hooks) and the notices it produces.
//!
//! The engine knows no executor by name: [`registry::build`] turns a configured handler
//! into an executor, and each executor says its own default timeout and whether it runs
//! detached. Adding a hook type touches this folder and the config parser only.

pub mod command;
pub mod http;
pub mod prompt;
pub mod registry;
pub mod wasm;

use std::collections::VecDeque;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::JoinHandle;

use crate::dialect::Event;
use crate::event::EventSpec;
use crate::outcome::{HookRun, HookStatus};

/// The largest request glibc's malloc serves from its per-thread cache and small bins;
/// anything larger first consolidates every small chunk freed since (a call frees
/// dozens), which cost ~1 µs per Wasm call when its futures were 2–2.6 KB. Tests keep
/// the futures a call allocates (or a host spawns) at most this size.
#[cfg(test)]
pub(crate) const SMALL_REQUEST: usize = 1008;

/// A boxed future, as returned by [`Executor::execute`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Everything one hook invocation needs. Cheap to clone.
#[derive(Debug, Clone)]
pub struct HookCall {
    /// Display name of the hook (for errors and logs).
    pub name: Arc<str>,
    /// The event, with its catalog entry.
    pub event: Event,
    /// The hook input (value, JSON text, session), typed once per event.
    pub(crate) input: Arc<crate::hook_input::HookInput>,
    /// Time allowed.
    pub timeout: Duration,
    /// The project directory the configuration was loaded for, if any.
    pub project_dir: Option<Arc<Path>>,
    /// Where detached work goes.
    pub background: Background,
}

/// How an executor that runs detached reports back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detached {
    /// A block wakes the agent (`asyncRewake`).
    pub rewake: bool,
}

/// Runs one kind of hook. Implementations never panic on bad hook behaviour and never
/// return early without a [`HookRun`]: a failure is a result like any other.
pub trait Executor: Send + Sync {
    /// Runs the hook once.
    fn execute<'a>(&'a self, call: HookCall) -> BoxFuture<'a, HookRun>;

    /// The time allowed when the hook sets no `timeout`: the event's default unless the
    /// hook type has its own.
    fn default_timeout(&self, event: &EventSpec) -> Duration {
        event.default_timeout()
    }

    /// `Some` when the hook is configured to run detached: the event does not wait for
    /// it, and its result arrives later as an [`AsyncNotice`].
    fn detached(&self) -> Option<Detached> {
        None
    }

    /// Why the hook could not be set up at load time (it will fail when it runs). Only
    /// cheap checks run at load; see [`Executor::prepare`].
    fn load_error(&self) -> Option<String> {
        None
    }

    /// What the executor changed about the hook's configuration at load (a limit capped),
    /// reported as a warning.
    fn load_warning(&self) -> Option<String> {
        None
    }

    /// Does the expensive part of loading now (compiling a Wasm component) instead of on
    /// first use, and says why it failed. `hookhost check` calls it for every hook.
    fn prepare(&self) -> BoxFuture<'_, Option<String>> {
        Box::pin(async { None })
    }

    /// The SHA-256 of the code the hook runs, once known (Wasm components, after
    /// loading).
    fn digest(&self) -> Option<String> {
        None
    }

    /// For a Wasm component named by an OCI tag: the reference and the manifest digest it
    /// resolved to when it was loaded.
    fn oci_tag(&self) -> Option<(String, String)> {
        None
    }

    /// Where a loaded Wasm component came from and who signed it, when either is known
    /// (`oci://…:tag -> sha256:…; signed by NAME`).
    fn provenance(&self) -> Option<String> {
        None
    }

    /// [`Executor::prepare`], blocking the calling thread (for session hooks, which
    /// are refused at registration when they cannot load).
    fn prepare_now(&self) -> Option<String> {
        None
    }
}

/// Runs a handler type hookhost does not support, reporting it.
pub struct Unsupported(pub String);

impl Executor for Unsupported {
    fn execute<'a>(&'a self, _call: HookCall) -> BoxFuture<'a, HookRun> {
        let message = format!("`{}` hooks are not supported by hookhost", self.0);
        Box::pin(async move { HookRun::non_blocking(message) })
    }
}

/// What a background (async) hook reported when it finished.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AsyncNotice {
    /// The hook.
    pub hook: String,
    /// The event it fired for.
    pub event: String,
    /// How it ended.
    pub status: HookStatus,
    /// `true` for an `asyncRewake` hook that blocked: the host should wake the agent.
    pub rewake: bool,
    /// Block reason, stderr, or error text.
    pub message: Option<String>,
    /// Context to deliver on the next turn.
    pub additional_context: Option<String>,
    /// System message to deliver on the next turn.
    pub system_message: Option<String>,
}

impl AsyncNotice {
    /// The notice for a finished background hook.
    pub fn from_result(hook: &str, event: &str, rewake: bool, result: HookRun) -> Self {
        let blocked = result.status == HookStatus::Blocking;
        Self {
            hook: hook.to_string(),
            event: event.to_string(),
            status: result.status,
            rewake: rewake && blocked,
            message: result
                .output
                .reason
                .or(result.output.permission_decision_reason)
                .or(result.error),
            additional_context: result.output.additional_context,
            system_message: result.output.system_message,
        }
    }
}

#[derive(Default)]
struct BackgroundInner {
    tasks: Mutex<Vec<JoinHandle<()>>>,
    notices: Mutex<VecDeque<AsyncNotice>>,
    wake: tokio::sync::Notify,
}

/// Detached work and its notices. Clones share state.
#[derive(Clone, Default)]
pub struct Background {
    inner: Arc<BackgroundInner>,
}

impl std::fmt::Debug for Background {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Background").finish_non_exhaustive()
    }
}

impl Background {
    /// Runs `work` detached; [`Background::close`] waits for it.
    pub fn spawn(&self, work: impl Future<Output = ()> + Send + 'static) {
        let handle = tokio::spawn(work);
        let mut tasks = self.inner.tasks.lock().unwrap_or_else(|e| e.into_inner());
        tasks.retain(|t| !t.is_finished());
        tasks.push(handle);
    }

    /// Queues a notice for the host.
    pub fn notify(&self, notice: AsyncNotice) {
        self.inner
            .notices
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(notice);
        self.inner.wake.notify_waiters();
        self.inner.wake.notify_one();
    }

    /// Takes every queued notice.
    pub fn take_notices(&self) -> Vec<AsyncNotice> {
        self.inner
            .notices
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
            .collect()
    }

    /// Waits for the next notice.
    pub async fn next_notice(&self) -> AsyncNotice {
        loop {
            let wake = self.inner.wake.notified();
            if let Some(notice) = self
                .inner
                .notices
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .pop_front()
            {
                return notice;
            }
            wake.await;
        }
    }

    /// Waits up to `limit` for background work, then aborts what is left (which kills
    /// its processes) and waits for the aborted tasks to unwind.
    pub async fn close(&self, limit: Duration) {
        let mut tasks: Vec<_> = self
            .inner
            .tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
            .collect();
        let deadline = tokio::time::Instant::now() + limit;
        let mut polled = vec![false; tasks.len()];
        for (index, task) in tasks.iter_mut().enumerate() {
            if tokio::time::timeout_at(deadline, &mut *task).await.is_err() {
                break;
            }
            polled[index] = true;
        }
        for (task, done) in tasks.into_iter().zip(polled) {
            if !done {
                task.abort();
                let _ = task.await;
            }
        }
    }

    /// Aborts all background work immediately.
    pub fn abort_all(&self) {
        for task in self
            .inner
            .tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            task.abort();
        }
    }
}

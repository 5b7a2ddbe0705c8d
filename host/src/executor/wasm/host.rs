//! The state of one call inside its store, and the version-neutral half of the host API
//! (logging, configuration values, the budgeted input fetch); each WIT version's
//! bindings call into it.

use std::sync::Arc;

use serde_json::Value;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::limits::{self, Limiter, ListingBudget};
use crate::text::truncate;

/// Per-call state inside the store.
pub(crate) struct HostState {
    /// The WASI context, built on the guest's first WASI call when the hook has no
    /// grants (most policies never touch WASI).
    pub(super) ctx: Option<WasiCtx>,
    /// What the WASI context is built from when it is built late.
    pub(super) wasi: LazyWasi,
    pub(super) table: ResourceTable,
    pub(super) limiter: Limiter,
    pub(super) hook: Arc<HookShared>,
    /// The call's input, for the 0.2.0 `input` interface.
    pub(super) input: Arc<crate::hook_input::HookInput>,
    /// Bytes still allowed through the `input` interface.
    pub(super) fetch_budget: usize,
    pub(super) log_calls: usize,
    pub(super) listing: ListingBudget,
    /// The Bash command's shell view, parsed on the guest's first ask.
    pub(super) shell_view: Option<Arc<crate::shell::ShellView>>,
    /// Parses the guest asked for (capped).
    pub(super) parses: usize,
}

/// The parts of a WASI context without grants.
pub(super) struct LazyWasi {
    pub(super) env: Arc<[(String, String)]>,
    pub(super) stdio: MemoryOutputPipe,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        let ctx = self
            .ctx
            .get_or_insert_with(|| limits::wasi_base(&self.wasi.env, &self.wasi.stdio).build());
        WasiCtxView {
            ctx,
            table: &mut self.table,
        }
    }
}

/// What one call put into its store, taken out to be freed where it was allocated.
pub(super) type CallOwned = (
    Arc<crate::hook_input::HookInput>,
    Option<Arc<crate::shell::ShellView>>,
    Option<WasiCtx>,
    ResourceTable,
);

impl HostState {
    /// Takes what the call put here (its input, shell view, WASI context and handles),
    /// leaving the placeholder input and empty ones: the store is never entered again.
    pub(super) fn take_call_owned(&mut self) -> CallOwned {
        (
            std::mem::replace(&mut self.input, placeholder_input()),
            self.shell_view.take(),
            self.ctx.take(),
            std::mem::take(&mut self.table),
        )
    }

    pub(super) fn log(&mut self, level: tracing::Level, message: &str) {
        self.log_calls += 1;
        if self.log_calls > limits::LOG_CALLS {
            return;
        }
        let message = truncate(message, limits::LOG_MESSAGE_BYTES);
        let hook = &self.hook.name;
        match level {
            tracing::Level::TRACE => tracing::trace!(hook = %hook, "{message}"),
            tracing::Level::DEBUG => tracing::debug!(hook = %hook, "{message}"),
            tracing::Level::INFO => tracing::info!(hook = %hook, "{message}"),
            tracing::Level::WARN => tracing::warn!(hook = %hook, "{message}"),
            tracing::Level::ERROR => tracing::error!(hook = %hook, "{message}"),
        }
    }

    pub(super) fn config(&self, key: &str) -> Option<String> {
        crate::json_field::field(&self.hook.config, key).map(Value::to_string)
    }

    /// Charges `text` to the fetch budget and hands it over.
    pub(super) fn fetch(&mut self, text: Option<String>) -> wasmtime::Result<Option<String>> {
        self.charge(text.as_ref().map_or(0, String::len))?;
        Ok(text)
    }

    /// Charges `bytes` handed to (or parsed for) the guest to the fetch budget.
    pub(super) fn charge(&mut self, bytes: usize) -> wasmtime::Result<()> {
        match self.fetch_budget.checked_sub(bytes) {
            Some(left) => {
                self.fetch_budget = left;
                Ok(())
            }
            None => Err(wasmtime::Error::msg(InputFetchLimit)),
        }
    }
}

/// The guest fetched more input than [`super::INPUT_FETCH_FACTOR`] allows.
#[derive(Debug, thiserror::Error)]
#[error("input fetch limit exceeded")]
pub(super) struct InputFetchLimit;

/// What every call of one hook shares.
pub(crate) struct HookShared {
    pub(super) name: String,
    pub(super) config: Value,
    pub(super) config_json: String,
    /// Recent shell views of the runtime (shared by its hooks).
    pub(super) views: Arc<crate::shell::ViewMemo>,
}

/// The input a store holds before a call gives it its own, and after (an empty value:
/// a guest that reads input while being prepared sees nothing).
pub(super) fn placeholder_input() -> Arc<crate::hook_input::HookInput> {
    static EMPTY: std::sync::OnceLock<Arc<crate::hook_input::HookInput>> =
        std::sync::OnceLock::new();
    EMPTY
        .get_or_init(|| {
            crate::hook_input::HookInput::new(crate::dialect::Event::new("PreToolUse"), Value::Null)
        })
        .clone()
}

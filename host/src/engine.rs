//! The [`Engine`]: resolved configuration plus executors. [`Engine::execute`] takes an
//! event and its input and always yields a [`EventOutcome`]; hook failures are inputs to
//! the merge, never an `Err`.
//!
//! Per event: match (L1 event bucket, L2 matcher, `if`, `once`) → run (concurrently;
//! `sequential` groups in order with the rewritten input fed forward, stopping at the
//! first block; `async` hooks detached) → [`merge`] in configuration order → stop-loop
//! guard.

mod audit;
mod build;
mod enclose;
mod error;
mod explain;
mod inner;
mod inventory;
mod judged;
mod loaded_hook;
mod options;
pub(crate) use crate::hook_input::{Fill, HookInput};
pub use explain::HookVerdict;
pub use inventory::{Inventory, WasmInventory};
pub use session_hooks::SessionHook;
mod revalidate;
mod schedule;
mod select;
mod session_files;
pub(crate) mod session_hooks;
mod session_memory;
mod stop_guard;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::config::{self, Diagnostic, ExecutorKind, Layer, LoadOptions, LoadedConfig};
use crate::dialect::{Dialect, Listing};
use crate::executor::AsyncNotice;
use crate::outcome::EventOutcome;
use crate::self_protection::Reach;

use self::schedule::EventRun;

pub use error::EngineError;
pub(crate) use inner::Inner;
pub(crate) use loaded_hook::LoadedHook;
pub use options::EngineOptions;
pub use schedule::ActiveHook;
pub use session_hooks::SessionHookId;

/// How long [`Engine::close`] waits for background hooks.
pub const ASYNC_DRAIN: Duration = Duration::from_secs(2);

/// One configured hook, for listings.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct HookInfo {
    /// Event.
    pub event: String,
    /// Matcher as written.
    pub matcher: Option<String>,
    /// Name.
    pub name: String,
    /// Executor.
    pub executor: ExecutorKind,
    /// Where it was configured.
    pub source: Layer,
    /// File it came from.
    pub file: String,
    /// Status message.
    pub status_message: Option<String>,
    /// Where in its file, e.g. `hooks.PreToolUse[0].hooks[1]`.
    pub location: String,
    /// False for a command, HTTP or prompt hook of an untrusted workspace (skipped).
    pub trusted: bool,
    /// SHA-256 of a Wasm component, once loaded ([`Engine::prepare_all`]).
    pub sha256: Option<String>,
    /// A Wasm component's registry reference and resolved digest, and its signer.
    pub provenance: Option<String>,
    /// A Wasm hook's component as configured (a path or an `oci://` reference).
    pub component: Option<std::path::PathBuf>,
}

/// The hook engine. Cheap to clone; clones share state.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
}

impl Engine {
    /// Answers one request: parses and bounds the input, fills the common fields a host
    /// may leave out (`session_id`, `transcript_path`, `cwd`, `permission_mode`), runs the
    /// event's hooks (a panic inside the engine is caught) and returns the outcome; any
    /// failure goes through [`Engine::refuse`]. The front door of every entry point.
    pub async fn answer(
        &self,
        request: crate::front_door::Request<'_>,
    ) -> crate::front_door::Answer {
        crate::front_door::answer(self, request).await
    }

    /// Answers one input already read (`event` named) through the front door: what
    /// [`Engine::answer_agent_with`]'s callers run for each of an agent's inputs.
    pub async fn answer_input(
        &self,
        event: &str,
        input: Value,
        limits: &crate::front_door::RequestLimits,
        session_id: &str,
    ) -> crate::front_door::Answer {
        crate::front_door::answer_input(self, event, input, limits, session_id).await
    }

    /// Answers another agent's hook call in that agent's own form: each of its inputs
    /// through the front door held to `limits` (the agent's name fills a missing session
    /// id), the first deny ending it; a call that could not be read, or whose hooks could
    /// not run, is a deny where a `failClosed` hook guards the event, else an allow.
    pub async fn answer_agent(
        &self,
        call: &crate::front_door::agent::AgentCall,
        limits: &crate::front_door::RequestLimits,
    ) -> crate::front_door::agent::AgentReply {
        let session = call.agent().name();
        self.answer_agent_with(call, |event, input| async move {
            self.answer_input(&event, input, limits, session).await
        })
        .await
    }

    /// As [`Engine::answer_agent`], each input (hookhost's event name, the input)
    /// answered by `answer` instead — a server that holds a call slot per input, or picks
    /// the engine of the input's project; this engine decides what the failures guard.
    pub async fn answer_agent_with<F, Fut>(
        &self,
        call: &crate::front_door::agent::AgentCall,
        answer: F,
    ) -> crate::front_door::agent::AgentReply
    where
        F: FnMut(String, Value) -> Fut,
        Fut: Future<Output = crate::front_door::Answer>,
    {
        crate::front_door::agent::answer(self, call, answer).await
    }

    /// The answer to a request that failed before or around its hooks: a block naming
    /// `failure` when a `failClosed` hook guards the event (named, or sniffed from `body`;
    /// when it cannot be told, any `failClosed` hook counts), else the failure itself.
    pub fn refuse(
        &self,
        event: Option<&str>,
        body: &[u8],
        failure: crate::front_door::Failure,
    ) -> crate::front_door::Answer {
        crate::front_door::refuse(self, event, body, failure)
    }

    /// For every configured hook (and every hook left out at load), whether it runs for
    /// `event` with `input` and why not. Matching reads the input as the hooks would see
    /// it; `once` hooks are reported as runnable (whether this session already ran one is
    /// not consulted).
    pub fn explain(&self, event: &str, input: Value) -> Vec<HookVerdict> {
        explain::explain(&self.inner, &self.input(event, input, None))
    }

    /// Registers a session hook; it fires after the configuration hooks of its event. An
    /// entry a settings file could not hold, or a hook that cannot load (a component that
    /// does not compile or imports what hooks are never granted), is refused with the
    /// reason.
    pub fn add_session_hook(&self, hook: SessionHook) -> Result<SessionHookId, EngineError> {
        session_hooks::add(&self.inner, hook)
    }

    /// Removes a session hook; `false` when no hook has that id.
    pub fn remove_session_hook(&self, id: SessionHookId) -> bool {
        session_hooks::remove(&self.inner, id)
    }

    /// Removes every session hook.
    pub fn clear_session_hooks(&self) {
        session_hooks::clear(&self.inner)
    }

    /// Loads configuration from `load` and builds an engine.
    pub fn load(load: &LoadOptions, options: EngineOptions) -> Result<Engine, EngineError> {
        Self::from_config(config::load(load), options)
    }

    /// Builds an engine from already loaded configuration.
    pub fn from_config(
        config: LoadedConfig,
        options: EngineOptions,
    ) -> Result<Engine, EngineError> {
        Ok(Engine {
            inner: Arc::new(build::inner(config, options)),
        })
    }

    /// The project directory the engine was loaded for, if any: command hooks run there.
    pub fn project_dir(&self) -> Option<&Path> {
        self.inner.project_dir.as_deref()
    }

    /// Whether `diagnostic` concerns one of the project's own files (a repository's),
    /// whose problems cost only that file's hooks.
    pub fn from_repository(&self, diagnostic: &Diagnostic) -> bool {
        self.inner.repository_files.contains(&diagnostic.file)
    }

    /// Diagnostics from loading configuration.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.inner.diagnostics
    }

    /// The dialect the engine speaks.
    pub fn dialect(&self) -> &'static Dialect {
        self.inner.dialect
    }

    /// The file that revealed the dialect when it was detected.
    pub fn dialect_detected_from(&self) -> Option<&Path> {
        self.inner.dialect_detected_from.as_deref()
    }

    /// Does the expensive part of loading for every configured hook now (compiling Wasm
    /// components, which otherwise happens on first use) and returns a diagnostic for
    /// each hook that cannot load. `hookhost check` runs this.
    pub async fn prepare_all(&self) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        for hook in &self.inner.hooks {
            if hook.executor.load_error().is_some() {
                continue; // already reported at load
            }
            if let Some(error) = hook.executor.prepare().await {
                diagnostics.push(build::hook_error(&hook.spec, &hook.name, &error));
            }
        }
        diagnostics
    }

    /// Whether any `failClosed` hook is configured for `event` (or for the event that
    /// judges it as well), whatever its matcher: the CLI answers a block when such an
    /// event's input cannot be read.
    pub fn has_fail_closed(&self, event: &str) -> bool {
        let judge = crate::event::EventSpec::lookup(event).and_then(|spec| spec.judged_as);
        !self.inner.lost_guards.is_empty()
            || self.inner.hooks.iter().any(|hook| {
                (hook.spec.event == event || judge.is_some_and(|judge| hook.spec.event == judge))
                    && hook.spec.fail_closed()
            })
    }

    /// Whether any `failClosed` hook is configured for any event.
    pub fn has_any_fail_closed(&self) -> bool {
        !self.inner.lost_guards.is_empty()
            || self.inner.hooks.iter().any(|hook| hook.spec.fail_closed())
    }

    /// The events this engine does anything on, in the catalog's terms: every event a
    /// configured hook names, the tool events whose permission decision self-protection
    /// or the envelope give, and the session's first event where the envelope speaks.
    /// An event outside it is answered with nothing whatever its input: a host need not
    /// call hookhost for it (`claude install` wires only these).
    pub fn watched_events(&self) -> std::collections::BTreeSet<String> {
        let mut events: std::collections::BTreeSet<String> = self
            .all_hooks()
            .into_iter()
            .map(|hook| hook.event)
            .collect();
        let guards_tools = self.inner.self_protection.is_some() || self.inner.enclosure.is_some();
        for spec in crate::event::CATALOG {
            let decides_tools = spec.tool_event
                && spec
                    .fields
                    .contains(crate::event::Fields::PERMISSION_DECISION);
            let opens_session = spec
                .fields
                .contains(crate::event::Fields::INITIAL_USER_MESSAGE);
            if (guards_tools && decides_tools) || (self.inner.enclosure.is_some() && opens_session)
            {
                events.insert(spec.name.to_string());
            }
        }
        // An event the watched hooks of another judge as well (a skill's `!` line is a
        // Bash call the PreToolUse guards judge).
        for spec in crate::event::CATALOG {
            if spec.judged_as.is_some_and(|judge| events.contains(judge)) {
                events.insert(spec.name.to_string());
            }
        }
        events
    }

    /// Every configured hook (configuration hooks, then session hooks), as the dialect
    /// lists them (hygge: one entry per name, first seen, sorted by name).
    pub fn hooks(&self) -> Vec<HookInfo> {
        let mut hooks = self.all_hooks();
        if self.inner.dialect.listing == Listing::ByName {
            let mut seen = std::collections::HashSet::new();
            hooks.retain(|hook| seen.insert(hook.name.clone()));
            hooks.sort_by(|a, b| a.name.cmp(&b.name));
        }
        hooks
    }

    fn all_hooks(&self) -> Vec<HookInfo> {
        let session = self
            .inner
            .session_hooks
            .read()
            .unwrap_or_else(|e| e.into_inner());
        self.inner
            .hooks
            .iter()
            .chain(session.iter())
            .map(|hook| HookInfo {
                event: hook.spec.event.name().to_string(),
                matcher: hook.spec.matcher_text.clone(),
                name: hook.name.to_string(),
                executor: hook.spec.handler.executor_kind(),
                source: hook.spec.layer.clone(),
                file: hook.spec.file.clone(),
                status_message: hook.spec.status_message.clone(),
                location: hook.spec.location.clone(),
                trusted: hook.spec.trusted,
                sha256: hook.executor.digest(),
                provenance: hook.executor.provenance(),
                component: match &hook.spec.handler {
                    crate::config::Handler::Wasm(wasm) => Some(wasm.component.clone()),
                    _ => None,
                },
            })
            .collect()
    }

    /// What a long-running host watches and reports: the files to watch, the OCI tags
    /// to re-resolve and how often, the Wasm runtime's counters.
    pub fn inventory(&self) -> Inventory {
        inventory::of(&self.inner)
    }

    /// Hooks running right now, with their status messages.
    pub fn active_hooks(&self) -> Vec<ActiveHook> {
        self.inner.calls.active()
    }

    /// Notices from finished background hooks (`async`, `asyncRewake`, self-detached).
    pub fn take_notices(&self) -> Vec<AsyncNotice> {
        self.inner.background.take_notices()
    }

    /// Waits for the next background notice.
    pub async fn next_notice(&self) -> AsyncNotice {
        self.inner.background.next_notice().await
    }

    /// Runs `execute` on a background task; its outcome is dropped (side effects only).
    pub fn execute_detached(&self, event: &str, input: Value) {
        let engine = self.clone();
        let event = event.to_string();
        self.inner.background.spawn(async move {
            engine.execute(&event, input).await;
        });
    }

    /// Waits up to ~2 s for background hooks, then stops the rest (killing their
    /// processes).
    pub async fn close(&self) {
        self.inner.background.close(ASYNC_DRAIN).await;
    }

    /// The fleet policy the managed settings name, and the revision in force.
    pub fn policy(&self) -> Option<&crate::config::PolicyState> {
        self.inner.policy.as_ref()
    }

    /// Sends decision records one-shot processes left in the export spool (an engine
    /// that sends its own: `serve`); returns how many. Nothing without `telemetry`.
    pub fn send_spooled(&self) -> usize {
        self.inner.export.as_ref().map_or(0, |e| e.send_spooled())
    }

    /// Sends this machine's status (policy revision, last pull, version, drops) for
    /// `reason` to the owners' collector. Nothing without `telemetry`.
    pub fn report_status(&self, reason: &str) {
        if let Some(export) = &self.inner.export {
            export.report(reason);
        }
    }

    /// Waits (at most `limit`) until every decision and report handed to the export is
    /// sent or dropped: for a process about to exit. `true` without `telemetry`.
    pub fn flush_export(&self, limit: std::time::Duration) -> bool {
        self.inner.export.as_ref().is_none_or(|e| e.flush(limit))
    }

    /// The owners' `telemetry` setting, if on.
    pub fn telemetry(&self) -> Option<&crate::export::TelemetrySettings> {
        match self.inner.export.as_ref()? {
            crate::export::Exporter::Direct { settings, .. }
            | crate::export::Exporter::Spooled { settings, .. } => Some(settings),
        }
    }

    /// Fires `event` with `input` and merges every matching hook's answer.
    pub async fn execute(&self, event: &str, input: Value) -> EventOutcome {
        self.execute_filled(event, input, None).await
    }

    /// [`Engine::execute`], the common fields the host left out filled from `fill` (the
    /// front door's).
    pub(crate) async fn execute_filled(
        &self,
        event: &str,
        input: Value,
        fill: Option<&Fill>,
    ) -> EventOutcome {
        let started = std::time::SystemTime::now();
        // The one typed input every stage below reads.
        let input = self.input(event, input, fill);
        let mut outcome = self.fire(&input).await;
        if input.event.judged_as.is_some() {
            // Boxed: the event's future stays one `fire` large.
            outcome = Box::pin(self.judged(&input, outcome)).await;
        }
        if let Some(enclosure) = &self.inner.enclosure {
            outcome = enclosure.apply(&input, outcome);
        }
        let revision = self.policy().and_then(|policy| policy.revision.as_deref());
        if let Some(log) = &self.inner.audit {
            log.record(&audit::InputSummary::of(&input), &outcome, revision);
        }
        if let Some(export) = &self.inner.export {
            export.record(&input, &outcome, started);
        }
        outcome
    }

    /// `outcome` of `input` with the verdict of the hooks of the event it is judged as
    /// too (a skill's `!` line is a Bash call the PreToolUse hooks judge).
    async fn judged(&self, input: &Arc<HookInput>, outcome: EventOutcome) -> EventOutcome {
        let Some(judge) = input.event.judged_as.filter(|_| !judged::denies(&outcome)) else {
            return outcome;
        };
        let as_judge = self.input(judge, judged::as_judged(input, judge), None);
        judged::fold(outcome, self.fire(&as_judge).await)
    }

    /// The typed input of `event` for the host's `input` (see [`HookInput::build`]).
    pub(crate) fn input(&self, event: &str, input: Value, fill: Option<&Fill>) -> Arc<HookInput> {
        let stop_guard = &self.inner.stop_guard;
        HookInput::build(self.inner.dialect.event(event), input, fill, |session| {
            stop_guard.active(session)
        })
    }

    /// The configuration and session hooks that fire for `input` (`ran`: hooks that
    /// already ran for this event, exempt from `once`).
    pub(crate) fn select(
        &self,
        input: &HookInput,
        ran: &std::collections::HashSet<u64>,
    ) -> Vec<LoadedHook> {
        let session_hooks = self
            .inner
            .session_hooks
            .read()
            .unwrap_or_else(|e| e.into_inner());
        select::select(
            self.inner.hooks.iter().chain(session_hooks.iter()),
            input,
            self.inner.home.as_deref(),
            &self.inner.once,
            ran,
        )
    }

    async fn fire(&self, input: &Arc<HookInput>) -> EventOutcome {
        let event = &input.event;
        if let Some(lost) = self.inner.lost_guards.first() {
            return crate::outcome::EventOutcome::failed_closed(
                event.name(),
                &format!("hookhost cannot run a guard its owner configured ({lost}); blocking"),
            );
        }
        if let Some(why) = self.protect(input, Reach::Named) {
            return crate::outcome::EventOutcome::refused(event, &why);
        }
        let guard = &self.inner.stop_guard;
        let session = &input.session;
        let reentry = input.stop_active;
        let selected = self.select(input, &Default::default());
        if selected.is_empty() {
            let outcome = self.backstop(input, EventOutcome::empty(event.name()));
            return guard.apply(event, session, reentry, outcome);
        }
        // One way from here: schedule → merge → revalidate, over what the event shares.
        let run = EventRun {
            event: event.clone(),
            project_dir: self.inner.project_dir.clone(),
            background: self.inner.background.clone(),
            calls: self.inner.calls.clone(),
        };
        let reselect =
            |input: &HookInput, ran: &std::collections::HashSet<u64>| self.select(input, ran);
        let revalidate = self.inner.revalidate_rewrites;
        let mut outcome =
            revalidate::run_rounds(&run, selected, input.clone(), revalidate, reselect).await;
        if event.failure_blocks && event.honours(crate::event::Fields::WORKTREE_PATH) {
            require_worktree_path(&mut outcome, input.cwd.as_deref());
        }
        // A hook's rewrite is a tool call too.
        let outcome = match &outcome.updated_input {
            Some(rewrite) => {
                let rewritten = input.rewritten_call(rewrite);
                if let Some(why) = self.protect(&rewritten, Reach::Named) {
                    return crate::outcome::EventOutcome::refused(event, &why);
                }
                self.backstop(&rewritten, outcome)
            }
            None => self.backstop(input, outcome),
        };
        guard.apply(event, session, reentry, outcome)
    }

    /// Self-protection's last word on a tool call the configured hooks let run: a move,
    /// removal or mode change of a folder holding every guard (the home, the project,
    /// `/`) is refused here, after the guards had theirs (see [`Reach::Whole`]).
    fn backstop(&self, input: &HookInput, outcome: EventOutcome) -> EventOutcome {
        let denied = outcome.should_block
            || outcome.permission_decision == Some(crate::output::PermissionDecision::Deny);
        if denied {
            return outcome;
        }
        match self.protect(input, Reach::Whole) {
            Some(why) => crate::outcome::EventOutcome::refused(&input.event, &why),
            None => outcome,
        }
    }

    /// The owner's envelope, when the owners switched it on, and why no shell command
    /// may run in it here (the kernel cannot enforce it, it cannot be kept), if so.
    pub fn envelope(&self) -> Option<(&crate::envelope::Envelope, Option<&str>)> {
        let enclosure = self.inner.enclosure.as_ref()?;
        Some((&enclosure.envelope, enclosure.refusal.as_deref()))
    }

    /// Why a `!` line of the skill or slash command `name`, loaded by Claude Code from
    /// `source` (`command_source`: `userSettings`, `projectSettings`, `plugin`, …), is
    /// refused under the owner's envelope (it runs outside it); `None` when it runs, or
    /// when there is no envelope.
    pub fn skill_command_refusal(&self, source: Option<&str>, name: &str) -> Option<String> {
        let enclosure = self.inner.enclosure.as_ref()?;
        if enclosure.session_enclosed {
            return None;
        }
        enclosure.unenclosed_refusal(source, name)
    }

    /// Whether self-protection is on (it is unless an owner turned it off).
    pub fn self_protection_on(&self) -> bool {
        self.inner.self_protection.is_some()
    }

    /// Self-protection's reason to refuse `input`, a tool call about to run, judged with
    /// `reach`.
    fn protect(&self, input: &HookInput, reach: Reach) -> Option<String> {
        let protection = self.inner.self_protection.as_ref()?;
        let event = &input.event;
        if !(event.tool_event && event.honours(crate::event::Fields::PERMISSION_DECISION)) {
            return None;
        }
        protection.check(
            input.tool_name.as_deref()?,
            input.tool_input(),
            input.cwd.as_deref(),
            reach,
            input.file_target.as_ref(),
        )
    }
}

impl crate::front_door::Backend for Engine {
    fn dialect(&self) -> &'static Dialect {
        self.inner.dialect
    }

    fn project_dir(&self) -> Option<&Path> {
        self.inner.project_dir.as_deref()
    }

    fn guarded(&self, event: Option<&str>) -> bool {
        match event {
            Some(event) => self.has_fail_closed(event),
            None => self.has_any_fail_closed(),
        }
    }

    async fn run(&self, event: &str, input: Value, fill: Fill) -> EventOutcome {
        self.execute_filled(event, input, Some(&fill)).await
    }
}

/// WorktreeCreate's contract (reference 1.2): the hooks replace `git worktree`, so unless
/// one of them gives the path the creation fails; a relative path is resolved against the
/// input's `cwd`; an absolute path with `.` or `..` segments is refused.
fn require_worktree_path(outcome: &mut EventOutcome, cwd: Option<&Path>) {
    if outcome.should_block || outcome.hooks.iter().all(|h| h.detached) {
        return;
    }
    let refusal = match outcome.worktree_path.as_deref().map(Path::new) {
        None => Some("no hook returned a worktree path (a command prints it as its last stdout line; an HTTP or Wasm hook returns hookSpecificOutput.worktreePath)".to_string()),
        Some(path)
            if path.is_absolute()
                && path
                    .to_string_lossy()
                    .split('/')
                    .any(|segment| segment == "." || segment == "..") =>
        {
            Some(format!(
                "worktree path {} has `.` or `..` segments; refused",
                path.display()
            ))
        }
        Some(path) if path.is_relative() => {
            if let Some(cwd) = cwd {
                outcome.worktree_path = Some(cwd.join(path).display().to_string());
            }
            None
        }
        Some(_) => None,
    };
    if let Some(reason) = refusal {
        outcome.should_block = true;
        outcome.block_reason = Some(reason);
    }
}

#[cfg(test)]
mod tests;

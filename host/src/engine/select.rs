//! Selecting the hooks of an event: the event bucket, the matcher, the `if` rule,
//! `once` per session, and the input normalisation they rely on.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::loaded_hook::LoadedHook;
use super::session_files::SessionStore;
use super::session_memory::SessionTable;
use crate::condition::RuleContext;
use crate::config::HookSpec;
use crate::event::EventSpec;
use crate::hook_input::HookInput;

/// Remembers which `once` hooks already ran in which session.
#[derive(Default)]
pub(crate) struct OnceTracker {
    done: Mutex<SessionTable<HashSet<u64>>>,
    /// Where the record outlives the process (one-shot `fire`), if anywhere.
    store: Option<Arc<SessionStore>>,
}

impl OnceTracker {
    /// A tracker keeping its record in `store` as well (across processes).
    pub(crate) fn with_store(store: Option<Arc<SessionStore>>) -> Self {
        Self {
            done: Mutex::default(),
            store,
        }
    }

    /// Whether `hook` may run in `session` now (its first time), recording that it did.
    fn claim(&self, session: &str, hook: &LoadedHook) -> bool {
        if let Some(store) = &self.store
            && !session.is_empty()
            && hook.spec.layer != crate::config::Layer::Session
        {
            let key = stable_key(&hook.spec);
            let claimed = store.update(session, |state| {
                let first = !state.once.contains(&key);
                if first {
                    state.once.push(key.clone());
                }
                first
            });
            match claimed {
                Ok(first) => return first,
                Err(err) => tracing::warn!("session state not kept across processes: {err}"),
            }
        }
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        done.entry(session).insert(hook.id)
    }
}

/// A configured hook's identity across processes: its file, place and handler.
fn stable_key(spec: &HookSpec) -> String {
    use sha2::Digest;
    let text = format!("{}\u{1}{}\u{1}{:?}", spec.file, spec.location, spec.handler);
    let digest = format!("{:x}", sha2::Sha256::digest(text.as_bytes()));
    digest[..24].to_string()
}

/// The hooks among `hooks` that fire for `event` with `input`, in configuration order;
/// a `once` hook is selected the first time per session only (or again when its id is
/// in `ran`: the hooks that already ran for this event, validating a rewrite).
pub(crate) fn select<'a>(
    hooks: impl Iterator<Item = &'a LoadedHook>,
    input: &HookInput,
    home: Option<&Path>,
    once: &OnceTracker,
    ran: &HashSet<u64>,
) -> Vec<LoadedHook> {
    let event = &input.event;
    let context = MatchInput::new(input, home);
    let mut selected: Vec<LoadedHook> = hooks
        .filter(|hook| hook.spec.event == *event && context.matches(&hook.spec))
        .cloned()
        .collect();
    if selected.iter().any(|h| h.spec.once) {
        selected.retain(|h| !h.spec.once || ran.contains(&h.id) || once.claim(&input.session, h));
    }
    selected
}

/// The parts of an input that matching reads: the event's matcher value, and the typed
/// input's tool call.
pub(crate) struct MatchInput<'a> {
    spec: &'a EventSpec,
    value: Option<String>,
    tool_name: Option<&'a str>,
    /// The name the tool call is also matched as (a Monitor call as `Bash`).
    matched_as: Option<&'static str>,
    tool_input: &'a Value,
    cwd: &'a Path,
    home: Option<&'a Path>,
    target: Option<&'a Path>,
}

impl<'a> MatchInput<'a> {
    pub(crate) fn new(input: &'a HookInput, home: Option<&'a Path>) -> Self {
        let tool_name = input.tool_name.as_deref();
        let matched_as = tool_name
            .filter(|tool| {
                input.event.tool_event
                    && input.event.matcher_field == Some("tool_name")
                    && crate::tools::runs_bash(tool, input.tool_input())
            })
            .and_then(crate::tools::matched_as);
        Self {
            spec: &input.event,
            value: input.event.matcher_value(&input.value),
            tool_name,
            matched_as,
            tool_input: input.tool_input(),
            cwd: input.cwd.as_deref().unwrap_or(Path::new("/")),
            home,
            target: input.file_target.as_ref().map(|t| t.resolved.as_path()),
        }
    }

    fn rule_context(
        &self,
        hook: &'a HookSpec,
        tool_name: Option<&'a str>,
    ) -> Option<RuleContext<'_>> {
        Some(RuleContext {
            tool_name: tool_name?,
            tool_input: self.tool_input,
            cwd: self.cwd,
            home: self.home,
            base: hook.base_dir.as_deref().unwrap_or(self.cwd),
            target: self.target,
        })
    }

    /// Whether `hook` fires for this input (event already checked).
    pub(crate) fn matches(&self, hook: &'a HookSpec) -> bool {
        self.check(hook) == Check::Fires
    }

    /// What matching decides for `hook` (event already checked): a bash command the agent
    /// runs through another tool (Monitor) is matched as its own tool and as `Bash`.
    pub(crate) fn check(&self, hook: &'a HookSpec) -> Check {
        let own = self.check_as(hook, self.tool_name, self.value.as_deref());
        match self.matched_as {
            Some(name) if matches!(own, Check::MatcherMiss | Check::IfMiss) => {
                match self.check_as(hook, Some(name), Some(name)) {
                    Check::Fires => Check::Fires,
                    _ => own,
                }
            }
            _ => own,
        }
    }

    /// What matching decides for `hook` with the tool call named `tool_name` and the
    /// matcher compared with `value`.
    fn check_as(
        &self,
        hook: &'a HookSpec,
        tool_name: Option<&'a str>,
        value: Option<&str>,
    ) -> Check {
        let rule_ctx = self.rule_context(hook, tool_name);
        // Events without matcher support ignore the matcher; custom events compare
        // `tool_name` only when the input has one.
        let matcher_ok = match (self.spec.known, self.spec.matcher_field) {
            (true, None) => true,
            (false, _) if self.value.is_none() => true,
            _ => hook.matcher.matches(value, rule_ctx.as_ref()),
        };
        if !matcher_ok {
            return Check::MatcherMiss;
        }
        match &hook.condition {
            None => Check::Fires,
            Some(_) if self.spec.known && !self.spec.tool_event => Check::IfOnToolEventsOnly,
            Some(rule) if rule_ctx.is_some_and(|ctx| rule.matches(&ctx)) => Check::Fires,
            Some(_) => Check::IfMiss,
        }
    }

    /// The value the matcher is compared with, if the input has one.
    pub(crate) fn value(&self) -> Option<&str> {
        self.value.as_deref()
    }
}

/// What matching decides for one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// It fires.
    Fires,
    /// Its matcher does not accept the event's matcher value.
    MatcherMiss,
    /// It has an `if`, which only tool events evaluate: it never fires here.
    IfOnToolEventsOnly,
    /// Its `if` rule does not match the tool call.
    IfMiss,
}

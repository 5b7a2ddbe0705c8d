//! The stop-loop guard: counts consecutive blocks of the events the catalog marks
//! (`Stop`, `SubagentStop`) per session and lets the stop through past the cap, so a
//! hook that always blocks cannot keep an agent running forever.

use std::sync::Mutex;

use std::sync::Arc;

use super::session_files::SessionStore;
use super::session_memory::SessionTable;
use crate::dialect::Event;
use crate::dialect::StopRule;
use crate::outcome::EventOutcome;

/// Consecutive blocks per session.
pub(crate) struct StopGuard {
    cap: u32,
    blocks: Mutex<SessionTable<u32>>,
    /// Where counts outlive the process (one-shot `fire`), if anywhere.
    store: Option<Arc<SessionStore>>,
}

impl StopGuard {
    /// A guard allowing `cap` consecutive blocks (0 disables it).
    pub(crate) fn new(cap: u32) -> Self {
        Self {
            cap,
            blocks: Mutex::new(SessionTable::default()),
            store: None,
        }
    }

    /// The guard keeping its counts in `store` as well (across processes).
    pub(crate) fn with_store(mut self, store: Option<Arc<SessionStore>>) -> Self {
        self.store = store;
        self
    }

    fn count(&self, session: &str) -> u32 {
        match &self.store {
            Some(store) if !session.is_empty() => store.read(session).stop_blocks,
            _ => self.blocks().get(session).copied().unwrap_or(0),
        }
    }

    /// Changes the session's count (in the store when there is one; in memory when the
    /// store cannot be written).
    fn change(&self, session: &str, mut change: impl FnMut(&mut u32)) {
        if let Some(store) = &self.store
            && !session.is_empty()
        {
            match store.update(session, |state| change(&mut state.stop_blocks)) {
                Ok(()) => return,
                Err(err) => tracing::warn!("session state not kept across processes: {err}"),
            }
        }
        self.change_in_memory(session, change);
    }

    fn change_in_memory(&self, session: &str, mut change: impl FnMut(&mut u32)) {
        let mut blocks = self.blocks();
        let count = blocks.entry(session);
        change(count);
        if *count == 0 {
            blocks.remove(session);
        }
    }

    fn blocks(&self) -> std::sync::MutexGuard<'_, SessionTable<u32>> {
        self.blocks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether an earlier stop of `session` was blocked (the input's
    /// `stop_hook_active`, which [`crate::hook_input::HookInput::build`] adds).
    pub(crate) fn active(&self, session: &str) -> bool {
        self.count(session) > 0
    }

    /// Counts the outcome's block and lets it through past the cap, with a system
    /// message saying so.
    pub(crate) fn apply(
        &self,
        event: &Event,
        session: &str,
        reentry: bool,
        mut outcome: EventOutcome,
    ) -> EventOutcome {
        if !event.stop_guard {
            return outcome;
        }
        if event.dialect().stop == StopRule::Once && reentry && outcome.should_block {
            // evva: on the re-entry pass the hooks are consulted, their block is not
            // honoured. Read from the input, so it holds across processes too.
            self.change(session, |count| *count = 0);
            outcome.should_block = false;
            outcome.block_reason = None;
            add_note(
                &mut outcome,
                "stop hook blocked on the re-entry pass (stop_hook_active); the block is honoured once",
            );
            return outcome;
        }
        if !outcome.should_block {
            self.change(session, |count| *count = 0);
            return outcome;
        }
        let cap = self.cap;
        let mut over = false;
        self.change(session, |count| {
            *count += 1;
            if cap > 0 && *count > cap {
                *count = 0;
                over = true;
            }
        });
        if over {
            outcome.should_block = false;
            let note = format!(
                "stop hooks blocked {cap} consecutive times; the engine let the stop through (cap {cap})"
            );
            outcome.block_reason = None;
            add_note(&mut outcome, &note);
        }
        outcome
    }
}

fn add_note(outcome: &mut EventOutcome, note: &str) {
    match &mut outcome.system_message {
        Some(message) => {
            message.push('\n');
            message.push_str(note);
        }
        None => outcome.system_message = Some(note.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lets_the_stop_through_past_the_cap_and_resets() {
        let guard = StopGuard::new(2);
        let stop = Event::new("Stop");
        let mut blocked = EventOutcome::empty("Stop");
        blocked.should_block = true;
        assert!(guard.apply(&stop, "s", false, blocked.clone()).should_block);
        assert!(guard.active("s") && !guard.active("t"));
        assert!(guard.apply(&stop, "s", false, blocked.clone()).should_block);
        let third = guard.apply(&stop, "s", false, blocked.clone());
        assert!(!third.should_block && third.system_message.is_some());
        assert!(
            guard.apply(&stop, "s", false, blocked.clone()).should_block,
            "count reset"
        );
        // Other sessions and other events are not counted.
        assert!(guard.apply(&stop, "t", false, blocked.clone()).should_block);
        let pre = Event::new("PreToolUse");
        let mut pre_blocked = blocked;
        pre_blocked.event = "PreToolUse".into();
        for _ in 0..5 {
            assert!(
                guard
                    .apply(&pre, "s", false, pre_blocked.clone())
                    .should_block
            );
        }
    }

    #[test]
    fn evva_honours_a_stop_block_once() {
        let guard = StopGuard::new(8);
        let stop = crate::dialect::DialectId::Evva.dialect().event("Stop");
        let mut blocked = EventOutcome::empty("Stop");
        blocked.should_block = true;
        assert!(guard.apply(&stop, "s", false, blocked.clone()).should_block);
        let second = guard.apply(&stop, "s", true, blocked.clone());
        assert!(!second.should_block && second.system_message.is_some());
        // Claude counts to its cap instead.
        let claude = Event::new("Stop");
        assert!(guard.apply(&claude, "s", true, blocked).should_block);
    }
}

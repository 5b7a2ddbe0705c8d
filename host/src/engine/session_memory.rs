//! Per-session state (`once` hooks that ran, consecutive stop blocks), bounded: a caller
//! inventing a session id per request (anyone who can reach `serve`) cannot grow memory
//! without end. At most [`MAX_SESSIONS`] sessions are remembered; those idle longer than
//! [`MAX_IDLE`] go first, then the least recently used. A forgotten session starts afresh
//! (its `once` hooks may run again, its stop-block count restarts).

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Sessions remembered at once.
pub(crate) const MAX_SESSIONS: usize = 4096;

/// A session idle this long is forgotten first.
pub(crate) const MAX_IDLE: Duration = Duration::from_secs(24 * 3600);

/// State per session id, bounded in entries and age.
pub(crate) struct SessionTable<V> {
    entries: HashMap<String, (Instant, V)>,
    max: usize,
}

impl<V: Default> Default for SessionTable<V> {
    fn default() -> Self {
        Self::with_capacity(MAX_SESSIONS)
    }
}

impl<V: Default> SessionTable<V> {
    /// A table remembering at most `max` sessions.
    pub(crate) fn with_capacity(max: usize) -> Self {
        Self {
            entries: HashMap::new(),
            max: max.max(1),
        }
    }

    /// The state of `session`, if remembered.
    pub(crate) fn get(&self, session: &str) -> Option<&V> {
        self.entries.get(session).map(|(_, value)| value)
    }

    /// The state of `session`, created (making room) when new; marks it used now.
    pub(crate) fn entry(&mut self, session: &str) -> &mut V {
        let now = Instant::now();
        if !self.entries.contains_key(session) && self.entries.len() >= self.max {
            self.make_room(now);
        }
        let slot = self
            .entries
            .entry(session.to_string())
            .or_insert_with(|| (now, V::default()));
        slot.0 = now;
        &mut slot.1
    }

    /// Forgets `session`.
    pub(crate) fn remove(&mut self, session: &str) {
        self.entries.remove(session);
    }

    /// Drops idle sessions; if still full, the least recently used eighth (so the cost
    /// of a scan is shared by many inserts).
    fn make_room(&mut self, now: Instant) {
        self.entries
            .retain(|_, (used, _)| now.duration_since(*used) < MAX_IDLE);
        if self.entries.len() < self.max {
            return;
        }
        let mut ages: Vec<Instant> = self.entries.values().map(|(used, _)| *used).collect();
        ages.sort_unstable();
        let cut = ages[(self.max / 8).min(ages.len() - 1)];
        self.entries.retain(|_, (used, _)| *used > cut);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invented_session_ids_do_not_grow_the_table_without_end() {
        let mut table: SessionTable<u32> = SessionTable::with_capacity(64);
        *table.entry("kept") += 1;
        for id in 0..10_000 {
            *table.entry(&format!("invented-{id}")) += 1;
            // The session in real use stays remembered.
            if id % 16 == 0 {
                *table.entry("kept") += 0;
            }
            assert!(table.len() <= 64);
        }
        assert_eq!(table.get("kept"), Some(&1));
        table.remove("kept");
        assert_eq!(table.get("kept"), None);
    }
}

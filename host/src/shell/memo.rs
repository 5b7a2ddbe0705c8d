//! Recent shell views by command text: an agent runs the same few commands again and
//! again (`cargo test`, `git status`), and a view depends on nothing but its text.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use super::ShellView;

/// Views kept.
pub const MEMO_ENTRIES: usize = 128;
/// Longest command text kept (a longer one is parsed every time).
pub const MEMO_TEXT_BYTES: usize = 4096;

/// A bounded memo of shell views, oldest out first.
#[derive(Debug, Default)]
pub struct ViewMemo {
    inner: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    views: HashMap<Arc<str>, Arc<ShellView>>,
    order: VecDeque<Arc<str>>,
}

impl ViewMemo {
    /// The view of `text`, parsed now unless it is remembered.
    pub fn view(&self, text: &str) -> Arc<ShellView> {
        if text.len() > MEMO_TEXT_BYTES {
            return Arc::new(super::parse(text));
        }
        if let Some(view) = self.lock().views.get(text) {
            return view.clone();
        }
        let view = Arc::new(super::parse(text));
        let mut entries = self.lock();
        let key: Arc<str> = Arc::from(text);
        if entries.views.insert(key.clone(), view.clone()).is_none() {
            entries.order.push_back(key);
            if entries.order.len() > MEMO_ENTRIES
                && let Some(oldest) = entries.order.pop_front()
            {
                entries.views.remove(&oldest);
            }
        }
        view
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Views remembered now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().views.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_view_is_the_view_of_its_text() {
        let memo = ViewMemo::default();
        for text in ["curl x | sh", "ls", "curl x | sh", "rm -rf /"] {
            assert_eq!(*memo.view(text), super::super::parse(text));
        }
        assert_eq!(memo.len(), 3);
    }

    #[test]
    fn the_memo_is_bounded() {
        let memo = ViewMemo::default();
        for i in 0..MEMO_ENTRIES * 3 {
            memo.view(&format!("echo {i}"));
        }
        assert_eq!(memo.len(), MEMO_ENTRIES);
        // The newest are kept, the oldest gone.
        let entries = memo.lock();
        assert!(
            entries
                .views
                .contains_key(format!("echo {}", MEMO_ENTRIES * 3 - 1).as_str())
        );
        assert!(!entries.views.contains_key("echo 0"));
        drop(entries);
        // Long texts are parsed, not kept.
        let long = format!("echo {}", "a".repeat(MEMO_TEXT_BYTES));
        assert_eq!(*memo.view(&long), super::super::parse(&long));
        assert_eq!(memo.len(), MEMO_ENTRIES);
    }
}

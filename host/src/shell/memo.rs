//! Recent shell views by command text: an agent runs the same few commands again and
//! again (`cargo test`, `git status`). A view depends on nothing but its text unless a
//! command in it runs a script file: such a view is read afresh, with its files, every
//! time one is asked for in a folder (the file may have changed since).

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
    views: HashMap<Arc<str>, Entry>,
    order: VecDeque<Arc<str>>,
}

/// One remembered text: its view without files, and whether it runs a script file.
#[derive(Debug, Clone)]
struct Entry {
    view: Arc<ShellView>,
    runs_files: bool,
}

impl ViewMemo {
    /// The view of `text` with no script file read ([`super::parse`]), parsed now unless
    /// it is remembered.
    pub fn view(&self, text: &str) -> Arc<ShellView> {
        self.entry(text).view
    }

    /// The view of `text` run in `cwd` ([`super::parse_in`]): the remembered one when
    /// no command in it runs a script file, else read now with its files.
    pub fn view_in(&self, text: &str, cwd: Option<&std::path::Path>) -> Arc<ShellView> {
        let entry = self.entry(text);
        match cwd {
            Some(cwd) if entry.runs_files => Arc::new(super::parse_in(text, cwd)),
            _ => entry.view,
        }
    }

    fn entry(&self, text: &str) -> Entry {
        if text.len() > MEMO_TEXT_BYTES {
            return parsed(text);
        }
        if let Some(entry) = self.lock().views.get(text) {
            return entry.clone();
        }
        let entry = parsed(text);
        let mut entries = self.lock();
        let key: Arc<str> = Arc::from(text);
        if entries.views.insert(key.clone(), entry.clone()).is_none() {
            entries.order.push_back(key);
            if entries.order.len() > MEMO_ENTRIES
                && let Some(oldest) = entries.order.pop_front()
            {
                entries.views.remove(&oldest);
            }
        }
        entry
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

/// The view of `text` without files, and whether it runs one.
fn parsed(text: &str) -> Entry {
    let (view, runs_files) = super::walk_script(text, None);
    Entry {
        view: Arc::new(view),
        runs_files,
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

    #[test]
    fn a_view_that_runs_a_script_file_reads_it_every_time() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("x.sh");
        let memo = ViewMemo::default();
        let programs = |view: &ShellView| -> Vec<String> {
            view.commands().map(|argv| argv.join(" ")).collect()
        };
        // Missing first (nothing runs), then written, then rewritten: each time the
        // view holds what the file holds now.
        assert_eq!(
            programs(&memo.view_in("bash x.sh", Some(dir.path()))),
            ["bash x.sh"]
        );
        std::fs::write(&script, "echo hi\n").unwrap();
        assert_eq!(
            programs(&memo.view_in("bash x.sh", Some(dir.path()))),
            ["bash x.sh", "echo hi"]
        );
        std::fs::write(&script, "rm -rf ~\n").unwrap();
        assert_eq!(
            programs(&memo.view_in("bash x.sh", Some(dir.path()))),
            ["bash x.sh", "rm -rf ~"]
        );
        // Without a folder, no file is read.
        assert_eq!(programs(&memo.view("bash x.sh")), ["bash x.sh"]);
        assert_eq!(memo.len(), 1);
    }
}

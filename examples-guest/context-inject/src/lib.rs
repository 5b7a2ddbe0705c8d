//! `context-inject`: on SessionStart, reads a file from the project (through a read-only
//! grant of the project directory) and returns it as additional context.
//!
//! Config: `file`, relative to the project root (default `.claude/CONTEXT.md`);
//! `maxBytes` (default 10000). A missing file adds nothing and logs a warning.

use hookhost_guest::{Answer, Hook, SessionStart, config, export_hook, log};

/// The hook.
pub struct ContextInject;

/// Default file, relative to the project root.
pub const DEFAULT_FILE: &str = ".claude/CONTEXT.md";

impl Hook for ContextInject {
    fn session_start(start: SessionStart) -> Result<Answer, String> {
        let file = config::get_str("file").unwrap_or_else(|| DEFAULT_FILE.to_string());
        let max = config::get("maxBytes")
            .and_then(|v| v.as_u64())
            .unwrap_or(10_000) as usize;
        let path = if file.starts_with('/') {
            file
        } else {
            format!("{}/{file}", start.cwd().trim_end_matches('/'))
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(Answer::none().with_context(render(&path, &text, max))),
            Err(err) => {
                log::warn(&format!("context-inject: cannot read {path}: {err}"));
                Ok(Answer::none())
            }
        }
    }
}

export_hook!(ContextInject);

/// The context text for `text` read from `path`, capped at `max` bytes.
pub fn render(path: &str, text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let truncated = if end < text.len() {
        "\n[truncated]"
    } else {
        ""
    };
    format!(
        "Project context from {path}:\n{}{truncated}",
        text[..end].trim_end()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_and_caps() {
        assert_eq!(
            render("/p/c.md", "hello\n", 100),
            "Project context from /p/c.md:\nhello"
        );
        assert!(render("/p/c.md", "ééé", 3).ends_with("é\n[truncated]"));
    }
}

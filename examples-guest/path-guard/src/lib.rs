//! `path-guard`: keeps file writes inside the project.
//!
//! For Write, Edit, MultiEdit and NotebookEdit: a relative `file_path` is made absolute
//! (against the session cwd) and handed back as `updatedInput`; a path outside the
//! project root is denied unless an `allow` rule admits it; a path matching a `deny` rule
//! is denied wherever it is. Rules come from a policy file (config `policyFile`) that the
//! hook reads from its read-only preopened directory:
//!
//! ```text
//! # comments and blank lines are ignored
//! deny .git/**
//! deny **/.env
//! allow /tmp/**
//! ```
//!
//! Relative globs are relative to the project root; `*` stays within a path segment, `**`
//! spans segments.
//!
//! A path that reaches its file through a symbolic link is judged where it lands too
//! (the host's resolved target, [`hookhost_guest::files`]); the project root is then
//! compared with real paths, so a project that itself lives behind a link sets
//! `projectRoot` to its real folder.

use hookhost_guest::{Answer, Hook, PreToolUse, config, export_hook};

/// The hook.
pub struct PathGuard;

const WRITE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

impl Hook for PathGuard {
    fn pre_tool_use(call: PreToolUse) -> Result<Answer, String> {
        if !call.tool_name().is_some_and(|t| WRITE_TOOLS.contains(&t)) {
            return Ok(Answer::none());
        }
        let field = if call.tool_name() == Some("NotebookEdit") {
            "notebook_path"
        } else {
            "file_path"
        };
        let Some(path) = call.tool_field(field) else {
            return Ok(Answer::none());
        };
        let root = config::get_str("projectRoot").unwrap_or_else(|| call.cwd().to_string());
        let policy = match config::get_str("policyFile") {
            Some(file) => Policy::parse(
                &std::fs::read_to_string(&file)
                    .map_err(|err| format!("cannot read policy file {file}: {err}"))?,
            ),
            None => Policy::default(),
        };
        let absolute = normalise(path, call.cwd());
        if let Some(reason) = policy.refusal(&absolute, &root) {
            return Ok(Answer::deny(reason));
        }
        // Where the call lands: a link planted in the project (`notes.md` → `~/.bashrc`)
        // must not walk a write past the rules.
        if let Some(target) = call.target().filter(|t| t.symlink_followed)
            && let Some(reason) = policy.refusal(&target.resolved_path, &root)
        {
            return Ok(Answer::deny(format!("{path} is a symbolic link: {reason}")));
        }
        if absolute == path {
            return Ok(Answer::none());
        }
        let mut input = call.tool_input().ok_or("tool input is not valid JSON")?;
        input[field] = serde_json::Value::String(absolute.clone());
        Ok(Answer::none().update_input(&input).with_context(format!(
            "path-guard: rewrote relative path `{path}` to `{absolute}`"
        )))
    }
}

export_hook!(PathGuard);

/// Allow and deny rules.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Policy {
    allow: Vec<String>,
    deny: Vec<String>,
}

impl Policy {
    /// Reads `allow <glob>` / `deny <glob>` lines.
    pub fn parse(text: &str) -> Self {
        let mut policy = Policy::default();
        for line in text.lines().map(str::trim) {
            match line.split_once(char::is_whitespace) {
                Some(("allow", glob)) => policy.allow.push(glob.trim().to_string()),
                Some(("deny", glob)) => policy.deny.push(glob.trim().to_string()),
                _ => {}
            }
        }
        policy
    }

    /// Why writing `path` (absolute, normalised) is refused, if it is.
    pub fn refusal(&self, path: &str, root: &str) -> Option<String> {
        let anchor = |glob: &str| {
            if glob.starts_with('/') {
                glob.to_string()
            } else {
                format!("{}/{glob}", root.trim_end_matches('/'))
            }
        };
        if let Some(rule) = self.deny.iter().find(|g| glob_match(&anchor(g), path)) {
            return Some(format!(
                "writing {path} is denied by path-guard rule `deny {rule}`; choose another file"
            ));
        }
        let inside = path == root || path.starts_with(&format!("{}/", root.trim_end_matches('/')));
        let allowed = self.allow.iter().any(|g| glob_match(&anchor(g), path));
        (!inside && !allowed).then(|| {
            format!(
                "{path} is outside the project ({root}); write files inside the project instead"
            )
        })
    }
}

/// Makes `path` absolute against `cwd` and resolves `.` and `..` lexically.
pub fn normalise(path: &str, cwd: &str) -> String {
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{cwd}/{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Glob match over `/`-separated paths: `**` spans segments, `*` and `?` stay in one.
pub fn glob_match(glob: &str, path: &str) -> bool {
    let glob: Vec<&str> = glob.split('/').filter(|s| !s.is_empty()).collect();
    let path: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segments(&glob, &path)
}

fn segments(glob: &[&str], path: &[&str]) -> bool {
    match glob.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| segments(rest, &path[skip..])),
        Some((first, rest)) => match path.split_first() {
            Some((segment, tail)) => {
                segment_match(first.as_bytes(), segment.as_bytes()) && segments(rest, tail)
            }
            None => false,
        },
    }
}

fn segment_match(glob: &[u8], text: &[u8]) -> bool {
    match glob.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|skip| segment_match(rest, &text[skip..])),
        Some((b'?', rest)) => !text.is_empty() && segment_match(rest, &text[1..]),
        Some((c, rest)) => text.first() == Some(c) && segment_match(rest, &text[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises() {
        assert_eq!(normalise("src/../lib/a.rs", "/p"), "/p/lib/a.rs");
        assert_eq!(normalise("/p/./x", "/q"), "/p/x");
        assert_eq!(normalise("../../etc/passwd", "/p/sub"), "/etc/passwd");
    }

    #[test]
    fn globs() {
        assert!(glob_match("/p/.git/**", "/p/.git/config"));
        assert!(glob_match("/p/**/.env", "/p/a/b/.env"));
        assert!(glob_match("/p/**/.env", "/p/.env"));
        assert!(!glob_match("/p/*.rs", "/p/src/a.rs"));
        assert!(glob_match("/tmp/**", "/tmp/x/y"));
    }

    #[test]
    fn policy_table() {
        let policy = Policy::parse("# rules\ndeny .git/**\ndeny **/.env\nallow /tmp/**\n");
        let cases: &[(&str, &str, bool)] = &[
            ("inside", "/p/src/main.rs", false),
            ("outside", "/etc/passwd", true),
            ("escape", "/p2/x", true),
            ("allowed_outside", "/tmp/scratch.txt", false),
            ("denied_inside", "/p/.git/config", true),
            ("denied_env", "/p/app/.env", true),
        ];
        for (name, path, refused) in cases {
            assert_eq!(
                policy.refusal(path, "/p").is_some(),
                *refused,
                "case {name}"
            );
        }
    }
}

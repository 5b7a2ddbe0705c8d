//! Where a file tool's call lands. A path rule that reads `tool_input.file_path` as
//! written is walked past by a link planted in the project (`innocent.json` →
//! `~/.bashrc`) or by `src/../..`: the engine resolves the target once, past `..` and
//! every symbolic link (a dangling one too: a write creates its target), and hands it to
//! every hook as the input's [`FIELD`] and to Wasm guests as the `files` interface's
//! record. Self-protection judges the same resolved target.

use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

/// The top-level input field the engine sets on file tool calls (and removes from any
/// other input, so no one else can supply it).
pub const FIELD: &str = "file_target";

/// What a file tool does with its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Writes it (creates, replaces or edits).
    Writes,
    /// Reads it.
    Reads,
    /// Reads it and everything below it (a search).
    ReadsTree,
}

/// The file tools, the input field naming each one's target, and what it does with it.
const FILE_TOOLS: &[(&str, &str, Access)] = &[
    ("Write", "file_path", Access::Writes),
    ("Edit", "file_path", Access::Writes),
    ("MultiEdit", "file_path", Access::Writes),
    ("NotebookEdit", "notebook_path", Access::Writes),
    ("Read", "file_path", Access::Reads),
    ("NotebookRead", "notebook_path", Access::Reads),
    ("Grep", "path", Access::ReadsTree),
    ("Glob", "path", Access::ReadsTree),
    ("LS", "path", Access::ReadsTree),
];

/// A file tool call's target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileTarget {
    /// The path as the tool input gave it.
    pub(crate) given: String,
    /// Absolute, `..` taken away and every link followed.
    pub(crate) resolved: PathBuf,
    /// A symbolic link was followed on the way (in the path as given: a relative path
    /// starts from the session's real folder).
    pub(crate) symlink_followed: bool,
    /// What the tool does with it.
    pub(crate) access: Access,
}

/// The file tool `tool`'s field naming its target and what it does with it.
pub(crate) fn tool_field(tool: &str) -> Option<(&'static str, Access)> {
    FILE_TOOLS
        .iter()
        .find(|(name, _, _)| *name == tool)
        .map(|(_, field, access)| (*field, *access))
}

/// The target of the file tool call `tool` with `tool_input`, a relative path taken from
/// `cwd`; none for another tool, a missing path, or a relative one with no `cwd`.
pub(crate) fn of(tool: &str, tool_input: &Value, cwd: Option<&Path>) -> Option<FileTarget> {
    let (field, access) = tool_field(tool)?;
    let given = crate::json_field::field(tool_input, field)?.as_str()?;
    if given.is_empty() {
        return None;
    }
    let path = Path::new(given);
    // A relative path is taken from the real folder the session runs in, so a link in
    // the project's own path (`/tmp` on macOS) is not reported as one the call follows.
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        let cwd = cwd?;
        std::fs::canonicalize(cwd)
            .unwrap_or_else(|_| cwd.to_path_buf())
            .join(path)
    };
    let (resolved, symlink_followed) = resolve_noting_links(&absolute);
    Some(FileTarget {
        given: given.to_string(),
        resolved,
        symlink_followed,
        access,
    })
}

/// Sets `input`'s [`FIELD`] to `target`, the target of its file tool call, or removes it.
pub(crate) fn annotate(input: &mut Map<String, Value>, target: Option<&FileTarget>) {
    match target {
        Some(target) => {
            input.insert(FIELD.into(), target.to_json());
        }
        None => {
            input.remove(FIELD);
        }
    }
}

impl FileTarget {
    /// The input field's value.
    fn to_json(&self) -> Value {
        serde_json::json!({
            "path": self.given,
            "resolved_path": self.resolved.to_string_lossy(),
            "symlink_followed": self.symlink_followed,
            "access": match self.access {
                Access::Writes => "write",
                Access::Reads => "read",
                Access::ReadsTree => "read-tree",
            },
        })
    }
}

/// `path` with `.` and `..` taken away by its words and symbolic links followed as far
/// as the path exists — a dangling link too, whose target a write would create — so a
/// link planted in the project cannot walk a write past a rule.
pub(crate) fn resolve(path: &Path) -> PathBuf {
    resolve_noting_links(path).0
}

/// [`resolve`], and whether a link was followed.
fn resolve_noting_links(path: &Path) -> (PathBuf, bool) {
    let clean = without_dots(path);
    let resolved = resolve_within(&clean, 40);
    let followed = resolved != clean;
    (resolved, followed)
}

/// `path` with `.` and `..` taken away by its words (as `path.resolve` in Node does
/// before the file is opened).
pub(crate) fn without_dots(path: &Path) -> PathBuf {
    let mut clean = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    clean
}

/// Where a path a shell command names lands when a program opens it: the deepest part
/// that exists, resolved as the kernel resolves it (a `..` after a link climbs from the
/// link's target, not from the link), then the rest, which does not exist and so holds no
/// link, with its `.` and `..` taken by their words. A dangling link on the way is
/// followed as [`resolve`] follows it.
pub(crate) fn resolve_as_opened(path: &Path) -> PathBuf {
    let parts: Vec<Component> = path.components().collect();
    for cut in (1..=parts.len()).rev() {
        let prefix: PathBuf = parts[..cut].iter().collect();
        match std::fs::canonicalize(&prefix) {
            Ok(mut out) => {
                for part in &parts[cut..] {
                    match part {
                        Component::CurDir => {}
                        Component::ParentDir => {
                            out.pop();
                        }
                        other => out.push(other),
                    }
                }
                return out;
            }
            Err(_) if std::fs::symlink_metadata(&prefix).is_ok() => return resolve(path),
            Err(_) => {}
        }
    }
    resolve(path)
}

fn resolve_within(path: &Path, links_left: u32) -> PathBuf {
    let clean = without_dots(path);
    // The deepest part that exists, resolved; the rest appended as written.
    let mut existing = clean.clone();
    let mut rest = Vec::new();
    loop {
        let append = |mut out: PathBuf, rest: &[std::ffi::OsString]| {
            for part in rest.iter().rev() {
                out.push(part);
            }
            out
        };
        if let Ok(real) = std::fs::canonicalize(&existing) {
            return append(real, &rest);
        }
        if links_left > 0
            && let Ok(target) = std::fs::read_link(&existing)
        {
            let parent = existing.parent().unwrap_or(Path::new("/"));
            let followed = append(parent.join(target), &rest);
            return resolve_within(&followed, links_left - 1);
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return clean,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook_input::HookInput;
    use serde_json::json;

    #[test]
    fn only_file_tools_have_a_target() {
        let cwd = Path::new("/nonexistent-project");
        assert!(of("Bash", &json!({"command": "ls"}), Some(cwd)).is_none());
        assert!(of("Write", &json!({"content": ""}), Some(cwd)).is_none());
        assert!(of("Write", &json!({"file_path": "a"}), None).is_none());
        let t = of("Edit", &json!({"file_path": "src/../a.rs"}), Some(cwd)).unwrap();
        assert_eq!(t.resolved, cwd.join("a.rs"));
        assert!(!t.symlink_followed);
        assert_eq!(t.access, Access::Writes);
        assert_eq!(
            of("Grep", &json!({"path": "/x"}), None).unwrap().access,
            Access::ReadsTree
        );
    }

    #[test]
    fn a_supplied_target_is_replaced_or_removed() {
        let mut input = json!({"tool_name": "Bash", "tool_input": {"command": "ls"},
            FIELD: {"path": "x", "resolved_path": "/safe", "symlink_followed": false}});
        annotate(input.as_object_mut().unwrap(), None);
        assert!(input.get(FIELD).is_none());
        let input = HookInput::new(
            crate::dialect::Event::new("PreToolUse"),
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"},
                FIELD: {"path": "x", "resolved_path": "/safe", "symlink_followed": false}}),
        );
        assert!(input.value.get(FIELD).is_none() && input.file_target.is_none());
    }

    #[test]
    #[cfg(unix)]
    fn links_are_followed_and_said_so() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let secret = root.join("home/.bashrc");
        std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
        std::fs::write(&secret, "").unwrap();
        let project = root.join("project");
        std::fs::create_dir_all(&project).unwrap();
        std::os::unix::fs::symlink(&secret, project.join("innocent.json")).unwrap();
        std::os::unix::fs::symlink(root.join("home/new"), project.join("dangling")).unwrap();
        std::os::unix::fs::symlink(root.join("home"), project.join("h")).unwrap();
        let input = HookInput::new(
            crate::dialect::Event::new("PreToolUse"),
            json!({"tool_name": "Write", "tool_input": {"file_path": "innocent.json"},
                "cwd": project}),
        );
        assert_eq!(
            input.value[FIELD],
            json!({"path": "innocent.json", "resolved_path": secret.to_str().unwrap(),
                "symlink_followed": true, "access": "write"})
        );
        for (given, resolved) in [
            ("dangling", root.join("home/new")),
            ("h/x/../.bashrc", secret.clone()),
            ("dangling/../h/.bashrc", secret.clone()),
        ] {
            let t = of("Write", &json!({"file_path": given}), Some(&project)).unwrap();
            assert_eq!(
                (t.resolved, t.symlink_followed),
                (resolved, true),
                "{given}"
            );
        }
        let plain = of("Write", &json!({"file_path": "src/new.rs"}), Some(&project)).unwrap();
        assert_eq!(
            (plain.resolved, plain.symlink_followed),
            (project.join("src/new.rs"), false)
        );
    }
}

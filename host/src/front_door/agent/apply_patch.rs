//! Codex's `apply_patch`: one tool call that writes several files. Each file the patch
//! touches becomes a call of its own — `Write` for a new or deleted file, `Edit` for an
//! updated one (and its destination on a move) — so a path guard sees every target.

use serde_json::{Map, Value, json};

/// The patch text of an `apply_patch` call's input: the input itself, or the string
/// field (or `command` list entry) that holds a `*** Begin Patch` block — anywhere in it,
/// a heredoc around it included, as Codex itself reads it leniently.
pub(super) fn text(tool_input: &Value) -> Option<&str> {
    let is_patch = |text: &&str| text.contains("*** Begin Patch");
    match tool_input {
        Value::String(text) => Some(text.as_str()).filter(is_patch),
        Value::Object(map) => map.values().find_map(|value| match value {
            Value::String(text) => Some(text.as_str()).filter(is_patch),
            Value::Array(items) => items.iter().filter_map(Value::as_str).find(is_patch),
            _ => None,
        }),
        Value::Array(items) => items.iter().filter_map(Value::as_str).find(is_patch),
        _ => None,
    }
}

/// The files `patch` touches, each with the tool that stands for what it does.
pub(super) fn files(patch: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for line in patch.lines() {
        // Indented or not: a reader stricter than the agent's would miss a file.
        let line = line.trim();
        let (tool, path) = if let Some(path) = line.strip_prefix("*** Add File: ") {
            ("Write", path)
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            ("Write", path)
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            ("Edit", path)
        } else if let Some(path) = line.strip_prefix("*** Move to: ") {
            ("Write", path)
        } else {
            continue;
        };
        let path = path.trim();
        if !path.is_empty() {
            out.push((tool, path.to_string()));
        }
    }
    out
}

/// One input per file the patch in `map` touches. A patch that names no file is kept
/// whole (a guard on `apply_patch` still sees it).
pub(super) fn per_file(map: &Map<String, Value>, patch: &str) -> Vec<Value> {
    let files = files(patch);
    if files.is_empty() {
        return vec![Value::Object(map.clone())];
    }
    files
        .into_iter()
        .map(|(tool, path)| {
            let mut input = map.clone();
            input.insert("tool_name".into(), json!(tool));
            input.insert(
                "tool_input".into(),
                json!({"file_path": path, "patch": patch}),
            );
            Value::Object(input)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Update File: src/lib.rs\n*** Move to: src/new.rs\n@@\n-x\n+y\n*** Delete File: old.txt\n*** End Patch\n";

    #[test]
    fn every_file_of_a_patch_is_a_call() {
        assert_eq!(
            files(PATCH),
            vec![
                ("Write", "a.txt".to_string()),
                ("Edit", "src/lib.rs".to_string()),
                ("Write", "src/new.rs".to_string()),
                ("Write", "old.txt".to_string()),
            ]
        );
        for input in [
            json!(PATCH),
            json!({"input": PATCH}),
            json!({"command": ["apply_patch", PATCH]}),
        ] {
            assert_eq!(text(&input), Some(PATCH));
        }
        assert_eq!(text(&json!({"command": "ls"})), None);
        // Wrapped in a heredoc, its lines indented: every file is still found.
        let wrapped = "apply_patch <<'EOF'\n  *** Begin Patch\n  *** Add File: ~/.codex/hooks.json\n+{}\n  *** End Patch\nEOF\n";
        let input = json!({"command": ["bash", "-lc", wrapped]});
        assert_eq!(
            files(text(&input).unwrap()),
            vec![("Write", "~/.codex/hooks.json".to_string())]
        );
    }
}

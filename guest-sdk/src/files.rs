//! Where a file tool's call lands: the host resolves the target of Write, Edit,
//! MultiEdit, NotebookEdit, Read, Grep, Glob and LS past `..` and every symbolic link, so
//! a link planted in the project does not walk a call past a path rule. Judge
//! [`FileTarget::resolved_path`]; [`FileTarget::symlink_followed`] says the path as given
//! names another place.

pub use crate::bindings::hookhost::hooks::files::{Access, FileTarget};

/// The target of this event's file tool call; none on other events and tools. Outside a
/// component (unit tests), see [`crate::PreToolUse::target`].
pub fn tool_target() -> Option<FileTarget> {
    host::tool_target()
}

#[cfg(target_arch = "wasm32")]
mod host {
    pub use crate::bindings::hookhost::hooks::files::tool_target;
}

#[cfg(not(target_arch = "wasm32"))]
mod host {
    pub fn tool_target() -> Option<super::FileTarget> {
        None
    }
}

/// The record from the input's `file_target` field (as command hooks receive it).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn from_json(value: &serde_json::Value) -> Option<FileTarget> {
    let access = match value.get("access").and_then(|a| a.as_str()) {
        Some("read") => Access::Reads,
        Some("read-tree") => Access::ReadsTree,
        _ => Access::Writes,
    };
    Some(FileTarget {
        path: value.get("path")?.as_str()?.to_string(),
        resolved_path: value.get("resolved_path")?.as_str()?.to_string(),
        symlink_followed: value.get("symlink_followed")?.as_bool()?,
        access,
    })
}

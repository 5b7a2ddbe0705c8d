//! Typed reads of an answer's JSON fields, shared by the Claude Code parser
//! ([`super::parse`]) and hygge's action reader ([`super::action`]): a wrong type is an
//! [`OutputError`] naming the key and what was found.

use serde_json::{Map, Value};

/// Why an answer could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid hook answer: {0}")]
pub struct OutputError(pub String);

pub(super) fn opt_string(
    map: &Map<String, Value>,
    key: &str,
) -> Result<Option<String>, OutputError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(OutputError(format!(
            "`{key}` must be a string, found {}",
            kind(other)
        ))),
    }
}

pub(super) fn opt_bool(map: &Map<String, Value>, key: &str) -> Result<Option<bool>, OutputError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(OutputError(format!(
            "`{key}` must be a boolean, found {}",
            kind(other)
        ))),
    }
}

/// Most entries an answer's list field (`watchPaths`) may hold, whatever the executor;
/// a longer list makes the answer invalid (a failure naming the cap).
pub const MAX_LIST_ENTRIES: usize = 1024;

pub(super) fn string_list(map: &Map<String, Value>, key: &str) -> Result<Vec<String>, OutputError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) if items.len() > MAX_LIST_ENTRIES => Err(OutputError(format!(
            "`{key}` has {} entries, more than the limit of {MAX_LIST_ENTRIES}",
            items.len()
        ))),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(OutputError(format!(
                    "`{key}` must hold strings, found {}",
                    kind(other)
                ))),
            })
            .collect(),
        Some(other) => Err(OutputError(format!(
            "`{key}` must be an array, found {}",
            kind(other)
        ))),
    }
}

pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

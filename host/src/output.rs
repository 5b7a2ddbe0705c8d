//! [`HookOutput`]: the one parsed answer shape every executor produces, and the parser
//! for Claude Code's JSON answer (command stdout, HTTP bodies).

use serde_json::{Map, Value};

/// A permission decision, ordered from least to most restrictive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionDecision {
    /// Run without asking.
    Allow,
    /// Ask the user.
    Ask,
    /// Defer the call (headless hosts).
    Defer,
    /// Refuse the call.
    Deny,
}

impl PermissionDecision {
    /// Parses the protocol spelling (`allow`, `ask`, `defer`, `deny`, and the legacy
    /// `approve`/`block`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "allow" | "approve" => Some(Self::Allow),
            "ask" => Some(Self::Ask),
            "defer" => Some(Self::Defer),
            "deny" | "block" => Some(Self::Deny),
            _ => None,
        }
    }

    /// The protocol spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Defer => "defer",
            Self::Deny => "deny",
        }
    }
}

/// What one hook answered, whichever executor ran it. Every field is optional; `merge`
/// decides what the fields of several hooks add up to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutput {
    /// The hook asked to block (exit 2, `decision: "block"`, or a deny decision).
    pub block: bool,
    /// Why it blocked (or the top-level `reason`).
    pub reason: Option<String>,
    /// `continue: false` stops the agent.
    pub continue_: Option<bool>,
    /// Shown to the user when `continue` is false.
    pub stop_reason: Option<String>,
    /// Warning for the user.
    pub system_message: Option<String>,
    /// Context for the model.
    pub additional_context: Option<String>,
    /// PreToolUse / PermissionRequest decision.
    pub permission_decision: Option<PermissionDecision>,
    /// Why the decision was made.
    pub permission_decision_reason: Option<String>,
    /// Replacement tool input.
    pub updated_input: Option<Value>,
    /// Permission updates (PermissionRequest).
    pub updated_permissions: Vec<Value>,
    /// PermissionRequest `decision.interrupt`.
    pub interrupt: bool,
    /// Paths to watch for FileChanged.
    pub watch_paths: Vec<String>,
    /// SessionStart first user turn.
    pub initial_user_message: Option<String>,
    /// Session title.
    pub session_title: Option<String>,
    /// PermissionDenied retry hint.
    pub retry: Option<bool>,
    /// Replacement tool output (PostToolUse).
    pub updated_tool_output: Option<Value>,
}

impl HookOutput {
    /// Whether this answer blocks: a block decision or a deny permission decision.
    pub fn blocks(&self) -> bool {
        self.block || self.permission_decision == Some(PermissionDecision::Deny)
    }
}

/// Why an answer could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid hook answer: {0}")]
pub struct OutputError(pub String);

/// Whether stdout should be read as JSON: after leading white space it starts with `{`
/// and ends with `}`.
pub fn looks_like_json(text: &str) -> bool {
    let trimmed = text.trim();
    trimmed.starts_with('{') && trimmed.ends_with('}')
}

fn opt_string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, OutputError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(OutputError(format!(
            "`{key}` must be a string, found {}",
            kind(other)
        ))),
    }
}

fn opt_bool(map: &Map<String, Value>, key: &str) -> Result<Option<bool>, OutputError> {
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

fn string_list(map: &Map<String, Value>, key: &str) -> Result<Vec<String>, OutputError> {
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

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Parses a Claude Code hook answer (the JSON object a command prints or an HTTP hook
/// returns) for `event`. Unknown keys are ignored; known keys of the wrong type are an
/// error.
pub fn parse_answer(value: &Value, event: &str) -> Result<HookOutput, OutputError> {
    let map = value
        .as_object()
        .ok_or_else(|| OutputError(format!("expected a JSON object, found {}", kind(value))))?;
    let mut out = HookOutput {
        continue_: opt_bool(map, "continue")?,
        stop_reason: opt_string(map, "stopReason")?,
        system_message: opt_string(map, "systemMessage")?,
        reason: opt_string(map, "reason")?,
        ..HookOutput::default()
    };
    match opt_string(map, "decision")?.as_deref() {
        None => {}
        Some("block") => out.block = true,
        Some("approve") if event == "PreToolUse" => {
            out.permission_decision = Some(PermissionDecision::Allow)
        }
        Some("approve") => {}
        Some(other) => {
            return Err(OutputError(format!(
                "`decision` must be \"block\", found \"{other}\""
            )));
        }
    }
    // Accepted at top level too, where several real hooks put it.
    out.watch_paths = string_list(map, "watchPaths")?;
    if let Some(hso) = map.get("hookSpecificOutput") {
        parse_specific(hso, event, &mut out)?;
    }
    Ok(out)
}

fn parse_specific(hso: &Value, event: &str, out: &mut HookOutput) -> Result<(), OutputError> {
    let map = hso.as_object().ok_or_else(|| {
        OutputError(format!(
            "`hookSpecificOutput` must be an object, found {}",
            kind(hso)
        ))
    })?;
    if let Some(name) = opt_string(map, "hookEventName")?
        && name != event
    {
        return Err(OutputError(format!(
            "`hookSpecificOutput.hookEventName` is \"{name}\" but the event is \"{event}\""
        )));
    }
    out.additional_context = opt_string(map, "additionalContext")?;
    if let Some(text) = opt_string(map, "permissionDecision")? {
        let decision = PermissionDecision::parse(&text).ok_or_else(|| {
            OutputError(format!(
                "`permissionDecision` must be allow, deny, ask or defer, found \"{text}\""
            ))
        })?;
        out.permission_decision = Some(decision);
    }
    out.permission_decision_reason = opt_string(map, "permissionDecisionReason")?;
    if let Some(input) = map.get("updatedInput") {
        out.updated_input = Some(input.clone());
    }
    // Accepted in hookSpecificOutput too, which wins over the top level.
    if map.contains_key("watchPaths") {
        out.watch_paths = string_list(map, "watchPaths")?;
    }
    out.initial_user_message = opt_string(map, "initialUserMessage")?;
    out.session_title = opt_string(map, "sessionTitle")?;
    out.retry = opt_bool(map, "retry")?;
    if let Some(output) = map
        .get("updatedToolOutput")
        .or(map.get("updatedMCPToolOutput"))
    {
        out.updated_tool_output = Some(output.clone());
    }
    if let Some(decision) = map.get("decision") {
        parse_permission_request(decision, out)?;
    }
    Ok(())
}

/// PermissionRequest's `decision { behavior, updatedInput, updatedPermissions, message,
/// interrupt }`.
fn parse_permission_request(decision: &Value, out: &mut HookOutput) -> Result<(), OutputError> {
    let map = decision.as_object().ok_or_else(|| {
        OutputError(format!(
            "`hookSpecificOutput.decision` must be an object, found {}",
            kind(decision)
        ))
    })?;
    match opt_string(map, "behavior")?.as_deref() {
        Some("allow") => out.permission_decision = Some(PermissionDecision::Allow),
        Some("deny") => out.permission_decision = Some(PermissionDecision::Deny),
        Some(other) => {
            return Err(OutputError(format!(
                "`decision.behavior` must be allow or deny, found \"{other}\""
            )));
        }
        None => {
            return Err(OutputError("`decision.behavior` is required".into()));
        }
    }
    if let Some(input) = map.get("updatedInput") {
        out.updated_input = Some(input.clone());
    }
    match map.get("updatedPermissions") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => out.updated_permissions = items.clone(),
        Some(other) => {
            return Err(OutputError(format!(
                "`decision.updatedPermissions` must be an array, found {}",
                kind(other)
            )));
        }
    }
    if let Some(message) = opt_string(map, "message")? {
        out.permission_decision_reason = Some(message);
    }
    out.interrupt = opt_bool(map, "interrupt")?.unwrap_or(false);
    Ok(())
}

/// Whether the text's first line is the `{"async": true}` marker that detaches a
/// command hook.
pub fn is_async_marker(line: &str) -> bool {
    serde_json::from_str::<Value>(line.trim())
        .ok()
        .and_then(|v| v.get("async").and_then(Value::as_bool))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pre_tool_use_deny() {
        let out = parse_answer(
            &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no"}}),
            "PreToolUse",
        )
        .unwrap();
        assert!(out.blocks());
        assert_eq!(out.permission_decision, Some(PermissionDecision::Deny));
        assert_eq!(out.permission_decision_reason.as_deref(), Some("no"));
    }

    #[test]
    fn legacy_decisions_map_to_permissions() {
        let out = parse_answer(&json!({"decision": "approve"}), "PreToolUse").unwrap();
        assert_eq!(out.permission_decision, Some(PermissionDecision::Allow));
        let out = parse_answer(&json!({"decision": "block", "reason": "r"}), "PreToolUse").unwrap();
        assert!(out.blocks());
    }

    #[test]
    fn permission_request_behavior() {
        let out = parse_answer(
            &json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow", "updatedPermissions": [{"type": "setMode"}]}}}),
            "PermissionRequest",
        )
        .unwrap();
        assert_eq!(out.permission_decision, Some(PermissionDecision::Allow));
        assert_eq!(out.updated_permissions.len(), 1);
    }

    #[test]
    fn wrong_types_and_mismatched_event_are_errors() {
        assert!(parse_answer(&json!({"continue": "no"}), "Stop").is_err());
        assert!(parse_answer(&json!({"decision": "maybe"}), "Stop").is_err());
        assert!(
            parse_answer(
                &json!({"hookSpecificOutput": {"hookEventName": "Stop"}}),
                "PreToolUse"
            )
            .is_err()
        );
        assert!(parse_answer(&json!([1]), "Stop").is_err());
    }

    #[test]
    fn watch_paths_top_level_or_specific() {
        let top = parse_answer(&json!({"watchPaths": ["/a"]}), "CwdChanged").unwrap();
        assert_eq!(top.watch_paths, vec!["/a"]);
        let specific = parse_answer(
            &json!({"watchPaths": ["/a"], "hookSpecificOutput": {"watchPaths": ["/b"]}}),
            "CwdChanged",
        )
        .unwrap();
        assert_eq!(specific.watch_paths, vec!["/b"]);
        assert!(
            parse_answer(
                &json!({"hookSpecificOutput": {"watchPaths": [1]}}),
                "CwdChanged"
            )
            .is_err()
        );
    }

    #[test]
    fn json_detection() {
        assert!(looks_like_json("  {\"a\":1}\n"));
        assert!(!looks_like_json("hello {"));
        assert!(!looks_like_json("[1]"));
        assert!(is_async_marker("{\"async\": true}"));
        assert!(!is_async_marker("{\"async\": false}"));
    }
}

//! Parsing Claude Code's JSON answer (command stdout, HTTP bodies) into a
//! [`HookAnswer`]. Keys come from the [field table](super::fields).

use serde_json::{Map, Value};

use super::fields::{
    ADDITIONAL_CONTEXT, CLASSIFIER_CONTEXT, CONTINUE, DECISION, INITIAL_USER_MESSAGE,
    PERMISSION_DECISION, RETRY, SESSION_TITLE, SUPPRESS_ORIGINAL_PROMPT, SYSTEM_MESSAGE,
    UPDATED_INPUT, UPDATED_PERMISSIONS, UPDATED_TOOL_OUTPUT, WATCH_PATHS, WORKTREE_PATH, key,
};
use crate::dialect::AnswerForm;
use crate::dialect::Event;
use crate::event::BlockForm;
use crate::output::{HookAnswer, PermissionDecision};

use super::read::{OutputError, kind, opt_bool, opt_string, string_list};

/// Whether stdout should be read as JSON: after leading white space it starts with `{`
/// and ends with `}`.
pub fn looks_like_json(text: &str) -> bool {
    let trimmed = text.trim();
    trimmed.starts_with('{') && trimmed.ends_with('}')
}

/// Parses a Claude Code hook answer (the JSON object a command prints or an HTTP hook
/// returns) for `event`. Unknown keys are ignored; known keys of the wrong type are an
/// error.
pub fn parse_answer(value: &Value, event: &Event) -> Result<HookAnswer, OutputError> {
    let map = value
        .as_object()
        .ok_or_else(|| OutputError(format!("expected a JSON object, found {}", kind(value))))?;
    if event.dialect().answer == AnswerForm::HyggeAction {
        return super::action::parse_action(map);
    }
    let mut out = HookAnswer {
        continue_: opt_bool(map, CONTINUE.key)?,
        stop_reason: opt_string(map, key::STOP_REASON)?,
        system_message: opt_string(map, SYSTEM_MESSAGE.key)?,
        reason: opt_string(map, key::REASON)?,
        suppress_output: opt_bool(map, key::SUPPRESS_OUTPUT)?.unwrap_or(false),
        // Top-level and `{type, content}` forms are accepted; hookSpecificOutput wins.
        additional_context: context(map)?,
        ..HookAnswer::default()
    };
    if opt_bool(map, key::PREVENT_CONTINUATION)? == Some(true) {
        out.continue_ = Some(false);
    }
    match opt_string(map, DECISION.key)?.as_deref() {
        None => {}
        Some("block") => out.block = true,
        // The legacy PreToolUse spelling of allow.
        Some("approve") if event.block_form == BlockForm::PermissionDecision => {
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
    out.watch_paths = string_list(map, WATCH_PATHS.key)?;
    if let Some(hso) = map.get(key::SPECIFIC) {
        parse_specific(hso, event, &mut out)?;
    }
    Ok(out)
}

/// `additionalContext` as a string or as `{"type": "text", "content": "…"}`.
fn context(map: &Map<String, Value>) -> Result<Option<String>, OutputError> {
    match map.get(ADDITIONAL_CONTEXT.key) {
        Some(Value::Object(object)) => match object.get("content") {
            Some(Value::String(text)) => Ok(Some(text.clone())),
            None | Some(Value::Null) => Ok(None),
            Some(other) => Err(OutputError(format!(
                "`additionalContext.content` must be a string, found {}",
                kind(other)
            ))),
        },
        _ => opt_string(map, ADDITIONAL_CONTEXT.key),
    }
}

fn parse_specific(hso: &Value, event: &Event, out: &mut HookAnswer) -> Result<(), OutputError> {
    let map = hso.as_object().ok_or_else(|| {
        OutputError(format!(
            "`hookSpecificOutput` must be an object, found {}",
            kind(hso)
        ))
    })?;
    if let Some(name) = opt_string(map, key::EVENT_NAME)?
        && *event != *name.as_str()
    {
        return Err(OutputError(format!(
            "`hookSpecificOutput.hookEventName` is \"{name}\" but the event is \"{event}\""
        )));
    }
    if let Some(text) = context(map)? {
        out.additional_context = Some(text);
    }
    out.worktree_path = opt_string(map, WORKTREE_PATH.key)?;
    if let Some(text) = opt_string(map, PERMISSION_DECISION.key)? {
        let decision = PermissionDecision::parse(&text).ok_or_else(|| {
            OutputError(format!(
                "`permissionDecision` must be allow, deny, ask or defer, found \"{text}\""
            ))
        })?;
        out.permission_decision = Some(decision);
    }
    out.permission_decision_reason = opt_string(map, key::DECISION_REASON)?;
    if let Some(input) = map.get(UPDATED_INPUT.key) {
        out.updated_input = Some(input.clone());
    }
    // Accepted in hookSpecificOutput too, which wins over the top level.
    if map.contains_key(WATCH_PATHS.key) {
        out.watch_paths = string_list(map, WATCH_PATHS.key)?;
    }
    out.initial_user_message = opt_string(map, INITIAL_USER_MESSAGE.key)?;
    out.session_title = opt_string(map, SESSION_TITLE.key)?;
    out.retry = opt_bool(map, RETRY.key)?;
    out.classifier_context = opt_string(map, CLASSIFIER_CONTEXT.key)?;
    out.suppress_original_prompt = opt_bool(map, SUPPRESS_ORIGINAL_PROMPT.key)?;
    if let Some(output) = map
        .get(UPDATED_TOOL_OUTPUT.key)
        .or(map.get(key::UPDATED_MCP_TOOL_OUTPUT))
    {
        out.updated_tool_output = Some(output.clone());
    }
    if let Some(decision) = map.get(DECISION.key) {
        parse_permission_request(decision, out)?;
    }
    Ok(())
}

/// PermissionRequest's `decision { behavior, updatedInput, updatedPermissions, message,
/// interrupt }`.
fn parse_permission_request(decision: &Value, out: &mut HookAnswer) -> Result<(), OutputError> {
    let map = decision.as_object().ok_or_else(|| {
        OutputError(format!(
            "`hookSpecificOutput.decision` must be an object, found {}",
            kind(decision)
        ))
    })?;
    match opt_string(map, key::BEHAVIOR)?.as_deref() {
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
    if let Some(input) = map.get(UPDATED_INPUT.key) {
        out.updated_input = Some(input.clone());
    }
    match map.get(UPDATED_PERMISSIONS.key) {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => out.updated_permissions = items.clone(),
        Some(other) => {
            return Err(OutputError(format!(
                "`decision.updatedPermissions` must be an array, found {}",
                kind(other)
            )));
        }
    }
    if let Some(message) = opt_string(map, key::MESSAGE)? {
        out.permission_decision_reason = Some(message);
    }
    out.interrupt = opt_bool(map, key::INTERRUPT)?.unwrap_or(false);
    Ok(())
}

/// The `asyncTimeout` (seconds) of an async marker line, if it sets a positive one.
pub fn async_timeout(line: &str) -> Option<std::time::Duration> {
    serde_json::from_str::<Value>(line.trim())
        .ok()?
        .get(key::ASYNC_TIMEOUT)?
        .as_f64()
        .filter(|secs| secs.is_finite() && *secs > 0.0)
        .map(|secs| std::time::Duration::from_secs_f64(secs.min(86_400.0)))
}

/// Whether the text's first line is the `{"async": true}` marker that detaches a
/// command hook.
pub fn is_async_marker(line: &str) -> bool {
    serde_json::from_str::<Value>(line.trim())
        .ok()
        .and_then(|v| v.get(key::ASYNC).and_then(Value::as_bool))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Event;
    use serde_json::json;

    #[test]
    fn pre_tool_use_deny() {
        let out = parse_answer(
            &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no"}}),
            &Event::new("PreToolUse"),
        )
        .unwrap();
        assert!(out.blocks());
        assert_eq!(out.permission_decision, Some(PermissionDecision::Deny));
        assert_eq!(out.permission_decision_reason.as_deref(), Some("no"));
    }

    #[test]
    fn the_fields_claude_code_2_1_332_added() {
        let out = parse_answer(
            &json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                "classifierContext": "ran the suite"}}),
            &Event::new("PostToolUse"),
        )
        .unwrap();
        assert_eq!(out.classifier_context.as_deref(), Some("ran the suite"));
        let out = parse_answer(
            &json!({"hookSpecificOutput": {"suppressOriginalPrompt": true}}),
            &Event::new("UserPromptExpansion"),
        )
        .unwrap();
        assert_eq!(out.suppress_original_prompt, Some(true));
        let bad = parse_answer(
            &json!({"hookSpecificOutput": {"suppressOriginalPrompt": "yes"}}),
            &Event::new("UserPromptExpansion"),
        );
        assert!(
            bad.unwrap_err()
                .to_string()
                .contains("suppressOriginalPrompt")
        );
    }

    #[test]
    fn legacy_decisions_map_to_permissions() {
        let out = parse_answer(&json!({"decision": "approve"}), &Event::new("PreToolUse")).unwrap();
        assert_eq!(out.permission_decision, Some(PermissionDecision::Allow));
        let out = parse_answer(
            &json!({"decision": "block", "reason": "r"}),
            &Event::new("PreToolUse"),
        )
        .unwrap();
        assert!(out.blocks());
    }

    #[test]
    fn permission_request_behavior() {
        let out = parse_answer(
            &json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow", "updatedPermissions": [{"type": "setMode"}]}}}),
            &Event::new("PermissionRequest"),
        )
        .unwrap();
        assert_eq!(out.permission_decision, Some(PermissionDecision::Allow));
        assert_eq!(out.updated_permissions.len(), 1);
    }

    #[test]
    fn wrong_types_and_mismatched_event_are_errors() {
        assert!(parse_answer(&json!({"continue": "no"}), &Event::new("Stop")).is_err());
        assert!(parse_answer(&json!({"decision": "maybe"}), &Event::new("Stop")).is_err());
        assert!(
            parse_answer(
                &json!({"hookSpecificOutput": {"hookEventName": "Stop"}}),
                &Event::new("PreToolUse")
            )
            .is_err()
        );
        assert!(parse_answer(&json!([1]), &Event::new("Stop")).is_err());
    }

    #[test]
    fn watch_paths_top_level_or_specific() {
        let top = parse_answer(&json!({"watchPaths": ["/a"]}), &Event::new("CwdChanged")).unwrap();
        assert_eq!(top.watch_paths, vec!["/a"]);
        let specific = parse_answer(
            &json!({"watchPaths": ["/a"], "hookSpecificOutput": {"watchPaths": ["/b"]}}),
            &Event::new("CwdChanged"),
        )
        .unwrap();
        assert_eq!(specific.watch_paths, vec!["/b"]);
        assert!(
            parse_answer(
                &json!({"hookSpecificOutput": {"watchPaths": [1]}}),
                &Event::new("CwdChanged")
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

//! hygge's answer: an `Action` object.
//!
//! ```json
//! {"decision": "modify", "reason": "…", "modified_tool_input": {…},
//!  "modified_message": "…", "modified_tool_result": {"is_error": false, "content": "…"},
//!  "system_prompt_append": "…"}
//! ```
//!
//! `decision` is `allow` (also when absent), `deny` (a block with `reason`) or `modify`.
//! The `modified_*` fields count only with `modify`: `modified_tool_input` on a tool event
//! with input rewriting (`pre_tool`), `modified_message` where the event takes a message
//! (`pre_message`, `post_message`), `modified_tool_result` where it takes a tool output
//! (`post_tool`). `system_prompt_append` counts with `allow` and `modify`. A field the
//! decision or the event does not honour is dropped and reported by field scoping.

use serde_json::{Map, Value};

use super::read::{OutputError, kind, opt_string};
use crate::output::HookAnswer;

/// Parses a hygge `Action` (event scoping happens in the merge).
pub fn parse_action(map: &Map<String, Value>) -> Result<HookAnswer, OutputError> {
    let mut out = HookAnswer {
        reason: opt_string(map, "reason")?,
        system_prompt_append: opt_string(map, "system_prompt_append")?,
        ..HookAnswer::default()
    };
    let decision = opt_string(map, "decision")?;
    match decision.as_deref() {
        None | Some("") | Some("allow") => {}
        Some("deny") => {
            out.block = true;
            if out.reason.as_deref().is_none_or(str::is_empty) {
                out.reason = Some("denied by hook".into());
            }
        }
        Some("modify") => {
            if let Some(input) = map.get("modified_tool_input").filter(|v| !v.is_null()) {
                if !input.is_object() {
                    return Err(OutputError(format!(
                        "`modified_tool_input` must be an object, found {}",
                        kind(input)
                    )));
                }
                out.updated_input = Some(input.clone());
            }
            out.updated_message = opt_string(map, "modified_message")?;
            if let Some(result) = map.get("modified_tool_result").filter(|v| !v.is_null()) {
                out.updated_tool_output = Some(tool_result(result)?);
            }
        }
        Some(other) => {
            return Err(OutputError(format!(
                "`decision` must be \"allow\", \"deny\" or \"modify\", found \"{other}\""
            )));
        }
    }
    Ok(out)
}

/// `{"is_error": bool, "content": "…"}`.
fn tool_result(value: &Value) -> Result<Value, OutputError> {
    let map = value.as_object().ok_or_else(|| {
        OutputError(format!(
            "`modified_tool_result` must be an object, found {}",
            kind(value)
        ))
    })?;
    let content = opt_string(map, "content")?.unwrap_or_default();
    let is_error = match map.get("is_error") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(OutputError(format!(
                "`modified_tool_result.is_error` must be a boolean, found {}",
                kind(other)
            )));
        }
    };
    Ok(serde_json::json!({"is_error": is_error, "content": content}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::DialectId;
    use serde_json::json;

    fn parse(value: Value, event: &str) -> Result<HookAnswer, OutputError> {
        let event = DialectId::Hygge.dialect().event(event);
        super::super::parse_answer(&value, &event)
    }

    #[test]
    fn actions() {
        assert_eq!(parse(json!({}), "pre_tool").unwrap(), HookAnswer::default());
        let deny = parse(json!({"decision": "deny", "reason": "no"}), "pre_tool").unwrap();
        assert!(deny.block && deny.reason.as_deref() == Some("no"));
        let modify = parse(
            json!({"decision": "modify", "modified_tool_input": {"command": "ls"},
                   "modified_message": "hi", "system_prompt_append": "be brief"}),
            "pre_tool",
        )
        .unwrap();
        assert_eq!(modify.updated_input, Some(json!({"command": "ls"})));
        assert_eq!(modify.updated_message.as_deref(), Some("hi"));
        assert_eq!(modify.system_prompt_append.as_deref(), Some("be brief"));
        // `modified_*` only count with `modify`.
        let allow = parse(
            json!({"decision": "allow", "modified_message": "ignored", "system_prompt_append": "kept"}),
            "pre_message",
        )
        .unwrap();
        assert!(allow.updated_message.is_none());
        assert_eq!(allow.system_prompt_append.as_deref(), Some("kept"));
        let result = parse(
            json!({"decision": "modify", "modified_tool_result": {"content": "redacted"}}),
            "post_tool",
        )
        .unwrap();
        assert_eq!(
            result.updated_tool_output,
            Some(json!({"is_error": false, "content": "redacted"}))
        );
        for bad in [
            json!({"decision": "block"}),
            json!({"decision": "modify", "modified_tool_input": "rm"}),
            json!({"decision": "modify", "modified_tool_result": {"is_error": "yes"}}),
        ] {
            assert!(parse(bad.clone(), "pre_tool").is_err(), "{bad}");
        }
    }
}

//! Conversions at the WIT edge: the hook input into the WIT record, the typed answer
//! into the one [`HookOutput`] every executor produces.

use serde_json::Value;

use super::bindings::{Decision, HookAnswer, HookInput};
use crate::event::{EventSpec, Fields};
use crate::output::{HookOutput, PermissionDecision};

/// Builds the WIT input from the hook input (already serialised as `raw`).
pub fn hook_input(event: &str, spec: &EventSpec, input: &Value, raw: &str) -> HookInput {
    let text = |name: &str| input.get(name).and_then(Value::as_str).map(str::to_string);
    let tool_input = input.get("tool_input");
    let tool_input_fields = tool_input
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect()
        })
        .unwrap_or_default();
    HookInput {
        event: event.to_string(),
        session_id: text("session_id").unwrap_or_default(),
        cwd: text("cwd").unwrap_or_default(),
        permission_mode: text("permission_mode"),
        tool_name: text("tool_name"),
        tool_input_fields,
        tool_input: tool_input.map(Value::to_string),
        matcher_value: spec.matcher_field.and_then(text),
        prompt: text("prompt"),
        raw: raw.to_string(),
    }
}

/// Total bytes of the answer's text fields.
pub fn answer_size(answer: &HookAnswer) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    opt(&answer.reason)
        + opt(&answer.additional_context)
        + opt(&answer.system_message)
        + opt(&answer.updated_input)
        + opt(&answer.updated_tool_output)
        + opt(&answer.stop_reason)
        + opt(&answer.initial_user_message)
        + answer.watch_paths.iter().map(String::len).sum::<usize>()
}

fn json_field(name: &str, text: Option<String>) -> Result<Option<Value>, String> {
    text.map(|t| {
        serde_json::from_str(&t).map_err(|err| format!("`{name}` is not valid JSON: {err}"))
    })
    .transpose()
}

/// Converts the guest's typed answer for `spec`.
pub fn hook_output(answer: HookAnswer, spec: &EventSpec) -> Result<HookOutput, String> {
    let mut out = HookOutput {
        updated_input: json_field("updated-input", answer.updated_input)?,
        updated_tool_output: json_field("updated-tool-output", answer.updated_tool_output)?,
        additional_context: answer.additional_context,
        system_message: answer.system_message,
        watch_paths: answer.watch_paths,
        initial_user_message: answer.initial_user_message,
        retry: answer.retry,
        ..HookOutput::default()
    };
    if answer.stop {
        out.continue_ = Some(false);
        out.stop_reason = answer.stop_reason;
    }
    let permission = |d| spec.honours(Fields::PERMISSION_DECISION).then_some(d);
    match answer.decision {
        Decision::None => {}
        Decision::Block => out.block = true,
        Decision::Deny => match permission(PermissionDecision::Deny) {
            Some(d) => out.permission_decision = Some(d),
            None => out.block = true,
        },
        Decision::Allow => out.permission_decision = Some(PermissionDecision::Allow),
        Decision::Ask => out.permission_decision = Some(PermissionDecision::Ask),
        Decision::Defer => out.permission_decision = Some(PermissionDecision::Defer),
    }
    if out.permission_decision.is_some() {
        out.permission_decision_reason = answer.reason.clone();
    }
    out.reason = answer.reason;
    Ok(out)
}

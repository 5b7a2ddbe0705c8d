//! Conversions at the WIT edge: the hook input into the WIT record, the typed answer
//! into the one [`HookOutput`] every executor produces.

use serde_json::Value;

use super::bindings::{Decision, HookAnswer, HookInput};
use crate::event::{Event, EventSpec, Fields};
use crate::output::{HookOutput, PermissionDecision};
use crate::protocol::MAX_LIST_ENTRIES;

/// Builds the WIT input from the hook input (already serialised as `raw`).
pub fn hook_input(event: &Event, input: &Value, raw: &str) -> HookInput {
    let spec = event.spec();
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
        event: event.catalog_name().to_string(),
        session_id: text("session_id").unwrap_or_default(),
        // hygge names the working directory `pwd`.
        cwd: text("cwd").or_else(|| text("pwd")).unwrap_or_default(),
        permission_mode: text("permission_mode"),
        tool_name: text("tool_name"),
        tool_input_fields,
        tool_input: tool_input.map(Value::to_string),
        matcher_value: spec.matcher_value(input),
        prompt: text("prompt"),
        raw: raw.to_string(),
    }
}

/// Bytes of text the WIT input record carries into the guest (the 0.1.0 record holds
/// the tool input three ways: as fields, as JSON and inside `raw`).
pub fn input_size(input: &HookInput) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    input.event.len()
        + input.session_id.len()
        + input.cwd.len()
        + opt(&input.permission_mode)
        + opt(&input.tool_name)
        + input
            .tool_input_fields
            .iter()
            .map(|(k, v)| k.len() + v.len() + LIST_ENTRY_OVERHEAD)
            .sum::<usize>()
        + opt(&input.tool_input)
        + opt(&input.matcher_value)
        + opt(&input.prompt)
        + input.raw.len()
}

/// What one list entry costs in the answer size besides its bytes: an empty string is
/// not free (it is a pointer, a length and an allocation on both sides).
pub const LIST_ENTRY_OVERHEAD: usize = 16;

/// Total bytes of the answer's text fields, each list entry counted with
/// [`LIST_ENTRY_OVERHEAD`].
pub fn answer_size(answer: &HookAnswer) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    opt(&answer.reason)
        + opt(&answer.additional_context)
        + opt(&answer.system_message)
        + opt(&answer.updated_input)
        + opt(&answer.updated_tool_output)
        + opt(&answer.stop_reason)
        + opt(&answer.initial_user_message)
        + answer
            .watch_paths
            .iter()
            .map(|path| path.len() + LIST_ENTRY_OVERHEAD)
            .sum::<usize>()
}

fn json_field(name: &str, text: Option<String>) -> Result<Option<Value>, String> {
    text.map(|t| {
        serde_json::from_str(&t).map_err(|err| format!("`{name}` is not valid JSON: {err}"))
    })
    .transpose()
}

/// Converts the guest's typed answer for `spec`.
pub fn hook_output(answer: HookAnswer, spec: &EventSpec) -> Result<HookOutput, String> {
    if answer.watch_paths.len() > MAX_LIST_ENTRIES {
        return Err(format!(
            "`watch-paths` has {} entries, more than the limit of {MAX_LIST_ENTRIES}",
            answer.watch_paths.len()
        ));
    }
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

//! Conversions at the WIT edge: the hook input into each version's record, each
//! version's typed answer into the one [`HookOutput`] every executor produces.
//!
//! The newest package (0.2.0) is converted directly; 0.1.0 goes through an adapter that
//! widens its input from the 0.2.0 record and its answer into a 0.2.0 answer (the new
//! fields left empty), so there is one conversion of answers to maintain.

use serde_json::Value;

use super::bindings::{v0_1, v0_2};
use crate::event::{Event, EventSpec, Fields};
use crate::output::{HookOutput, PermissionDecision};
use crate::protocol::MAX_LIST_ENTRIES;

/// Builds the 0.2.0 input record: the small common fields only.
pub fn hook_input(event: &Event, input: &Value) -> v0_2::HookInput {
    let spec = event.spec();
    let text = |name: &str| input.get(name).and_then(Value::as_str).map(str::to_string);
    let tool_input_fields = input
        .get("tool_input")
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect()
        })
        .unwrap_or_default();
    v0_2::HookInput {
        event: event.catalog_name().to_string(),
        session_id: text("session_id").unwrap_or_default(),
        // hygge names the working directory `pwd`.
        cwd: text("cwd").or_else(|| text("pwd")).unwrap_or_default(),
        permission_mode: text("permission_mode"),
        tool_name: text("tool_name"),
        tool_input_fields,
        matcher_value: spec.matcher_value(input),
        prompt: text("prompt"),
    }
}

/// The 0.1.0 record: the 0.2.0 one plus the tool input JSON and the raw input.
pub fn hook_input_v0_1(input: v0_2::HookInput, json: &Value, raw: &str) -> v0_1::HookInput {
    v0_1::HookInput {
        event: input.event,
        session_id: input.session_id,
        cwd: input.cwd,
        permission_mode: input.permission_mode,
        tool_name: input.tool_name,
        tool_input_fields: input.tool_input_fields,
        tool_input: json.get("tool_input").map(Value::to_string),
        matcher_value: input.matcher_value,
        prompt: input.prompt,
        raw: raw.to_string(),
    }
}

/// Bytes of text the 0.2.0 record carries into the guest.
pub fn input_size(input: &v0_2::HookInput) -> usize {
    input.event.len()
        + input.session_id.len()
        + input.cwd.len()
        + opt_len(&input.permission_mode)
        + opt_len(&input.tool_name)
        + input
            .tool_input_fields
            .iter()
            .map(|(k, v)| k.len() + v.len() + LIST_ENTRY_OVERHEAD)
            .sum::<usize>()
        + opt_len(&input.matcher_value)
        + opt_len(&input.prompt)
}

/// Bytes of text the 0.1.0 record carries into the guest: the 0.2.0 record's bytes
/// (`base`, from [`input_size`]) plus the tool input JSON and `raw` it adds (so it holds
/// the tool input three ways: as fields, as JSON and inside `raw`).
pub fn input_size_v0_1(base: usize, input: &v0_1::HookInput) -> usize {
    base + opt_len(&input.tool_input) + input.raw.len()
}

fn opt_len(s: &Option<String>) -> usize {
    s.as_ref().map_or(0, String::len)
}

/// What one list entry costs in the answer size besides its bytes: an empty string is
/// not free (it is a pointer, a length and an allocation on both sides).
pub const LIST_ENTRY_OVERHEAD: usize = 16;

fn list_size(list: &[String]) -> usize {
    list.iter()
        .map(|entry| entry.len() + LIST_ENTRY_OVERHEAD)
        .sum()
}

/// Total bytes of the answer's text fields, each list entry counted with
/// [`LIST_ENTRY_OVERHEAD`].
pub fn answer_size(answer: &v0_2::HookAnswer) -> usize {
    opt_len(&answer.reason)
        + opt_len(&answer.additional_context)
        + opt_len(&answer.system_message)
        + opt_len(&answer.updated_input)
        + opt_len(&answer.updated_tool_output)
        + opt_len(&answer.stop_reason)
        + opt_len(&answer.initial_user_message)
        + list_size(&answer.watch_paths)
        + list_size(&answer.updated_permissions)
        + opt_len(&answer.session_title)
        + opt_len(&answer.updated_message)
        + opt_len(&answer.system_prompt_append)
        + opt_len(&answer.worktree_path)
        + opt_len(&answer.custom_instructions)
}

/// The 0.1.0 answer as a 0.2.0 answer: the fields 0.1.0 lacks stay empty.
pub fn answer_from_v0_1(answer: v0_1::HookAnswer) -> v0_2::HookAnswer {
    use v0_1::Decision as Old;
    use v0_2::Decision as New;
    v0_2::HookAnswer {
        decision: match answer.decision {
            Old::None => New::None,
            Old::Allow => New::Allow,
            Old::Deny => New::Deny,
            Old::Ask => New::Ask,
            Old::Defer => New::Defer,
            Old::Block => New::Block,
        },
        reason: answer.reason,
        additional_context: answer.additional_context,
        system_message: answer.system_message,
        updated_input: answer.updated_input,
        updated_tool_output: answer.updated_tool_output,
        watch_paths: answer.watch_paths,
        stop: answer.stop,
        stop_reason: answer.stop_reason,
        initial_user_message: answer.initial_user_message,
        retry: answer.retry,
        updated_permissions: Vec::new(),
        interrupt: false,
        session_title: None,
        suppress_output: false,
        updated_message: None,
        system_prompt_append: None,
        worktree_path: None,
        custom_instructions: None,
    }
}

fn json_field(name: &str, text: Option<String>) -> Result<Option<Value>, String> {
    text.map(|t| {
        serde_json::from_str(&t).map_err(|err| format!("`{name}` is not valid JSON: {err}"))
    })
    .transpose()
}

fn capped<T>(name: &str, list: Vec<T>) -> Result<Vec<T>, String> {
    if list.len() > MAX_LIST_ENTRIES {
        return Err(format!(
            "`{name}` has {} entries, more than the limit of {MAX_LIST_ENTRIES}",
            list.len()
        ));
    }
    Ok(list)
}

/// Converts the guest's typed answer for `spec`.
pub fn hook_output(answer: v0_2::HookAnswer, spec: &EventSpec) -> Result<HookOutput, String> {
    let updated_permissions = capped("updated-permissions", answer.updated_permissions)?
        .into_iter()
        .map(
            |text| match json_field("updated-permissions", Some(text))? {
                Some(Value::Object(rule)) => Ok(Value::Object(rule)),
                _ => Err("`updated-permissions` entries must be JSON objects".to_string()),
            },
        )
        .collect::<Result<Vec<_>, String>>()?;
    let mut out = HookOutput {
        updated_input: json_field("updated-input", answer.updated_input)?,
        updated_tool_output: json_field("updated-tool-output", answer.updated_tool_output)?,
        additional_context: answer.additional_context,
        system_message: answer.system_message,
        watch_paths: capped("watch-paths", answer.watch_paths)?,
        initial_user_message: answer.initial_user_message,
        retry: answer.retry,
        updated_permissions,
        interrupt: answer.interrupt,
        session_title: answer.session_title,
        suppress_output: answer.suppress_output,
        updated_message: answer.updated_message,
        system_prompt_append: answer.system_prompt_append,
        worktree_path: answer.worktree_path,
        custom_instructions: answer.custom_instructions,
        ..HookOutput::default()
    };
    if answer.stop {
        out.continue_ = Some(false);
        out.stop_reason = answer.stop_reason;
    }
    let permission = |d| spec.honours(Fields::PERMISSION_DECISION).then_some(d);
    match answer.decision {
        v0_2::Decision::None => {}
        v0_2::Decision::Block => out.block = true,
        v0_2::Decision::Deny => match permission(PermissionDecision::Deny) {
            Some(d) => out.permission_decision = Some(d),
            None => out.block = true,
        },
        v0_2::Decision::Allow => out.permission_decision = Some(PermissionDecision::Allow),
        v0_2::Decision::Ask => out.permission_decision = Some(PermissionDecision::Ask),
        v0_2::Decision::Defer => out.permission_decision = Some(PermissionDecision::Defer),
    }
    if out.permission_decision.is_some() {
        out.permission_decision_reason = answer.reason.clone();
    }
    out.reason = answer.reason;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer() -> v0_2::HookAnswer {
        answer_from_v0_1(v0_1::HookAnswer {
            decision: v0_1::Decision::Deny,
            reason: Some("no".into()),
            additional_context: None,
            system_message: None,
            updated_input: None,
            updated_tool_output: None,
            watch_paths: Vec::new(),
            stop: false,
            stop_reason: None,
            initial_user_message: None,
            retry: None,
        })
    }

    #[test]
    fn a_0_1_answer_converts_like_the_same_0_2_answer() {
        let event = Event::new("PreToolUse");
        let out = hook_output(answer(), event.spec()).unwrap();
        assert_eq!(out.permission_decision, Some(PermissionDecision::Deny));
        assert_eq!(out.permission_decision_reason.as_deref(), Some("no"));
        assert!(!out.suppress_output && out.updated_permissions.is_empty());
    }

    #[test]
    fn new_answer_fields_reach_the_output() {
        let event = Event::new("PermissionRequest");
        let mut new = answer();
        new.updated_permissions = vec![r#"{"type":"setMode","mode":"plan"}"#.into()];
        new.interrupt = true;
        new.session_title = Some("t".into());
        new.suppress_output = true;
        new.worktree_path = Some("/w".into());
        let out = hook_output(new, event.spec()).unwrap();
        assert_eq!(
            out.updated_permissions,
            vec![json!({"type": "setMode", "mode": "plan"})]
        );
        assert!(out.interrupt && out.suppress_output);
        assert_eq!(out.session_title.as_deref(), Some("t"));
        assert_eq!(out.worktree_path.as_deref(), Some("/w"));
    }

    #[test]
    fn permission_updates_must_be_json_objects() {
        let event = Event::new("PermissionRequest");
        for bad in ["[1]", "not json", "\"text\""] {
            let mut new = answer();
            new.updated_permissions = vec![bad.into()];
            let err = hook_output(new, event.spec()).unwrap_err();
            assert!(err.contains("updated-permissions"), "{err}");
        }
    }

    #[test]
    fn the_0_2_record_leaves_the_raw_input_out() {
        let event = Event::new("PreToolUse");
        let input = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": "/p"});
        let small = hook_input(&event, &input);
        let raw = input.to_string();
        let wide = hook_input_v0_1(small.clone(), &input, &raw);
        assert_eq!(wide.raw, raw);
        assert_eq!(wide.tool_input.as_deref(), Some(r#"{"command":"ls"}"#));
        let base = input_size(&small);
        assert_eq!(
            input_size_v0_1(base, &wide),
            base + r#"{"command":"ls"}"#.len() + raw.len()
        );
        assert_eq!(
            small.tool_input_fields,
            vec![("command".into(), "ls".into())]
        );
    }
}

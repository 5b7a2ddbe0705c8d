//! `hookhost:hooks@0.2.0`, the current package and the core every older version adapts
//! onto: a small input record (the rest fetched on demand through the `input`
//! interface), every answer field of the JSON protocol, and the one conversion of a typed
//! answer into the [`output::HookAnswer`] every executor produces.

use serde_json::Value;

use super::super::host::HostState;
use crate::event::{EventSpec, Fields};
use crate::output::{self, PermissionDecision};
use crate::protocol::MAX_LIST_ENTRIES;

wasmtime::component::bindgen!({
    path: "wit/hooks@0.2.0",
    world: "hook",
    // Host functions may trap the guest (the `input` fetch budget).
    imports: { default: trappable },
    exports: { default: async },
});

pub use self::hookhost::hooks::host::{Host as HostImports, Level};
pub use self::hookhost::hooks::input::Host as InputImports;
pub use self::hookhost::hooks::types::Decision;

/// Builds the 0.2.0 input record from the typed input: the small common fields only.
pub(crate) fn hook_input(input: &crate::hook_input::HookInput) -> HookInput {
    let event = &input.event;
    let tool_input_fields = input
        .tool_input()
        .as_object()
        .map(|map| {
            map.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect()
        })
        .unwrap_or_default();
    let text = |value: Option<&str>| value.map(str::to_string);
    HookInput {
        event: event.catalog_name().to_string(),
        session_id: input.session.to_string(),
        // The working directory under the dialect's name (hygge `pwd`).
        cwd: input
            .cwd
            .as_deref()
            .map(|cwd| cwd.display().to_string())
            .unwrap_or_default(),
        permission_mode: text(input.permission_mode()),
        tool_name: text(input.tool_name.as_deref()),
        tool_input_fields,
        matcher_value: event.spec().matcher_value(&input.value),
        prompt: text(input.prompt()),
    }
}

/// Bytes of text the 0.2.0 record carries into the guest.
pub fn input_size(input: &HookInput) -> usize {
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

pub(super) fn opt_len(s: &Option<String>) -> usize {
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
pub fn answer_size(answer: &HookAnswer) -> usize {
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
pub fn hook_output(answer: HookAnswer, spec: &EventSpec) -> Result<output::HookAnswer, String> {
    let updated_permissions = capped("updated-permissions", answer.updated_permissions)?
        .into_iter()
        .map(
            |text| match json_field("updated-permissions", Some(text))? {
                Some(Value::Object(rule)) => Ok(Value::Object(rule)),
                _ => Err("`updated-permissions` entries must be JSON objects".to_string()),
            },
        )
        .collect::<Result<Vec<_>, String>>()?;
    let mut out = output::HookAnswer {
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
        ..output::HookAnswer::default()
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

impl HostImports for HostState {
    fn log(&mut self, level: Level, message: String) -> wasmtime::Result<()> {
        use Level as L;
        let level = match level {
            L::Trace => tracing::Level::TRACE,
            L::Debug => tracing::Level::DEBUG,
            L::Info => tracing::Level::INFO,
            L::Warn => tracing::Level::WARN,
            L::Error => tracing::Level::ERROR,
        };
        HostState::log(self, level, &message);
        Ok(())
    }

    fn config(&mut self, key: String) -> wasmtime::Result<Option<String>> {
        Ok(HostState::config(self, &key))
    }

    fn config_json(&mut self) -> wasmtime::Result<String> {
        Ok(self.hook.config_json.clone())
    }
}

impl InputImports for HostState {
    fn raw(&mut self) -> wasmtime::Result<String> {
        let raw = self.input.json().to_string();
        Ok(self.fetch(Some(raw))?.unwrap_or_default())
    }

    fn tool_input(&mut self) -> wasmtime::Result<Option<String>> {
        let text = self.input.tool_input_given().map(Value::to_string);
        self.fetch(text)
    }

    fn field(&mut self, name: String) -> wasmtime::Result<Option<String>> {
        let text = self.input.value.get(&name).map(Value::to_string);
        self.fetch(text)
    }
}

impl hookhost::hooks::types::Host for HostState {}

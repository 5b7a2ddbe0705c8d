//! `hookhost:hooks@0.1.0`, frozen: the whole input (and the tool input twice) in the
//! record. An adapter onto the 0.2.0 core: its input is widened from the 0.2.0 record, its
//! answer becomes a 0.2.0 answer (the newer fields left empty), so there is one
//! conversion of answers to maintain.

use serde_json::Value;

use super::super::host::HostState;
use super::v0_2;

wasmtime::component::bindgen!({
    path: "wit/hooks@0.1.0",
    world: "hook",
    exports: { default: async },
});

pub use self::hookhost::hooks::host::{Host as HostImports, Level};
pub use self::hookhost::hooks::types::Decision;

/// The 0.1.0 record: the 0.2.0 one plus the tool input JSON and the raw input.
pub(crate) fn hook_input(
    input: v0_2::HookInput,
    typed: &crate::hook_input::HookInput,
    raw: &str,
) -> HookInput {
    HookInput {
        event: input.event,
        session_id: input.session_id,
        cwd: input.cwd,
        permission_mode: input.permission_mode,
        tool_name: input.tool_name,
        tool_input_fields: input.tool_input_fields,
        tool_input: typed.tool_input_given().map(Value::to_string),
        matcher_value: input.matcher_value,
        prompt: input.prompt,
        raw: raw.to_string(),
    }
}

/// Bytes of text the 0.1.0 record carries into the guest: the 0.2.0 record's bytes
/// (`base`, from [`v0_2::input_size`]) plus the tool input JSON and `raw` it adds (so it holds
/// the tool input three ways: as fields, as JSON and inside `raw`).
pub fn input_size(base: usize, input: &HookInput) -> usize {
    base + v0_2::opt_len(&input.tool_input) + input.raw.len()
}

/// The 0.1.0 answer as a 0.2.0 answer: the fields 0.1.0 lacks stay empty.
pub fn answer_into_v0_2(answer: HookAnswer) -> v0_2::HookAnswer {
    use Decision as Old;
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

impl HostImports for HostState {
    fn log(&mut self, level: Level, message: String) {
        use Level as L;
        let level = match level {
            L::Trace => tracing::Level::TRACE,
            L::Debug => tracing::Level::DEBUG,
            L::Info => tracing::Level::INFO,
            L::Warn => tracing::Level::WARN,
            L::Error => tracing::Level::ERROR,
        };
        HostState::log(self, level, &message);
    }

    fn config(&mut self, key: String) -> Option<String> {
        HostState::config(self, &key)
    }

    fn config_json(&mut self) -> String {
        self.hook.config_json.clone()
    }
}

impl hookhost::hooks::types::Host for HostState {}

//! A hook written against the frozen `hookhost:hooks@0.1.0` package with plain
//! wit-bindgen, the way a guest built before 0.2.0 was: the host must keep running it.
//! It denies Bash commands containing `rm -rf`, and otherwise answers the raw input and
//! its `config` back as context (both travel in the 0.1.0 record / host API).
// The export glue wit-bindgen generates is `unsafe` (the SDK does this for its users).
#![allow(unsafe_code)]

/// The bindings wit-bindgen generates for the 0.1.0 world.
#[allow(missing_docs)]
mod bindings {
    wit_bindgen::generate!({
        path: "../../../wit/hooks@0.1.0",
        world: "hook",
    });
}

use self::bindings::hookhost::hooks::host::{Level, config_json, log};
use self::bindings::hookhost::hooks::types::Decision;
use self::bindings::{Guest, HookAnswer, HookInput};

struct CompatV01;

fn answer(decision: Decision, reason: Option<String>, context: Option<String>) -> HookAnswer {
    HookAnswer {
        decision,
        reason,
        additional_context: context,
        system_message: None,
        updated_input: None,
        updated_tool_output: None,
        watch_paths: Vec::new(),
        stop: false,
        stop_reason: None,
        initial_user_message: None,
        retry: None,
    }
}

impl Guest for CompatV01 {
    fn handle(input: HookInput) -> Result<HookAnswer, String> {
        log(Level::Info, "compat-v0-1 called");
        let command = input
            .tool_input_fields
            .iter()
            .find(|(key, _)| key == "command")
            .map(|(_, value)| value.as_str());
        if command.is_some_and(|c| c.contains("rm -rf")) {
            return Ok(answer(
                Decision::Deny,
                Some("0.1.0 guest: no rm -rf".into()),
                None,
            ));
        }
        let context = format!(
            "raw={} tool_input={} config={}",
            input.raw,
            input.tool_input.unwrap_or_default(),
            config_json()
        );
        Ok(answer(Decision::None, None, Some(context)))
    }
}

bindings::export!(CompatV01 with_types_in bindings);

//! The host's hook input as the CLI reads it (lossy UTF-8, surrogate repair, depth cap),
//! then converted into the Wasm input record.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = hookhost::internals::sniff_event(data);
    let Ok(value) = hookhost::internals::parse_input(data) else {
        return;
    };
    for event in ["PreToolUse", "FileChanged", "UserPromptSubmit", "Custom"] {
        let _ = hookhost::internals::input_record_size(event, &value);
    }
});

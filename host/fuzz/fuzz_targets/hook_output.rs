//! A hook's stdout (or HTTP body) read as an answer, on several events.
#![no_main]

use libfuzzer_sys::fuzz_target;

const EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PermissionRequest",
    "SessionStart",
    "Stop",
    "UserPromptSubmit",
    "CwdChanged",
    "PermissionDenied",
    "MyCustomEvent",
];

fuzz_target!(|data: &[u8]| {
    let Some((selector, rest)) = data.split_first() else {
        return;
    };
    let event = EVENTS[*selector as usize % EVENTS.len()];
    let text = String::from_utf8_lossy(rest);
    let _ = hookhost::internals::is_async_marker(&text);
    if !hookhost::internals::looks_like_json(&text) {
        return;
    }
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text)
        && let Ok(output) = hookhost::internals::parse_answer(&value, &hookhost::internals::Event::new(event))
    {
        let _ = output.blocks();
    }
});

//! The shell splitting behind `Bash(...)` rules: compound commands, substitutions,
//! quotes and assignments.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(parts) = hookhost::internals::split_commands(text) {
        for part in parts {
            let _ = hookhost::internals::split_commands(&part);
        }
    }
});

//! A settings file: every layer rule, handler type and limit parser on arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Inline `--settings` JSON goes through the same reader as a settings file.
    if !text.trim_start().starts_with('{') {
        return;
    }
    let options = hookhost::LoadOptions {
        settings: vec![text.to_string()],
        managed_path: Some("/nonexistent/hookhost-fuzz/managed.json".into()),
        ..Default::default()
    };
    let loaded = hookhost::load(&options);
    for diagnostic in &loaded.diagnostics {
        let _ = diagnostic.to_string();
    }
});

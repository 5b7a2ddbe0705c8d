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
    let mut options = hookhost::LoadOptions::default();
    options.settings = vec![text.to_string()];
    options.managed_path = Some("/nonexistent/hookhost-fuzz/managed.json".into());
    let loaded = hookhost::internals::load(&options);
    for diagnostic in &loaded.diagnostics {
        let _ = diagnostic.to_string();
    }
});

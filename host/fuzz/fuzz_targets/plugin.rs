//! A plugin bundle: `plugin.json` and `hooks/hooks.json` from one input, split at the
//! first NUL byte.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (manifest, hooks) = match data.iter().position(|b| *b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b""[..]),
    };
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let root = dir.path();
    let _ = std::fs::create_dir_all(root.join(".claude-plugin"));
    let _ = std::fs::create_dir_all(root.join("hooks"));
    let _ = std::fs::write(root.join(".claude-plugin/plugin.json"), manifest);
    if !hooks.is_empty() {
        let _ = std::fs::write(root.join("hooks/hooks.json"), hooks);
    }
    let mut specs = Vec::new();
    let mut diags = Vec::new();
    hookhost::internals::read_plugin(root, Some(root), Some(root), &mut specs, &mut diags);
});

//! Matcher and `if` rule parsing, then matching against a fixed tool call.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let input = serde_json::json!({"command": "git push origin main && rm -rf /tmp/x", "file_path": "/proj/src/main.rs", "url": "https://docs.example.com/a"});
    let ctx = hookhost::internals::RuleContext {
        tool_name: "Bash",
        tool_input: &input,
        cwd: Path::new("/proj"),
        home: Some(Path::new("/home/u")),
        base: Path::new("/proj"),
    };
    for event in ["PreToolUse", "FileChanged", "SessionStart"] {
        let spec = hookhost::internals::EventSpec::for_name(event);
        if let Ok(matcher) = hookhost::internals::Matcher::compile(Some(text), &spec) {
            let _ = matcher.matches(Some("Bash"), Some(&ctx));
            let _ = matcher.matches(Some(text), None);
        }
    }
    if let Ok(rule) = hookhost::internals::Rule::parse(text) {
        let _ = rule.matches(&ctx);
    }
});

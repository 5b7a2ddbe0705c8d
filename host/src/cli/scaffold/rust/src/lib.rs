//! {{name}}: a hookhost hook, built into a sandboxed WebAssembly component.
//!
//! Build: `cargo build --release` (→ `target/wasm32-wasip2/release/{{crate}}.wasm`);
//! test: `hookhost test`.

use hookhost_guest::{Answer, Hook, PreToolUse, export_hook};

/// The hook: one method per event it handles; the others answer "no decision".
struct Policy;

impl Hook for Policy {
    fn pre_tool_use(call: PreToolUse) -> Result<Answer, String> {
        match call.command() {
            Some(command) if command.contains("rm -rf /") => Ok(Answer::deny(
                "{{name}}: `rm -rf /` is not allowed; delete the specific paths you mean",
            )),
            _ => Ok(Answer::none()),
        }
    }
}

export_hook!(Policy);

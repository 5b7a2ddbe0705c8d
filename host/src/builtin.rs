//! The guards that come with hookhost: reviewed Wasm components built from
//! `examples-guest/` and carried inside the binary (`host/builtin/*.wasm`), named in any
//! hook file as `"component": "builtin:NAME"`. They load like any component — the same
//! sandbox, digest (shown by `list`, `check`, `explain` and the audit log, pinnable with
//! `sha256`) and artifact cache — need no Wasm toolchain, and are `failClosed` unless the
//! entry says otherwise. They are part of the binary the owner installed, so a signing
//! policy (`requireSignedWasm`) accepts them as it accepts the binary.

/// How a hook file names a builtin: `builtin:NAME`.
pub const PREFIX: &str = "builtin:";

/// One guard that comes with hookhost.
#[derive(Debug)]
#[non_exhaustive]
pub struct Builtin {
    /// Its name (`bash-guard`).
    pub name: &'static str,
    /// The event it guards.
    pub event: &'static str,
    /// The tools it judges (a matcher).
    pub matcher: &'static str,
    /// What it refuses, in one line.
    pub summary: &'static str,
    /// The component.
    pub(crate) bytes: &'static [u8],
}

static BUILTINS: &[Builtin] = &[
    Builtin {
        name: "bash-guard",
        event: "PreToolUse",
        matcher: "Bash",
        summary: "recursive deletes of the root, the home or the project (however named), a download run as code, `git reset --hard`, force pushes to protected branches (config `protectedBranches`), reading `.env` files, git aliases that hide the command",
        bytes: include_bytes!("../builtin/bash-guard.wasm"),
    },
    Builtin {
        name: "secrets",
        event: "PreToolUse",
        matcher: "Write|Edit|MultiEdit|NotebookEdit|Read|Grep|Glob|LS|Bash",
        summary: "secret files read by file tools or commands (`.env`, SSH keys, cloud and registry credentials; config `allow`), and cloud keys, private key blocks and API tokens written into files (redacted in the reason)",
        bytes: include_bytes!("../builtin/secrets.wasm"),
    },
];

impl Builtin {
    /// Every builtin.
    pub fn all() -> &'static [Builtin] {
        BUILTINS
    }

    /// The builtin a component reference (`builtin:NAME`) names.
    pub fn find(reference: &str) -> Option<&'static Builtin> {
        let name = reference.strip_prefix(PREFIX)?;
        BUILTINS.iter().find(|builtin| builtin.name == name)
    }

    /// Whether a component reference names a builtin (known or not).
    pub fn is_builtin(reference: &str) -> bool {
        reference.starts_with(PREFIX)
    }

    /// The reference that names it in a hook file.
    pub fn reference(&self) -> String {
        format!("{PREFIX}{}", self.name)
    }

    /// The names of every builtin, for a message.
    pub(crate) fn names() -> String {
        BUILTINS
            .iter()
            .map(|builtin| builtin.name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_builtin_is_a_component_found_by_its_reference() {
        for builtin in Builtin::all() {
            // A component's preamble: magic, then the component layer.
            assert_eq!(&builtin.bytes[..4], b"\0asm", "{}", builtin.name);
            assert_eq!(
                Builtin::find(&builtin.reference()).map(|b| b.name),
                Some(builtin.name)
            );
        }
        assert!(Builtin::find("builtin:nope").is_none());
        assert!(Builtin::is_builtin("builtin:nope"));
        assert!(!Builtin::is_builtin("./builtin:x.wasm"));
    }
}

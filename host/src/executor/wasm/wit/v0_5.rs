//! `hookhost:hooks@0.5.0`: 0.4.0 plus the `files` interface (a file tool call's target,
//! resolved past `..` and links) and the shell view's `script-file` pipelines (the
//! commands of a script file a command runs). Its `types` are 0.2.0's, as in 0.3.0 and
//! 0.4.0.

use crate::file_target::{Access, FileTarget};
use crate::shell::{self as view, ShellView};

use super::super::host::HostState;
use super::v0_2;

wasmtime::component::bindgen!({
    path: "wit/hooks@0.5.0",
    world: "hook",
    // Host functions may trap the guest (the `input` fetch budget).
    imports: { default: trappable },
    exports: { default: async },
    with: { "hookhost:hooks/types": super::v0_2::hookhost::hooks::types },
});

use self::hookhost::hooks::files as files_wit;
use self::hookhost::hooks::shell as wit;

host_and_input_as_v0_2!(self::hookhost::hooks);
shell_enums!(self::hookhost::hooks::shell, ScriptFile);

impl wit::Host for HostState {
    fn bash_command(&mut self) -> wasmtime::Result<Option<wit::Script>> {
        Ok(super::v0_3::bash_command_view(self)?.map(|view| pack(&view)))
    }

    fn parse(&mut self, text: String) -> wasmtime::Result<wit::Script> {
        Ok(pack(&super::v0_3::parse_view(self, &text)?))
    }
}

impl files_wit::Host for HostState {
    fn tool_target(&mut self) -> wasmtime::Result<Option<files_wit::FileTarget>> {
        let target = self.input.file_target.as_ref().map(file_target);
        if let Some(target) = &target {
            self.charge(target.path.len() + target.resolved_path.len())?;
        }
        Ok(target)
    }
}

/// The record of `target`.
fn file_target(target: &FileTarget) -> files_wit::FileTarget {
    files_wit::FileTarget {
        path: target.given.clone(),
        resolved_path: target.resolved.to_string_lossy().into_owned(),
        symlink_followed: target.symlink_followed,
        access: match target.access {
            Access::Writes => files_wit::Access::Writes,
            Access::Reads => files_wit::Access::Reads,
            Access::ReadsTree => files_wit::Access::ReadsTree,
        },
    }
}

packed_script!();

//! The rewritten shell command: the agent's command handed, as one quoted word, to the
//! launcher named by the owner's installation, with the envelope's file; the shell the
//! agent runs it in then moves to the folder the command ended in (Claude Code keeps the
//! working folder across calls) and ends with the command's exit status.
//!
//! Only what hookhost writes sits outside the quotes: the agent's text is one
//! single-quoted word, so nothing of it runs before the launcher applies the envelope.

use std::path::Path;

/// The shell variable that carries the folder the command ended in.
const CWD_VAR: &str = "__hookhost_cwd";
/// The shell variable that carries its status.
const STATUS_VAR: &str = "__hookhost_status";

/// `command` rewritten to run inside the envelope kept in `file`, through `launcher`
/// (hookhost's own binary); `keeps_folder`: the agent's shell keeps the folder a command
/// ended in (Claude Code), so the rewrite hands it back; otherwise the plain call (no
/// command substitution, which some agents refuse in a command).
pub(crate) fn wrap(launcher: &Path, file: &Path, command: &str, keeps_folder: bool) -> String {
    if !keeps_folder {
        return format!(
            "{} envelope run --envelope {} -- {}",
            quote(&launcher.to_string_lossy()),
            quote(&file.to_string_lossy()),
            quote(command)
        );
    }
    // fd 3 carries the final folder out of the command substitution; the launcher's own
    // stdout is the shell's (fd 4), so output streams as it comes.
    format!(
        "{{ {CWD_VAR}=$({launcher} envelope run --envelope {file} --cwd-fd 3 -- {command} 3>&1 1>&4 4>&-); }} 4>&1; {STATUS_VAR}=$?; [ -n \"${CWD_VAR}\" ] && cd -- \"${CWD_VAR}\"; unset {CWD_VAR}; eval \"unset {STATUS_VAR}; (exit ${STATUS_VAR})\"",
        launcher = quote(&launcher.to_string_lossy()),
        file = quote(&file.to_string_lossy()),
        command = quote(command),
    )
}

/// Whether `command` is already a rewrite of hookhost's (a hook's answer fed back).
pub(crate) fn imitates(command: &str) -> bool {
    command.contains(CWD_VAR) || command.contains("envelope run --envelope")
}

/// `text` as one single-quoted POSIX shell word.
pub(crate) fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> (String, i32) {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(script)
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.code().unwrap_or(-1),
        )
    }

    #[test]
    fn quoting_keeps_every_byte_one_word() {
        for text in ["it's", "a'b'c", "$(id) `id` $HOME \\ \" \n ;|&", ""] {
            let (out, _) = sh(&format!("printf %s {}", quote(text)));
            assert_eq!(out, text);
        }
    }

    #[test]
    fn the_agents_text_is_one_argument_after_the_double_dash() {
        let wrapped = wrap(
            Path::new("/opt/hook host/hookhost"),
            Path::new("/s/e.json"),
            "echo 'hi'; rm -rf / $(x)",
            true,
        );
        assert!(wrapped.contains("'/opt/hook host/hookhost' envelope run --envelope '/s/e.json' --cwd-fd 3 -- 'echo '\\''hi'\\''; rm -rf / $(x)'"), "{wrapped}");
        assert!(imitates(&wrapped));
        assert!(!imitates("cargo test"));
        let plain = wrap(Path::new("/h"), Path::new("/e.json"), "ls $(pwd)", false);
        assert_eq!(
            plain,
            "'/h' envelope run --envelope '/e.json' -- 'ls $(pwd)'"
        );
        assert!(imitates(&plain));
    }

    #[test]
    fn the_shell_moves_to_the_final_folder_and_keeps_the_status() {
        // A stand-in launcher: runs the command, reports its folder on fd 3.
        let dir = tempfile::tempdir().unwrap();
        let launcher = dir.path().join("launcher");
        std::fs::write(
            &launcher,
            "#!/bin/bash\nshift 7\nbash -c \"trap 'pwd -P >&3' EXIT; $1\"\n",
        )
        .unwrap();
        crate::platform::make_executable(&launcher).unwrap();
        let wrapped = wrap(
            &launcher,
            Path::new("/e.json"),
            "cd /usr && echo out; exit 3",
            true,
        );
        let (out, code) = sh(&format!("cd /; {wrapped}; echo \"status $? in $PWD\""));
        assert_eq!(out, "out\nstatus 3 in /usr\n");
        assert_eq!(code, 0);
        assert!(!out.contains("__hookhost"));
    }
}

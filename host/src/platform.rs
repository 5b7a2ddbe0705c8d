//! What differs between operating systems, in one place: one file per family
//! (`platform/unix.rs`, `platform/windows.rs`) behind one set of names. The rest of the
//! crate asks this module, never `cfg(unix)` itself.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;

/// A file's identity and the times that any change to it moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangeStamp {
    /// Device (volume) of the file.
    pub dev: u64,
    /// Inode (file index) on that device.
    pub ino: u64,
    /// Last modification, nanoseconds since the Unix epoch.
    pub modified_ns: i128,
    /// Last status change (contents, metadata, links), nanoseconds since the Unix epoch;
    /// no unprivileged process can set it.
    pub changed_ns: i128,
}

/// The identity of a file or directory: (device, inode) on Unix, (volume serial number,
/// file index) on Windows. Two open handles with one identity are the same file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId(pub u64, pub u64);

/// Standard input as an async reader, for a line protocol (`serve --stdio`).
pub type StdioIn = Box<dyn tokio::io::AsyncRead + Send + Unpin>;
/// Standard output as an async writer, for a line protocol (`serve --stdio`).
pub type StdioOut = Box<dyn tokio::io::AsyncWrite + Send + Unpin>;

/// Whether a hookhost process that runs hooks — one running `program`, the `hookhost`
/// binary — is this process's ancestor, so this process runs as one of its hooks: the
/// nearest such ancestor decides, and the case runner `hookhost test` runs `fire` for
/// its cases, not as a hook. Judged from the process tree, never from the environment (a
/// project's settings can set any variable for hook processes); where the tree is not
/// known (see [`nearest_ancestor_running`]), `false`.
pub fn started_by_hookhost(program: &std::path::Path) -> bool {
    nearest_ancestor_running(program).is_some_and(|subcommand| subcommand != b"test")
}

/// `N` bytes from the operating system's secure random source.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], String> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|err| format!("cannot get random bytes: {err}"))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn managed_files_are_absolute_and_hookhosts_sits_beside_claude_codes() {
        let claude = Path::new(CLAUDE_MANAGED_SETTINGS);
        let own = Path::new(OWN_MANAGED_HOOKS);
        assert!(claude.is_absolute() && own.is_absolute());
        assert_eq!(claude.file_name().unwrap(), "managed-settings.json");
        assert_eq!(
            claude.parent().unwrap().parent(),
            own.parent().unwrap().parent()
        );
    }

    #[test]
    #[cfg(target_os = "macos")]
    fn macos_keeps_managed_files_in_application_support() {
        assert!(CLAUDE_MANAGED_SETTINGS.starts_with("/Library/Application Support/ClaudeCode/"));
        assert_eq!(
            nearest_ancestor_running(std::path::Path::new("/bin/sh")),
            None
        );
    }

    #[test]
    #[cfg(windows)]
    fn windows_keeps_managed_files_in_program_data() {
        assert!(CLAUDE_MANAGED_SETTINGS.starts_with(r"C:\ProgramData\ClaudeCode\"));
        assert!(change_stamp(&std::fs::metadata(std::env::temp_dir()).unwrap()).is_none());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_thread_can_give_way_to_other_work() {
        // On a thread of its own: the policy stays with the thread that set it.
        let policy = std::thread::spawn(|| {
            assert!(give_way_to_other_work());
            let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
            // Field 41 (`policy`), counted after the command name's closing parenthesis.
            let after = &stat[stat.rfind(')').unwrap() + 2..];
            after.split(' ').nth(38).unwrap().to_string()
        })
        .join()
        .unwrap();
        assert_eq!(policy, "5", "SCHED_IDLE is policy 5");
    }

    #[test]
    fn random_bytes_differ() {
        assert_ne!(random_bytes::<16>().unwrap(), random_bytes::<16>().unwrap());
    }
}

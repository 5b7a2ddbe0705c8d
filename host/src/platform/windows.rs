//! Windows: file identity from the handle (volume serial number and file index), Job
//! Objects for process trees and the compile worker's memory, Git Bash for `sh` hooks.
//!
//! What Windows does not have, and what stands in for it:
//! - no owner and mode bits in `std`: files hookhost keeps live under the user's profile,
//!   whose ACL already keeps other users out, so the owner and "writable by others"
//!   checks pass (nothing to check), and symlinks in a grant's path are always refused
//!   (there is no root-owned link to trust);
//! - no status-change time: nothing is remembered by change stamp (see `cache::memo`);
//! - no process groups: a Job Object holds the hook and everything it starts.
//!
//! Compiled and linted in CI (`x86_64-pc-windows-gnu`); its tests run on a Windows runner.

use std::fs::{DirBuilder, File, Metadata, OpenOptions};
use std::io;
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::AsRawHandle;
use std::path::{Path, PathBuf};

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT,
    GetFileInformationByHandle,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOB_OBJECT_LIMIT_PROCESS_MEMORY, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JobObjectExtendedLimitInformation, SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{CREATE_NEW_PROCESS_GROUP, GetCurrentProcess};

use super::{ChangeStamp, FileId, StdioIn, StdioOut};

/// `None`: std exposes no status-change time on Windows (only creation, access and write
/// times, which a process can set), so nothing is remembered by change stamp.
pub fn change_stamp(_meta: &Metadata) -> Option<ChangeStamp> {
    None
}

/// The identity (volume serial number, file index) of an open file or directory.
#[expect(unsafe_code, reason = "GetFileInformationByHandle on a handle we own")]
pub fn file_id(file: &File) -> io::Result<FileId> {
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: the handle is open for the duration of the call; `info` is a valid out
    // pointer of the right type.
    let ok = unsafe { GetFileInformationByHandle(file.as_raw_handle() as HANDLE, &mut info) };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    let index = (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow);
    Ok(FileId(u64::from(info.dwVolumeSerialNumber), index))
}

/// The identity of the file or directory at `path` (opened with backup semantics, which
/// directories need).
pub fn path_id(path: &Path) -> io::Result<FileId> {
    let dir = OpenOptions::new()
        .read(true)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)?;
    file_id(&dir)
}

/// True: ownership is not checked on Windows (see the module doc).
pub fn owned_by_me(_meta: &Metadata) -> bool {
    true
}

/// False: mode bits do not exist on Windows (see the module doc).
pub fn others_may_write(_meta: &Metadata) -> bool {
    false
}

/// False: mode bits do not exist on Windows (see the module doc).
pub fn others_may_access(_meta: &Metadata) -> bool {
    false
}

/// For messages: Windows has attributes, not modes.
pub fn mode_text(meta: &Metadata) -> String {
    use std::os::windows::fs::MetadataExt;
    format!("attributes {:#x}", meta.file_attributes())
}

/// False: an elevated process is not treated apart.
pub fn is_superuser() -> bool {
    false
}

/// False: no symlink is trusted on Windows (see the module doc).
pub fn made_by_superuser(_meta: &Metadata) -> bool {
    false
}

/// Opens the link itself rather than what it points to (then refused as not a regular
/// file); Windows opens never block on a FIFO.
pub fn no_follow(options: &mut OpenOptions) -> &mut OpenOptions {
    options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
}

/// Nothing to add: Windows file opens do not block on a named pipe's peer.
pub fn non_blocking(options: &mut OpenOptions) -> &mut OpenOptions {
    options
}

/// Nothing to add: a new file inherits the ACL of its folder under the user's profile.
pub fn private_file(options: &mut OpenOptions) -> &mut OpenOptions {
    options
}

/// Nothing to add: a new folder inherits the ACL of its parent under the user's profile.
pub fn private_dir(builder: &mut DirBuilder) -> &mut DirBuilder {
    builder
}

/// Nothing to do: Windows has no executable bit.
pub fn make_executable(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// `None`: a new folder inherits its parent's ACL.
pub fn plain_folder_permissions() -> Option<std::fs::Permissions> {
    None
}

/// Where Claude Code reads its managed settings on Windows (a fixed path under
/// `ProgramData`, never from a variable a user can change).
pub const CLAUDE_MANAGED_SETTINGS: &str = r"C:\ProgramData\ClaudeCode\managed-settings.json";

/// hookhost's own managed hook file, beside Claude Code's managed settings.
pub const OWN_MANAGED_HOOKS: &str = r"C:\ProgramData\hookhost\hooks.json";

/// Nothing: Windows has no SIGPIPE (a write to a closed pipe is an error the caller sees).
pub fn quiet_when_output_closes() {}

/// This machine's name (`COMPUTERNAME`), for the fleet's resource attributes: a label, not
/// a credential (a hook process's environment can set it).
pub fn host_name() -> Option<String> {
    std::env::var("COMPUTERNAME")
        .ok()
        .filter(|name| !name.is_empty())
}

/// The account's profile folder (what Claude Code's `~/.claude` is under): `%USERPROFILE%`.
/// Unlike the Unix password database this is a variable the agent's host can set for a
/// hook process; `hookhost claude install` therefore writes `--home` and the folders into
/// the command it installs (SECURITY.md, "Threat model").
pub fn account_home() -> Option<PathBuf> {
    std::env::var_os("USERPROFILE").map(PathBuf::from)
}

/// Starts the command in a console process group of its own.
pub fn own_process_group(command: &mut tokio::process::Command) {
    command.creation_flags(CREATE_NEW_PROCESS_GROUP);
}

/// A started hook process and everything it starts: a Job Object that kills every
/// process in it when terminated or closed. Killed when dropped.
#[derive(Debug)]
pub struct ProcessTree {
    /// The job's handle (as an integer, so the tree can move between threads).
    job: Option<usize>,
}

impl ProcessTree {
    /// The tree of `child`: a new job with kill-on-close, `child` assigned to it. A
    /// process the child starts before the assignment is outside the job (a window of
    /// microseconds right after the spawn).
    #[expect(unsafe_code, reason = "Job Object calls on handles we own")]
    pub fn adopt(child: &tokio::process::Child) -> Self {
        let Some(process) = child.raw_handle() else {
            return Self { job: None };
        };
        // SAFETY: null attributes and name make an anonymous job; the handle is closed
        // in `kill`.
        let job = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if job.is_null() {
            return Self { job: None };
        }
        let _ = set_limits(job, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, 0);
        // SAFETY: both handles are open; a failure leaves the process outside the job.
        unsafe { AssignProcessToJobObject(job, process as HANDLE) };
        Self {
            job: Some(job as usize),
        }
    }

    /// Kills every process of the tree.
    #[expect(unsafe_code, reason = "Job Object calls on a handle we own")]
    pub fn kill(&mut self) {
        if let Some(job) = self.job.take() {
            // SAFETY: `job` is the open job handle made in `adopt`, closed once here.
            unsafe {
                TerminateJobObject(job as HANDLE, 1);
                CloseHandle(job as HANDLE);
            }
        }
    }
}

impl Drop for ProcessTree {
    fn drop(&mut self) {
        self.kill();
    }
}

#[expect(unsafe_code, reason = "SetInformationJobObject on a job handle we own")]
fn set_limits(job: HANDLE, flags: u32, process_memory: usize) -> io::Result<()> {
    let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
    info.BasicLimitInformation.LimitFlags = flags;
    info.ProcessMemoryLimit = process_memory;
    // SAFETY: `info` is the structure the information class names, with its size.
    let ok = unsafe {
        SetInformationJobObject(
            job,
            JobObjectExtendedLimitInformation,
            (&raw const info).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The Git Bash that runs `sh`/`bash` command hooks, as Claude Code finds it:
/// `CLAUDE_CODE_GIT_BASH_PATH`, else `Git\bin\bash.exe` under Program Files, else beside
/// the `git.exe` on `PATH`. `None` when there is none (the hook runs in PowerShell).
pub fn posix_shell(_bash: bool) -> Option<std::ffi::OsString> {
    git_bash().map(PathBuf::into_os_string)
}

fn git_bash() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CLAUDE_CODE_GIT_BASH_PATH").map(PathBuf::from)
        && path.is_file()
    {
        return Some(path);
    }
    let program_files = ["ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"]
        .into_iter()
        .filter_map(std::env::var_os)
        .map(|dir| PathBuf::from(dir).join("Git").join("bin").join("bash.exe"));
    let beside_git = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .filter(|dir| dir.join("git.exe").is_file())
        .filter_map(|dir| Some(dir.parent()?.join("bin").join("bash.exe")));
    program_files.chain(beside_git).find(|bash| bash.is_file())
}

/// Windows has no per-process descriptor limit of the Unix kind (handles are bounded by
/// memory): a generous fixed figure sizes the Wasm call slots.
pub fn raise_descriptor_limit() -> u64 {
    16_384
}

/// Caps this process's committed memory at `bytes`: the compile worker puts itself in a
/// Job Object with a process memory limit.
#[expect(unsafe_code, reason = "Job Object calls on handles we own")]
pub fn limit_own_memory(bytes: u64) -> Result<(), String> {
    // SAFETY: an anonymous job, kept open for the life of the process (the limit holds
    // while the job exists).
    let job = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if job.is_null() {
        return Err(io::Error::last_os_error().to_string());
    }
    let limit = usize::try_from(bytes).unwrap_or(usize::MAX);
    set_limits(job, JOB_OBJECT_LIMIT_PROCESS_MEMORY, limit).map_err(|e| e.to_string())?;
    // SAFETY: the pseudo-handle of this process and the open job.
    if unsafe { AssignProcessToJobObject(job, GetCurrentProcess()) } == 0 {
        return Err(io::Error::last_os_error().to_string());
    }
    Ok(())
}

/// The console events that stop a server: Ctrl-C, closing the console, shutdown.
#[derive(Debug)]
pub struct StopSignals {
    ctrl_c: tokio::signal::windows::CtrlC,
    close: tokio::signal::windows::CtrlClose,
    shutdown: tokio::signal::windows::CtrlShutdown,
}

impl StopSignals {
    /// Starts watching (call before announcing the server, so no event is missed).
    pub fn watch() -> io::Result<Self> {
        use tokio::signal::windows::{ctrl_c, ctrl_close, ctrl_shutdown};
        Ok(Self {
            ctrl_c: ctrl_c()?,
            close: ctrl_close()?,
            shutdown: ctrl_shutdown()?,
        })
    }

    /// Waits for the first of them.
    pub async fn recv(&mut self) {
        tokio::select! {
            _ = self.ctrl_c.recv() => {}
            _ = self.close.recv() => {}
            _ = self.shutdown.recv() => {}
        }
    }
}

/// The console event that asks a server to reload its configuration: Ctrl-Break (Windows
/// has no SIGHUP).
#[derive(Debug)]
pub struct ReloadSignal(tokio::signal::windows::CtrlBreak);

impl ReloadSignal {
    /// The name a reload reports.
    pub const NAME: &'static str = "Ctrl-Break";

    /// Starts watching.
    pub fn watch() -> io::Result<Self> {
        Ok(Self(tokio::signal::windows::ctrl_break()?))
    }

    /// Waits for the next one; `None` when no more can come.
    pub async fn recv(&mut self) -> Option<()> {
        self.0.recv().await
    }
}

/// `None`: the process tree is not read on Windows, so a hook's own `hookhost fire` runs
/// its hooks (see docs/platforms.md).
pub(super) fn nearest_ancestor_running(_program: &Path) -> Option<Vec<u8>> {
    None
}

/// Makes the calling thread give way to any other work (idle thread priority). Returns
/// whether the change took.
#[expect(unsafe_code, reason = "one Win32 call about the calling thread")]
pub fn give_way_to_other_work() -> bool {
    use windows_sys::Win32::System::Threading::{
        GetCurrentThread, SetThreadPriority, THREAD_PRIORITY_IDLE,
    };
    // SAFETY: the pseudo-handle of the calling thread needs no closing.
    unsafe { SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_IDLE) != 0 }
}

/// Standard input and output for a line protocol: tokio's (each read and write on a
/// blocking thread), and nothing to put back.
pub fn async_stdio() -> (StdioIn, StdioOut, StdioModes) {
    (
        Box::new(tokio::io::stdin()),
        Box::new(tokio::io::stdout()),
        StdioModes,
    )
}

/// Nothing to put back on Windows ([`async_stdio`] changes no mode).
pub struct StdioModes;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_tell_directories_apart() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let handle = OpenOptions::new()
            .read(true)
            .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
            .open(a.path())
            .unwrap();
        assert_eq!(file_id(&handle).unwrap(), path_id(a.path()).unwrap());
        assert_ne!(file_id(&handle).unwrap(), path_id(b.path()).unwrap());
    }

    #[tokio::test]
    async fn killing_the_tree_ends_the_process() {
        let mut command = tokio::process::Command::new("cmd");
        command.args(["/C", "ping -n 30 127.0.0.1 >NUL"]);
        own_process_group(&mut command);
        let mut child = command.spawn().unwrap();
        let mut tree = ProcessTree::adopt(&child);
        tree.kill();
        let status = tokio::time::timeout(std::time::Duration::from_secs(10), child.wait())
            .await
            .expect("the job's processes end")
            .unwrap();
        assert!(!status.success());
    }
}

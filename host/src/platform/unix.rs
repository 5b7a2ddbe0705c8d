//! Unix (Linux, macOS, the BSDs): ownership and mode bits, `O_NOFOLLOW`, process groups
//! and signals, `setrlimit`.

use std::fs::{DirBuilder, File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::{ChangeStamp, FileId, StdioIn, StdioOut};

/// The identity and change times of `meta`.
pub fn change_stamp(meta: &Metadata) -> Option<ChangeStamp> {
    let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
    Some(ChangeStamp {
        dev: meta.dev(),
        ino: meta.ino(),
        modified_ns: ns(meta.mtime(), meta.mtime_nsec()),
        changed_ns: ns(meta.ctime(), meta.ctime_nsec()),
    })
}

/// The identity (device, inode) of an open file or directory.
pub fn file_id(file: &File) -> io::Result<FileId> {
    let meta = file.metadata()?;
    Ok(FileId(meta.dev(), meta.ino()))
}

/// The identity of the file or directory at `path` (following symlinks).
pub fn path_id(path: &Path) -> io::Result<FileId> {
    let meta = std::fs::metadata(path)?;
    Ok(FileId(meta.dev(), meta.ino()))
}

/// How many names (hard links) the file has.
pub fn link_count(meta: &Metadata) -> u64 {
    meta.nlink()
}

/// True when this process's effective user owns the file.
pub fn owned_by_me(meta: &Metadata) -> bool {
    meta.uid() == nix::unistd::geteuid().as_raw()
}

/// True when group or others may write the file or folder.
pub fn others_may_write(meta: &Metadata) -> bool {
    meta.mode() & 0o022 != 0
}

/// True when group or others have any access at all (a secret must have none).
pub fn others_may_access(meta: &Metadata) -> bool {
    meta.mode() & 0o077 != 0
}

/// The permission bits, for messages (`mode 644`).
pub fn mode_text(meta: &Metadata) -> String {
    format!("mode {:o}", meta.permissions().mode() & 0o7777)
}

/// True when hookhost runs as the superuser (root).
pub fn is_superuser() -> bool {
    nix::unistd::geteuid().is_root()
}

/// True when a symlink was made by the superuser (whose links a guest cannot plant).
pub fn made_by_superuser(meta: &Metadata) -> bool {
    meta.uid() == 0
}

/// Opens never through a symlink at the last component, and never blocking on a FIFO.
pub fn no_follow(options: &mut OpenOptions) -> &mut OpenOptions {
    options
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits() | nix::fcntl::OFlag::O_NONBLOCK.bits())
}

/// Opens without blocking (a FIFO swapped in for a file cannot hang the caller).
pub fn non_blocking(options: &mut OpenOptions) -> &mut OpenOptions {
    options.custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
}

/// Creates files readable and writable by this user only (0600).
pub fn private_file(options: &mut OpenOptions) -> &mut OpenOptions {
    options.mode(0o600)
}

/// Creates folders usable by this user only (0700).
pub fn private_dir(builder: &mut DirBuilder) -> &mut DirBuilder {
    builder.mode(0o700)
}

/// Makes a file executable by everyone who may read it (a generated build script).
pub fn make_executable(path: &Path) -> io::Result<()> {
    let mut permissions = std::fs::metadata(path)?.permissions();
    permissions.set_mode(permissions.mode() | 0o111);
    std::fs::set_permissions(path, permissions)
}

/// The permissions `mkdir` gives a new folder (0777 less the umask).
pub fn plain_folder_permissions() -> Option<std::fs::Permissions> {
    Some(std::fs::Permissions::from_mode(0o777))
}

/// Where Claude Code reads its managed settings on this system (macOS:
/// `/Library/Application Support/ClaudeCode`; Linux and the rest: `/etc/claude-code`).
#[cfg(target_os = "macos")]
pub const CLAUDE_MANAGED_SETTINGS: &str =
    "/Library/Application Support/ClaudeCode/managed-settings.json";
/// Where Claude Code reads its managed settings on this system (macOS:
/// `/Library/Application Support/ClaudeCode`; Linux and the rest: `/etc/claude-code`).
#[cfg(not(target_os = "macos"))]
pub const CLAUDE_MANAGED_SETTINGS: &str = "/etc/claude-code/managed-settings.json";

/// hookhost's own managed hook file, beside Claude Code's managed settings.
#[cfg(target_os = "macos")]
pub const OWN_MANAGED_HOOKS: &str = "/Library/Application Support/hookhost/hooks.json";
/// hookhost's own managed hook file, beside Claude Code's managed settings.
#[cfg(not(target_os = "macos"))]
pub const OWN_MANAGED_HOOKS: &str = "/etc/hookhost/hooks.json";

/// This machine's name (the kernel's), for the fleet's resource attributes.
pub fn host_name() -> Option<String> {
    nix::unistd::gethostname()
        .ok()
        .and_then(|name| name.into_string().ok())
        .filter(|name| !name.is_empty())
}

/// The account's home folder: the password database's entry for the effective user
/// (never `$HOME`, which the agent's host sets for every hook process).
pub fn account_home() -> Option<std::path::PathBuf> {
    nix::unistd::User::from_uid(nix::unistd::Uid::effective())
        .ok()
        .flatten()
        .map(|user| user.dir)
}

/// Starts the command in a process group of its own, so its whole tree can be killed.
pub fn own_process_group(command: &mut tokio::process::Command) {
    command.process_group(0);
}

/// A started hook process and everything it starts: its process group. Killed when
/// dropped, unless already killed.
#[derive(Debug)]
pub struct ProcessTree(Option<Pid>);

impl ProcessTree {
    /// The tree of `child`, started with [`own_process_group`].
    pub fn adopt(child: &tokio::process::Child) -> Self {
        Self(
            child
                .id()
                .and_then(|id| i32::try_from(id).ok())
                .map(Pid::from_raw),
        )
    }

    /// Kills every process of the tree (SIGKILL to the group).
    pub fn kill(&mut self) {
        if let Some(pid) = self.0.take() {
            // ESRCH (the group is already gone) is fine.
            let _ = killpg(pid, Signal::SIGKILL);
        }
    }
}

impl Drop for ProcessTree {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The shell that runs `sh`/`bash` command hooks: `sh` or `bash` on `PATH`.
pub fn posix_shell(bash: bool) -> Option<std::ffi::OsString> {
    Some(if bash { "bash" } else { "sh" }.into())
}

/// Raises the soft open-files limit to the hard one and returns the soft limit now in
/// force.
pub fn raise_descriptor_limit() -> u64 {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok((soft, hard)) if soft < hard => match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
            Ok(()) => hard,
            Err(_) => soft,
        },
        Ok((soft, _)) => soft,
        Err(_) => 1024,
    }
}

/// Restores SIGPIPE's default disposition: the process ends quietly when the reader of
/// its output goes away (`hookhost list | head`), as `ls` does. Only for commands that
/// print and never write to a hook's pipe (a hook that closes its stdin must not kill
/// hookhost).
#[expect(
    unsafe_code,
    reason = "one libc call setting a signal's disposition, before any thread starts"
)]
pub fn quiet_when_output_closes() {
    // SAFETY: SIG_DFL is a valid disposition for SIGPIPE; no handler code is involved.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Makes the calling thread give way to any other work: on Linux it runs under
/// `SCHED_IDLE` (only on a core that would otherwise idle), on macOS in the background
/// QoS class; elsewhere nothing changes. Returns whether the change took.
#[cfg_attr(
    any(target_os = "linux", target_vendor = "apple"),
    expect(unsafe_code, reason = "one libc call about the calling thread")
)]
pub fn give_way_to_other_work() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `sched_param` is plain integers (musl's has more fields than glibc's),
        // for which all zeroes is a valid value: priority 0, as SCHED_IDLE wants.
        let param: libc::sched_param = unsafe { std::mem::zeroed() };
        // SAFETY: `param` is a valid `sched_param` for the duration of the call; pid 0
        // names the calling thread.
        unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) == 0 }
    }
    #[cfg(target_vendor = "apple")]
    {
        // SAFETY: plain values; it changes the calling thread only.
        unsafe {
            libc::pthread_set_qos_class_self_np(libc::qos_class_t::QOS_CLASS_BACKGROUND, 0) == 0
        }
    }
    #[cfg(not(any(target_os = "linux", target_vendor = "apple")))]
    {
        false
    }
}

/// Caps this process's address space at `bytes` (the compile worker limits itself).
/// Linux enforces the cap; macOS accepts it without enforcing it (the worker's time limit
/// still holds there).
pub fn limit_own_memory(bytes: u64) -> Result<(), String> {
    use nix::sys::resource::{Resource, setrlimit};
    setrlimit(Resource::RLIMIT_AS, bytes, bytes).map_err(|err| err.to_string())
}

/// The signals that stop a server: SIGTERM and SIGINT.
#[derive(Debug)]
pub struct StopSignals {
    terminate: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
}

impl StopSignals {
    /// Starts watching (call before announcing the server, so no signal is missed).
    pub fn watch() -> io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            terminate: signal(SignalKind::terminate())?,
            interrupt: signal(SignalKind::interrupt())?,
        })
    }

    /// Waits for the first of them.
    pub async fn recv(&mut self) {
        tokio::select! {
            _ = self.terminate.recv() => {}
            _ = self.interrupt.recv() => {}
        }
    }
}

/// The signal that asks a server to reload its configuration: SIGHUP.
#[derive(Debug)]
pub struct ReloadSignal(tokio::signal::unix::Signal);

impl ReloadSignal {
    /// The name a reload reports.
    pub const NAME: &'static str = "SIGHUP";

    /// Starts watching.
    pub fn watch() -> io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self(signal(SignalKind::hangup())?))
    }

    /// Waits for the next one; `None` when no more can come.
    pub async fn recv(&mut self) -> Option<()> {
        self.0.recv().await
    }
}

/// The first argument (the subcommand) of the nearest ancestor process that runs the
/// executable `program` (its resolved path), within 32 generations; `None` when there is
/// none or it cannot be known. Linux reads `/proc`; other Unix systems do not tell.
pub(super) fn nearest_ancestor_running(program: &Path) -> Option<Vec<u8>> {
    #[cfg(target_os = "linux")]
    {
        let me = program;
        let parent_of = |pid: u32| -> Option<u32> {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid …`: the command name may hold spaces and parentheses.
            let rest = &stat[stat.rfind(')')? + 1..];
            rest.split_whitespace().nth(1)?.parse().ok()
        };
        let mut pid = std::process::id();
        for _ in 0..32 {
            match parent_of(pid) {
                Some(parent) if parent > 1 => pid = parent,
                _ => return None,
            }
            if std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == me) {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                return Some(
                    cmdline
                        .split(|b| *b == 0)
                        .nth(1)
                        .unwrap_or_default()
                        .to_vec(),
                );
            }
        }
        None
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = program;
        None
    }
}

/// Standard input and output for a line protocol, and what puts them back as they were.
///
/// tokio's `stdin()` and `stdout()` hand every read and write to a blocking thread, so each
/// line costs two thread hops (and, on a VM, a wake-up of an idle core each). Where they are
/// pipes — a host that spawns `hookhost serve --stdio` talks to it over pipes — they are
/// put in non-blocking mode and driven by the runtime's poller instead: a line is read and
/// answered on one worker thread. Anything else (a terminal, a file, a socket) keeps tokio's
/// blocking path. Non-blocking mode belongs to the open pipe, which the parent may share:
/// dropping the returned [`StdioModes`] puts the previous mode back.
///
/// Call it inside a tokio runtime (the pipes register with its poller).
pub fn async_stdio() -> (StdioIn, StdioOut, StdioModes) {
    use std::os::fd::AsFd;
    let mut modes = StdioModes(Vec::new());
    let input = polled_reader(io::stdin().as_fd(), &mut modes)
        .unwrap_or_else(|| Box::new(tokio::io::stdin()));
    let output = polled_writer(io::stdout().as_fd(), &mut modes)
        .unwrap_or_else(|| Box::new(tokio::io::stdout()));
    (input, output, modes)
}

/// `fd` read through the runtime's poller, when it is a pipe open for reading (its mode
/// noted in `modes` first).
fn polled_reader(fd: std::os::fd::BorrowedFd<'_>, modes: &mut StdioModes) -> Option<StdioIn> {
    let pipe = tokio::net::unix::pipe::Receiver::from_owned_fd(modes.remember(fd)?).ok()?;
    Some(Box::new(pipe))
}

/// `fd` written through the runtime's poller, when it is a pipe open for writing (its
/// mode noted in `modes` first).
fn polled_writer(fd: std::os::fd::BorrowedFd<'_>, modes: &mut StdioModes) -> Option<StdioOut> {
    let pipe = tokio::net::unix::pipe::Sender::from_owned_fd(modes.remember(fd)?).ok()?;
    Some(Box::new(pipe))
}

/// The status flags of the descriptors [`async_stdio`] may switch to non-blocking mode, as
/// they were before; put back on drop.
pub struct StdioModes(Vec<(std::os::fd::OwnedFd, nix::fcntl::OFlag)>);

impl StdioModes {
    /// A duplicate of `fd` (sharing its open file) once its flags are noted; `None` when
    /// either cannot be had.
    fn remember(&mut self, fd: std::os::fd::BorrowedFd<'_>) -> Option<std::os::fd::OwnedFd> {
        use nix::fcntl::{FcntlArg, OFlag, fcntl};
        let flags = OFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFL).ok()?);
        self.0.push((fd.try_clone_to_owned().ok()?, flags));
        fd.try_clone_to_owned().ok()
    }
}

impl Drop for StdioModes {
    fn drop(&mut self) {
        use nix::fcntl::{FcntlArg, fcntl};
        for (fd, flags) in &self.0 {
            let _ = fcntl(fd, FcntlArg::F_SETFL(*flags));
        }
    }
}

#[cfg(test)]
mod stdio_tests {
    use super::*;
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    use std::os::fd::AsFd;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    fn non_blocking(fd: impl AsFd) -> bool {
        OFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFL).unwrap()).contains(OFlag::O_NONBLOCK)
    }

    #[tokio::test]
    async fn pipes_are_polled_and_their_mode_is_put_back() {
        let (read, write) = nix::unistd::pipe().unwrap();
        let mut modes = StdioModes(Vec::new());
        let reader = polled_reader(read.as_fd(), &mut modes).expect("a pipe is polled");
        let mut writer = polled_writer(write.as_fd(), &mut modes).expect("a pipe is polled");
        // The mode is the open pipe's: the caller's own descriptors see it too.
        assert!(non_blocking(&read) && non_blocking(&write));
        // More than a pipe holds, so the writer waits on the poller for room.
        let line = format!("{}\n", "x".repeat(1000));
        let sending = tokio::spawn(async move {
            for _ in 0..200 {
                writer.write_all(line.as_bytes()).await.unwrap();
            }
        });
        let mut lines = BufReader::new(reader).lines();
        for _ in 0..200 {
            assert_eq!(lines.next_line().await.unwrap().unwrap().len(), 1000);
        }
        sending.await.unwrap();
        drop(lines);
        drop(modes);
        assert!(!non_blocking(&read) && !non_blocking(&write));
    }

    #[tokio::test]
    async fn a_file_is_not_a_pipe_and_keeps_its_mode() {
        let file = tempfile::tempfile().unwrap();
        let mut modes = StdioModes(Vec::new());
        assert!(polled_reader(file.as_fd(), &mut modes).is_none());
        assert!(polled_writer(file.as_fd(), &mut modes).is_none());
        drop(modes);
        assert!(!non_blocking(&file));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn killing_the_tree_reaches_grandchildren() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("grandchild");
        let mut command = tokio::process::Command::new("sh");
        command
            .arg("-c")
            .arg(format!("sleep 30 & echo $! > {}; wait", pid_file.display()));
        own_process_group(&mut command);
        let mut child = command.spawn().unwrap();
        let mut tree = ProcessTree::adopt(&child);
        let grandchild = loop {
            if let Ok(text) = std::fs::read_to_string(&pid_file)
                && let Ok(pid) = text.trim().parse::<i32>()
            {
                break Pid::from_raw(pid);
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        };
        tree.kill();
        child.wait().await.unwrap();
        // The grandchild is gone too (a zombie of init at most, never running).
        let gone = (0..200).any(|_| {
            let alive = nix::sys::signal::kill(grandchild, None).is_ok()
                && !std::fs::read_to_string(format!("/proc/{grandchild}/stat"))
                    .is_ok_and(|s| s.contains(") Z"));
            if alive {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            !alive
        });
        assert!(gone, "grandchild {grandchild} survived");
    }

    #[test]
    fn private_files_and_folders_are_made_private() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("secret");
        private_file(OpenOptions::new().write(true).create_new(true))
            .open(&file)
            .unwrap();
        let meta = std::fs::metadata(&file).unwrap();
        assert!(owned_by_me(&meta) && !others_may_access(&meta));
        let sub = dir.path().join("sub");
        private_dir(&mut DirBuilder::new()).create(&sub).unwrap();
        assert!(!others_may_access(&std::fs::metadata(&sub).unwrap()));
        // no_follow refuses a symlink in the last place.
        std::os::unix::fs::symlink(&file, dir.path().join("link")).unwrap();
        assert!(
            no_follow(OpenOptions::new().read(true))
                .open(dir.path().join("link"))
                .is_err()
        );
    }

    #[test]
    fn identities_tell_directories_apart() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let handle = File::open(a.path()).unwrap();
        assert_eq!(file_id(&handle).unwrap(), path_id(a.path()).unwrap());
        assert_ne!(file_id(&handle).unwrap(), path_id(b.path()).unwrap());
    }
}

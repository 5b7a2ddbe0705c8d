//! One PID namespace per project, which every enclosed command of the project joins: the
//! agent's own processes (and every other process of the machine) are invisible inside —
//! `ps`, `/proc/PID/cmdline`, `kill` reach only the project's commands — while a server
//! one command leaves running (`npm run dev &`) stays visible to, and killable from, the
//! project's next command, as ordinary work needs.
//!
//! The namespace is held by its init, the *keeper*: started by the first launcher (a
//! fork, then an exec of the launcher's binary as [`KEEPER_NAME`], holding nothing of the
//! command's), it reaps what is left to it and ends once it has been alone for [`IDLE`]
//! while no launcher holds the project's lock. Its pid and start time are kept in
//! hookhost's state folder (read-only inside), so a recycled pid is never joined. For a
//! user other than root the keeper also owns the user namespace the commands' mount
//! namespaces are made in (the same ids inside).
//!
//! A launcher joins with `setns` on a pidfd (user and PID namespace at once) and forks:
//! its child, a member, goes on as the launcher and mounts a fresh procfs, which shows the
//! namespace's processes only; the parent waits outside ([`Outside`]).

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use nix::fcntl::{Flock, FlockArg};

use super::Envelope;

/// How long the keeper stays while no process but itself is in its namespace.
const IDLE: Duration = Duration::from_secs(30);

/// The project's lock, held shared while this launcher runs: the keeper does not end
/// while a launcher runs.
static JOINED: OnceLock<Flock<File>> = OnceLock::new();

/// The way out of [`enter`]: this process goes on as the launcher inside the project's
/// PID namespace, or waits outside for the one that does.
pub(crate) enum Member {
    /// A member of the namespace, in a private mount namespace of its own.
    Inside,
    /// Outside: [`Outside::wait_then_end`] waits for the member.
    Outside(Outside),
}

/// The process outside, whose child is the launcher inside.
pub(crate) struct Outside {
    /// The launcher inside.
    child: nix::unistd::Pid,
    /// Where the launcher inside says it settled what the command left behind.
    settled: OwnedFd,
}

/// The launcher inside's end of the pipe [`settled`] writes to (close-on-exec: no
/// command inherits it).
static SETTLED: OnceLock<OwnedFd> = OnceLock::new();

/// The fix named when a namespace cannot be made.
pub(crate) const FIX: &str = "Fix: allow unprivileged user namespaces (Ubuntu: the `kernel.apparmor_restrict_unprivileged_userns` sysctl, or an AppArmor profile for hookhost), or the owner sets `envelope.mode` to \"landlock-only\" (weaker: places inside writable folders stay writable, secret files there readable)";

/// Joins the PID namespace of `envelope`'s project (starting its keeper when none runs).
/// A process joining a PID namespace stays outside it (only its children are members,
/// and none of them may start threads), so this one forks: the child, a member, makes
/// its private mount namespace and goes on as the launcher ([`Member::Inside`]); this
/// process waits outside ([`Member::Outside`]), where no command can see or signal it.
/// Call it with one thread.
pub(crate) fn enter(envelope: &Envelope) -> Result<Member, String> {
    let fix = FIX;
    let folder = envelope.layers.with_file_name("keepers");
    crate::files::ensure_private_dir(&folder)?;
    let key = key_of(envelope);
    let lock_path = folder.join(format!("{key}.lock"));
    let pid_path = folder.join(format!("{key}.pid"));
    let lock = open_lock(&lock_path)?;
    let lock = Flock::lock(lock, FlockArg::LockExclusive)
        .map_err(|(_, err)| format!("cannot lock {} ({err})", lock_path.display()))?;
    let superuser = crate::platform::is_superuser();
    let mut namespaces = libc::CLONE_NEWPID;
    if !superuser {
        namespaces |= libc::CLONE_NEWUSER;
    }
    // A keeper that ended without its record removed (killed) is replaced.
    let joined = match running(&pid_path) {
        Some(pidfd) => join(&pidfd, namespaces),
        None => Err(std::io::Error::from_raw_os_error(libc::ESRCH)),
    };
    if joined.is_err() {
        let pidfd = start(&lock_path, &pid_path, fix)?;
        join(&pidfd, namespaces)
            .map_err(|err| format!("cannot join the project's PID namespace ({err}). {fix}"))?;
    }
    // Shared from now on: other launchers join beside this one; the keeper waits for all.
    lock.relock(FlockArg::LockShared)
        .map_err(|err| format!("cannot lock {} ({err})", lock_path.display()))?;
    let _ = JOINED.set(lock);
    let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|err| format!("cannot make a pipe ({err})"))?;
    #[expect(unsafe_code, reason = "fork in a process that has one thread")]
    // SAFETY: the launcher has one thread here.
    match unsafe { nix::unistd::fork() } {
        Ok(nix::unistd::ForkResult::Child) => {
            drop(read);
            let _ = SETTLED.set(write);
            nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNS)
                .map_err(|err| format!("cannot make a private mount namespace ({err}). {fix}"))?;
            Ok(Member::Inside)
        }
        Ok(nix::unistd::ForkResult::Parent { child }) => {
            drop(write);
            Ok(Member::Outside(Outside {
                child,
                settled: read,
            }))
        }
        Err(err) => Err(format!(
            "cannot fork into the project's PID namespace ({err})"
        )),
    }
}

/// Said by the launcher inside once it has settled what the command left behind.
pub(crate) fn settled() {
    if let Some(fd) = SETTLED.get() {
        let _ = nix::unistd::write(fd, b"s");
    }
}

/// The launcher inside, for [`forward`] (0 until it is forked).
static MEMBER: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// Passes a termination signal this process gets on to the launcher inside, and stays
/// to settle after it (an agent's harness ending a command that ran too long signals it).
extern "C" fn forward(signal: libc::c_int) {
    let member = MEMBER.load(std::sync::atomic::Ordering::Relaxed);
    if member > 0 {
        #[expect(unsafe_code, reason = "kill takes integers and is async-signal-safe")]
        // SAFETY: one kill call, allowed in a signal handler.
        unsafe {
            libc::kill(member, signal);
        }
    }
}

impl Outside {
    /// Waits for the launcher inside, letting the terminal's Ctrl-C reach it alone and
    /// passing `SIGTERM` and `SIGHUP` on to it; runs `lost` when it ended without saying it
    /// settled (a command or a harness killed it), then ends as it ended (its exit code,
    /// or its signal raised again).
    pub(crate) fn wait_then_end(self, lost: impl FnOnce()) -> ! {
        use nix::sys::signal::{SigHandler, Signal, raise, signal};
        use nix::sys::wait::{WaitStatus, waitpid};
        MEMBER.store(self.child.as_raw(), std::sync::atomic::Ordering::Relaxed);
        for (caught, handler) in [
            (Signal::SIGINT, SigHandler::SigIgn),
            (Signal::SIGQUIT, SigHandler::SigIgn),
            (Signal::SIGTERM, SigHandler::Handler(forward)),
            (Signal::SIGHUP, SigHandler::Handler(forward)),
        ] {
            #[expect(
                unsafe_code,
                reason = "the handler installed makes one async-signal-safe call"
            )]
            // SAFETY: SIG_IGN runs nothing; `forward` only loads an atomic and calls kill.
            let _ = unsafe { signal(caught, handler) };
        }
        let status = loop {
            match waitpid(self.child, None) {
                Ok(status @ (WaitStatus::Exited(..) | WaitStatus::Signaled(..))) => {
                    break Some(status);
                }
                Ok(_) | Err(nix::errno::Errno::EINTR) => continue,
                Err(_) => break None,
            }
        };
        let mut said = [0u8; 1];
        if !matches!(nix::unistd::read(&self.settled, &mut said), Ok(1)) {
            lost();
        }
        match status {
            Some(WaitStatus::Exited(_, code)) => std::process::exit(code),
            Some(WaitStatus::Signaled(_, raised, _)) => {
                #[expect(
                    unsafe_code,
                    reason = "the default action installs no handler that could run"
                )]
                // SAFETY: SIG_DFL installs no handler.
                let _ = unsafe { signal(raised, SigHandler::SigDfl) };
                let _ = raise(raised);
                std::process::exit(128 + raised as i32)
            }
            _ => std::process::exit(super::REFUSED),
        }
    }
}

/// Whether this process joined the project's PID namespace and made its private mount
/// namespace ([`enter`]): the mounts are made only there.
pub(crate) fn joined() -> bool {
    SETTLED.get().is_some()
}

/// Mounts a procfs of the joined PID namespace over `/proc`, read-only, in this
/// process's private mount namespace: it shows the namespace's processes only.
pub(crate) fn mount_proc() -> Result<(), String> {
    use nix::mount::MsFlags;
    let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC | MsFlags::MS_RDONLY;
    nix::mount::mount(Some("proc"), "/proc", Some("proc"), flags, None::<&str>)
        .map_err(|err| format!("cannot mount /proc for the project's PID namespace ({err})"))
}

/// The project's key: the user and the project (or, without one, the first writable
/// folder).
fn key_of(envelope: &Envelope) -> String {
    let place = envelope
        .project
        .as_deref()
        .or(envelope.writable.first().map(|place| place.path.as_path()))
        .unwrap_or(Path::new("/"));
    let mut bytes = nix::unistd::geteuid().as_raw().to_le_bytes().to_vec();
    bytes.extend_from_slice(place.as_os_str().as_encoded_bytes());
    super::digest_of(&bytes)[..16].to_string()
}

/// The lock file, opened through no link.
fn open_lock(path: &Path) -> Result<File, String> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    let file = crate::platform::no_follow(crate::platform::private_file(&mut options))
        .open(path)
        .map_err(|err| format!("cannot open {} ({err})", path.display()))?;
    let meta = file
        .metadata()
        .map_err(|err| format!("cannot read {} ({err})", path.display()))?;
    crate::files::check_private(&meta).map_err(|err| format!("{}: {err}", path.display()))?;
    Ok(file)
}

/// The keeper recorded in `pid_path`, when it still runs (a pidfd, taken before its start
/// time is compared, so the pid cannot be recycled in between).
fn running(pid_path: &Path) -> Option<OwnedFd> {
    let text = crate::files::read_regular(pid_path, 64).ok()?;
    let text = String::from_utf8(text).ok()?;
    let (pid, started) = text.trim().split_once(' ')?;
    let pid: i32 = pid.parse().ok()?;
    let pidfd = pidfd_open(pid)?;
    (start_time(pid)? == started.parse::<u64>().ok()?).then_some(pidfd)
}

/// Joins the `namespaces` of the process `pidfd` refers to.
fn join(pidfd: &OwnedFd, namespaces: libc::c_int) -> std::io::Result<()> {
    #[expect(unsafe_code, reason = "setns takes a descriptor and flags")]
    // SAFETY: `pidfd` is open; the flags name namespaces only.
    match unsafe { libc::setns(pidfd.as_raw_fd(), namespaces) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// `pidfd_open(2)`.
pub(crate) fn pidfd_open(pid: i32) -> Option<OwnedFd> {
    #[expect(unsafe_code, reason = "pidfd_open takes integers")]
    // SAFETY: integer arguments; a descriptor returned is this process's to own.
    unsafe {
        let fd = libc::syscall(libc::SYS_pidfd_open, pid, 0);
        i32::try_from(fd)
            .ok()
            .filter(|fd| *fd >= 0)
            .map(|fd| OwnedFd::from_raw_fd(fd))
    }
}

/// The start time of process `pid` (clock ticks since boot: `/proc/PID/stat` field 22).
fn start_time(pid: i32) -> Option<u64> {
    let stat = crate::files::read_regular(Path::new(&format!("/proc/{pid}/stat")), 4096).ok()?;
    let stat = String::from_utf8_lossy(&stat);
    // The command name (field 2) may hold spaces and parentheses: fields count after the
    // last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Starts the keeper (this process holds the project's lock exclusively), records it, and
/// returns its pidfd.
fn start(lock_path: &Path, pid_path: &Path, fix: &str) -> Result<OwnedFd, String> {
    use nix::sys::wait::waitpid;
    let (read, write) = nix::unistd::pipe().map_err(|err| format!("cannot make a pipe ({err})"))?;
    let superuser = crate::platform::is_superuser();
    let (uid, gid) = (nix::unistd::geteuid(), nix::unistd::getegid());
    let exe = std::env::current_exe().map_err(|err| {
        format!("cannot find the launcher's binary to keep the namespace ({err})")
    })?;
    let (lock_path, pid_path) = (lock_path.to_path_buf(), pid_path.to_path_buf());
    #[expect(unsafe_code, reason = "fork in a process that has one thread")]
    // SAFETY: the launcher has one thread here.
    match unsafe { nix::unistd::fork() } {
        Ok(nix::unistd::ForkResult::Child) => {
            drop(read);
            let code = match namespaces(superuser, uid.as_raw(), gid.as_raw()) {
                Err(err) => {
                    let _ = nix::unistd::write(&write, format!("!{err}").as_bytes());
                    1
                }
                Ok(()) => {
                    #[expect(unsafe_code, reason = "fork in a process that has one thread")]
                    // SAFETY: this child has one thread.
                    match unsafe { nix::unistd::fork() } {
                        Ok(nix::unistd::ForkResult::Child) => {
                            drop(write);
                            become_keeper(&exe, &lock_path, &pid_path)
                        }
                        Ok(nix::unistd::ForkResult::Parent { child }) => {
                            let _ =
                                nix::unistd::write(&write, child.as_raw().to_string().as_bytes());
                            0
                        }
                        Err(err) => {
                            let _ = nix::unistd::write(&write, format!("!{err}").as_bytes());
                            1
                        }
                    }
                }
            };
            #[expect(unsafe_code, reason = "_exit ends the forked child at once")]
            // SAFETY: ends this process without running the parent's exit handlers.
            unsafe {
                libc::_exit(code)
            }
        }
        Ok(nix::unistd::ForkResult::Parent { child }) => {
            drop(write);
            let mut said = String::new();
            let _ = File::from(read).read_to_string(&mut said);
            let _ = waitpid(child, None);
            if let Some(err) = said.strip_prefix('!') {
                return Err(format!(
                    "cannot make the project's PID namespace ({err}). {fix}"
                ));
            }
            let ended = "the project's PID namespace keeper ended as it started";
            let pid: i32 = said.trim().parse().map_err(|_| ended.to_string())?;
            let pidfd = pidfd_open(pid).ok_or(ended)?;
            let started = start_time(pid).ok_or(ended)?;
            crate::files::replace_private(&pid_path, format!("{pid} {started}\n").as_bytes())
                .map_err(|err| format!("cannot write {} ({err})", pid_path.display()))?;
            Ok(pidfd)
        }
        Err(err) => Err(format!("cannot fork the keeper ({err})")),
    }
}

/// The keeper's namespaces, made by its parent: a new PID namespace for its children (and,
/// for a user other than root, a user namespace mapping the same ids).
fn namespaces(superuser: bool, uid: u32, gid: u32) -> Result<(), String> {
    use nix::sched::{CloneFlags, unshare};
    let _ = nix::unistd::setsid();
    if superuser {
        return unshare(CloneFlags::CLONE_NEWPID).map_err(|err| err.to_string());
    }
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWPID).map_err(|err| err.to_string())?;
    for (file, text) in [
        ("/proc/self/setgroups", "deny".to_string()),
        ("/proc/self/uid_map", format!("{uid} {uid} 1")),
        ("/proc/self/gid_map", format!("{gid} {gid} 1")),
    ] {
        std::fs::write(file, text).map_err(|err| format!("cannot write {file} ({err})"))?;
    }
    Ok(())
}

/// The name the keeper runs under (its `argv[0]`), which the binaries it runs as
/// dispatch on.
pub const KEEPER_NAME: &str = "hookhost-keeper";

/// Whether this process was started as the keeper.
pub fn started_as_keeper(argv0: &str) -> bool {
    Path::new(argv0)
        .file_name()
        .is_some_and(|name| name == KEEPER_NAME)
}

/// PID 1 of the new namespace, just forked: holding nothing of the launcher's (its
/// descriptors closed but the lock's, its standard streams on `/dev/null`, at `/`), it
/// starts the launcher's binary again as [`KEEPER_NAME`] (so nothing of the launcher's
/// memory or command line is kept). Returns only when that fails.
fn become_keeper(exe: &Path, lock_path: &Path, pid_path: &Path) -> i32 {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let Ok(lock) = open_lock(lock_path) else {
        return 1;
    };
    let kept = lock.as_raw_fd();
    let arg = |text: &[u8]| CString::new(text).unwrap_or_default();
    let argv = [
        arg(KEEPER_NAME.as_bytes()),
        arg(b"--lock-fd"),
        arg(kept.to_string().as_bytes()),
        arg(b"--record"),
        arg(pid_path.as_os_str().as_bytes()),
    ];
    let exe = arg(exe.as_os_str().as_bytes());
    let null = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null");
    let _ = std::env::set_current_dir("/");
    #[expect(unsafe_code, reason = "fcntl, dup2 and close_range take integers")]
    // SAFETY: integer arguments; the descriptors closed are this process's own and none
    // is used after (the lock's is kept, open across the exec).
    unsafe {
        libc::fcntl(kept, libc::F_SETFD, 0);
        if let Ok(null) = &null {
            for fd in 0..3 {
                libc::dup2(null.as_raw_fd(), fd);
            }
        }
        let kept = kept as u32;
        if kept > 3 {
            libc::syscall(libc::SYS_close_range, 3u32, kept - 1, 0u32);
        }
        libc::syscall(libc::SYS_close_range, kept + 1, u32::MAX, 0u32);
    }
    let _ = nix::unistd::execv(&exe, &argv);
    1
}

/// The keeper's program (`hookhost-keeper --lock-fd N --record FILE`): PID 1 of the
/// project's namespace, or nothing (exit 2).
pub fn keeper_main(args: &[String]) -> i32 {
    let (Some("--lock-fd"), Some(fd), Some("--record"), Some(record), None) = (
        args.first().map(String::as_str),
        args.get(1).and_then(|fd| fd.parse::<i32>().ok()),
        args.get(2).map(String::as_str),
        args.get(3),
        args.get(4),
    ) else {
        return 2;
    };
    if nix::unistd::getpid().as_raw() != 1 || fd < 3 {
        return 2;
    }
    #[expect(
        unsafe_code,
        reason = "the descriptor was handed to this process across its exec and nothing else here owns it"
    )]
    // SAFETY: checked open below before any use; no other owner in this process.
    let lock = unsafe { File::from_raw_fd(fd) };
    if !lock.metadata().is_ok_and(|meta| meta.is_file()) {
        std::mem::forget(lock);
        return 2;
    }
    keep(&lock, Path::new(record))
}

/// The keeper's life: reaping what is left to it, until it has been alone for [`IDLE`]
/// and takes the lock exclusively.
fn keep(lock: &File, pid_path: &Path) -> i32 {
    #[expect(unsafe_code, reason = "prctl takes a name")]
    // SAFETY: the name is a NUL-terminated literal.
    unsafe {
        libc::prctl(libc::PR_SET_NAME, c"hookhost-keeper".as_ptr(), 0, 0, 0);
    }
    let _ = std::env::set_current_dir("/");
    // Its own view of the namespace, to count who is in it.
    let private = nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNS).is_ok()
        && nix::mount::mount(
            None::<&str>,
            "/",
            None::<&str>,
            nix::mount::MsFlags::MS_REC | nix::mount::MsFlags::MS_PRIVATE,
            None::<&str>,
        )
        .is_ok()
        && nix::mount::mount(
            Some("proc"),
            "/proc",
            Some("proc"),
            nix::mount::MsFlags::empty(),
            None::<&str>,
        )
        .is_ok();
    let mut alone_since: Option<Instant> = None;
    loop {
        while let Ok(status) = nix::sys::wait::waitpid(
            None::<nix::unistd::Pid>,
            Some(nix::sys::wait::WaitPidFlag::WNOHANG),
        ) {
            if status == nix::sys::wait::WaitStatus::StillAlive {
                break;
            }
        }
        // Without a view of its own it cannot tell, so it stays while anything is left
        // to it or the lock is held.
        let alone = private && members() <= 1;
        match (alone, alone_since) {
            (false, _) => alone_since = None,
            (true, None) => alone_since = Some(Instant::now()),
            (true, Some(since)) if since.elapsed() >= IDLE => {
                if let Ok(lock) = lock.try_clone()
                    && let Ok(_held) = Flock::lock(lock, FlockArg::LockExclusiveNonblock)
                    && members() <= 1
                {
                    // No launcher joins a namespace whose init is ending.
                    let _ = std::fs::remove_file(pid_path);
                    return 0;
                }
            }
            (true, Some(_)) => {}
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// The processes of the keeper's namespace (its own `/proc`).
fn members() -> usize {
    std::fs::read_dir("/proc").map_or(usize::MAX, |entries| {
        entries
            .flatten()
            .filter(|entry| {
                entry
                    .file_name()
                    .to_str()
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            })
            .count()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_time_counts_fields_after_the_command_name() {
        let own = start_time(std::process::id() as i32).unwrap();
        assert!(own > 0);
        assert_eq!(start_time(-1), None);
    }

    #[test]
    fn the_keeper_runs_only_as_pid_1_with_its_arguments() {
        assert!(started_as_keeper("/usr/bin/hookhost-keeper"));
        assert!(started_as_keeper(KEEPER_NAME));
        assert!(!started_as_keeper("hookhost"));
        // Started by hand (not PID 1 of a new namespace), or with other arguments: nothing.
        let args = ["--lock-fd", "3", "--record", "/tmp/x"].map(String::from);
        assert_eq!(keeper_main(&args), 2);
        assert_eq!(keeper_main(&args[..2]), 2);
    }

    #[test]
    fn a_record_of_a_process_that_is_gone_or_another_is_not_joined() {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("k.pid");
        let own = std::process::id() as i32;
        std::fs::write(&record, format!("{own} {}\n", start_time(own).unwrap())).unwrap();
        assert!(running(&record).is_some());
        // The pid recycled: another start time.
        std::fs::write(&record, format!("{own} 1\n")).unwrap();
        assert!(running(&record).is_none());
        std::fs::write(&record, "not a record").unwrap();
        assert!(running(&record).is_none());
    }
}

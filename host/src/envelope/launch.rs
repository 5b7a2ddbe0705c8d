//! `hookhost envelope run`: the launcher every rewritten shell command goes through. It
//! reads the envelope from the file the engine wrote (its name is its digest, checked),
//! looks for the secret files, applies the envelope to itself — so to everything it
//! starts — and runs the agent's command in bash: same environment, same stdin, stdout
//! and stderr, same exit status. The folder the command ended in goes back to the
//! agent's shell on `--cwd-fd`. Anything that keeps the envelope from being applied
//! refuses the command (exit 126) with the reason; it never runs unconfined.

#[cfg(unix)]
use std::io::Write;
use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::process::ExitStatus;

use super::Envelope;
#[cfg(target_os = "linux")]
use super::KernelSupport;
pub use super::session::Broker;

pub use super::REFUSED;

/// Largest envelope file read.
const MAX_ENVELOPE_FILE: u64 = 1 << 20;

/// One launch.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Launch {
    /// The envelope's file (`<state>/envelope/<digest>.json`).
    pub envelope: PathBuf,
    /// Where to write the folder the command ended in (the agent's shell reads it).
    pub cwd_fd: Option<i32>,
    /// The agent's command, as bash reads it.
    pub command: String,
    /// A whole session instead of one command: the broker's folder (its socket answers
    /// the session's hook processes, seen inside at the envelope folder's `session`) and
    /// the program with its arguments, started directly.
    pub session: Option<(PathBuf, Vec<String>)>,
    /// Folders a session may write besides the envelope's (the agent's own state
    /// folders, named by the user who starts the session).
    pub session_writable: Vec<PathBuf>,
}

impl Launch {
    /// A launch of `command` in the envelope kept in `envelope`.
    pub fn new(envelope: PathBuf, command: String) -> Launch {
        Launch {
            envelope,
            cwd_fd: None,
            command,
            session: None,
            session_writable: Vec::new(),
        }
    }
}

/// The envelope kept in `file`, refused unless its name is its digest.
pub fn load(file: &Path) -> Result<Envelope, String> {
    let bytes = crate::files::read_regular(file, MAX_ENVELOPE_FILE)
        .map_err(|err| format!("cannot read the envelope {}: {err}", file.display()))?;
    let digest = super::digest_of(&bytes);
    let named = file.file_stem().and_then(|stem| stem.to_str());
    if named != Some(digest.as_str()) {
        return Err(format!(
            "the envelope {} does not hold what its name says (its digest is {digest}); not used",
            file.display(),
        ));
    }
    serde_json::from_slice(&bytes)
        .map_err(|err| format!("the envelope {} is not one: {err}", file.display()))
}

/// Runs `launch` and returns the exit status for the process (the command's, or
/// [`REFUSED`]).
#[cfg(not(unix))]
pub fn run(_launch: &Launch) -> i32 {
    refuse("this system's kernel cannot enforce the envelope (Linux: Landlock; macOS: Seatbelt)")
}

/// Runs `launch` and returns the exit status for the process (the command's, or
/// [`REFUSED`]).
#[cfg(unix)]
pub fn run(launch: &Launch) -> i32 {
    let cwd_out = launch.cwd_fd.and_then(take_descriptor);
    let mut envelope = match load(&launch.envelope) {
        Ok(envelope) => envelope,
        Err(why) => return refuse(&why),
    };
    adjust_for(launch, &mut envelope);
    hold_path_folders(&mut envelope);
    let made = match make_held(&envelope) {
        Ok(made) => made,
        Err(why) => return refuse(&why),
    };
    // Opened before the mounts: what they hold for processes left behind is still
    // written through it.
    let git = envelope
        .project
        .as_deref()
        .and_then(super::git_config::GitConfigGuard::watch);
    if let (Some(git), Some(project)) = (&git, envelope.project.clone()) {
        for (path, why) in git.held(&project) {
            envelope.read_only.push(super::Place { path, why });
        }
    }
    // Only where the agent's shell keeps the folder does bash report it (a file it reads
    // at start, `BASH_ENV`).
    let rc = match cwd_out.as_ref().map(|_| RcFile::create()).transpose() {
        Ok(rc) => rc,
        Err(why) => return refuse(&why),
    };
    let broker = launch.session.as_ref().map(|(broker, _)| Broker {
        folder: broker.clone(),
        seen_at: super::session::folder_beside(&launch.envelope),
    });
    // The judge's helper asks the guards from the namespaces this process starts in:
    // forked before it leaves them (it has one thread still).
    #[cfg(target_os = "linux")]
    let helper = match (envelope.mode, envelope.judge.is_empty()) {
        (super::Mode::Enforce, false) => match super::judge::Helper::fork(&envelope) {
            Ok(helper) => Some(std::sync::Arc::new(helper)),
            Err(why) => return refuse(&why),
        },
        _ => None,
    };
    // Into the project's PID namespace: the launcher goes on in a child there; this
    // process waits outside, out of every command's reach, and settles the git config
    // itself when a command killed the launcher inside before it could.
    #[cfg(target_os = "linux")]
    if envelope.mode == super::Mode::Enforce {
        match super::keeper::enter(&envelope) {
            Err(why) => return refuse(&why),
            Ok(super::keeper::Member::Inside) => {}
            Ok(super::keeper::Member::Outside(outside)) => outside.wait_then_end(|| {
                if let Some(git) = &git {
                    for line in git.settle() {
                        eprintln!("hookhost envelope: {line}");
                    }
                }
            }),
        }
    }
    let ((mut command, confinement), unbound) =
        match enclosed_shell(&envelope, &launch.command, broker.as_ref()) {
            Ok(enclosed) => enclosed,
            Err(why) => return refuse(&why),
        };
    if let Some(rc) = &rc {
        command.env("BASH_ENV", &rc.path);
    }
    for name in &envelope.withhold_env {
        command.env_remove(name);
    }
    if let Some((_, argv)) = &launch.session {
        command = session_program(command, argv);
    }
    #[cfg(target_os = "linux")]
    let judge = match confinement {
        Some((confinement, covers)) => {
            let confinement = std::sync::Arc::new(confinement);
            let judge = match &helper {
                Some(helper) if !(covers.files.is_empty() && covers.folders.is_empty()) => {
                    match super::judge::Judge::start(helper.clone(), &covers, confinement.clone()) {
                        Ok(judge) => Some(judge),
                        Err(why) => return refuse(&why),
                    }
                }
                _ => None,
            };
            if let Some(git) = &git {
                git.uncover(&covers);
            }
            if let Some(judge) = &judge {
                command.env(super::judge::JUDGE_VAR, &judge.socket);
            }
            super::confine::attach(&mut command, confinement);
            judge
        }
        None => None,
    };
    #[cfg(not(target_os = "linux"))]
    let _ = confinement;
    adopt_orphans();
    let status = match wait_for(command, launch.session.is_some()) {
        Ok(status) => status,
        Err(err) => return refuse(&format!("cannot start bash: {err}")),
    };
    if let (Some(mut out), Some(cwd)) = (cwd_out, rc.as_ref().and_then(RcFile::final_folder)) {
        let _ = out.write_all(cwd.as_bytes());
    }
    drop(rc);
    #[cfg(target_os = "linux")]
    let is_judged = |pid: i32| {
        judge.as_ref().is_some_and(|judge| judge.runs(pid))
            || helper.as_ref().is_some_and(|helper| helper.pid == pid)
    };
    #[cfg(target_os = "linux")]
    if let Some(helper) = &helper {
        helper.end();
    }
    #[cfg(not(target_os = "linux"))]
    let is_judged = |_: i32| false;
    settle(git.as_ref(), &made, &is_judged);
    #[cfg(target_os = "linux")]
    super::keeper::settled();
    remove_created(&unbound);
    if !status.success() && launch.session.is_none() {
        note(&envelope);
    }
    exit_code(status)
}

/// Read-only places that did not exist when the command started (so no mount could
/// hold them) and exist now: a file the command created where no command may write (a
/// hook settings file in a folder the project did not have) is removed, and said so.
#[cfg(unix)]
fn remove_created(unbound: &[super::Place]) {
    for place in unbound {
        let Ok(meta) = std::fs::symlink_metadata(&place.path) else {
            continue;
        };
        let removed = !meta.is_dir() && std::fs::remove_file(&place.path).is_ok();
        eprintln!(
            "hookhost envelope: the command created {} ({}), which no command may write; {}",
            place.path.display(),
            place.why,
            if removed {
                "removed it"
            } else {
                "it is a folder and was left: remove it"
            }
        );
    }
}

#[cfg(unix)]
/// The bash that runs `command` inside `envelope` — the mounts made (Linux; the
/// confinement its process takes on between fork and exec returned with it) or the
/// profile named (macOS) — and the read-only places the kernel could not bind (they did
/// not exist).
fn enclosed_shell(
    envelope: &Envelope,
    command: &str,
    broker: Option<&Broker>,
) -> Result<(Enclosed, Vec<super::Place>), String> {
    let bash = if Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "bash"
    };
    #[cfg(target_os = "linux")]
    {
        let secrets: Vec<PathBuf> = match envelope.mode {
            super::Mode::Enforce => super::scan::secrets(envelope)?
                .into_iter()
                .map(|secret| secret.path)
                .collect(),
            super::Mode::LandlockOnly => Vec::new(),
        };
        let sockets = match envelope.mode {
            super::Mode::Enforce => {
                super::linux::listening_sockets(&kept_sockets(envelope, broker))
            }
            super::Mode::LandlockOnly => Vec::new(),
        };
        let git = match (envelope.mode, envelope.judge.is_empty()) {
            (super::Mode::Enforce, false) => {
                super::judge::judged_places(&envelope.judge, std::env::var_os("PATH").as_deref())
            }
            _ => super::judge::Covers::default(),
        };
        let broker = broker.map(|broker| (broker.folder.as_path(), broker.seen_at.as_path()));
        let (plan, confinement) = super::linux::apply(
            envelope,
            &secrets,
            &sockets,
            git,
            broker,
            KernelSupport::probe(),
        )?;
        let mut shell = std::process::Command::new(bash);
        shell.arg("-c").arg(command);
        Ok(((shell, Some((confinement, plan.git))), plan.unenforced))
    }
    #[cfg(target_os = "macos")]
    {
        if broker.is_some() {
            return Err("a whole session inside the envelope needs Linux (a private mount namespace shows the session its broker)".into());
        }
        let secrets = super::scan::secrets(envelope)?;
        let profile = super::seatbelt::profile(envelope, &secrets);
        let mut shell = std::process::Command::new("/usr/bin/sandbox-exec");
        shell
            .arg("-p")
            .arg(profile)
            .arg(bash)
            .arg("-c")
            .arg(command);
        // Seatbelt denies by path, whether the place exists or not.
        Ok(((shell, None), Vec::new()))
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = (envelope, command, bash, broker);
        Err(
            "this system's kernel cannot enforce the envelope (Linux: Landlock; macOS: Seatbelt)"
                .into(),
        )
    }
}

#[cfg(unix)]
/// `envelope` for this launch: a session's folders its user names writable (a held one
/// named opened), or a command's logins withheld.
fn adjust_for(launch: &Launch, envelope: &mut Envelope) {
    if launch.session.is_some() {
        envelope
            .writable
            .extend(launch.session_writable.iter().map(|path| super::Place {
                path: path.clone(),
                why: "the session's (hookhost envelope session --writable)".into(),
            }));
        // A held folder the session's user names writable (an agent's own project
        // folder it writes itself: OpenCode's `.opencode/`) is theirs to open; what
        // is held inside it stays held.
        envelope
            .read_only
            .retain(|place| !launch.session_writable.contains(&place.path));
    } else {
        // A whole session's agent needs its own login; a command does not.
        let logins = std::mem::take(&mut envelope.logins);
        envelope.unreadable.extend(logins);
    }
}

/// What the command's process takes on between fork and exec (nothing on macOS, whose
/// profile `sandbox-exec` applies).
#[cfg(target_os = "linux")]
type Confinement = (super::confine::Confinement, super::judge::Covers);
/// What the command's process takes on between fork and exec (nothing on macOS, whose
/// profile `sandbox-exec` applies).
#[cfg(all(unix, not(target_os = "linux")))]
type Confinement = ();

/// The command ready to start, with what its process takes on between fork and exec.
#[cfg(unix)]
type Enclosed = (std::process::Command, Option<Confinement>);

#[cfg(target_os = "linux")]
/// The sockets a command may still reach: the owner's, the session's broker, the
/// project's own (the agent's work), the ssh-agent's when the owner lets it through.
fn kept_sockets(envelope: &Envelope, broker: Option<&Broker>) -> Vec<PathBuf> {
    let mut kept = envelope.sockets.clone();
    kept.extend(envelope.project.iter().cloned());
    if let Some(broker) = broker {
        kept.push(broker.folder.clone());
        kept.push(broker.seen_at.clone());
    }
    if envelope.ssh_agent
        && let Some(socket) = std::env::var_os("SSH_AUTH_SOCK")
    {
        kept.push(PathBuf::from(socket));
    }
    kept
}

#[cfg(unix)]
/// The folders on the command's `PATH` inside a writable root but outside the project
/// held read-only (what is planted there runs at the user's next command outside).
fn hold_path_folders(envelope: &mut Envelope) {
    let Some(path) = std::env::var_os("PATH") else {
        return;
    };
    let inside = |dir: &Path| {
        envelope
            .writable
            .iter()
            .chain(&envelope.layered)
            .any(|root| dir.starts_with(&root.path))
            && !envelope
                .project
                .as_ref()
                .is_some_and(|p| dir.starts_with(p))
    };
    let held: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .filter(|dir| inside(dir))
        .take(super::later::MAX_PATH_ENTRIES)
        .collect();
    envelope
        .read_only
        .extend(held.into_iter().map(|path| super::Place {
            path,
            why: "a folder on the command's PATH (what is planted there runs outside)".into(),
        }));
}

#[cfg(unix)]
/// Makes the held places of `envelope` that are missing (empty folders, an empty
/// `.git/info/attributes`), so the mounts hold them and nothing left running creates them
/// later; those in the git dir only where the project has one. What it made, parents
/// first, for [`remove_made`].
fn make_held(envelope: &Envelope) -> Result<Vec<PathBuf>, String> {
    let mut made = Vec::new();
    let Some(project) = &envelope.project else {
        return Ok(made);
    };
    let git_dir = project.join(".git").is_dir();
    for path in &envelope.made {
        if std::fs::symlink_metadata(path).is_ok() || !path.starts_with(project) {
            continue;
        }
        if path.starts_with(project.join(".git")) && !git_dir {
            continue;
        }
        let is_file = path.file_name().is_some_and(|n| n == "attributes");
        let folder = if is_file {
            path.parent()
        } else {
            Some(path.as_path())
        };
        let mut missing: Vec<&Path> = folder
            .into_iter()
            .flat_map(Path::ancestors)
            .take_while(|dir| dir.starts_with(project) && std::fs::symlink_metadata(dir).is_err())
            .collect();
        missing.reverse();
        let mut step = || -> std::io::Result<()> {
            for dir in &missing {
                std::fs::create_dir(dir)?;
                made.push(dir.to_path_buf());
            }
            if is_file {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(path)?;
                made.push(path.clone());
            }
            Ok(())
        };
        match step() {
            Ok(()) => {}
            // What this process cannot make, the command (with less) cannot either.
            Err(err)
                if matches!(
                    err.kind(),
                    std::io::ErrorKind::PermissionDenied
                        | std::io::ErrorKind::ReadOnlyFilesystem
                        | std::io::ErrorKind::AlreadyExists
                ) => {}
            Err(err) => {
                return Err(format!("cannot make {} to hold it ({err})", path.display()));
            }
        }
    }
    Ok(made)
}

#[cfg(unix)]
/// Removes what [`make_held`] made, where it is still empty, once no process the command
/// started is left to create anything there: the project is left as it was found.
fn remove_made(made: &[PathBuf]) {
    for path in made.iter().rev() {
        // Held by a mount in this namespace (no process of the command is left in it).
        #[cfg(target_os = "linux")]
        let _ = nix::mount::umount2(path.as_path(), nix::mount::MntFlags::MNT_DETACH);
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let _ = std::fs::remove_dir(path);
            }
            Ok(meta) if meta.is_file() && meta.len() == 0 => {
                let _ = std::fs::remove_file(path);
            }
            _ => {}
        }
    }
}

#[cfg(unix)]
/// Processes the command leaves running become this launcher's children when their
/// parent ends (Linux), so it knows whether any are left.
fn adopt_orphans() {
    #[cfg(target_os = "linux")]
    #[expect(unsafe_code, reason = "prctl(PR_SET_CHILD_SUBREAPER) takes integers")]
    // SAFETY: integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

#[cfg(target_os = "linux")]
/// Whether processes the command started are still running (zombies reaped on the way,
/// but a real git the judge ran, which its thread waits for: `judged`). The launcher is
/// their subreaper (in the project's PID namespace, a member).
fn left_running(judged: &dyn Fn(i32) -> bool) -> bool {
    use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid, waitpid};
    loop {
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
        match waitid(Id::All, flags) {
            Ok(WaitStatus::StillAlive) => return true,
            Ok(status) => match status.pid() {
                Some(pid) if judged(pid.as_raw()) => return true,
                Some(pid) => {
                    let _ = waitpid(pid, None);
                }
                None => return true,
            },
            Err(_) => return false,
        }
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
/// Whether processes the command started are still running (zombies reaped on the way;
/// no judge runs here, so `judged` names none).
fn left_running(judged: &dyn Fn(i32) -> bool) -> bool {
    use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
    let _ = judged;
    loop {
        match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => return true,
            Ok(_) => continue,
            Err(_) => return false,
        }
    }
}

#[cfg(unix)]
/// When the command has ended: the git config it changed put back
/// ([`super::git_config`]) and, when it left processes running (`judged` tells the real
/// gits the judge runs from them), the files held read-only for those (Linux: the
/// launcher is in the command's mount namespace, outside its Landlock domain) and checked
/// again; otherwise what [`make_held`] made removed.
fn settle(
    git: Option<&super::git_config::GitConfigGuard>,
    made: &[PathBuf],
    judged: &dyn Fn(i32) -> bool,
) {
    let lingering = left_running(judged);
    if !lingering {
        remove_made(made);
    }
    let Some(git) = git else {
        return;
    };
    let mut said = git.settle();
    if lingering {
        #[cfg(target_os = "linux")]
        if let Err(why) = super::linux::hold(&git.hold()) {
            said.push(format!(
                "{}: cannot be held for the processes the command left running ({why})",
                git.path().display()
            ));
        }
        said.extend(git.settle());
    }
    for line in said {
        eprintln!("hookhost envelope: {line}");
    }
}

#[cfg(unix)]
/// Starts `command` and waits for it. A session's launcher, in the terminal's foreground
/// group beside the agent, lets the agent alone take Ctrl-C (it interrupts a turn with
/// it) rather than end under it.
fn wait_for(mut command: std::process::Command, session: bool) -> std::io::Result<ExitStatus> {
    let mut child = command.spawn()?;
    if session {
        use nix::sys::signal::{SigHandler, Signal, signal};
        for interrupt in [Signal::SIGINT, Signal::SIGQUIT] {
            #[expect(
                unsafe_code,
                reason = "setting a signal to be ignored installs no handler that could run"
            )]
            // SAFETY: SIG_IGN installs no handler, so no code runs on a signal, whatever
            // thread (the git judge's) is running.
            let _ = unsafe { signal(interrupt, SigHandler::SigIgn) };
        }
    }
    child.wait()
}

#[cfg(unix)]
/// `shell` turned into a start of `argv` itself, with the same environment and sandbox
/// wrapper (macOS has none for sessions).
fn session_program(shell: std::process::Command, argv: &[String]) -> std::process::Command {
    let mut program = std::process::Command::new(&argv[0]);
    program.args(&argv[1..]);
    for (key, value) in shell.get_envs() {
        match value {
            Some(value) => program.env(key, value),
            None => program.env_remove(key),
        };
    }
    program
}

/// Says why the command did not run, and returns [`REFUSED`].
fn refuse(why: &str) -> i32 {
    eprintln!("hookhost envelope: the command was not run: {why}");
    REFUSED
}

#[cfg(unix)]
/// After a failing command: one line that says where it ran, so a `Permission denied`
/// or `Read-only file system` above reads as the envelope's.
fn note(envelope: &Envelope) {
    let writable: Vec<String> = envelope
        .writable
        .iter()
        .take(4)
        .map(|place| place.path.display().to_string())
        .collect();
    eprintln!(
        "hookhost envelope {}: this command ran inside the owner's envelope: writes outside {}{} and to hook files, .git/hooks and protected paths are refused by the kernel (Permission denied, Read-only file system), and secret files read as a notice. `hookhost envelope show` prints it whole.",
        &envelope.digest()[..12],
        writable.join(", "),
        if envelope.writable.len() > 4 {
            ", …"
        } else {
            ""
        }
    );
}

#[cfg(unix)]
/// The process exit status for `status`: the command's code, or its signal raised again.
fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return code;
    }
    if let Some(signal) = status.signal() {
        if let Ok(signal) = nix::sys::signal::Signal::try_from(signal) {
            let _ = nix::sys::signal::kill(nix::unistd::getpid(), signal);
        }
        return 128 + signal;
    }
    1
}

#[cfg(unix)]
/// The descriptor the agent's shell passed, owned here and closed on exec (a server the
/// command leaves running must not hold the shell's command substitution open).
fn take_descriptor(fd: i32) -> Option<std::fs::File> {
    use std::os::fd::FromRawFd;
    if fd < 3 || std::fs::metadata(format!("/dev/fd/{fd}")).is_err() {
        return None;
    }
    #[expect(
        unsafe_code,
        reason = "the descriptor was handed to this process on its command line and nothing else here owns it"
    )]
    // SAFETY: `fd` is open (checked above) and no other owner exists in this process.
    let file = unsafe { std::fs::File::from_raw_fd(fd) };
    nix::fcntl::fcntl(
        &file,
        nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
    )
    .ok()?;
    Some(file)
}

#[cfg(unix)]
/// The file bash reads at start (`BASH_ENV`) and overwrites at exit with the folder it
/// ended in; removed when dropped.
struct RcFile {
    path: PathBuf,
    text: String,
}

#[cfg(unix)]
impl RcFile {
    /// A new private file in `/tmp` (a writable root of every envelope).
    fn create() -> Result<RcFile, String> {
        let path = crate::files::unused_temp_path(".hookhost-envelope-")?;
        // What a user's own BASH_ENV asked for still happens.
        let own = std::env::var("BASH_ENV")
            .ok()
            .filter(|value| !value.is_empty());
        let restore = match own {
            Some(own) => format!("export BASH_ENV={q}; . {q}\n", q = super::wrap::quote(&own)),
            None => "unset BASH_ENV\n".to_string(),
        };
        let text = format!(
            "{restore}trap 'builtin pwd -P >| {}' EXIT\n",
            path.display()
        );
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        let mut file = crate::platform::no_follow(crate::platform::private_file(&mut options))
            .open(&path)
            .map_err(|err| format!("cannot create {}: {err}", path.display()))?;
        file.write_all(text.as_bytes())
            .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
        Ok(RcFile { path, text })
    }

    /// The folder bash ended in, when its exit trap ran.
    fn final_folder(&self) -> Option<String> {
        let bytes = crate::files::read_regular(&self.path, 64 << 10).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        if text == self.text {
            return None;
        }
        let folder = text.strip_suffix('\n').unwrap_or(&text).to_string();
        Path::new(&folder).is_dir().then_some(folder)
    }
}

#[cfg(unix)]
impl Drop for RcFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

//! The guarded programs judged where they run: a `git push --force` a Makefile or a
//! script runs inside the envelope is refused like the typed one. In the command's mount
//! namespace every real `git` (the binaries on the standard places and the command's
//! `PATH`, and git's own exec folders, whose dashed names are links to it) is covered by
//! the launcher's own binary; started as `git`, that binary is a thin client
//! ([`client_main`]) that hands its arguments, folder, environment and standard streams to
//! the launcher over a socket. The launcher — outside the Landlock domain — asks the
//! owner's guards about the call as the Bash call `git ARGS` (`hookhost fire PreToolUse`,
//! so the same policy, checks and audit as a typed one), and runs the real git only when
//! they allow it: in a child that leaves the covers behind in a mount namespace of its own
//! and then takes on the command's confinement, so the real binary is reachable only
//! through the judge (no process inside can take a cover off: Landlock forbids it).
//!
//! What this does not stop: a program that speaks git's protocol itself (a library, a
//! client downloaded by the command). The network is the line there.

use std::collections::HashSet;
use std::ffi::CString;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::Envelope;
use super::confine::Confinement;

/// The variable that names the judge's socket to the client.
pub const JUDGE_VAR: &str = "HOOKHOST_JUDGE";

/// The largest request read.
const MAX_REQUEST: u64 = 4 << 20;

/// git's exec folders (every `git-*` there is git itself, or a helper only git runs).
const GIT_EXEC_FOLDERS: &[&str] = &[
    "/usr/lib/git-core",
    "/usr/libexec/git-core",
    "/usr/local/libexec/git-core",
    "/usr/local/lib/git-core",
];

/// A call of git, as the client hands it over.
#[derive(Debug, Serialize, Deserialize)]
struct Request {
    /// How it was started (`git`, `/usr/bin/git`).
    program: String,
    /// Its arguments.
    args: Vec<String>,
    /// Its working folder.
    cwd: PathBuf,
    /// Its environment.
    env: Vec<(String, String)>,
    /// Its process group (the real git joins it, so Ctrl-C reaches both).
    group: i32,
}

/// The judge's answer.
#[derive(Debug, Serialize, Deserialize)]
enum Answer {
    /// Ran; its exit status (128 + N for a signal).
    Status(i32),
    /// Refused, with the reason.
    Refused(String),
}

/// The places covered by the launcher's binary: the judged programs' real binaries and
/// git's exec folders.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Covers {
    /// Binary files covered.
    pub(crate) files: Vec<PathBuf>,
    /// Exec folders covered (by a folder holding only the client as `git`).
    pub(crate) folders: Vec<PathBuf>,
    /// Each covered file's program name (the guards are asked about `NAME ARGS`, however
    /// the file was started: `/usr/lib/node_modules/npm/bin/npm-cli.js` is `npm`).
    pub(crate) names: Vec<(PathBuf, String)>,
}

/// Where programs are looked for besides the command's `PATH`.
const STANDARD_FOLDERS: &[&str] = &[
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
];

/// The real binaries of the `judged` programs (git's exec folders too): on the standard
/// places and every folder of `path` (the command's `PATH`, at most 64 folders),
/// resolved, each once.
pub(crate) fn judged_places(judged: &[String], path: Option<&std::ffi::OsStr>) -> Covers {
    let mut folders_on_path: Vec<PathBuf> = STANDARD_FOLDERS.iter().map(PathBuf::from).collect();
    if let Some(path) = path {
        folders_on_path.extend(
            std::env::split_paths(path)
                .take(64)
                .filter(|dir| dir.is_absolute()),
        );
    }
    // The launcher's own binary is never a judged program's (its cover would be itself).
    let own = std::env::current_exe()
        .ok()
        .and_then(|exe| real(&exe, false));
    let mut named: Vec<(PathBuf, String)> = folders_on_path
        .iter()
        .flat_map(|dir| {
            judged
                .iter()
                .map(move |name| (dir.join(name), name.clone()))
        })
        .filter_map(|(file, name)| Some((real(&file, false)?, name)))
        .filter(|(file, _)| Some(file) != own.as_ref())
        .collect();
    let mut folders: Vec<PathBuf> = Vec::new();
    if judged.iter().any(|name| name == "git") {
        folders.extend(GIT_EXEC_FOLDERS.iter().map(PathBuf::from));
        for (file, name) in &named {
            if let (Some(prefix), "git") = (file.parent().and_then(Path::parent), name.as_str()) {
                folders.push(prefix.join("libexec/git-core"));
                folders.push(prefix.join("lib/git-core"));
            }
        }
    }
    let mut folders: Vec<PathBuf> = folders.iter().filter_map(|dir| real(dir, true)).collect();
    folders.sort();
    folders.dedup();
    named.retain(|(file, _)| !folders.iter().any(|folder| file.starts_with(folder)));
    named.sort();
    named.dedup_by(|a, b| a.0 == b.0);
    Covers {
        files: named.iter().map(|(file, _)| file.clone()).collect(),
        folders,
        names: named,
    }
}

/// `path` resolved, when it is a folder (`want_dir`) or a regular file.
fn real(path: &Path, want_dir: bool) -> Option<PathBuf> {
    let path = std::fs::canonicalize(path).ok()?;
    let meta = std::fs::metadata(&path).ok()?;
    (if want_dir {
        meta.is_dir()
    } else {
        meta.is_file()
    })
    .then_some(path)
}

/// The full hookhost binary (the judge runs `hookhost fire`): this one, or the one beside
/// the small launcher.
fn hookhost_binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|err| format!("cannot find this binary: {err}"))?;
    let name = exe.file_name().and_then(|name| name.to_str()).unwrap_or("");
    if name.starts_with("hookhost-envelope") {
        let full = exe.with_file_name(format!("hookhost{}", std::env::consts::EXE_SUFFIX));
        if full.is_file() {
            return Ok(full);
        }
        return Err(format!(
            "no hookhost binary beside {} to judge git calls with",
            exe.display()
        ));
    }
    Ok(exe)
}

/// The judge of one command: its socket and the runs of the real git it started.
pub(crate) struct Judge {
    /// The socket's path (in a private folder of `/tmp`).
    pub(crate) socket: PathBuf,
    /// The folder holding it, removed when the judge is dropped.
    folder: PathBuf,
    /// The process ids of the real gits running now (the launcher's children).
    runs: Arc<Mutex<HashSet<i32>>>,
}

impl Judge {
    /// Starts judging git calls for `envelope` (its covers `covers`, the command's
    /// confinement `confinement`) on a socket of its own, in a thread.
    pub(crate) fn start(
        helper: Arc<Helper>,
        covers: &Covers,
        confinement: Arc<Confinement>,
    ) -> Result<Judge, String> {
        let folder = crate::files::private_temp_folder(".hookhost-judge-")?;
        let socket = folder.join("git.sock");
        let listener = UnixListener::bind(&socket)
            .map_err(|err| format!("cannot listen on {}: {err}", socket.display()))?;
        let runs = Arc::new(Mutex::new(HashSet::new()));
        let context = Arc::new(Context {
            helper,
            names: covers.names.clone(),
            folders: covers.folders.clone(),
            uncover: covers
                .files
                .iter()
                .chain(&covers.folders)
                .filter_map(|path| CString::new(path.as_os_str().as_encoded_bytes()).ok())
                .collect(),
            confinement,
            runs: runs.clone(),
        });
        std::thread::Builder::new()
            .name("git-judge".into())
            .spawn(move || {
                for stream in listener.incoming().flatten() {
                    let context = context.clone();
                    let _ = std::thread::Builder::new()
                        .name("git-call".into())
                        .spawn(move || context.serve(stream));
                }
            })
            .map_err(|err| format!("cannot start the git judge: {err}"))?;
        Ok(Judge {
            socket,
            folder,
            runs,
        })
    }

    /// Whether `pid` is a real git this judge started (its thread waits for it).
    pub(crate) fn runs(&self, pid: i32) -> bool {
        self.runs.lock().is_ok_and(|runs| runs.contains(&pid))
    }
}

/// The process that asks the guards (`hookhost fire PreToolUse`) for the judge: forked
/// before the launcher enters the envelope's namespaces, so the guards read and write
/// hookhost's state as the agent's own hook does and see the real git (the checks they
/// run get an envelope of their own). It ends when the launcher does.
pub(crate) struct Helper {
    stream: Mutex<UnixStream>,
    /// Its process id.
    pub(crate) pid: i32,
    /// Its pidfd, to wait for it by (the launcher goes on in a child of its own inside
    /// the project's PID namespace, whose numbers differ, and for which it is no child).
    pidfd: Option<std::os::fd::OwnedFd>,
}

impl Helper {
    /// Forks the helper for `envelope`. Call it while this process has one thread.
    pub(crate) fn fork(envelope: &Envelope) -> Result<Helper, String> {
        use nix::unistd::{ForkResult, fork};
        let hookhost = hookhost_binary()?;
        let (ours, theirs) =
            UnixStream::pair().map_err(|err| format!("cannot make the judge's socket: {err}"))?;
        #[expect(unsafe_code, reason = "fork in a process that has one thread")]
        // SAFETY: the launcher has one thread here (the caller's promise), so the child
        // inherits no lock another thread held.
        match unsafe { fork() }.map_err(|err| format!("cannot fork the judge: {err}"))? {
            ForkResult::Child => {
                drop(ours);
                // Nothing of the launcher's but its socket: no stream of the agent's
                // shell (its output, the folder's descriptor) is held open by the helper.
                let keep = theirs.as_raw_fd();
                let null = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open("/dev/null");
                #[expect(unsafe_code, reason = "prctl, dup2 and close_range take integers")]
                // SAFETY: integer arguments only; the descriptors closed are this new
                // process's own, and none is used after (the socket is kept).
                unsafe {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                    if let Ok(null) = &null {
                        for fd in 0..3 {
                            libc::dup2(null.as_raw_fd(), fd);
                        }
                    }
                    let range = |from: libc::c_int, to: libc::c_int| {
                        if from <= to {
                            libc::syscall(
                                libc::SYS_close_range,
                                from as libc::c_uint,
                                to as libc::c_uint,
                                0,
                            );
                        }
                    };
                    range(3, keep - 1);
                    range(keep + 1, libc::c_int::MAX);
                }
                std::mem::forget(null);
                serve_fires(
                    theirs,
                    &hookhost,
                    envelope.home.as_deref(),
                    envelope.project.as_deref(),
                );
                std::process::exit(0);
            }
            ForkResult::Parent { child } => {
                drop(theirs);
                Ok(Helper {
                    stream: Mutex::new(ours),
                    pid: child.as_raw(),
                    pidfd: super::keeper::pidfd_open(child.as_raw()),
                })
            }
        }
    }

    /// Ends the helper (when the command has ended: a git call a process left running
    /// makes after that is refused) and waits for it.
    pub(crate) fn end(&self) {
        if let Ok(stream) = self.stream.lock() {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
        if let Some(pidfd) = &self.pidfd {
            use std::os::fd::AsFd;
            let flags = nix::sys::wait::WaitPidFlag::WEXITED;
            let _ = nix::sys::wait::waitid(nix::sys::wait::Id::PIDFd(pidfd.as_fd()), flags);
        }
    }

    /// The guards' answer (`fire`'s output) for the event `input`.
    fn ask(&self, input: &[u8]) -> Result<Vec<u8>, String> {
        let mut stream = self
            .stream
            .lock()
            .map_err(|_| "the judge is broken".to_string())?;
        write_frame(&mut stream, input).map_err(|err| err.to_string())?;
        read_frame(&mut stream).map_err(|err| err.to_string())
    }
}

/// The helper's loop: each frame an event input, answered with `fire`'s output; ends
/// when the launcher closes the socket.
fn serve_fires(
    mut stream: UnixStream,
    hookhost: &Path,
    home: Option<&Path>,
    project: Option<&Path>,
) {
    while let Ok(input) = read_frame(&mut stream) {
        let mut fire = std::process::Command::new(hookhost);
        fire.args(["fire", "PreToolUse", "--own-files"]);
        if let Some(home) = home {
            fire.arg("--home").arg(home);
        }
        if let Some(project) = project {
            fire.arg("--project-dir").arg(project).current_dir(project);
        }
        fire.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let out = fire.spawn().and_then(|mut child| {
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(&input);
            }
            child.wait_with_output()
        });
        let answer = match out {
            Ok(out) if !out.stdout.is_empty() => out.stdout,
            Ok(out) => out.stderr,
            Err(err) => err.to_string().into_bytes(),
        };
        if write_frame(&mut stream, &answer).is_err() {
            return;
        }
    }
}

/// Writes one length-prefixed frame.
fn write_frame(stream: &mut UnixStream, bytes: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(bytes.len()).map_err(std::io::Error::other)?;
    stream.write_all(&len.to_le_bytes())?;
    stream.write_all(bytes)
}

/// Reads one length-prefixed frame (at most [`MAX_REQUEST`] bytes).
fn read_frame(stream: &mut UnixStream) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len as u64 > MAX_REQUEST {
        return Err(std::io::Error::other("frame too large"));
    }
    let mut bytes = vec![0u8; len];
    stream.read_exact(&mut bytes)?;
    Ok(bytes)
}

impl Drop for Judge {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// What every call's thread needs.
struct Context {
    /// Asks the guards, in the namespaces the launcher started in.
    helper: Arc<Helper>,
    /// The covered places, for the real program's own mount namespace to leave behind.
    uncover: Vec<CString>,
    /// Each covered file's program name.
    names: Vec<(PathBuf, String)>,
    /// git's exec folders covered.
    folders: Vec<PathBuf>,
    confinement: Arc<Confinement>,
    runs: Arc<Mutex<HashSet<i32>>>,
}

impl Context {
    /// One call: read it, judge it, run it or say why not.
    fn serve(&self, stream: UnixStream) {
        let answer = match receive(&stream) {
            Ok((request, streams)) => match self.verdict(&request) {
                Some(why) => Answer::Refused(why),
                None => match self.run(&request, streams) {
                    Ok(status) => Answer::Status(status),
                    Err(why) => Answer::Refused(why),
                },
            },
            Err(why) => Answer::Refused(why),
        };
        let mut stream = stream;
        let _ = stream.write_all(&serde_json::to_vec(&answer).unwrap_or_default());
    }

    /// The judged program the call starts: the name the guards are asked about, found
    /// by the real binary the call resolves to (git's exec folders are git's). None for
    /// anything else — a copy of the launcher's binary under another name is no program
    /// to run.
    fn name_of(&self, request: &Request) -> Option<String> {
        let file =
            std::fs::canonicalize(resolve(&request.program, &request.env, &request.cwd)).ok()?;
        if let Some((_, name)) = self.names.iter().find(|(covered, _)| *covered == file) {
            return Some(name.clone());
        }
        self.folders
            .iter()
            .any(|folder| file.starts_with(folder))
            .then(|| "git".to_string())
    }

    /// Why the owner's guards refuse the call, asked as the Bash call `NAME ARGS`.
    fn verdict(&self, request: &Request) -> Option<String> {
        let Some(name) = self.name_of(request) else {
            return Some(format!(
                "{} is no program the envelope judges (a copy of hookhost's binary under another name runs nothing)",
                request.program
            ));
        };
        let mut words = vec![shell_word(&name)];
        words.extend(request.args.iter().map(|arg| shell_word(arg)));
        let description = format!("{name}, started by a program inside the envelope");
        let input = serde_json::json!({
            "session_id": "hookhost-envelope-judge",
            "hook_event_name": "PreToolUse",
            "cwd": request.cwd,
            "tool_name": "Bash",
            "tool_input": {"command": words.join(" "), "description": description},
        });
        let out = match self.helper.ask(input.to_string().as_bytes()) {
            Ok(out) => out,
            Err(why) => return Some(format!("the guards could not be asked ({why})")),
        };
        let Ok(answer) = serde_json::from_slice::<serde_json::Value>(&out) else {
            return Some(format!(
                "the guards gave no answer ({})",
                String::from_utf8_lossy(&out).trim()
            ));
        };
        let decision = answer["permission_decision"].as_str();
        let refused = answer["should_block"].as_bool() != Some(false)
            || matches!(decision, Some("deny") | Some("ask"));
        refused.then(|| {
            answer["block_reason"]
                .as_str()
                .or(answer["permission_decision_reason"].as_str())
                .unwrap_or("refused by the owner's guards (they ask, and no one can answer inside the envelope)")
                .to_string()
        })
    }

    /// Runs the real git for `request` with its streams; its exit status.
    fn run(&self, request: &Request, streams: [OwnedFd; 3]) -> Result<i32, String> {
        use std::os::unix::process::{CommandExt, ExitStatusExt};
        let program = resolve(&request.program, &request.env, &request.cwd);
        let [stdin, stdout, stderr] = streams;
        let mut command = std::process::Command::new(&program);
        command
            .args(&request.args)
            .current_dir(&request.cwd)
            .env_clear()
            .envs(request.env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::from(stdin))
            .stdout(std::process::Stdio::from(stdout))
            .stderr(std::process::Stdio::from(stderr));
        // Joins the caller's process group, so Ctrl-C reaches both.
        let group = request.group;
        #[expect(unsafe_code, reason = "setpgid takes integers")]
        // SAFETY: the closure allocates nothing and makes one setpgid call.
        unsafe {
            command.pre_exec(move || {
                let _ = libc::setpgid(0, group);
                Ok(())
            });
        }
        without_covers(
            &mut command,
            self.uncover.clone(),
            Some(self.confinement.clone()),
        );
        let mut child = command
            .spawn()
            .map_err(|err| format!("cannot start {}: {err}", program.display()))?;
        let pid = child.id() as i32;
        if let Ok(mut runs) = self.runs.lock() {
            runs.insert(pid);
        }
        let status = child.wait();
        if let Ok(mut runs) = self.runs.lock() {
            runs.remove(&pid);
        }
        let status = status.map_err(|err| format!("lost the real git: {err}"))?;
        Ok(status
            .code()
            .or(status.signal().map(|signal| 128 + signal))
            .unwrap_or(1))
    }
}

/// Makes `command` start in a mount namespace of its own without the `covers` (so it
/// reaches the real git), then take on `confinement` when one is given. A failure fails
/// the exec.
pub(crate) fn without_covers(
    command: &mut std::process::Command,
    covers: Vec<CString>,
    confinement: Option<Arc<Confinement>>,
) {
    use std::os::unix::process::CommandExt;
    #[expect(
        unsafe_code,
        reason = "the hook makes only system calls between fork and exec"
    )]
    // SAFETY: the closure allocates nothing (its strings are made before the fork) and
    // makes only unshare, umount2, prctl, landlock and seccomp calls.
    unsafe {
        command.pre_exec(move || {
            if libc::unshare(libc::CLONE_NEWNS) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            for path in &covers {
                libc::umount2(path.as_ptr(), libc::MNT_DETACH);
            }
            match &confinement {
                Some(confinement) => confinement.take_on(),
                None => Ok(()),
            }
        });
    }
}

/// The program `program` names: looked up on the call's `PATH` when it has no folder,
/// else from the call's folder `cwd`.
fn resolve(program: &str, env: &[(String, String)], cwd: &Path) -> PathBuf {
    if program.contains('/') {
        return cwd.join(program);
    }
    let path = env
        .iter()
        .find(|(key, _)| key == "PATH")
        .map(|(_, value)| value.as_str())
        .unwrap_or("/usr/local/bin:/usr/bin:/bin");
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| PathBuf::from(program))
}

/// `word` as the agent would type it: bare when nothing in it is special to the shell,
/// else quoted (so a text guard reads `git push --force`, not `'git' 'push' '--force'`).
fn shell_word(word: &str) -> String {
    let bare = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c));
    match bare {
        true => word.to_string(),
        false => super::wrap::quote(word),
    }
}

/// The file name `program` was started by (`/usr/bin/git` → `git`).
fn program_name(program: &str) -> String {
    Path::new(program)
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| program.to_string())
}

/// Reads one request and the three streams it carries.
fn receive(stream: &UnixStream) -> Result<(Request, [OwnedFd; 3]), String> {
    use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg};
    let mut first = vec![0u8; 64 << 10];
    let mut space = nix::cmsg_space!([RawFd; 3]);
    let (read, fds) = {
        let mut iov = [std::io::IoSliceMut::new(&mut first)];
        let msg = recvmsg::<()>(
            stream.as_raw_fd(),
            &mut iov,
            Some(&mut space),
            MsgFlags::MSG_CMSG_CLOEXEC,
        )
        .map_err(|err| format!("cannot read the call: {err}"))?;
        let mut fds: Vec<OwnedFd> = Vec::new();
        for cmsg in msg.cmsgs().map_err(|err| format!("bad call: {err}"))? {
            if let ControlMessageOwned::ScmRights(received) = cmsg {
                #[expect(
                    unsafe_code,
                    reason = "descriptors received by SCM_RIGHTS belong to this process"
                )]
                // SAFETY: the kernel installed each descriptor for this process just now.
                fds.extend(
                    received
                        .into_iter()
                        .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }),
                );
            }
        }
        (msg.bytes, fds)
    };
    first.truncate(read);
    let mut rest = Vec::new();
    stream
        .take(MAX_REQUEST)
        .read_to_end(&mut rest)
        .map_err(|err| format!("cannot read the call: {err}"))?;
    first.extend(rest);
    let request: Request =
        serde_json::from_slice(&first).map_err(|err| format!("not a call: {err}"))?;
    let streams: [OwnedFd; 3] = fds
        .try_into()
        .map_err(|_| "the call did not carry its three streams".to_string())?;
    Ok((request, streams))
}

/// The client: started as a judged program (the launcher's binary covering the real
/// one), it hands the call to the judge and exits with the real program's status, or says
/// why it was refused.
pub fn client_main(program: &str, args: Vec<String>) -> i32 {
    let name = program_name(program);
    match ask(program, args) {
        Ok(Answer::Status(status)) => status,
        Ok(Answer::Refused(why)) => {
            eprintln!("hookhost envelope: {name} was not run: {why}");
            1
        }
        Err(why) => {
            eprintln!("hookhost envelope: {name} was not run: {why}");
            126
        }
    }
}

fn ask(program: &str, args: Vec<String>) -> Result<Answer, String> {
    use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};
    let socket = std::env::var_os(JUDGE_VAR).ok_or(
        "hookhost's binary under a name not beginning with `hookhost` is the envelope's judge client, and this process's environment names no judge (inside the envelope: started with a cleared environment? outside it: start it as `hookhost`)",
    )?;
    let request = Request {
        program: program.to_string(),
        args,
        cwd: std::env::current_dir().map_err(|err| format!("no working folder: {err}"))?,
        env: std::env::vars().collect(),
        group: nix::unistd::getpgrp().as_raw(),
    };
    let bytes = serde_json::to_vec(&request).map_err(|err| err.to_string())?;
    let mut stream = UnixStream::connect(&socket).map_err(|err| {
        format!("the envelope's judge is gone ({err}): the command that started this has ended")
    })?;
    let fds: [RawFd; 3] = [0, 1, 2];
    let iov = [std::io::IoSlice::new(&bytes)];
    let sent = sendmsg::<()>(
        stream.as_raw_fd(),
        &iov,
        &[ControlMessage::ScmRights(&fds)],
        MsgFlags::empty(),
        None,
    )
    .map_err(|err| format!("cannot hand the call over: {err}"))?;
    if sent < bytes.len() {
        stream
            .write_all(&bytes[sent..])
            .map_err(|err| format!("cannot hand the call over: {err}"))?;
    }
    stream
        .shutdown(std::net::Shutdown::Write)
        .map_err(|err| format!("cannot hand the call over: {err}"))?;
    let mut reply = Vec::new();
    stream
        .take(1 << 20)
        .read_to_end(&mut reply)
        .map_err(|err| format!("no answer from the judge: {err}"))?;
    serde_json::from_slice(&reply).map_err(|_| "no answer from the judge".to_string())
}

/// Whether this process was started as a judged program (the client): by any name but
/// hookhost's own (`hookhost`, `hookhost-envelope`, `hookhost-keeper`, …), which only a
/// cover gives the launcher's binary.
pub fn started_as_judged(argv0: &str) -> bool {
    Path::new(argv0)
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| !name.starts_with("hookhost"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_reads_as_typed() {
        let words: Vec<String> = ["git", "push", "--force", "a b", "", "x;y", "$HOME"]
            .iter()
            .map(|w| shell_word(w))
            .collect();
        assert_eq!(
            words,
            ["git", "push", "--force", "'a b'", "''", "'x;y'", "'$HOME'"]
        );
    }

    #[test]
    fn a_judged_program_is_found_on_the_path_by_its_real_file() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real-tool");
        std::fs::write(&real, "#!/bin/sh\n").unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("tool")).unwrap();
        let path = std::ffi::OsString::from(dir.path());
        let covers = judged_places(&["tool".into(), "absent".into()], Some(&path));
        let real = std::fs::canonicalize(&real).unwrap();
        assert_eq!(covers.files, std::slice::from_ref(&real));
        assert_eq!(covers.names, [(real, "tool".to_string())]);
        // git's exec folders only when git is judged.
        assert!(covers.folders.is_empty());
    }
}

//! The warm engine: one `hookhost serve --warm` per user, on a unix socket in hookhost's
//! state folder, which the agents' hook commands reach through a small client
//! (`hookhost-hook`) instead of starting an engine of their own for every call. The
//! client asks it only when it is the owner's own: a socket owned by this user in the
//! private state folder, whose server process is this very `hookhost` binary started with
//! exactly the arguments the owner's install gives it ([`serve_args`]) — so neither a
//! repository nor the agent can point a hook at an engine of its choosing. Anything else,
//! and any failure on the way, falls back to the one-shot path: a warm engine that is
//! gone costs speed, never the guard.

use std::path::{Path, PathBuf};

/// The socket's name in hookhost's state folder.
pub const SOCKET: &str = "serve.sock";

/// The flags that name the owner's folders, in the order installs write them.
pub const LOCATION_FLAGS: [&str; 4] = ["--home", "--config-dir", "--state-dir", "--cache-dir"];

/// Largest answer read from the warm engine.
#[cfg(unix)]
const MAX_ANSWER: u64 = 16 << 20;

/// The warm engine's socket in the state folder `state_dir`.
pub fn socket_in(state_dir: &Path) -> PathBuf {
    state_dir.join(SOCKET)
}

/// The arguments (after the program) of the warm engine for the owner's folders
/// `locations` — pairs of a [`LOCATION_FLAGS`] flag and its folder, in that order: what
/// an install's service unit runs, and what a client requires of the server it reaches.
pub fn serve_args(locations: &[(&str, &str)]) -> Vec<String> {
    let mut args = vec!["serve".to_string(), "--warm".to_string()];
    for (flag, value) in locations {
        args.push((*flag).to_string());
        args.push((*value).to_string());
    }
    args
}

/// Why the warm engine was not asked (the caller takes the one-shot path).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unavailable {
    /// No server listens there.
    #[error("no warm engine at {0}")]
    NotRunning(PathBuf),
    /// A server listens, but it is not the owner's own warm engine.
    #[error("the server at {socket} is not the owner's warm engine: {why}")]
    NotOurs {
        /// The socket.
        socket: PathBuf,
        /// What did not hold.
        why: String,
    },
    /// It was asked and gave no answer.
    #[error("the warm engine gave no answer: {0}")]
    NoAnswer(String),
}

/// What the warm engine answered for an agent's hook: the agent's stdout, a line for
/// stderr, the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Answer {
    /// For stdout (empty: nothing).
    pub stdout: String,
    /// A line for stderr.
    pub stderr: Option<String>,
    /// The exit status.
    pub exit_code: i32,
}

/// A connection to the owner's warm engine at `socket`, when its server is the binary
/// `program` started with exactly `args` by this user.
#[cfg(target_os = "linux")]
pub fn connect(
    socket: &Path,
    program: &Path,
    args: &[String],
) -> Result<std::os::unix::net::UnixStream, Unavailable> {
    use std::os::unix::fs::MetadataExt;
    let stream = std::os::unix::net::UnixStream::connect(socket)
        .map_err(|_| Unavailable::NotRunning(socket.to_path_buf()))?;
    let not_ours = |why: String| Unavailable::NotOurs {
        socket: socket.to_path_buf(),
        why,
    };
    let peer = nix::sys::socket::getsockopt(&stream, nix::sys::socket::sockopt::PeerCredentials)
        .map_err(|err| not_ours(format!("its credentials cannot be read ({err})")))?;
    if peer.uid() != nix::unistd::geteuid().as_raw() {
        return Err(not_ours(format!("it runs as user {}", peer.uid())));
    }
    let proc = PathBuf::from(format!("/proc/{}", peer.pid()));
    let (theirs, ours) = (
        std::fs::metadata(proc.join("exe")),
        std::fs::metadata(program),
    );
    match (theirs, ours) {
        (Ok(theirs), Ok(ours)) if (theirs.dev(), theirs.ino()) == (ours.dev(), ours.ino()) => {}
        _ => {
            return Err(not_ours(format!(
                "its program is not {}",
                program.display()
            )));
        }
    }
    let cmdline = crate::files::read_regular(&proc.join("cmdline"), 1 << 16)
        .map_err(|err| not_ours(format!("its command line cannot be read ({err})")))?;
    let given: Vec<&[u8]> = cmdline
        .strip_suffix(b"\0")
        .unwrap_or(&cmdline)
        .split(|b| *b == 0)
        .skip(1)
        .collect();
    let wanted: Vec<&[u8]> = args.iter().map(|arg| arg.as_bytes()).collect();
    if given != wanted {
        return Err(not_ours(format!(
            "it was not started as `hookhost {}`",
            args.join(" ")
        )));
    }
    Ok(stream)
}

/// Sends `body`, the hook input of `agent`'s event (`event`: the agent's name for it
/// where its input carries none), and reads the answer, within `timeout`.
#[cfg(unix)]
pub fn ask(
    mut stream: std::os::unix::net::UnixStream,
    agent: &str,
    event: Option<&str>,
    body: &[u8],
    timeout: std::time::Duration,
) -> Result<Answer, Unavailable> {
    use std::io::{Read, Write};
    let fail = |why: String| Unavailable::NoAnswer(why);
    let plain = |text: &str| {
        !text.is_empty()
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
    };
    if !plain(agent) || event.is_some_and(|event| !plain(event)) {
        return Err(fail("an agent or event name hookhost does not send".into()));
    }
    let query = event
        .map(|event| format!("?event={event}"))
        .unwrap_or_default();
    let head = format!(
        "POST /v1/agent/{agent}{query} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream
        .set_read_timeout(Some(timeout))
        .and_then(|()| stream.set_write_timeout(Some(timeout)))
        .map_err(|err| fail(err.to_string()))?;
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body))
        .map_err(|err| fail(format!("sending: {err}")))?;
    let mut response = Vec::new();
    stream
        .take(MAX_ANSWER)
        .read_to_end(&mut response)
        .map_err(|err| fail(format!("reading: {err}")))?;
    answer_of(&response).map_err(fail)
}

/// The answer in an HTTP response `response` of `serve`'s agent route.
#[cfg(unix)]
fn answer_of(response: &[u8]) -> Result<Answer, String> {
    let split = response
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .ok_or("no complete response")?;
    let head = std::str::from_utf8(&response[..split]).map_err(|_| "a response head not UTF-8")?;
    let body = &response[split + 4..];
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap_or_default();
    if !status.starts_with("HTTP/1.1 200 ") {
        return Err(format!("it answered `{status}`"));
    }
    for line in lines {
        let (name, value) = line.split_once(':').unwrap_or((line, ""));
        if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(format!("an answer in parts ({})", value.trim()));
        }
        if name.eq_ignore_ascii_case("content-length")
            && value.trim().parse::<usize>().ok() != Some(body.len())
        {
            return Err("an answer cut short".into());
        }
    }
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|err| format!("an answer not JSON ({err})"))?;
    let exit_code = value["exitCode"]
        .as_i64()
        .and_then(|code| i32::try_from(code).ok())
        .ok_or("an answer without its exit status")?;
    Ok(Answer {
        stdout: value["stdout"].as_str().unwrap_or_default().to_string(),
        stderr: value["stderr"].as_str().map(str::to_string),
        exit_code,
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_read_only_whole_and_well_formed() {
        let ok = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 42\r\n\r\n{\"stdout\":\"{}\",\"stderr\":null,\"exitCode\":0}";
        assert_eq!(
            answer_of(ok),
            Ok(Answer {
                stdout: "{}".into(),
                stderr: None,
                exit_code: 0
            })
        );
        for bad in [
            &b"HTTP/1.1 200 OK\r\ncontent-length: 99\r\n\r\n{\"exitCode\":0}"[..],
            b"HTTP/1.1 500 Internal\r\n\r\n{}",
            b"HTTP/1.1 200 OK\r\n\r\n{\"stdout\":\"\"}",
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\n",
            b"HTTP/1.1 200 OK\r\ncontent-length: 2",
        ] {
            assert!(answer_of(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn the_warm_engines_arguments_name_the_owners_folders_in_order() {
        assert_eq!(
            serve_args(&[("--home", "/h"), ("--state-dir", "/h/s")]),
            ["serve", "--warm", "--home", "/h", "--state-dir", "/h/s"]
        );
    }
}

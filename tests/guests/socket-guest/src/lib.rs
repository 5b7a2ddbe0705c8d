//! A guest that opens a TCP connection to `127.0.0.1:{config.port}`: its component
//! imports `wasi:sockets`, which links but grants nothing.

use hookhost_guest::{Answer, Hook, PreToolUse, config, export_hook};

/// The socket hook.
pub struct SocketGuest;

impl Hook for SocketGuest {
    fn pre_tool_use(_call: PreToolUse) -> Result<Answer, String> {
        let port = config::get("port").and_then(|p| p.as_u64()).unwrap_or(9);
        match std::net::TcpStream::connect(("127.0.0.1", port as u16)) {
            Ok(_) => Ok(Answer::deny("connected")),
            Err(err) => Ok(Answer::none().with_context(format!("connect failed: {err}"))),
        }
    }
}

export_hook!(SocketGuest);

//! A guest that opens a TCP connection: its component imports `wasi:sockets`, which
//! hookhost refuses at load.

use hookhost_guest::{Answer, Hook, PreToolUse, export_hook};

/// The socket hook.
pub struct SocketGuest;

impl Hook for SocketGuest {
    fn pre_tool_use(_call: PreToolUse) -> Result<Answer, String> {
        match std::net::TcpStream::connect("127.0.0.1:9") {
            Ok(_) => Ok(Answer::deny("connected")),
            Err(err) => Ok(Answer::none().with_context(format!("connect failed: {err}"))),
        }
    }
}

export_hook!(SocketGuest);

//! A model API mock as a process (`tests/claude/mock_messages.py`,
//! `tests/agents/mock_models.py`): started with its arguments, the port it prints on its
//! first line read, killed when dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A running mock, killed (and waited for) when dropped.
pub struct MockProcess {
    child: Child,
    /// The port it listens on (127.0.0.1).
    pub port: String,
}

impl Drop for MockProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl MockProcess {
    /// Starts `command` and reads the port from its first stdout line.
    pub fn start(mut command: Command) -> MockProcess {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the mock");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("read the mock's port");
        MockProcess {
            child,
            port: line.trim().to_string(),
        }
    }
}

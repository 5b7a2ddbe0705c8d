//! A whole agent session inside the envelope (`hookhost envelope session -- AGENT …`),
//! for agents whose hooks cannot rewrite a command. Every process of the session is
//! inside, the agent's hook processes too — and they cannot write hookhost's state or
//! read its keys there. So the session's launcher starts a broker outside (a `hookhost
//! serve` on a unix socket in a private folder) and mounts that folder, read-only, on a
//! fixed place in the session's mount namespace: the `session` folder beside the
//! envelope's files. A hook process that finds the broker there sends its call to it.
//!
//! The place cannot be faked: outside a session it is an empty folder in hookhost's
//! state folder (read-only to every enclosed command), and a broker counts only where
//! that folder is a mount point — which only the session's launcher can make, before
//! Landlock forbids any mount change.

use std::path::{Path, PathBuf};

/// A session's broker: the folder its socket is in, and where the session sees it.
#[derive(Debug, Clone)]
pub struct Broker {
    /// The folder the broker's socket was made in (private to the owner).
    pub folder: PathBuf,
    /// The fixed place the session's hook processes look for it.
    pub seen_at: PathBuf,
}

/// Makes the empty folders that hold the envelope's read-only places that do not exist
/// yet (a project without `.claude`, say), for a session: its mounts can only hold what
/// exists. Returns them, for [`remove_placeholders`] after the session.
#[cfg(target_os = "linux")]
pub fn make_placeholders(envelope: &super::Envelope) -> Result<Vec<PathBuf>, String> {
    super::linux::placeholders(envelope)
}

/// Removes the folders [`make_placeholders`] made, where they are still empty.
pub fn remove_placeholders(folders: &[PathBuf]) {
    for folder in folders.iter().rev() {
        let _ = std::fs::remove_dir(folder);
    }
}

/// The socket's name in the broker's folder.
pub const SOCKET: &str = "hook.sock";

/// Largest mount table read.
const MAX_MOUNTINFO: u64 = 4 << 20;

/// Where a session sees its broker, for the envelope kept in `envelope_file`.
pub fn folder_beside(envelope_file: &Path) -> PathBuf {
    envelope_file
        .parent()
        .unwrap_or(Path::new("/"))
        .join("session")
}

/// Where a session sees its broker, in hookhost's envelope folder `envelope_dir`.
pub fn folder_in(envelope_dir: &Path) -> PathBuf {
    envelope_dir.join("session")
}

/// The broker's socket when this process runs inside a session — its fixed place in
/// `envelope_dir` is a mount point — whether or not the broker still listens there (a
/// session whose broker is gone fails its hooks closed). `None` outside a session, even
/// where a socket lies in that folder: no mount holds it.
pub fn broker_socket(envelope_dir: &Path) -> Option<PathBuf> {
    let folder = std::fs::canonicalize(folder_in(envelope_dir)).ok()?;
    let table = crate::files::read_regular(Path::new("/proc/self/mountinfo"), MAX_MOUNTINFO)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())?;
    mount_points(&table)
        .any(|point| point == folder)
        .then(|| folder.join(SOCKET))
}

/// The mount points of a `/proc/PID/mountinfo` table (its fifth field, octal escapes
/// undone).
fn mount_points(table: &str) -> impl Iterator<Item = PathBuf> + '_ {
    table
        .lines()
        .filter_map(|line| line.split(' ').nth(4))
        .map(|field| PathBuf::from(unescape(field)))
}

/// `\040`-style escapes (space, tab, newline, backslash) undone.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'\\'
            && let Some(code) = field
                .get(at + 1..at + 4)
                .and_then(|digits| u8::from_str_radix(digits, 8).ok())
        {
            out.push(code);
            at += 4;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_points_are_read_with_their_escapes_undone() {
        let table = "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n\
                     90 22 8:1 /s/b /home/a\\040b/.local/state/hookhost/envelope/session ro - ext4 /dev/sda1 rw\n";
        let points: Vec<PathBuf> = mount_points(table).collect();
        assert_eq!(
            points,
            [
                PathBuf::from("/"),
                PathBuf::from("/home/a b/.local/state/hookhost/envelope/session")
            ]
        );
    }

    #[test]
    fn a_socket_where_no_mount_is_does_not_count() {
        let dir = tempfile::tempdir().unwrap();
        let folder = folder_in(dir.path());
        std::fs::create_dir_all(&folder).unwrap();
        #[cfg(unix)]
        let _listener = std::os::unix::net::UnixListener::bind(folder.join(SOCKET)).unwrap();
        assert_eq!(broker_socket(dir.path()), None);
    }
}

//! What differs between operating systems, in one place: one file per family
//! (`platform/unix.rs`, `platform/windows.rs`) behind one set of names. The rest of the
//! crate asks this module, never `cfg(unix)` itself.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;

/// A file's identity and the times that any change to it moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangeStamp {
    /// Device (volume) of the file.
    pub dev: u64,
    /// Inode (file index) on that device.
    pub ino: u64,
    /// Last modification, nanoseconds since the Unix epoch.
    pub modified_ns: i128,
    /// Last status change (contents, metadata, links), nanoseconds since the Unix epoch;
    /// no unprivileged process can set it.
    pub changed_ns: i128,
}

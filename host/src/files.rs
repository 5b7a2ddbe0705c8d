//! Files hookhost reads from places others can write (settings, `hooks.toml`, plugin
//! manifests, event inputs) and files it writes for its owner (audit log, trust store,
//! tokens): regular files only, opened without blocking, read no further than a cap;
//! created private and never through a symlink.

use crate::platform;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Largest configuration file (settings, `hooks.toml`, `plugin.json`, `hooks.json`).
pub const MAX_CONFIG_FILE: u64 = 4 << 20;

/// Opens `path` for reading: non-blocking (a FIFO cannot hang the caller), a regular file
/// once opened (a symlink to `/dev/zero` or a device is refused), at most `max` bytes.
pub fn open_regular(path: &Path, max: u64) -> io::Result<File> {
    let file = platform::non_blocking(std::fs::OpenOptions::new().read(true)).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if meta.len() > max {
        return Err(too_large(meta.len(), max));
    }
    Ok(file)
}

/// The bytes of the regular file at `path` (see [`open_regular`]), at most `max`.
pub fn read_regular(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path, max)?;
    let mut bytes = Vec::new();
    // The file may grow after the check: read one byte past the cap to tell.
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64, max));
    }
    Ok(bytes)
}

/// [`read_regular`] with the configuration-file cap, as UTF-8 text.
pub fn read_config_text(path: &Path) -> io::Result<String> {
    let bytes = read_regular(path, MAX_CONFIG_FILE)?;
    String::from_utf8(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8"))
}

fn too_large(size: u64, max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{size} bytes, over the {max}-byte limit"),
    )
}

/// Opens `path` to append, creating it mode 0600: never through a symlink at `path`, and
/// only a regular file owned by this user that no one else may write.
pub fn open_private_append(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    let file = platform::no_follow(platform::private_file(&mut options)).open(path)?;
    check_private(&file.metadata()?)?;
    Ok(file)
}

/// Writes `bytes` as the whole of `path`, mode 0600: a new file beside it (created, never
/// opened through a link) renamed over it, so a link planted at `path` is replaced, not
/// followed, and a reader never sees half of it.
pub fn replace_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut id = [0u8; 8];
    getrandom::fill(&mut id).map_err(io::Error::other)?;
    let suffix: String = id.iter().map(|b| format!("{b:02x}")).collect();
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{suffix}.tmp"));
    let temp = path.with_file_name(name);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    let written = platform::no_follow(platform::private_file(&mut options))
        .open(&temp)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// Refuses what is not a regular file of this user, writable by no one else.
pub fn check_private(meta: &std::fs::Metadata) -> io::Result<()> {
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if !platform::owned_by_me(meta) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "owned by another user",
        ));
    }
    if platform::others_may_write(meta) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "writable by others ({}); make it private: chmod 600",
                platform::mode_text(meta)
            ),
        ));
    }
    Ok(())
}

/// A path in `/tmp` no one has used: `prefix` and 24 random hex digits.
#[cfg(unix)]
pub(crate) fn unused_temp_path(prefix: &str) -> Result<std::path::PathBuf, String> {
    let mut id = [0u8; 12];
    getrandom::fill(&mut id).map_err(|err| format!("no randomness: {err}"))?;
    let id: String = id.iter().map(|b| format!("{b:02x}")).collect();
    Ok(std::path::PathBuf::from(format!("/tmp/{prefix}{id}")))
}

/// A new private folder (0700) in `/tmp`, named by [`unused_temp_path`].
#[cfg(unix)]
pub(crate) fn private_temp_folder(prefix: &str) -> Result<std::path::PathBuf, String> {
    let dir = unused_temp_path(prefix)?;
    platform::private_dir(&mut std::fs::DirBuilder::new())
        .create(&dir)
        .map_err(|err| format!("cannot make {}: {err}", dir.display()))?;
    Ok(dir)
}

/// Creates `dir` and its missing parents, the ones created mode 0700.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    platform::private_dir(std::fs::DirBuilder::new().recursive(true)).create(dir)
}

/// Creates `dir` (0700) if missing; refuses one that is a symlink, not a directory, not
/// owned by this user, or writable by group or others. Never changes its permissions.
pub(crate) fn ensure_private_dir(dir: &Path) -> Result<(), String> {
    if std::fs::symlink_metadata(dir).is_err() {
        platform::private_dir(std::fs::DirBuilder::new().recursive(true))
            .create(dir)
            .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    }
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|err| format!("cannot read {}: {err}", dir.display()))?;
    if !meta.is_dir() {
        return Err(format!(
            "{} is not a directory (or is a symlink)",
            dir.display()
        ));
    }
    if !platform::owned_by_me(&meta) {
        return Err(format!("{} is not owned by this user", dir.display()));
    }
    if platform::others_may_write(&meta) {
        return Err(format!(
            "{} is writable by group or others ({}); refusing to use it",
            dir.display(),
            platform::mode_text(&meta)
        ));
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn fifos_devices_and_oversize_files_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.json");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert!(read_config_text(&fifo).is_err());
        let zero = dir.path().join("zero.json");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let err = read_config_text(&zero).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let big = dir.path().join("big.json");
        std::fs::write(&big, vec![b' '; MAX_CONFIG_FILE as usize + 1]).unwrap();
        assert!(
            read_config_text(&big)
                .unwrap_err()
                .to_string()
                .contains("limit")
        );
        let ok = dir.path().join("ok.json");
        std::fs::write(&ok, "{}").unwrap();
        assert_eq!(read_config_text(&ok).unwrap(), "{}");
    }

    #[test]
    fn private_files_are_created_0600_and_never_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.jsonl");
        open_private_append(&log).unwrap();
        let mode = std::fs::metadata(&log).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, "").unwrap();
        let planted = dir.path().join("planted.jsonl");
        std::os::unix::fs::symlink(&target, &planted).unwrap();
        assert!(open_private_append(&planted).is_err());
        std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert!(open_private_append(&log).is_err());
    }
}

//! Directory grants: resolved once at load under rules a guest cannot bend, and
//! re-verified before every call.
//!
//! Threat: a guest with a read-write grant can create, delete and rename anything inside
//! it, including symlinks. It must not be able to turn that into access outside its
//! grants, in this process or the next one. So a grant is refused when
//! - its path passes through a symlink a guest could have planted (one not owned by
//!   root; when hookhost runs as root, any symlink below the top-level folders),
//! - it is nested in another grant of the same hook with a different mode (a read-only
//!   folder inside a read-write one is writable through the outer grant, and can be
//!   swapped by the guest),
//! - it contains, or lies inside, a folder hookhost itself trusts (the compiled-artifact
//!   cache and hookhost's configuration, which hold the artifact key).
//!
//! Each resolved grant remembers the device and inode of its directory; before each call
//! the path is resolved again and must still be that same directory without symlinks.

use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use crate::config::AllowedPath;

/// Folders no grant may contain or be inside of.
#[derive(Debug, Clone, Default)]
pub struct Protected {
    dirs: Vec<(PathBuf, &'static str)>,
}

impl Protected {
    /// Protects `dir` (described as `what` in refusals).
    pub fn add(&mut self, dir: &Path, what: &'static str) {
        let dir = dir
            .canonicalize()
            .unwrap_or_else(|_| crate::condition::absolute(dir, Path::new("/")));
        if !self.dirs.iter().any(|(d, _)| *d == dir) {
            self.dirs.push((dir, what));
        }
    }

    fn overlap(&self, grant: &Path) -> Option<(&Path, &'static str)> {
        self.dirs
            .iter()
            .find(|(dir, _)| dir.starts_with(grant) || grant.starts_with(dir))
            .map(|(dir, what)| (dir.as_path(), *what))
    }
}

/// A directory grant, resolved and checked when the hook loads.
#[derive(Debug, Clone)]
pub struct Preopen {
    /// Host directory.
    pub host: std::path::PathBuf,
    /// Path the guest sees.
    pub guest: String,
    /// Read-write when true.
    pub write: bool,
    /// Device and inode of the directory when it was resolved.
    pub identity: (u64, u64),
}

/// Resolves the grants of one hook, refusing any the rules above forbid.
pub fn resolve(paths: &[AllowedPath], protected: &Protected) -> Result<Vec<Preopen>, String> {
    let mut resolved: Vec<Preopen> = Vec::with_capacity(paths.len());
    for grant in paths {
        let configured = &grant.path;
        if !configured.is_absolute() {
            return Err(format!(
                "granted path {} is not absolute",
                configured.display()
            ));
        }
        check_symlinks(configured)?;
        let host = configured
            .canonicalize()
            .map_err(|err| format!("granted path {} is not usable: {err}", configured.display()))?;
        let meta = std::fs::metadata(&host)
            .map_err(|err| format!("granted path {} is not usable: {err}", host.display()))?;
        if !meta.is_dir() {
            return Err(format!(
                "granted path {} is not a directory",
                host.display()
            ));
        }
        if let Some((dir, what)) = protected.overlap(&host) {
            return Err(format!(
                "granted path {} overlaps {what} {}; hooks may not reach it",
                host.display(),
                dir.display()
            ));
        }
        for other in &resolved {
            let nested = host.starts_with(&other.host) || other.host.starts_with(&host);
            if nested && host != other.host && grant.write != other.write {
                return Err(format!(
                    "granted paths {} and {} are nested with different modes (read-only inside read-write, or the reverse); grant one mode or separate folders",
                    other.host.display(),
                    host.display()
                ));
            }
            if host == other.host && grant.write != other.write {
                return Err(format!(
                    "granted path {} is listed both read-only and read-write",
                    host.display()
                ));
            }
        }
        resolved.push(Preopen {
            guest: host.display().to_string(),
            host,
            write: grant.write,
            identity: (meta.dev(), meta.ino()),
        });
    }
    Ok(resolved)
}

/// Refuses a path that passes through a symlink a guest could have made.
fn check_symlinks(path: &Path) -> Result<(), String> {
    let root = nix::unistd::Uid::effective().is_root();
    let mut current = PathBuf::new();
    for (depth, part) in path.components().enumerate() {
        current.push(part);
        if matches!(part, Component::RootDir | Component::Prefix(_)) {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&current) else {
            // Missing: canonicalisation reports it.
            return Ok(());
        };
        if !meta.file_type().is_symlink() {
            continue;
        }
        // Depth 1 is a top-level folder (`/lib`, `/tmp` on some systems): only root makes
        // those. Below it, only root-owned links are accepted, and none when hookhost is
        // root (a guest run by root plants root-owned links).
        let trusted = meta.uid() == 0 && (!root || depth == 1);
        if !trusted {
            return Err(format!(
                "granted path {} passes through the symlink {} (owner uid {}); grant the real directory instead",
                path.display(),
                current.display(),
                meta.uid()
            ));
        }
    }
    Ok(())
}

/// A grant opened for one call: the handle keeps the directory it was checked to be, and
/// [`OpenedGrant::host_path`] names exactly that handle for wasmtime to preopen.
#[derive(Debug)]
pub struct OpenedGrant {
    fd: std::os::fd::OwnedFd,
}

impl OpenedGrant {
    /// A path that opens the very directory this handle holds, so nothing can be swapped
    /// in between the check and wasmtime's open. wasmtime-wasi 48 preopens only by path
    /// (`WasiCtxBuilder::preopened_dir`; its preopen list is private), so the handle is
    /// named through the descriptor file system: `/proc/self/fd/N` on Linux (the open
    /// reaches the inode the descriptor holds, not a path), `/dev/fd/N` on macOS and the
    /// BSDs, where fdesc(5) makes the open a `dup` of descriptor N.
    pub fn host_path(&self) -> PathBuf {
        use std::os::fd::AsRawFd;
        let fd = self.fd.as_raw_fd();
        if cfg!(target_os = "linux") {
            PathBuf::from(format!("/proc/self/fd/{fd}"))
        } else {
            PathBuf::from(format!("/dev/fd/{fd}"))
        }
    }
}

/// Opens every grant for a call: walks its resolved path from `/` one component at a
/// time with `O_NOFOLLOW | O_DIRECTORY` (a symlink anywhere fails the walk) and checks
/// that the directory reached is the one resolved at load (device and inode). A guest that
/// swapped a granted folder for a symlink, from a read-write grant of this or another
/// hook, is caught here, and there is no window between the check and the open.
pub fn open_verified(preopens: &[Preopen]) -> Result<Vec<OpenedGrant>, String> {
    preopens
        .iter()
        .map(|grant| {
            let changed = || {
                format!(
                    "granted directory {} changed since it was configured (replaced or redirected); refusing to open it",
                    grant.host.display()
                )
            };
            let fd = open_no_follow(&grant.host).map_err(|_| changed())?;
            let stat = nix::sys::stat::fstat(&fd).map_err(|_| changed())?;
            // `st_dev` is `u64` on Linux and `i32` on macOS: compare as the u64 `dev()`
            // of `MetadataExt` that `identity` was taken with.
            #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
            let dev = stat.st_dev as u64;
            #[allow(clippy::useless_conversion)]
            let ino = u64::from(stat.st_ino);
            if (dev, ino) != grant.identity {
                return Err(changed());
            }
            Ok(OpenedGrant { fd })
        })
        .collect()
}

fn open_no_follow(path: &Path) -> nix::Result<std::os::fd::OwnedFd> {
    use nix::fcntl::{OFlag, open, openat};
    use nix::sys::stat::Mode;
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let mut fd = open("/", flags, Mode::empty())?;
    for part in path.components() {
        match part {
            Component::RootDir => {}
            Component::Normal(name) => fd = openat(&fd, name, flags, Mode::empty())?,
            // Resolved paths are absolute and normal; anything else is refused.
            _ => return Err(nix::errno::Errno::EINVAL),
        }
    }
    Ok(fd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(path: &Path, write: bool) -> AllowedPath {
        AllowedPath {
            path: path.to_path_buf(),
            write,
        }
    }

    #[test]
    fn nested_grants_of_different_modes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("inner")).unwrap();
        let err = resolve(
            &[grant(&root, true), grant(&root.join("inner"), false)],
            &Protected::default(),
        )
        .unwrap_err();
        assert!(err.contains("nested with different modes"), "{err}");
        // Same mode nests fine.
        resolve(
            &[grant(&root, false), grant(&root.join("inner"), false)],
            &Protected::default(),
        )
        .unwrap();
    }

    #[test]
    fn user_symlinks_in_a_grant_path_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("real")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        // Refused whoever runs this: a user's own link, or any deep link under root.
        let err = resolve(&[grant(&root.join("link"), false)], &Protected::default()).unwrap_err();
        assert!(err.contains("passes through the symlink"), "{err}");
    }

    #[test]
    fn protected_folders_cannot_be_granted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let cache = root.join("cache");
        std::fs::create_dir(&cache).unwrap();
        let mut protected = Protected::default();
        protected.add(&cache, "the Wasm artifact cache");
        for path in [&root, &cache] {
            let err = resolve(&[grant(path, false)], &protected).unwrap_err();
            assert!(err.contains("overlaps the Wasm artifact cache"), "{err}");
        }
    }

    #[test]
    fn a_swapped_grant_fails_verification() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let granted = root.join("granted");
        std::fs::create_dir(&granted).unwrap();
        std::fs::write(granted.join("mine"), "").unwrap();
        let preopens = resolve(&[grant(&granted, false)], &Protected::default()).unwrap();
        let opened = open_verified(&preopens).unwrap();
        // The handle's path names the checked directory itself.
        assert!(opened[0].host_path().join("mine").exists());
        drop(opened);
        // Swapped for a symlink: refused.
        std::fs::rename(&granted, root.join("moved")).unwrap();
        std::os::unix::fs::symlink(root.join("moved"), &granted).unwrap();
        assert!(
            open_verified(&preopens)
                .unwrap_err()
                .contains("changed since")
        );
        // Swapped for another real directory: refused too.
        std::fs::remove_file(&granted).unwrap();
        std::fs::create_dir(&granted).unwrap();
        assert!(
            open_verified(&preopens)
                .unwrap_err()
                .contains("changed since")
        );
    }
}

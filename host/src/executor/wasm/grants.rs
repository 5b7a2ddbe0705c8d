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
//! Each resolved grant remembers the identity of its directory (device and inode; volume
//! and file index on Windows). For each call wasmtime opens the grant's path anew, and
//! before the guest runs, the directory handle wasmtime holds must be that same directory
//! ([`verify_opened`]); anything swapped in on the way (a symlink, another folder) fails
//! the call. The check is on the handle the guest will use, so there is no window between
//! check and use, and it needs no `/proc` (the same code on every system).

use std::path::{Component, Path, PathBuf};

use wasmtime::component::ResourceTable;
use wasmtime_wasi::WasiCtx;
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemCtxView};
use wasmtime_wasi::p2::bindings::filesystem::preopens;

use crate::config::AllowedPath;
use crate::platform::{self, FileId};

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
    /// Identity of the directory when it was resolved.
    pub identity: FileId,
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
        let unusable =
            |err: std::io::Error| format!("granted path {} is not usable: {err}", host.display());
        let meta = std::fs::metadata(&host).map_err(unusable)?;
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
        let identity = platform::path_id(&host).map_err(unusable)?;
        resolved.push(Preopen {
            guest: host.display().to_string(),
            host,
            write: grant.write,
            identity,
        });
    }
    Ok(resolved)
}

/// Refuses a path that passes through a symlink a guest could have made.
fn check_symlinks(path: &Path) -> Result<(), String> {
    let root = platform::is_superuser();
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
        // root (a guest run by root plants root-owned links). On Windows none is.
        let trusted = platform::made_by_superuser(&meta) && (!root || depth == 1);
        if !trusted {
            return Err(format!(
                "granted path {} passes through the symlink {}; grant the real directory instead",
                path.display(),
                current.display(),
            ));
        }
    }
    Ok(())
}

/// Checks, before the guest runs, that every directory `ctx` preopened for `preopens`
/// (opened by wasmtime-wasi from the grant's path) is the directory resolved at load: the
/// same identity. wasmtime-wasi 48 preopens only by path (`WasiCtxBuilder::preopened_dir`)
/// and keeps its list private, but hands the handles out through the guest's own
/// `get-directories`, which this calls first on a scratch table.
pub fn verify_opened(preopens: &[Preopen], ctx: &mut WasiCtx) -> Result<(), String> {
    let mut table = ResourceTable::new();
    let mut view = WasiFilesystemCtxView {
        ctx: ctx.filesystem(),
        table: &mut table,
    };
    let opened = preopens::Host::get_directories(&mut view)
        .map_err(|err| format!("cannot list the granted directories: {err}"))?;
    if opened.len() != preopens.len() {
        return Err("granted directories were not all opened".into());
    }
    for ((handle, _), grant) in opened.iter().zip(preopens) {
        let same = match table.get(handle) {
            Ok(Descriptor::Dir(dir)) => platform::file_id(&dir.dir).ok() == Some(grant.identity),
            _ => false,
        };
        if !same {
            return Err(format!(
                "granted directory {} changed since it was configured (replaced or redirected); refusing to open it",
                grant.host.display()
            ));
        }
    }
    Ok(())
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
    #[cfg(unix)]
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

    /// A context opening `preopens` by path, as a call does.
    fn context(preopens: &[Preopen]) -> WasiCtx {
        let mut builder = wasmtime_wasi::WasiCtxBuilder::new();
        for grant in preopens {
            builder
                .preopened_dir(&grant.host, &grant.guest, wasmtime_wasi::FsPerms::ReadOnly)
                .unwrap();
        }
        builder.build()
    }

    #[test]
    fn a_swapped_grant_fails_verification() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let granted = root.join("granted");
        std::fs::create_dir(&granted).unwrap();
        let preopens = resolve(&[grant(&granted, false)], &Protected::default()).unwrap();
        verify_opened(&preopens, &mut context(&preopens)).unwrap();
        std::fs::rename(&granted, root.join("moved")).unwrap();
        // Swapped for a symlink to another folder (as a guest with a read-write grant on
        // the parent could): wasmtime follows it, the handle is not the granted folder.
        #[cfg(unix)]
        {
            std::fs::create_dir(root.join("elsewhere")).unwrap();
            std::os::unix::fs::symlink(root.join("elsewhere"), &granted).unwrap();
            let err = verify_opened(&preopens, &mut context(&preopens)).unwrap_err();
            assert!(err.contains("changed since"), "{err}");
            std::fs::remove_file(&granted).unwrap();
        }
        // Swapped for another real directory: refused too.
        std::fs::create_dir(&granted).unwrap();
        let err = verify_opened(&preopens, &mut context(&preopens)).unwrap_err();
        assert!(err.contains("changed since"), "{err}");
        // Moved back: the very folder again, accepted.
        std::fs::remove_dir(&granted).unwrap();
        std::fs::rename(root.join("moved"), &granted).unwrap();
        verify_opened(&preopens, &mut context(&preopens)).unwrap();
    }
}

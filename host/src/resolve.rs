//! Paths resolved as the kernel resolves them — every link followed, `..` taken after
//! the folder before it is resolved — one folder at a time, each folder once. The
//! envelope's launcher and self-protection each resolve some fifty places, most in the
//! same few folders (the agents' files in the home, the project); `std::fs::canonicalize`
//! reads every component of every path again (two hundred `readlink`s a launch, nearly a
//! thousand for self-protection, which tries each missing place's folders in turn); this
//! asks the file system once per folder and link.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

/// How many links one resolution follows before it gives up (the kernel's limit).
const MAX_LINKS: u32 = 40;

/// A memo of resolved paths, for one launch (the files may change between launches).
#[derive(Debug, Default)]
pub(crate) struct Resolver {
    /// A physical folder joined with one name → what it resolves to (`None`: nothing).
    known: HashMap<PathBuf, Option<PathBuf>>,
}

impl Resolver {
    /// `path` with every link resolved, or `None` when it (or a folder on the way) does
    /// not exist, or loops.
    #[cfg_attr(
        not(any(target_os = "linux", test)),
        allow(
            dead_code,
            reason = "the envelope's launcher, on Linux, resolves with it"
        )
    )]
    pub(crate) fn resolve(&mut self, path: &Path) -> Option<PathBuf> {
        let mut links = 0;
        self.resolve_from(Path::new("/"), path, &mut links)
    }

    /// `path` resolved, or else its nearest ancestor that resolves (`false`).
    #[cfg_attr(
        not(any(target_os = "linux", test)),
        allow(
            dead_code,
            reason = "the envelope's launcher, on Linux, resolves with it"
        )
    )]
    pub(crate) fn existing(&mut self, path: &Path) -> Option<(PathBuf, bool)> {
        if let Some(found) = self.resolve(path) {
            return Some((found, true));
        }
        path.ancestors()
            .skip(1)
            .find_map(|dir| self.resolve(dir))
            .map(|found| (found, false))
    }

    /// `path` as [`crate::file_target::resolve`] gives it — its deepest existing part
    /// resolved, the rest appended as written, a dangling link on the way followed as its
    /// words say — from this memo.
    pub(crate) fn resolve_lenient(&mut self, path: &Path) -> PathBuf {
        self.lenient(path, MAX_LINKS)
    }

    fn lenient(&mut self, path: &Path, links_left: u32) -> PathBuf {
        let clean = crate::file_target::without_dots(path);
        if !clean.is_absolute() {
            return crate::file_target::resolve(path);
        }
        let names: Vec<&OsStr> = clean
            .components()
            .filter_map(|part| match part {
                Component::Normal(name) => Some(name),
                _ => None,
            })
            .collect();
        let mut here = PathBuf::from("/");
        for (at, name) in names.iter().enumerate() {
            let mut links = 0;
            if let Some(resolved) = self.step(&here, name, &mut links) {
                here = resolved;
                continue;
            }
            let rest: PathBuf = names[at + 1..].iter().collect();
            let candidate = here.join(name);
            if links_left > 0
                && let Ok(target) = std::fs::read_link(&candidate)
            {
                return self.lenient(&here.join(target).join(rest), links_left - 1);
            }
            return candidate.join(rest);
        }
        here
    }

    /// `path` resolved, a relative one from the physical folder `base`.
    fn resolve_from(&mut self, base: &Path, path: &Path, links: &mut u32) -> Option<PathBuf> {
        let mut here = if path.is_absolute() {
            PathBuf::from("/")
        } else {
            base.to_path_buf()
        };
        for component in path.components() {
            match component {
                Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
                // `here` holds no link, so its parent is the kernel's `..`.
                Component::ParentDir => {
                    here.pop();
                }
                Component::Normal(name) => here = self.step(&here, name, links)?,
            }
        }
        Some(here)
    }

    /// `name` in the physical folder `dir`, resolved.
    fn step(&mut self, dir: &Path, name: &OsStr, links: &mut u32) -> Option<PathBuf> {
        let candidate = dir.join(name);
        if let Some(known) = self.known.get(&candidate) {
            return known.clone();
        }
        let found = match std::fs::symlink_metadata(&candidate) {
            Ok(meta) if meta.file_type().is_symlink() => {
                *links += 1;
                if *links > MAX_LINKS {
                    return None;
                }
                let target = std::fs::read_link(&candidate).ok()?;
                self.resolve_from(dir, &target, links)
            }
            Ok(_) => Some(candidate.clone()),
            Err(_) => None,
        };
        self.known.insert(candidate, found.clone());
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_as_canonicalize_does_and_says_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("real/sub")).unwrap();
        std::fs::write(root.join("real/sub/file"), "").unwrap();
        std::os::unix::fs::symlink("real", root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("real/sub"), root.join("abs")).unwrap();
        std::os::unix::fs::symlink("sub/../sub/file", root.join("real/chain")).unwrap();
        std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
        std::os::unix::fs::symlink("missing", root.join("dangling")).unwrap();
        // `..` after a link leaves the folder the link points into, as the kernel does.
        std::os::unix::fs::symlink("real/sub", root.join("deep")).unwrap();
        let mut resolver = Resolver::default();
        for path in [
            "link/sub/file",
            "abs/file",
            "link/chain",
            "deep/..",
            "real/./sub/../sub",
            "link",
        ] {
            let path = root.join(path);
            assert_eq!(
                resolver.resolve(&path),
                Some(std::fs::canonicalize(&path).unwrap()),
                "{}",
                path.display()
            );
        }
        assert_eq!(resolver.resolve(&root.join("loop")), None);
        assert_eq!(resolver.resolve(&root.join("dangling")), None);
        assert_eq!(
            resolver.existing(&root.join("link/none/file")),
            Some((root.join("real"), false))
        );
        assert_eq!(
            resolver.existing(&root.join("dangling")),
            Some((root.clone(), false))
        );
        assert_eq!(
            resolver.existing(&root.join("abs/file")),
            Some((root.join("real/sub/file"), true))
        );
    }

    #[test]
    fn lenient_resolution_is_self_protections_own() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("real/sub")).unwrap();
        std::fs::write(root.join("real/file"), "").unwrap();
        std::os::unix::fs::symlink("real", root.join("link")).unwrap();
        std::os::unix::fs::symlink("real/gone/x", root.join("dangling")).unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere/y"), root.join("absdangling")).unwrap();
        let mut resolver = Resolver::default();
        for path in [
            "link/sub",
            "link/missing/deeper",
            "dangling",
            "dangling/more",
            "absdangling",
            "real/file/under-a-file",
            "link/./sub/../sub",
            "nothing/at/all",
        ] {
            let path = root.join(path);
            assert_eq!(
                resolver.resolve_lenient(&path),
                crate::file_target::resolve(&path),
                "{}",
                path.display()
            );
        }
    }
}

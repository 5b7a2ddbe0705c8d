//! Paths resolved as the kernel resolves them — every link followed, `..` taken after
//! the folder before it is resolved — one folder at a time, each folder once. The
//! launcher resolves some fifty places per command, most in the same few folders (the
//! agents' files in the home); `std::fs::canonicalize` reads every component of every
//! path again (two hundred `readlink`s a launch), this asks the file system once per
//! folder and link.

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
    pub(crate) fn resolve(&mut self, path: &Path) -> Option<PathBuf> {
        let mut links = 0;
        self.resolve_from(Path::new("/"), path, &mut links)
    }

    /// `path` resolved, or else its nearest ancestor that resolves (`false`).
    pub(crate) fn existing(&mut self, path: &Path) -> Option<(PathBuf, bool)> {
        if let Some(found) = self.resolve(path) {
            return Some((found, true));
        }
        path.ancestors()
            .skip(1)
            .find_map(|dir| self.resolve(dir))
            .map(|found| (found, false))
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
}

//! The secret files a command must not read, found when it starts: the `secrets`
//! builtin's rule ([`super::secret_files::secret_kind`], one file shared with the guest)
//! over the project's files and the home's credential places. Dependency and build
//! folders are not walked (they hold other people's files, and most of a project's
//! entries); a project too large to walk within the cap refuses the command rather than
//! run it with a secret left readable.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::Envelope;
use super::secret_files::secret_kind;

/// Entries the project walk reads before it gives up (and the command is refused).
pub const MAX_ENTRIES: usize = 200_000;

/// How deep below the project the walk goes.
const MAX_DEPTH: usize = 12;

/// Folders not walked: version control, dependencies, build output, caches.
const NOT_WALKED: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".gradle",
    ".next",
    ".nuxt",
    "dist",
    "build",
    "vendor",
];

/// Folders below the home whose every entry the rule judges (the rest of the home is
/// judged at its top level and at the credential files' own places).
const HOME_FOLDERS: &[&str] = &[
    ".ssh",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".terraform.d",
];

/// A secret file found, with what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    /// Where.
    pub path: PathBuf,
    /// What it holds (`environment secrets`, `an SSH private key`, …).
    pub kind: &'static str,
}

/// Every secret file of `envelope`'s project and home, or why they cannot all be found
/// (the walk's cap) or hidden (a hard link the walk did not find).
pub fn secrets(envelope: &Envelope) -> Result<Vec<Secret>, String> {
    let allow = &envelope.secret_allow;
    let mut found = Vec::new();
    if let Some(project) = &envelope.project {
        found.extend(project_secrets(envelope, project)?);
    }
    if let Some(home) = &envelope.home {
        let mut folders = vec![home.clone()];
        folders.extend(HOME_FOLDERS.iter().map(|dir| home.join(dir)));
        for folder in folders {
            for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
                judge(&entry.path(), allow, &mut found);
            }
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found.dedup_by(|a, b| a.path == b.path);
    no_hidden_links(&found)?;
    Ok(found)
}

/// Walks `project` breadth-first, judging every file; each folder read is recorded in
/// `folders` with its stamp (so that a later walk can tell nothing changed).
fn walk(
    project: &Path,
    allow: &[String],
    found: &mut Vec<Secret>,
    folders: &mut Vec<Folder>,
) -> Result<(), String> {
    let mut seen = 0usize;
    let mut level = vec![project.to_path_buf()];
    for _ in 0..=MAX_DEPTH {
        let mut next = Vec::new();
        for dir in level {
            let Some(stamp) = stamp(&dir) else {
                continue;
            };
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                seen += 1;
                if seen > MAX_ENTRIES {
                    return Err(format!(
                        "the project {} holds over {MAX_ENTRIES} entries outside dependency and build folders: hookhost cannot look through them all for secret files before the command runs, so it was not run",
                        project.display()
                    ));
                }
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let name = entry.file_name();
                if kind.is_dir() {
                    if !NOT_WALKED.iter().any(|skip| name == *skip) {
                        next.push(entry.path());
                    }
                } else {
                    judge(&entry.path(), allow, found);
                }
            }
            folders.push(Folder { path: dir, stamp });
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    Ok(())
}

/// A folder the walk read, and its stamp then.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Folder {
    path: PathBuf,
    /// Device, inode and status-change time (seconds, nanoseconds): any entry added,
    /// removed or renamed in it moves the time, and no process can set it back.
    stamp: (u64, u64, i64, i64),
}

/// `dir`'s stamp, when it is a folder (not followed past a link).
fn stamp(dir: &Path) -> Option<(u64, u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(dir).ok()?;
    meta.is_dir()
        .then(|| (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()))
}

/// What the last walk of a project found, kept in hookhost's envelope folder (which no
/// command inside the envelope can write) and used while none of its folders changed.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Walked {
    folders: Vec<Folder>,
    secrets: Vec<PathBuf>,
}

/// The file the walk of `envelope`'s project is kept in.
fn walked_file(envelope: &Envelope) -> PathBuf {
    envelope
        .withheld
        .with_file_name(format!("walk-{}.json", &envelope.digest()[..24]))
}

/// The project's secret files: from the kept walk while every folder it read is
/// unchanged, else from a new walk (then kept).
fn project_secrets(envelope: &Envelope, project: &Path) -> Result<Vec<Secret>, String> {
    let allow = &envelope.secret_allow;
    let file = walked_file(envelope);
    let kept: Option<Walked> = crate::files::read_regular(&file, 64 << 20)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    if let Some(kept) = kept
        && kept
            .folders
            .iter()
            .all(|folder| stamp(&folder.path) == Some(folder.stamp))
    {
        let mut found = Vec::new();
        for path in &kept.secrets {
            judge(path, allow, &mut found);
        }
        return Ok(found);
    }
    let (mut found, mut folders) = (Vec::new(), Vec::new());
    walk(project, allow, &mut found, &mut folders)?;
    let walked = Walked {
        folders,
        secrets: found.iter().map(|secret| secret.path.clone()).collect(),
    };
    // Keeping it is only a saving: a failure to write costs the next walk, nothing else.
    if let Ok(bytes) = serde_json::to_vec(&walked) {
        let _ = crate::files::replace_private(&file, &bytes);
    }
    Ok(found)
}

/// Adds `path` when the rule names it a secret and it is (or links to) a regular file.
fn judge(path: &Path, allow: &[String], found: &mut Vec<Secret>) {
    let Some(text) = path.to_str() else {
        return;
    };
    let Some(kind) = secret_kind(text, allow) else {
        return;
    };
    if std::fs::metadata(path).is_ok_and(|meta| meta.is_file()) {
        found.push(Secret {
            path: path.to_path_buf(),
            kind,
        });
    }
}

/// Refuses a secret with more hard links than the walk found names for it: the other
/// name would read the content the envelope hides.
fn no_hidden_links(found: &[Secret]) -> Result<(), String> {
    let mut names: HashMap<(u64, u64), (u64, usize, &Path)> = HashMap::new();
    for secret in found {
        let Ok(meta) = std::fs::metadata(&secret.path) else {
            continue;
        };
        let Some(stamp) = crate::platform::change_stamp(&meta) else {
            continue;
        };
        let id = (stamp.dev, stamp.ino);
        let entry =
            names
                .entry(id)
                .or_insert((crate::platform::link_count(&meta), 0, &secret.path));
        entry.1 += 1;
    }
    for (links, named, path) in names.values() {
        if *links > *named as u64 {
            return Err(format!(
                "the secret file {} has {links} hard links and hookhost knows {named} of their names: a command could read its content under another name, so it was not run. Remove the other link (`find / -xdev -samefile {}`), then try again",
                path.display(),
                path.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(project: &Path, home: &Path) -> Envelope {
        super::super::tests::sample(project, home)
    }

    #[test]
    fn finds_the_projects_and_the_homes_secrets_but_not_templates_or_dependencies() {
        let dir = tempfile::tempdir().unwrap();
        let (project, home) = (dir.path().join("p"), dir.path().join("h"));
        for file in [
            "p/.env",
            "p/config/.env.local",
            "p/.env.example",
            "p/node_modules/x/.env",
            "p/src/main.rs",
            "h/.ssh/id_ed25519",
            "h/.ssh/id_ed25519.pub",
            "h/.aws/credentials",
            "h/.netrc",
        ] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "x").unwrap();
        }
        let found: Vec<String> = secrets(&envelope(&project, &home))
            .unwrap()
            .into_iter()
            .map(|s| {
                s.path
                    .strip_prefix(dir.path())
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        assert_eq!(
            found,
            [
                "h/.aws/credentials",
                "h/.netrc",
                "h/.ssh/id_ed25519",
                "p/.env",
                "p/config/.env.local"
            ]
        );
    }

    #[test]
    fn a_walk_is_kept_until_a_folder_changes() {
        let dir = tempfile::tempdir().unwrap();
        let (project, home) = (dir.path().join("p"), dir.path().join("h"));
        std::fs::create_dir_all(project.join("deep/er")).unwrap();
        std::fs::create_dir_all(home.join("state/envelope")).unwrap();
        std::fs::write(project.join(".env"), "K=1").unwrap();
        let envelope = envelope(&project, &home);
        let names = |found: Vec<Secret>| -> Vec<String> {
            found
                .into_iter()
                .map(|s| s.path.strip_prefix(&project).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(names(secrets(&envelope).unwrap()), [".env"]);
        assert!(walked_file(&envelope).is_file(), "the walk was not kept");
        // Kept: the same answer without a walk.
        assert_eq!(names(secrets(&envelope).unwrap()), [".env"]);
        // A secret added deep down changes its folder: walked again.
        std::fs::write(project.join("deep/er/prod.env"), "K=2").unwrap();
        assert_eq!(
            names(secrets(&envelope).unwrap()),
            [".env", "deep/er/prod.env"]
        );
        // One removed is gone too.
        std::fs::remove_file(project.join(".env")).unwrap();
        assert_eq!(names(secrets(&envelope).unwrap()), ["deep/er/prod.env"]);
    }

    #[test]
    fn a_hard_link_under_another_name_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let (project, home) = (dir.path().join("p"), dir.path().join("h"));
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(project.join(".env"), "KEY=1").unwrap();
        assert!(secrets(&envelope(&project, &home)).is_ok());
        std::fs::hard_link(project.join(".env"), project.join("notes.txt")).unwrap();
        let why = secrets(&envelope(&project, &home)).unwrap_err();
        assert!(why.contains("2 hard links"), "{why}");
        // Two secret names for one file are both hidden: no refusal.
        std::fs::remove_file(project.join("notes.txt")).unwrap();
        std::fs::hard_link(project.join(".env"), project.join("prod.env")).unwrap();
        assert_eq!(secrets(&envelope(&project, &home)).unwrap().len(), 2);
    }
}

//! The git configuration a command leaves behind. Ordinary git writes the repository's
//! `config` (`push -u`, `remote add`, `config user.email`, branch tracking), so it stays
//! writable inside the envelope; but a key that makes git run a program (`core.fsmonitor`
//! runs at the next `git status` anyone runs there, `core.pager`, `diff.external`, an
//! alias, `include.path`, …) would run outside, with the user's rights, at the user's next
//! git command. The launcher keeps each config file git reads in the project's git dir
//! (`config`, `config.worktree`, the linked worktrees' and the submodules') as it was when
//! the command started, and when the command ends puts back every such key the command
//! changed, keeping the rest of its changes; a command that leaves processes behind gets
//! the files held read-only for them ([`GitConfigGuard::hold`]).
//!
//! Git itself reads the files (`git config --file … --no-includes --list`, the user's own
//! parser: no key is read differently here than by the git that later runs it), from a
//! fixed place, with an empty environment; every file is reached from the git dir opened
//! when the command started, one folder at a time and never through a link.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

use nix::fcntl::{OFlag, openat};
use nix::sys::stat::Mode;

/// The keys that make git run a program, as `git config --list` names them (section
/// and name lower case): `sec.name`, `sec.*.name` (any subsection), `sec.**` (every key of
/// the section). From git's documentation (`../shared/reference/runs-later.md`, 1a).
pub(crate) const RUNS_PROGRAM: &[&str] = &[
    "alias.**",
    "browser.*.cmd",
    "browser.*.path",
    "core.alternaterefscommand",
    "core.askpass",
    "core.attributesfile",
    "core.editor",
    "core.fsmonitor",
    "core.gitproxy",
    "core.hookspath",
    "core.pager",
    "core.sshcommand",
    "core.worktree",
    "credential.helper",
    "credential.*.helper",
    "diff.external",
    "diff.*.command",
    "diff.*.textconv",
    "difftool.*.cmd",
    "difftool.*.path",
    "filter.**",
    "gc.recentobjectshook",
    "gpg.program",
    "gpg.*.program",
    "gpg.*.defaultkeycommand",
    "guitool.*.cmd",
    "hook.**",
    "imap.tunnel",
    "include.path",
    "includeif.*.path",
    "interactive.difffilter",
    "log.showsignature",
    "man.viewer",
    "man.*.cmd",
    "man.*.path",
    "merge.*.driver",
    "mergetool.*.cmd",
    "mergetool.*.path",
    "pager.**",
    "protocol.allow",
    "protocol.*.allow",
    "remote.*.receivepack",
    "remote.*.uploadpack",
    "remote.*.vcs",
    "sendemail.**",
    "sequence.editor",
    "submodule.*.update",
    "tar.*.command",
    "uploadpack.packobjectshook",
    "web.browser",
];

/// Where the git that reads the files is looked for (never the command's `PATH`).
const TRUSTED_GIT: &[&str] = &[
    "/usr/bin/git",
    "/usr/local/bin/git",
    "/opt/homebrew/bin/git",
    "/bin/git",
];

/// Largest config file kept (a bigger one is put back whole when it changes).
const MAX_CONFIG: u64 = 1 << 20;

/// How deep submodules nest below `modules/`.
const MAX_MODULE_DEPTH: usize = 3;

/// Whether `key` (as `git config --list` prints it) makes git run a program.
pub(crate) fn runs_program(key: &str) -> bool {
    let Some((section, rest)) = key.split_once('.') else {
        return false;
    };
    let (sub, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    let section = section.to_ascii_lowercase();
    let name = name.to_ascii_lowercase();
    RUNS_PROGRAM.iter().any(|pattern| {
        let parts: Vec<&str> = pattern.split('.').collect();
        match (parts.as_slice(), sub) {
            ([sec, "**"], _) => *sec == section,
            ([sec, want], None) => *sec == section && *want == name,
            ([sec, "*", want], Some(_)) => *sec == section && *want == name,
            _ => false,
        }
    })
}

/// A config file, as the folders from the git dir to it.
type Rel = Vec<String>;

/// The config files of one git dir, as they were when the command started.
pub(crate) struct GitConfigGuard {
    /// The git dir, opened before the command's mounts (what they hold is written
    /// through it).
    dir: OwnedFd,
    /// Its path, in the command's view.
    path: PathBuf,
    /// Each file's bytes then (`None`: absent).
    before: BTreeMap<Rel, Option<Vec<u8>>>,
    /// The places the envelope covers the real git with (left behind, in a mount
    /// namespace of their own, by the git this guard runs).
    covers: std::sync::Mutex<Vec<std::ffi::CString>>,
}

impl GitConfigGuard {
    /// The guard of `project`'s git dir, if it has one.
    pub(crate) fn watch(project: &Path) -> Option<GitConfigGuard> {
        let path = git_dir(project)?;
        let dir = open_dir(&path)?;
        let mut guard = GitConfigGuard {
            dir,
            path,
            before: BTreeMap::new(),
            covers: std::sync::Mutex::new(Vec::new()),
        };
        for rel in guard.files() {
            let bytes = guard.read(&rel);
            guard.before.insert(rel, bytes);
        }
        Some(guard)
    }

    /// The git dir's path.
    #[cfg(target_os = "linux")]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The places the envelope covers the real git with, for the git this guard runs
    /// to leave behind.
    #[cfg(target_os = "linux")]
    pub(crate) fn uncover(&self, covers: &super::judge::Covers) {
        if let Ok(mut kept) = self.covers.lock() {
            *kept = covers
                .files
                .iter()
                .chain(&covers.folders)
                .filter_map(|path| std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok())
                .collect();
        }
    }

    /// The covers to leave behind.
    fn covers(&self) -> Vec<std::ffi::CString> {
        self.covers
            .lock()
            .map(|covers| covers.clone())
            .unwrap_or_default()
    }

    /// The config files git reads in the git dir now.
    fn files(&self) -> Vec<Rel> {
        let mut files: Vec<Rel> = vec![vec!["config".into()], vec!["config.worktree".into()]];
        for id in self.children(&["worktrees".into()]) {
            files.push(vec!["worktrees".into(), id, "config.worktree".into()]);
        }
        let mut modules = vec![vec!["modules".to_string()]];
        for _ in 0..MAX_MODULE_DEPTH {
            let mut deeper = Vec::new();
            for folder in &modules {
                for name in self.children(folder) {
                    let mut module = folder.clone();
                    module.push(name);
                    for file in ["config", "config.worktree"] {
                        let mut rel = module.clone();
                        rel.push(file.into());
                        files.push(rel);
                    }
                    module.push("modules".into());
                    deeper.push(module);
                }
            }
            modules = deeper;
        }
        files
    }

    /// The folders in the folder `rel` (none when it is missing or a link).
    fn children(&self, rel: &[String]) -> Vec<String> {
        let Some(fd) = self.folder(rel) else {
            return Vec::new();
        };
        let Ok(mut dir) = nix::dir::Dir::from_fd(fd) else {
            return Vec::new();
        };
        let mut names: Vec<String> = dir
            .iter()
            .flatten()
            .filter(|entry| entry.file_type() == Some(nix::dir::Type::Directory))
            .filter_map(|entry| entry.file_name().to_str().ok().map(str::to_string))
            .filter(|name| name != "." && name != "..")
            .collect();
        names.sort();
        names.truncate(256);
        names
    }

    /// The folder `rel` below the git dir, each step opened without following a link.
    fn folder(&self, rel: &[String]) -> Option<OwnedFd> {
        let mut fd = nix::unistd::dup(self.dir.as_fd()).ok()?;
        for name in rel {
            fd = openat(
                fd.as_fd(),
                name.as_str(),
                OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
                Mode::empty(),
            )
            .ok()?;
        }
        Some(fd)
    }

    /// The bytes of the regular file `rel` (at most [`MAX_CONFIG`] and one), or `None`.
    fn read(&self, rel: &Rel) -> Option<Vec<u8>> {
        let (name, folder) = rel.split_last()?;
        let folder = self.folder(folder)?;
        let fd = openat(
            folder.as_fd(),
            name.as_str(),
            OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .ok()?;
        let file = std::fs::File::from(fd);
        if !file.metadata().ok()?.is_file() {
            return Some(b"(not a regular file)".to_vec());
        }
        let mut bytes = Vec::new();
        file.take(MAX_CONFIG + 1).read_to_end(&mut bytes).ok()?;
        Some(bytes)
    }

    /// Whether `rel` is there but is not a regular file (a link, a FIFO, a folder).
    fn is_odd(&self, rel: &Rel) -> bool {
        let Some((name, folder)) = rel.split_last() else {
            return false;
        };
        let Some(folder) = self.folder(folder) else {
            return false;
        };
        nix::sys::stat::fstatat(
            folder.as_fd(),
            name.as_str(),
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        )
        .is_ok_and(|stat| stat.st_mode & libc::S_IFMT != libc::S_IFREG)
    }

    /// Replaces the content of `rel` with `bytes` (in place: the file may be held by a
    /// mount in the command's view, which the git dir opened before it does not cross);
    /// a link or other non-file there is removed first.
    fn write(&self, rel: &Rel, bytes: &[u8]) -> Result<(), String> {
        let (name, folder) = rel.split_last().ok_or("no file")?;
        let folder = self
            .folder(folder)
            .ok_or_else(|| format!("{} is gone", self.show(rel)))?;
        if self.is_odd(rel) {
            nix::unistd::unlinkat(
                folder.as_fd(),
                name.as_str(),
                nix::unistd::UnlinkatFlags::NoRemoveDir,
            )
            .map_err(|err| format!("cannot remove {}: {err}", self.show(rel)))?;
        }
        let fd = openat(
            folder.as_fd(),
            name.as_str(),
            OFlag::O_WRONLY
                | OFlag::O_CREAT
                | OFlag::O_TRUNC
                | OFlag::O_NOFOLLOW
                | OFlag::O_CLOEXEC,
            Mode::from_bits_truncate(0o644),
        )
        .map_err(|err| format!("cannot write {}: {err}", self.show(rel)))?;
        let mut file = std::fs::File::from(fd);
        file.write_all(bytes)
            .map_err(|err| format!("cannot write {}: {err}", self.show(rel)))
    }

    /// The path of `rel` in the command's view.
    fn show(&self, rel: &Rel) -> String {
        rel.iter()
            .fold(self.path.clone(), |path, name| path.join(name))
            .display()
            .to_string()
    }

    /// Puts back, in every config file the command changed, each key that runs a program
    /// as it was; the rest of the command's changes stay. One line per file put back.
    pub(crate) fn settle(&self) -> Vec<String> {
        let git = TRUSTED_GIT.iter().map(Path::new).find(|git| git.is_file());
        let mut said = Vec::new();
        let mut files = self.files();
        files.extend(self.before.keys().cloned());
        files.sort();
        files.dedup();
        for rel in files {
            let before = self.before.get(&rel).cloned().flatten();
            let after = self.read(&rel);
            if after == before || (after.is_none() && !self.is_odd(&rel)) {
                continue;
            }
            match self.settle_one(&rel, before.as_deref(), after.as_deref(), git) {
                Ok(None) => {}
                Ok(Some(line)) => said.push(line),
                Err(why) => said.push(format!(
                    "{}: could not be put back ({why}); check it before running git there",
                    self.show(&rel)
                )),
            }
        }
        said
    }

    /// One changed file: what was put back, if anything.
    fn settle_one(
        &self,
        rel: &Rel,
        before: Option<&[u8]>,
        after: Option<&[u8]>,
        git: Option<&Path>,
    ) -> Result<Option<String>, String> {
        let show = self.show(rel);
        let odd = self.is_odd(rel);
        let too_big = |bytes: Option<&[u8]>| bytes.is_some_and(|b| b.len() as u64 > MAX_CONFIG);
        let whole = |why: &str| -> Result<Option<String>, String> {
            self.restore(rel, before)?;
            Ok(Some(format!("{show}: {why}; put back as it was")))
        };
        if odd {
            return whole("the command put something other than a file there");
        }
        let (Some(git), Some(after)) = (git, after) else {
            return whole("changed, and no git to read it with here");
        };
        if too_big(Some(after)) || too_big(before) {
            return whole("changed, and too large to read");
        }
        let scratch = Scratch::new()?;
        let covers = self.covers();
        let entries = |bytes: &[u8], name: &str| -> Result<Entries, String> {
            let file = scratch.write(name, bytes)?;
            list(git, &file, &covers)
        };
        let old = match before {
            Some(bytes) => entries(bytes, "before")?,
            None => Entries::new(),
        };
        let new = match entries(after, "after") {
            Ok(new) => new,
            Err(why) => return whole(&format!("changed into what git cannot read ({why})")),
        };
        let changed: Vec<&String> = new
            .keys()
            .chain(old.keys())
            .filter(|key| runs_program(key) && old.get(*key) != new.get(*key))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if changed.is_empty() {
            return Ok(None);
        }
        let fixed = scratch.write("fixed", after)?;
        for key in &changed {
            edit(
                git,
                &fixed,
                &["--unset-all", key.as_str()],
                &[0, 5],
                &covers,
            )?;
            for value in old.get(*key).into_iter().flatten() {
                let value = value.as_deref().unwrap_or("true");
                edit(git, &fixed, &["--add", key.as_str(), value], &[0], &covers)?;
            }
        }
        let check = list(git, &fixed, &covers)?;
        let programs = |entries: &Entries| -> Entries {
            entries
                .iter()
                .filter(|(key, _)| runs_program(key))
                .map(|(key, values)| (key.clone(), values.clone()))
                .collect()
        };
        let names: Vec<&str> = changed.iter().map(|key| key.as_str()).collect();
        if programs(&check) != programs(&old) {
            return whole(&format!("the command set {}", names.join(", ")));
        }
        let bytes = crate::files::read_regular(&fixed, MAX_CONFIG)
            .map_err(|err| format!("cannot read the repaired copy: {err}"))?;
        self.write(rel, &bytes)?;
        Ok(Some(format!(
            "{show}: the command set {} (git would run {} outside the envelope); put back, its other changes kept",
            names.join(", "),
            if names.len() == 1 { "it" } else { "them" }
        )))
    }

    /// `rel` as it was: its bytes, or removed when it did not exist.
    fn restore(&self, rel: &Rel, before: Option<&[u8]>) -> Result<(), String> {
        match before {
            Some(bytes) => self.write(rel, bytes),
            None => {
                let (name, folder) = rel.split_last().ok_or("no file")?;
                let folder = self.folder(folder).ok_or("its folder is gone")?;
                nix::unistd::unlinkat(
                    folder.as_fd(),
                    name.as_str(),
                    nix::unistd::UnlinkatFlags::NoRemoveDir,
                )
                .map_err(|err| format!("cannot remove {}: {err}", self.show(rel)))
            }
        }
    }

    /// The places git runs programs from that the command must not change: each
    /// submodule's hooks folder and attributes (made when missing), and the folder `core.hooksPath` names
    /// (read with git only when a config file mentions it), with why.
    pub(crate) fn held(&self, work_tree: &Path) -> Vec<(PathBuf, String)> {
        let mut held = Vec::new();
        for rel in self.files() {
            let [modules @ .., last] = rel.as_slice() else {
                continue;
            };
            if last != "config" || modules.first().map(String::as_str) != Some("modules") {
                continue;
            }
            let module = modules
                .iter()
                .fold(self.path.clone(), |path, name| path.join(name));
            if module.join("HEAD").is_file() {
                // Made when missing (inside the git dir, where no review looks), so that
                // holding them never holds the whole module instead.
                let _ = std::fs::create_dir_all(module.join("hooks"));
                let _ = std::fs::create_dir_all(module.join("info"));
                let _ = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(module.join("info/attributes"));
                held.push((
                    module.join("hooks"),
                    "a submodule's git hooks (they run at its next commit, checkout, push)".into(),
                ));
                held.push((
                    module.join("info/attributes"),
                    "a submodule's git attributes".into(),
                ));
            }
        }
        let mentions = self.before.values().flatten().any(|bytes| {
            bytes
                .windows(9)
                .any(|window| window.eq_ignore_ascii_case(b"hookspath"))
        });
        let git = TRUSTED_GIT.iter().map(Path::new).find(|git| git.is_file());
        if let (true, Some(git)) = (mentions, git) {
            for (rel, bytes) in &self.before {
                let Some(bytes) = bytes else { continue };
                let Ok(scratch) = Scratch::new() else {
                    continue;
                };
                let Ok(file) = scratch.write("config", bytes) else {
                    continue;
                };
                let Ok(entries) = list(git, &file, &[]) else {
                    continue;
                };
                for value in entries
                    .get("core.hookspath")
                    .into_iter()
                    .flatten()
                    .flatten()
                {
                    let folder = Path::new(value);
                    let base = if rel.len() == 1 {
                        work_tree
                    } else {
                        &self.path
                    };
                    held.push((
                        base.join(folder),
                        "the folder core.hooksPath names (its hooks run at the next commit)".into(),
                    ));
                }
            }
        }
        held
    }

    /// The places to hold read-only for processes the command leaves running: its config
    /// files, and the folders new ones would appear in (made when missing).
    #[cfg(target_os = "linux")]
    pub(crate) fn hold(&self) -> Vec<PathBuf> {
        let mut held = Vec::new();
        for folder in ["worktrees", "modules"] {
            let path = self.path.join(folder);
            if std::fs::symlink_metadata(&path).is_err() {
                let _ = nix::sys::stat::mkdirat(
                    self.dir.as_fd(),
                    folder,
                    Mode::from_bits_truncate(0o755),
                );
            }
            if path.is_dir() {
                held.push(path);
            }
        }
        for rel in self.files() {
            if rel.len() == 1 && self.read(&rel).is_some() {
                held.push(self.path.join(&rel[0]));
            }
        }
        held
    }
}

/// `project`'s git dir: `.git` itself, or where a `.git` file (`gitdir: …`, a linked
/// worktree or a submodule) points.
fn git_dir(project: &Path) -> Option<PathBuf> {
    let dot_git = project.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git);
    }
    if !meta.is_file() {
        return None;
    }
    let text = crate::files::read_regular(&dot_git, 4096).ok()?;
    let text = String::from_utf8(text).ok()?;
    let target = text.strip_prefix("gitdir:")?.trim();
    let target = project.join(target);
    target.is_dir().then_some(target)
}

/// `path` opened as a folder, not through a link at its end.
fn open_dir(path: &Path) -> Option<OwnedFd> {
    nix::fcntl::open(
        path,
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .ok()
}

/// A config file's keys with their values in order (`None`: a key with no `=`).
type Entries = BTreeMap<String, Vec<Option<String>>>;

/// The entries of the config file `file`, read by `git` (its includes not followed).
fn list(git: &Path, file: &Path, covers: &[std::ffi::CString]) -> Result<Entries, String> {
    let out = git_command(git, covers)
        .arg("config")
        .arg("--file")
        .arg(file)
        .args(["--no-includes", "--list", "-z"])
        .output()
        .map_err(|err| format!("cannot run {}: {err}", git.display()))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    let mut entries = Entries::new();
    for record in out.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let record = String::from_utf8_lossy(record);
        let (key, value) = match record.split_once('\n') {
            Some((key, value)) => (key.to_string(), Some(value.to_string())),
            None => (record.to_string(), None),
        };
        entries.entry(key).or_default().push(value);
    }
    Ok(entries)
}

/// Edits the config file `file` with `git config --file FILE ARGS`; `ok`: the exit codes
/// that mean it did (5: nothing to unset).
fn edit(
    git: &Path,
    file: &Path,
    args: &[&str],
    ok: &[i32],
    covers: &[std::ffi::CString],
) -> Result<(), String> {
    let out = git_command(git, covers)
        .arg("config")
        .arg("--file")
        .arg(file)
        .args(args)
        .output()
        .map_err(|err| format!("cannot run {}: {err}", git.display()))?;
    match out.status.code() {
        Some(code) if ok.contains(&code) => Ok(()),
        _ => Err(format!(
            "git config {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

/// `git` with nothing of the command's environment: no config but the file named, no
/// pager, run from `/`; where the envelope covers the real git (`covers`), in a mount
/// namespace of its own without the covers.
fn git_command(git: &Path, covers: &[std::ffi::CString]) -> std::process::Command {
    let mut command = std::process::Command::new(git);
    #[cfg(target_os = "linux")]
    if !covers.is_empty() {
        super::judge::without_covers(&mut command, covers.to_vec(), None);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = covers;
    command
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", "/nonexistent")
        .current_dir("/")
        .stdin(std::process::Stdio::null());
    command
}

/// A private folder in `/tmp` for the copies git reads, removed when dropped.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new() -> Result<Scratch, String> {
        Ok(Scratch {
            dir: crate::files::private_temp_folder(".hookhost-git-")?,
        })
    }

    /// `bytes` written to the new file `name` in it.
    fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
        let path = self.dir.join(name);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        let mut file = crate::platform::no_follow(crate::platform::private_file(&mut options))
            .open(&path)
            .map_err(|err| format!("cannot write a copy: {err}"))?;
        file.write_all(bytes)
            .map_err(|err| format!("cannot write a copy: {err}"))?;
        Ok(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_run_programs_are_told_from_ordinary_ones() {
        for key in [
            "core.fsmonitor",
            "core.hooksPath",
            "core.pager",
            "alias.st",
            "pager.log",
            "diff.external",
            "diff.img.textconv",
            "filter.x.clean",
            "filter.x.process",
            "include.path",
            "includeif.gitdir:/x/.path",
            "remote.origin.receivepack",
            "credential.https://h.example.helper",
            "gpg.ssh.defaultkeycommand",
            "sendemail.smtpserver",
            "hook.pre.command",
            "protocol.ext.allow",
        ] {
            assert!(runs_program(key), "{key}");
        }
        for key in [
            "user.email",
            "remote.origin.url",
            "remote.origin.fetch",
            "branch.main.remote",
            "branch.main.merge",
            "core.bare",
            "core.repositoryformatversion",
            "diff.renames",
            "push.autosetupremote",
            "remote.a.b.c.url",
            "nosection",
        ] {
            assert!(!runs_program(key), "{key}");
        }
    }

    fn git(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    fn config(dir: &Path, key: &str) -> Option<String> {
        let out = std::process::Command::new("git")
            .args(["config", "--file", ".git/config", "--get-all", key])
            .current_dir(dir)
            .output()
            .unwrap();
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    #[test]
    fn a_program_key_is_put_back_and_the_ordinary_changes_stay() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        git(repo, &["init", "-q"]);
        git(repo, &["config", "core.pager", "less -R"]);
        let guard = GitConfigGuard::watch(repo).unwrap();
        git(repo, &["config", "core.fsmonitor", "touch /tmp/x; echo"]);
        git(repo, &["config", "core.pager", "sh -c evil"]);
        git(repo, &["config", "--add", "alias.st", "!sh -c evil"]);
        git(
            repo,
            &["remote", "add", "origin", "https://example.org/r.git"],
        );
        git(repo, &["config", "user.email", "a@example.org"]);
        let said = guard.settle();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("core.fsmonitor"), "{said:?}");
        assert_eq!(config(repo, "core.fsmonitor"), None);
        assert_eq!(config(repo, "alias.st"), None);
        assert_eq!(config(repo, "core.pager").as_deref(), Some("less -R"));
        assert_eq!(
            config(repo, "remote.origin.url").as_deref(),
            Some("https://example.org/r.git")
        );
        assert_eq!(config(repo, "user.email").as_deref(), Some("a@example.org"));
        assert!(guard.settle().is_empty(), "nothing left to put back");
    }

    #[test]
    fn however_the_key_is_written_git_reads_it_and_it_goes() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        git(repo, &["init", "-q"]);
        let guard = GitConfigGuard::watch(repo).unwrap();
        let mut text = std::fs::read_to_string(repo.join(".git/config")).unwrap();
        // Case, spacing, a continuation line and a subsection header of git's own syntax.
        text.push_str("[CoRe]\n\tFSMonitor = \"touch \\\n/tmp/y\"\n[Filter \"z\"]\n\tsmudge = evil\n[include]\n\tpath = ../notes.cfg\n");
        std::fs::write(repo.join(".git/config"), text).unwrap();
        let said = guard.settle();
        assert_eq!(said.len(), 1, "{said:?}");
        for key in ["core.fsmonitor", "filter.z.smudge", "include.path"] {
            assert_eq!(config(repo, key), None, "{key}");
        }
        // A link put in its place is replaced by the file as it was.
        std::fs::remove_file(repo.join(".git/config")).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", repo.join(".git/config")).unwrap();
        let said = guard.settle();
        assert!(said[0].contains("other than a file"), "{said:?}");
        assert!(
            std::fs::symlink_metadata(repo.join(".git/config"))
                .unwrap()
                .is_file()
        );
    }

    #[test]
    fn a_submodules_and_a_worktrees_config_are_watched_too() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        git(repo, &["init", "-q"]);
        std::fs::create_dir_all(repo.join(".git/modules/lib")).unwrap();
        std::fs::write(
            repo.join(".git/modules/lib/config"),
            "[core]\n\tbare = false\n",
        )
        .unwrap();
        let guard = GitConfigGuard::watch(repo).unwrap();
        std::fs::write(
            repo.join(".git/modules/lib/config"),
            "[core]\n\tbare = false\n\thooksPath = /tmp/h\n",
        )
        .unwrap();
        std::fs::write(
            repo.join(".git/config.worktree"),
            "[core]\n\tsshCommand = evil\n",
        )
        .unwrap();
        let said = guard.settle();
        assert_eq!(said.len(), 2, "{said:?}");
        assert_eq!(
            std::fs::read_to_string(repo.join(".git/modules/lib/config")).unwrap(),
            "[core]\n\tbare = false\n"
        );
        assert!(
            !std::fs::read_to_string(repo.join(".git/config.worktree"))
                .unwrap()
                .contains("sshCommand")
        );
    }
}

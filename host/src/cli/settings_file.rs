//! The agents' own settings and hook files as install edits them: read bounded,
//! regular-file-only and as a JSON object (a file that does not parse is refused with its
//! line and column); written atomically beside a backup of what was there; edited under
//! a lock one install at a time. Nothing here follows a link a repository planted.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::{Map, Value};

/// Reads a Claude Code settings file as a JSON object: an absent or empty file is `{}`;
/// anything that is not a JSON object is refused, naming line and column. The read is
/// bounded and regular-file-only, as for hookhost's own files: a repository's
/// `settings.json` that is a link to `/dev/zero` or a FIFO is refused, never read until
/// memory runs out or waited on.
pub(crate) fn read_settings(file: &Path) -> anyhow::Result<Option<Map<String, Value>>> {
    let limit = hookhost::internals::MAX_CONFIG_FILE;
    let bytes = match hookhost::internals::read_regular(file, limit) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", file.display())),
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{}: not UTF-8 text; not changed", file.display()))?;
    if text.trim().is_empty() {
        return Ok(Some(Map::new()));
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(Some(map)),
        Ok(_) => bail!("{}: not a JSON object; not changed", file.display()),
        Err(err) => bail!(
            "{}: not valid JSON at line {} column {} ({}); not changed",
            file.display(),
            err.line(),
            err.column(),
            strip_position(&err.to_string())
        ),
    }
}

/// serde_json's message without its own " at line L column C" tail.
fn strip_position(message: &str) -> &str {
    message.split(" at line ").next().unwrap_or(message)
}

/// Writes `settings` to `file` atomically (a temporary file beside it, then a rename),
/// keeping `previous` (the content read under the lock) as `<file>.hookhost-backup`
/// (one backup: the last). Backup and temporary file are created fresh and private in
/// the file's own folder and renamed into place: a link a repository planted at either
/// name is replaced, never written through.
pub(crate) fn write_settings(
    file: &Path,
    previous: Option<&[u8]>,
    settings: &Map<String, Value>,
) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(settings)?;
    text.push('\n');
    write_text(file, previous, &text)
}

/// Writes `text` to `file` the way [`write_settings`] writes JSON: atomically, the
/// previous content kept as the backup.
pub(crate) fn write_text(file: &Path, previous: Option<&[u8]>, text: &str) -> anyhow::Result<()> {
    let dir = file.parent().context("settings file without a folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    if let Some(previous) = previous {
        let backup = backup_path(file);
        let mut fresh = tempfile::NamedTempFile::new_in(dir)
            .with_context(|| format!("cannot write in {}", dir.display()))?;
        fresh.write_all(previous)?;
        fresh.as_file().sync_all()?;
        fresh
            .persist(&backup)
            .with_context(|| format!("cannot keep a backup at {}", backup.display()))?;
    }
    let mut temp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    if let Ok(meta) = std::fs::metadata(file) {
        let _ = std::fs::set_permissions(temp.path(), meta.permissions());
    }
    temp.write_all(text.as_bytes())?;
    temp.as_file().sync_all()?;
    temp.persist(file)
        .with_context(|| format!("cannot replace {}", file.display()))?;
    Ok(())
}

/// Holds `file`'s install lock (`<file>.hookhost-lock` beside it, never opened through a
/// link) until dropped: two installs at once edit one after the other, each reading what
/// the other wrote. The lock file goes when the lock is released (see [`SettingsLock`]).
pub(crate) fn lock_settings(file: &Path) -> anyhow::Result<SettingsLock> {
    let dir = file.parent().context("settings file without a folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".hookhost-lock");
    let path = file.with_file_name(name);
    loop {
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        let lock = hookhost::internals::platform::private_file(
            hookhost::internals::platform::no_follow(&mut options),
        )
        .open(&path)
        .with_context(|| format!("cannot open the lock {}", path.display()))?;
        lock.lock()
            .with_context(|| format!("cannot lock {}", path.display()))?;
        // The holder we waited for removed the file it held: lock the one at the path now.
        if still_at(&lock, &path) {
            return Ok(SettingsLock { file: lock, path });
        }
    }
}

/// An install lock held: its file is removed while it is still held, so an install
/// waiting on it finds it gone and takes a new one, and none is left behind.
pub(crate) struct SettingsLock {
    file: std::fs::File,
    path: PathBuf,
}

impl Drop for SettingsLock {
    fn drop(&mut self) {
        if still_at(&self.file, &self.path) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Whether `path` still names the open `file` (not removed, not replaced).
fn still_at(file: &std::fs::File, path: &Path) -> bool {
    use hookhost::internals::platform::{file_id, path_id};
    matches!((file_id(file), path_id(path)), (Ok(open), Ok(named)) if open == named)
}

/// Writes `settings` back after uninstall: the backup's bytes when it holds exactly
/// this (nothing else changed since install), no file when install created it and
/// nothing is left, else the settings (with a backup of what was there).
pub(crate) fn put_back(file: &Path, settings: &Map<String, Value>) -> anyhow::Result<()> {
    let backup = backup_path(file);
    let restored = read_settings(&backup).ok().flatten();
    if restored.as_ref() == Some(settings) {
        let bytes = current_bytes(&backup).unwrap_or_default();
        write_text(file, None, &String::from_utf8_lossy(&bytes))?;
        let _ = std::fs::remove_file(&backup);
    } else if settings.is_empty() && !backup.exists() {
        std::fs::remove_file(file).with_context(|| format!("cannot remove {}", file.display()))?;
    } else {
        write_settings(file, current_bytes(file).as_deref(), settings)?;
    }
    Ok(())
}

/// [`put_back`] for a text file (Codex's `config.toml`): the backup when it holds exactly
/// `text`, no file when install created it and `text` is empty, else `text`.
pub(crate) fn put_back_text(file: &Path, text: &str) -> anyhow::Result<()> {
    let backup = backup_path(file);
    match current_bytes(&backup) {
        Some(bytes) if bytes == text.as_bytes() => {
            write_text(file, None, text)?;
            let _ = std::fs::remove_file(&backup);
        }
        None if text.trim().is_empty() => {
            std::fs::remove_file(file)
                .with_context(|| format!("cannot remove {}", file.display()))?;
        }
        _ => write_text(file, current_bytes(file).as_deref(), text)?,
    }
    Ok(())
}

/// The folders install created for agents' files, so that uninstall takes away exactly
/// those (once empty): a list of absolute paths in hookhost's configuration folder below
/// the home install wrote for (`<home>/.config/hookhost/created-folders.json`, removed
/// when it lists nothing).
pub(crate) struct CreatedFolders {
    record: PathBuf,
}

impl CreatedFolders {
    /// The record for the owner whose home is `home`.
    pub(crate) fn in_home(home: &Path) -> Self {
        Self {
            record: hookhost::internals::config_dir_in(home).join("created-folders.json"),
        }
    }

    /// The folders above `file` that do not exist yet, outermost first: what writing it
    /// will create.
    pub(crate) fn missing(file: &Path) -> Vec<PathBuf> {
        let mut missing: Vec<PathBuf> = file
            .ancestors()
            .skip(1)
            .take_while(|dir| std::fs::symlink_metadata(dir).is_err())
            .map(Path::to_path_buf)
            .collect();
        missing.reverse();
        missing
    }

    fn read(&self) -> Vec<PathBuf> {
        hookhost::internals::read_regular(&self.record, 1 << 20)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    fn write(&self, folders: &[PathBuf]) {
        let written = self
            .record
            .parent()
            .map_or(Ok(()), hookhost::internals::create_private_dir)
            .and_then(|()| {
                let bytes = serde_json::to_vec_pretty(folders).unwrap_or_default();
                hookhost::internals::replace_private(&self.record, &bytes)
            });
        if let Err(err) = written {
            eprintln!(
                "hookhost: cannot record the folders install created in {}: {err}",
                self.record.display()
            );
        }
    }

    /// Records `folders` as created by install.
    pub(crate) fn remember(&self, folders: &[PathBuf]) {
        if folders.is_empty() {
            return;
        }
        let mut known = self.read();
        for folder in folders {
            if !known.contains(folder) {
                known.push(folder.clone());
            }
        }
        self.write(&known);
    }

    /// Removes the recorded folders above `file` that are empty now, deepest first (a
    /// folder holding anything stays), and forgets the ones that are gone.
    pub(crate) fn take_away(&self, file: &Path) {
        let mut known = self.read();
        if known.is_empty() {
            return;
        }
        for dir in file.ancestors().skip(1) {
            if known.iter().any(|k| k == dir) {
                let _ = std::fs::remove_dir(dir);
            }
        }
        known.retain(|dir| std::fs::symlink_metadata(dir).is_ok());
        if known.is_empty() {
            let _ = std::fs::remove_file(&self.record);
        } else {
            self.write(&known);
        }
    }
}

/// The file's bytes as they are now (for the backup), when it exists.
pub(crate) fn current_bytes(file: &Path) -> Option<Vec<u8>> {
    hookhost::internals::read_regular(file, hookhost::internals::MAX_CONFIG_FILE).ok()
}

pub(crate) fn backup_path(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".hookhost-backup");
    file.with_file_name(name)
}

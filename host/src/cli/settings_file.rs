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
/// the other wrote.
pub(crate) fn lock_settings(file: &Path) -> anyhow::Result<std::fs::File> {
    let dir = file.parent().context("settings file without a folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".hookhost-lock");
    let path = file.with_file_name(name);
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    let platform = |options: &mut std::fs::OpenOptions| {
        hookhost::internals::platform::private_file(hookhost::internals::platform::no_follow(
            options,
        ))
        .open(&path)
    };
    let lock = platform(&mut options)
        .with_context(|| format!("cannot open the lock {}", path.display()))?;
    lock.lock()
        .with_context(|| format!("cannot lock {}", path.display()))?;
    Ok(lock)
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

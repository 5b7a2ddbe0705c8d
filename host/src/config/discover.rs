//! Discovery: which files each dialect reads for a set of [`LoadOptions`] (its table
//! resolved: home, project, XDG and evva folders, hygge's walked-up root), and which
//! dialect the files found imply — decided only by files the owners chose or a workspace
//! they trust.

use std::path::{Path, PathBuf};

use super::Layer;
use super::options::{FileSet, LoadOptions, config_dir};
use super::trust::{self, Trust, TrustedBy, trust_root};
use crate::dialect::{ConfigFile, Dialect, DialectId, FileLayer, Root, file};

/// hookhost's own hook files ([`FileSet::Own`]), managed file aside.
const OWN_FILES: &[ConfigFile] = &[
    file(FileLayer::User, Root::HookhostConfig, "hooks.json"),
    file(FileLayer::Project, Root::Project, ".hookhost/hooks.json"),
    file(
        FileLayer::Local,
        Root::Project,
        ".hookhost/hooks.local.json",
    ),
];

/// `$XDG_CONFIG_HOME` as the options give it, else `<home>/.config`.
fn xdg_config(options: &LoadOptions) -> Option<PathBuf> {
    options
        .xdg_config_home
        .clone()
        .or_else(|| options.home.as_ref().map(|home| home.join(".config")))
}

/// The files a dialect reads besides managed and `--settings` files, in its order (its
/// [`Dialect::discovery`] table resolved against `options`).
pub(super) fn dialect_files(options: &LoadOptions, dialect: &Dialect) -> Vec<(Layer, PathBuf)> {
    let home = options.home.as_deref();
    let project = options.project_dir.as_deref();
    let walk_up = project.map(|dir| walk_up_root(dir, home, dialect));
    let table = match options.files {
        FileSet::Dialect => dialect.discovery,
        FileSet::Own => OWN_FILES,
    };
    table
        .iter()
        .filter_map(|file| {
            let root = match file.root {
                Root::Home => home.map(Path::to_path_buf),
                Root::Project => project.map(Path::to_path_buf),
                Root::XdgConfig => xdg_config(options),
                Root::HookhostConfig => options
                    .config_dir
                    .clone()
                    .or_else(|| xdg_config(options).map(|dir| dir.join("hookhost"))),
                Root::EvvaHome => options
                    .evva_home
                    .clone()
                    .or_else(|| home.map(|h| h.join(".evva"))),
                Root::WalkUp => walk_up.clone(),
            }?;
            let layer = match file.layer {
                FileLayer::User => Layer::User,
                FileLayer::Project => Layer::Project,
                FileLayer::Local => Layer::Local,
            };
            Some((layer, root.join(file.path)))
        })
        .collect()
}

/// Every file any dialect could read for `options` (what `serve` watches): each dialect's
/// discovery table resolved, managed and `--settings` files aside.
pub fn candidate_files(options: &LoadOptions) -> Vec<PathBuf> {
    let dialects: &[DialectId] = match options.files {
        FileSet::Own => &[DialectId::Claude],
        FileSet::Dialect => &DialectId::ALL,
    };
    dialects
        .iter()
        .flat_map(|id| dialect_files(options, id.dialect()))
        .map(|(_, file)| file)
        .collect()
}

/// The project root of a dialect whose project files are found by walking up: the
/// nearest folder at or above `start` (below the home folder, whose files are the user
/// layer) holding one of its [`Root::WalkUp`] files; `start` itself when there is none.
pub(super) fn walk_up_root(start: &Path, home: Option<&Path>, dialect: &Dialect) -> PathBuf {
    let markers: Vec<&str> = dialect
        .discovery
        .iter()
        .filter(|file| file.root == Root::WalkUp)
        .map(|file| file.path)
        .collect();
    if markers.is_empty() {
        return start.to_path_buf();
    }
    start
        .ancestors()
        .take_while(|dir| Some(*dir) != home)
        .find(|dir| markers.iter().any(|marker| dir.join(marker).is_file()))
        .unwrap_or(start)
        .to_path_buf()
}

/// The dialect of the files found for `options`. Only files the owners chose, or a
/// workspace they trust, decide: first the `--settings` files (hookhost's own files are Claude Code's schema; a `hooks.toml` is hygge, a
/// `.gen/settings.json` gen, a `.evva/settings.json` evva, any other JSON file claude),
/// then a trusted workspace's own files (`.claude/` → claude, a `hooks.toml` → hygge,
/// `.gen/settings.json` → gen, `.evva/settings.json` → evva), then the user's, then the
/// managed settings file (claude). An untrusted repository's files never decide: a cloned
/// repository cannot switch the dialect and with it an owner's hooks off. claude when
/// nothing decides. Returns the file that decided. The Agent SDK reads Claude Code's files
/// and is never detected.
pub fn detect(options: &LoadOptions) -> (DialectId, Option<PathBuf>) {
    if options.files == FileSet::Own {
        return (DialectId::Claude, None);
    }
    for arg in &options.settings {
        if arg.trim_start().starts_with('{') {
            return (DialectId::Claude, None);
        }
        let path = Path::new(arg);
        if path.is_file() {
            return (implied_dialect(path), Some(path.to_path_buf()));
        }
    }
    let order = [
        DialectId::Claude,
        DialectId::Hygge,
        DialectId::Gen,
        DialectId::Evva,
    ];
    let project: &[Layer] = &[Layer::Project, Layer::Local];
    let user: &[Layer] = &[Layer::User];
    let trusted = trusted_without_settings(options);
    let layers: &[&[Layer]] = if trusted.is_some() {
        &[project, user]
    } else {
        &[user]
    };
    let root = trust_root(trusted.as_ref());
    let counts = |layer: &Layer, file: &Path| match layer {
        Layer::Project | Layer::Local => root.as_deref().is_none_or(|r| file.starts_with(r)),
        _ => true,
    };
    for layers in layers {
        for id in order {
            let found = dialect_files(options, id.dialect())
                .into_iter()
                .find(|(layer, file)| {
                    layers.contains(layer) && counts(layer, file) && file.is_file()
                });
            if let Some((_, file)) = found {
                return (id, Some(file));
            }
        }
    }
    let managed = options.managed_file();
    if managed.is_file() {
        return (DialectId::Claude, Some(managed));
    }
    (DialectId::Claude, None)
}

/// The dialect an owner-given settings file is written for, by its name.
pub(super) fn implied_dialect(path: &Path) -> DialectId {
    let folder = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|name| name.to_str());
    if path.extension().is_some_and(|ext| ext == "toml") {
        DialectId::Hygge
    } else if path.file_name().is_some_and(|name| name == "settings.json") {
        match folder {
            Some(".gen") => DialectId::Gen,
            Some(".evva") => DialectId::Evva,
            _ => DialectId::Claude,
        }
    } else {
        DialectId::Claude
    }
}

/// Whether (and why) the workspace is trusted, judged before any settings file is read
/// (a managed `requireWorkspaceTrust: false` is not seen here: the answer errs towards
/// untrusted).
pub(super) fn trusted_without_settings(options: &LoadOptions) -> Option<TrustedBy> {
    match options.trust {
        Trust::Trusted => Some(TrustedBy::Caller),
        Trust::Untrusted => None,
        Trust::Discover => trust::lookup(
            options.project_dir.as_deref()?,
            options.home.as_deref(),
            config_dir(options).as_deref(),
        ),
    }
}

/// The folder the owner trusts that `dir` lies in (hookhost's trust store, else Claude
/// Code's trust dialog), with the home and configuration folder of `options`; `None` when
/// `dir` is in no trusted folder.
pub fn trusted_folder(options: &LoadOptions, dir: &Path) -> Option<PathBuf> {
    let found = trust::lookup(dir, options.home.as_deref(), config_dir(options).as_deref());
    trust_root(found.as_ref())
}

/// Every file that decides which hooks run for `options`, whatever dialect or file set is
/// read now: each dialect's discovery table, hookhost's own hook files, both managed
/// files, Claude Code's user-local settings, its installed plugins and its trust records —
/// what self-protection keeps the agent's tool calls away from.
pub(super) fn guard_files(options: &LoadOptions) -> Vec<PathBuf> {
    let mut own = options.clone();
    own.files = FileSet::Own;
    let mut host = options.clone();
    host.files = FileSet::Dialect;
    let mut files = candidate_files(&host);
    files.extend(candidate_files(&own));
    files.push(host.managed_file());
    files.push(own.managed_file());
    if let Some(home) = &options.home {
        files.push(home.join(".claude").join("settings.local.json"));
        // Installed Claude Code plugins: each one's `hooks/hooks.json` runs on every event.
        files.push(home.join(".claude").join("plugins"));
        // Claude Code's trust records, which hookhost's trust lookup reads.
        files.push(home.join(".claude.json"));
    }
    // Every other agent's hook files and trust records: hookhost answers for them too.
    files.extend(crate::agent::hook_files(
        options.home.as_deref(),
        options.project_dir.as_deref(),
    ));
    files.sort();
    files.dedup();
    files
}

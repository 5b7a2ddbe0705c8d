//! The envelope of a loaded configuration: one derivation from the owner's layers, the
//! places self-protection guards and the builtins' configuration.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::later::{
    AGENT_LOGINS, HOME_BINS, PROJECT_FILES, PROJECT_FOLDERS, PROJECT_LOADERS, TOOL_CACHES,
};
use super::{Envelope, Place};
use crate::config::{Handler, LoadedConfig};

/// Temporary folders every command may write.
const TEMPORARY: &[&str] = &["/tmp", "/var/tmp", "/dev/shm"];

/// Shell startup files: what runs in every later shell of the owner.
const SHELL_STARTUP: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".config/fish",
];

/// The envelope for `config`: `places` are self-protection's (what decides which guards
/// run) and `secrets` hookhost's own secrets (see [`crate::self_protection::places`]);
/// `dir` (hookhost's envelope folder) holds the file a withheld secret reads as.
pub(crate) fn derive(
    config: &LoadedConfig,
    places: Vec<(PathBuf, String)>,
    secrets: Vec<(PathBuf, String)>,
    dir: &Path,
) -> Envelope {
    let settings = &config.envelope;
    let project = config.project_dir.clone();
    let home = config.home.clone();
    let place = |path: PathBuf, why: &str| Place {
        path,
        why: why.to_string(),
    };
    let mut writable = Vec::new();
    if let Some(project) = &project {
        writable.push(place(project.clone(), "the project"));
    }
    for dir in TEMPORARY {
        writable.push(place(dir.into(), "a temporary folder"));
    }
    let mut layered = Vec::new();
    if let Some(home) = &home {
        for cache in TOOL_CACHES {
            let dir = home.join(cache);
            if dir.is_dir() {
                layered.push(place(
                    dir,
                    "a build tool's cache, written through the project's own layer",
                ));
            }
        }
    }
    for dir in &settings.writable {
        writable.push(place(dir.clone(), "added by the owner (envelope.writable)"));
    }
    let mut read_only: Vec<Place> = places
        .into_iter()
        .map(|(path, why)| place(path, &why))
        .collect();
    let in_project = |path: &Path| match (&project, path.is_absolute()) {
        (_, true) => Some(path.to_path_buf()),
        (Some(project), false) => Some(project.join(path)),
        (None, false) => None,
    };
    for path in builtin_list(config, "builtin:protected-paths", "paths") {
        if let Some(path) = in_project(Path::new(&path)) {
            read_only.push(place(path, "a protected path (protected-paths)"));
        }
    }
    for path in &settings.read_only {
        if let Some(path) = in_project(path) {
            read_only.push(place(path, "added by the owner (envelope.readOnly)"));
        }
    }
    let mut made = Vec::new();
    if let Some(project) = &project {
        for (folder, why) in PROJECT_FOLDERS {
            read_only.push(place(project.join(folder), why));
            made.push(project.join(folder));
        }
        for (path, why) in PROJECT_LOADERS {
            read_only.push(place(project.join(path), why));
        }
        for (file, why) in PROJECT_FILES {
            read_only.push(place(project.join(file), why));
            if file.starts_with(".git/") {
                made.push(project.join(file));
            }
        }
    }
    let mut logins = Vec::new();
    if let Some(home) = &home {
        for file in SHELL_STARTUP {
            read_only.push(place(home.join(file), "a shell startup file"));
        }
        for bin in HOME_BINS {
            read_only.push(place(
                home.join(bin),
                "a folder on the user's PATH (what is planted there runs outside)",
            ));
        }
        for (file, why) in AGENT_LOGINS {
            logins.push(place(home.join(file), why));
        }
    }
    read_only.sort_by(|a, b| a.path.cmp(&b.path));
    read_only.dedup_by(|a, b| a.path == b.path);
    let unreadable = secrets
        .into_iter()
        .map(|(path, why)| place(path, &why))
        .collect();
    Envelope {
        mode: settings.mode,
        project,
        home,
        writable,
        layered,
        layers: dir.join("layers"),
        read_only,
        made,
        unreadable,
        logins,
        sockets: settings.sockets.clone(),
        ssh_agent: settings.ssh_agent,
        withhold_env: settings.withhold_env.clone(),
        judge: judged(config),
        secret_allow: builtin_list(config, "builtin:secrets", "allow"),
        network: settings.network.clone(),
        scope_signals: settings.scope_signals,
        scope_abstract_sockets: settings.scope_abstract_sockets,
        withheld: dir.join("withheld"),
    }
}

/// The strings of `key` in the configuration of every owner's entry of `builtin`.
fn builtin_list(config: &LoadedConfig, builtin: &str, key: &str) -> Vec<String> {
    let mut found: Vec<String> = config
        .hooks
        .iter()
        .filter(|spec| spec.layer.is_owner())
        .filter_map(|spec| match &spec.handler {
            Handler::Wasm(wasm) if wasm.component.as_os_str() == builtin => Some(&wasm.config),
            _ => None,
        })
        .filter_map(|config| config.get(key).and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    found.sort();
    found.dedup();
    found
}

/// The programs judged where they run: git, every program a `Bash(...)` condition of the
/// owner's hooks names (a repository's own hooks do not count), and the owner's
/// `envelope.judge`; each once, git first.
fn judged(config: &LoadedConfig) -> Vec<String> {
    use crate::config::Layer;
    let mut names: Vec<String> = config
        .hooks
        .iter()
        .filter(|hook| !matches!(hook.layer, Layer::Project | Layer::Local))
        .filter_map(|hook| hook.condition.as_ref()?.bash_program().map(String::from))
        .chain(config.envelope.judge.iter().cloned())
        .filter(|name| name != "git" && crate::config::envelope_setting::is_judged_name(name))
        .collect();
    names.sort();
    names.dedup();
    names.insert(0, "git".to_string());
    names
}

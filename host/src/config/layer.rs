//! Discovery and layering of settings files.
//!
//! Layers, in configuration order: managed ▸ user ▸ project ▸ local ▸ `--settings` ▸
//! plugins. Hooks of every layer merge additively (identical handlers from several
//! settings files run once, the copy of the strongest authority kept; a plugin's copy
//! stays separate). [`Layering::ProjectReplacesUser`]
//! is the stricter alternative: where the project (or local) layer configures an event,
//! the user layer's hooks for that event are dropped.
//!
//! `disableAllHooks` takes its value after precedence (managed > `--settings` > local >
//! project > user): `true` outside managed settings keeps only managed hooks, `true` in
//! managed settings stops every hook. `allowManagedHooksOnly` in managed settings keeps
//! only managed hooks; an invalid value there fails closed (treated as `true`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::grant_policy::WasmGrantPolicy;
use super::hygge::read_hooks_toml;
use super::plugin::{read_json, read_plugin_in};
use super::settings::{FileContext, read_hooks};
use super::trust::{self, Trust, TrustedBy};
use super::{Diagnostic, HookSpec, HttpPolicy, Layer, LoadedConfig, Severity};
use crate::dialect::{Dialect, DialectId, Duplicates, FileLayer, Layering, Root};

/// Where to find configuration.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Home directory: `~/.claude/settings.json` is read when set.
    pub home: Option<PathBuf>,
    /// Project directory: `.claude/settings.json` and `.claude/settings.local.json`.
    pub project_dir: Option<PathBuf>,
    /// Managed settings file (default `/etc/claude-code/managed-settings.json`); a
    /// `managed-settings.d/` beside it is merged alphabetically after it.
    pub managed_path: Option<PathBuf>,
    /// Explicit `--settings` files, or inline JSON objects.
    pub settings: Vec<String>,
    /// Plugin bundle directories.
    pub plugins: Vec<PathBuf>,
    /// How user and project hooks combine; `None`: the dialect's own
    /// [`Dialect::layering`].
    pub layering: Option<Layering>,
    /// Whether the project's own settings may run unsandboxed hooks.
    pub trust: Trust,
    /// hookhost's configuration folder (trust store); default `<home>/.config/hookhost`.
    pub config_dir: Option<PathBuf>,
    /// The hook system the files are written for; `None`: detected from the files found
    /// (see [`detect`]).
    pub dialect: Option<DialectId>,
    /// evva's `evvaHome` (its user settings folder); default `<home>/.evva`.
    pub evva_home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME` (hygge reads `<it>/hygge/hooks.toml`); default `<home>/.config`.
    pub xdg_config_home: Option<PathBuf>,
}

/// The default managed settings location on Linux.
pub const DEFAULT_MANAGED_PATH: &str = "/etc/claude-code/managed-settings.json";

struct Source {
    layer: Layer,
    label: String,
    value: Option<Value>,
    base_dir: Option<PathBuf>,
    /// A hygge `hooks.toml` (else a settings JSON file).
    toml: bool,
}

fn read_source(
    path: &Path,
    layer: Layer,
    base_dir: Option<PathBuf>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Source> {
    if !path.exists() {
        return None;
    }
    let label = path.display().to_string();
    if path.extension().is_some_and(|ext| ext == "toml") {
        let value = crate::files::read_config_text(path)
            .map_err(|err| format!("cannot read: {err}"))
            .and_then(|text| {
                super::hygge::parse_toml(&text).map_err(|e| format!("invalid TOML: {e}"))
            });
        return Some(Source {
            layer,
            value: value
                .map_err(|message| {
                    diags.push(file_error(&label, &format!("{message}; file skipped")))
                })
                .ok(),
            label,
            base_dir,
            toml: true,
        });
    }
    let value = match read_json(path) {
        Ok(value @ Value::Object(_)) => Some(value),
        Ok(_) => {
            diags.push(file_error(
                &label,
                "settings must be a JSON object; file skipped",
            ));
            None
        }
        Err(message) => {
            diags.push(file_error(&label, &format!("{message}; file skipped")));
            None
        }
    };
    Some(Source {
        layer,
        label,
        value,
        base_dir,
        toml: false,
    })
}

fn file_error(file: &str, message: &str) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        file: file.to_string(),
        location: String::new(),
        message: message.to_string(),
    }
}

fn gather(options: &LoadOptions, dialect: &Dialect, diags: &mut Vec<Diagnostic>) -> Vec<Source> {
    let project = options.project_dir.clone();
    let mut sources = Vec::new();
    let managed = options
        .managed_path
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_MANAGED_PATH));
    sources.extend(read_source(
        &managed,
        Layer::Managed,
        project.clone(),
        diags,
    ));
    if let Some(dir) = managed.parent().map(|p| p.join("managed-settings.d"))
        && let Ok(entries) = std::fs::read_dir(&dir)
    {
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for file in files {
            sources.extend(read_source(&file, Layer::Managed, project.clone(), diags));
        }
    }
    for (layer, file) in dialect_files(options, dialect) {
        let base = match layer {
            Layer::User => options.home.clone(),
            _ => project.clone(),
        };
        sources.extend(read_source(&file, layer, base, diags));
    }
    for (index, arg) in options.settings.iter().enumerate() {
        if arg.trim_start().starts_with('{') {
            let label = format!("--settings[{index}]");
            match serde_json::from_str::<Value>(arg) {
                Ok(value) => sources.push(Source {
                    layer: Layer::Settings,
                    label,
                    value: Some(value),
                    base_dir: project.clone(),
                    toml: false,
                }),
                Err(err) => {
                    diags.push(file_error(&label, &format!("invalid JSON: {err}; skipped")))
                }
            }
            continue;
        }
        let path = Path::new(arg);
        match read_source(path, Layer::Settings, project.clone(), diags) {
            Some(source) => sources.push(source),
            None => diags.push(file_error(arg, "settings file not found; skipped")),
        }
    }
    sources
}

/// The files a dialect reads besides managed and `--settings` files, in its order (its
/// [`Dialect::discovery`] table resolved against `options`).
fn dialect_files(options: &LoadOptions, dialect: &Dialect) -> Vec<(Layer, PathBuf)> {
    let home = options.home.as_deref();
    let project = options.project_dir.as_deref();
    let walk_up = project.map(|dir| walk_up_root(dir, home, dialect));
    dialect
        .discovery
        .iter()
        .filter_map(|file| {
            let root = match file.root {
                Root::Home => home.map(Path::to_path_buf),
                Root::Project => project.map(Path::to_path_buf),
                Root::XdgConfig => options
                    .xdg_config_home
                    .clone()
                    .or_else(|| home.map(|h| h.join(".config"))),
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

impl LoadOptions {
    /// Every file any dialect could read for these options (what `serve` watches): each
    /// dialect's discovery table resolved, managed and `--settings` files aside.
    pub fn candidate_files(&self) -> Vec<PathBuf> {
        DialectId::ALL
            .iter()
            .flat_map(|id| dialect_files(self, id.dialect()))
            .map(|(_, file)| file)
            .collect()
    }
}

/// The project root of a dialect whose project files are found by walking up: the
/// nearest folder at or above `start` (below the home folder, whose files are the user
/// layer) holding one of its [`Root::WalkUp`] files; `start` itself when there is none.
fn walk_up_root(start: &Path, home: Option<&Path>, dialect: &Dialect) -> PathBuf {
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
/// workspace they trust, decide: first the `--settings` files (a `hooks.toml` is hygge, a
/// `.gen/settings.json` gen, a `.evva/settings.json` evva, any other JSON file claude),
/// then a trusted workspace's own files (`.claude/` → claude, a `hooks.toml` → hygge,
/// `.gen/settings.json` → gen, `.evva/settings.json` → evva), then the user's, then the
/// managed settings file (claude). An untrusted repository's files never decide: a cloned
/// repository cannot switch the dialect and with it an owner's hooks off. claude when
/// nothing decides. Returns the file that decided. The Agent SDK reads Claude Code's files
/// and is never detected.
pub fn detect(options: &LoadOptions) -> (DialectId, Option<PathBuf>) {
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
    let managed = options
        .managed_path
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_MANAGED_PATH));
    if managed.is_file() {
        return (DialectId::Claude, Some(managed));
    }
    (DialectId::Claude, None)
}

/// The dialect an owner-given settings file is written for, by its name.
fn implied_dialect(path: &Path) -> DialectId {
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
fn trusted_without_settings(options: &LoadOptions) -> Option<TrustedBy> {
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

fn config_dir(options: &LoadOptions) -> Option<PathBuf> {
    options.config_dir.clone().or_else(|| {
        options
            .home
            .as_ref()
            .map(|home| home.join(".config").join("hookhost"))
    })
}

/// The effective boolean of `key`, by precedence: managed > `--settings` > local >
/// project > user. Returns the value and whether it came from managed settings.
fn effective_flag(sources: &[Source], key: &str) -> Option<(bool, bool)> {
    let rank = |layer: &Layer| match layer {
        Layer::Managed => 0,
        Layer::Settings => 1,
        Layer::Local => 2,
        Layer::Project => 3,
        _ => 4,
    };
    let mut found: Option<(usize, bool, bool)> = None;
    for source in sources {
        let Some(value) = source.value.as_ref().and_then(|v| v.get(key)) else {
            continue;
        };
        let flag = value.as_bool().unwrap_or(true);
        let r = rank(&source.layer);
        if found.is_none_or(|(best, _, _)| r < best) {
            found = Some((r, flag, source.layer == Layer::Managed));
        }
    }
    found.map(|(_, flag, managed)| (flag, managed))
}

fn merge_list<'a>(
    sources: impl Iterator<Item = &'a Source>,
    key: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<String>> {
    let mut merged: Option<Vec<String>> = None;
    for source in sources {
        let Some(value) = source.value.as_ref().and_then(|v| v.get(key)) else {
            continue;
        };
        let list = merged.get_or_insert_with(Vec::new);
        match value.as_array() {
            Some(items) => list.extend(items.iter().filter_map(Value::as_str).map(str::to_string)),
            None => diags.push(Diagnostic {
                severity: Severity::Error,
                file: source.label.clone(),
                location: key.to_string(),
                message: "must be an array of strings; treated as empty".into(),
            }),
        }
    }
    merged
}

/// Loads every configured layer and plugin into one [`LoadedConfig`].
pub fn load(options: &LoadOptions) -> LoadedConfig {
    let mut diags = Vec::new();
    let (dialect_id, detected_from) = match options.dialect {
        Some(id) => (id, None),
        None => detect(options),
    };
    let dialect = dialect_id.dialect();
    let mut sources = gather(options, dialect, &mut diags);
    let project = options.project_dir.clone();
    let trusted_by = workspace_trust(options, &sources);
    let root = trust_root(trusted_by.as_ref());
    // Trust covers the trusted folder and below, nothing above: a hygge `hooks.toml`
    // found walking up from a trusted project is still a stranger's file.
    let source_trusted = |source: &Source| match source.layer {
        Layer::Project | Layer::Local => {
            trusted_by.is_some()
                && root
                    .as_deref()
                    .is_none_or(|root| Path::new(&source.label).starts_with(root))
        }
        _ => true,
    };
    for source in sources.iter_mut() {
        if !source_trusted(source) {
            keep_only_hooks_of_untrusted(source, &mut diags);
        }
    }
    let mut hooks = Vec::new();
    for source in &sources {
        let Some(value) = &source.value else { continue };
        let Some(section) = value.get("hooks") else {
            continue;
        };
        let trusted = source_trusted(source);
        let mut vars = Vec::new();
        if let Some(dir) = &project {
            vars.push(("CLAUDE_PROJECT_DIR".to_string(), dir.display().to_string()));
        }
        let ctx = FileContext {
            file: source.label.clone(),
            layer: source.layer.clone(),
            base_dir: source.base_dir.clone(),
            vars,
            env: Vec::new(),
            trusted,
            dialect,
        };
        if source.toml {
            read_hooks_toml(value, &ctx, &mut hooks, &mut diags);
        } else {
            read_hooks(section, &ctx, &mut hooks, &mut diags);
        }
    }
    for plugin in &options.plugins {
        read_plugin_in(
            dialect,
            plugin,
            project.as_deref(),
            options.home.as_deref(),
            &mut hooks,
            &mut diags,
        );
    }
    let layering = options.layering.unwrap_or(dialect.layering);
    if layering == Layering::ProjectFirst {
        // Stable: managed first, then the project's hooks, then the user's, then the rest.
        hooks.sort_by_key(|hook| match hook.layer {
            Layer::Managed => 0,
            Layer::Project | Layer::Local => 1,
            Layer::User => 2,
            _ => 3,
        });
    }
    let mut hooks = match dialect.duplicates {
        Duplicates::RunEach => hooks,
        Duplicates::RunOnce => dedup(hooks),
    };
    if layering == Layering::ProjectReplacesUser {
        // Only hooks that will run replace the user's: an untrusted repository's hooks
        // (skipped, or sandboxed) never take the user's guards away.
        let overridden: HashSet<crate::dialect::Event> = hooks
            .iter()
            .filter(|h| matches!(h.layer, Layer::Project | Layer::Local) && h.trusted)
            .map(|h| h.event.clone())
            .collect();
        hooks.retain(|h| !(h.layer == Layer::User && overridden.contains(&h.event)));
    }
    apply_policy(&sources, &mut hooks, &mut diags);
    let grant_policy = grant_policy(&sources, options, &mut diags);
    let audit_log = owner_values(&sources, "hookAuditLog", false)
        .into_iter()
        .find_map(|(_, value)| value.as_str().map(PathBuf::from));
    let lost_guards = lost_guards(&sources, dialect);
    let repository_files = sources
        .iter()
        .filter(|s| !s.layer.is_owner())
        .map(|s| s.label.clone())
        .collect();
    LoadedConfig {
        grant_policy,
        lost_guards,
        repository_files,
        workspace_trust: trusted_by,
        audit_log,
        hooks,
        http_policy: HttpPolicy {
            allowed_urls: merge_list(sources.iter(), "allowedHttpHookUrls", &mut diags),
            // Which variables may leave the machine in a header is the owners' call: a
            // trusted repository cannot widen the user's list.
            allowed_env_vars: merge_list(
                owner_values(&sources, "httpHookAllowedEnvVars", false)
                    .into_iter()
                    .map(|(source, _)| source),
                "httpHookAllowedEnvVars",
                &mut diags,
            ),
        },
        revalidate_rewrites: owner_flag(&sources, "revalidateRewrites").unwrap_or(true),
        diagnostics: diags,
        project_dir: project,
        home: options.home.clone(),
        dialect: dialect_id,
        dialect_detected_from: detected_from,
    }
}

/// The owners' `failClosed` hooks on events `dialect` does not have (reported as load
/// errors by the reader): one line each, naming file and event.
fn lost_guards(sources: &[Source], dialect: &'static Dialect) -> Vec<String> {
    let mut lost = Vec::new();
    if dialect.events.is_none() {
        return lost;
    }
    for source in sources.iter().filter(|s| s.layer.is_owner() && !s.toml) {
        let Some(Value::Object(events)) = source.value.as_ref().and_then(|v| v.get("hooks")) else {
            continue;
        };
        for (event, groups) in events {
            if dialect.lookup(event).is_some() {
                continue;
            }
            let fail_closed = groups
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|group| group.get("hooks")?.as_array())
                .flatten()
                .any(|entry| entry.get("failClosed") == Some(&Value::Bool(true)));
            if fail_closed {
                lost.push(format!(
                    "{}: a failClosed hook for `{event}` cannot run: the engine reads the {} dialect, which has no such event",
                    source.label, dialect.name
                ));
            }
        }
    }
    lost
}

/// In an untrusted workspace the project and local files contribute their `hooks` only
/// (of which only Wasm hooks run): every other key — `disableAllHooks`,
/// `allowedHttpHookUrls`, … — is dropped, with a warning, so a cloned repository cannot
/// switch off or widen the user's policy.
fn keep_only_hooks_of_untrusted(source: &mut Source, diags: &mut Vec<Diagnostic>) {
    let Some(Value::Object(map)) = &mut source.value else {
        return;
    };
    let ignored: Vec<String> = map.keys().filter(|k| *k != "hooks").cloned().collect();
    if ignored.is_empty() {
        return;
    }
    map.retain(|key, _| key == "hooks");
    diags.push(Diagnostic {
        severity: Severity::Warning,
        file: source.label.clone(),
        location: String::new(),
        message: format!(
            "workspace is not trusted: settings {} ignored",
            ignored
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    });
}

/// The folder trust covers: the trusted entry (trust store, Claude Code's dialog) and
/// below; `None` when the caller trusted the workspace for this run (the workspace as
/// its dialect finds it, hygge's walked-up root included) or the gate is off.
fn trust_root(trusted_by: Option<&TrustedBy>) -> Option<PathBuf> {
    match trusted_by? {
        TrustedBy::Store(dir) | TrustedBy::ClaudeCode(dir) => Some(dir.clone()),
        TrustedBy::Caller | TrustedBy::GateOff => None,
    }
}

/// Whether the project's settings are trusted, and why (`None`: untrusted).
fn workspace_trust(options: &LoadOptions, sources: &[Source]) -> Option<TrustedBy> {
    let gate = owner_values(sources, "requireWorkspaceTrust", true)
        .into_iter()
        .find_map(|(_, value)| value.as_bool())
        .unwrap_or(true);
    if !gate {
        return Some(TrustedBy::GateOff);
    }
    match options.trust {
        Trust::Trusted => Some(TrustedBy::Caller),
        Trust::Untrusted => None,
        Trust::Discover => {
            let project = options.project_dir.as_deref()?;
            trust::lookup(
                project,
                options.home.as_deref(),
                config_dir(options).as_deref(),
            )
        }
    }
}

/// The owners' Wasm grant bounds, from managed, user and `--settings` layers.
fn grant_policy(
    sources: &[Source],
    options: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> WasmGrantPolicy {
    let mut policy = WasmGrantPolicy {
        require_pinned: owner_values(sources, "requirePinnedWasm", true)
            .into_iter()
            .any(|(_, value)| value.as_bool() == Some(true)),
        ..WasmGrantPolicy::default()
    };
    let problem = |source: &Source, key: &str, message: String| Diagnostic {
        severity: Severity::Error,
        file: source.label.clone(),
        location: key.to_string(),
        message,
    };
    for (source, value) in owner_values(sources, "wasmHookAllowedPaths", false) {
        for message in policy.add_paths(
            value,
            options.project_dir.as_deref(),
            options.home.as_deref(),
        ) {
            diags.push(problem(source, "wasmHookAllowedPaths", message));
        }
    }
    for (source, value) in owner_values(sources, "wasmHookAllowedEnvVars", false) {
        if let Some(message) = policy.add_env_vars(value) {
            diags.push(problem(source, "wasmHookAllowedEnvVars", message));
        }
    }
    policy
}

/// `key` in the owners' layers (managed, `--settings`, user: in that order of
/// precedence), or only in managed settings when `managed_only`.
fn owner_values<'a>(
    sources: &'a [Source],
    key: &str,
    managed_only: bool,
) -> Vec<(&'a Source, &'a Value)> {
    let rank = |layer: &Layer| {
        let counts = if managed_only {
            *layer == Layer::Managed
        } else {
            layer.is_owner()
        };
        counts.then(|| layer.authority())
    };
    let mut found: Vec<(u8, &Source, &Value)> = sources
        .iter()
        .filter_map(|source| {
            let value = source.value.as_ref()?.get(key)?;
            Some((rank(&source.layer)?, source, value))
        })
        .collect();
    found.sort_by_key(|(rank, _, _)| *rank);
    found.into_iter().map(|(_, s, v)| (s, v)).collect()
}

/// The boolean `key` as the machine's owners set it: honoured only in managed, user and
/// `--settings` layers (precedence managed > `--settings` > user), so a repository
/// cannot switch a safeguard off.
fn owner_flag(sources: &[Source], key: &str) -> Option<bool> {
    owner_values(sources, key, false)
        .into_iter()
        .find_map(|(_, value)| value.as_bool())
}

fn apply_policy(sources: &[Source], hooks: &mut Vec<HookSpec>, diags: &mut Vec<Diagnostic>) {
    let note = |message: &str| Diagnostic {
        severity: Severity::Warning,
        file: "settings".into(),
        location: String::new(),
        message: message.to_string(),
    };
    if let Some((true, managed)) = effective_flag(sources, "disableAllHooks") {
        if managed {
            hooks.clear();
            diags.push(note(
                "disableAllHooks in managed settings: every hook is off",
            ));
        } else {
            hooks.retain(|h| h.layer == Layer::Managed);
            diags.push(note("disableAllHooks: only managed hooks run"));
        }
        return;
    }
    let managed_only = sources
        .iter()
        .filter(|s| s.layer == Layer::Managed)
        .filter_map(|s| s.value.as_ref()?.get("allowManagedHooksOnly"))
        .any(|v| v.as_bool() != Some(false));
    if managed_only {
        hooks.retain(|h| h.layer == Layer::Managed);
        diags.push(note("allowManagedHooksOnly: only managed hooks run"));
    }
}

/// Drops identical handlers configured in several settings files. Of equal hooks the
/// copy from the layer of strongest authority stays (a trusted copy before an untrusted
/// one), in its own place: a repository that repeats an owner's guard verbatim cannot
/// replace it with a copy that is then skipped as untrusted. Plugin hooks are never
/// merged with each other or with settings hooks.
fn dedup(hooks: Vec<HookSpec>) -> Vec<HookSpec> {
    use std::collections::HashMap;
    let key = |hook: &HookSpec| {
        let owner = match &hook.layer {
            Layer::Plugin(name) => format!("plugin:{name}"),
            _ => "settings".to_string(),
        };
        format!(
            "{owner}\u{1}{}\u{1}{:?}\u{1}{:?}\u{1}{:?}\u{1}{:?}",
            hook.event,
            hook.matcher_text,
            hook.condition.as_ref().map(|c| c.as_str().to_string()),
            hook.handler,
            hook.sequential
        )
    };
    let rank = |hook: &HookSpec| (hook.layer.authority(), !hook.trusted);
    // The index of the copy that stays, per key.
    let mut keep: HashMap<String, usize> = HashMap::new();
    let keys: Vec<String> = hooks.iter().map(key).collect();
    for (index, hook) in hooks.iter().enumerate() {
        keep.entry(keys[index].clone())
            .and_modify(|kept| {
                if rank(hook) < rank(&hooks[*kept]) {
                    *kept = index;
                }
            })
            .or_insert(index);
    }
    hooks
        .into_iter()
        .enumerate()
        .filter(|(index, _)| keep.get(&keys[*index]) == Some(index))
        .map(|(_, hook)| hook)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write(path: &Path, value: Value) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, value.to_string()).unwrap();
    }

    fn hook(command: &str) -> Value {
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}})
    }

    struct Tree {
        _dir: tempfile::TempDir,
        home: PathBuf,
        project: PathBuf,
        managed: PathBuf,
    }

    fn tree() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("proj");
        let managed = dir.path().join("etc").join("managed-settings.json");
        Tree {
            home,
            project,
            managed,
            _dir: dir,
        }
    }

    /// A trusted workspace: these tests are about how layers combine.
    fn options(t: &Tree) -> LoadOptions {
        LoadOptions {
            home: Some(t.home.clone()),
            project_dir: Some(t.project.clone()),
            managed_path: Some(t.managed.clone()),
            trust: Trust::Trusted,
            ..LoadOptions::default()
        }
    }

    fn commands(config: &LoadedConfig) -> Vec<String> {
        config
            .hooks
            .iter()
            .map(|h| h.handler.display_name())
            .collect()
    }

    #[test]
    fn layers_merge_in_order_and_dedup() {
        let t = tree();
        write(&t.managed, hook("managed"));
        write(&t.home.join(".claude/settings.json"), hook("same"));
        write(&t.project.join(".claude/settings.json"), hook("same"));
        write(
            &t.project.join(".claude/settings.local.json"),
            hook("local"),
        );
        let mut opts = options(&t);
        opts.settings.push(hook("inline").to_string());
        let config = load(&opts);
        assert_eq!(
            commands(&config),
            vec!["managed", "same", "local", "inline"]
        );
        assert!(config.diagnostics.is_empty(), "{:?}", config.diagnostics);
    }

    #[test]
    fn project_replaces_user_policy() {
        let t = tree();
        write(&t.home.join(".claude/settings.json"), hook("user"));
        write(&t.project.join(".claude/settings.json"), hook("project"));
        let mut opts = options(&t);
        opts.layering = Some(Layering::ProjectReplacesUser);
        assert_eq!(commands(&load(&opts)), vec!["project"]);
    }

    #[test]
    fn disable_all_hooks_precedence() {
        let t = tree();
        write(&t.managed, hook("managed"));
        let mut user = hook("user");
        user["disableAllHooks"] = json!(true);
        write(&t.home.join(".claude/settings.json"), user);
        write(&t.project.join(".claude/settings.json"), hook("project"));
        assert_eq!(commands(&load(&options(&t))), vec!["managed"]);
        // A project `false` beats a user `true`.
        let mut project = hook("project");
        project["disableAllHooks"] = json!(false);
        write(&t.project.join(".claude/settings.json"), project);
        assert_eq!(
            commands(&load(&options(&t))),
            vec!["managed", "user", "project"]
        );
        // Untrusted, the project's keys do not count (its command hook is loaded but
        // will be skipped): the user's `true` stands.
        let untrusted = LoadOptions {
            trust: Trust::Untrusted,
            ..options(&t)
        };
        let config = load(&untrusted);
        assert_eq!(commands(&config), vec!["managed"]);
        assert!(
            config
                .diagnostics
                .iter()
                .any(|d| d.message.contains("`disableAllHooks` ignored"))
        );
    }

    #[test]
    fn managed_policies() {
        let t = tree();
        let mut managed = hook("managed");
        managed["allowManagedHooksOnly"] = json!("yes please");
        write(&t.managed, managed);
        write(&t.home.join(".claude/settings.json"), hook("user"));
        assert_eq!(commands(&load(&options(&t))), vec!["managed"]);
        let mut managed = hook("managed");
        managed["disableAllHooks"] = json!(true);
        write(&t.managed, managed);
        assert!(load(&options(&t)).hooks.is_empty());
    }

    #[test]
    fn unreadable_files_are_errors_not_panics() {
        let t = tree();
        std::fs::create_dir_all(t.project.join(".claude")).unwrap();
        std::fs::write(t.project.join(".claude/settings.json"), "{ not json").unwrap();
        write(&t.home.join(".claude/settings.json"), hook("user"));
        let mut opts = options(&t);
        opts.settings.push("/nonexistent/settings.json".into());
        let config = load(&opts);
        assert_eq!(commands(&config), vec!["user"]);
        assert_eq!(config.diagnostics.len(), 2);
        assert!(config.has_errors());
    }
}

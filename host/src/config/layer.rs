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

use super::discover::{detect, dialect_files};
use super::hygge::read_hooks_toml;
pub use super::options::LoadOptions;
use super::owners::{
    apply_policy, dedup, grant_policy, keep_only_hooks_of_untrusted, merge_list, owner_flag,
    owner_values, workspace_trust,
};
use super::plugin::read_plugin_in;
use super::settings::{FileContext, read_hooks};
use super::source::{Source, file_error, managed_sources, read_source};
use super::trust::trust_root;
use super::{Diagnostic, DroppedHook, FileSet, HttpPolicy, Layer, LoadedConfig};
use crate::dialect::{Dialect, Duplicates, Layering};

fn gather(options: &LoadOptions, dialect: &Dialect, diags: &mut Vec<Diagnostic>) -> Vec<Source> {
    let project = options.project_dir.clone();
    let mut sources = managed_sources(options, diags);
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

/// Loads every configured layer and plugin into one [`LoadedConfig`].
pub fn load(options: &LoadOptions) -> LoadedConfig {
    let mut diags = Vec::new();
    let (dialect_id, detected_from) = match options.dialect {
        Some(id) => (id, None),
        None => detect(options),
    };
    let dialect = dialect_id.dialect();
    let mut sources = gather(options, dialect, &mut diags);
    let policy = super::policy_layer::read(options, &mut sources, &mut diags);
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
        vars.extend(options.vars.iter().cloned());
        let ctx = FileContext {
            file: source.label.clone(),
            layer: source.layer.clone(),
            base_dir: source.base_dir.clone(),
            // A relative component is relative to the file that names it.
            component_base: (!source.label.starts_with("--settings["))
                .then(|| Path::new(&source.label).parent().map(Path::to_path_buf))
                .flatten()
                .and_then(|dir| std::path::absolute(dir).ok()),
            vars,
            env: Vec::new(),
            trusted,
            dialect,
            // The host reads its own files' matchers its way; hookhost's own files and
            // `--settings` files are hookhost's.
            tool_patterns: dialect.tool_patterns
                || options.files == FileSet::Own
                || source.layer == Layer::Settings,
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
    let mut dropped = Vec::new();
    let mut hooks = match dialect.duplicates {
        Duplicates::RunEach => hooks,
        Duplicates::RunOnce => dedup(hooks, &mut dropped),
    };
    if layering == Layering::ProjectReplacesUser {
        // Only hooks that will run replace the user's: an untrusted repository's hooks
        // (skipped, or sandboxed) never take the user's guards away.
        let overridden: HashSet<crate::dialect::Event> = hooks
            .iter()
            .filter(|h| matches!(h.layer, Layer::Project | Layer::Local) && h.trusted)
            .map(|h| h.event.clone())
            .collect();
        hooks.retain(|h| {
            let replaced = h.layer == Layer::User && overridden.contains(&h.event);
            if replaced {
                dropped.push(DroppedHook::new(
                    h,
                    "replaced: the project configures this event, and the layering is project-replaces-user".into(),
                ));
            }
            !replaced
        });
    }
    apply_policy(&sources, &mut hooks, &mut dropped, &mut diags);
    let grant_policy = grant_policy(&sources, options, &mut diags);
    let signing = super::owners::signing_policy(&sources, &mut diags);
    let prompt_endpoint = super::owners::prompt_endpoint(&sources, &mut diags);
    let self_protection = super::owners::self_protection(&sources, &mut diags);
    let envelope = super::envelope_setting::envelope(&sources, &mut diags);
    let mut guard_files = super::discover::guard_files(options);
    guard_files.extend(super::policy_layer::store_dir(options));
    let telemetry = super::telemetry_setting::telemetry(&sources, &mut diags);
    let wasm_update_interval = owner_values(&sources, "wasmUpdateInterval", false)
        .into_iter()
        .find_map(|(_, value)| value.as_u64());
    let wasm_cache_max_mb = owner_values(&sources, "wasmCacheMaxMb", false)
        .into_iter()
        .find_map(|(_, value)| value.as_u64().filter(|mb| *mb > 0));
    let audit_log = owner_values(&sources, "hookAuditLog", false)
        .into_iter()
        .find_map(|(_, value)| value.as_str().map(PathBuf::from));
    let lost_guards: Vec<String> = diags
        .iter()
        .filter(|diag| diag.is_lost_guard())
        .map(|diag| format!("{}: {}", diag.file, diag.message))
        .collect();
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
        dropped,
        wasm_cache_max_mb,
        signing,
        wasm_update_interval,
        prompt_endpoint,
        self_protection,
        envelope,
        guard_files,
        policy,
        telemetry,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Severity, Trust};
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
    fn an_owners_fail_closed_hook_on_an_event_the_dialect_lacks_is_a_lost_guard() {
        let t = tree();
        let entry = |fail_closed: bool| {
            json!({"hooks": {"PermissionRequest": [{"hooks": [
                {"type": "command", "command": "guard", "failClosed": fail_closed}]}]}})
        };
        let mut opts = options(&t);
        opts.dialect = Some(crate::dialect::DialectId::Evva);
        write(&t.managed, entry(true));
        let config = load(&opts);
        let lost: Vec<&Diagnostic> = config
            .diagnostics
            .iter()
            .filter(|d| d.is_lost_guard())
            .collect();
        assert_eq!(lost.len(), 1, "{:?}", config.diagnostics);
        assert_eq!(lost[0].kind, crate::config::DiagnosticKind::LostGuard);
        assert_eq!(lost[0].severity, Severity::Error);
        assert_eq!(config.lost_guards.len(), 1);
        assert!(config.lost_guards[0].contains("PermissionRequest"));
        // Not failClosed: an error, no lost guard; the repository's: a warning.
        write(&t.managed, entry(false));
        let config = load(&opts);
        assert!(config.lost_guards.is_empty(), "{:?}", config.lost_guards);
        assert!(
            config
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error && !d.is_lost_guard())
        );
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

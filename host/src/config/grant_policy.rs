//! What a Wasm hook may be granted, decided by the machine's owners: managed, user and
//! `--settings` layers. `wasmHookAllowedPaths` and `wasmHookAllowedEnvVars` there bound
//! every grant. Unset, hooks of those layers keep their grants as configured, and hooks
//! that come with a repository or a plugin (project, local, plugin layers) may have only
//! the project folder read-only, their plugin's root read-only and its data folder
//! read-write, and no environment variables. `requirePinnedWasm` (managed) refuses
//! components of other layers that carry no `sha256`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{AllowedPath, Handler, HookSpec, Layer};

/// The owners' bounds on Wasm grants.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WasmGrantPolicy {
    /// `wasmHookAllowedPaths`, when set in an owner layer.
    pub allowed_paths: Option<Vec<AllowedPath>>,
    /// `wasmHookAllowedEnvVars`, when set in an owner layer.
    pub allowed_env_vars: Option<Vec<String>>,
    /// `requirePinnedWasm` in managed settings.
    pub require_pinned: bool,
}

impl WasmGrantPolicy {
    /// Reads one owner layer's `wasmHookAllowedPaths` entries (`{"path", "write"}`,
    /// `${CLAUDE_PROJECT_DIR}` and `~` expanded) into the policy; returns what was
    /// wrong with entries it skipped.
    pub fn add_paths(
        &mut self,
        value: &Value,
        project: Option<&Path>,
        home: Option<&Path>,
    ) -> Vec<String> {
        let list = self.allowed_paths.get_or_insert_with(Vec::new);
        let Some(items) = value.as_array() else {
            return vec![
                "must be an array of {\"path\", \"write\"} objects; treated as empty".into(),
            ];
        };
        let mut problems = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let Some(path) = item.get("path").and_then(Value::as_str) else {
                problems.push(format!("[{index}]: `path` must be a string; entry skipped"));
                continue;
            };
            let write = item.get("write").and_then(Value::as_bool).unwrap_or(false);
            list.push(AllowedPath {
                path: expand(path, project, home),
                write,
            });
        }
        problems
    }

    /// Reads one owner layer's `wasmHookAllowedEnvVars`.
    pub fn add_env_vars(&mut self, value: &Value) -> Option<String> {
        let list = self.allowed_env_vars.get_or_insert_with(Vec::new);
        match value.as_array() {
            Some(items) => {
                list.extend(items.iter().filter_map(Value::as_str).map(str::to_string));
                None
            }
            None => Some("must be an array of names; treated as empty".into()),
        }
    }

    /// Why the policy refuses `hook` (a Wasm hook whose grants, environment or pinning
    /// it does not allow), if it does.
    pub(crate) fn refusal(&self, hook: &HookSpec, project: Option<&Path>) -> Option<String> {
        let Handler::Wasm(wasm) = &hook.handler else {
            return None;
        };
        if self.require_pinned && hook.layer != Layer::Managed && wasm.sha256.is_none() {
            return Some(
                "refused by requirePinnedWasm: the component is not pinned with `sha256`".into(),
            );
        }
        let owner = hook.layer.is_owner();
        let plugin_var = |name: &str| {
            hook.env
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| PathBuf::from(value))
        };
        let (bounds, rule): (Vec<AllowedPath>, &str) = match &self.allowed_paths {
            Some(allowed) => (allowed.clone(), "it is outside wasmHookAllowedPaths"),
            None if owner => (Vec::new(), ""),
            None => {
                let mut bounds = Vec::new();
                let mut add = |path: Option<PathBuf>, write: bool| {
                    if let Some(path) = path {
                        bounds.push(AllowedPath { path, write });
                    }
                };
                add(project.map(Path::to_path_buf), false);
                add(plugin_var("CLAUDE_PLUGIN_ROOT"), false);
                add(plugin_var("CLAUDE_PLUGIN_DATA"), true);
                (
                    bounds,
                    "project and plugin hooks may be granted only the project folder (read-only), their plugin's root (read-only) and its data folder (read-write) unless wasmHookAllowedPaths allows more",
                )
            }
        };
        if self.allowed_paths.is_some() || !owner {
            for grant in &wasm.allowed_paths {
                if !within(grant, &bounds) {
                    return Some(format!(
                        "grant `{}` ({}) refused: {rule}",
                        grant.path.display(),
                        if grant.write {
                            "read-write"
                        } else {
                            "read-only"
                        }
                    ));
                }
            }
        }
        for name in &wasm.env {
            let allowed = match &self.allowed_env_vars {
                Some(names) => names.contains(name),
                None => owner,
            };
            if !allowed {
                let rule = if self.allowed_env_vars.is_some() {
                    "it is not in wasmHookAllowedEnvVars"
                } else {
                    "project and plugin hooks get no environment variables unless wasmHookAllowedEnvVars allows them"
                };
                return Some(format!("environment variable `{name}` refused: {rule}"));
            }
        }
        None
    }
}

/// Whether `grant` lies inside one of `bounds` of at least its mode (compared as
/// canonical paths; a grant that cannot be resolved is outside).
fn within(grant: &AllowedPath, bounds: &[AllowedPath]) -> bool {
    let Ok(path) = std::fs::canonicalize(&grant.path) else {
        return false;
    };
    bounds.iter().any(|bound| {
        (bound.write || !grant.write)
            && std::fs::canonicalize(&bound.path).is_ok_and(|root| path.starts_with(root))
    })
}

fn expand(path: &str, project: Option<&Path>, home: Option<&Path>) -> PathBuf {
    let mut text = path.to_string();
    if let Some(project) = project {
        text = text.replace("${CLAUDE_PROJECT_DIR}", &project.display().to_string());
    }
    if let Some(home) = home {
        if text == "~" {
            return home.to_path_buf();
        }
        if let Some(rest) = text.strip_prefix("~/") {
            return home.join(rest);
        }
    }
    PathBuf::from(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::WasmHandler;

    fn hook(layer: Layer, grants: Vec<AllowedPath>, env: Vec<&str>) -> HookSpec {
        let mut handler = WasmHandler::new("x.wasm");
        handler.allowed_paths = grants;
        handler.env = env.into_iter().map(str::to_string).collect();
        let mut spec =
            crate::engine::session_hooks::test_spec("PreToolUse", None, Handler::Wasm(handler))
                .unwrap();
        spec.layer = layer;
        spec
    }

    #[test]
    fn repository_hooks_are_bounded_by_default_and_owner_hooks_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir_all(project.join("src")).unwrap();
        let grant = |path: &Path, write| AllowedPath {
            path: path.to_path_buf(),
            write,
        };
        let policy = WasmGrantPolicy::default();
        let check = |hook: HookSpec| policy.refusal(&hook, Some(&project));
        assert_eq!(
            check(hook(
                Layer::Project,
                vec![grant(&project.join("src"), false)],
                vec![]
            )),
            None
        );
        let home = check(hook(Layer::Project, vec![grant(dir.path(), false)], vec![])).unwrap();
        assert!(
            home.contains("refused") && home.contains("project folder"),
            "{home}"
        );
        assert!(check(hook(Layer::Project, vec![grant(&project, true)], vec![])).is_some());
        assert!(
            check(hook(
                Layer::Plugin("p".into()),
                vec![],
                vec!["AWS_SECRET_ACCESS_KEY"]
            ))
            .is_some()
        );
        assert_eq!(
            check(hook(
                Layer::User,
                vec![grant(dir.path(), true)],
                vec!["HOME"]
            )),
            None
        );

        let bounded = WasmGrantPolicy {
            allowed_paths: Some(vec![grant(&project, false)]),
            allowed_env_vars: Some(vec!["LANG".into()]),
            require_pinned: true,
        };
        let refused = bounded.refusal(
            &hook(Layer::User, vec![grant(&project, false)], vec![]),
            None,
        );
        assert!(refused.unwrap().contains("requirePinnedWasm"));
        let mut pinned = hook(Layer::User, vec![grant(&project, true)], vec![]);
        if let Handler::Wasm(w) = &mut pinned.handler {
            w.sha256 = Some("0".repeat(64));
        }
        assert!(
            bounded
                .refusal(&pinned, None)
                .unwrap()
                .contains("wasmHookAllowedPaths")
        );
    }
}

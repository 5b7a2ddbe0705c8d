//! Plugin bundles: a folder with `.claude-plugin/plugin.json` (or `plugin.json` at its
//! root) and `hooks/hooks.json`, or hooks given inline or by path in `plugin.json`.
//! `${CLAUDE_PLUGIN_ROOT}`, `${PLUGIN_ROOT}`, `${CLAUDE_PLUGIN_DATA}` and
//! `${CLAUDE_PROJECT_DIR}` expand in every hook of the bundle.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::settings::{FileContext, read_hooks};
use super::{Diagnostic, HookSpec, Layer, Severity};
use crate::dialect::Dialect;

/// Reads one bundle at `root`, appending its hooks and diagnostics.
pub fn read_plugin(
    root: &Path,
    project_dir: Option<&Path>,
    home: Option<&Path>,
    out: &mut Vec<HookSpec>,
    diags: &mut Vec<Diagnostic>,
) {
    read_plugin_in(Dialect::claude(), root, project_dir, home, out, diags)
}

/// [`read_plugin`] for a bundle whose hooks are read in `dialect`.
pub fn read_plugin_in(
    dialect: &'static Dialect,
    root: &Path,
    project_dir: Option<&Path>,
    home: Option<&Path>,
    out: &mut Vec<HookSpec>,
    diags: &mut Vec<Diagnostic>,
) {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let manifest_path = [
        root.join(".claude-plugin").join("plugin.json"),
        root.join("plugin.json"),
    ]
    .into_iter()
    .find(|p| p.is_file());
    let error = |file: &Path, message: String| {
        Diagnostic::new(
            Severity::Error,
            file.display().to_string(),
            String::new(),
            message,
        )
    };
    let manifest = match &manifest_path {
        Some(path) => match read_json(path) {
            Ok(value) if value.is_object() => value,
            Ok(_) => {
                diags.push(error(
                    path,
                    "plugin.json must be an object; plugin skipped".into(),
                ));
                return;
            }
            Err(message) => {
                diags.push(error(path, format!("{message}; plugin skipped")));
                return;
            }
        },
        None if root.join("hooks").join("hooks.json").is_file() => {
            Value::Object(Default::default())
        }
        None => {
            diags.push(error(
                &root,
                "not a plugin bundle: no .claude-plugin/plugin.json, plugin.json or hooks/hooks.json"
                    .into(),
            ));
            return;
        }
    };
    let name = match manifest.get("name") {
        Some(Value::String(name)) if !name.is_empty() => name.clone(),
        Some(_) => {
            let file = manifest_path.as_deref().unwrap_or(&root);
            diags.push(error(
                file,
                "`name` must be a non-empty string; plugin skipped".into(),
            ));
            return;
        }
        None => root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "plugin".into()),
    };
    let data_id = data_folder_name(&name);
    let data_dir = home
        .map(|h| {
            h.join(".claude")
                .join("plugins")
                .join("data")
                .join(&data_id)
        })
        .unwrap_or_else(|| root.join(".data"));
    let root_text = root.display().to_string();
    let mut vars = vec![
        ("CLAUDE_PLUGIN_ROOT".to_string(), root_text.clone()),
        ("PLUGIN_ROOT".to_string(), root_text.clone()),
        (
            "CLAUDE_PLUGIN_DATA".to_string(),
            data_dir.display().to_string(),
        ),
    ];
    let env: Vec<(String, String)> = vars
        .iter()
        .filter(|(name, _)| name != "PLUGIN_ROOT")
        .cloned()
        .collect();
    if let Some(project) = project_dir {
        vars.push(("CLAUDE_PROJECT_DIR".into(), project.display().to_string()));
    }
    let context = |file: String| FileContext {
        file,
        layer: Layer::Plugin(name.clone()),
        base_dir: Some(root.clone()),
        component_base: None,
        vars: vars.clone(),
        env: env.clone(),
        // Named by the caller (`--plugin`): trusted; its Wasm grants are still bounded.
        trusted: true,
        dialect,
        // A plugin's hooks file is the host's to read (Claude Code's plugins).
        tool_patterns: dialect.tool_patterns,
    };

    let mut hook_files: Vec<PathBuf> = Vec::new();
    let default_file = root.join("hooks").join("hooks.json");
    if default_file.is_file() {
        hook_files.push(default_file);
    }
    let manifest_file = manifest_path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    match manifest.get("hooks") {
        None | Some(Value::Null) => {}
        Some(Value::String(path)) => push_path(&root, path, &mut hook_files, diags, &manifest_file),
        Some(Value::Array(paths)) => {
            for (index, path) in paths.iter().enumerate() {
                match path {
                    Value::String(path) => {
                        push_path(&root, path, &mut hook_files, diags, &manifest_file)
                    }
                    _ => diags.push(Diagnostic::new(
                        Severity::Error,
                        manifest_file.clone(),
                        format!("hooks[{index}]"),
                        "hook file paths must be strings; skipped",
                    )),
                }
            }
        }
        Some(inline @ Value::Object(map)) => {
            let hooks = map.get("hooks").filter(|h| h.is_object()).unwrap_or(inline);
            read_hooks(hooks, &context(manifest_file.clone()), out, diags);
        }
        Some(_) => diags.push(Diagnostic::new(
            Severity::Error,
            manifest_file.clone(),
            "hooks",
            "`hooks` must be a path, an array of paths or an object; skipped",
        )),
    }
    for file in hook_files {
        let label = file.display().to_string();
        match read_json(&file) {
            Ok(value) => match value.get("hooks") {
                Some(hooks) => read_hooks(hooks, &context(label), out, diags),
                None => diags.push(error(&file, "no `hooks` key; file skipped".into())),
            },
            Err(message) => diags.push(error(&file, format!("{message}; file skipped"))),
        }
    }
}

fn push_path(
    root: &Path,
    path: &str,
    files: &mut Vec<PathBuf>,
    diags: &mut Vec<Diagnostic>,
    manifest: &str,
) {
    let relative = path.strip_prefix("./").unwrap_or(path);
    if Path::new(relative).is_absolute() || relative.split('/').any(|part| part == "..") {
        diags.push(Diagnostic::new(
            Severity::Error,
            manifest.to_string(),
            "hooks",
            format!("hook path `{path}` must be relative to the plugin root; skipped"),
        ));
        return;
    }
    let full = root.join(relative);
    if !files.contains(&full) {
        files.push(full);
    }
}

/// The folder name of a plugin's `${CLAUDE_PLUGIN_DATA}`: the name itself when it is
/// made only of ASCII letters, digits, `_` and `-` (as Claude Code names it); otherwise
/// those characters kept, the rest as `-`, and `~` plus a digest of the whole name — so
/// two plugins never share a data folder (`corp.guard` is not `corp-guard`).
fn data_folder_name(name: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if name.chars().all(plain) {
        return name.to_string();
    }
    let kept: String = name
        .chars()
        .map(|c| if plain(c) { c } else { '-' })
        .collect();
    use sha2::Digest;
    let digest = format!("{:x}", sha2::Sha256::digest(name.as_bytes()));
    format!("{kept}~{}", &digest[..16])
}

/// Reads and parses a JSON file, with an error message that names the problem.
pub fn read_json(path: &Path) -> Result<Value, String> {
    let text = crate::files::read_config_text(path).map_err(|err| format!("cannot read: {err}"))?;
    serde_json::from_str(&text).map_err(|err| format!("invalid JSON: {err}"))
}

#[cfg(test)]
mod tests {
    use super::data_folder_name;

    #[test]
    fn plugin_data_folders_never_collide() {
        assert_eq!(data_folder_name("corp-guard"), "corp-guard");
        let dotted = data_folder_name("corp.guard");
        assert_ne!(dotted, "corp-guard");
        assert!(dotted.starts_with("corp-guard~"), "{dotted}");
        assert_ne!(data_folder_name("corp guard"), dotted);
        assert_ne!(data_folder_name(".."), "..");
        assert!(!data_folder_name("../x").contains('/'));
    }
}

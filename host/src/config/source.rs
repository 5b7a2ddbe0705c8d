//! One configuration file as read: its layer, label, JSON (or `hooks.toml`) value and base
//! folder; files are read as regular files only, without blocking, size-capped.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::plugin::read_json;
use super::{Diagnostic, Layer, Severity};

#[derive(Clone)]
pub(super) struct Source {
    pub(super) layer: Layer,
    pub(super) label: String,
    pub(super) value: Option<Value>,
    pub(super) base_dir: Option<PathBuf>,
    /// A hygge `hooks.toml` (else a settings JSON file).
    pub(super) toml: bool,
}

pub(super) fn read_source(
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

pub(super) fn file_error(file: &str, message: &str) -> Diagnostic {
    Diagnostic::new(
        Severity::Error,
        file.to_string(),
        String::new(),
        message.to_string(),
    )
}

/// The managed settings files: the managed file, then `managed-settings.d/*.json` beside
/// it in name order.
pub(super) fn managed_sources(
    options: &super::LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Source> {
    let project = options.project_dir.clone();
    let mut sources = Vec::new();
    let managed = options.managed_file();
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
    sources
}

/// A source for unit tests: `value`, as if read from `settings.json` in `layer`.
#[cfg(test)]
pub(super) fn test_source(layer: Layer, value: Value) -> Source {
    Source {
        layer,
        label: "settings.json".into(),
        value: Some(value),
        base_dir: None,
        toml: false,
    }
}

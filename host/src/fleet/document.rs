//! The policy document: the owner's hook file as one signed JSON file, every local
//! component it names replaced by the copy the artifact carries and pinned by digest.
//!
//! ```json
//! {"hookhostPolicy": 1, "settings": { "hooks": { … }, "trustedSigners": [ … ], … }}
//! ```
//!
//! A component named by path becomes `components/<sha256 hex>.wasm` with its `sha256`
//! set, so the signature over the document covers every component's bytes; a registry
//! component must be named by digest (`oci://…@sha256:…`) for the same reason; a builtin
//! (`builtin:NAME`) comes with hookhost. A policy never names a policy.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::PolicyError;

/// The document format's version.
pub const FORMAT: u64 = 1;

/// Largest policy document accepted (the hook file and its settings).
pub const MAX_DOCUMENT_BYTES: u64 = 1 << 20;

/// Most components one policy carries.
pub const MAX_COMPONENTS: usize = 32;

/// A policy built from an owner's hook file: the document's bytes (what is signed) and
/// the components it carries, by the names it gives them.
#[derive(Debug)]
pub struct Built {
    /// The document, as written and signed.
    pub document: Vec<u8>,
    /// `(components/<hex>.wasm, bytes)` for each local component, once each.
    pub components: Vec<(String, Vec<u8>)>,
}

/// Builds the policy of the hook file `hooks_file` (the owner's `hooks.json`).
pub fn build(hooks_file: &Path) -> Result<Built, PolicyError> {
    let bad = |message: String| PolicyError::Build {
        file: hooks_file.to_path_buf(),
        message,
    };
    let bytes = crate::files::read_regular(hooks_file, MAX_DOCUMENT_BYTES)
        .map_err(|e| bad(format!("cannot read it: {e}")))?;
    let mut settings: Value =
        serde_json::from_slice(&bytes).map_err(|e| bad(format!("not JSON: {e}")))?;
    if !settings.is_object() {
        return Err(bad("not a JSON object".into()));
    }
    if settings.get("policy").is_some() {
        return Err(bad(
            "`policy`: a policy cannot name another policy (only the managed settings name one)"
                .into(),
        ));
    }
    let base = hooks_file.parent().unwrap_or(Path::new("."));
    let mut components: Vec<(String, Vec<u8>)> = Vec::new();
    for (location, entry) in wasm_entries(&mut settings) {
        pack_component(entry, base, &mut components)
            .map_err(|message| bad(format!("{location}: {message}")))?;
    }
    if components.len() > MAX_COMPONENTS {
        return Err(bad(format!(
            "{} components, over the limit of {MAX_COMPONENTS}",
            components.len()
        )));
    }
    let document = serde_json::to_vec_pretty(&json!({
        "hookhostPolicy": FORMAT,
        "settings": settings,
    }))
    .map_err(|e| bad(e.to_string()))?;
    Ok(Built {
        document,
        components,
    })
}

/// Every `"type": "wasm"` handler of `settings`, with where it is (`hooks.EVENT[i].hooks[j]`).
fn wasm_entries(settings: &mut Value) -> Vec<(String, &mut Value)> {
    let Some(events) = settings.get_mut("hooks").and_then(Value::as_object_mut) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (event, groups) in events.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        for (g, group) in groups.iter_mut().enumerate() {
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            for (h, handler) in handlers.iter_mut().enumerate() {
                if handler.get("type").and_then(Value::as_str) == Some("wasm") {
                    found.push((format!("hooks.{event}[{g}].hooks[{h}]"), handler));
                }
            }
        }
    }
    found
}

/// Rewrites one Wasm handler: a local component is carried and pinned.
fn pack_component(
    entry: &mut Value,
    base: &Path,
    components: &mut Vec<(String, Vec<u8>)>,
) -> Result<(), String> {
    let Some(component) = entry.get("component").and_then(Value::as_str) else {
        return Err("`component` is missing".into());
    };
    if crate::builtin::Builtin::is_builtin(component) {
        return Ok(());
    }
    if crate::oci::OciRef::is_oci(component) {
        let reference = crate::oci::OciRef::parse(component).map_err(|e| e.to_string())?;
        return match reference.digest() {
            Some(_) => Ok(()),
            None => Err(format!(
                "`{component}`: name a registry component by digest (oci://…@sha256:…) so the signature covers it"
            )),
        };
    }
    if component.contains("${") {
        return Err(format!(
            "`{component}`: a component the policy carries is named by a plain path"
        ));
    }
    let path: PathBuf = base.join(component);
    let bytes = crate::files::read_regular(&path, crate::oci::DEFAULT_MAX_COMPONENT_BYTES)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let hex = hex(&Sha256::digest(&bytes));
    if let Some(pinned) = entry.get("sha256").and_then(Value::as_str)
        && !pinned.eq_ignore_ascii_case(&hex)
    {
        return Err(format!(
            "{} is sha256:{hex}, not the pinned {pinned}",
            path.display()
        ));
    }
    let name = component_name(&hex);
    entry["component"] = Value::String(name.clone());
    entry["sha256"] = Value::String(hex);
    if !components.iter().any(|(known, _)| *known == name) {
        components.push((name, bytes));
    }
    Ok(())
}

/// The name a carried component has in the artifact and in the activated folder.
pub fn component_name(hex: &str) -> String {
    format!("components/{hex}.wasm")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The settings a document carries, and the names of the components it pins (each
/// `components/<hex>.wasm`, with `<hex>` its digest).
pub fn parse(bytes: &[u8]) -> Result<(Value, Vec<(String, String)>), String> {
    let document: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("not a policy document: {e}"))?;
    match document.get("hookhostPolicy").and_then(Value::as_u64) {
        Some(FORMAT) => {}
        Some(other) => {
            return Err(format!(
                "policy format {other}; this hookhost reads format {FORMAT} (upgrade it)"
            ));
        }
        None => return Err("not a policy document: no `hookhostPolicy`".into()),
    }
    let mut settings = document
        .get("settings")
        .filter(|value| value.is_object())
        .cloned()
        .ok_or("not a policy document: no `settings` object")?;
    if settings.get("policy").is_some() {
        return Err("`settings.policy`: a policy cannot name another policy".into());
    }
    let mut pinned = Vec::new();
    for (location, entry) in wasm_entries(&mut settings) {
        let component = entry.get("component").and_then(Value::as_str);
        if let Some(name) = component.filter(|name| name.starts_with("components/")) {
            let hex = entry
                .get("sha256")
                .and_then(Value::as_str)
                .filter(|hex| component_name(hex) == name)
                .ok_or_else(|| format!("{location}: `{name}` is not pinned by its digest"))?;
            pinned.push((name.to_string(), hex.to_string()));
        }
    }
    Ok((settings, pinned))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_component_is_carried_and_pinned_and_a_tag_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("guard.wasm"), b"\0asm guard").unwrap();
        let hooks = |component: &str| {
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "wasm", "component": component, "failClosed": true},
                {"type": "wasm", "component": "builtin:secrets"},
                {"type": "command", "command": "true"}
            ]}]}})
        };
        let file = dir.path().join("hooks.json");
        std::fs::write(&file, hooks("guard.wasm").to_string()).unwrap();
        let built = build(&file).unwrap();
        assert_eq!(built.components.len(), 1);
        let (settings, pinned) = parse(&built.document).unwrap();
        let entry = &settings["hooks"]["PreToolUse"][0]["hooks"][0];
        let hex = hex(&Sha256::digest(b"\0asm guard"));
        assert_eq!(entry["component"], component_name(&hex));
        assert_eq!(entry["sha256"], hex.as_str());
        assert_eq!(pinned, vec![(component_name(&hex), hex.clone())]);
        assert_eq!(
            settings["hooks"]["PreToolUse"][0]["hooks"][1]["component"],
            "builtin:secrets"
        );

        std::fs::write(
            &file,
            hooks("oci://127.0.0.1:5000/acme/guard:1").to_string(),
        )
        .unwrap();
        let err = build(&file).unwrap_err().to_string();
        assert!(
            err.contains("hooks.PreToolUse[0].hooks[0]") && err.contains("by digest"),
            "{err}"
        );
        std::fs::write(&file, hooks("missing.wasm").to_string()).unwrap();
        assert!(
            build(&file)
                .unwrap_err()
                .to_string()
                .contains("missing.wasm")
        );
    }

    #[test]
    fn a_document_that_unpins_a_component_or_names_a_policy_is_refused() {
        let unpinned = json!({"hookhostPolicy": 1, "settings": {"hooks": {"Stop": [{"hooks": [
            {"type": "wasm", "component": "components/ab.wasm", "sha256": "cd"}]}]}}});
        let err = parse(unpinned.to_string().as_bytes()).unwrap_err();
        assert!(err.contains("not pinned"), "{err}");
        let nested = json!({"hookhostPolicy": 1, "settings": {"policy": "oci://x.io/p:1"}});
        assert!(parse(nested.to_string().as_bytes()).is_err());
        let future = json!({"hookhostPolicy": 2, "settings": {}});
        assert!(
            parse(future.to_string().as_bytes())
                .unwrap_err()
                .contains("format 2")
        );
    }
}

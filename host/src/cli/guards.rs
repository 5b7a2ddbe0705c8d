//! `--guards recommended|none|NAME,…` on `hookhost claude install` and `hookhost install
//! --agent`: the guards that come with hookhost (`builtin:NAME`) switched on in the owner's
//! own hook file (`~/.config/hookhost/hooks.json`, which every agent's hook reads). Each
//! guard is one matcher group after the user's own entries; a guard the file already
//! names is left as it is (the owner may have configured it), so a second install changes
//! nothing, and no entry of the user's is ever touched.

use std::path::Path;

use anyhow::Context;
use hookhost::Builtin;
use serde_json::{Map, Value, json};

use super::settings_file::{current_bytes, lock_settings, read_settings, write_settings};

/// The guards `recommended` switches on: every builtin whose defaults guard something
/// (`protected-paths` guards only the paths an owner configures).
const RECOMMENDED: &[&str] = &["bash-guard", "git-safety", "secrets", "system-dirs"];

/// The builtins `selection` names: `recommended`, `none`, or a comma-separated list.
pub(crate) fn parse(selection: &str) -> Result<Vec<&'static Builtin>, String> {
    let names: Vec<&str> = match selection.trim() {
        "recommended" => RECOMMENDED.to_vec(),
        "none" | "" => Vec::new(),
        list => list.split(',').map(str::trim).collect(),
    };
    names
        .into_iter()
        .map(|name| {
            Builtin::find(&format!("builtin:{name}")).ok_or_else(|| {
                let known: Vec<&str> = Builtin::all().iter().map(|b| b.name).collect();
                format!(
                    "--guards: `{name}` is no builtin guard (recommended, none, or some of: {})",
                    known.join(", ")
                )
            })
        })
        .collect()
}

/// Switches `guards` on in the owner's hook file in `config_dir`; the names it added.
pub(crate) fn switch_on(config_dir: &Path, guards: &[&Builtin]) -> anyhow::Result<Vec<String>> {
    if guards.is_empty() {
        return Ok(Vec::new());
    }
    let file = config_dir.join("hooks.json");
    let _lock = lock_settings(&file)?;
    let original = read_settings(&file)?;
    let mut settings = original.clone().unwrap_or_default();
    let added = add(&mut settings, guards).with_context(|| format!("{}", file.display()))?;
    if !added.is_empty() {
        write_settings(&file, current_bytes(&file).as_deref(), &settings)?;
    }
    Ok(added)
}

/// Says which guards `added` switched on in `config_dir`'s hook file.
pub(crate) fn announce(added: Vec<String>, config_dir: &str) {
    if !added.is_empty() {
        println!(
            "switched on {} in {config_dir}/hooks.json",
            added
                .iter()
                .map(|name| format!("builtin:{name}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// Adds a group per guard the settings do not name yet; the names added.
fn add(settings: &mut Map<String, Value>, guards: &[&Builtin]) -> anyhow::Result<Vec<String>> {
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .context("`hooks` is not an object; not changed")?;
    let mut added = Vec::new();
    for guard in guards {
        let reference = guard.reference();
        let named = hooks.values().any(|groups| {
            groups.as_array().is_some_and(|groups| {
                groups.iter().any(|group| {
                    group["hooks"].as_array().is_some_and(|handlers| {
                        handlers
                            .iter()
                            .any(|handler| handler["component"] == json!(reference))
                    })
                })
            })
        });
        if named {
            continue;
        }
        let groups = hooks
            .entry(guard.event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .with_context(|| format!("`hooks.{}` is not a list; not changed", guard.event))?;
        groups.push(json!({"matcher": guard.matcher,
                           "hooks": [{"type": "wasm", "component": reference}]}));
        added.push(guard.name.to_string());
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards_go_after_the_users_own_and_only_once() {
        let mut settings = json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "mine.sh"}]}]}})
        .as_object()
        .cloned()
        .unwrap();
        let guards = parse("recommended").unwrap();
        assert_eq!(add(&mut settings, &guards).unwrap().len(), guards.len());
        let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre[0]["hooks"][0]["command"], "mine.sh");
        assert_eq!(pre[1]["hooks"][0]["component"], "builtin:bash-guard");
        let before = settings.clone();
        assert!(add(&mut settings, &guards).unwrap().is_empty());
        assert_eq!(settings, before);
    }

    #[test]
    fn a_selection_names_builtins_or_is_refused() {
        assert!(parse("none").unwrap().is_empty());
        assert_eq!(parse("bash-guard").unwrap()[0].name, "bash-guard");
        let err = parse("bash-guard,rm-guard").unwrap_err();
        assert!(err.contains("rm-guard") && err.contains("secrets"), "{err}");
    }
}

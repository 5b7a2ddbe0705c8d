//! `--guards recommended|none|NAME,…` on `hookhost claude install` and `hookhost install
//! --agent`: the guards that come with hookhost (`builtin:NAME`) switched on in the owner's
//! own hook file (`~/.config/hookhost/hooks.json`, which every agent's hook reads). Each
//! guard is one matcher group after the user's own entries; a guard the file already
//! names is left as it is (the owner may have configured it), so a second install changes
//! nothing, and no entry of the user's is ever touched.

use std::path::Path;

use anyhow::Context;
use hookhost::{Builtin, BuiltinRuns};
use serde_json::{Map, Value, json};

use super::settings_file::{current_bytes, lock_settings, read_settings, write_settings};

/// The builtins `selection` names: `recommended`, `none`, or a comma-separated list.
pub(crate) fn parse(selection: &str) -> Result<Vec<&'static Builtin>, String> {
    let names: Vec<&str> = match selection.trim() {
        // The table's `recommended` column: every builtin whose defaults guard something.
        "recommended" => Builtin::all()
            .iter()
            .filter(|builtin| builtin.recommended)
            .map(|builtin| builtin.name)
            .collect(),
        "none" | "" => Vec::new(),
        list => list.split(',').map(str::trim).collect(),
    };
    let components: Vec<&str> = Builtin::all()
        .iter()
        .filter(|builtin| matches!(builtin.runs, BuiltinRuns::Component { .. }))
        .map(|builtin| builtin.name)
        .collect();
    names
        .into_iter()
        .map(|name| match Builtin::named(name) {
            Some(builtin) if matches!(builtin.runs, BuiltinRuns::Component { .. }) => Ok(builtin),
            Some(_) => Err(format!(
                "--guards: `{name}` runs the owner's own checks: give them with --checks CMD"
            )),
            None => Err(format!(
                "--guards: `{name}` is no builtin guard (recommended, none, or some of: {})",
                components.join(", ")
            )),
        })
        .collect()
}

/// What an install writes into the owner's own hook file: builtins (`--guards`) and the
/// checks before a commit (`--checks`).
#[derive(Debug, Clone, Default)]
pub(crate) struct OwnerHooks {
    pub(crate) guards: Option<String>,
    pub(crate) checks: Vec<String>,
    /// `--envelope`: every shell command runs inside the kernel envelope.
    pub(crate) envelope: bool,
}

impl OwnerHooks {
    /// The builtins `--guards` names (none without it).
    pub(crate) fn parse(&self) -> Result<Vec<&'static Builtin>, super::CliError> {
        parse(self.guards.as_deref().unwrap_or("none"))
            .map_err(|why| super::CliError::Usage(anyhow::anyhow!(why)))
    }

    /// Writes `guards` and the checks into the hook file in `config_dir`, saying what
    /// changed.
    pub(crate) fn write(
        &self,
        guards: &[&Builtin],
        config_dir: &str,
    ) -> Result<(), super::CliError> {
        let dir = Path::new(config_dir);
        announce(
            switch_on(dir, guards).map_err(super::CliError::Internal)?,
            config_dir,
        );
        let exe = super::command_line::own_exe()?;
        if set_checks(dir, &exe, &self.checks).map_err(super::CliError::Internal)? {
            println!(
                "checks before a commit or push ({}) in {config_dir}/hooks.json",
                self.checks.join("; ")
            );
        }
        if self.envelope && set_envelope(dir).map_err(super::CliError::Internal)? {
            println!(
                "the envelope: every shell command the agent runs stays inside the kernel's envelope (`\"envelope\": true` in {config_dir}/hooks.json; `hookhost envelope show` prints it)"
            );
        }
        Ok(())
    }
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

/// Switches the envelope on in the owner's hook file in `config_dir` (`"envelope": true`;
/// an `envelope` the owner already set is left as it is); whether the file changed.
pub(crate) fn set_envelope(config_dir: &Path) -> anyhow::Result<bool> {
    let file = config_dir.join("hooks.json");
    let _lock = lock_settings(&file)?;
    let mut settings = read_settings(&file)?.unwrap_or_default();
    if settings.contains_key("envelope") {
        return Ok(false);
    }
    settings.insert("envelope".into(), Value::Bool(true));
    write_settings(&file, current_bytes(&file).as_deref(), &settings)?;
    Ok(true)
}

/// The builtins table's row for the checks before a commit: its event, matcher,
/// subcommand and timeout.
fn checks_row() -> (&'static Builtin, &'static str, u64) {
    let row = Builtin::named(CHECKS).expect("the builtins table has the checks' row");
    match row.runs {
        BuiltinRuns::Command {
            subcommand,
            timeout,
        } => (row, subcommand, timeout),
        _ => unreachable!("the checks' row is a command"),
    }
}

/// The checks' row in the builtins table.
const CHECKS: &str = "checks-before-commit";

/// Writes the `checks-before-commit` entry running `checks` into the owner's hook file
/// in `config_dir` (replacing the one an earlier install wrote; the user's entries are not
/// touched); whether the file changed.
pub(crate) fn set_checks(config_dir: &Path, exe: &str, checks: &[String]) -> anyhow::Result<bool> {
    if checks.is_empty() {
        return Ok(false);
    }
    let (row, subcommand, timeout) = checks_row();
    let mut argv = vec![exe.to_string(), subcommand.to_string()];
    for check in checks {
        argv.extend(["--run".to_string(), check.clone()]);
    }
    let entry = json!({"matcher": row.matcher, "hooks": [{"type": "command",
        "command": super::command_line::line(&argv), "timeout": timeout,
        "failClosed": true}]});
    let file = config_dir.join("hooks.json");
    let _lock = lock_settings(&file)?;
    let original = read_settings(&file)?;
    let mut settings = original.clone().unwrap_or_default();
    let groups = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .context("`hooks` is not an object; not changed")?
        .entry(row.event)
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .with_context(|| format!("`hooks.{}` is not a list; not changed", row.event))?;
    match groups.iter().position(is_checks_entry) {
        Some(at) => groups[at] = entry,
        None => groups.push(entry),
    }
    if Some(&settings) == original.as_ref() {
        return Ok(false);
    }
    write_settings(&file, current_bytes(&file).as_deref(), &settings)?;
    Ok(true)
}

/// Whether a matcher group is the `checks-before-commit` entry install writes.
fn is_checks_entry(group: &Value) -> bool {
    group["hooks"].as_array().is_some_and(|handlers| {
        handlers.len() == 1
            && handlers[0]["command"]
                .as_str()
                .and_then(super::command_line::words)
                .is_some_and(|words| {
                    words.len() >= 2
                        && Path::new(&words[0]).is_absolute()
                        && words[1] == checks_row().1
                })
    })
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
        // The table's command row is no `--guards` name: its checks come with --checks.
        let why = parse("checks-before-commit").unwrap_err();
        assert!(why.contains("--checks"), "{why}");
        let why = parse("nope").unwrap_err();
        assert!(
            why.contains("bash-guard") && !why.contains("checks-before"),
            "{why}"
        );
    }

    #[test]
    fn the_checks_entry_is_written_once_and_replaced_by_the_next_install() {
        let dir = tempfile::tempdir().unwrap();
        let checks = vec!["cargo test".to_string()];
        assert!(set_checks(dir.path(), "/opt/hookhost", &checks).unwrap());
        assert!(!set_checks(dir.path(), "/opt/hookhost", &checks).unwrap());
        let other = vec!["make check".to_string()];
        assert!(set_checks(dir.path(), "/opt/hookhost", &other).unwrap());
        let file: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("hooks.json")).unwrap())
                .unwrap();
        let groups = file["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(groups.len(), 1);
        let command = groups[0]["hooks"][0]["command"].as_str().unwrap();
        assert_eq!(
            command,
            "/opt/hookhost checks-before-commit --run 'make check'"
        );
    }

    #[test]
    fn a_selection_names_builtins_or_is_refused() {
        assert!(parse("none").unwrap().is_empty());
        assert_eq!(parse("bash-guard").unwrap()[0].name, "bash-guard");
        let err = parse("bash-guard,rm-guard").unwrap_err();
        assert!(err.contains("rm-guard") && err.contains("secrets"), "{err}");
    }
}

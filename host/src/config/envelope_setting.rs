//! The owners' `envelope` setting: `true` switches the envelope on with its defaults, an
//! object may also set `mode`, `network`, `writable`, `readOnly`, `scopeSignals`,
//! `scopeAbstractSockets`, `unenclosedSkills`, `sockets`, `sshAgent`, `withholdEnv` and `judge`. Only managed, `--settings` and user layers count (the most
//! authoritative one wins whole); a repository's is ignored, as is every other owner key.

use std::path::PathBuf;

use serde_json::Value;

use super::owners::owner_values;
use super::source::Source;
use serde::{Deserialize, Serialize};

use super::{Diagnostic, EnvelopeSettings, Severity};

/// How strictly the envelope is applied (the owner's `envelope.mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Landlock and a private mount namespace: writes only to the writable roots,
    /// read-only places inside them, secret files withheld. A kernel that cannot do all
    /// of it refuses the command.
    #[default]
    Enforce,
    /// Landlock alone, where mount namespaces are forbidden: writes only to the writable
    /// roots, but places inside them stay writable and secret files inside readable
    /// roots stay readable. Weaker, and `status` and the session start say so.
    LandlockOnly,
}

/// What the network may reach (the owner's `envelope.network`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub enum Network {
    /// Unrestricted.
    #[default]
    Any,
    /// No TCP connect or bind at all (UDP and unix sockets are out of Landlock's reach).
    None,
    /// TCP connects to these ports, binds to those; nothing else over TCP.
    Ports {
        /// Ports a command may connect to.
        connect: Vec<u16>,
        /// Ports a command may listen on.
        bind: Vec<u16>,
    },
}

/// The owners' `envelope`; every bad field is named in a diagnostic and the safer value
/// kept (a bad `mode` stays `enforce`, a bad `network` becomes `none`).
pub(super) fn envelope(sources: &[Source], diags: &mut Vec<Diagnostic>) -> EnvelopeSettings {
    let mut settings = EnvelopeSettings {
        scope_abstract_sockets: true,
        ..Default::default()
    };
    let Some((source, value)) = owner_values(sources, "envelope", false).into_iter().next() else {
        return settings;
    };
    let mut warn = |field: &str, message: String| {
        diags.push(Diagnostic::new(
            Severity::Error,
            source.label.clone(),
            format!("envelope{field}"),
            message,
        ))
    };
    let object = match value {
        Value::Bool(on) => {
            settings.enabled = *on;
            return settings;
        }
        Value::Object(object) => object,
        _ => {
            warn(
                "",
                "neither a boolean nor an object; the envelope is on with its defaults".into(),
            );
            settings.enabled = true;
            return settings;
        }
    };
    settings.enabled = true;
    if let Some(enabled) = object.get("enabled") {
        match enabled.as_bool() {
            Some(on) => settings.enabled = on,
            None => warn(".enabled", "not a boolean; the envelope stays on".into()),
        }
    }
    match object.get("mode").map(|mode| (mode, mode.as_str())) {
        None => {}
        Some((_, Some("enforce"))) => settings.mode = Mode::Enforce,
        Some((_, Some("landlock-only"))) => settings.mode = Mode::LandlockOnly,
        Some((mode, _)) => warn(
            ".mode",
            format!("{mode} is neither \"enforce\" nor \"landlock-only\"; enforce kept"),
        ),
    }
    if let Some(network) = object.get("network") {
        settings.network = match network_of(network) {
            Ok(network) => network,
            Err(why) => {
                warn(".network", format!("{why}; no TCP at all instead"));
                Network::None
            }
        };
    }
    for (key, list, relative_ok) in [
        ("writable", &mut settings.writable, false),
        ("readOnly", &mut settings.read_only, true),
    ] {
        let Some(entries) = object.get(key) else {
            continue;
        };
        let Some(entries) = entries.as_array() else {
            warn(&format!(".{key}"), "not an array of paths; ignored".into());
            continue;
        };
        for (index, entry) in entries.iter().enumerate() {
            match entry.as_str().map(PathBuf::from) {
                Some(path)
                    if path.is_absolute() || (relative_ok && !path.as_os_str().is_empty()) =>
                {
                    list.push(path)
                }
                _ => warn(
                    &format!(".{key}[{index}]"),
                    format!(
                        "not {} path; skipped",
                        if relative_ok { "a" } else { "an absolute" }
                    ),
                ),
            }
        }
    }
    settings.unenclosed_skills = names_of(
        object,
        "unenclosedSkills",
        |name| !name.is_empty(),
        "not a skill or command name; skipped",
        "not an array of skill and command names; none exempted",
        &mut warn,
    );
    if let Some(entries) = object.get("sockets") {
        match entries.as_array() {
            Some(entries) => {
                for (index, entry) in entries.iter().enumerate() {
                    match entry.as_str().map(PathBuf::from) {
                        Some(path) if path.is_absolute() => settings.sockets.push(path),
                        _ => warn(
                            &format!(".sockets[{index}]"),
                            "not an absolute socket path; skipped (it stays covered)".into(),
                        ),
                    }
                }
            }
            None => warn(
                ".sockets",
                "not an array of socket paths; none let through".into(),
            ),
        }
    }
    settings.withhold_env = names_of(
        object,
        "withholdEnv",
        is_variable_name,
        "not an environment variable name; skipped",
        "not an array of variable names; none withheld",
        &mut warn,
    );
    settings.judge = names_of(
        object,
        "judge",
        is_judged_name,
        "not a program name (a file name on PATH; neither a shell, `env` nor hookhost's own); skipped",
        "not an array of program names; only git and the programs the owner's conditions name are judged",
        &mut warn,
    );
    for (key, flag) in [
        ("scopeSignals", &mut settings.scope_signals),
        ("scopeAbstractSockets", &mut settings.scope_abstract_sockets),
        ("sshAgent", &mut settings.ssh_agent),
    ] {
        if let Some(value) = object.get(key) {
            match value.as_bool() {
                Some(on) => *flag = on,
                None => warn(&format!(".{key}"), "not a boolean; ignored".into()),
            }
        }
    }
    settings
}

/// The names the list at `key` holds that `valid` accepts; each other entry, and a `key`
/// that is no list, named in a diagnostic (`entry_why`, `list_why`).
fn names_of(
    object: &serde_json::Map<String, Value>,
    key: &str,
    valid: fn(&str) -> bool,
    entry_why: &str,
    list_why: &str,
    warn: &mut impl FnMut(&str, String),
) -> Vec<String> {
    let Some(names) = object.get(key) else {
        return Vec::new();
    };
    let Some(names) = names.as_array() else {
        warn(&format!(".{key}"), list_why.to_string());
        return Vec::new();
    };
    let mut kept = Vec::new();
    for (index, name) in names.iter().enumerate() {
        match name.as_str().filter(|name| valid(name)) {
            Some(name) => kept.push(name.to_string()),
            None => warn(&format!(".{key}[{index}]"), entry_why.to_string()),
        }
    }
    kept
}

/// Programs the envelope never judges where they run: the shells it runs commands in
/// (covering one would cover the command itself) and `env`.
const NEVER_JUDGED: &[&str] = &["bash", "sh", "dash", "zsh", "ksh", "fish", "env"];

/// Whether `name` can name a program the envelope judges where it runs
/// (`Envelope::judge`): a plain file name (letters, digits, `.`, `_`, `+`, `-`, not
/// starting with `.` or `-`), neither hookhost's own nor a shell.
pub(crate) fn is_judged_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with(['.', '-'])
        && !name.starts_with("hookhost")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'))
        && !NEVER_JUDGED.contains(&name)
}

/// Whether `name` can name an environment variable (`NAME`, `A_B1`).
fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `"any"`, `"none"` or `{"connect": [ports], "bind": [ports]}`.
fn network_of(value: &Value) -> Result<Network, String> {
    match value {
        Value::String(text) if text == "any" => Ok(Network::Any),
        Value::String(text) if text == "none" => Ok(Network::None),
        Value::Object(object) => {
            let ports = |key: &str| -> Result<Vec<u16>, String> {
                let Some(list) = object.get(key) else {
                    return Ok(Vec::new());
                };
                list.as_array()
                    .ok_or_else(|| format!("`{key}` is not an array of ports"))?
                    .iter()
                    .map(|port| {
                        port.as_u64()
                            .and_then(|port| u16::try_from(port).ok())
                            .filter(|port| *port > 0)
                            .ok_or_else(|| format!("`{key}` holds {port}, not a TCP port"))
                    })
                    .collect()
            };
            if let Some(other) = object
                .keys()
                .find(|key| !matches!(key.as_str(), "connect" | "bind"))
            {
                return Err(format!("unknown key `{other}` (connect, bind)"));
            }
            Ok(Network::Ports {
                connect: ports("connect")?,
                bind: ports("bind")?,
            })
        }
        other => Err(format!(
            "{other} is neither \"any\", \"none\" nor {{\"connect\": [ports], \"bind\": [ports]}}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::config::source::test_source as source;

    fn of(value: Value) -> (EnvelopeSettings, Vec<Diagnostic>) {
        let sources = vec![source(
            super::super::Layer::User,
            json!({ "envelope": value }),
        )];
        let mut diags = Vec::new();
        (envelope(&sources, &mut diags), diags)
    }

    #[test]
    fn true_turns_it_on_with_defaults() {
        let (settings, diags) = of(json!(true));
        assert!(settings.enabled && diags.is_empty());
        assert_eq!(settings.mode, Mode::Enforce);
        assert_eq!(settings.network, Network::Any);
        assert!(settings.scope_abstract_sockets && !settings.scope_signals);
    }

    #[test]
    fn an_object_sets_each_field() {
        let (settings, diags) = of(json!({
            "mode": "landlock-only",
            "network": {"connect": [443, 80], "bind": [8080]},
            "writable": ["/opt/cache"],
            "readOnly": ["deploy", "/srv/x"],
            "scopeSignals": true,
            "unenclosedSkills": ["release-notes"],
            "sockets": ["/run/user/1000/podman/podman.sock"],
            "sshAgent": true,
            "withholdEnv": ["ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY"],
        }));
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            settings.sockets,
            [PathBuf::from("/run/user/1000/podman/podman.sock")]
        );
        assert!(settings.ssh_agent);
        assert_eq!(
            settings.withhold_env,
            ["ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY"]
        );
        assert_eq!(settings.unenclosed_skills, ["release-notes"]);
        assert_eq!(settings.mode, Mode::LandlockOnly);
        assert_eq!(
            settings.network,
            Network::Ports {
                connect: vec![443, 80],
                bind: vec![8080]
            }
        );
        assert_eq!(settings.writable, vec![PathBuf::from("/opt/cache")]);
        assert_eq!(settings.read_only.len(), 2);
        assert!(settings.scope_signals);
    }

    #[test]
    fn bad_fields_are_named_and_the_safer_value_kept() {
        let (settings, diags) = of(json!({
            "mode": "off",
            "network": {"connect": [70000]},
            "writable": ["relative/cache"],
            "unenclosedSkills": ["ok", 7],
            "sockets": ["relative.sock"],
            "withholdEnv": ["A=B"],
        }));
        assert!(settings.enabled);
        assert_eq!(settings.mode, Mode::Enforce);
        assert_eq!(settings.network, Network::None);
        assert!(settings.writable.is_empty());
        assert_eq!(settings.unenclosed_skills, ["ok"]);
        let locations: Vec<&str> = diags.iter().map(|d| d.location.as_str()).collect();
        assert_eq!(
            locations,
            [
                "envelope.mode",
                "envelope.network",
                "envelope.writable[0]",
                "envelope.unenclosedSkills[1]",
                "envelope.sockets[0]",
                "envelope.withholdEnv[0]"
            ]
        );
    }

    #[test]
    fn judged_programs_are_plain_names_neither_shells_nor_hookhosts() {
        let (settings, diags) = of(json!({
            "judge": ["gh", "npm", "terraform", "bash", "env", "../x", "/usr/bin/gh", "hookhost", "", 7]
        }));
        assert_eq!(settings.judge, ["gh", "npm", "terraform"]);
        let fields: Vec<&str> = diags.iter().map(|d| d.location.as_str()).collect();
        assert_eq!(
            fields,
            [
                "envelope.judge[3]",
                "envelope.judge[4]",
                "envelope.judge[5]",
                "envelope.judge[6]",
                "envelope.judge[7]",
                "envelope.judge[8]",
                "envelope.judge[9]"
            ]
        );
        let (settings, diags) = of(json!({"judge": "gh"}));
        assert!(settings.judge.is_empty());
        assert_eq!(diags[0].location, "envelope.judge");
    }

    #[test]
    fn a_repository_cannot_set_it() {
        let sources = vec![source(
            super::super::Layer::Project,
            json!({ "envelope": {"enabled": true, "writable": ["/"], "unenclosedSkills": ["x"]} }),
        )];
        let mut diags = Vec::new();
        let settings = envelope(&sources, &mut diags);
        assert!(!settings.enabled && settings.unenclosed_skills.is_empty());
    }
}

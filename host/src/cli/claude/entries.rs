//! The entries `hookhost claude install` writes into a Claude Code settings file, and
//! how they are recognised again (by `uninstall`, a second `install` and `status`):
//! pure edits of the file's JSON value, no I/O.

use serde_json::{Map, Value, json};

/// The events `install` covers when the owner's hooks cannot say which they watch: the
/// catalog's (the Claude Code release it follows), without `WorktreeCreate` and
/// `WorktreeRemove` (a hook there replaces Claude Code's own worktree handling) and
/// `FileChanged` (its matcher is the watch list). An event a Claude Code release does not
/// know is kept in the file and never fired (2.1.197 and 2.1.332 both, tested).
pub static DEFAULT_EVENTS: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| {
        hookhost::internals::CATALOG
            .iter()
            .map(|spec| spec.name)
            .filter(|name| !matches!(*name, "WorktreeCreate" | "WorktreeRemove" | "FileChanged"))
            .collect()
    });

/// What a fail-closed command entry runs after hookhost: any exit but 0 and 2 — the
/// binary missing (127), crashed (a signal), or failing some other way — becomes exit 2,
/// a block, with the reason on stderr. Claude Code releases without `onFailure`
/// (2.1.197) would otherwise run the tool.
const BLOCK_ON_FAILURE: &str = r#" || { s=$?; [ "$s" = 2 ] || echo "hookhost did not answer (exit $s): the guard is missing or broken (run \`hookhost claude status\`); blocking" >&2; exit 2; }"#;

/// Whether hookhost's entry for `event` fails closed: a refusal there keeps an action from
/// happening, so an entry whose hookhost cannot answer blocks it.
pub fn fails_closed(event: &str) -> bool {
    hookhost::internals::EventSpec::lookup(event).is_some_and(|spec| spec.guards_action)
}

/// Events Claude Code does not run `http` hooks for: they get the command entry even
/// with `--serve`.
pub const COMMAND_ONLY_EVENTS: &[&str] = &["SessionStart", "Setup"];

/// The environment variable the `http` entries send as the bearer token.
pub const TOKEN_VAR: &str = "HOOKHOST_TOKEN";

/// What runs behind hookhost's entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wiring {
    /// What the command entries run: the binary's absolute path, `claude hook` and the
    /// owner's folders ([`hook_argv`]).
    pub argv: Vec<String>,
    /// `serve`'s base URL, when the entries call it over HTTP.
    pub serve: Option<String>,
}

impl Wiring {
    /// [`Wiring::argv`] as one `sh` command line.
    pub fn command(&self) -> String {
        line(&self.argv)
    }

    /// The handler hookhost's entry for `event` holds: on an event that guards an
    /// action, one that blocks when hookhost cannot answer (`onFailure: "block"`, and on
    /// Unix a shell command that turns a missing or crashed binary into a block where
    /// Claude Code has no `onFailure`); elsewhere the exec form (`args`: no shell, so no
    /// quoting of the installed path — and Windows' PowerShell reads no `sh` line).
    pub fn handler(&self, event: &str) -> Value {
        let closed = fails_closed(event);
        let mut handler = match &self.serve {
            Some(url) if !COMMAND_ONLY_EVENTS.contains(&event) => json!({
                "type": "http",
                "url": format!("{}/hooks", url.trim_end_matches('/')),
                "headers": {"Authorization": format!("Bearer ${TOKEN_VAR}")},
                "allowedEnvVars": [TOKEN_VAR],
            }),
            _ if closed && cfg!(unix) => json!({
                "type": "command",
                "command": format!("{}{BLOCK_ON_FAILURE}", self.command()),
            }),
            _ => json!({"type": "command", "command": self.argv[0], "args": self.argv[1..]}),
        };
        if closed {
            handler["onFailure"] = json!("block");
        }
        handler
    }
}

/// The folders the installed command names, fixed when it is installed: `claude hook`
/// then reads nothing of its own locations from the environment the agent hands it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    /// The owner's home (Claude Code's plugins are below it).
    pub home: String,
    /// hookhost's configuration folder (user hook file, trust store).
    pub config_dir: String,
    /// hookhost's state folder.
    pub state_dir: String,
    /// hookhost's artifact cache.
    pub cache_dir: String,
}

/// The flags of the installed command, in the order it writes them.
pub const LOCATION_FLAGS: [&str; 4] = hookhost::warm::LOCATION_FLAGS;

impl Locations {
    /// Each location flag with its folder, in order.
    pub fn pairs(&self) -> Vec<(&'static str, &str)> {
        LOCATION_FLAGS.into_iter().zip(self.values()).collect()
    }

    fn values(&self) -> [&str; 4] {
        [
            &self.home,
            &self.config_dir,
            &self.state_dir,
            &self.cache_dir,
        ]
    }
}

/// The argument vector of a command entry for the binary at `exe` with the folders
/// `locations`.
pub fn hook_argv(exe: &str, locations: &Locations) -> Vec<String> {
    argv(exe, &["claude", "hook"], locations)
}

/// The argument vector running the binary at `exe` with `words`, then each location flag
/// and its folder.
pub fn argv(exe: &str, words: &[&str], locations: &Locations) -> Vec<String> {
    let mut argv: Vec<String> = std::iter::once(exe)
        .chain(words.iter().copied())
        .map(str::to_string)
        .collect();
    for (flag, value) in LOCATION_FLAGS.iter().zip(locations.values()) {
        argv.push(flag.to_string());
        argv.push(value.to_string());
    }
    argv
}

pub use crate::cli::command_line::{line, words};

/// The program and folders of a command entry `install` wrote, when `handler` is one:
/// exactly `ABSOLUTE/hookhost claude hook` (or `ABSOLUTE/hookhost-hook claude hook`, the
/// small client), optionally followed by the location flags in
/// install's order (an entry of an earlier version has none). A look-alike of the user's
/// own — a guarded `test -f … && hookhost claude hook`, a relative `./hookhost`, extra
/// flags — is not install's, and install and uninstall leave it alone.
pub fn installed_command(handler: &Value) -> Option<(String, Option<Locations>)> {
    if handler.get("type").and_then(Value::as_str) != Some("command") {
        return None;
    }
    let known = |key: &str| matches!(key, "type" | "command" | "args" | "onFailure");
    if !handler.as_object()?.keys().all(|key| known(key))
        || handler
            .get("onFailure")
            .is_some_and(|value| value != "block")
    {
        return None;
    }
    let command = handler.get("command")?.as_str()?;
    let words = match handler.get("args") {
        // The exec form: the program, then its arguments as given.
        Some(args) => std::iter::once(Some(command.to_string()))
            .chain(
                args.as_array()?
                    .iter()
                    .map(|arg| arg.as_str().map(str::to_string)),
            )
            .collect::<Option<Vec<String>>>()?,
        None => words(command.strip_suffix(BLOCK_ON_FAILURE).unwrap_or(command))?,
    };
    let (program, rest) = words.split_first()?;
    let path = std::path::Path::new(program);
    let name = path.file_name()?.to_str()?;
    let programs = [
        "hookhost",
        "hookhost.exe",
        "hookhost-hook",
        "hookhost-hook.exe",
    ];
    if !programs.contains(&name) || !path.is_absolute() {
        return None;
    }
    let flags = rest.strip_prefix(&["claude".to_string(), "hook".to_string()][..])?;
    let locations = match flags.len() {
        0 => None,
        8 => {
            let mut values = Vec::new();
            for (pair, flag) in flags.chunks(2).zip(LOCATION_FLAGS) {
                if pair[0] != flag || !std::path::Path::new(&pair[1]).is_absolute() {
                    return None;
                }
                values.push(pair[1].clone());
            }
            let [home, config_dir, state_dir, cache_dir] = <[String; 4]>::try_from(values).ok()?;
            Some(Locations {
                home,
                config_dir,
                state_dir,
                cache_dir,
            })
        }
        _ => return None,
    };
    Some((program.clone(), locations))
}

/// The program of a `… claude hook` command entry `install` wrote, when `handler` is one.
pub fn hookhost_program(handler: &Value) -> Option<String> {
    installed_command(handler).map(|(program, _)| program)
}

/// Whether `handler` is one hookhost's `install` writes (any binary path, any serve URL).
pub fn is_ours(handler: &Value) -> bool {
    if hookhost_program(handler).is_some() {
        return true;
    }
    let Some(object) = handler.as_object() else {
        return false;
    };
    object.get("type").and_then(Value::as_str) == Some("http")
        && object
            .get("url")
            .and_then(Value::as_str)
            .is_some_and(|url| url.ends_with("/hooks"))
        && object.get("headers") == Some(&json!({"Authorization": format!("Bearer ${TOKEN_VAR}")}))
        && object.get("allowedEnvVars") == Some(&json!([TOKEN_VAR]))
        && match object.get("onFailure") {
            None => object.len() == 4,
            Some(value) => value == "block" && object.len() == 5,
        }
}

/// Adds hookhost's entry for each of `events` to `settings` (a Claude Code settings
/// object), replacing stale ones (another binary path or serve URL); an entry already as
/// wanted is left where it is. Every other key and entry is kept; a `hooks` value that is
/// not an object, or an event's value that is not a list, is refused (nothing is
/// changed).
pub fn install(
    settings: &mut Map<String, Value>,
    wiring: &Wiring,
    events: &[String],
) -> Result<(), String> {
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err("`hooks` is not an object".into());
    };
    if let Some(event) = events
        .iter()
        .find(|event| hooks.get(*event).is_some_and(|groups| !groups.is_array()))
    {
        return Err(format!("`hooks.{event}` is not a list"));
    }
    for event in events {
        let wanted = wiring.handler(event);
        let groups = hooks
            .entry(event.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else {
            unreachable!("checked above")
        };
        let current = groups.iter().any(|group| {
            group.get("matcher").is_none()
                && group.get("hooks").and_then(Value::as_array) == Some(&vec![wanted.clone()])
        });
        let mut keep_first = current;
        remove_ours(groups, |handler| {
            if keep_first && *handler == wanted {
                keep_first = false;
                return false;
            }
            true
        });
        if !current {
            groups.push(json!({"hooks": [wanted]}));
        }
    }
    Ok(())
}

/// Removes hookhost's entries from every event of `settings` but `keep` (the events left
/// empty go, as in [`uninstall`]).
pub fn unwire_others(settings: &mut Map<String, Value>, keep: &[String]) {
    let Some(Value::Object(hooks)) = settings.get_mut("hooks") else {
        return;
    };
    let mut emptied = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Value::Array(groups) = groups else {
            continue;
        };
        if keep.contains(event) {
            continue;
        }
        let before = groups.len();
        if remove_ours(groups, |_| true) > 0 && groups.is_empty() && before > 0 {
            emptied.push(event.clone());
        }
    }
    for event in emptied {
        hooks.remove(&event);
    }
}

/// Removes every hookhost entry from `settings`; a group, event or `hooks` object left
/// empty by the removal goes too. Returns how many handlers were removed.
pub fn uninstall(settings: &mut Map<String, Value>) -> usize {
    let Some(Value::Object(hooks)) = settings.get_mut("hooks") else {
        return 0;
    };
    let mut removed = 0;
    let mut emptied = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Value::Array(groups) = groups else {
            continue;
        };
        let before = groups.len();
        let count = remove_ours(groups, |_| true);
        removed += count;
        if count > 0 && groups.is_empty() && before > 0 {
            emptied.push(event.clone());
        }
    }
    for event in emptied {
        hooks.remove(&event);
    }
    if removed > 0 && hooks.is_empty() {
        settings.remove("hooks");
    }
    removed
}

/// Removes hookhost's handlers for which `remove` says so from `groups`, and the groups
/// the removal leaves without handlers; returns how many handlers went.
fn remove_ours(groups: &mut Vec<Value>, mut remove: impl FnMut(&Value) -> bool) -> usize {
    let mut removed = 0;
    groups.retain_mut(|group| {
        let Some(Value::Array(handlers)) = group.get_mut("hooks") else {
            return true;
        };
        let before = handlers.len();
        handlers.retain(|handler| !(is_ours(handler) && remove(handler)));
        removed += before - handlers.len();
        !(handlers.is_empty() && before > 0)
    });
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locations() -> Locations {
        Locations {
            home: "/home/u".into(),
            config_dir: "/home/u/.config/hookhost".into(),
            state_dir: "/home/u/.local/state/hookhost".into(),
            cache_dir: "/home/u/my cache".into(),
        }
    }

    fn wiring(serve: Option<&str>) -> Wiring {
        Wiring {
            argv: hook_argv("/opt/hook host/hookhost", &locations()),
            serve: serve.map(str::to_string),
        }
    }

    fn events() -> Vec<String> {
        ["PreToolUse", "SessionStart"].map(String::from).to_vec()
    }

    fn original() -> Map<String, Value> {
        json!({
            "model": "x",
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "mine.sh"}]}],
                "Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}]
            },
            "permissions": {"allow": []}
        })
        .as_object()
        .unwrap()
        .clone()
    }

    #[test]
    fn commands_are_quoted_and_recognised() {
        let command = line(&hook_argv("/opt/it's/hookhost", &locations()));
        assert_eq!(
            command,
            r"'/opt/it'\''s/hookhost' claude hook --home /home/u --config-dir /home/u/.config/hookhost --state-dir /home/u/.local/state/hookhost --cache-dir '/home/u/my cache'"
        );
        let handler = json!({"type": "command", "command": command});
        assert_eq!(
            installed_command(&handler),
            Some(("/opt/it's/hookhost".to_string(), Some(locations())))
        );
        // An entry of an earlier install, without folders, is still install's own.
        let old = json!({"type": "command", "command": "/usr/bin/hookhost claude hook"});
        assert_eq!(hookhost_program(&old).as_deref(), Some("/usr/bin/hookhost"));
    }

    #[test]
    fn guarding_entries_block_on_failure_and_the_others_run_without_a_shell() {
        let wiring = wiring(None);
        let guard = wiring.handler("PreToolUse");
        assert_eq!(guard["onFailure"], "block");
        if cfg!(unix) {
            let command = guard["command"].as_str().unwrap();
            assert!(command.ends_with(BLOCK_ON_FAILURE), "{command}");
            assert!(guard.get("args").is_none());
        }
        let other = wiring.handler("Stop");
        assert!(
            other.get("onFailure").is_none(),
            "a Stop that blocked on failure never ends"
        );
        assert_eq!(other["command"], "/opt/hook host/hookhost");
        assert_eq!(other["args"][0], "claude");
        for handler in [guard, other] {
            assert_eq!(
                installed_command(&handler),
                Some(("/opt/hook host/hookhost".to_string(), Some(locations()))),
                "{handler}"
            );
        }
        let served = super::Wiring {
            serve: Some("http://127.0.0.1:8787".into()),
            ..wiring
        };
        assert!(is_ours(&served.handler("PreToolUse")));
        assert_eq!(served.handler("PreToolUse")["onFailure"], "block");
        assert!(is_ours(&served.handler("Stop")));
        // A look-alike: another onFailure, an extra key, a non-string argument.
        for handler in [
            json!({"type": "command", "command": "/usr/bin/hookhost claude hook", "onFailure": "continue"}),
            json!({"type": "command", "command": "/usr/bin/hookhost", "args": ["claude", "hook"], "timeout": 5}),
            json!({"type": "command", "command": "/usr/bin/hookhost", "args": ["claude", 1]}),
        ] {
            assert!(!is_ours(&handler), "{handler}");
        }
    }

    #[test]
    fn a_users_look_alike_entry_is_not_installs() {
        for command in [
            "test -f ~/.guard-on && /usr/local/bin/hookhost claude hook",
            "cd ~/tools && ./hookhost claude hook",
            "./hookhost claude hook",
            "hookhost claude hook",
            "/usr/bin/other claude hook",
            "hookhost fire --format claude",
            "/usr/bin/hookhost claude hook --config-dir /x",
            "/usr/bin/hookhost claude hook; rm -rf /tmp/x",
            "/usr/bin/hookhost claude hook  ",
            "/usr/bin/hookhost  claude hook",
            "\"/usr/bin/hookhost\" claude hook",
            "/usr/bin/hookhost claude hook --home /h --config-dir c --state-dir /s --cache-dir /k",
            "/usr/bin/hookhost claude hook --home /h --state-dir /s --config-dir /c --cache-dir /k",
        ] {
            let handler = json!({"type": "command", "command": command});
            assert!(!is_ours(&handler), "{command}");
        }
    }

    #[test]
    fn install_twice_is_install_once_and_uninstall_restores() {
        let mut settings = original();
        install(&mut settings, &wiring(None), &events()).unwrap();
        let once = settings.clone();
        install(&mut settings, &wiring(None), &events()).unwrap();
        assert_eq!(settings, once);
        let pre = &settings["hooks"]["PreToolUse"];
        assert_eq!(pre.as_array().unwrap().len(), 2, "{pre}");
        assert_eq!(pre[0]["matcher"], "Bash", "the user's group stays first");
        assert_eq!(uninstall(&mut settings), 2);
        assert_eq!(settings, original());
        // Key order too.
        assert_eq!(
            serde_json::to_string(&settings).unwrap(),
            serde_json::to_string(&original()).unwrap()
        );
    }

    #[test]
    fn a_stale_entry_is_replaced_and_the_serve_wiring_swaps_in() {
        let mut settings = original();
        let old = Wiring {
            argv: hook_argv("/old/place/hookhost", &locations()),
            serve: None,
        };
        install(&mut settings, &old, &events()).unwrap();
        install(
            &mut settings,
            &wiring(Some("http://127.0.0.1:8787/")),
            &events(),
        )
        .unwrap();
        let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2, "{pre:?}");
        assert_eq!(pre[1]["hooks"][0]["url"], "http://127.0.0.1:8787/hooks");
        assert_eq!(
            pre[1]["hooks"][0]["headers"]["Authorization"],
            "Bearer $HOOKHOST_TOKEN"
        );
        let start = &settings["hooks"]["SessionStart"][0]["hooks"][0];
        assert_eq!(
            start["type"], "command",
            "Claude Code runs no http SessionStart hooks"
        );
        assert_eq!(uninstall(&mut settings), 2);
        assert_eq!(settings, original());
    }

    #[test]
    fn a_malformed_hooks_value_is_refused_not_replaced() {
        for bad in [
            json!({"hooks": []}),
            json!({"hooks": {"PreToolUse": {"x": 1}}}),
        ] {
            let mut settings = bad.as_object().unwrap().clone();
            assert!(install(&mut settings, &wiring(None), &events()).is_err());
            assert_eq!(Value::Object(settings), bad, "nothing changed");
        }
    }

    #[test]
    fn a_group_the_user_shares_with_an_entry_keeps_the_users_handlers() {
        let mut settings = json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "/usr/bin/hookhost claude hook"},
            {"type": "command", "command": "mine.sh"}
        ]}]}})
        .as_object()
        .unwrap()
        .clone();
        assert_eq!(uninstall(&mut settings), 1);
        assert_eq!(
            settings["hooks"]["Stop"][0]["hooks"],
            json!([{"type": "command", "command": "mine.sh"}])
        );
    }
}

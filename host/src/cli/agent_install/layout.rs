//! How hookhost's entries sit in each agent's JSON hook file, and the edits that put them
//! there, find them and take them out again — the user's own entries never move.

use hookhost::{Agent, AgentHookShape};
use serde_json::{Map, Value, json};

use super::AGENT_TIMEOUT_SECS;
use crate::cli::claude::entries;

/// hookhost's entries in one agent's JSON hook file: the shape the agent's contract gives
/// ([`hookhost::AgentHookShape`]) with the events it wires, in file order.
#[derive(Debug)]
pub(super) enum Layout {
    /// A file of hookhost's own, `{"version": 1, "hooks": {EVENT: [{type, bash,
    /// timeoutSec}]}}`, each entry passing its event (Copilot CLI: its camelCase input
    /// names none).
    OwnFile { events: Vec<&'static str> },
    /// A matcher group `{matcher?, hooks: [{type, command, timeout}]}` per event under
    /// `hooks.EVENT`, after the user's own (Claude Code's schema: Codex, Gemini, Factory).
    /// `tool_matcher` is the matcher of tool events (none: the key is left out); `timeout`
    /// is in the agent's unit.
    Groups {
        events: Vec<(&'static str, bool)>,
        tool_matcher: Option<&'static str>,
        timeout: u64,
    },
    /// A flat entry `{command, timeout}` per event under `hooks.EVENT`, beside `version`
    /// (Cursor, which drops the whole file for one event name it does not know).
    Flat { events: Vec<&'static str> },
}

/// One of hookhost's entries found in a file: its event, its group's index in that
/// event's list, the group's matcher, command and timeout.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Found {
    pub(super) event: String,
    pub(super) index: usize,
    pub(super) matcher: Option<String>,
    pub(super) command: String,
    pub(super) timeout: Option<u64>,
}

impl Layout {
    /// The layout of `agent`'s JSON hook file (none: not a JSON hook file).
    pub(super) fn of(agent: Agent) -> Option<Layout> {
        let events = agent.wired_events();
        let names = || events.iter().map(|(event, _)| *event).collect();
        Some(match agent.install().shape {
            AgentHookShape::OwnFile => Layout::OwnFile { events: names() },
            AgentHookShape::Groups {
                tool_matcher,
                millis,
            } => Layout::Groups {
                tool_matcher,
                timeout: AGENT_TIMEOUT_SECS * if millis { 1000 } else { 1 },
                events,
            },
            AgentHookShape::Flat => Layout::Flat { events: names() },
            _ => return None,
        })
    }

    /// The agent's events install can wire (in the agent's names).
    pub(super) fn events(&self) -> Vec<&'static str> {
        match self {
            Layout::OwnFile { events } | Layout::Flat { events } => events.clone(),
            Layout::Groups { events, .. } => events.iter().map(|(event, _)| *event).collect(),
        }
    }

    /// Whether each entry passes its event on the command line.
    pub(super) fn passes_event(&self) -> bool {
        matches!(self, Layout::OwnFile { .. })
    }

    /// `settings` with hookhost's entries for the events `wanted` says (the agent's
    /// names), `command(event)` each: the user's keys and entries kept where they are,
    /// hookhost's replaced where the last install put them, and taken out of the events
    /// no longer wanted.
    pub(super) fn insert(
        &self,
        agent: Agent,
        mut settings: Map<String, Value>,
        command: &dyn Fn(&str) -> String,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Result<Map<String, Value>, String> {
        if let Layout::OwnFile { events } = self {
            if !settings.is_empty() && !own_file_is_ours(&settings, agent) {
                return Err("a hook file install did not write".into());
            }
            let mut hooks = Map::new();
            for event in events.iter().filter(|event| wanted(event)) {
                hooks.insert(
                    (*event).to_string(),
                    json!([{"type": "command", "bash": command(event),
                            "timeoutSec": AGENT_TIMEOUT_SECS}]),
                );
            }
            return Ok(json!({"version": 1, "hooks": hooks})
                .as_object()
                .cloned()
                .unwrap_or_default());
        }
        if let Layout::Flat { .. } = self {
            settings.entry("version").or_insert(json!(1));
        }
        let hooks = settings
            .entry("hooks")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
            .ok_or("`hooks` is not an object")?;
        for (event, entry) in self.entries(command) {
            if !wanted(event) {
                // Nothing watches it: its entry, if an earlier install wrote one, goes.
                if let Some(Value::Array(list)) = hooks.get_mut(event) {
                    let before = list.len();
                    list.retain(|item| !self.is_ours(item, agent));
                    if list.is_empty() && before > 0 {
                        hooks.remove(event);
                    }
                }
                continue;
            }
            let list = hooks
                .entry(event)
                .or_insert_with(|| Value::Array(Vec::new()))
                .as_array_mut()
                .ok_or_else(|| format!("`hooks.{event}` is not a list"))?;
            match list.iter().position(|item| self.is_ours(item, agent)) {
                Some(at) => list[at] = entry,
                // Last: the user's entries keep their places (and Codex's trust keys).
                None => list.push(entry),
            }
        }
        Ok(settings)
    }

    /// hookhost's entry for each event.
    fn entries(&self, command: &dyn Fn(&str) -> String) -> Vec<(&'static str, Value)> {
        match self {
            Layout::OwnFile { .. } => Vec::new(),
            Layout::Groups {
                events,
                tool_matcher,
                timeout,
            } => events
                .iter()
                .map(|(event, tool_event)| {
                    let mut group = Map::new();
                    if let (true, Some(matcher)) = (tool_event, tool_matcher) {
                        group.insert("matcher".into(), json!(matcher));
                    }
                    group.insert(
                        "hooks".into(),
                        json!([{"type": "command", "command": command(event), "timeout": timeout}]),
                    );
                    (*event, Value::Object(group))
                })
                .collect(),
            Layout::Flat { events } => events
                .iter()
                .map(|event| {
                    (
                        *event,
                        json!({"command": command(event), "timeout": AGENT_TIMEOUT_SECS}),
                    )
                })
                .collect(),
        }
    }

    /// Whether `item` of an event's list is an entry install wrote.
    fn is_ours(&self, item: &Value, agent: Agent) -> bool {
        match self {
            Layout::Groups { .. } => {
                item.get("hooks")
                    .and_then(Value::as_array)
                    .is_some_and(|handlers| {
                        !handlers.is_empty()
                            && handlers.iter().all(|handler| {
                                handler
                                    .get("command")
                                    .and_then(Value::as_str)
                                    .is_some_and(|command| is_ours(command, agent))
                            })
                    })
            }
            Layout::Flat { .. } => item
                .get("command")
                .and_then(Value::as_str)
                .is_some_and(|command| is_ours(command, agent)),
            Layout::OwnFile { .. } => item
                .get("bash")
                .and_then(Value::as_str)
                .is_some_and(|command| is_ours(command, agent)),
        }
    }

    /// hookhost's entries in `settings`, in file order.
    pub(super) fn find(&self, settings: &Map<String, Value>, agent: Agent) -> Vec<Found> {
        let Some(Value::Object(hooks)) = settings.get("hooks") else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for (event, list) in hooks {
            let Some(list) = list.as_array() else {
                continue;
            };
            for (index, item) in list.iter().enumerate() {
                if !self.is_ours(item, agent) {
                    continue;
                }
                let handler = match self {
                    Layout::Groups { .. } => &item["hooks"][0],
                    _ => item,
                };
                let command = handler
                    .get("command")
                    .or_else(|| handler.get("bash"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                found.push(Found {
                    event: event.clone(),
                    index,
                    matcher: item
                        .get("matcher")
                        .and_then(Value::as_str)
                        .map(String::from),
                    command: command.to_string(),
                    timeout: handler
                        .get("timeout")
                        .or_else(|| handler.get("timeoutSec"))
                        .and_then(Value::as_u64),
                });
            }
        }
        found
    }

    /// Takes hookhost's entries out of `settings` (and the lists, `hooks` and `version`
    /// they leave empty); how many it took. A file of hookhost's own is emptied whole.
    pub(super) fn remove(&self, settings: &mut Map<String, Value>, agent: Agent) -> usize {
        if let Layout::OwnFile { .. } = self {
            if !settings.is_empty() && own_file_is_ours(settings, agent) {
                settings.clear();
                return 1;
            }
            return 0;
        }
        let Some(Value::Object(hooks)) = settings.get_mut("hooks") else {
            return 0;
        };
        let mut removed = 0;
        hooks.retain(|_, list| {
            let Some(items) = list.as_array_mut() else {
                return true;
            };
            let before = items.len();
            items.retain(|item| !self.is_ours(item, agent));
            removed += before - items.len();
            !(items.is_empty() && before > 0)
        });
        if removed > 0 && hooks.is_empty() {
            settings.remove("hooks");
            if matches!(self, Layout::Flat { .. }) && settings.len() == 1 {
                settings.remove("version");
            }
        }
        removed
    }
}

/// Whether every entry of a hook file of hookhost's own is install's.
fn own_file_is_ours(file: &Map<String, Value>, agent: Agent) -> bool {
    let Some(Value::Object(hooks)) = file.get("hooks") else {
        return false;
    };
    hooks.values().all(|entries| {
        entries.as_array().is_some_and(|entries| {
            entries.iter().all(|entry| {
                entry
                    .get("bash")
                    .and_then(Value::as_str)
                    .is_some_and(|command| is_ours(command, agent))
            })
        })
    })
}

/// Whether `command` is one install wrote for `agent`: this layout of words, whatever the
/// binary's path and folders.
pub(super) fn is_ours(command: &str, agent: Agent) -> bool {
    entries::words(command).is_some_and(|words| {
        words.len() >= 4
            && std::path::Path::new(&words[0]).is_absolute()
            && words[1..4] == ["hook", "--agent", agent.name()]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(event: &str) -> String {
        format!("/opt/hookhost hook --agent codex --event {event} --home /h")
    }

    #[test]
    fn groups_go_after_the_users_and_come_out_again() {
        let layout = Layout::of(Agent::Codex).unwrap();
        let user = json!({"model": "x", "hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "mine"}]}]}});
        let settings = user.as_object().cloned().unwrap();
        let ours = |e: &str| format!("/opt/hookhost hook --agent codex --home /h{}", e.len());
        let installed = layout
            .insert(Agent::Codex, settings.clone(), &ours, &|_| true)
            .unwrap();
        assert_eq!(
            installed["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            "mine"
        );
        assert!(installed["hooks"]["PreToolUse"][1].get("matcher").is_none());
        let again = layout
            .insert(Agent::Codex, installed.clone(), &ours, &|_| true)
            .unwrap();
        assert_eq!(again, installed, "a second install changes nothing");
        let found = layout.find(&installed, Agent::Codex);
        assert_eq!(found.len(), 5);
        assert_eq!(
            found
                .iter()
                .find(|f| f.event == "PreToolUse")
                .unwrap()
                .index,
            1
        );
        let mut removed = installed;
        assert_eq!(layout.remove(&mut removed, Agent::Codex), 5);
        assert_eq!(removed, settings);
    }

    #[test]
    fn a_users_entry_naming_another_agent_or_a_relative_binary_is_not_ours() {
        assert!(is_ours(&command("x"), Agent::Codex));
        assert!(!is_ours(&command("x"), Agent::Gemini));
        assert!(!is_ours("hookhost hook --agent codex", Agent::Codex));
        assert!(!is_ours("/opt/hookhost hook --agent", Agent::Codex));
    }

    #[test]
    fn cursor_gets_a_version_and_loses_it_only_if_install_added_everything() {
        let layout = Layout::of(Agent::Cursor).unwrap();
        let ours = |_: &str| "/opt/hookhost hook --agent cursor".to_string();
        let installed = layout
            .insert(Agent::Cursor, Map::new(), &ours, &|_| true)
            .unwrap();
        assert_eq!(installed["version"], 1);
        assert_eq!(installed["hooks"].as_object().unwrap().len(), 6);
        let mut removed = installed;
        layout.remove(&mut removed, Agent::Cursor);
        assert!(removed.is_empty());
    }

    #[test]
    fn a_copilot_file_install_did_not_write_is_refused() {
        let layout = Layout::of(Agent::Copilot).unwrap();
        let theirs =
            json!({"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "x"}]}});
        let ours = |_: &str| "/opt/hookhost hook --agent copilot".to_string();
        assert!(
            layout
                .insert(
                    Agent::Copilot,
                    theirs.as_object().cloned().unwrap(),
                    &ours,
                    &|_| true
                )
                .is_err()
        );
    }
}

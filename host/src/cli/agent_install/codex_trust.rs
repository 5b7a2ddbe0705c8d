//! Codex's trust in hookhost's entries: Codex runs a `hooks.json` handler only when
//! `~/.codex/config.toml` holds `[hooks.state."<hooks.json>:<event>:<group>:<handler>"]`
//! with `enabled = true` and `trusted_hash = "sha256:<hex>"` of the handler's canonical
//! JSON (observed with Codex CLI 0.171.0: an untrusted handler is skipped silently). The
//! key holds the group's index, so install appends its groups after the user's and
//! uninstall moves the trust of the user's later groups down with them. The file is
//! edited with `toml_edit`: every other line, comment and table stays as it was.

use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use toml_edit::{DocumentMut, Item, Table, value};

use super::layout::Found;

/// Codex's own timeout when a handler names none, seconds.
const CODEX_DEFAULT_TIMEOUT: u64 = 600;

/// Codex's name for an event in trust keys and hashes (`PreToolUse` → `pre_tool_use`).
fn snake(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The trust key of the first handler of group `index` of `event` in `hooks_file`.
fn key(hooks_file: &Path, event: &str, index: usize) -> String {
    format!("{}:{}:{index}:0", hooks_file.display(), snake(event))
}

/// `sha256:<hex>` of the canonical JSON Codex hashes for one command handler: keys sorted,
/// no spaces, `async` false, the timeout defaulted.
pub(super) fn trusted_hash(entry: &Found) -> String {
    // Keys in sorted order (serde_json keeps insertion order here).
    let mut group = serde_json::Map::new();
    group.insert("event_name".into(), json!(snake(&entry.event)));
    group.insert(
        "hooks".into(),
        json!([{"async": false, "command": entry.command, "timeout":
                entry.timeout.unwrap_or(CODEX_DEFAULT_TIMEOUT), "type": "command"}]),
    );
    if let Some(matcher) = &entry.matcher {
        group.insert("matcher".into(), json!(matcher));
    }
    let canonical = Value::Object(group).to_string();
    let digest = Sha256::digest(canonical.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Parses `config.toml`'s text, naming the file and position of a syntax error.
pub(super) fn parse(file: &Path, text: &str) -> anyhow::Result<DocumentMut> {
    text.parse::<DocumentMut>().map_err(|err| {
        anyhow::anyhow!(
            "{}: not valid TOML ({}); not changed",
            file.display(),
            err.to_string().trim()
        )
    })
}

/// The `hooks.state` table, created implicit (no header of its own) where missing.
fn state_mut(doc: &mut DocumentMut) -> anyhow::Result<&mut Table> {
    let hooks = doc
        .entry("hooks")
        .or_insert_with(|| {
            let mut table = Table::new();
            table.set_implicit(true);
            Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(|| anyhow::anyhow!("`hooks` in config.toml is not a table"))?;
    hooks
        .entry("state")
        .or_insert_with(|| {
            let mut table = Table::new();
            table.set_implicit(true);
            Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(|| anyhow::anyhow!("`hooks.state` in config.toml is not a table"))
}

/// Trusts each of `ours` (hookhost's groups in `hooks_file`), replacing a stale entry.
pub(super) fn trust(
    doc: &mut DocumentMut,
    hooks_file: &Path,
    ours: &[Found],
) -> anyhow::Result<()> {
    let state = state_mut(doc)?;
    for entry in ours {
        let hash = trusted_hash(entry);
        let name = key(hooks_file, &entry.event, entry.index);
        let current = state.get(&name).and_then(Item::as_table_like);
        let fresh = current.is_some_and(|table| {
            table.get("enabled").and_then(Item::as_bool) == Some(true)
                && table.get("trusted_hash").and_then(Item::as_str) == Some(hash.as_str())
        });
        if !fresh {
            let mut table = Table::new();
            table.insert("enabled", value(true));
            table.insert("trusted_hash", value(hash));
            state.insert(&name, Item::Table(table));
        }
    }
    Ok(())
}

/// Removes the trust of `removed` (hookhost's groups, by their index before removal) and
/// moves the trust of every later group of the same event down by the number of
/// hookhost's groups before it, so that the user's hooks stay trusted.
pub(super) fn untrust(doc: &mut DocumentMut, hooks_file: &Path, removed: &[Found]) {
    let Some(state) = doc
        .get_mut("hooks")
        .and_then(|hooks| hooks.get_mut("state"))
        .and_then(Item::as_table_mut)
    else {
        return;
    };
    let prefix = format!("{}:", hooks_file.display());
    let keys: Vec<String> = state
        .iter()
        .map(|(name, _)| name.to_string())
        .filter(|name| name.starts_with(&prefix))
        .collect();
    let mut moved = Vec::new();
    for name in keys {
        let rest = &name[prefix.len()..];
        let mut parts = rest.rsplitn(3, ':');
        let (Some(handler), Some(group), Some(event)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Ok(group) = group.parse::<usize>() else {
            continue;
        };
        let of_event: Vec<usize> = removed
            .iter()
            .filter(|entry| snake(&entry.event) == event)
            .map(|entry| entry.index)
            .collect();
        if of_event.contains(&group) {
            state.remove(&name);
            continue;
        }
        let shift = of_event.iter().filter(|index| **index < group).count();
        if shift > 0
            && let Some(item) = state.remove(&name)
        {
            moved.push((format!("{prefix}{event}:{}:{handler}", group - shift), item));
        }
    }
    for (name, item) in moved {
        state.insert(&name, item);
    }
    let empty_state = state.is_empty();
    if empty_state && let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_mut) {
        if hooks
            .get("state")
            .and_then(Item::as_table)
            .is_some_and(Table::is_implicit)
        {
            hooks.remove("state");
        }
        if hooks.is_empty() && hooks.is_implicit() {
            doc.remove("hooks");
        }
    }
}

/// What is wrong with Codex's trust in `ours`: one line per handler it will skip.
pub(super) fn problems(doc: &DocumentMut, hooks_file: &Path, ours: &[Found]) -> Vec<String> {
    let state = doc
        .get("hooks")
        .and_then(|hooks| hooks.get("state"))
        .and_then(Item::as_table_like);
    ours.iter()
        .filter_map(|entry| {
            let name = key(hooks_file, &entry.event, entry.index);
            let table = state.and_then(|state| state.get(&name)).and_then(Item::as_table_like);
            let why = match table {
                None => "has no trust entry",
                Some(table) if table.get("enabled").and_then(Item::as_bool) == Some(false) => {
                    "is disabled"
                }
                Some(table)
                    if table.get("trusted_hash").and_then(Item::as_str)
                        != Some(trusted_hash(entry).as_str()) =>
                {
                    "is trusted for other content (the entry changed since it was trusted)"
                }
                Some(_) => return None,
            };
            Some(format!(
                "Codex skips hookhost's {} entry silently: `[hooks.state.\"{name}\"]` {why}; run `hookhost install --agent codex` again",
                entry.event
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(event: &str, index: usize, matcher: Option<&str>) -> Found {
        Found {
            event: event.into(),
            index,
            matcher: matcher.map(String::from),
            command: "/opt/hookhost hook --agent codex".into(),
            timeout: Some(60),
        }
    }

    #[test]
    fn the_hash_is_the_one_codex_accepts() {
        // Computed as Codex does (sorted keys, compact JSON); the same construction was
        // accepted by Codex CLI 0.171.0 and a one-character change was not.
        assert_eq!(
            trusted_hash(&found("PreToolUse", 0, None)),
            "sha256:21534e40a62c47c9dc01d8f76faca80e883c675a83a358db8aa8d362e1affb0b"
        );
        assert_eq!(
            trusted_hash(&found("PreToolUse", 0, Some("Bash"))),
            "sha256:9caf24516470fe89053d503220feb546efad38180d13538391576c3d3c17f1a9"
        );
        assert_eq!(snake("UserPromptSubmit"), "user_prompt_submit");
    }

    #[test]
    fn trust_then_untrust_gives_the_file_back_and_moves_later_user_groups_down() {
        let file = Path::new("/h/.codex/hooks.json");
        let original = "# mine\nmodel = \"x\"\n\n[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:0:0\"]\nenabled = true\ntrusted_hash = \"sha256:aa\"\n";
        let mut doc = parse(file, original).unwrap();
        // hookhost's group at index 1, after the user's first; the user adds one at 2.
        trust(&mut doc, file, &[found("PreToolUse", 1, None)]).unwrap();
        let with_user_later = format!(
            "{doc}[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:2:0\"]\nenabled = true\ntrusted_hash = \"sha256:bb\"\n"
        );
        let mut doc = parse(file, &with_user_later).unwrap();
        assert!(problems(&doc, file, &[found("PreToolUse", 1, None)]).is_empty());
        untrust(&mut doc, file, &[found("PreToolUse", 1, None)]);
        let text = doc.to_string();
        assert!(text.contains("pre_tool_use:0:0\"]\nenabled = true\ntrusted_hash = \"sha256:aa\""));
        assert!(
            text.contains("pre_tool_use:1:0\"]\nenabled = true\ntrusted_hash = \"sha256:bb\""),
            "{text}"
        );
        assert!(!text.contains(":2:0"));

        let mut doc = parse(file, "model = \"x\"\n").unwrap();
        trust(&mut doc, file, &[found("Stop", 0, None)]).unwrap();
        untrust(&mut doc, file, &[found("Stop", 0, None)]);
        assert_eq!(doc.to_string(), "model = \"x\"\n");
    }

    #[test]
    fn a_stale_or_missing_trust_entry_is_a_problem() {
        let file = Path::new("/h/.codex/hooks.json");
        let doc = parse(file, "[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\nenabled = true\ntrusted_hash = \"sha256:00\"\n").unwrap();
        let problems = problems(
            &doc,
            file,
            &[found("Stop", 0, None), found("PreToolUse", 0, None)],
        );
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("other content"));
        assert!(problems[1].contains("no trust entry"));
        assert!(
            parse(file, "a = ")
                .unwrap_err()
                .to_string()
                .contains("line 1")
        );
    }
}

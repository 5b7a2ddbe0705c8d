//! Whether a matcher can ever match: the values an event's matcher is compared with
//! are known (a tool name is an identifier; `SessionStart`'s `source` is one of five
//! words), so a matcher that accepts none of them is a hook that never fires — which
//! looks exactly like one that approves. `hookhost check` and `hookhost claude status`
//! report such matchers with a suggestion.
//!
//! A regular expression is decided exactly: its DFA is searched for a match reachable
//! through the bytes a value can hold.

use regex_automata::dfa::{Automaton, StartKind, dense};
use regex_automata::{Anchored, Input};

use super::{Matcher, Pattern};
use crate::event::EventSpec;

/// Claude Code's built-in tool names (what a tool event's `tool_name` holds besides
/// `mcp__server__tool`).
const BUILT_IN_TOOLS: &[&str] = &[
    "Agent",
    "Bash",
    "BashOutput",
    "Edit",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "Monitor",
    "MultiEdit",
    "NotebookEdit",
    "PowerShell",
    "Read",
    "Skill",
    "SlashCommand",
    "Task",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// The values an event's matcher field can hold, where they are a closed set.
fn closed_values(spec: &EventSpec) -> Option<&'static [&'static str]> {
    Some(match spec.catalog_name {
        "SessionStart" => &["startup", "resume", "clear", "compact", "fork"],
        "Setup" => &["init", "maintenance"],
        "PreCompact" | "PostCompact" => &["manual", "auto"],
        "DirectoryAdded" => &["slash_command", "register_repo_root"],
        _ => return None,
    })
}

/// A byte a tool name can hold (built-in names and `mcp__<server>__<tool>`, whose parts
/// may hold `-`).
fn tool_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Why `matcher` can never match a value of `spec`'s matcher field, with a suggestion;
/// `None` when it can (or when that cannot be decided).
pub(super) fn never_matches(matcher: &Matcher, spec: &EventSpec) -> Option<String> {
    let closed = closed_values(spec);
    match matcher {
        Matcher::Any | Matcher::Tool(_) | Matcher::Glob { .. } => None,
        Matcher::Exact(names) => {
            if let Some(values) = closed {
                let known = names.iter().any(|name| values.contains(&name.as_str()));
                return (!known).then(|| {
                    format!(
                        "matches none of `{}`'s values ({})",
                        spec.name,
                        values.join(", ")
                    )
                });
            }
            if !spec.tool_event {
                return None;
            }
            let reasons: Vec<String> = names.iter().filter_map(|n| bad_tool_name(n)).collect();
            (reasons.len() == names.len()).then(|| reasons.join("; "))
        }
        Matcher::Regex { source, regex } => {
            let Pattern::Linear(_) = regex else {
                return None;
            };
            if let Some(values) = closed {
                let any = values
                    .iter()
                    .any(|value| matcher.matches(Some(value), None));
                return (!any).then(|| {
                    format!(
                        "the regular expression `{source}` matches none of `{}`'s values ({})",
                        spec.name,
                        values.join(", ")
                    )
                });
            }
            if !spec.tool_event || can_match_over(source, tool_name_byte) != Some(false) {
                return None;
            }
            Some(format!(
                "matchers are regular expressions on the tool name, and `{source}` matches no tool name{}",
                if_suggestion(source)
            ))
        }
    }
}

/// Why the matcher `text` of a Claude Code settings file can never fire for `event`, as
/// Claude Code reads it (where hookhost also accepts `Tool(pattern)` matchers, Claude
/// Code reads every matcher holding other characters than letters, digits, `_`, `-`,
/// spaces, `,` and `|` as a regular expression on the value); `None` when it can, or
/// when the event is unknown or it cannot be decided.
pub fn never_fires_in_claude_code(event: &str, text: &str) -> Option<String> {
    let spec = crate::dialect::Dialect::claude().lookup(event)?;
    let text = text.trim();
    let compiled = Matcher::compile(Some(text), spec).ok()?;
    let as_claude_code = match compiled {
        Matcher::Tool(_) => Matcher::Regex {
            source: text.to_string(),
            regex: Pattern::compile(text).ok()?,
        },
        other => other,
    };
    as_claude_code.never_matches(spec)
}

/// Why `name` (an exact matcher name on a tool event) is no tool's name, if it is not.
fn bad_tool_name(name: &str) -> Option<String> {
    if let Some(tool) = BUILT_IN_TOOLS
        .iter()
        .find(|tool| tool.eq_ignore_ascii_case(name) && **tool != name)
    {
        return Some(format!(
            "`{name}` is no tool name (names are case-sensitive): did you mean `{tool}`?"
        ));
    }
    if !name.bytes().all(tool_name_byte) {
        return Some(format!("`{name}` holds a character no tool name has"));
    }
    if let Some(rest) = name.strip_prefix("mcp__")
        && !rest.contains("__")
    {
        return Some(format!(
            "`{name}` names an MCP server, not a tool: use `{name}__.*` for all its tools"
        ));
    }
    None
}

/// The `if` a `Tool(pattern)` matcher was probably meant as.
fn if_suggestion(source: &str) -> String {
    match source.split_once('(') {
        Some((tool, rest))
            if rest.ends_with(')') && !tool.is_empty() && tool.bytes().all(tool_name_byte) =>
        {
            format!(
                "; to filter the tool's arguments write \"matcher\": \"{tool}\", \"if\": \"{source}\""
            )
        }
        _ => String::new(),
    }
}

/// Whether the regular expression `pattern` (unanchored, as matchers are) matches some
/// non-empty string made only of bytes `allowed` accepts; `None` when the DFA is too
/// large to decide.
fn can_match_over(pattern: &str, allowed: fn(u8) -> bool) -> Option<bool> {
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Unanchored)
                .dfa_size_limit(Some(1 << 22))
                .determinize_size_limit(Some(1 << 22)),
        )
        .build(pattern)
        .ok()?;
    let start = dfa
        .start_state_forward(&Input::new("").anchored(Anchored::No))
        .ok()?;
    let bytes: Vec<u8> = (0..=u8::MAX).filter(|b| allowed(*b)).collect();
    let mut seen = std::collections::HashSet::from([start]);
    let mut queue = vec![(start, 0usize)];
    while let Some((state, depth)) = queue.pop() {
        // A match state is entered one byte after the match ends; at the end of the
        // value, the end-of-input transition says. A value is at least one byte long.
        if depth > 0 && dfa.is_match_state(dfa.next_eoi_state(state)) {
            return Some(true);
        }
        for &byte in &bytes {
            let next = dfa.next_state(state, byte);
            if dfa.is_match_state(next) && depth > 0 {
                return Some(true);
            }
            if dfa.is_dead_state(next) || dfa.is_quit_state(next) {
                continue;
            }
            if seen.insert(next) {
                queue.push((next, depth + 1));
            }
        }
    }
    Some(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::CATALOG;

    fn spec(name: &str) -> &'static EventSpec {
        CATALOG.iter().find(|spec| spec.name == name).unwrap()
    }

    fn never(text: &str, event: &str) -> Option<String> {
        Matcher::compile(Some(text), spec(event))
            .unwrap()
            .never_matches(spec(event))
    }

    #[test]
    fn regexes_that_need_a_character_no_tool_name_has_never_match() {
        let why = never("Bash(git commit.*) && true", "PreToolUse").unwrap();
        assert!(why.contains("matches no tool name"), "{why}");
        let why = never("git commit.*", "PreToolUse").unwrap();
        assert!(why.contains("no tool name"), "{why}");
        assert!(never("^Bash$", "PreToolUse").is_none());
        assert!(never("Edit.*", "PreToolUse").is_none());
        assert!(never("mcp__.*__write.*", "PostToolUse").is_none());
        assert!(never("^mcp__my-server__", "PreToolUse").is_none());
        // Empty-only matches are no tool name either.
        assert!(never("^$", "PreToolUse").is_some());
    }

    #[test]
    fn a_tool_pattern_as_claude_code_reads_it_suggests_if() {
        // hookhost reads it as a tool rule, which fires.
        assert!(never("Bash(git commit*)", "PreToolUse").is_none());
        let why = never_fires_in_claude_code("PreToolUse", "Bash(git commit*)").unwrap();
        assert!(
            why.contains(r#""matcher": "Bash", "if": "Bash(git commit*)""#),
            "{why}"
        );
    }

    #[test]
    fn exact_names_are_checked_against_the_event_values() {
        assert!(never("start", "SessionStart").unwrap().contains("startup"));
        assert!(never("startup|resume", "SessionStart").is_none());
        assert!(never("manual", "PreCompact").is_none());
        assert!(never("bash", "PreToolUse").unwrap().contains("`Bash`"));
        assert!(
            never("mcp__memory", "PreToolUse")
                .unwrap()
                .contains("mcp__memory__.*")
        );
        // One good name in the list is enough.
        assert!(never("bash|Bash", "PreToolUse").is_none());
        // Custom tools exist: an unknown identifier may be one.
        assert!(never("MyTool", "PreToolUse").is_none());
        // Open sets are not judged.
        assert!(never("anything", "Notification").is_none());
        assert!(never("^x y$", "Notification").is_none());
        assert!(never("^nope$", "SessionStart").is_some());
    }
}

//! Level-2 matching: a group's `matcher` against the event's matcher field
//! (reference section 4.1).
//!
//! * `*`, empty or absent: everything;
//! * only letters, digits, `_`, `-`, spaces, `,` and `|`: exact names split on `|`/`,`
//!   (FileChanged and StopFailure: letters, digits, `_` and `|` only);
//! * `Tool(argument pattern)` on tool events: the tool plus a permission rule
//!   (`Bash(git:*)`);
//! * anything else: an unanchored regular expression with ECMAScript semantics
//!   (lookarounds included), compiled with `regress`.

use crate::condition::{Rule, RuleContext};
use crate::event::EventSpec;

/// A compiled matcher.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Matches every value.
    Any,
    /// Matches one of these exact names.
    Exact(Vec<String>),
    /// Unanchored ECMAScript regex.
    Regex {
        /// The source text.
        source: String,
        /// The compiled expression.
        regex: regress::Regex,
    },
    /// A tool name with an argument filter.
    Tool(Rule),
}

/// Why a matcher could not be compiled.
#[derive(Debug, Clone, thiserror::Error)]
#[error("invalid matcher `{matcher}`: {reason}")]
pub struct MatcherError {
    /// The matcher text.
    pub matcher: String,
    /// What is wrong.
    pub reason: String,
}

fn is_tool_pattern(text: &str) -> bool {
    let Some(open) = text.find('(') else {
        return false;
    };
    text.ends_with(')')
        && open > 0
        && text[..open]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !text[..open].is_empty()
}

impl Matcher {
    /// Compiles `text` for the event `spec`.
    pub fn compile(text: Option<&str>, spec: &EventSpec) -> Result<Matcher, MatcherError> {
        let text = text.unwrap_or("").trim();
        if text.is_empty() || text == "*" {
            return Ok(Matcher::Any);
        }
        let exact_alphabet = |c: char| {
            if spec.narrow_matcher() {
                c.is_ascii_alphanumeric() || c == '_' || c == '|'
            } else {
                c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|')
            }
        };
        if text.chars().all(exact_alphabet) {
            let separators: &[char] = if spec.narrow_matcher() {
                &['|']
            } else {
                &['|', ',']
            };
            let names = text
                .split(separators)
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(str::to_string)
                .collect();
            return Ok(Matcher::Exact(names));
        }
        if spec.tool_event && is_tool_pattern(text) {
            return Rule::parse(text)
                .map(Matcher::Tool)
                .map_err(|err| MatcherError {
                    matcher: text.to_string(),
                    reason: err.reason,
                });
        }
        // The regex engine is third-party code fed a pattern from any settings file or
        // plugin: a panic inside it must not take the engine (and every policy) down.
        let compiled =
            std::panic::catch_unwind(|| regress::Regex::new(text)).map_err(|_| MatcherError {
                matcher: text.to_string(),
                reason: "the regex engine failed on this pattern".into(),
            })?;
        compiled
            .map(|regex| Matcher::Regex {
                source: text.to_string(),
                regex,
            })
            .map_err(|err| MatcherError {
                matcher: text.to_string(),
                reason: err.to_string(),
            })
    }

    /// Whether the matcher accepts `value` (the event's matcher field). `rule_ctx` is the
    /// tool call, needed only for tool patterns.
    pub fn matches(&self, value: Option<&str>, rule_ctx: Option<&RuleContext<'_>>) -> bool {
        match self {
            Matcher::Any => true,
            Matcher::Exact(names) => value.is_some_and(|v| names.iter().any(|n| n == v)),
            Matcher::Regex { regex, source } => value.is_some_and(|v| {
                // A panic inside the regex engine counts as a match: running the hook is
                // safe, silently skipping a policy is not.
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| regex.find(v).is_some()))
                    .unwrap_or_else(|_| {
                        tracing::warn!(
                            "the regex engine failed matching `{source}`; treating it as a match"
                        );
                        true
                    })
            }),
            Matcher::Tool(rule) => rule_ctx.is_some_and(|ctx| rule.matches(ctx)),
        }
    }
}

#[cfg(test)]
mod tests {
    /// Found by the `matcher_rule` fuzz target: regress 0.10 panicked (index out of
    /// bounds) matching this pattern, which would have crashed the engine.
    #[test]
    fn a_pattern_that_crashed_the_regex_engine_is_contained() {
        const CRASH: &[u8] = &[
            0x45, 0x17, 0x5c, 0x31, 0x3f, 0x21, 0x52, 0x00, 0x26, 0x5c, 0x64, 0x69, 0x20, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3d, 0x00, 0x5e, 0x23, 0x28, 0x3f, 0x3a, 0x74,
            0x09, 0x20, 0x2d, 0x61, 0x69, 0x6e, 0x3a, 0x52, 0x5e, 0x64, 0x2a, 0x01, 0x5c, 0x2f,
            0x73, 0x29,
        ];
        let text = std::str::from_utf8(CRASH).unwrap();
        for event in ["PreToolUse", "Stop", "SessionStart"] {
            let spec = crate::EventSpec::for_name(event);
            if let Ok(matcher) = Matcher::compile(Some(text), &spec) {
                let _ = matcher.matches(Some("Bash"), None);
                let _ = matcher.matches(Some(text), None);
            }
        }
    }

    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn matches(matcher: &str, event: &str, value: &str) -> bool {
        let spec = EventSpec::for_name(event);
        Matcher::compile(Some(matcher), &spec)
            .unwrap()
            .matches(Some(value), None)
    }

    #[test]
    fn matcher_table() {
        let cases: &[(&str, &str, &str, &str, bool)] = &[
            ("star", "*", "PreToolUse", "Bash", true),
            ("empty", "", "PreToolUse", "Bash", true),
            ("exact", "Bash", "PreToolUse", "Bash", true),
            (
                "exact_is_not_prefix",
                "Bash",
                "PreToolUse",
                "BashOutput",
                false,
            ),
            ("exact_case_sensitive", "bash", "PreToolUse", "Bash", false),
            ("pipe_list", "Edit|Write", "PreToolUse", "Write", true),
            (
                "comma_list_spaces",
                "Edit, Write",
                "PreToolUse",
                "Write",
                true,
            ),
            (
                "hyphen_exact",
                "code-reviewer",
                "SubagentStop",
                "senior-code-reviewer",
                false,
            ),
            (
                "regex_unanchored",
                "Edit.*",
                "PreToolUse",
                "NotebookEdit",
                true,
            ),
            (
                "regex_anchored",
                "^Edit$",
                "PreToolUse",
                "NotebookEdit",
                false,
            ),
            (
                "mcp_regex",
                "mcp__memory__.*",
                "PreToolUse",
                "mcp__memory__write",
                true,
            ),
            (
                "mcp_bare_is_exact",
                "mcp__memory",
                "PreToolUse",
                "mcp__memory__write",
                false,
            ),
            ("lookahead", "^(?!Read).*", "PreToolUse", "Write", true),
            (
                "lookahead_rejects",
                "^(?!Read).*",
                "PreToolUse",
                "Read",
                false,
            ),
            (
                "lookbehind",
                "(?<=mcp__)git",
                "PreToolUse",
                "mcp__github__x",
                true,
            ),
            (
                "plugin_agent",
                "^my-plugin:reviewer$",
                "SubagentStart",
                "my-plugin:reviewer",
                true,
            ),
            (
                "narrow_pipe",
                ".env|package_json",
                "FileChanged",
                ".env",
                true,
            ),
            (
                "narrow_hyphen_is_regex",
                "a-b",
                "FileChanged",
                "xa-by",
                true,
            ),
        ];
        for (name, matcher, event, value, expected) in cases {
            assert_eq!(matches(matcher, event, value), *expected, "case {name}");
        }
    }

    #[test]
    fn tool_pattern_matcher() {
        let spec = EventSpec::for_name("PreToolUse");
        let matcher = Matcher::compile(Some("Bash(git:*)"), &spec).unwrap();
        assert!(matches!(matcher, Matcher::Tool(_)));
        let input = json!({"command": "git push"});
        let ctx = RuleContext {
            tool_name: "Bash",
            tool_input: &input,
            cwd: Path::new("/p"),
            home: None,
            base: Path::new("/p"),
        };
        assert!(matcher.matches(Some("Bash"), Some(&ctx)));
        let other = json!({"command": "ls"});
        let ctx = RuleContext {
            tool_input: &other,
            ..ctx
        };
        assert!(!matcher.matches(Some("Bash"), Some(&ctx)));
    }

    #[test]
    fn bad_regex_is_an_error() {
        let spec = EventSpec::for_name("PreToolUse");
        assert!(Matcher::compile(Some("Bash[("), &spec).is_err());
    }

    #[test]
    fn missing_value_matches_only_any() {
        let spec = EventSpec::for_name("PreToolUse");
        assert!(Matcher::compile(None, &spec).unwrap().matches(None, None));
        assert!(
            !Matcher::compile(Some("Bash"), &spec)
                .unwrap()
                .matches(None, None)
        );
    }
}

//! Level-2 matching: a group's `matcher` against the event's matcher field
//! (reference section 4.1).
//!
//! * `*`, empty or absent: everything;
//! * only letters, digits, `_`, `-`, spaces, `,` and `|`: exact names split on `|`/`,`
//!   (FileChanged and StopFailure: letters, digits, `_` and `|` only);
//! * `Tool(argument pattern)` on tool events: the tool plus a permission rule
//!   (`Bash(git:*)`);
//! * anything else: an unanchored regular expression with ECMAScript semantics.
//!
//! Matching time is bounded whatever a settings file or plugin puts in a matcher: a
//! pattern the linear-time `regex` crate accepts (nearly every matcher) runs there; only
//! a pattern that needs lookaround or backreferences runs on the backtracking `regress`
//! engine, and then it may hold at most [`MAX_BACKTRACKING_QUANTIFIERS`] unbounded
//! quantifiers, none on a group that holds one, and is tried on values of at most
//! [`MAX_BACKTRACKING_VALUE`] characters (a longer value counts as a match: the hook
//! runs rather than being skipped).

mod reach;

pub use reach::never_fires_in_claude_code;

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
        regex: Pattern,
    },
    /// A tool name with an argument filter.
    Tool(Rule),
    /// Glob patterns (`mcp__*`, `*Edit`): the whole value must match one of them.
    Glob {
        /// The source text.
        source: String,
        /// The compiled alternatives.
        set: globset::GlobSet,
    },
}

/// Most unbounded quantifiers (`*`, `+`, `{…}`) a pattern on the backtracking engine may
/// hold.
pub const MAX_BACKTRACKING_QUANTIFIERS: usize = 2;
/// Longest value a backtracking pattern is tried on, in characters.
pub const MAX_BACKTRACKING_VALUE: usize = 256;

/// A compiled regular expression on the engine it needs.
#[derive(Debug, Clone)]
pub enum Pattern {
    /// Linear time (the `regex` crate).
    Linear(regex::Regex),
    /// Lookaround or backreferences (`regress`), within the bounds above.
    Backtracking(regress::Regex),
}

impl Pattern {
    fn compile(text: &str) -> Result<Pattern, String> {
        if let Ok(regex) = regex::RegexBuilder::new(text)
            .size_limit(1 << 20)
            .dfa_size_limit(1 << 20)
            .build()
        {
            return Ok(Pattern::Linear(regex));
        }
        // The regex engine is third-party code fed a pattern from any settings file or
        // plugin: a panic inside it must not take the engine (and every policy) down.
        let compiled = std::panic::catch_unwind(|| regress::Regex::new(text))
            .map_err(|_| "the regex engine failed on this pattern".to_string())?
            .map_err(|err| err.to_string())?;
        check_backtracking(text)?;
        Ok(Pattern::Backtracking(compiled))
    }

    fn is_match(&self, value: &str, source: &str) -> bool {
        match self {
            Pattern::Linear(regex) => regex.is_match(value),
            Pattern::Backtracking(_) if value.chars().count() > MAX_BACKTRACKING_VALUE => {
                tracing::debug!(
                    "value longer than {MAX_BACKTRACKING_VALUE} characters for the backtracking matcher `{source}`; treating it as a match"
                );
                true
            }
            // A panic inside the regex engine counts as a match: running the hook is
            // safe, silently skipping a policy is not.
            Pattern::Backtracking(regex) => {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    regex.find(value).is_some()
                }))
                .unwrap_or_else(|_| {
                    tracing::warn!(
                        "the regex engine failed matching `{source}`; treating it as a match"
                    );
                    true
                })
            }
        }
    }
}

/// Refuses a pattern whose backtracking could take more than low-degree polynomial time:
/// more than [`MAX_BACKTRACKING_QUANTIFIERS`] unbounded quantifiers, or one on a group
/// that itself holds a quantifier (`(a+)+`).
fn check_backtracking(text: &str) -> Result<(), String> {
    let too_complex = |why: &str| {
        Err(format!(
            "this pattern needs the backtracking regex engine (lookaround or backreference) and {why}, which could take unbounded time; simplify it"
        ))
    };
    let mut chars = text.chars();
    let mut groups: Vec<bool> = Vec::new(); // per open group: holds a quantifier
    let mut unbounded = 0;
    let mut in_class = false;
    let mut after_quantified_group = false;
    while let Some(c) = chars.next() {
        let closing_group_was_quantified = std::mem::take(&mut after_quantified_group);
        if c == '\\' {
            chars.next();
            continue;
        }
        if in_class {
            in_class = c != ']';
            continue;
        }
        match c {
            '[' => in_class = true,
            '(' => groups.push(false),
            ')' => after_quantified_group = groups.pop().unwrap_or(false),
            '*' | '+' | '{' => {
                if closing_group_was_quantified {
                    return too_complex("repeats a group that holds a quantifier");
                }
                unbounded += 1;
                if unbounded > MAX_BACKTRACKING_QUANTIFIERS {
                    return too_complex(&format!(
                        "holds more than {MAX_BACKTRACKING_QUANTIFIERS} unbounded quantifiers"
                    ));
                }
                groups.iter_mut().for_each(|group| *group = true);
            }
            _ => {}
        }
    }
    Ok(())
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

/// A glob matcher: alternatives split on `|`, each anchored at both ends; `*` and `?`
/// match any characters (tool names have no path separators).
fn compile_glob(text: &str) -> Result<Matcher, MatcherError> {
    let mut builder = globset::GlobSetBuilder::new();
    for part in text.split('|').map(str::trim).filter(|p| !p.is_empty()) {
        let glob = globset::GlobBuilder::new(part)
            .literal_separator(false)
            .backslash_escape(true)
            .build()
            .map_err(|err| MatcherError {
                matcher: text.to_string(),
                reason: err.kind().to_string(),
            })?;
        builder.add(glob);
    }
    let set = builder.build().map_err(|err| MatcherError {
        matcher: text.to_string(),
        reason: err.to_string(),
    })?;
    Ok(Matcher::Glob {
        source: text.to_string(),
        set,
    })
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
    /// Why this matcher can never match a value of `spec`'s matcher field, with a
    /// suggestion; `None` when it can (or when that cannot be decided).
    pub fn never_matches(&self, spec: &EventSpec) -> Option<String> {
        reach::never_matches(self, spec)
    }

    /// Compiles `text` for the event `spec` (`Tool(args)` is a tool pattern).
    pub fn compile(text: Option<&str>, spec: &EventSpec) -> Result<Matcher, MatcherError> {
        Matcher::compile_in(text, spec, true)
    }

    /// Compiles `text` for the event `spec`; with `tool_patterns` false, `Tool(args)` is
    /// what the host reads there: a regular expression on the value (see
    /// `Dialect::tool_patterns`).
    pub fn compile_in(
        text: Option<&str>,
        spec: &EventSpec,
        tool_patterns: bool,
    ) -> Result<Matcher, MatcherError> {
        let text = text.unwrap_or("").trim();
        if text.is_empty() || text == "*" {
            return Ok(Matcher::Any);
        }
        if spec.matcher_syntax == crate::event::MatcherSyntax::Glob {
            return compile_glob(text);
        }
        let exact_alphabet = |c: char| {
            if spec.narrow_matcher {
                c.is_ascii_alphanumeric() || c == '_' || c == '|'
            } else {
                c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|')
            }
        };
        if text.chars().all(exact_alphabet) {
            let separators: &[char] = if spec.narrow_matcher {
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
        if tool_patterns && spec.tool_event && is_tool_pattern(text) {
            return Rule::parse(text)
                .map(Matcher::Tool)
                .map_err(|err| MatcherError {
                    matcher: text.to_string(),
                    reason: err.reason,
                });
        }
        Pattern::compile(text)
            .map(|regex| Matcher::Regex {
                source: text.to_string(),
                regex,
            })
            .map_err(|reason| MatcherError {
                matcher: text.to_string(),
                reason,
            })
    }

    /// Whether the matcher accepts `value` (the event's matcher field). `rule_ctx` is the
    /// tool call, needed only for tool patterns.
    pub fn matches(&self, value: Option<&str>, rule_ctx: Option<&RuleContext<'_>>) -> bool {
        match self {
            Matcher::Any => true,
            Matcher::Exact(names) => value.is_some_and(|v| names.iter().any(|n| n == v)),
            Matcher::Regex { regex, source } => value.is_some_and(|v| regex.is_match(v, source)),
            Matcher::Tool(rule) => rule_ctx.is_some_and(|ctx| rule.matches(ctx)),
            Matcher::Glob { set, .. } => value.is_some_and(|v| set.is_match(v)),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn glob_matchers_of_the_agent_sdk() {
        let sdk = crate::dialect::DialectId::AgentSdk.dialect();
        let spec = sdk.lookup("PreToolUse").unwrap();
        let glob = |text| super::Matcher::compile(Some(text), spec).unwrap();
        assert!(glob("mcp__*").matches(Some("mcp__github__create_issue"), None));
        assert!(!glob("mcp__*").matches(Some("Bash"), None));
        assert!(glob("*Edit").matches(Some("MultiEdit"), None));
        assert!(glob("*Edit").matches(Some("Edit"), None));
        assert!(!glob("*Edit").matches(Some("EditNotebook"), None));
        // Anchored: `Bash` is not a prefix match (the Claude regex reading over-matched).
        assert!(!glob("Bash").matches(Some("BashOutput"), None));
        assert!(glob("Bash*").matches(Some("BashOutput"), None));
        assert!(glob("Write|*Edit").matches(Some("Write"), None));
        assert!(super::Matcher::compile(Some("[z-a]"), spec).is_err());
    }

    /// Found by the `matcher_rule` fuzz target: this pattern took over 20 s to match a
    /// 76-character value on the backtracking engine. It now runs in linear time.
    #[test]
    fn a_pattern_that_backtracked_for_seconds_runs_in_linear_time() {
        const TIMEOUT: &[u8] = &[
            0x2e, 0x2a, 0x2e, 0x2a, 0x2e, 0x2e, 0x2a, 0x67, 0x3f, 0x2e, 0x2a, 0x2e, 0x2e, 0x2a,
            0x67, 0x3f, 0x51, 0x51, 0x51, 0x51, 0x51, 0x51, 0x2d, 0x5f, 0x77, 0x01, 0x72, 0xda,
            0x99, 0x00, 0x00, 0x3a, 0x2a, 0xda, 0x99, 0x00, 0x2a, 0x6e, 0x2a, 0x00, 0x3a, 0x2a,
            0xda, 0x99, 0x00, 0x2a, 0x6e, 0x00, 0x2a, 0x6e, 0x2a, 0x00, 0x3a, 0x2a, 0xda, 0x99,
            0x00, 0x2a, 0x6e, 0x00, 0x24, 0x7a, 0x00, 0x40, 0x2a, 0xda, 0x99,
        ];
        let text = std::str::from_utf8(TIMEOUT).unwrap();
        let spec = crate::event::EventSpec::for_name("PreToolUse");
        let matcher = Matcher::compile(Some(text), spec).unwrap();
        assert!(matches!(
            matcher,
            Matcher::Regex {
                regex: Pattern::Linear(_),
                ..
            }
        ));
        let _ = matcher.matches(Some(text), None);
        let _ = matcher.matches(Some(&"a".repeat(10_000)), None);
    }

    #[test]
    fn backtracking_patterns_are_bounded() {
        let spec = crate::event::EventSpec::for_name("PreToolUse");
        // Lookarounds still work.
        let not_read = Matcher::compile(Some("^(?!Read).*"), spec).unwrap();
        assert!(not_read.matches(Some("Write"), None));
        assert!(!not_read.matches(Some("Read"), None));
        assert!(Matcher::compile(Some("^(?!mcp__.*__write).*"), spec).is_ok());
        // Exponential or high-degree shapes are refused with the reason.
        for text in ["^(?!x)(a+)+$", "(?=a)(.*)*", "(?!x).*.*.*b"] {
            let err = Matcher::compile(Some(text), spec).unwrap_err();
            assert!(err.reason.contains("backtracking"), "{text}: {err}");
        }
        // Escapes and classes do not count as quantifiers.
        assert!(Matcher::compile(Some(r"(?<=a)[*+]\*b"), spec).is_ok());
    }

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
            let spec = crate::event::EventSpec::for_name(event);
            if let Ok(matcher) = Matcher::compile(Some(text), spec) {
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
        Matcher::compile(Some(matcher), spec)
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
        let matcher = Matcher::compile(Some("Bash(git:*)"), spec).unwrap();
        assert!(matches!(matcher, Matcher::Tool(_)));
        let input = json!({"command": "git push"});
        let ctx = RuleContext {
            tool_name: "Bash",
            tool_input: &input,
            cwd: Path::new("/p"),
            home: None,
            base: Path::new("/p"),
            target: None,
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
        assert!(Matcher::compile(Some("Bash[("), spec).is_err());
    }

    #[test]
    fn missing_value_matches_only_any() {
        let spec = EventSpec::for_name("PreToolUse");
        assert!(Matcher::compile(None, spec).unwrap().matches(None, None));
        assert!(
            !Matcher::compile(Some("Bash"), spec)
                .unwrap()
                .matches(None, None)
        );
    }
}

//! Permission-rule conditions: the `if` field (`Bash(git *)`, `Edit(src/**)`,
//! `WebFetch(domain:*.example.com)`) and tool patterns with argument filters in matchers
//! (`Bash(git:*)`).
//!
//! A rule is a best-effort filter, as in Claude Code: a shell command that cannot be
//! parsed makes the rule match (the hook runs), so a policy hook is never skipped by a
//! command crafted to confuse the parser.

use std::path::{Component, Path, PathBuf};

use crate::tools::Subject;
use globset::GlobBuilder;
use serde_json::Value;

/// A compiled permission rule: a tool name (with `*` wildcards) and an optional specifier.
#[derive(Debug, Clone)]
pub struct Rule {
    source: String,
    tool: String,
    specifier: Option<String>,
}

/// Why a rule could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid rule `{rule}`: {reason}")]
pub struct RuleError {
    /// The rule text.
    pub rule: String,
    /// What is wrong with it.
    pub reason: String,
}

/// What a rule is checked against.
#[derive(Debug, Clone, Copy)]
pub struct RuleContext<'a> {
    /// The tool being called.
    pub tool_name: &'a str,
    /// Its input.
    pub tool_input: &'a Value,
    /// The session's working directory (relative paths and patterns resolve here).
    pub cwd: &'a Path,
    /// The user's home directory, for `~/` patterns.
    pub home: Option<&'a Path>,
    /// The directory `/pattern` is relative to (the settings source's project root).
    pub base: &'a Path,
    /// A file tool's target resolved past `..` and links: a path rule matches the path
    /// as given or where the call lands, so a planted link cannot walk a call out of
    /// a rule's reach.
    pub target: Option<&'a Path>,
}

impl Rule {
    /// Parses `Tool` or `Tool(specifier)`.
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let text = text.trim();
        let error = |reason: &str| RuleError {
            rule: text.to_string(),
            reason: reason.to_string(),
        };
        let (tool, specifier) = match text.find('(') {
            None => (text, None),
            Some(open) => {
                let inner = text[open + 1..]
                    .strip_suffix(')')
                    .ok_or_else(|| error("missing closing parenthesis"))?;
                (&text[..open], Some(inner.trim().to_string()))
            }
        };
        if tool.is_empty()
            || !tool
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '*' || c == '-')
        {
            return Err(error(
                "the tool name must be letters, digits, `_`, `-` or `*`",
            ));
        }
        let specifier = specifier.filter(|s| !s.is_empty() && s != "*");
        Ok(Rule {
            source: text.to_string(),
            tool: tool.to_string(),
            specifier,
        })
    }

    /// The rule as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The program a `Bash(...)` rule names by its first word, when that word is a plain
    /// program name (`Bash(npm publish*)` → `npm`; `Bash(*)`, `Bash(./x.sh)` → none).
    pub fn bash_program(&self) -> Option<&str> {
        if self.tool != "Bash" {
            return None;
        }
        let first = self.specifier.as_deref()?.split_whitespace().next()?;
        let first = first.strip_suffix(":*").unwrap_or(first);
        let plain = !first.is_empty()
            && !first.starts_with(['.', '-'])
            && first
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'));
        plain.then_some(first)
    }

    /// Whether the tool call in `ctx` matches the rule.
    pub fn matches(&self, ctx: &RuleContext<'_>) -> bool {
        if !wildcard(&self.tool, ctx.tool_name, false) {
            return false;
        }
        let Some(spec) = &self.specifier else {
            return true;
        };
        match crate::tools::subject(ctx.tool_name, ctx.tool_input) {
            Subject::Command(command) => {
                command.is_some_and(|command| command_matches(spec, command, ctx.cwd))
            }
            Subject::Url(url) => match (spec.strip_prefix("domain:"), url) {
                (Some(domain), Some(url)) => {
                    url_host(url).is_some_and(|host| wildcard(&domain.to_lowercase(), &host, false))
                }
                (None, Some(url)) => wildcard(spec, url, false),
                _ => false,
            },
            Subject::Path(path) => path.is_some_and(|path| path_matches(spec, path, ctx)),
            Subject::Other(value) => value.is_some_and(|value| wildcard(spec, value, false)),
        }
    }
}

/// `*` matches any run of characters (including none); everything else is literal.
pub(crate) fn wildcard(pattern: &str, text: &str, ignore_case: bool) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = if ignore_case {
        (
            pattern.to_lowercase().chars().collect(),
            text.to_lowercase().chars().collect(),
        )
    } else {
        (pattern.chars().collect(), text.chars().collect())
    };
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Checks a Bash pattern against every subcommand of a (possibly compound) command.
fn command_matches(pattern: &str, command: &str, cwd: &Path) -> bool {
    let pattern = match pattern.strip_suffix(":*") {
        Some(prefix) => format!("{prefix} *"),
        None => pattern.to_string(),
    };
    let Some(mut subcommands) = split_commands(command) else {
        return true; // unparseable: fail open, the hook runs
    };
    // The shell view adds what the split cannot see: scripts given to `bash -c`, `eval`
    // and a shell's stdin, the script files a command runs, process substitutions, and
    // programs behind wrappers (`sudo`, `env`, `timeout`, …). More candidates only make
    // the hook run more often.
    let view = crate::shell::parse_in(command, cwd);
    if view.partial {
        return true;
    }
    subcommands.extend(view.nodes.iter().filter_map(|node| {
        let program = node.program? as usize;
        let words: Vec<&str> = node.words[program..]
            .iter()
            .map(|w| w.text.as_str())
            .collect();
        Some(words.join(" "))
    }));
    let names_more_than_command = pattern.trim_end_matches(" *").split_whitespace().count() > 1;
    if names_more_than_command && has_expansion(command) {
        return true;
    }
    subcommands
        .iter()
        .any(|sub| single_command_matches(&pattern, &strip_assignments(sub)))
}

fn single_command_matches(pattern: &str, command: &str) -> bool {
    match pattern.strip_suffix(" *") {
        // `ls *` matches `ls` itself and `ls <args>`, never `lsof`.
        Some(prefix) => wildcard(prefix, command, false) || wildcard(pattern, command, false),
        None => wildcard(pattern, command, false),
    }
}

fn has_expansion(command: &str) -> bool {
    command.contains("$(")
        || command.contains('`')
        || command.match_indices('$').any(|(i, _)| {
            command[i + 1..]
                .chars()
                .next()
                .is_some_and(|c| c == '{' || c == '_' || c.is_ascii_alphabetic())
        })
}

/// Drops leading `NAME=value` assignments.
fn strip_assignments(command: &str) -> String {
    let mut rest = command.trim();
    loop {
        let word = &rest[..word_end(rest)];
        let is_assignment = word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        });
        if !is_assignment || word.len() == rest.len() {
            return rest.to_string();
        }
        rest = rest[word.len()..].trim_start();
    }
}

/// Byte length of the first shell word of `text` (quotes respected).
fn word_end(text: &str) -> usize {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (_, '\\') if quote != Some('\'') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, c) if c.is_whitespace() => return i,
            _ => {}
        }
    }
    text.len()
}

/// Splits a shell command on `&&`, `||`, `;`, `|`, `|&`, `&` and newlines, outside
/// quotes, and adds the commands inside `$(…)` and backticks. `None` when quotes or
/// substitutions are unbalanced.
pub fn split_commands(command: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut chars = command.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match quote {
            Some('\'') => {
                current.push(c);
                if c == '\'' {
                    quote = None;
                }
                continue;
            }
            Some('"') if c == '"' => {
                quote = None;
                current.push(c);
                continue;
            }
            _ => {}
        }
        match c {
            '\\' => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            '\'' if quote.is_none() => {
                quote = Some('\'');
                current.push(c);
            }
            '"' if quote.is_none() => {
                quote = Some('"');
                current.push(c);
            }
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                let inner = take_balanced(&mut chars)?;
                parts.extend(split_commands(&inner)?);
                current.push_str("$(");
                current.push_str(&inner);
                current.push(')');
            }
            '`' => {
                let mut inner = String::new();
                loop {
                    match chars.next()? {
                        '`' => break,
                        ch => inner.push(ch),
                    }
                }
                parts.extend(split_commands(&inner)?);
                current.push('`');
                current.push_str(&inner);
                current.push('`');
            }
            ';' | '\n' | '&' | '|' if quote.is_none() => {
                if matches!((c, chars.peek()), ('&', Some('&')) | ('|', Some('|' | '&'))) {
                    chars.next();
                }
                push_part(&mut parts, &mut current);
            }
            _ => current.push(c),
        }
    }
    if quote.is_some() {
        return None;
    }
    push_part(&mut parts, &mut current);
    Some(parts)
}

fn push_part(parts: &mut Vec<String>, current: &mut String) {
    let trimmed = current.trim();
    if !trimmed.is_empty() {
        parts.push(trimmed.to_string());
    }
    current.clear();
}

fn take_balanced(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<String> {
    let mut depth = 1;
    let mut inner = String::new();
    for c in chars.by_ref() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(inner);
                }
            }
            _ => {}
        }
        inner.push(c);
    }
    None
}

fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    let host = if host.starts_with('[') {
        host.split(']').next()?.trim_start_matches('[')
    } else {
        host.split(':').next()?
    };
    Some(host.trim_end_matches('.').to_lowercase()).filter(|h| !h.is_empty())
}

/// Lexically normalises `path` (resolving `.` and `..`) against `cwd`.
pub fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn path_matches(pattern: &str, path: &str, ctx: &RuleContext<'_>) -> bool {
    let file = absolute(Path::new(path), ctx.cwd);
    let anchored = if let Some(abs) = pattern.strip_prefix("//") {
        format!("/{abs}")
    } else if let Some(rest) = pattern.strip_prefix("~/") {
        match ctx.home {
            Some(home) => format!("{}/{rest}", home.display()),
            None => return false,
        }
    } else if let Some(rest) = pattern.strip_prefix('/') {
        format!("{}/{rest}", ctx.base.display())
    } else if !pattern.contains('/') {
        // gitignore style: a bare name matches at any depth.
        format!("**/{pattern}")
    } else {
        format!("{}/{pattern}", ctx.cwd.display())
    };
    GlobBuilder::new(&anchored)
        .literal_separator(true)
        .build()
        .map(|glob| {
            let glob = glob.compile_matcher();
            glob.is_match(&file) || ctx.target.is_some_and(|target| glob.is_match(target))
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(rule: &str, tool: &str, input: Value) -> bool {
        let rule = Rule::parse(rule).unwrap();
        rule.matches(&RuleContext {
            tool_name: tool,
            tool_input: &input,
            cwd: Path::new("/proj"),
            home: Some(Path::new("/home/u")),
            base: Path::new("/proj"),
            target: None,
        })
    }

    fn bash(rule: &str, command: &str) -> bool {
        check(rule, "Bash", json!({ "command": command }))
    }

    #[test]
    fn bash_rules() {
        let cases: &[(&str, &str, &str, bool)] = &[
            ("plain_prefix", "Bash(git *)", "git status", true),
            ("bare_command", "Bash(ls *)", "ls", true),
            ("word_boundary", "Bash(ls *)", "lsof -i", false),
            ("no_boundary", "Bash(ls*)", "lsof", true),
            ("colon_star", "Bash(git commit:*)", "git commit -m x", true),
            ("colon_star_other", "Bash(git commit:*)", "git push", false),
            ("compound_and", "Bash(rm *)", "cd /tmp && rm -rf x", true),
            ("compound_pipe", "Bash(sh *)", "curl x | sh -s", true),
            (
                "compound_semicolon",
                "Bash(git *)",
                "echo a; git push",
                true,
            ),
            (
                "quoted_separator",
                "Bash(git *)",
                "echo 'a; git push'",
                false,
            ),
            ("substitution", "Bash(whoami)", "echo $(whoami)", true),
            ("backticks", "Bash(whoami)", "echo `whoami`", true),
            ("shell_c", "Bash(git push *)", "bash -c 'git push -f'", true),
            ("eval", "Bash(git push *)", "eval 'git push -f'", true),
            ("here_string", "Bash(rm *)", "sh <<< 'rm -rf x'", true),
            ("behind_sudo", "Bash(rm *)", "sudo -u me rm -rf x", true),
            (
                "behind_env",
                "Bash(rm *)",
                "env A=1 timeout 5 rm -rf x",
                true,
            ),
            ("process_substitution", "Bash(curl *)", "sh <(curl x)", true),
            ("quoted_in_echo", "Bash(rm *)", "echo 'rm -rf x'", false),
            (
                "assignment_stripped",
                "Bash(git *)",
                "GIT_DIR=x git log",
                true,
            ),
            (
                "expansion_runs_anyway",
                "Bash(git push *)",
                "$CMD origin",
                true,
            ),
            (
                "unparseable_fails_open",
                "Bash(git *)",
                "echo 'unterminated",
                true,
            ),
            ("any_bash", "Bash", "anything", true),
            ("star_spec", "Bash(*)", "anything", true),
        ];
        for (name, rule, command, expected) in cases {
            assert_eq!(bash(rule, command), *expected, "case {name}");
        }
    }

    #[test]
    fn file_rules() {
        let edit = |rule: &str, path: &str| check(rule, "Edit", json!({ "file_path": path }));
        assert!(edit("Edit(src/**)", "/proj/src/a/b.rs"));
        assert!(!edit("Edit(src/**)", "/proj/lib/src/b.rs"));
        assert!(edit("Edit(**/src/**)", "/proj/lib/src/b.rs"));
        assert!(edit("Edit(*.ts)", "/proj/deep/x.ts"));
        assert!(!edit("Edit(src/*.rs)", "/proj/src/a/b.rs"));
        assert!(edit("Edit(//etc/**)", "/etc/passwd"));
        assert!(edit("Edit(~/.ssh/*)", "/home/u/.ssh/id_rsa"));
        assert!(edit("Edit(/docs/*.md)", "/proj/docs/a.md"));
        assert!(edit("Edit(src/**)", "src/rel.rs"));
        assert!(!edit("Write(src/**)", "/proj/src/a.rs"));
    }

    #[test]
    fn domain_and_other_rules() {
        let fetch = |rule: &str, url: &str| check(rule, "WebFetch", json!({ "url": url }));
        assert!(fetch(
            "WebFetch(domain:example.com)",
            "https://Example.com/x"
        ));
        assert!(fetch(
            "WebFetch(domain:*.example.com)",
            "https://a.example.com:8080/x"
        ));
        assert!(!fetch(
            "WebFetch(domain:example.com)",
            "https://evil.com/example.com"
        ));
        assert!(check(
            "Agent(Explore)",
            "Agent",
            json!({"subagent_type": "Explore"})
        ));
        assert!(check("mcp__memory__*", "mcp__memory__write", json!({})));
        assert!(!check("Edit", "Write", json!({})));
    }

    #[test]
    fn a_bash_rule_names_the_program_it_watches() {
        let program = |text: &str| Rule::parse(text).unwrap().bash_program().map(String::from);
        assert_eq!(program("Bash(npm publish*)").as_deref(), Some("npm"));
        assert_eq!(program("Bash(gh:*)").as_deref(), Some("gh"));
        assert_eq!(
            program("Bash(terraform apply)").as_deref(),
            Some("terraform")
        );
        for none in [
            "Bash",
            "Bash(*)",
            "Bash(./deploy.sh *)",
            "Bash(np* x)",
            "Edit(src/**)",
        ] {
            assert_eq!(program(none), None, "{none}");
        }
    }

    #[test]
    fn bad_rules_are_errors() {
        assert!(Rule::parse("Bash(git").is_err());
        assert!(Rule::parse("").is_err());
        assert!(Rule::parse("Ba sh").is_err());
    }

    #[test]
    fn a_path_rule_matches_where_a_link_lands() {
        let rule = Rule::parse("Write(~/.bashrc)").unwrap();
        let input = json!({"file_path": "innocent.json"});
        let ctx = RuleContext {
            tool_name: "Write",
            tool_input: &input,
            cwd: Path::new("/proj"),
            home: Some(Path::new("/home/u")),
            base: Path::new("/proj"),
            target: None,
        };
        assert!(!rule.matches(&ctx));
        let ctx = RuleContext {
            target: Some(Path::new("/home/u/.bashrc")),
            ..ctx
        };
        assert!(rule.matches(&ctx));
    }

    #[test]
    fn a_command_rule_sees_the_script_file_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.sh"), "rm -rf ~/.ssh\n").unwrap();
        let rule = Rule::parse("Bash(rm:*)").unwrap();
        let input = json!({"command": "bash x.sh"});
        let ctx = RuleContext {
            tool_name: "Bash",
            tool_input: &input,
            cwd: dir.path(),
            home: None,
            base: dir.path(),
            target: None,
        };
        assert!(rule.matches(&ctx));
        std::fs::write(dir.path().join("x.sh"), "ls\n").unwrap();
        assert!(!rule.matches(&ctx));
    }
}

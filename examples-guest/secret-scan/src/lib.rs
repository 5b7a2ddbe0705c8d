//! `secret-scan` (the builtin `secrets`): blocks Write, Edit, MultiEdit and NotebookEdit
//! calls whose new content contains credentials — cloud keys, private key blocks, API
//! tokens — naming what it found without repeating the secret (only a short, redacted
//! prefix); and keeps secret files from being read: `.env` files, SSH private keys, key
//! stores and the credential files of cloud CLIs and registries ([`secret_files`]), by
//! Read (on the path the host resolved past links, and the path as given), by a Grep or
//! Glob that names them, and by any command that names one (`cat`, `less`, `grep`,
//! `cp`, `source`, `< file`, …, through the host's shell view). Config `allow` lists names
//! or paths to let through (`[".env.test"]`).
//!
//! Scanning is hand-written prefix matching rather than regular expressions: every call
//! runs in a fresh instance, and compiling a regex set per call would cost more than the
//! whole scan.

pub mod reads;
pub mod secret_files;

use hookhost_guest::{Answer, Hook, PreToolUse, config, export_hook};
use secret_files::{glob_names_secret, pattern_names_secrets, secret_kind};

/// The hook.
pub struct SecretScan;

const FILE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

impl Hook for SecretScan {
    fn pre_tool_use(call: PreToolUse) -> Result<Answer, String> {
        let allow = config::get_list("allow");
        Ok(match call.tool_name() {
            Some(tool) if FILE_TOOLS.contains(&tool) => {
                let findings: Vec<Finding> = call
                    .new_content()
                    .iter()
                    .flat_map(|text| scan(text))
                    .collect();
                answer(&findings, call.file_path().unwrap_or("the file"))
            }
            Some("Read" | "Grep" | "Glob" | "LS") => read_answer(&call, &allow),
            Some("Bash") => command_answer(&call, &allow),
            _ => Answer::none(),
        })
    }
}

/// A file tool's read of a secret file: its target as the host resolved it, the path
/// as given, and a Grep's or Glob's file pattern.
fn read_answer(call: &PreToolUse, allow: &[String]) -> Answer {
    let resolved = call.target().map(|target| target.resolved_path);
    let given = ["file_path", "path"]
        .iter()
        .filter_map(|field| call.tool_field(field).map(str::to_string));
    for path in resolved.into_iter().chain(given) {
        if let Some(kind) = secret_kind(&path, allow) {
            return refuse_read(&path, kind);
        }
    }
    for field in ["glob", "pattern"] {
        if call.tool_name() == Some("Grep") && field == "pattern" {
            continue; // Grep's pattern is the text searched for
        }
        if let Some(pattern) = call.tool_field(field)
            && pattern_names_secrets(pattern)
        {
            return refuse_read(pattern, "secret files");
        }
    }
    Answer::none()
}

/// A command reading a secret file (an operand it reads, or an input redirection: see
/// [`reads`]), anywhere bash would run it.
fn command_answer(call: &PreToolUse, allow: &[String]) -> Answer {
    let Some(script) = call.shell() else {
        return Answer::none();
    };
    for command in script.commands() {
        for word in reads::read_words(&command) {
            // A glob bash expands before the program runs is judged by the names it can
            // match, not as a file name of its own (`.env.sampl*` reaches templates only).
            if word.dynamic && word.text.contains(['*', '?', '[']) {
                if let Some(name) = glob_names_secret(word.text, allow) {
                    return Answer::deny(format!(
                        "`{}` matches secret files such as `{name}`, which hold {}; name the files you need instead",
                        word.text,
                        secret_kind(name, allow).unwrap_or("secrets")
                    ));
                }
            } else if let Some(kind) = secret_kind(word.text, allow) {
                return refuse_read(word.text, kind);
            }
        }
    }
    Answer::none()
}

fn refuse_read(path: &str, kind: &str) -> Answer {
    let instead = if kind == "environment secrets" {
        "read `.env.example` for the variable names instead"
    } else {
        "ask the user for what you need from it"
    };
    Answer::deny(format!("`{path}` holds {kind}; {instead}"))
}

export_hook!(SecretScan);

/// One credential found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What kind of credential.
    pub kind: &'static str,
    /// A redacted preview: the first few characters, then `…`.
    pub redacted: String,
}

/// The answer for `findings` in `path`.
pub fn answer(findings: &[Finding], path: &str) -> Answer {
    if findings.is_empty() {
        return Answer::none();
    }
    let list: Vec<String> = findings
        .iter()
        .map(|f| format!("{} ({})", f.kind, f.redacted))
        .collect();
    Answer::deny(format!(
        "refusing to write credentials into {path}: found {}. Read secrets from environment variables or a secret manager instead, and never commit them",
        list.join(", ")
    ))
}

struct Token {
    kind: &'static str,
    prefix: &'static str,
    min_len: usize,
    charset: fn(u8) -> bool,
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

fn upper_alnum(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}

fn token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

const TOKENS: &[Token] = &[
    Token {
        kind: "AWS access key id",
        prefix: "AKIA",
        min_len: 16,
        charset: upper_alnum,
    },
    Token {
        kind: "AWS temporary access key id",
        prefix: "ASIA",
        min_len: 16,
        charset: upper_alnum,
    },
    Token {
        kind: "GitHub token",
        prefix: "ghp_",
        min_len: 36,
        charset: alnum,
    },
    Token {
        kind: "GitHub OAuth token",
        prefix: "gho_",
        min_len: 36,
        charset: alnum,
    },
    Token {
        kind: "GitHub app token",
        prefix: "ghs_",
        min_len: 36,
        charset: alnum,
    },
    Token {
        kind: "GitHub fine-grained token",
        prefix: "github_pat_",
        min_len: 40,
        charset: token_char,
    },
    Token {
        kind: "Anthropic API key",
        prefix: "sk-ant-",
        min_len: 32,
        charset: token_char,
    },
    Token {
        kind: "OpenAI API key",
        prefix: "sk-proj-",
        min_len: 32,
        charset: token_char,
    },
    Token {
        kind: "Stripe secret key",
        prefix: "sk_live_",
        min_len: 20,
        charset: alnum,
    },
    Token {
        kind: "Slack bot token",
        prefix: "xoxb-",
        min_len: 20,
        charset: token_char,
    },
    Token {
        kind: "Slack user token",
        prefix: "xoxp-",
        min_len: 20,
        charset: token_char,
    },
    Token {
        kind: "Google API key",
        prefix: "AIza",
        min_len: 35,
        charset: token_char,
    },
];

fn redact(secret: &str) -> String {
    let shown: String = secret.chars().take(6).collect();
    format!("{shown}…")
}

/// Every credential in `text`.
pub fn scan(text: &str) -> Vec<Finding> {
    let bytes = text.as_bytes();
    let mut findings = Vec::new();
    for token in TOKENS {
        let mut from = 0;
        while let Some(pos) = text[from..].find(token.prefix) {
            let start = from + pos;
            let body = start + token.prefix.len();
            let len = bytes[body..]
                .iter()
                .take_while(|b| (token.charset)(**b))
                .count();
            let boundary = start == 0 || !token_char(bytes[start - 1]);
            if boundary && len >= token.min_len {
                findings.push(Finding {
                    kind: token.kind,
                    redacted: redact(&text[start..body + len]),
                });
            }
            from = body;
        }
    }
    if let Some(start) = text.find("-----BEGIN ")
        && text[start..]
            .lines()
            .next()
            .is_some_and(|line| line.contains("PRIVATE KEY-----"))
    {
        findings.push(Finding {
            kind: "private key block",
            redacted: "-----BEGIN …".into(),
        });
    }
    findings.extend(aws_secret(text));
    findings
}

/// `aws_secret_access_key = <40 chars>` in config or env syntax.
fn aws_secret(text: &str) -> Option<Finding> {
    let lower = text.to_ascii_lowercase();
    let at = lower.find("aws_secret_access_key")?;
    let rest = &text[at + "aws_secret_access_key".len()..];
    let value = rest.trim_start_matches([' ', '\t', '"', '\'', '=', ':']);
    let len = value
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'/' || *b == b'+')
        .count();
    (len >= 40).then(|| Finding {
        kind: "AWS secret access key",
        redacted: redact(&value[..len]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_redacts() {
        let key = "AKIAIOSFODNN7EXAMPLE";
        let found = scan(&format!("aws_access_key_id = {key}\n"));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].redacted, "AKIAIO…");
        let reason = answer(&found, "/p/.env").reason().unwrap().to_string();
        assert!(!reason.contains(key), "{reason}");
    }

    #[test]
    fn credential_table() {
        let cases: &[(&str, &str, usize)] = &[
            (
                "aws_secret",
                "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                1,
            ),
            ("private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE", 1),
            ("public_key_ok", "-----BEGIN PUBLIC KEY-----\nMIIB", 0),
            (
                "github",
                "token: ghp_0123456789abcdefghijABCDEFGHIJ012345",
                1,
            ),
            (
                "anthropic",
                "ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
                1,
            ),
            ("slack", "xoxb-123456789012-abcdefghijkl", 1),
            ("short_prefix_ok", "AKIA is a prefix", 0),
            ("embedded_ok", "XAKIAIOSFODNN7EXAMPLE", 0),
            ("plain_ok", "fn main() {}", 0),
        ];
        for (name, text, expected) in cases {
            assert_eq!(scan(text).len(), *expected, "case {name}");
        }
    }
}

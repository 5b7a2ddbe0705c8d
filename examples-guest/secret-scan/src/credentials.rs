//! Credentials in text: cloud keys, private key blocks and API tokens, found by prefix
//! and character class (no regular expressions: every call runs in a fresh instance).
//! The `secrets` guard refuses writes that carry them; hookhost's fleet export redacts
//! them from what leaves the machine ([`redact_all`]) — one list for both.

use std::ops::Range;

/// One credential found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What kind of credential.
    pub kind: &'static str,
    /// A redacted preview: the first few characters, then `…`.
    pub redacted: String,
    /// Where it is in the text scanned (bytes).
    pub span: Range<usize>,
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
                    span: start..body + len,
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
        // To the block's end line, or the end of the text when it is cut short.
        let end = text[start..]
            .find("PRIVATE KEY-----\n")
            .and_then(|first| {
                let after = start + first + 1;
                text[after..]
                    .find("PRIVATE KEY-----")
                    .map(|last| after + last + "PRIVATE KEY-----".len())
            })
            .unwrap_or(text.len());
        findings.push(Finding {
            kind: "private key block",
            redacted: "-----BEGIN …".into(),
            span: start..end,
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
    let from = text.len() - value.len();
    let len = value
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'/' || *b == b'+')
        .count();
    (len >= 40).then(|| Finding {
        kind: "AWS secret access key",
        redacted: redact(&value[..len]),
        span: from..from + len,
    })
}

/// `text` with every credential [`scan`] finds replaced by `[REDACTED <kind>]`.
pub fn redact_all(text: &str) -> String {
    let mut findings = scan(text);
    findings.sort_by_key(|finding| finding.span.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for finding in findings {
        if finding.span.start < at {
            continue; // inside one already replaced
        }
        out.push_str(&text[at..finding.span.start]);
        out.push_str(&format!("[REDACTED {}]", finding.kind));
        at = finding.span.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn redaction_replaces_each_credential_and_keeps_the_rest() {
        let text = "curl -H 'x-api-key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345' AKIAIOSFODNN7EXAMPLE done";
        let out = redact_all(text);
        assert_eq!(
            out,
            "curl -H 'x-api-key: [REDACTED Anthropic API key]' [REDACTED AWS access key id] done"
        );
        let key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----\ntail";
        assert_eq!(redact_all(key), "[REDACTED private key block]\ntail");
        let cut = "x -----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn";
        assert_eq!(redact_all(cut), "x [REDACTED private key block]");
        let aws = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n";
        assert_eq!(
            redact_all(aws),
            "aws_secret_access_key = [REDACTED AWS secret access key]\n"
        );
        assert_eq!(redact_all("fn main() {}"), "fn main() {}");
    }
}

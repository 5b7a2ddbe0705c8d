//! The one place text is cut to a size: by bytes for limits (log lines, error texts) and
//! by characters for display (names, previews, summaries).

/// The longest prefix of `text` of at most `max` bytes that ends on a character
/// boundary.
pub fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `text` cut to `max` characters, with `…` added when anything was cut.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// `text` with the user info of every `scheme://user:password@host` in it replaced by
/// `***`: hook names (command text, prompts) leave the process in reports, `/metrics`,
/// listings and the audit log, and must not carry credentials.
pub fn redact_userinfo(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("://") || !text.contains('@') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        let end = after
            .find(|c: char| c.is_whitespace() || "/?#\"'`<>".contains(c))
            .unwrap_or(after.len());
        let authority = &after[..end];
        match authority.rfind('@') {
            Some(sign) => {
                out.push_str("***");
                out.push_str(&authority[sign..]);
            }
            None => out.push_str(authority),
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_respect_characters() {
        assert_eq!(truncate("héllo", 2), "h");
        assert_eq!(truncate("héllo", 3), "hé");
        assert_eq!(truncate("abc", 10), "abc");
        assert_eq!(shorten("héllo", 2), "hé…");
        assert_eq!(shorten("héllo", 5), "héllo");
    }

    #[test]
    fn user_info_is_redacted_wherever_a_url_appears() {
        assert_eq!(
            redact_userinfo("curl -u x https://ops:PASSWORD@example.com/a?b=1 'ftp://u@h'"),
            "curl -u x https://***@example.com/a?b=1 'ftp://***@h'"
        );
        assert_eq!(redact_userinfo("echo a@b"), "echo a@b");
        assert_eq!(redact_userinfo("http://host/x@y"), "http://host/x@y");
    }
}

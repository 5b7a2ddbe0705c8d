//! Reading a hook input the way real hosts send it: bytes that may not be UTF-8, JSON
//! with lone UTF-16 surrogate escapes (JavaScript strings may hold them), and nesting
//! deeper than serde_json's default limit of 128.
//!
//! Invalid UTF-8 is replaced with U+FFFD, lone surrogate escapes become `\uFFFD`, and
//! nesting is accepted up to [`MAX_DEPTH`]. What still cannot be read is an
//! [`InputError`]; callers decide whether that fails closed.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

/// Deepest nesting of arrays and objects accepted in a hook input.
pub const MAX_DEPTH: usize = 512;

/// Why an input could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// Not JSON, even after repair.
    #[error("the event input is not valid JSON: {0}")]
    Syntax(String),
    /// Nested deeper than [`MAX_DEPTH`].
    #[error("the event input nests deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// JSON, but not an object.
    #[error("the event input must be a JSON object")]
    NotObject,
}

/// Parses a hook input from raw bytes (empty input is `{}`).
pub fn parse(bytes: &[u8]) -> Result<Value, InputError> {
    let text = String::from_utf8_lossy(bytes);
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    if depth(&text) > MAX_DEPTH {
        return Err(InputError::TooDeep);
    }
    let text = repair_surrogates(&text);
    let mut deserializer = serde_json::Deserializer::from_str(&text);
    // Depth is bounded above; serde_json's own recursion limit would stop at 128.
    deserializer.disable_recursion_limit();
    let value = Value::deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value))
        .map_err(|err| InputError::Syntax(err.to_string()))?;
    if !value.is_object() {
        return Err(InputError::NotObject);
    }
    Ok(value)
}

/// The deepest nesting of `[`/`{` outside strings.
pub fn depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for byte in text.bytes() {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Replaces `\uXXXX` escapes of unpaired UTF-16 surrogates with `\uFFFD`.
pub fn repair_surrogates(text: &str) -> Cow<'_, str> {
    if !text.contains("\\u") && !text.contains("\\U") {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let escape_at = |i: usize| -> Option<u16> {
        if bytes.get(i) == Some(&b'\\') && bytes.get(i + 1) == Some(&b'u') {
            let hex = text.get(i + 2..i + 6)?;
            u16::from_str_radix(hex, 16).ok()
        } else {
            None
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut copied = 0;
    let (mut in_string, mut i) = (false, 0);
    while i < bytes.len() {
        let byte = bytes[i];
        if !in_string {
            in_string = byte == b'"';
            i += 1;
            continue;
        }
        match byte {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' => match escape_at(i) {
                Some(unit @ 0xD800..=0xDBFF) => {
                    if matches!(escape_at(i + 6), Some(0xDC00..=0xDFFF)) {
                        i += 12;
                    } else {
                        let _ = unit;
                        out.push_str(&text[copied..i]);
                        out.push_str("\\uFFFD");
                        changed = true;
                        i += 6;
                        copied = i;
                    }
                }
                Some(0xDC00..=0xDFFF) => {
                    out.push_str(&text[copied..i]);
                    out.push_str("\\uFFFD");
                    changed = true;
                    i += 6;
                    copied = i;
                }
                Some(_) => i += 6,
                None => i += 2,
            },
            _ => i += 1,
        }
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// The `hook_event_name` of an input that could not be parsed, if one can be found.
pub fn sniff_event(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let key = "\"hook_event_name\"";
    let at = text.find(key)? + key.len();
    let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let end = rest.find('"')?;
    let name = &rest[..end];
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_are_replaced_and_pairs_kept() {
        let value =
            parse(br#"{"a": "x\ud800y", "b": "\udc00", "c": "\ud83d\ude00", "d": "\\ud800"}"#)
                .unwrap();
        assert_eq!(value["a"], "x\u{FFFD}y");
        assert_eq!(value["b"], "\u{FFFD}");
        assert_eq!(value["c"], "😀");
        assert_eq!(value["d"], "\\ud800");
    }

    #[test]
    fn deep_nesting_up_to_the_cap() {
        let nested = |n: usize| format!("{{\"a\": {}1{}}}", "[".repeat(n), "]".repeat(n));
        assert!(parse(nested(300).as_bytes()).is_ok());
        assert_eq!(
            parse(nested(MAX_DEPTH + 5).as_bytes()),
            Err(InputError::TooDeep)
        );
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let value = parse(b"{\"a\": \"\xff\xfe\"}").unwrap();
        assert_eq!(value["a"], "\u{FFFD}\u{FFFD}");
    }

    #[test]
    fn errors_and_sniffing() {
        assert!(matches!(parse(b"{nope"), Err(InputError::Syntax(_))));
        assert_eq!(parse(b"[1]"), Err(InputError::NotObject));
        assert_eq!(parse(b"  ").unwrap(), serde_json::json!({}));
        assert_eq!(
            sniff_event(br#"{"hook_event_name" : "PreToolUse", broken"#).as_deref(),
            Some("PreToolUse")
        );
        assert_eq!(sniff_event(b"garbage"), None);
    }
}

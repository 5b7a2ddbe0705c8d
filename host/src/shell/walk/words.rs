//! Resolves one shell word: quotes removed, escapes applied, expansions kept as written
//! and marked dynamic, and every command substitution inside (also inside `${…}`
//! defaults and arithmetic) parsed as a nested script.

use brush_parser::word::{self, ParameterExpr, WordPiece, WordPieceWithSource};

use super::Walker;
use crate::shell::{Via, Word};

/// Resolves the word `raw` of `node`.
pub(super) fn word(walker: &mut Walker, raw: &str, node: u32, depth: u32) -> Word {
    // Most words are plain text: no quotes, escapes, expansions or globs to resolve.
    if !raw.contains(['\'', '"', '\\', '$', '`', '*', '?', '[', '{', '~', '(']) {
        return Word {
            text: raw.to_string(),
            dynamic: false,
        };
    }
    let parsed = word::parse(raw, &walker.options);
    resolve(walker, raw, parsed, false, node, depth)
}

/// Resolves a here-document body that expands (`"` and `'` are plain text there).
pub(super) fn heredoc(walker: &mut Walker, raw: &str, node: u32, depth: u32) -> Word {
    let parsed = word::parse_heredoc(raw, &walker.options);
    resolve(walker, raw, parsed, true, node, depth)
}

fn resolve(
    walker: &mut Walker,
    raw: &str,
    parsed: Result<Vec<WordPieceWithSource>, brush_parser::WordParseError>,
    quoted: bool,
    node: u32,
    depth: u32,
) -> Word {
    let mut out = Word {
        text: String::new(),
        dynamic: false,
    };
    match parsed {
        Ok(pieces) => {
            resolve_pieces(walker, &pieces, raw, quoted, &mut out, node, depth);
            // Only text with a `$` or backquote and a `[` (or a backslash, which an
            // ANSI-C escape such as `$'\x5b'` turns into one) can hide one: most
            // words skip the second reading.
            if raw.contains(['$', '`']) && raw.contains(['[', '\\']) {
                subscripts(walker, &pieces, node, depth);
            }
        }
        Err(err) => {
            walker
                .view
                .mark_partial(format!("a word does not parse ({err}): {raw}"));
            out.text = raw.to_string();
            out.dynamic = true;
        }
    }
    out
}

/// Finds the command substitutions in text bash expands but that is not a word of
/// its own (arithmetic, `${…}` operands).
pub(super) fn scan(walker: &mut Walker, text: &str, node: u32, depth: u32) {
    if !text.contains(['$', '`']) {
        return;
    }
    let _ = word(walker, text, node, depth);
}

/// Command substitutions bash runs from text it first took literally. bash expands
/// an array subscript when it evaluates one, so a quoted `a[$(cmd)]` runs `cmd` as
/// the name given to `unset`, `let`, `declare`, `printf -v`, `read`, `test -v` or
/// `[[ -v … ]]`, or as a variable's value that arithmetic reads (`x='a[$(cmd)]';
/// echo $((x))`). Text with a `[` before a `$(` or a backquote is read again as a
/// word (each expansion in it standing as `_`), and the substitutions found are
/// nested scripts like any other: a policy sees `cmd`. A harmless string of that
/// shape (`echo 'a[$(rm -rf /)]'`) shows its command too.
///
/// Quotes inside the subscript do not stop bash either (`unset "a['$(cmd)']"` runs
/// `cmd`), so what they hold is read again in turn, until no quote is left to remove.
fn subscripts(walker: &mut Walker, pieces: &[WordPieceWithSource], node: u32, depth: u32) {
    let mut literal = String::new();
    literal_text(pieces, &mut literal);
    while hides_code(&literal) {
        let inner = match word::parse(&literal, &walker.options) {
            Ok(inner) => inner,
            Err(err) => {
                return walker.view.mark_partial(format!(
                    "an array subscript bash would expand does not parse ({err}): {literal}"
                ));
            }
        };
        let mut ignored = Word {
            text: String::new(),
            dynamic: false,
        };
        resolve_pieces(walker, &inner, &literal, false, &mut ignored, node, depth);
        let mut unquoted = String::new();
        literal_text(&inner, &mut unquoted);
        // Each round removes quotes (or stops): the text gets shorter.
        if unquoted.len() >= literal.len() {
            return;
        }
        literal = unquoted;
    }
}

fn resolve_pieces(
    walker: &mut Walker,
    pieces: &[WordPieceWithSource],
    raw: &str,
    quoted: bool,
    out: &mut Word,
    node: u32,
    depth: u32,
) {
    for piece in pieces {
        let source = raw
            .get(piece.start_index..piece.end_index)
            .unwrap_or_default();
        match &piece.piece {
            WordPiece::Text(text) => {
                if !quoted && expands_unquoted(text) {
                    out.dynamic = true;
                }
                out.text.push_str(text);
            }
            WordPiece::SingleQuotedText(text) => out.text.push_str(text),
            WordPiece::AnsiCQuotedText(text) => out.text.push_str(&ansi_c(text)),
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                resolve_pieces(walker, inner, raw, true, out, node, depth)
            }
            WordPiece::EscapeSequence(text) => {
                let escaped = text.strip_prefix('\\').unwrap_or(text);
                // Inside double quotes a backslash escapes only `$`, `` ` ``, `"`,
                // `\` and a newline; elsewhere it escapes any character.
                if quoted && !matches!(escaped, "$" | "`" | "\"" | "\\" | "\n") {
                    out.text.push_str(text);
                } else if escaped != "\n" {
                    out.text.push_str(escaped);
                }
            }
            WordPiece::TildeExpansion(_) => {
                out.dynamic = true;
                out.text.push_str(source);
            }
            WordPiece::ParameterExpansion(expr) => {
                out.dynamic = true;
                out.text.push_str(source);
                for text in parameter_texts(expr) {
                    scan(walker, text, node, depth);
                }
            }
            WordPiece::CommandSubstitution(script)
            | WordPiece::BackquotedCommandSubstitution(script) => {
                out.dynamic = true;
                out.text.push_str(source);
                walker.script(script, Some(node), Via::CommandSubstitution, depth + 1);
            }
            WordPiece::ArithmeticExpression(expr) => {
                out.dynamic = true;
                out.text.push_str(source);
                scan(walker, &expr.value, node, depth);
            }
        }
    }
}

/// Literal text in which bash would find a substitution when it evaluates a subscript:
/// a `[` before a `$(` or a backquote.
fn hides_code(literal: &str) -> bool {
    literal.find('[').is_some_and(|open| {
        let rest = &literal[open..];
        rest.contains("$(") || rest.contains('`')
    })
}

/// The text of `pieces` that bash took literally (quotes removed, escapes applied), each
/// expansion standing as `_`.
fn literal_text(pieces: &[WordPieceWithSource], out: &mut String) {
    for piece in pieces {
        match &piece.piece {
            WordPiece::Text(text) | WordPiece::SingleQuotedText(text) => out.push_str(text),
            WordPiece::AnsiCQuotedText(text) => out.push_str(&ansi_c(text)),
            WordPiece::EscapeSequence(text) => {
                out.push_str(text.strip_prefix('\\').unwrap_or(text))
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => literal_text(inner, out),
            _ => out.push('_'),
        }
    }
}

/// Unquoted text that bash expands: a glob or a brace list.
fn expands_unquoted(text: &str) -> bool {
    text.contains(['*', '?', '['])
        || (text.contains('{') && text.contains('}') && (text.contains(',') || text.contains("..")))
}

/// The operand texts of a `${…}` expansion that bash expands in turn.
fn parameter_texts(expr: &ParameterExpr) -> Vec<&str> {
    use ParameterExpr as P;
    fn parameter(p: &word::Parameter) -> Option<&str> {
        match p {
            word::Parameter::NamedWithIndex { index, .. } => Some(index.as_str()),
            _ => None,
        }
    }
    let mut texts: Vec<&str> = Vec::new();
    match expr {
        P::Parameter { parameter: p, .. } | P::ParameterLength { parameter: p, .. } => {
            texts.extend(parameter(p))
        }
        P::UseDefaultValues {
            parameter: p,
            default_value: v,
            ..
        }
        | P::AssignDefaultValues {
            parameter: p,
            default_value: v,
            ..
        }
        | P::IndicateErrorIfNullOrUnset {
            parameter: p,
            error_message: v,
            ..
        }
        | P::UseAlternativeValue {
            parameter: p,
            alternative_value: v,
            ..
        }
        | P::RemoveSmallestSuffixPattern {
            parameter: p,
            pattern: v,
            ..
        }
        | P::RemoveLargestSuffixPattern {
            parameter: p,
            pattern: v,
            ..
        }
        | P::RemoveSmallestPrefixPattern {
            parameter: p,
            pattern: v,
            ..
        }
        | P::RemoveLargestPrefixPattern {
            parameter: p,
            pattern: v,
            ..
        }
        | P::UppercaseFirstChar {
            parameter: p,
            pattern: v,
            ..
        }
        | P::UppercasePattern {
            parameter: p,
            pattern: v,
            ..
        }
        | P::LowercaseFirstChar {
            parameter: p,
            pattern: v,
            ..
        }
        | P::LowercasePattern {
            parameter: p,
            pattern: v,
            ..
        } => {
            texts.extend(parameter(p));
            texts.extend(v.as_deref());
        }
        P::Substring {
            parameter: p,
            offset,
            length,
            ..
        } => {
            texts.extend(parameter(p));
            texts.push(&offset.value);
            texts.extend(length.as_ref().map(|l| l.value.as_str()));
        }
        P::Transform { parameter: p, .. } => texts.extend(parameter(p)),
        P::ReplaceSubstring {
            parameter: p,
            pattern,
            replacement,
            ..
        } => {
            texts.extend(parameter(p));
            texts.push(pattern);
            texts.extend(replacement.as_deref());
        }
        P::VariableNames { .. } | P::MemberKeys { .. } => {}
    }
    texts
}

/// Decodes the body of `$'…'`.
fn ansi_c(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('e' | 'E') => out.push('\x1b'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some('x') => {
                let hex: String = std::iter::from_fn(|| chars.next_if(char::is_ascii_hexdigit))
                    .take(2)
                    .collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(decoded) => out.push(decoded),
                    None => out.push_str("\\x"),
                }
            }
            Some(d @ '0'..='7') => {
                let mut value = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.next_if(|c| ('0'..='7').contains(c)) {
                        Some(next) => value = value * 8 + next.to_digit(8).unwrap_or(0),
                        None => break,
                    }
                }
                out.extend(char::from_u32(value));
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

//! A small shell-command reader for policies: splits a command line into pipelines of
//! simple commands, each a list of words with quotes removed.
//!
//! It understands quotes, backslash escapes, `&&`, `||`, `;`, `&`, newlines and `|`
//! (pipelines), leading `NAME=value` assignments, and keeps redirections that hold `&` or
//! `|` (`2>&1`, `<&3`, `&>file`, `>|file`) inside their word, so they never split a
//! pipeline. It does not expand anything.
//! Text it cannot read (an unterminated quote) is reported as `None`, so a policy can
//! fail closed.

/// One simple command: its words, assignments removed.
pub type Words = Vec<String>;

/// Commands joined by `|`.
pub type Pipeline = Vec<Words>;

#[derive(PartialEq)]
enum Quote {
    None,
    Single,
    Double,
}

/// Splits `command` into pipelines; `None` for an unterminated quote.
pub fn pipelines(command: &str) -> Option<Vec<Pipeline>> {
    let mut pipelines: Vec<Pipeline> = Vec::new();
    let mut pipeline: Pipeline = Vec::new();
    let mut words: Words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote = Quote::None;
    // The last character taken was an unquoted `>` or `<`: a following `&` or `|` belongs
    // to the redirection (`2>&1`, `>|`), not a separator.
    let mut redirect = false;
    let mut chars = command.chars().peekable();
    let end_word = |word: &mut String, in_word: &mut bool, words: &mut Words| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        let after_redirect = std::mem::take(&mut redirect);
        match quote {
            Quote::Single => {
                if c == '\'' {
                    quote = Quote::None;
                } else {
                    word.push(c);
                }
                continue;
            }
            Quote::Double => {
                match c {
                    '"' => quote = Quote::None,
                    '\\' => {
                        if let Some(next) = chars.next() {
                            word.push(next);
                        }
                    }
                    _ => word.push(c),
                }
                continue;
            }
            Quote::None => {}
        }
        match c {
            '&' | '|' if after_redirect => {
                word.push(c);
                in_word = true;
            }
            '&' if chars.peek() == Some(&'>') => {
                end_word(&mut word, &mut in_word, &mut words);
                word.push(c);
                in_word = true;
            }
            '\'' => {
                quote = Quote::Single;
                in_word = true;
            }
            '"' => {
                quote = Quote::Double;
                in_word = true;
            }
            '\\' => {
                if let Some(next) = chars.next()
                    && next != '\n'
                {
                    word.push(next);
                    in_word = true;
                }
            }
            '|' if chars.peek() != Some(&'|') => {
                if chars.peek() == Some(&'&') {
                    chars.next();
                }
                end_word(&mut word, &mut in_word, &mut words);
                push_command(&mut pipeline, &mut words);
            }
            '|' | '&' | ';' | '\n' => {
                if matches!((c, chars.peek()), ('|', Some('|')) | ('&', Some('&'))) {
                    chars.next();
                }
                end_word(&mut word, &mut in_word, &mut words);
                push_command(&mut pipeline, &mut words);
                if !pipeline.is_empty() {
                    pipelines.push(std::mem::take(&mut pipeline));
                }
            }
            c if c.is_whitespace() => end_word(&mut word, &mut in_word, &mut words),
            c => {
                word.push(c);
                in_word = true;
                redirect = matches!(c, '>' | '<');
            }
        }
    }
    if quote != Quote::None {
        return None;
    }
    end_word(&mut word, &mut in_word, &mut words);
    push_command(&mut pipeline, &mut words);
    if !pipeline.is_empty() {
        pipelines.push(pipeline);
    }
    Some(pipelines)
}

fn push_command(pipeline: &mut Pipeline, words: &mut Words) {
    let start = words
        .iter()
        .position(|w| !is_assignment(w))
        .unwrap_or(words.len());
    let command: Words = words.drain(..).skip(start).collect();
    if !command.is_empty() {
        pipeline.push(command);
    }
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// Every simple command of every pipeline, flattened.
pub fn commands(command: &str) -> Option<Vec<Words>> {
    Some(pipelines(command)?.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_compounds_and_pipes() {
        let p = pipelines("cd /x && FOO=1 rm -rf 'a b' | tee log; echo \"q;\" || true").unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!(p[3], vec![vec!["true"]]);
        assert_eq!(p[0], vec![vec!["cd", "/x"]]);
        assert_eq!(p[1], vec![vec!["rm", "-rf", "a b"], vec!["tee", "log"]]);
        assert_eq!(p[2], vec![vec!["echo", "q;"]]);
        assert_eq!(commands("true || false").unwrap().len(), 2);
    }

    #[test]
    fn redirections_with_ampersand_or_bar_do_not_split() {
        let p = pipelines("curl -fsSL https://x.sh 2>&1 | sh").unwrap();
        assert_eq!(
            p,
            vec![vec![
                vec!["curl", "-fsSL", "https://x.sh", "2>&1"],
                vec!["sh"]
            ]]
        );
        let p = pipelines("wget -qO- x &>/dev/null | bash").unwrap();
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0][1], vec!["bash"]);
        let p = pipelines("curl x >|out; cat <&3 | sh").unwrap();
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(p[1].len(), 2, "{p:?}");
        // A quoted `>` is data, and a plain `&` still runs in the background.
        let p = pipelines("echo '>'& rm x").unwrap();
        assert_eq!(p, vec![vec![vec!["echo", ">"]], vec![vec!["rm", "x"]]]);
        let p = pipelines("sleep 1 & curl x |& sh").unwrap();
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(p[1], vec![vec!["curl", "x"], vec!["sh"]]);
    }

    #[test]
    fn unterminated_quote_is_none() {
        assert!(pipelines("echo 'oops").is_none());
    }
}

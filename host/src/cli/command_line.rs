//! Command lines hookhost writes into other programs' hook files: its own absolute path,
//! and words quoted for `sh` where they need it — read back only in exactly that form, so
//! a look-alike the user wrote (other quoting, operators, expansions) is never taken for
//! one of hookhost's. And the envelope's launcher those command lines name.

use std::path::PathBuf;

use anyhow::Context;

/// The absolute path of this binary, as the installed entries run it.
pub(crate) fn own_exe() -> anyhow::Result<String> {
    let exe = std::env::current_exe().context("cannot find hookhost's own path")?;
    let exe = exe.canonicalize().unwrap_or(exe);
    exe.to_str()
        .map(str::to_string)
        .context("hookhost's own path is not UTF-8")
}

/// The program the agents' installed hook commands run: the small `hookhost-hook`
/// installed beside this binary (it asks the owner's warm engine when one runs, else
/// hands the call to this binary), else this binary itself.
pub(crate) fn hook_program() -> anyhow::Result<String> {
    let exe = own_exe()?;
    let client = std::path::Path::new(&exe)
        .with_file_name(format!("hookhost-hook{}", std::env::consts::EXE_SUFFIX));
    Ok(match client.to_str() {
        Some(client) if std::path::Path::new(client).is_file() => client.to_string(),
        _ => exe,
    })
}

/// `argv` as one `sh` command line, each word quoted where it needs it.
pub fn line(argv: &[String]) -> String {
    argv.iter()
        .map(|word| quote(word))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of a command line as [`line`] writes them; `None` for any other (other
/// quoting, operators, expansions).
pub fn words(command: &str) -> Option<Vec<String>> {
    unquote(command)
}

/// `word` as one `sh` word: as it is where it needs no quoting, else single-quoted.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%,".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The words of `command` when it is a sequence of words as [`quote`] writes them,
/// separated by one space; `None` for anything else (other quoting, operators,
/// expansions).
fn unquote(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut rest = command;
    while !rest.is_empty() {
        let mut word = String::new();
        loop {
            if let Some(quoted) = rest.strip_prefix('\'') {
                let end = quoted.find('\'')?;
                word.push_str(&quoted[..end]);
                rest = &quoted[end + 1..];
                if let Some(after) = rest.strip_prefix(r"\'") {
                    word.push('\'');
                    rest = after;
                    continue;
                }
            } else {
                let end = rest.find([' ', '\'']).unwrap_or(rest.len());
                let plain = &rest[..end];
                if !plain
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%,".contains(&b))
                {
                    return None;
                }
                word.push_str(plain);
                rest = &rest[end..];
            }
            if rest.is_empty() || rest.starts_with(' ') {
                break;
            }
        }
        words.push(word);
        if let Some(after) = rest.strip_prefix(' ') {
            if after.is_empty() {
                return None;
            }
            rest = after;
        }
    }
    Some(words)
}

/// The envelope's launcher: the small one installed beside this binary, else this binary
/// itself (`hookhost envelope run`).
pub(crate) fn envelope_launcher() -> Option<PathBuf> {
    std::env::current_exe().ok().map(|exe| {
        let small =
            exe.with_file_name(format!("hookhost-envelope{}", std::env::consts::EXE_SUFFIX));
        if small.is_file() { small } else { exe }
    })
}

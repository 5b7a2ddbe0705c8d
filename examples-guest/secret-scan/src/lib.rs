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

pub mod credentials;
pub mod reads;
pub mod secret_files;

pub use credentials::{Finding, scan};
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
            // Every shell command the agent runs (Bash, Monitor, a skill's `!` line).
            _ => command_answer(&call, &allow),
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
}

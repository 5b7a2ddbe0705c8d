//! Which of a command's words it reads as files — command facts, so that a word is a
//! secret file only where a command reads it as one. Naming a file is not reading it
//! (`echo .env >> .gitignore`, `[ -f .env ]`, `chmod 600 .env`, `git rm --cached .env`);
//! a search pattern or a filter is no file (`grep process.env src/`, `jq '.items[].key'`);
//! an option's value is no operand (`git commit -m "update .env.example"`). Shared by the
//! `secrets` and `bash-guard` guests (one source file).

use hookhost_guest::shell::{Command, Word};

/// Programs that name files without reading what is in them.
const NAMES_ONLY: &[&str] = &[
    "ls", "stat", "test", "[", "[[", "file", "rm", "unlink", "touch", "chmod", "chown", "chgrp",
    "mkdir", "echo", "printf", "realpath", "readlink", "basename", "dirname", "du", "export",
];

/// git subcommands that name files without printing what is in them.
const GIT_NAMES_ONLY: &[&str] = &[
    "rm",
    "mv",
    "add",
    "check-ignore",
    "ls-files",
    "status",
    "update-index",
    "restore",
    "reset",
    "clean",
];

/// Programs whose first operand is a pattern or filter, not a file (unless `-e`/`-f`
/// gave the pattern).
const PATTERN_FIRST: &[&str] = &[
    "grep", "egrep", "fgrep", "rg", "ag", "ack", "jq", "yq", "gojq", "jaq",
];

/// Programs whose last operand is where they write (unless `-t DIR` names it).
const LAST_IS_DESTINATION: &[&str] = &["cp", "mv", "install", "ln", "rsync", "scp"];

/// Options (of any program) whose value is the next word: text, never a file to read.
const TEXT_VALUES: &[&str] = &["-m", "--message", "-e", "--regexp", "--author", "--date"];

/// The words `command` reads as files: its operands as the program reads them and its
/// input redirections.
pub fn read_words<'s>(command: &Command<'s>) -> Vec<Word<'s>> {
    let mut read: Vec<Word<'s>> = command
        .redirects()
        .filter(|r| matches!(r.op, "<" | "<>"))
        .map(|r| r.target)
        .collect();
    let name = command.name();
    if NAMES_ONLY.contains(&name) {
        return read;
    }
    let args: Vec<Word<'s>> = command.arg_words().collect();
    if name == "git" {
        let sub = args.iter().find(|w| !w.text.starts_with('-'));
        if sub.is_some_and(|sub| GIT_NAMES_ONLY.contains(&sub.text)) {
            return read;
        }
    }
    let pattern_given = args.iter().any(|w| {
        matches!(w.text, "-e" | "-f" | "--regexp" | "--file") || w.text.starts_with("--regexp=")
    });
    let mut pattern_pending = PATTERN_FIRST.contains(&name) && !pattern_given;
    let target_given = args
        .iter()
        .any(|w| w.text == "-t" || w.text.starts_with("--target-directory"));
    let mut operands = Vec::new();
    let mut skip_value = false;
    let mut options_over = false;
    for word in args {
        if skip_value {
            skip_value = false;
            continue;
        }
        if !options_over && word.text == "--" {
            options_over = true;
            continue;
        }
        if !options_over && word.text.starts_with('-') && word.text.len() > 1 {
            // `--env-file=.env` reads its value.
            match word.text.split_once('=') {
                Some((_, value)) => read.push(Word {
                    text: value,
                    dynamic: word.dynamic,
                }),
                // `-m MSG`, and a short cluster ending in it (`git commit -am MSG`).
                None => {
                    skip_value = TEXT_VALUES.contains(&word.text)
                        || (!word.text.starts_with("--") && word.text.ends_with('m'))
                }
            }
            continue;
        }
        if pattern_pending {
            pattern_pending = false;
            continue;
        }
        operands.push(word);
    }
    if LAST_IS_DESTINATION.contains(&name) && !target_given && operands.len() > 1 {
        operands.pop();
    }
    read.extend(operands);
    read
}

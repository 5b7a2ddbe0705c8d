//! What a simple command runs, read from its words: the program past wrappers (`sudo`,
//! `env`, `timeout`, …), the script a shell reads (`-c TEXT`, its stdin), and command lines
//! other programs run from their arguments (`su -c`, `watch`, `find -exec`, `env -S`).

use super::{Redirect, Word};

/// Programs that read a script: `-c TEXT`, or their stdin when given no script file.
pub(super) const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash"];

/// The last path component of a program name.
pub(crate) fn basename(text: &str) -> &str {
    text.rsplit('/').next().unwrap_or(text)
}

/// Where a shell's script comes from, given its arguments.
pub(super) enum ShellScript {
    /// `-c TEXT`.
    Text(String),
    /// No script file: stdin (also `-s`).
    Stdin,
    /// A script file operand (its index in the arguments), or nothing to run.
    File(Option<usize>),
}

pub(super) fn shell_script(args: &[Word]) -> ShellScript {
    let mut command = false;
    let mut stdin = false;
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        let text = arg.text.as_str();
        at += 1;
        if text == "--" || text == "-" {
            break;
        }
        if text.starts_with("--") {
            // bash's long options that take a value.
            if matches!(text, "--rcfile" | "--init-file") {
                at += 1;
            }
            continue;
        }
        if let Some(flags) = text.strip_prefix('-').or_else(|| text.strip_prefix('+')) {
            if flags.is_empty() {
                break;
            }
            command |= flags.contains('c');
            stdin |= flags.contains('s');
            // `-o NAME` / `-O NAME` take the next word.
            if flags.ends_with('o') || flags.ends_with('O') {
                at += 1;
            }
            continue;
        }
        return if command {
            ShellScript::Text(text.to_string())
        } else if stdin {
            ShellScript::Stdin
        } else {
            ShellScript::File(Some(at - 1))
        };
    }
    if command {
        // `bash -c` with no text is an error in bash; nothing runs.
        ShellScript::File(None)
    } else {
        // Any operand after `--`/`-` is a script file.
        match args.get(at) {
            Some(_) if !stdin => ShellScript::File(Some(at)),
            _ => ShellScript::Stdin,
        }
    }
}

/// The text a here-string or here-document puts on stdin.
pub(super) fn stdin_text(redirects: &[Redirect]) -> Option<String> {
    redirects
        .iter()
        .rev()
        .find(|r| matches!(r.fd, None | Some(0)) && matches!(r.op.as_str(), "<<" | "<<-" | "<<<"))
        .map(|r| r.target.text.clone())
}

/// Commands that run the command in their arguments, with the options of each that take
/// a value.
const WRAPPERS: &[(&str, &[&str])] = &[
    (
        "sudo",
        &["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T"],
    ),
    ("doas", &["-u", "-C"]),
    ("env", &["-u", "-C", "-S", "--unset", "--chdir"]),
    ("command", &[]),
    ("builtin", &[]),
    ("exec", &["-a"]),
    ("nohup", &[]),
    ("time", &["-f", "-o"]),
    ("nice", &["-n"]),
    ("ionice", &["-c", "-n", "-p"]),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"]),
    ("stdbuf", &["-i", "-o", "-e"]),
    ("setsid", &[]),
    ("chrt", &[]),
    (
        "xargs",
        &[
            "-I",
            "-n",
            "-P",
            "-L",
            "-d",
            "-a",
            "-E",
            "-s",
            "--max-args",
            "--max-procs",
            "--delimiter",
            "--arg-file",
        ],
    ),
];

/// The index of the word naming what a simple command finally runs, past wrappers
/// (`sudo -u me env A=1 bash …` → `bash`); none for an empty command.
pub(super) fn program_index(words: &[Word]) -> Option<u32> {
    let mut at = 0usize;
    let mut wrapper = None;
    loop {
        // A wrapper with nothing after it (`sudo`, `env -S '…'`) is the program.
        let Some(word) = words.get(at) else {
            return wrapper;
        };
        let Some((name, valued)) = WRAPPERS
            .iter()
            .find(|(name, _)| *name == basename(&word.text))
        else {
            return Some(at as u32);
        };
        wrapper = Some(at as u32);
        at += 1;
        // `timeout` and `chrt` take a positional value before the command.
        let mut positional = matches!(*name, "timeout" | "chrt");
        while let Some(word) = words.get(at) {
            let text = word.text.as_str();
            if text == "--" {
                at += 1;
                break;
            }
            if text.starts_with('-') && text.len() > 1 {
                at += 1;
                if valued.contains(&text) {
                    at += 1;
                }
            } else if *name == "env" && text.contains('=') {
                at += 1;
            } else if positional {
                positional = false;
                at += 1;
            } else {
                break;
            }
        }
    }
}

/// Command lines a program runs from its arguments: `su -c TEXT` (also `runuser`,
/// `flock`, `script`), `watch ARGS…` (joined, as watch hands them to `sh -c`),
/// `find … -exec ARGV… ;`, and `env -S TEXT` among the wrappers before the program
/// (`before`).
pub(super) fn commands_in_arguments(name: &str, args: &[Word], before: &[Word]) -> Vec<String> {
    let text = |words: &[Word]| {
        words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = Vec::new();
    let mut words = before.iter().chain(args).peekable();
    while let Some(word) = words.next() {
        let w = word.text.as_str();
        if let Some(value) = w.strip_prefix("--split-string=") {
            out.push(value.to_string());
        } else if w == "-S" || w == "--split-string" {
            out.extend(words.peek().map(|next| next.text.clone()));
        } else if let Some(value) = w.strip_prefix("-S").filter(|v| !v.is_empty())
            && before.iter().any(|b| basename(&b.text) == "env")
        {
            out.push(value.to_string());
        }
    }
    match name {
        "su" | "runuser" | "flock" | "script" => {
            for (i, word) in args.iter().enumerate() {
                let w = word.text.as_str();
                if let Some(value) = w.strip_prefix("--command=") {
                    out.push(value.to_string());
                } else if w == "-c" || w == "--command" {
                    out.extend(args.get(i + 1).map(|next| next.text.clone()));
                }
            }
        }
        "watch" => {
            let mut i = 0;
            while args.get(i).is_some_and(|w| w.text.starts_with('-')) {
                i += if matches!(args[i].text.as_str(), "-n" | "--interval") {
                    2
                } else {
                    1
                };
            }
            if let Some(rest) = args.get(i..).filter(|rest| !rest.is_empty()) {
                out.push(text(rest));
            }
        }
        "find" => {
            let mut i = 0;
            while i < args.len() {
                if matches!(
                    args[i].text.as_str(),
                    "-exec" | "-execdir" | "-ok" | "-okdir"
                ) {
                    let start = i + 1;
                    let end = args[start..]
                        .iter()
                        .position(|w| w.text == ";" || w.text == "+")
                        .map_or(args.len(), |p| start + p);
                    // An argv, not a command line: quote each word back.
                    let argv: Vec<String> = args[start..end]
                        .iter()
                        .map(|w| format!("'{}'", w.text.replace('\'', r"'\''")))
                        .collect();
                    out.push(argv.join(" "));
                    i = end;
                }
                i += 1;
            }
        }
        _ => {}
    }
    out
}

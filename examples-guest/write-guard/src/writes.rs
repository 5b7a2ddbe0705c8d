//! What a command writes, and whether a path falls under a protected place.

use hookhost_guest::facts::{
    CHANGES_EVERY_OPERAND, IN_PLACE, WRITES_DESTINATION, edits_in_place, redirect_writes,
};
use hookhost_guest::shell::Command;

/// The paths `command` writes, as written (what a program does with its words is the
/// SDK's command facts, the table hookhost's own self-protection reads too).
pub fn targets(command: &Command) -> Vec<String> {
    let mut out: Vec<String> = command
        .redirects()
        .filter(|redirect| redirect_writes(redirect.op, redirect.target.text))
        .map(|redirect| redirect.target.text.to_string())
        .collect();
    let name = command.name();
    let args: Vec<&str> = command.arg_words().map(|word| word.text).collect();
    let operands = operands(&args);
    if CHANGES_EVERY_OPERAND.contains(&name) {
        out.extend(operands.iter().map(|o| o.to_string()));
    } else if WRITES_DESTINATION.contains(&name) {
        let target_dir = args.iter().enumerate().find_map(|(at, arg)| {
            if *arg == "-t" || *arg == "--target-directory" {
                args.get(at + 1).copied()
            } else {
                arg.strip_prefix("--target-directory=")
            }
        });
        out.extend(target_dir.or(operands.last().copied()).map(str::to_string));
    } else if IN_PLACE.contains(&name) && edits_in_place(args.iter().copied()) {
        out.extend(operands.iter().map(|o| o.to_string()));
    } else if name == "dd" {
        out.extend(
            args.iter()
                .filter_map(|arg| arg.strip_prefix("of="))
                .map(str::to_string),
        );
    }
    out
}

/// The words that are not options (everything after `--`).
fn operands<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut options_done = false;
    for arg in args {
        if !options_done && *arg == "--" {
            options_done = true;
        } else if options_done || !arg.starts_with('-') || *arg == "-" {
            out.push(*arg);
        }
    }
    out
}

/// `path` made absolute against `cwd`, `.` and `..` resolved, separators unified; `None`
/// for a path that starts with something only the shell knows (`~`, `$VAR`).
pub fn normalise(path: &str, cwd: &str) -> Option<String> {
    let path = path.replace('\\', "/");
    if path.starts_with(['~', '$', '`']) {
        return None;
    }
    let drive = path.len() >= 2 && path.as_bytes()[1] == b':';
    let (root, rest) = if drive {
        (path[..2].to_ascii_uppercase(), path[2..].to_string())
    } else if path.starts_with('/') {
        (String::new(), path.clone())
    } else {
        (String::new(), format!("{}/{path}", cwd.replace('\\', "/")))
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    Some(format!("{root}/{}", parts.join("/")))
}

/// The protected place `path` falls under, as (path as written, place as configured).
pub fn protected_by(path: &str, cwd: &str, protected: &[String]) -> Option<(String, String)> {
    let target = normalise(path, cwd)?;
    let windows = target.as_bytes().get(1) == Some(&b':');
    protected.iter().find_map(|place| {
        let base = normalise(place, cwd)?;
        let (target, base) = if windows {
            (target.to_ascii_lowercase(), base.to_ascii_lowercase())
        } else {
            (target.clone(), base)
        };
        let under =
            target == base || target.starts_with(&format!("{}/", base.trim_end_matches('/')));
        under.then(|| (path.to_string(), place.clone()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_under_a_protected_place_however_written() {
        let protected = vec![
            "/etc".to_string(),
            "deploy".to_string(),
            "C:\\Windows".to_string(),
        ];
        let cwd = "/work/p";
        for (path, hit) in [
            ("/etc/passwd", true),
            ("/etc", true),
            ("//etc/./hosts", true),
            ("/tmp/../etc/x", true),
            ("/etcetera", false),
            ("deploy/prod.yml", true),
            ("./deploy", true),
            ("src/../deploy/x", true),
            ("/work/p/deploy/x", true),
            ("src/main.rs", false),
            ("c:\\windows\\system32\\x.dll", true),
            ("C:/Windows/x", true),
            ("~/.bashrc", false),
        ] {
            assert_eq!(protected_by(path, cwd, &protected).is_some(), hit, "{path}");
        }
    }

    #[test]
    fn operands_skip_options() {
        assert_eq!(operands(&["-f", "a", "--", "-b"]), vec!["a", "-b"]);
    }
}

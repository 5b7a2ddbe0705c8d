//! Command facts: what a program does with the words after it, shared by everything that
//! reads a command line — the guards written with this SDK and hookhost's own host
//! (self-protection, `checks-before-commit`), which reads this very file. One table, so
//! that two readers never spell a fact differently.

/// git's own options, before the subcommand, that take the next word as their value
/// (`git -C repo commit`, `git --config-env name=VAR push`).
pub const GIT_OPTIONS_WITH_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--super-prefix",
];

/// The git subcommand of `words` (git's arguments, after `git` itself), past git's own
/// options and their values; `None` when there is none.
pub fn git_subcommand<'a>(words: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut words = words.into_iter();
    loop {
        let word = words.next()?;
        if GIT_OPTIONS_WITH_VALUE.contains(&word) {
            words.next();
        } else if !word.starts_with('-') {
            return Some(word);
        }
    }
}

/// Redirection operators that can open their target for writing (`>&` only onto a file:
/// see [`redirect_writes`]).
pub const WRITING_REDIRECTS: &[&str] = &[">", ">>", ">|", "&>", "&>>", "<>", ">&"];

/// Whether the redirection `op` onto `target` writes a file (`>&2` duplicates a
/// descriptor; `> 2` writes a file named `2`).
pub fn redirect_writes(op: &str, target: &str) -> bool {
    WRITING_REDIRECTS.contains(&op)
        && !(op == ">&" && target.bytes().all(|b| b.is_ascii_digit() || b == b'-'))
}

/// Programs that change or remove every file they name.
pub const CHANGES_EVERY_OPERAND: &[&str] = &[
    "tee", "mv", "rm", "rmdir", "unlink", "shred", "truncate", "touch", "mkdir", "chmod", "chown",
    "chgrp", "chattr", "setfacl", "xattr", "mkfifo", "mknod", "patch",
];

/// Programs that read their sources and write their destination: the last operand, or
/// the folder `-t`/`--target-directory` names.
pub const WRITES_DESTINATION: &[&str] = &["cp", "install", "ln", "link", "rsync", "scp"];

/// Of those (and `mv`), the ones that put their sources into a destination folder.
pub const INTO_FOLDER: &[&str] = &["cp", "mv", "ln", "install", "rsync"];

/// Programs that remove or re-own a folder's whole tree when it is named.
pub const TREE_COMMANDS: &[&str] = &[
    "rm", "rmdir", "mv", "chmod", "chown", "chgrp", "chattr", "rsync", "find", "setfacl",
];

/// The long flags that make `cp` and `rsync` copy whole trees (so do short flags holding
/// `r`, `R` or `a`).
pub const RECURSIVE_FLAGS: &[&str] = &["--recursive", "--archive"];

/// `find` actions that change what it finds (deleting it, or running a program on it).
pub const FIND_ACTIONS: &[&str] = &["-delete", "-exec", "-execdir", "-ok", "-okdir"];

/// Programs that write the files named to them only with an in-place flag.
pub const IN_PLACE: &[&str] = &["sed", "perl", "ruby"];

/// Programs that only read the files named to them (a `find -exec` of one changes
/// nothing it finds).
pub const READ_ONLY_PROGRAMS: &[&str] = &[
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "cat",
    "head",
    "tail",
    "wc",
    "ls",
    "stat",
    "file",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "du",
    "echo",
    "printf",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "test",
    "[",
    "diff",
    "cmp",
    "strings",
    "od",
    "xxd",
    "hexdump",
];

/// Whether `program` (a base name) with `args` writes the files it names: one of the
/// writing programs, `dd` (its `of=`), `find` (its actions), or an in-place editor given
/// its flag (`sed -i`, `perl -pi`, `--in-place`).
pub fn writes_files<'a>(program: &str, args: impl IntoIterator<Item = &'a str>) -> bool {
    CHANGES_EVERY_OPERAND.contains(&program)
        || WRITES_DESTINATION.contains(&program)
        || matches!(program, "dd" | "find")
        || (IN_PLACE.contains(&program) && edits_in_place(args))
}

/// Whether an in-place editor's `args` hold its in-place flag: `--in-place[=…]`, or a
/// short-flag cluster with `i` (`-i`, `-i.bak`, `-pi`, `-ni`).
pub fn edits_in_place<'a>(args: impl IntoIterator<Item = &'a str>) -> bool {
    args.into_iter().any(|arg| {
        arg.starts_with("--in-place")
            || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains('i'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writers_and_redirects_are_told_from_readers() {
        assert!(writes_files("tee", []));
        assert!(writes_files("scp", ["a", "b"]));
        assert!(writes_files("perl", ["-pi", "-e", "s/a/b/", "f"]));
        assert!(writes_files("sed", ["-i.bak", "s/a/b/", "f"]));
        assert!(writes_files("sed", ["--in-place=.b", "s/a/b/", "f"]));
        assert!(!writes_files("sed", ["-n", "p", "f"]));
        assert!(!writes_files("grep", ["-r", "x", "."]));
        assert!(redirect_writes(">", "out"));
        assert!(redirect_writes(">", "2"));
        assert!(redirect_writes(">&", "out.log"));
        assert!(!redirect_writes(">&", "2"));
        assert!(!redirect_writes(">&", "-"));
        assert!(!redirect_writes("<", "in"));
    }

    #[test]
    fn the_subcommand_is_found_past_gits_own_options() {
        for (words, sub) in [
            (&["commit", "-m", "x"][..], Some("commit")),
            (&["-C", "repo", "commit"], Some("commit")),
            (
                &["--config-env", "core.hooksPath=H", "commit"],
                Some("commit"),
            ),
            (&["-c", "a=b", "--no-pager", "push"], Some("push")),
            (&["--version"], None),
        ] {
            assert_eq!(git_subcommand(words.iter().copied()), sub, "{words:?}");
        }
    }
}

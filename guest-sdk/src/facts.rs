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

#[cfg(test)]
mod tests {
    use super::*;

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

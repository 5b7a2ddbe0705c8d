//! Long options as the programs read them: GNU `getopt_long` (rm) and git's option parser
//! both take any unambiguous prefix of a long option (`--rec` is `--recursive`, `--har`
//! is `--hard`), so a guard that compares whole words misses them.

/// `rm`'s long options (GNU coreutils).
pub const RM: &[&str] = &[
    "force",
    "interactive",
    "one-file-system",
    "no-preserve-root",
    "preserve-root",
    "recursive",
    "dir",
    "verbose",
    "help",
    "version",
];

/// `git push`'s long options.
pub const GIT_PUSH: &[&str] = &[
    "all",
    "branches",
    "prune",
    "mirror",
    "dry-run",
    "porcelain",
    "delete",
    "tags",
    "follow-tags",
    "no-follow-tags",
    "signed",
    "no-signed",
    "atomic",
    "no-atomic",
    "push-option",
    "receive-pack",
    "exec",
    "force-with-lease",
    "no-force-with-lease",
    "force-if-includes",
    "no-force-if-includes",
    "force",
    "repo",
    "set-upstream",
    "thin",
    "no-thin",
    "quiet",
    "verbose",
    "progress",
    "no-progress",
    "recurse-submodules",
    "no-recurse-submodules",
    "verify",
    "no-verify",
    "ipv4",
    "ipv6",
];

/// `git reset`'s long options.
pub const GIT_RESET: &[&str] = &[
    "quiet",
    "no-quiet",
    "refresh",
    "no-refresh",
    "soft",
    "mixed",
    "hard",
    "merge",
    "keep",
    "recurse-submodules",
    "no-recurse-submodules",
    "patch",
    "intent-to-add",
    "pathspec-from-file",
    "pathspec-file-nul",
];

/// `git clean`'s long options.
pub const GIT_CLEAN: &[&str] = &["dry-run", "force", "interactive", "quiet", "exclude"];

/// The long option `word` names in `table` (without `--`), as the program reads it: an
/// exact name, else the one option it is a prefix of; `None` for no option, or an
/// ambiguous prefix (which the program refuses). A value after `=` is ignored.
pub fn long<'t>(word: &str, table: &[&'t str]) -> Option<&'t str> {
    let name = word.strip_prefix("--")?;
    let name = name.split_once('=').map_or(name, |(name, _)| name);
    if name.is_empty() {
        return None;
    }
    if let Some(exact) = table.iter().find(|option| **option == name) {
        return Some(exact);
    }
    let mut matches = table.iter().filter(|option| option.starts_with(name));
    match (matches.next(), matches.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unambiguous_prefix_is_the_option() {
        assert_eq!(long("--rec", RM), Some("recursive"));
        assert_eq!(long("--r", RM), Some("recursive"));
        assert_eq!(long("--fo", RM), Some("force"));
        assert_eq!(long("--force", RM), Some("force"));
        assert_eq!(long("--har", GIT_RESET), Some("hard"));
        assert_eq!(long("--force-w", GIT_PUSH), Some("force-with-lease"));
        assert_eq!(
            long("--force-with-lease=main", GIT_PUSH),
            Some("force-with-lease")
        );
        // `--force` is an option of its own, and a prefix of two others.
        assert_eq!(long("--force", GIT_PUSH), Some("force"));
        // Ambiguous: git refuses it.
        assert_eq!(long("--forc", GIT_PUSH), None);
        assert_eq!(long("--p", RM), Some("preserve-root"));
        assert_eq!(long("--", RM), None);
        assert_eq!(long("-r", RM), None);
    }
}

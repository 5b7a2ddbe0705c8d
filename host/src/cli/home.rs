//! Which home an install writes below: the account's, from the password database, unless
//! `--home` names another — never `$HOME`, which an agent's host sets for every hook
//! process. What an install says when the two differ.

use std::path::PathBuf;

/// What an install says when the environment's `$HOME` is not the home it installs for:
/// with no `--home` (`given`), hookhost installs below the account's home from the
/// password database — no variable names the owner's folders — so a `HOME` pointed
/// elsewhere is said to be ignored, with the `--home` that would use it.
pub(crate) fn home_note(given: Option<&std::path::Path>) -> Option<String> {
    note_for_home(
        given,
        std::env::var_os("HOME").map(PathBuf::from),
        hookhost::internals::home(),
    )
}

/// [`home_note`] for the environment's `env_home` and the account's home `account`.
fn note_for_home(
    given: Option<&std::path::Path>,
    env_home: Option<PathBuf>,
    account: Option<PathBuf>,
) -> Option<String> {
    let (env_home, account) = (env_home?, account?);
    let same = |a: &std::path::Path, b: &std::path::Path| {
        a.canonicalize().unwrap_or_else(|_| a.to_path_buf())
            == b.canonicalize().unwrap_or_else(|_| b.to_path_buf())
    };
    (given.is_none() && env_home.is_absolute() && !same(&env_home, &account)).then(|| {
        format!(
            "note: $HOME is {home}, but hookhost installs for this account's home {} (no environment variable names the owner's folders); to install below {home}, run again with --home {home}",
            account.display(),
            home = env_home.display(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_install_says_when_home_is_not_the_accounts_home() {
        let (other, account) = (PathBuf::from("/tmp/elsewhere"), PathBuf::from("/home/u"));
        let note = note_for_home(None, Some(other.clone()), Some(account.clone())).unwrap();
        assert!(note.contains("$HOME is /tmp/elsewhere"), "{note}");
        assert!(note.contains("--home /tmp/elsewhere"), "{note}");
        // Not when HOME is the account's, when --home is given, or HOME is relative.
        assert_eq!(
            note_for_home(None, Some(account.clone()), Some(account.clone())),
            None
        );
        assert_eq!(
            note_for_home(Some(&other), Some(other.clone()), Some(account.clone())),
            None
        );
        assert_eq!(note_for_home(None, Some("rel".into()), Some(account)), None);
    }
}

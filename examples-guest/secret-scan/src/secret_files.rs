//! Files that hold secrets, by name and place: `.env` files (not their `.example`),
//! SSH private keys, key stores, and the credential files of cloud CLIs, package
//! registries and git. A path is judged by its last components, wherever it lies, so
//! `~/.aws/credentials`, `$HOME/.aws/credentials` and `/home/u/.aws/credentials` are one
//! file.

/// Suffixes of an `.env.*` file that is a template, not secrets.
const TEMPLATES: &[&str] = &[
    "example", "sample", "template", "dist", "defaults", "schema",
];

/// Files that hold credentials wherever they lie, by their last components.
const CREDENTIAL_FILES: &[(&str, &str)] = &[
    (".aws/credentials", "AWS credentials"),
    (
        ".config/gcloud/application_default_credentials.json",
        "Google Cloud credentials",
    ),
    (".config/gcloud/credentials.db", "Google Cloud credentials"),
    (
        ".config/gcloud/access_tokens.db",
        "Google Cloud credentials",
    ),
    (".azure/accessTokens.json", "Azure credentials"),
    (".azure/msal_token_cache.json", "Azure credentials"),
    (".docker/config.json", "registry credentials"),
    (".kube/config", "Kubernetes credentials"),
    (".config/gh/hosts.yml", "GitHub CLI tokens"),
    (
        ".terraform.d/credentials.tfrc.json",
        "Terraform credentials",
    ),
    (".netrc", "login credentials"),
    ("_netrc", "login credentials"),
    (".pgpass", "database passwords"),
    (".npmrc", "npm registry tokens"),
    (".pypirc", "PyPI tokens"),
    (".git-credentials", "git credentials"),
    (".vault-token", "a Vault token"),
];

/// Extensions of key stores and private keys.
const KEY_EXTENSIONS: &[&str] = &["pem", "key", "p12", "pfx", "jks", "keystore", "ppk"];

/// What `path` holds, when it is a secret file; `allow` lists names and paths the owner
/// lets through (`.env.test`).
pub fn secret_kind(path: &str, allow: &[String]) -> Option<&'static str> {
    let path = path.trim_end_matches('/');
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    if allow
        .iter()
        .any(|allowed| allowed == name || allowed == path)
    {
        return None;
    }
    if name == ".env" || (name.ends_with(".env") && name.len() > 4) {
        return Some("environment secrets");
    }
    if let Some(suffix) = name.strip_prefix(".env.") {
        let last = suffix.rsplit('.').next().unwrap_or(suffix);
        return (!TEMPLATES.contains(&last)).then_some("environment secrets");
    }
    let normalised: std::borrow::Cow<str> = if path.contains('\\') {
        path.replace('\\', "/").into()
    } else {
        path.into()
    };
    for (tail, kind) in CREDENTIAL_FILES {
        let below = normalised
            .strip_suffix(tail)
            .is_some_and(|rest| rest.is_empty() || rest.ends_with('/'));
        if below || (!tail.contains('/') && name == *tail) {
            return Some(kind);
        }
    }
    let in_ssh = normalised.contains(".ssh/") || normalised.starts_with("ssh/");
    let is_public = name.ends_with(".pub")
        || matches!(
            name,
            "known_hosts" | "known_hosts.old" | "config" | "authorized_keys"
        );
    if (name.starts_with("id_") || in_ssh) && !is_public {
        return Some("an SSH private key");
    }
    let extension = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    if extension.is_some_and(|ext| KEY_EXTENSIONS.contains(&ext.as_str())) {
        return Some("a private key or key store");
    }
    None
}

/// Names of secret files a pattern is tried against.
const SAMPLES: &[&str] = &[
    ".env",
    ".env.local",
    ".env.production",
    "prod.env",
    "id_rsa",
    "id_ed25519",
    "credentials",
    ".netrc",
    ".npmrc",
    ".pgpass",
    ".git-credentials",
    "server.pem",
    "server.key",
    "store.p12",
];

/// Whether a file-name pattern (`.env*`, `*.pem`, `**/id_*`) names secret files: its
/// last component matches a secret file's name, and is more than wildcards.
pub fn pattern_names_secrets(pattern: &str) -> bool {
    glob_match(pattern, &[], false).is_some()
}

/// The secret file a shell glob (`cat .e?v`, `cat ~/.ssh/id_*`, `source .[e]nv`) would
/// reach, by name: its last component, when it is more than wildcards, matches the name
/// of a secret file that `allow` does not let through. As bash expands it, a wildcard at
/// the start of a name does not match a leading dot (`*env` does not reach `.env`).
pub fn glob_names_secret(word: &str, allow: &[String]) -> Option<&'static str> {
    if !word.contains(['*', '?', '[']) {
        return None;
    }
    glob_match(word, allow, true)
}

/// The first sample secret name the last component of `pattern` matches.
fn glob_match(pattern: &str, allow: &[String], leading_dot: bool) -> Option<&'static str> {
    let last = pattern.rsplit('/').next().unwrap_or(pattern);
    if last.trim_matches(['*', '?']).is_empty() {
        return None;
    }
    let hides_dots = leading_dot && last.starts_with(['*', '?', '[']);
    SAMPLES.iter().copied().find(|name| {
        !(hides_dots && name.starts_with('.'))
            && matches(last.as_bytes(), name.as_bytes())
            && secret_kind(name, allow).is_some()
    })
}

/// `*`, `?` and `[…]` glob matching of `name` against `pattern` (`{` taken literally).
fn matches(pattern: &[u8], name: &[u8]) -> bool {
    match (pattern.first(), name.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            matches(&pattern[1..], name) || (!name.is_empty() && matches(pattern, &name[1..]))
        }
        (Some(b'?'), Some(_)) => matches(&pattern[1..], &name[1..]),
        (Some(b'['), Some(n)) => match class(&pattern[1..], *n) {
            Some((true, rest)) => matches(rest, &name[1..]),
            Some((false, _)) => false,
            // No closing `]`: a literal `[`.
            None => *n == b'[' && matches(&pattern[1..], &name[1..]),
        },
        (Some(p), Some(n)) if p == n => matches(&pattern[1..], &name[1..]),
        _ => false,
    }
}

/// A bracket class after its `[` (`a-z]`, `!.]`, `^x]`): whether `byte` is in it, and
/// the pattern after its `]`; `None` when it is not closed.
fn class(pattern: &[u8], byte: u8) -> Option<(bool, &[u8])> {
    let (negated, mut at) = match pattern.first() {
        Some(b'!' | b'^') => (true, 1),
        _ => (false, 0),
    };
    let mut found = false;
    let mut first = true;
    while at < pattern.len() {
        let c = pattern[at];
        if c == b']' && !first {
            return Some((found != negated, &pattern[at + 1..]));
        }
        first = false;
        if pattern.get(at + 1) == Some(&b'-') && pattern.get(at + 2).is_some_and(|e| *e != b']') {
            found |= (c..=pattern[at + 2]).contains(&byte);
            at += 3;
        } else {
            found |= c == byte;
            at += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_files_by_name_and_place() {
        for (path, secret) in [
            (".env", true),
            ("/p/.env", true),
            ("config/.env.local", true),
            (".env.production", true),
            ("prod.env", true),
            (".env.example", false),
            (".env.local.sample", false),
            ("~/.ssh/id_ed25519", true),
            ("/home/u/.ssh/id_rsa", true),
            ("$HOME/.ssh/deploy_key", true),
            ("~/.ssh/id_rsa.pub", false),
            ("~/.ssh/known_hosts", false),
            ("~/.ssh/config", false),
            ("~/.aws/credentials", true),
            ("/root/.aws/credentials", true),
            ("~/.aws/config", false),
            ("~/.netrc", true),
            ("~/.docker/config.json", true),
            ("~/.kube/config", true),
            ("certs/server.key", true),
            ("store.p12", true),
            ("README.md", false),
            ("src/env.rs", false),
            ("environment.md", false),
        ] {
            assert_eq!(secret_kind(path, &[]).is_some(), secret, "{path}");
        }
        assert_eq!(secret_kind(".env.test", &[".env.test".into()]), None);
    }

    #[test]
    fn shell_globs_that_reach_secret_files() {
        for (glob, secret) in [
            (".e*", true),
            (".en?", true),
            (".[e]nv", true),
            (".[a-f]nv", true),
            (".[!e]nv", false),
            ("~/.ssh/id_*", true),
            ("certs/*.pem", true),
            ("*env", true),  // `prod.env`
            ("*.env", true), // the same, never `.env` itself
            ("*", false),
            ("src/*.rs", false),
            ("*.md", false),
            ("tests/fixtures/*", false),
            (".env", false), // no glob: judged as a path
            (".env.exam*", false),
        ] {
            assert_eq!(glob_names_secret(glob, &[]).is_some(), secret, "{glob}");
        }
        // A leading wildcard does not reach a dot file, as in bash.
        assert_eq!(glob_names_secret("*env", &[]), Some("prod.env"));
        assert_eq!(glob_names_secret("?env", &[]), None);
        // The owner's `allow` lets a name through.
        let allow = vec![".env.local".to_string(), ".env.production".to_string()];
        assert_eq!(glob_names_secret(".env.*", &allow), None);
        assert_eq!(glob_names_secret(".env*", &allow), Some(".env"));
    }

    #[test]
    fn patterns_that_name_secret_files() {
        for (pattern, names) in [
            (".env*", true),
            ("**/.env", true),
            ("*.pem", true),
            ("id_*", true),
            ("**/*", false),
            ("*", false),
            ("src/**/*.rs", false),
            ("*.md", false),
        ] {
            assert_eq!(pattern_names_secrets(pattern), names, "{pattern}");
        }
    }
}

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

/// Whether a file-name pattern (`.env*`, `*.pem`, `**/id_*`) names secret files: its
/// last component matches a secret file's name, and is more than wildcards.
pub fn pattern_names_secrets(pattern: &str) -> bool {
    const SAMPLES: &[&str] = &[
        ".env",
        ".env.local",
        "prod.env",
        "id_rsa",
        "id_ed25519",
        "credentials",
        ".netrc",
        ".npmrc",
        ".git-credentials",
        "server.pem",
        "server.key",
        "store.p12",
    ];
    let last = pattern.rsplit('/').next().unwrap_or(pattern);
    if last.trim_matches(['*', '?']).is_empty() {
        return false;
    }
    SAMPLES
        .iter()
        .any(|name| matches(last.as_bytes(), name.as_bytes()))
}

/// `*` and `?` glob matching of `name` against `pattern` (`{`, `[` taken literally).
fn matches(pattern: &[u8], name: &[u8]) -> bool {
    match (pattern.first(), name.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            matches(&pattern[1..], name) || (!name.is_empty() && matches(pattern, &name[1..]))
        }
        (Some(b'?'), Some(_)) => matches(&pattern[1..], &name[1..]),
        (Some(p), Some(n)) if p == n => matches(&pattern[1..], &name[1..]),
        _ => false,
    }
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

//! The owners' HTTP hook policy applied to a URL: `allowedHttpHookUrls` (`*` wildcards,
//! case-insensitive scheme and host, a trailing dot tolerated; an empty list refuses
//! all). Admission checks a hook's configured URL with it; the `http` executor checks
//! every redirect hop again.

use reqwest::Url;

use super::HttpPolicy;
use crate::condition::wildcard;

impl HttpPolicy {
    /// The configured URL `text`, parsed, when it is http(s) and allowed by
    /// `allowedHttpHookUrls` (admission refuses the hook otherwise).
    pub(crate) fn checked_url(&self, text: &str) -> Result<Url, String> {
        let url = Url::parse(text).map_err(|err| format!("invalid URL `{text}`: {err}"))?;
        self.check_url(&url, text)?;
        Ok(url)
    }

    /// `url` is http(s) and allowed by `allowedHttpHookUrls` (`shown`: how to name it).
    pub(crate) fn check_url(&self, url: &Url, shown: &str) -> Result<(), String> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("URL `{shown}` is not http or https"));
        }
        if let Some(patterns) = &self.allowed_urls {
            let normalised = normalise(url);
            if !patterns
                .iter()
                .any(|p| wildcard(&normalise_pattern(p), &normalised, false))
            {
                return Err(format!(
                    "URL `{shown}` is not allowed by allowedHttpHookUrls; not requested"
                ));
            }
        }
        Ok(())
    }
}

fn normalise(url: &Url) -> String {
    let host = url
        .host_str()
        .unwrap_or("")
        .trim_end_matches('.')
        .to_lowercase();
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    let query = url.query().map(|q| format!("?{q}")).unwrap_or_default();
    format!("{}://{host}{port}{}{query}", url.scheme(), url.path())
}

/// Lower-cases a pattern's scheme and host part (the path stays case-sensitive).
fn normalise_pattern(pattern: &str) -> String {
    let Some((scheme, rest)) = pattern.split_once("://") else {
        return pattern.to_lowercase();
    };
    let split = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(split);
    let authority = authority.to_lowercase();
    let authority = match authority.split_once(':') {
        Some((host, port)) => format!("{}:{port}", host.trim_end_matches('.')),
        None => authority.trim_end_matches('.').to_string(),
    };
    format!("{}://{authority}{path}", scheme.to_lowercase())
}

//! The `http` executor: POSTs the hook input as JSON and reads the answer like a
//! command's stdout (reference section 2.4).
//!
//! * The URL must pass the settings' `allowedHttpHookUrls` (when set anywhere; `*`
//!   wildcards, case-insensitive host, trailing dot tolerated; an empty list refuses all).
//!   A refused URL is reported, never requested.
//! * `$VAR` / `${VAR}` in header values expand only for names in the hook's
//!   `allowedEnvVars` (intersected with `httpHookAllowedEnvVars` when set); any other
//!   reference becomes empty. Header values never appear in reports or logs.
//! * 2xx empty → success; 2xx JSON object → parsed like stdout; 2xx other → non-blocking
//!   error; non-2xx or connection failure → non-blocking error; timeout → cancelled.
//!   Bodies are capped; redirects are followed only within the same origin (scheme,
//!   host, port), each hop checked against `allowedHttpHookUrls` again.

use std::sync::Arc;
use std::time::Duration;

use reqwest::{Client, Url};
use serde_json::Value;

use super::{BoxFuture, Executor, HookCall};
use crate::config::{HttpHandler, HttpPolicy};
use crate::dialect::Event;
use crate::outcome::HookRun;
use crate::output::HookAnswer;
use crate::protocol::parse_answer;

/// Largest response body read, bytes.
pub const BODY_CAP: usize = 1024 * 1024;

/// Redirects followed (same origin only).
const MAX_REDIRECTS: usize = 5;

/// Builds the engine's one HTTP client: connection reuse; redirects are not followed by
/// the client but by [`HttpExecutor`], hop by hop, so each is checked.
pub fn client() -> Result<Client, reqwest::Error> {
    Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_idle_timeout(Duration::from_secs(30))
        .user_agent(concat!("hookhost/", env!("CARGO_PKG_VERSION")))
        .build()
}

/// Runs one `http` hook.
pub struct HttpExecutor {
    handler: HttpHandler,
    client: Client,
    policy: Arc<HttpPolicy>,
    /// The URL, parsed and allowed by admission (a refused one never gets here).
    url: Url,
    /// The request method, parsed once (the settings reader validated it).
    method: reqwest::Method,
}

impl HttpExecutor {
    /// An executor for one configured endpoint at `url`, which admission parsed and
    /// checked against the allow list; `policy` checks each redirect.
    pub fn new(handler: HttpHandler, url: Url, client: Client, policy: Arc<HttpPolicy>) -> Self {
        let method =
            reqwest::Method::from_bytes(handler.method.as_bytes()).unwrap_or(reqwest::Method::POST);
        Self {
            handler,
            client,
            policy,
            url,
            method,
        }
    }
}

impl Executor for HttpExecutor {
    fn execute<'a>(&'a self, call: HookCall) -> BoxFuture<'a, HookRun> {
        Box::pin(async move {
            let url = self.url.clone();
            match tokio::time::timeout(call.timeout, self.post(url, &call)).await {
                Ok(result) => result,
                Err(_) => HookRun::timed_out(call.timeout, "request abandoned"),
            }
        })
    }
}

impl HttpExecutor {
    /// Where a redirect from `from` may go: the same origin (scheme, host and port: the
    /// interpolated headers never cross origins) and allowed by `allowedHttpHookUrls`,
    /// checked again on every hop.
    fn redirect_target(&self, from: &Url, location: &str) -> Result<Url, String> {
        let to = from
            .join(location)
            .map_err(|err| format!("redirect to an invalid location: {err}"))?;
        let shown = crate::config::redacted_url(to.as_str());
        if to.origin() != from.origin() {
            return Err(format!("redirect to another origin ({shown}) not followed"));
        }
        self.policy.check_url(&to, &shown)?;
        Ok(to)
    }

    fn allowed_vars(&self) -> Vec<&str> {
        self.handler
            .allowed_env_vars
            .iter()
            .map(String::as_str)
            .filter(|name| match &self.policy.allowed_env_vars {
                Some(global) => global.iter().any(|g| g == name),
                None => true,
            })
            .collect()
    }

    async fn post(&self, url: Url, call: &HookCall) -> HookRun {
        let allowed = self.allowed_vars();
        let method = &self.method;
        let body = call.input.json().to_string();
        let mut url = url;
        let mut hops = 0;
        let response = loop {
            let mut request = self
                .client
                .request(method.clone(), url.clone())
                .header("content-type", "application/json")
                .body(body.clone());
            for (name, value) in &self.handler.headers {
                request = request.header(name.as_str(), interpolate(value, &allowed));
            }
            let response = match request.send().await {
                Ok(response) => response,
                Err(err) => {
                    return HookRun::non_blocking(format!("request failed: {}", describe(&err)));
                }
            };
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok());
            match location {
                Some(location) if response.status().is_redirection() => {
                    hops += 1;
                    if hops > MAX_REDIRECTS {
                        return HookRun::non_blocking("too many redirects");
                    }
                    match self.redirect_target(&url, location) {
                        Ok(next) => url = next,
                        Err(message) => return HookRun::non_blocking(message),
                    }
                }
                _ => break response,
            }
        };
        let status = response.status();
        let body = match read_capped(response).await {
            Ok(body) => body,
            Err(message) => return HookRun::non_blocking(message),
        };
        if status.is_redirection() {
            return HookRun::non_blocking(format!(
                "HTTP {status}: redirect without a location not followed"
            ));
        }
        if !status.is_success() {
            let first = body
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(200)
                .collect::<String>();
            return HookRun::non_blocking(format!("HTTP {status}: {first}"));
        }
        interpret(&body, &call.event)
    }
}

/// What a 2xx body means.
pub fn interpret(body: &str, event: &Event) -> HookRun {
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return HookRun::answer(HookAnswer::default());
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(value @ Value::Object(_)) => match parse_answer(&value, event) {
            Ok(output) => HookRun::answer(output),
            Err(err) => HookRun::non_blocking(err.to_string()),
        },
        _ => HookRun::non_blocking("response body is not a JSON object"),
    }
}

async fn read_capped(mut response: reqwest::Response) -> Result<String, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|err| format!("reading the response failed: {}", describe(&err)))?
    {
        if body.len() + chunk.len() > BODY_CAP {
            return Err(format!("response body exceeds {} KiB", BODY_CAP >> 10));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// A reqwest error without its source chain's noise (it never contains headers).
fn describe(err: &reqwest::Error) -> String {
    let kind = if err.is_connect() {
        "connection failed"
    } else if err.is_timeout() {
        "timed out"
    } else if err.is_redirect() {
        "too many redirects"
    } else {
        "error"
    };
    match std::error::Error::source(err) {
        Some(source) => format!("{kind}: {source}"),
        None => kind.to_string(),
    }
}

/// Expands `$VAR` and `${VAR}` for the allowed names; other references become empty.
pub fn interpolate(value: &str, allowed: &[&str]) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        let (name, consumed) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) => (&braced[..end], end + 2),
                None => ("", 0),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], end)
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        if allowed.contains(&name)
            && let Ok(value) = std::env::var(name)
        {
            out.push_str(&value);
        }
        rest = &after[consumed..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::HookStatus;

    fn allowed(patterns: &[&str], url: &str) -> bool {
        let policy = HttpPolicy {
            allowed_urls: Some(patterns.iter().map(|p| p.to_string()).collect()),
            allowed_env_vars: None,
        };
        policy.checked_url(url).is_ok()
    }

    #[test]
    fn url_allow_list() {
        assert!(allowed(
            &["https://hooks.example.com/*"],
            "https://HOOKS.example.com./x"
        ));
        assert!(allowed(
            &["http://127.0.0.1:*/*"],
            "http://127.0.0.1:8080/hook"
        ));
        assert!(!allowed(
            &["https://hooks.example.com/*"],
            "https://evil.com/https://hooks.example.com/"
        ));
        assert!(!allowed(&[], "https://hooks.example.com/x"));
    }

    #[test]
    fn interpolation_only_for_granted_names() {
        // PATH and HOME exist in every test environment.
        let path = std::env::var("PATH").unwrap();
        assert_eq!(
            interpolate("Bearer $PATH", &["PATH"]),
            format!("Bearer {path}")
        );
        assert_eq!(interpolate("a${PATH}b", &["PATH"]), format!("a{path}b"));
        assert_eq!(interpolate("Bearer $HOME", &["PATH"]), "Bearer ");
        assert_eq!(interpolate("${HOME}x", &[]), "x");
        assert_eq!(interpolate("cost $5 and $", &[]), "cost  and $");
    }

    #[test]
    fn body_semantics() {
        assert_eq!(
            interpret("", &Event::new("Stop")).status,
            HookStatus::Success
        );
        assert_eq!(
            interpret(r#"{"decision":"block","reason":"r"}"#, &Event::new("Stop")).status,
            HookStatus::Blocking
        );
        assert_eq!(
            interpret("ok", &Event::new("Stop")).status,
            HookStatus::NonBlockingError
        );
        assert_eq!(
            interpret("[1]", &Event::new("Stop")).status,
            HookStatus::NonBlockingError
        );
        assert_eq!(
            interpret(r#"{"continue":1}"#, &Event::new("Stop")).status,
            HookStatus::NonBlockingError
        );
    }
}

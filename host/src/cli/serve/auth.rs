//! Who may call: the bearer token (a private file, or one generated on first start), and
//! the refusal of web pages (`Origin`, `Sec-Fetch-Site`, a `Host` that is not loopback).

use super::*;

/// The token in `path`: a private file (readable by no one else), at least 16
/// characters.
pub(crate) fn read_token(path: &Path) -> anyhow::Result<Vec<u8>> {
    use hookhost::internals::platform;
    let file = hookhost::internals::open_regular(path, 4096)
        .with_context(|| format!("cannot read --token-file {}", path.display()))?;
    let meta = file.metadata()?;
    // Someone else's file (planted in a folder others can write) is not our secret.
    anyhow::ensure!(
        platform::owned_by_me(&meta),
        "--token-file {}: owned by another user; refusing a token someone else chose",
        path.display()
    );
    anyhow::ensure!(
        !platform::others_may_access(&meta),
        "--token-file {}: readable by others ({}); make it private: chmod 600",
        path.display(),
        platform::mode_text(&meta)
    );
    let text = std::io::read_to_string(file)
        .with_context(|| format!("cannot read --token-file {}", path.display()))?;
    let token = text.trim();
    anyhow::ensure!(
        token.len() >= 16,
        "--token-file {}: the token must be at least 16 characters",
        path.display()
    );
    Ok(token.as_bytes().to_vec())
}

/// The token of a TCP `serve` started without `--token-file`: `serve-token` in hookhost's
/// configuration folder, generated (32 random bytes, hex, mode 0600) when absent.
pub(super) fn generated_token(config: &ConfigArgs) -> anyhow::Result<Vec<u8>> {
    use hookhost::internals::platform;
    use std::io::Write;
    let Some(dir) = super::super::config_dir(config.home.clone()) else {
        anyhow::bail!(
            "no usable home for the generated token: give --token-file, or --no-auth to serve loopback without one"
        );
    };
    let path = dir.join("serve-token");
    if !path.exists() {
        hookhost::internals::create_private_dir(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let bytes = platform::random_bytes::<32>()
            .map_err(anyhow::Error::msg)
            .context("cannot make the token")?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut file =
            platform::private_file(std::fs::OpenOptions::new().write(true).create_new(true))
                .open(&path)
                .with_context(|| format!("cannot create {}", path.display()))?;
        writeln!(file, "{token}").with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!(
            "hookhost serve: generated a bearer token in {}",
            path.display()
        );
    }
    eprintln!(
        "hookhost serve: clients send `Authorization: Bearer <the token in {}>`",
        path.display()
    );
    read_token(&path)
}

pub(super) fn forbidden(message: &'static str) -> Response {
    (StatusCode::FORBIDDEN, message).into_response()
}

/// Before anything else, on every route: no web page gets in. A request carrying a
/// browser's `Origin` or `Sec-Fetch-Site` is refused (a cross-site form or `fetch`), and
/// on TCP the `Host` must be the listen address or a loopback name (DNS rebinding sends
/// the attacker's own name).
pub(super) async fn same_origin(
    State(server): State<Arc<Server>>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    if headers.contains_key(header::ORIGIN) || headers.contains_key("sec-fetch-site") {
        server.metrics.rejected_auth.fetch_add(1, Ordering::Relaxed);
        return forbidden("requests from web pages are refused\n");
    }
    let hosts = server.hosts.get().map(Vec::as_slice).unwrap_or_default();
    if !hosts.is_empty() {
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !hosts
            .iter()
            .any(|allowed| allowed.eq_ignore_ascii_case(host))
        {
            server.metrics.rejected_auth.fetch_add(1, Ordering::Relaxed);
            return forbidden("this Host is not the address hookhost serve listens on\n");
        }
    }
    next.run(request).await
}

/// The bearer token, before any hook can run or any state is read.
pub(super) async fn authorize(
    State(server): State<Arc<Server>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(expected) = &server.token {
        use subtle::ConstantTimeEq;
        let given = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::as_bytes)
            .unwrap_or_default();
        // Lengths differ only when the token is wrong; the comparison itself is constant
        // time over the expected length.
        let ok = given.len() == expected.len() && bool::from(given.ct_eq(expected));
        if !ok {
            server.metrics.rejected_auth.fetch_add(1, Ordering::Relaxed);
            if request.uri().path() == "/hooks" {
                return unauthorized_hook(&server, request).await;
            }
            let mut response =
                (StatusCode::UNAUTHORIZED, "missing or wrong bearer token\n").into_response();
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return response;
        }
    }
    next.run(request).await
}

/// A Claude Code HTTP hook call without the right token. Claude Code reads any non-2xx
/// answer as "proceed", and the token it sends comes from its environment, which a
/// repository's `env` setting fills: a 401 would let the repository switch the guard off.
/// So the call goes through the front door's refusal (the owner's engine judges the event
/// sniffed from the bounded body): a block when a failClosed hook guards the event, the
/// 401 otherwise. No hook runs and nothing of the body is kept.
async fn unauthorized_hook(server: &Server, request: Request) -> Response {
    let head = match super::routes::read_body(server, request).await {
        Ok(bytes) => bytes,
        Err((_, head)) => head,
    };
    match server
        .engine()
        .refuse(None, &head, Failure::Unauthorized)
        .into_result()
    {
        Ok(outcome) => axum::Json(super::routes::http_answer(&outcome)).into_response(),
        Err(failure) => super::routes::failure_response(&failure),
    }
}

//! The routes: a bounded body read before any slot, the front door, and each route's
//! answer (Claude Code's HTTP-hook answer, the whole outcome, metrics, diagnostics).

use super::*;

/// Reads a request body: at most `--max-body` bytes are kept (one more tells oversize),
/// all within `--body-timeout`; no call slot is held meanwhile. The rest of an oversize
/// body is read and dropped (up to [`DRAIN_CAP`]), so the answer — a deny under a
/// failClosed guard — reaches a client still writing, instead of a reset connection it
/// would read as "proceed". On failure, what was kept comes back with it (to find the
/// event in).
pub(super) async fn read_body(
    server: &Server,
    request: Request,
) -> Result<Vec<u8>, (Failure, Vec<u8>)> {
    use http_body_util::BodyExt;
    let limit = server.limits.max_body;
    let oversize = Failure::Oversize { limit };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > DRAIN_CAP as u64) {
        return Err((oversize, Vec::new()));
    }
    let mut body = request.into_body();
    let mut bytes = Vec::new();
    let mut seen = 0usize;
    let read = async {
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else { break };
            if let Some(data) = frame.data_ref() {
                seen = seen.saturating_add(data.len());
                let room = (limit + 1).saturating_sub(bytes.len());
                bytes.extend_from_slice(&data[..data.len().min(room)]);
                if seen > DRAIN_CAP {
                    break;
                }
            }
        }
    };
    if tokio::time::timeout(server.body_timeout, read)
        .await
        .is_err()
    {
        bytes.truncate(limit);
        return Err((Failure::SlowBody(server.body_timeout), bytes));
    }
    if bytes.len() > limit {
        bytes.truncate(limit);
        return Err((oversize, bytes));
    }
    Ok(bytes)
}

/// The most of an oversize body `serve` reads (and drops) so its answer can be delivered.
pub(super) const DRAIN_CAP: usize = 64 << 20;

/// The HTTP status of a failure no failClosed hook guards.
pub(super) fn failure_response(failure: &Failure) -> Response {
    let status = match failure {
        Failure::Oversize { .. } => StatusCode::PAYLOAD_TOO_LARGE,
        Failure::SlowBody(_) => StatusCode::REQUEST_TIMEOUT,
        Failure::Overload(_) => StatusCode::SERVICE_UNAVAILABLE,
        Failure::ForeignProject { .. } => StatusCode::FORBIDDEN,
        Failure::Unauthorized => StatusCode::UNAUTHORIZED,
        Failure::Unreadable(_) | Failure::NoEvent(_) => StatusCode::BAD_REQUEST,
        // Internal, and any failure a later version adds.
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let mut response =
        (status, axum::Json(json!({ "error": failure.to_string() }))).into_response();
    match failure {
        Failure::Overload(_) => {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        Failure::Unauthorized => {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        _ => {}
    }
    response
}

/// One HTTP call: body, slot, answer; `render` turns an outcome into the 200 answer.
pub(super) async fn door(
    server: &Server,
    event: Option<&str>,
    request: Request,
    render: fn(&EventOutcome) -> Value,
) -> Response {
    let body = read_body(server, request).await;
    let answer = match &body {
        Ok(bytes) => server.answer(event, Ok(bytes)).await,
        Err((failure, head)) => server.answer(event, Err((failure.clone(), head))).await,
    };
    match answer.into_result() {
        Ok(outcome) => axum::Json(render(&outcome)).into_response(),
        Err(failure) => failure_response(&failure),
    }
}

/// `POST /hooks`: the answer a Claude Code HTTP hook gives.
pub(super) async fn claude_hook(State(server): State<Arc<Server>>, request: Request) -> Response {
    door(&server, None, request, http_answer).await
}

/// The Claude Code answer as an HTTP hook gives it: the JSON form of every decision (an
/// HTTP hook has no exit code: a block the command form expresses by exit 2 is a
/// top-level `decision: "block"`), and WorktreeCreate's path as `worktreePath`.
pub(super) fn http_answer(outcome: &EventOutcome) -> Value {
    let answer = outcome.to_claude_reply();
    let mut body = answer.stdout;
    if let Some(map) = body.as_object_mut() {
        if answer.exit_code == 2 {
            map.insert("decision".into(), json!("block"));
            map.insert("reason".into(), json!(answer.stderr.unwrap_or_default()));
        }
        if let Some(path) = &outcome.worktree_path {
            map.insert(
                "hookSpecificOutput".into(),
                json!({"hookEventName": outcome.event, "worktreePath": path}),
            );
        }
    }
    body
}

#[derive(serde::Deserialize)]
pub(super) struct FireQuery {
    event: Option<String>,
}

/// `POST /v1/agent/NAME`: another agent's hook input, normalised as `hookhost hook --agent
/// NAME` does, each of its inputs through the front door, answered in that agent's form
/// (what its hook command prints and exits with). Failures are answered in-band too: a
/// deny where a failClosed hook guards.
pub(super) async fn agent_hook(
    State(server): State<Arc<Server>>,
    axum::extract::Path(name): axum::extract::Path<String>,
    Query(query): Query<FireQuery>,
    request: Request,
) -> Response {
    let Some(agent) = hookhost::Agent::parse(&name) else {
        let error = json!({"error": format!("unknown agent `{name}`")});
        return (StatusCode::NOT_FOUND, axum::Json(error)).into_response();
    };
    let body = read_body(&server, request).await;
    let call = hookhost::AgentCall::read(
        agent,
        query.event.as_deref(),
        body.as_deref().map_err(|(failure, _)| failure.clone()),
        &server.limits,
    );
    let reply = server
        .engine()
        .answer_agent_with(&call, |event, input| {
            let server = &server;
            async move { server.answer_input(&event, input).await }
        })
        .await;
    axum::Json(json!({"stdout": reply.stdout, "stderr": reply.stderr, "exitCode": reply.exit_code}))
        .into_response()
}

/// `POST /v1/fire`: the whole outcome.
pub(super) async fn fire_outcome(
    State(server): State<Arc<Server>>,
    Query(query): Query<FireQuery>,
    request: Request,
) -> Response {
    let whole = |outcome: &EventOutcome| serde_json::to_value(outcome).unwrap_or(Value::Null);
    door(&server, query.event.as_deref(), request, whole).await
}

pub(super) async fn metrics(State(server): State<Arc<Server>>) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4"),
    );
    (headers, server.metrics.render(&server.engine())).into_response()
}

pub(super) async fn diagnostics(State(server): State<Arc<Server>>) -> Response {
    let engine = server.engine();
    axum::Json(json!({
        "dialect": engine.dialect().name,
        "diagnostics": engine.diagnostics(),
        "refused_reload": *lock(&server.refused_reload),
    }))
    .into_response()
}

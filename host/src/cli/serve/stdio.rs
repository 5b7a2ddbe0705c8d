//! `--stdio`: JSON lines in, JSON lines out, each line bounded and through the front door.

use super::*;

/// `--stdio`: JSON lines in, JSON lines out.
pub(super) async fn stdio(server: Arc<Server>) -> CliResult {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    // Pipes are read and written on the runtime's poller (no blocking-thread hop per line).
    // `_modes` puts the pipes' modes back when this returns.
    let (stdin, mut stdout, _modes) = hookhost::internals::platform::async_stdio();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            if stdout.write_all(line.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let mut reader = BufReader::new(stdin);
    let mut tasks = tokio::task::JoinSet::new();
    // A request line is held to the body limit plus room for the envelope; the rest of an
    // over-long line is read and dropped, never kept.
    let cap = server.limits.max_body + 4096;
    loop {
        let mut line = Vec::new();
        let mut oversize = false;
        let mut ended = false;
        loop {
            let chunk = reader.fill_buf().await.context("cannot read stdin")?;
            if chunk.is_empty() {
                ended = true;
                break;
            }
            let (part, newline) = match chunk.iter().position(|b| *b == b'\n') {
                Some(at) => (&chunk[..at], true),
                None => (chunk, false),
            };
            let room = (cap + 1).saturating_sub(line.len());
            line.extend_from_slice(&part[..part.len().min(room)]);
            oversize |= line.len() > cap;
            let used = part.len() + usize::from(newline);
            reader.consume(used);
            if newline {
                break;
            }
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            let (server, tx) = (server.clone(), tx.clone());
            tasks.spawn(async move {
                let answer = stdio_answer(&server, &line, oversize).await;
                let _ = tx.send(format!("{answer}\n"));
            });
        }
        if ended {
            break;
        }
    }
    while tasks.join_next().await.is_some() {}
    drop(tx);
    let _ = writer.await;
    server.engine().close().await;
    Ok(std::process::ExitCode::SUCCESS)
}

/// One `--stdio` request line through the front door.
pub(super) async fn stdio_answer(server: &Server, line: &[u8], oversize: bool) -> Value {
    let limit = server.limits.max_body;
    let failed = |id: Value, failure: Failure, head: &[u8]| {
        let answer = server.engine().refuse(None, head, failure);
        stdio_line(id, answer)
    };
    if oversize {
        return failed(Value::Null, Failure::Oversize { limit }, line);
    }
    let request: Value = match hookhost::internals::parse_input(line) {
        Ok(request) => request,
        Err(err) => return failed(Value::Null, Failure::Unreadable(err.to_string()), line),
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let Some(input) = request.get("input") else {
        return failed(
            id,
            Failure::Unreadable("the request has no `input`".into()),
            line,
        );
    };
    let event = request.get("event").and_then(Value::as_str);
    let body = serde_json::to_vec(input).unwrap_or_default();
    stdio_line(id, server.answer(event, Ok(&body)).await)
}

pub(super) fn stdio_line(id: Value, answer: Answer) -> Value {
    match answer.into_result() {
        Ok(outcome) => json!({"id": id, "outcome": outcome}),
        Err(failure) => json!({"id": id, "error": failure.to_string()}),
    }
}

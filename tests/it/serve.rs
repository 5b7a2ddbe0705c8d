//! `hookhost serve` as a process: real sockets, a Claude Code–shaped client (an `http`
//! hook of a second engine pointing at the server), auth, overload, reload under load,
//! SIGTERM drain and stdio.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hookhost::Engine;
use hookhost_tests::client::post_with_token;
use hookhost_tests::{TestEnv, guests, hooks, wasm};
use serde_json::{Value, json};

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");

pub(crate) use hookhost_tests::serve::Served;

/// `GET /v1/diagnostics` of `served`, as JSON.
pub(crate) async fn diagnostics(served: &Served, client: &reqwest::Client) -> Value {
    client
        .get(served.url("/v1/diagnostics"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// `serve` over `settings` only (no discovery, the test's managed file), with `extra`;
/// on loopback TCP without a token file it runs `--no-auth` (the token and Host checks
/// have tests of their own).
pub(crate) fn spawn(env: &TestEnv, settings: &Path, extra: &[&str]) -> Result<Served, String> {
    let settings = settings.to_str().unwrap();
    let managed = env.managed_path();
    let mut args = vec![
        "--no-discover",
        "--settings",
        settings,
        "--managed-settings",
        managed.to_str().unwrap(),
    ];
    args.extend(extra);
    if extra.iter().any(|a| a.starts_with("127.0.0.1")) && !extra.contains(&"--token-file") {
        args.push("--no-auth");
    }
    Served::start(CLI, &std::env::current_dir().unwrap(), &args, &[])
}

/// `serve` on `listen` with the token `s3cret-token-0123456789` in a private file.
fn spawn_with_token(env: &TestEnv, settings: &Path, listen: &str) -> Served {
    let token_file = env.write("token", "s3cret-token-0123456789\n");
    std::fs::set_permissions(
        &token_file,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    let token = token_file.to_str().unwrap();
    spawn(env, settings, &["--listen", listen, "--token-file", token]).unwrap()
}

pub(crate) fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

fn rm(command: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/tmp",
           "tool_name": "Bash", "tool_input": {"command": command}})
}

fn guard_settings(env: &TestEnv) -> std::path::PathBuf {
    env.settings(
        "serve.json",
        hooks(
            "PreToolUse",
            Some("Bash"),
            vec![wasm(guests::BASH_GUARD, json!({}))],
        ),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_answers_claude_code_http_hooks_and_outcomes() {
    let env = TestEnv::new();
    let served = spawn(&env, &guard_settings(&env), &["--listen", "127.0.0.1:0"]).unwrap();
    let http = client();
    // POST /hooks: the Claude Code HTTP-hook answer.
    let answer: Value =
        hookhost_tests::client::post_json(&http, format!("{}/hooks", served.addr), &rm("rm -rf /"))
            .await;
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    // POST /v1/fire: the outcome, event from the query.
    let outcome: Value = hookhost_tests::client::post_json(
        &http,
        format!("{}/v1/fire?event=PreToolUse", served.addr),
        &json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    )
    .await;
    assert_eq!(outcome["should_block"], false, "{outcome}");
    assert_eq!(outcome["hooks"][0]["status"], "success");
    // Bad bodies are a 400 naming the problem, never a hook call.
    let bad = http
        .post(format!("{}/v1/fire", served.addr))
        .body("[1, 2]")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    let health = http
        .get(format!("{}/healthz", served.addr))
        .send()
        .await
        .unwrap();
    assert_eq!(health.text().await.unwrap(), "ok");
    let metrics = hookhost_tests::client::get_text(&http, format!("{}/metrics", served.addr)).await;
    for line in [
        "hookhost_calls_total{event=\"PreToolUse\",decision=\"deny\"} 1",
        "hookhost_calls_total{event=\"PreToolUse\",decision=\"none\"} 1",
        "hookhost_hook_results_total{hook=\"bash_guard.wasm\",status=\"blocking\"} 1",
        "hookhost_call_duration_seconds_count 2",
        "hookhost_wasm_cache_memory_hits_total",
    ] {
        assert!(metrics.contains(line), "{line} missing:\n{metrics}");
    }
    let diagnostics = diagnostics(&served, &http).await;
    assert_eq!(diagnostics["dialect"], "claude");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_http_hook_pointing_at_serve_is_a_drop_in() {
    let env = TestEnv::new();
    let served = spawn(&env, &guard_settings(&env), &["--listen", "127.0.0.1:0"]).unwrap();
    // The client is what Claude Code would run: an `http` hook on the documented input.
    let host = TestEnv::new();
    let engine: Engine = host.engine(hooks(
        "PreToolUse",
        Some("Bash"),
        vec![json!({"type": "http", "url": format!("{}/hooks", served.addr)})],
    ));
    let outcome = engine.execute("PreToolUse", rm("rm -rf /")).await;
    assert!(outcome.should_block, "{outcome:?}");
    assert_eq!(
        outcome.permission_decision,
        Some(hookhost::PermissionDecision::Deny)
    );
    let outcome = engine.execute("PreToolUse", rm("cargo test")).await;
    assert!(!outcome.should_block, "{outcome:?}");
    assert_eq!(outcome.counts.success, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_loopback_needs_a_token_and_a_wrong_token_reaches_no_hook() {
    let env = TestEnv::new();
    let marker = env.root.join("hook-ran");
    let settings = env.hook_file(
        "touch.json",
        "Stop",
        vec![hookhost_tests::command(&format!(
            "touch {}",
            marker.display()
        ))],
    );
    let refused = spawn(&env, &settings, &["--listen", "0.0.0.0:0"])
        .err()
        .unwrap();
    assert!(refused.contains("--token-file"), "{refused}");
    let served = spawn_with_token(&env, &settings, "0.0.0.0:0");
    let port = served.addr.rsplit(':').next().unwrap().to_string();
    let url = format!("http://127.0.0.1:{port}/v1/fire?event=Stop");
    let http = client();
    for token in [None, Some("wrong"), Some("s3cret-token-012345678")] {
        let mut request = http.post(&url).json(&json!({}));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401, "{token:?}");
    }
    assert!(!marker.exists(), "a refused request ran a hook");
    let response = http
        .post(&url)
        .bearer_auth("s3cret-token-0123456789")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(marker.exists());
}

/// Issue 42: Claude Code sends the token from its environment, which a repository's `env`
/// setting fills, and reads a 401 as "proceed". On `/hooks`, a missing or wrong token is
/// answered as a block when a failClosed hook guards the event — the guard here allows
/// (and records that it ran), so only the refusal can produce the block — and as a 401
/// when none does; no hook runs either way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_token_on_hooks_blocks_a_fail_closed_event_and_runs_no_hook() {
    let env = TestEnv::new();
    let marker = env.root.join("hook-ran");
    let allow = |fail_closed: bool| {
        let mut hook = hookhost_tests::command(&format!("touch {}", marker.display()));
        hook["failClosed"] = json!(fail_closed);
        hook
    };
    let settings = env.settings(
        "allow.json",
        json!({
            "PreToolUse": [{"matcher": "Bash", "hooks": [allow(true)]}],
            "Stop": [{"hooks": [allow(false)]}],
        }),
    );
    let served = spawn_with_token(&env, &settings, "127.0.0.1:0");
    let http = client();
    let url = format!("{}/hooks", served.addr);
    for token in [None, Some(""), Some("wrong-token-0123456789")] {
        let (status, body) = post_with_token(&http, &url, token, &rm("ls")).await;
        assert_eq!(status, 200, "{token:?}");
        let answer = &body["hookSpecificOutput"];
        assert_eq!(answer["permissionDecision"], "deny", "{token:?}: {body}");
        assert!(
            answer["permissionDecisionReason"]
                .to_string()
                .contains("bearer token"),
            "{token:?}: {body}"
        );
        let stop = json!({"hook_event_name": "Stop", "session_id": "s", "cwd": "/tmp"});
        let (status, _) = post_with_token(&http, &url, token, &stop).await;
        assert_eq!(status, 401, "an unguarded event keeps the 401");
    }
    // /v1/fire is not Claude Code's door: a plain 401.
    let fire = format!("{}/v1/fire", served.addr);
    let (status, _) = post_with_token(&http, fire, None, &rm("ls")).await;
    assert_eq!(status, 401);
    assert!(!marker.exists(), "a request without the token ran a hook");
    let token = Some("s3cret-token-0123456789");
    let (_, ok) = post_with_token(&http, &url, token, &rm("ls")).await;
    assert_ne!(
        ok["hookSpecificOutput"]["permissionDecision"], "deny",
        "{ok}"
    );
    assert!(marker.exists(), "the authorised call ran the hook");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overload_is_a_503_with_retry_after_never_a_dropped_connection() {
    let env = TestEnv::new();
    let settings = env.hook_file(
        "slow.json",
        "Stop",
        vec![hookhost_tests::command("cat >/dev/null; sleep 1")],
    );
    let served = spawn(
        &env,
        &settings,
        &[
            "--listen",
            "127.0.0.1:0",
            "--max-concurrent",
            "1",
            "--queue-wait",
            "100",
        ],
    )
    .unwrap();
    let http = client();
    let url = format!("{}/v1/fire?event=Stop", served.addr);
    let slow = tokio::spawn({
        let (http, url) = (http.clone(), url.clone());
        async move { post_with_token(&http, url, None, &json!({})).await.0 }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let busy = http.post(&url).json(&json!({})).send().await.unwrap();
    assert_eq!(busy.status(), 503);
    assert_eq!(busy.headers()["retry-after"], "1");
    assert_eq!(slow.await.unwrap(), 200);
    // A body over the cap is refused before any hook.
    let huge = http
        .post(&url)
        .body(format!("{{\"x\":\"{}\"}}", "a".repeat(2 << 20)))
        .send()
        .await
        .unwrap();
    assert_eq!(huge.status(), 413);
}

fn context_settings(text: &str) -> String {
    json!({"hooks": {"Stop": [{"hooks": [{"type": "command",
        "command": format!("cat >/dev/null; echo '{{\"systemMessage\":\"{text}\"}}'")}]}]}})
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_under_load_fails_no_request_and_a_broken_config_keeps_the_old_engine() {
    let env = TestEnv::new();
    let settings = env.write("reload.json", &context_settings("one"));
    let served = spawn(&env, &settings, &["--listen", "127.0.0.1:0"]).unwrap();
    let http = client();
    let url = format!("{}/v1/fire?event=Stop", served.addr);
    let message = |outcome: &Value| outcome["system_message"].as_str().unwrap_or("").to_string();
    // Load: four clients firing without pause while the configuration changes.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut load = Vec::new();
    for _ in 0..4 {
        let (http, url, stop) = (http.clone(), url.clone(), stop.clone());
        load.push(tokio::spawn(async move {
            let (mut ok, mut failed) = (0, 0);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                match http.post(&url).json(&json!({})).send().await {
                    Ok(r) if r.status() == 200 => ok += 1,
                    _ => failed += 1,
                }
            }
            (ok, failed)
        }));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    std::fs::write(&settings, context_settings("two")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let outcome: Value = hookhost_tests::client::post_json(&http, &url, &json!({})).await;
        if message(&outcome) == "two" {
            break;
        }
        assert!(Instant::now() < deadline, "the change was never picked up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (mut ok, mut failed) = (0, 0);
    for task in load {
        let (o, f) = task.await.unwrap();
        ok += o;
        failed += f;
    }
    assert!(ok > 20, "only {ok} requests under load");
    assert_eq!(failed, 0, "{failed} requests failed during the reload");
    // A broken file: the old engine stays and the refusal is reported.
    std::fs::write(&settings, "{ not json").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let diagnostics = diagnostics(&served, &http).await;
        if diagnostics["refused_reload"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
        {
            assert!(
                diagnostics["refused_reload"][0]
                    .as_str()
                    .unwrap()
                    .contains("invalid JSON")
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the broken file was not reported"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let outcome: Value = hookhost_tests::client::post_json(&http, &url, &json!({})).await;
    assert_eq!(message(&outcome), "two", "the old engine must stay");
    let metrics = hookhost_tests::client::get_text(&http, format!("{}/metrics", served.addr)).await;
    hookhost_tests::assert_says(&metrics, "hookhost_reload_failures_total 1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_calls_in_flight_finish_and_exits_zero() {
    let env = TestEnv::new();
    let settings = env.hook_file(
        "slow.json",
        "Stop",
        vec![hookhost_tests::command(
            r#"cat >/dev/null; sleep 0.7; echo '{"systemMessage":"finished"}'"#,
        )],
    );
    let mut served = spawn(&env, &settings, &["--listen", "127.0.0.1:0"]).unwrap();
    let http = client();
    let url = format!("{}/v1/fire?event=Stop", served.addr);
    let in_flight = tokio::spawn({
        let http = http.clone();
        async move { hookhost_tests::client::post_json(&http, url, &json!({})).await }
    });
    tokio::time::sleep(Duration::from_millis(250)).await;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(served.child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let outcome = in_flight.await.unwrap();
    assert_eq!(outcome["system_message"], "finished");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = served.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "serve did not exit after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
}

/// `serve --stdio` with `stdin` and `stdout` as `settings`' engine, the rest of the
/// standard arguments given.
fn stdio_command(env: &TestEnv, settings: &Path) -> Command {
    let mut command = Command::new(CLI);
    command
        .args(["serve", "--stdio", "--no-discover", "--settings"])
        .arg(settings)
        .arg("--managed-settings")
        .arg(env.managed_path())
        .stderr(Stdio::null());
    command
}

/// Over pipes, `--stdio` reads and writes through the runtime's poller, which puts the
/// pipes in non-blocking mode; that mode belongs to the open pipe, which the parent may
/// share (here it keeps the child's stdin open), so it is put back at exit. Far more
/// answers than a pipe holds, written while the parent is still writing, all arrive.
#[test]
#[cfg(unix)]
fn stdio_over_a_shared_pipe_answers_every_line_and_puts_its_mode_back() {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let non_blocking = |fd: &std::io::PipeReader| {
        OFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFL).unwrap()).contains(OFlag::O_NONBLOCK)
    };
    let env = TestEnv::new();
    let settings = guard_settings(&env);
    // Close-on-exec (as std makes it), or the child would inherit the write end and
    // never see the end of its input.
    let (read, write) = std::io::pipe().unwrap();
    let shared = read.try_clone().unwrap();
    let mut child = stdio_command(&env, &settings)
        .stdin(Stdio::from(read))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // A serve that never sees the end of its input would hang the test: stop it instead.
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watched = done.clone();
    std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(120);
        while Instant::now() < deadline {
            if watched.load(std::sync::atomic::Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
    });
    let mut answers = BufReader::new(child.stdout.take().unwrap());
    let mut input = write;
    let request = |id: u64| {
        let command = if id.is_multiple_of(2) {
            "rm -rf /"
        } else {
            "ls"
        };
        format!("{}\n", json!({"id": id, "input": rm(command)}))
    };
    input.write_all(request(0).as_bytes()).unwrap();
    let mut first = String::new();
    answers.read_line(&mut first).unwrap();
    assert!(first.contains("should_block"), "{first}");
    assert!(non_blocking(&shared), "stdin is polled while serving");
    for id in 1..400 {
        input.write_all(request(id).as_bytes()).unwrap();
    }
    drop(input);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut answers, &mut rest).unwrap();
    let status = child.wait().unwrap();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(status.success());
    let mut seen = 0;
    for line in std::iter::once(first.as_str()).chain(rest.lines()) {
        let answer: Value = serde_json::from_str(line).unwrap();
        let id = answer["id"].as_u64().unwrap();
        assert_eq!(
            answer["outcome"]["should_block"],
            id.is_multiple_of(2),
            "{answer}"
        );
        seen += 1;
    }
    assert_eq!(seen, 400);
    assert!(
        !non_blocking(&shared),
        "the pipe's mode is put back at exit"
    );
}

/// Requests from a file, answers to a file: what is not a pipe goes through tokio's
/// blocking stdio, and answers the same.
#[test]
fn stdio_reads_requests_from_a_file_and_writes_answers_to_a_file() {
    let env = TestEnv::new();
    let settings = guard_settings(&env);
    let requests = env.root.join("requests.jsonl");
    let mut text = String::new();
    for (id, command) in [(1, "rm -rf /"), (2, "ls")] {
        text.push_str(&format!("{}\n", json!({"id": id, "input": rm(command)})));
    }
    std::fs::write(&requests, text).unwrap();
    let answers = env.root.join("answers.jsonl");
    let status = stdio_command(&env, &settings)
        .stdin(std::fs::File::open(&requests).unwrap())
        .stdout(std::fs::File::create(&answers).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    let written = std::fs::read_to_string(&answers).unwrap();
    let blocked: Vec<(u64, bool)> = written
        .lines()
        .map(|line| {
            let answer: Value = serde_json::from_str(line).unwrap();
            let block = answer["outcome"]["should_block"].as_bool().unwrap();
            (answer["id"].as_u64().unwrap(), block)
        })
        .collect();
    assert_eq!(blocked.len(), 2, "{written}");
    assert!(blocked.contains(&(1, true)) && blocked.contains(&(2, false)));
}

#[test]
fn stdio_answers_each_line_with_its_id() {
    let env = TestEnv::new();
    let settings = guard_settings(&env);
    let mut child = stdio_command(&env, &settings)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        for (id, command) in [(1, "rm -rf /"), (2, "ls")] {
            let line = json!({"id": id, "input": rm(command)});
            writeln!(stdin, "{line}").unwrap();
        }
        writeln!(stdin, r#"{{"id": "x", "event": "Stop"}}"#).unwrap();
        writeln!(stdin, "not json").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let answers: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 4, "{answers:?}");
    let by_id = |id: Value| answers.iter().find(|a| a["id"] == id).unwrap().clone();
    assert_eq!(by_id(json!(1))["outcome"]["should_block"], true);
    assert_eq!(by_id(json!(2))["outcome"]["should_block"], false);
    assert!(
        by_id(json!("x"))["error"]
            .as_str()
            .unwrap()
            .contains("no `input`")
    );
    assert!(by_id(Value::Null)["error"].is_string());
}

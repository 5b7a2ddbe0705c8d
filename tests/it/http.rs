//! The HTTP executor against a real server on 127.0.0.1.

use std::time::Duration;

use hookhost::{Engine, EventOutcome, HookStatus};
use hookhost_tests::TestEnv;
use hookhost_tests::hook_error;
use hookhost_tests::server::{Reply, TestServer};
use serde_json::{Value, json};

fn http(url: &str, extra: Value) -> Value {
    let mut handler = json!({"type": "http", "url": url});
    for (k, v) in extra.as_object().unwrap() {
        handler[k] = v.clone();
    }
    handler
}

async fn server() -> TestServer {
    TestServer::start(|request| match request.path.as_str() {
        "/allow" => Reply::new(200, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#),
        "/deny" => Reply::new(200, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"server says no"}}"#),
        "/empty" => Reply::new(204, ""),
        "/slow" => Reply::new(200, "{}").delayed(Duration::from_secs(5)),
        "/error" => Reply::new(500, "internal trouble\nmore"),
        "/garbage" => Reply::new(200, "<html>not json</html>"),
        "/huge" => Reply::new(200, format!("{{\"reason\":\"{}\"}}", "x".repeat(3 << 20))),
        "/same-host-redirect" => Reply::new(307, "").header("location", "/deny"),
        path if path.starts_with("/other-host-redirect") => {
            let port = path.rsplit('/').next().unwrap();
            Reply::new(302, "").header("location", &format!("http://localhost:{port}/deny"))
        }
        _ => Reply::new(404, "no such path"),
    })
    .await
}

async fn fire(env: &TestEnv, settings: Value) -> (Engine, EventOutcome) {
    let engine = env.engine(settings);
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    (engine, outcome)
}

fn one(handler: Value) -> Value {
    json!({"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn response_semantics() {
    let env = TestEnv::new();
    let server = server().await;
    let port = server.addr.port();
    struct Case {
        name: &'static str,
        path: String,
        status: HookStatus,
        decision: Option<&'static str>,
        error: Option<&'static str>,
    }
    let cases = vec![
        Case {
            name: "allow",
            path: "/allow".into(),
            status: HookStatus::Success,
            decision: Some("allow"),
            error: None,
        },
        Case {
            name: "deny",
            path: "/deny".into(),
            status: HookStatus::Blocking,
            decision: Some("deny"),
            error: None,
        },
        Case {
            name: "empty",
            path: "/empty".into(),
            status: HookStatus::Success,
            decision: None,
            error: None,
        },
        Case {
            name: "500",
            path: "/error".into(),
            status: HookStatus::NonBlockingError,
            decision: None,
            error: Some("HTTP 500 Internal Server Error: internal trouble"),
        },
        Case {
            name: "garbage",
            path: "/garbage".into(),
            status: HookStatus::NonBlockingError,
            decision: None,
            error: Some("not a JSON object"),
        },
        Case {
            name: "huge",
            path: "/huge".into(),
            status: HookStatus::NonBlockingError,
            decision: None,
            error: Some("exceeds 1024 KiB"),
        },
        Case {
            name: "same_host_redirect",
            path: "/same-host-redirect".into(),
            status: HookStatus::Blocking,
            decision: Some("deny"),
            error: None,
        },
        Case {
            name: "other_host_redirect",
            path: format!("/other-host-redirect/{port}"),
            status: HookStatus::NonBlockingError,
            decision: None,
            error: Some("redirect to another origin"),
        },
    ];
    for case in cases {
        let (_, outcome) = fire(&env, one(http(&server.url(&case.path), json!({})))).await;
        let report = &outcome.hooks[0];
        assert_eq!(report.executor, "http");
        assert_eq!(report.status, case.status, "case {}: {report:?}", case.name);
        assert_eq!(
            hookhost_tests::decision(&outcome),
            case.decision,
            "case {}",
            case.name
        );
        if let Some(error) = case.error {
            assert!(
                report.error.as_deref().unwrap_or("").contains(error),
                "case {}: {report:?}",
                case.name
            );
        }
    }
    let requests = server.requests();
    assert!(requests.iter().all(|r| r.method == "POST"));
    assert!(
        requests
            .iter()
            .all(|r| r.header("content-type") == Some("application/json"))
    );
    assert_eq!(requests[0].json()["tool_input"]["command"], "ls");
    assert_eq!(requests[0].json()["hook_event_name"], "PreToolUse");
    assert!(
        requests
            .iter()
            .all(|r| !r.path.starts_with("/deny") || r.header("host").is_some())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_servers_time_out_as_cancelled_and_connection_failures_are_errors() {
    let env = TestEnv::new();
    let server = server().await;
    let (_, outcome) = fire(
        &env,
        one(http(&server.url("/slow"), json!({"timeout": 0.5}))),
    )
    .await;
    assert_eq!(outcome.hooks[0].status, HookStatus::Cancelled);
    assert!(hook_error(&outcome, 0).contains("timed out after 0.5s"));
    // A port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (_, outcome) = fire(
        &env,
        one(http(&format!("http://127.0.0.1:{closed}/x"), json!({}))),
    )
    .await;
    assert_eq!(outcome.hooks[0].status, HookStatus::NonBlockingError);
    assert!(
        hook_error(&outcome, 0).contains("connection failed"),
        "{:?}",
        outcome.hooks[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_interpolate_only_granted_variables() {
    let env = TestEnv::new();
    let server = server().await;
    let path = std::env::var("PATH").unwrap();
    let home = std::env::var("HOME").unwrap();
    let headers =
        json!({"Authorization": "Bearer $PATH", "X-Home": "home=${HOME};", "X-Plain": "fixed"});
    // Granted PATH only.
    let handler = http(
        &server.url("/allow"),
        json!({"headers": headers, "allowedEnvVars": ["PATH"]}),
    );
    let (_, outcome) = fire(&env, one(handler)).await;
    let sent = server.requests().pop().unwrap();
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {path}").as_str())
    );
    assert_eq!(sent.header("x-home"), Some("home=;"));
    assert_eq!(sent.header("x-plain"), Some("fixed"));
    let report = serde_json::to_string(&outcome).unwrap();
    assert!(
        !report.contains(&path) && !report.contains(&home),
        "a secret reached the report"
    );
    // Without allowedEnvVars nothing is interpolated.
    let handler = http(&server.url("/allow"), json!({"headers": headers}));
    fire(&env, one(handler)).await;
    assert_eq!(
        server.requests().pop().unwrap().header("authorization"),
        Some("Bearer")
    );
    // The settings-wide list intersects the hook's grant.
    let handler = http(
        &server.url("/allow"),
        json!({"headers": headers, "allowedEnvVars": ["PATH", "HOME"]}),
    );
    let settings = env.write(
        "narrow.json",
        &json!({"httpHookAllowedEnvVars": ["HOME"], "hooks": one(handler)}).to_string(),
    );
    let engine = Engine::load(&env.load_options(&[settings], &[]), env.engine_options()).unwrap();
    engine.execute("PreToolUse", env.bash("ls")).await;
    let sent = server.requests().pop().unwrap();
    assert_eq!(sent.header("authorization"), Some("Bearer"));
    assert_eq!(
        sent.header("x-home"),
        Some(format!("home={home};").as_str())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_allow_list_refuses_without_requesting() {
    let env = TestEnv::new();
    let server = server().await;
    let allowed = http(&server.url("/deny"), json!({}));
    let refused = http("http://127.0.0.2:9/never", json!({}));
    let settings = env.write(
        "urls.json",
        &json!({"allowedHttpHookUrls": ["http://127.0.0.1:*/*"], "hooks": {"PreToolUse": [{"hooks": [allowed, refused]}]}}).to_string(),
    );
    let engine = Engine::load(&env.load_options(&[settings], &[]), env.engine_options()).unwrap();
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(outcome.hooks[0].status, HookStatus::Blocking);
    assert!(hook_error(&outcome, 1).contains("not allowed by allowedHttpHookUrls"));
    let empty = env.write(
        "none.json",
        &json!({"allowedHttpHookUrls": [], "hooks": one(http(&server.url("/deny"), json!({})))})
            .to_string(),
    );
    let before = server.requests().len();
    let engine = Engine::load(&env.load_options(&[empty], &[]), env.engine_options()).unwrap();
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(outcome.hooks[0].status, HookStatus::NonBlockingError);
    assert_eq!(
        server.requests().len(),
        before,
        "a refused URL must not be requested"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worktree_create_fails_on_any_http_failure() {
    let env = TestEnv::new();
    let server = server().await;
    // A closed port: the connection is refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let refused = format!("http://{}/hook", closed.local_addr().unwrap());
    drop(closed);
    for (name, url) in [
        ("error status", server.url("/error")),
        ("refused connection", refused),
    ] {
        let engine = env.engine(json!({"WorktreeCreate": [{"hooks": [http(&url, json!({}))]}]}));
        let outcome = engine
            .execute("WorktreeCreate", json!({"name": "bold-oak-a3f2"}))
            .await;
        assert!(outcome.should_block, "{name}: {outcome:?}");
        assert_eq!(outcome.hooks[0].status, HookStatus::Blocking, "{name}");
    }
    // On an ordinary event the same failure does not block.
    let (_, outcome) = fire(&env, one(http(&server.url("/error"), json!({})))).await;
    assert!(!outcome.should_block);
    assert_eq!(outcome.hooks[0].status, HookStatus::NonBlockingError);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evva_http_hooks_use_their_method_and_run_in_the_background_by_default() {
    let server = server().await;
    let env = TestEnv::new();
    let settings = env.settings(
        "settings.json",
        one_group(vec![
            http(
                &server.url("/deny"),
                json!({"method": "put", "async": false}),
            ),
            http(&server.url("/allow"), json!({})),
        ]),
    );
    let mut load = env.load_options(&[settings], &[]);
    load.dialect = Some(hookhost::DialectId::Evva);
    let engine = Engine::load(&load, env.engine_options()).unwrap();
    let outcome = engine.execute("PreToolUse", env.bash("ls")).await;
    assert!(outcome.should_block, "{outcome:?}");
    assert_eq!(outcome.block_reason.as_deref(), Some("server says no"));
    // The second (no `async` given) was handed to the background: it cannot decide.
    assert!(outcome.hooks[1].detached, "{outcome:?}");
    engine.close().await;
    let mut seen: Vec<(String, String)> = server
        .requests()
        .iter()
        .map(|r| (r.method.clone(), r.path.clone()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        vec![
            ("POST".to_string(), "/allow".to_string()),
            ("PUT".to_string(), "/deny".to_string())
        ]
    );
    // A method that is not one is refused at load, naming the hook.
    let bad = env.settings(
        "bad.json",
        one(http(&server.url("/allow"), json!({"method": "P OST"}))),
    );
    let config = hookhost::internals::load(&env.load_options(&[bad], &[]));
    assert!(config.hooks.is_empty());
    assert!(
        config.diagnostics[0].message.contains("not an HTTP method"),
        "{:?}",
        config.diagnostics
    );
}

fn one_group(handlers: Vec<Value>) -> Value {
    json!({"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]})
}

//! `serve`'s doors: web pages, tokens, a request's `cwd`, fail-closed limits, reloads,
//! redirects, the unix socket and metrics.

use super::*;
use hookhost_tests::client::post_with_token;

// ---- 3. serve trusts no web page ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_web_page_cannot_reach_serve() {
    let test = TestEnv::new();
    let settings = guard_file(&test);
    let served = serve_owner(&test, &settings, &["--listen", "127.0.0.1:0"]).unwrap();
    let addr = served.addr.trim_start_matches("http://").to_string();
    // A token was generated, private, and is required.
    let token_path = test.home.join(".config/hookhost/serve-token");
    let mode = std::fs::metadata(&token_path).unwrap().permissions();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
        0o600
    );
    let token = std::fs::read_to_string(&token_path).unwrap();
    let token = token.trim();
    let body = rm_input(&test).to_string();
    let request = |host: &str, extra: &str| {
        format!(
            "POST /hooks HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nContent-Type: text/plain\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    // DNS rebinding: the page's own name in Host.
    let rebound = raw_http(&addr, request("evil.example:80", "").as_bytes());
    assert_eq!(status_of(&rebound), 403, "{rebound}");
    // A cross-site form post carries Origin.
    let port = addr.rsplit(':').next().unwrap();
    let cross = raw_http(
        &addr,
        request(
            &format!("localhost:{port}"),
            "Origin: https://evil.example\r\n",
        )
        .as_bytes(),
    );
    assert_eq!(status_of(&cross), 403, "{cross}");
    for path in ["/metrics", "/v1/diagnostics"] {
        let read = raw_http(
            &addr,
            format!("GET {path} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        );
        assert_eq!(status_of(&read), 403, "{path}: {read}");
    }
    // No token, from the right Host: no hook runs. The owner's failClosed guard makes
    // it a deny naming the token (Claude Code would read a 401 as "proceed"); other
    // routes answer 401.
    let http = client();
    let bare = http
        .post(served.url("/hooks"))
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status(), 200);
    let bare = bare.text().await.unwrap();
    assert!(
        bare.contains("\"deny\"") && bare.contains("bearer token"),
        "{bare}"
    );
    let fire = http
        .post(served.url("/v1/fire"))
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(fire.status(), 401);
    // The real client: right Host, the token, no Origin.
    let ok = raw_http(&addr, request(&format!("127.0.0.1:{port}"), "").as_bytes());
    assert_eq!(status_of(&ok), 200, "{ok}");
    assert!(ok.contains("\"deny\""), "{ok}");
}

/// Why `serve` with the guard and `--token-file token` refused to start.
fn serve_refused_with_token(test: &TestEnv, token: &Path) -> String {
    let settings = guard_file(test);
    let token = token.display().to_string();
    serve_owner(
        test,
        &settings,
        &["--listen", "127.0.0.1:0", "--token-file", &token],
    )
    .err()
    .expect("serve refused to start")
}

#[test]
fn a_token_file_others_can_read_is_refused() {
    let test = TestEnv::new();
    let token = test.write("token", "0123456789abcdef0123\n");
    let refused = serve_refused_with_token(&test, &token);
    assert!(refused.contains("readable by others"), "{refused}");
}

// ---- 4. a request's cwd chooses nothing ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_requests_cwd_does_not_choose_which_script_runs() {
    let test = TestEnv::new();
    // The trusted project's own check denies.
    test.write(
        "project/hooks/check.sh",
        "#!/bin/sh\necho 'project check: no' >&2\nexit 2\n",
    );
    test.write(
        "attacker/hooks/check.sh",
        "#!/bin/sh\ntouch \"$(dirname \"$0\")/../ran\"\nexit 0\n",
    );
    for script in ["project/hooks/check.sh", "attacker/hooks/check.sh"] {
        let path = test.root.join(script);
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }
    test.write(
        "project/.claude/settings.json",
        &json!({"hooks": hooks("PreToolUse", Some("Bash"),
            vec![json!({"type": "command", "command": "./hooks/check.sh"})])})
        .to_string(),
    );
    let attacker = test.root.join("attacker");
    let mut input = rm_input(&test);
    input["cwd"] = json!(attacker.display().to_string());
    // fire: the project's script runs, in the project.
    let run = fire(&test, &["--trust-workspace"], &input);
    assert!(blocked(&run), "{}\n{}", run.stdout, run.stderr);
    assert!(!attacker.join("ran").exists());
    // serve: a request naming another project is refused.
    let served = serve_discovering(
        &test,
        &["--trust-workspace", "--listen", "127.0.0.1:0", "--no-auth"],
    )
    .unwrap();
    let http = client();
    let (status, _) = post_with_token(&http, served.url("/hooks"), None, &input).await;
    assert_eq!(status, 403);
    assert!(!attacker.join("ran").exists(), "the attacker's script ran");
    // Its own project's requests are answered by its own script.
    let (status, answer) =
        post_with_token(&http, served.url("/hooks"), None, &rm_input(&test)).await;
    assert_eq!(status, 200);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"],
        json!("deny"),
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_user_level_serve_runs_a_projects_hooks_only_where_the_owner_trusts_it() {
    let test = TestEnv::new();
    let own = |dir: &std::path::Path, command: &str| {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("hooks.json"),
            json!({"hooks": hooks("PreToolUse", Some("Bash"),
                vec![json!({"type": "command", "command": command})])})
            .to_string(),
        )
        .unwrap();
    };
    own(&test.home.join(".config/hookhost"), "cat >/dev/null; true");
    let trusted = test.root.join("trusted");
    let stranger = test.root.join("stranger");
    own(&trusted.join(".hookhost"), "cat >/dev/null; pwd > ran-in");
    own(&stranger.join(".hookhost"), "cat >/dev/null; touch ran");
    std::fs::create_dir_all(trusted.join("sub")).unwrap();
    let home = test.home.display().to_string();
    let trust = |args: &[&str]| {
        hookhost_tests::ran(
            Command::new(CLI)
                .arg("trust")
                .args(args)
                .args(["--home", &home]),
        )
        .assert_ok();
    };
    trust(&[trusted.to_str().unwrap()]);
    let served = serve_with(
        &test,
        &[
            "--all-projects",
            "--own-files",
            "--listen",
            "127.0.0.1:0",
            "--no-auth",
            "--managed-settings",
            &managed_flag(&test),
        ],
        &[],
    )
    .unwrap();
    let http = client();
    let hooks_for = |cwd: String| {
        let http = http.clone();
        let url = served.url("/v1/fire?event=PreToolUse");
        async move {
            let input = json!({"session_id": "s", "tool_name": "Bash",
                               "tool_input": {"command": "ls"}, "cwd": cwd});
            let outcome = hookhost_tests::client::post_json(&http, url, &input).await;
            outcome["hooks"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .len()
        }
    };
    // A trusted project's request: the owner's hook and the project's, run in the trusted
    // folder (not in the request's cwd).
    let inside = trusted.join("sub").display().to_string();
    assert_eq!(hooks_for(inside.clone()).await, 2, "{}", served.stderr());
    let ran_in = std::fs::read_to_string(trusted.join("ran-in")).unwrap();
    assert_eq!(
        ran_in.trim(),
        trusted.canonicalize().unwrap().to_str().unwrap()
    );
    assert!(!trusted.join("sub/ran-in").exists());
    // Any other project: the owner's hooks only — its own never load, even when the path
    // climbs out of a trusted folder.
    for cwd in [
        stranger.display().to_string(),
        format!("{}/../stranger", trusted.display()),
        "/".to_string(),
        "relative/dir".to_string(),
    ] {
        assert_eq!(hooks_for(cwd.clone()).await, 1, "cwd {cwd}");
    }
    assert!(
        !stranger.join("ran").exists(),
        "an untrusted project's hook ran"
    );
    // Trust withdrawn: within the lookup's lifetime the project is a stranger again.
    trust(&["--remove", trusted.to_str().unwrap()]);
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert_eq!(
        hooks_for(inside).await,
        1,
        "trust removed, the project's hook still ran"
    );
}

// ---- the front door: every failure around a failClosed guard is a deny ----

/// `serve` over the owner's `settings` on a free local port without a token, and `extra`.
fn serve_open(test: &TestEnv, settings: &str, extra: &[&str]) -> Serve {
    let mut args = vec!["--listen", "127.0.0.1:0", "--no-auth"];
    args.extend(extra);
    serve_owner(test, settings, &args).unwrap()
}

/// POSTs `input` to serve's `/hooks` at `url` (no token); the answer is a 200 and a deny,
/// whose reason this returns.
async fn denied_with(http: &reqwest::Client, url: &str, input: &Value) -> String {
    let (status, answer) = post_with_token(http, url, None, input).await;
    assert_eq!(status, 200, "{answer}");
    deny_reason(&answer)
}

fn deny_reason(answer: &Value) -> String {
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"],
        json!("deny"),
        "{answer}"
    );
    answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_fails_closed_on_oversize_slow_malformed_and_overload() {
    let test = TestEnv::new();
    // The failClosed guard, plus a slow hook that holds the one call slot.
    let slow = test.script("slow.sh", "cat >/dev/null; sleep 2");
    let mut guarded = guard(&test);
    guarded["PreToolUse"][0]["hooks"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "command", "command": slow}));
    let settings = test
        .write("owner.json", &json!({ "hooks": guarded }).to_string())
        .display()
        .to_string();
    let served = serve_open(
        &test,
        &settings,
        &[
            "--max-body",
            "4096",
            "--max-concurrent",
            "1",
            "--queue-wait",
            "200",
            "--body-timeout",
            "1",
        ],
    );
    let http = client();
    let url = served.url("/hooks");
    // Oversize: an input far over the cap. The deny must reach a client that is still
    // writing its body (an early answer and a reset connection would read as "proceed").
    let mut big = rm_input(&test);
    big["tool_input"]["command"] = json!("x".repeat(3 << 20));
    let reason = denied_with(&http, &url, &big).await;
    assert!(reason.contains("4096-byte limit"), "{reason}");
    // Malformed.
    let response = http
        .post(&url)
        .body(r#"{"hook_event_name": "PreToolUse", "tool_input": {"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let reason = deny_reason(&response.json().await.unwrap());
    assert!(reason.contains("cannot be read"), "{reason}");
    // Slow: the body never finishes.
    let addr = served.addr.trim_start_matches("http://").to_string();
    let head = format!(
        "POST /hooks HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 500\r\nConnection: close\r\n\r\n{{\"hook_event_name\": \"PreToolUse\""
    );
    let slow_answer = tokio::task::spawn_blocking(move || raw_http(&addr, head.as_bytes()))
        .await
        .unwrap();
    assert_eq!(status_of(&slow_answer), 200, "{slow_answer}");
    assert!(slow_answer.contains("did not arrive"), "{slow_answer}");
    // Overload: one call holds the only slot; the next waits 200 ms, then is denied.
    let holder = tokio::spawn({
        let (http, url, input) = (http.clone(), url.clone(), rm_input(&test));
        async move { http.post(url).json(&input).send().await.unwrap().status() }
    });
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let reason = denied_with(&http, &url, &rm_input(&test)).await;
    assert!(reason.contains("too many calls"), "{reason}");
    assert_eq!(holder.await.unwrap(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trickling_clients_hold_no_call_slot() {
    let test = TestEnv::new();
    let settings = guard_file(&test);
    let served = serve_open(&test, &settings, &["--max-concurrent", "2"]);
    let addr = served.addr.trim_start_matches("http://").to_string();
    // Many connections send headers and a little of the body, then wait.
    let mut trickling = Vec::new();
    for _ in 0..32 {
        use std::io::Write;
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        let head = format!(
            "POST /hooks HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 1000\r\n\r\n{{\"hook_event_name\""
        );
        stream.write_all(head.as_bytes()).unwrap();
        trickling.push(stream);
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let started = std::time::Instant::now();
    // The guard's own answer: an overload refusal (no free slot) would deny too.
    let reason = denied_with(&client(), &served.url("/hooks"), &rm_input(&test)).await;
    assert!(reason.contains("guard: no"), "{reason}");
    // Answered by the hooks, not after the trickling bodies timed out (10 s).
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    drop(trickling);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_fails_closed_on_an_oversize_line() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let test = TestEnv::new();
    // A failClosed guard that allows this input: only the failure can deny.
    let settings = test.allowing_guard("owner.json");
    let settings = settings.display().to_string();
    let managed = managed_flag(&test);
    let mut child = tokio::process::Command::new(CLI)
        .args([
            "serve",
            "--stdio",
            "--no-discover",
            "--settings",
            &settings,
            "--managed-settings",
            &managed,
            "--max-body",
            "1000",
        ])
        .env("HOME", &test.home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut big = rm_input(&test);
    big["tool_input"]["command"] = json!("x".repeat(20_000));
    let line = json!({"id": 7, "input": big}).to_string() + "\n";
    stdin.write_all(line.as_bytes()).await.unwrap();
    drop(stdin);
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let answer: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(answer["outcome"]["should_block"], json!(true), "{answer}");
    let reason = answer["outcome"]["block_reason"]
        .as_str()
        .unwrap_or_default();
    assert!(reason.contains("1000-byte limit"), "{reason}");
}

// ---- 8. a broken repository never vetoes the owner's reload ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_untrusted_repository_does_not_freeze_reloads() {
    let test = TestEnv::new();
    test.write(
        "project/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [
            {"matcher": "(", "hooks": [{"type": "command", "command": "true"}]},
            {"hooks": [{"type": "wasm", "component": "/nonexistent/broken.wasm"}]}
        ]}})
        .to_string(),
    );
    test.write("home/.claude/settings.json", "{}");
    let served = serve_discovering(&test, &["--listen", "127.0.0.1:0", "--no-auth"]).unwrap();
    let http = client();
    let before: Value =
        hookhost_tests::client::post_json(&http, served.url("/hooks"), &rm_input(&test)).await;
    assert!(before.get("hookSpecificOutput").is_none(), "{before}");
    // The user adds a guard to their own settings; SIGHUP reloads.
    std::fs::write(
        test.home.join(".claude/settings.json"),
        json!({ "hooks": guard(&test) }).to_string(),
    )
    .unwrap();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(served.child.id() as i32),
        nix::sys::signal::Signal::SIGHUP,
    )
    .unwrap();
    let mut reason = String::new();
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let answer: Value =
            hookhost_tests::client::post_json(&http, served.url("/hooks"), &rm_input(&test)).await;
        if answer["hookSpecificOutput"]["permissionDecision"] == json!("deny") {
            reason = deny_reason(&answer);
            break;
        }
    }
    assert!(
        reason.contains("guard: no"),
        "the user's guard never applied:\n{}",
        served.stderr()
    );
}

// ---- 12. redirects stay on one origin ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_port_gets_no_secret_header() {
    use hookhost_tests::server::{Reply, TestServer};
    let test = TestEnv::new();
    let thief = TestServer::start(|_| Reply::new(200, "{}")).await;
    let target = thief.url("/steal");
    let hook = TestServer::start(move |_| Reply::new(307, "").header("location", &target)).await;
    let settings = test.hook_file(
        "owner.json",
        "PreToolUse",
        vec![json!({"type": "http", "url": hook.url("/hook"),
                        "headers": {"Authorization": "Bearer $HOOK_SECRET"},
                        "allowedEnvVars": ["HOOK_SECRET"]})],
    );
    let run = fire_with_secret(&test, &["--settings", settings.to_str().unwrap()]);
    assert_eq!(hook.requests().len(), 1);
    assert!(thief.requests().is_empty(), "the secret crossed origins");
    assert!(run.stdout.contains("another origin"), "{}", run.stdout);
}

/// `fire` of the `rm` input with `words` and the test's folders, `HOOK_SECRET` in its
/// environment; it exits 0.
fn fire_with_secret(test: &TestEnv, words: &[&str]) -> Run {
    let flags = config_flags(test);
    let mut args = vec!["fire"];
    args.extend(words);
    args.extend(flags.iter().map(String::as_str));
    let input = rm_input(test).to_string();
    let run = hookhost(
        test,
        &test.project,
        &args,
        &input,
        &[("HOOK_SECRET", "hunter2-secret")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    run
}

// ---- 13, 14. the unix socket ----

#[test]
fn the_unix_socket_is_private_never_replaces_a_file_and_is_removed_at_exit() {
    let test = TestEnv::new();
    let settings = guard_file(&test);
    let regular = test.write("run/not-a-socket", "precious");
    let refused = serve_owner(
        &test,
        &settings,
        &["--listen", &format!("unix:{}", regular.display())],
    )
    .err()
    .expect("a regular file is not replaced");
    assert!(refused.contains("not a socket"), "{refused}");
    assert_eq!(std::fs::read_to_string(&regular).unwrap(), "precious");
    let socket = test.root.join("run/hookhost.sock");
    let mut served = serve_owner(
        &test,
        &settings,
        &["--listen", &format!("unix:{}", socket.display())],
    )
    .unwrap();
    let meta = std::fs::symlink_metadata(&socket).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
        0o600
    );
    // Only the socket and the file that was there: no staging folder left behind.
    let mut names: Vec<String> = std::fs::read_dir(test.root.join("run"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["hookhost.sock", "not-a-socket"]);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(served.child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = served.child.wait().unwrap();
    assert!(status.success());
    assert!(!socket.exists(), "the socket was left behind");
}

// ---- 15. /metrics carries no credentials ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_never_publish_credentials_in_hook_names() {
    let test = TestEnv::new();
    let settings = test.hook_file(
        "owner.json",
        "PreToolUse",
        vec![hookhost_tests::command(
            "cat >/dev/null; true https://ops:PASSWORD@deploy.example/hook",
        )],
    );
    let settings = settings.display().to_string();
    let served = serve_open(&test, &settings, &[]);
    let http = client();
    let (status, _) = post_with_token(&http, served.url("/hooks"), None, &rm_input(&test)).await;
    assert_eq!(status, 200);
    let metrics = hookhost_tests::client::get_text(&http, served.url("/metrics")).await;
    assert!(metrics.contains("deploy.example"), "{metrics}");
    assert!(!metrics.contains("PASSWORD"), "{metrics}");
}

// ---- policy: which variables may leave in a header is the owners' call ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_project_cannot_widen_the_users_header_variables() {
    use hookhost_tests::server::{Reply, TestServer};
    let test = TestEnv::new();
    let server = TestServer::start(|_| Reply::new(200, "{}")).await;
    test.write(
        "home/.claude/settings.json",
        &json!({"httpHookAllowedEnvVars": ["HARMLESS"]}).to_string(),
    );
    test.write(
        "project/.claude/settings.json",
        &json!({"httpHookAllowedEnvVars": ["HARMLESS", "HOOK_SECRET"],
                "hooks": hooks("PreToolUse", None,
                    vec![json!({"type": "http", "url": server.url("/hook"),
                                "headers": {"X-Leak": "$HOOK_SECRET"},
                                "allowedEnvVars": ["HOOK_SECRET"]})])})
        .to_string(),
    );
    fire_with_secret(&test, &["--trust-workspace"]);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].header("x-leak").unwrap_or(""), "");
}

// ---- the documented drop-in, token included ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_http_hook_reaches_serve_with_the_generated_token() {
    let test = TestEnv::new();
    let settings = guard_file(&test);
    let managed = managed_flag(&test);
    let served = serve_owner(&test, &settings, &["--listen", "127.0.0.1:0"]).unwrap();
    let token = std::fs::read_to_string(test.home.join(".config/hookhost/serve-token")).unwrap();
    // The client: a host running the README's `http` hook, the token from its environment.
    let client_settings = test.settings(
        "client.json",
        hooks(
            "PreToolUse",
            Some("*"),
            vec![
                json!({"type": "http", "url": served.url("/hooks"), "timeout": 5,
                        "headers": {"Authorization": "Bearer $HOOKHOST_TOKEN"},
                        "allowedEnvVars": ["HOOKHOST_TOKEN"]}),
            ],
        ),
    );
    let client_home = test.root.join("client-home");
    std::fs::create_dir_all(&client_home).unwrap();
    let args = [
        "fire",
        "--no-discover",
        "--managed-settings",
        &managed,
        "--settings",
        client_settings.to_str().unwrap(),
        "--format",
        "claude",
    ];
    let input = rm_input(&test).to_string();
    let with_token = hookhost(
        &test,
        &test.project,
        &args,
        &input,
        &[("HOOKHOST_TOKEN", token.trim())],
    );
    let answer = with_token.json();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"],
        json!("deny"),
        "{answer}\n{}",
        with_token.stderr
    );
    // Without the token no hook runs; the owner's failClosed guard makes the answer a
    // deny naming the token, never a 401 the host would read as "proceed".
    let without = hookhost(&test, &test.project, &args, &input, &[]);
    assert!(
        without.stdout.contains("\"deny\"") && without.stdout.contains("bearer token"),
        "{}\n{}",
        without.stdout,
        without.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hygge_request_naming_another_project_under_pwd_is_refused() {
    let test = TestEnv::new();
    test.write(
        "project/.hygge/hooks.toml",
        "[[hooks]]\nname = \"x\"\ncommand = \"cat >/dev/null\"\nevents = [\"pre_tool\"]\n",
    );
    let served = serve_discovering(
        &test,
        &["--dialect", "hygge", "--listen", "127.0.0.1:0", "--no-auth"],
    )
    .unwrap();
    let elsewhere = test.root.join("elsewhere").display().to_string();
    for field in ["pwd", "cwd"] {
        let input = json!({"event": "pre_tool", "session_id": "s", field: elsewhere,
                           "tool_name": "Bash", "tool_input": {"command": "ls"}});
        let response = client()
            .post(served.url("/v1/fire"))
            .json(&input)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{field}");
    }
}

#[test]
fn a_token_file_planted_by_another_user_is_refused() {
    let test = TestEnv::new();
    let token = test.write("token", "0123456789abcdef0123\n");
    std::fs::set_permissions(&token, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    // Planting a file as another user needs privileges; where the test runs without them
    // the attack cannot be staged and there is nothing to check.
    if nix::unistd::chown(&token, Some(nix::unistd::Uid::from_raw(65534)), None).is_err() {
        // CI runs as root (`HOOKHOST_CI`): there a skip would pass a run that tested nothing.
        assert!(
            std::env::var_os("HOOKHOST_CI").is_none(),
            "under CI: not privileged, cannot stage a file owned by another user"
        );
        eprintln!("not privileged: cannot stage a file owned by another user");
        return;
    }
    let refused = serve_refused_with_token(&test, &token);
    assert!(refused.contains("owned by another user"), "{refused}");
}

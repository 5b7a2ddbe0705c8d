//! The doors around the sandbox, each test written as the attack: a repository, an
//! environment variable, a request field or a web page trying to switch off a guard the
//! machine's owner configured.

use std::path::Path;
use std::process::{Command, Stdio};

use hookhost_tests::{TestEnv, hooks};
use serde_json::{Value, json};

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");

/// Output of one `hookhost` run.
pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|err| panic!("{err}: {}\n{}", self.stdout, self.stderr))
    }
}

/// `hookhost ARGS` in `cwd` with `stdin`, `HOME` set to the test's home and no XDG
/// variables from the machine (`env` adds or overrides variables).
pub(crate) fn hookhost(
    test: &TestEnv,
    cwd: &Path,
    args: &[&str],
    stdin: &str,
    env: &[(&str, &str)],
) -> Run {
    use std::io::Write;
    let mut child = Command::new(CLI)
        .args(args)
        .current_dir(cwd)
        .env("HOME", &test.home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("EVVA_HOME")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hookhost");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_string();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    let out = child.wait_with_output().expect("wait");
    let _ = writer.join();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The test's config flags: its home, project and managed settings file.
fn config_flags(test: &TestEnv) -> Vec<String> {
    vec![
        "--home".into(),
        test.home.display().to_string(),
        "--project-dir".into(),
        test.project.display().to_string(),
        "--managed-settings".into(),
        test.managed_path().display().to_string(),
    ]
}

fn fire(test: &TestEnv, extra: &[&str], input: &Value) -> Run {
    let flags = config_flags(test);
    let mut args: Vec<&str> = vec!["fire"];
    args.extend(flags.iter().map(String::as_str));
    args.extend(extra);
    hookhost(test, &test.project, &args, &input.to_string(), &[])
}

fn rm_input(test: &TestEnv) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s",
           "cwd": test.project.display().to_string(),
           "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
}

/// An owner's guard: a command that blocks every Bash call.
fn guard(test: &TestEnv) -> Value {
    let script = test.script("guard.sh", "echo 'guard: no' >&2; exit 2");
    hooks(
        "PreToolUse",
        Some("Bash"),
        vec![json!({"type": "command", "command": script, "failClosed": true})],
    )
}

fn blocked(run: &Run) -> bool {
    let outcome = run.json();
    outcome["should_block"] == json!(true) || outcome["permission_decision"] == json!("deny")
}

// ---- 1. duplicate removal keeps the most trusted copy ----

#[test]
fn a_repository_copying_the_owners_guard_does_not_cancel_it() {
    for owner in ["settings", "managed", "user"] {
        let test = TestEnv::new();
        let guard = guard(&test);
        let doc = json!({ "hooks": guard }).to_string();
        // The repository (untrusted) repeats the guard verbatim.
        test.write("project/.claude/settings.json", &doc);
        let mut extra: Vec<String> = Vec::new();
        match owner {
            "settings" => {
                let path = test.write("owner.json", &doc);
                extra.extend(["--settings".into(), path.display().to_string()]);
            }
            "managed" => {
                std::fs::create_dir_all(test.managed_path().parent().unwrap()).unwrap();
                std::fs::write(test.managed_path(), &doc).unwrap();
            }
            _ => {
                test.write("home/.claude/settings.json", &doc);
            }
        }
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let run = fire(&test, &extra, &rm_input(&test));
        assert!(blocked(&run), "{owner}: {}\n{}", run.stdout, run.stderr);
        let outcome = run.json();
        assert_eq!(outcome["hooks"].as_array().unwrap().len(), 1, "{owner}");
        assert_ne!(outcome["hooks"][0]["source"], json!("project"), "{owner}");
    }
}

#[test]
fn an_evva_repository_copying_the_users_guard_does_not_cancel_it() {
    let test = TestEnv::new();
    let doc = json!({ "hooks": guard(&test) }).to_string();
    test.write("home/.evva/settings.json", &doc);
    test.write("project/.evva/settings.json", &doc);
    let run = fire(&test, &["--dialect", "evva"], &rm_input(&test));
    assert!(blocked(&run), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json()["hooks"][0]["source"], json!("user"));
}

// ---- 2. a repository cannot choose the dialect ----

#[test]
fn an_untrusted_repositorys_hooks_toml_does_not_switch_the_dialect() {
    for file in [
        "project/.hygge/hooks.toml",
        "project/.agents/hooks.toml",
        // A parent folder of the project.
        ".hygge/hooks.toml",
    ] {
        for owner in ["managed", "settings"] {
            let test = TestEnv::new();
            let doc = json!({ "hooks": guard(&test) }).to_string();
            test.write(
                file,
                "[[hooks]]\nname = \"x\"\ncommand = \"true\"\nevents = [\"pre_tool\"]\n",
            );
            let mut extra: Vec<String> = vec!["--format".into(), "claude".into()];
            if owner == "managed" {
                std::fs::create_dir_all(test.managed_path().parent().unwrap()).unwrap();
                std::fs::write(test.managed_path(), &doc).unwrap();
            } else {
                let path = test.write("owner.json", &doc);
                extra.extend(["--settings".into(), path.display().to_string()]);
            }
            let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
            let run = fire(&test, &extra, &rm_input(&test));
            let answer = run.json();
            assert_eq!(
                answer["hookSpecificOutput"]["permissionDecision"],
                json!("deny"),
                "{file} / {owner}: the guard must deny\n{}\n{}",
                run.stdout,
                run.stderr
            );
            assert_eq!(run.code, 0);
        }
    }
}

#[test]
fn an_owners_guard_the_dialect_cannot_run_is_a_load_error_that_fails_closed() {
    let test = TestEnv::new();
    // The user's own hygge file decides the dialect; the managed guard is Claude-shaped.
    test.write(
        "home/.agents/hooks.toml",
        "[[hooks]]\nname = \"x\"\ncommand = \"true\"\nevents = [\"pre_tool\"]\n",
    );
    std::fs::create_dir_all(test.managed_path().parent().unwrap()).unwrap();
    std::fs::write(
        test.managed_path(),
        json!({ "hooks": guard(&test) }).to_string(),
    )
    .unwrap();
    let flags = config_flags(&test);
    let mut args: Vec<&str> = vec!["check"];
    args.extend(flags.iter().map(String::as_str));
    let check = hookhost(&test, &test.project, &args, "", &[]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    assert!(
        check.stdout.contains("`PreToolUse` is not a hygge event"),
        "{}",
        check.stdout
    );
    let input = json!({"event": "pre_tool", "session_id": "s", "tool_name": "Bash",
                       "tool_input": {"command": "ls"}});
    let run = fire(&test, &[], &input);
    assert!(blocked(&run), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("cannot run a guard"), "{}", run.stdout);
}

// ---- serve, started as a process ----

/// A running `hookhost serve`, killed when dropped.
struct Serve {
    child: std::process::Child,
    /// `http://ADDR` (TCP) or `unix:PATH`.
    addr: String,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serve {
    fn start(test: &TestEnv, args: &[&str], env: &[(&str, &str)]) -> Result<Serve, String> {
        use std::io::{BufRead, BufReader, Read};
        let mut child = Command::new(CLI)
            .arg("serve")
            .args(args)
            .current_dir(&test.project)
            .env("HOME", &test.home)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_CACHE_HOME")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run hookhost serve");
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let Some(addr) = line.trim().strip_prefix("listening on ") else {
            let _ = child.wait();
            std::thread::sleep(std::time::Duration::from_millis(100));
            return Err(format!("{line}{}", stderr.lock().unwrap()));
        };
        let addr = if addr.starts_with("unix:") {
            addr.to_string()
        } else {
            format!("http://{addr}")
        };
        Ok(Serve {
            child,
            addr,
            stderr,
        })
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.addr)
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(20))
        .build()
        .unwrap()
}

/// A raw HTTP/1.1 exchange on `addr` (`host:port`): what a browser or a hand-rolled
/// client can send that reqwest would not (another Host, a trickled body).
fn raw_http(addr: &str, request: &[u8]) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    stream.write_all(request).unwrap();
    let mut out = String::new();
    let _ = stream.read_to_string(&mut out);
    out
}

fn status_of(response: &str) -> u16 {
    response
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// The guard in a settings file of its own, for `--settings`.
fn guard_file(test: &TestEnv) -> String {
    let doc = json!({ "hooks": guard(test) }).to_string();
    test.write("owner.json", &doc).display().to_string()
}

fn managed_flag(test: &TestEnv) -> String {
    test.managed_path().display().to_string()
}

// ---- 3. serve trusts no web page ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_web_page_cannot_reach_serve() {
    let test = TestEnv::new();
    let settings = guard_file(&test);
    let managed = managed_flag(&test);
    let served = Serve::start(
        &test,
        &[
            "--no-discover",
            "--settings",
            &settings,
            "--managed-settings",
            &managed,
            "--listen",
            "127.0.0.1:0",
        ],
        &[],
    )
    .unwrap();
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
    // No token: 401, even from the right Host.
    let http = client();
    let bare = http
        .post(served.url("/hooks"))
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status(), 401);
    // The real client: right Host, the token, no Origin.
    let ok = raw_http(&addr, request(&format!("127.0.0.1:{port}"), "").as_bytes());
    assert_eq!(status_of(&ok), 200, "{ok}");
    assert!(ok.contains("\"deny\""), "{ok}");
}

#[test]
fn a_token_file_others_can_read_is_refused() {
    let test = TestEnv::new();
    let token = test.write("token", "0123456789abcdef0123\n");
    let settings = guard_file(&test);
    let managed = managed_flag(&test);
    let refused = Serve::start(
        &test,
        &[
            "--no-discover",
            "--settings",
            &settings,
            "--managed-settings",
            &managed,
            "--listen",
            "127.0.0.1:0",
            "--token-file",
            token.to_str().unwrap(),
        ],
        &[],
    )
    .err()
    .expect("refused");
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
    let project = test.project.display().to_string();
    let home = test.home.display().to_string();
    let managed = managed_flag(&test);
    let served = Serve::start(
        &test,
        &[
            "--project-dir",
            &project,
            "--home",
            &home,
            "--managed-settings",
            &managed,
            "--trust-workspace",
            "--listen",
            "127.0.0.1:0",
            "--no-auth",
        ],
        &[],
    )
    .unwrap();
    let http = client();
    let response = http
        .post(served.url("/hooks"))
        .json(&input)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    assert!(!attacker.join("ran").exists(), "the attacker's script ran");
    // Its own project's requests are answered by its own script.
    let response = http
        .post(served.url("/hooks"))
        .json(&rm_input(&test))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"],
        json!("deny"),
        "{answer}"
    );
}

// ---- the front door: every failure around a failClosed guard is a deny ----

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
    let managed = managed_flag(&test);
    let served = Serve::start(
        &test,
        &[
            "--no-discover",
            "--settings",
            &settings,
            "--managed-settings",
            &managed,
            "--listen",
            "127.0.0.1:0",
            "--no-auth",
            "--max-body",
            "4096",
            "--max-concurrent",
            "1",
            "--queue-wait",
            "200",
            "--body-timeout",
            "1",
        ],
        &[],
    )
    .unwrap();
    let http = client();
    let url = served.url("/hooks");
    // Oversize: a Write over the cap.
    let mut big = rm_input(&test);
    big["tool_input"]["command"] = json!("x".repeat(10_000));
    let response = http.post(&url).json(&big).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let reason = deny_reason(&response.json().await.unwrap());
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
    let response = http.post(&url).json(&rm_input(&test)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let reason = deny_reason(&response.json().await.unwrap());
    assert!(reason.contains("too many calls"), "{reason}");
    assert_eq!(holder.await.unwrap(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trickling_clients_hold_no_call_slot() {
    let test = TestEnv::new();
    let settings = guard_file(&test);
    let managed = managed_flag(&test);
    let served = Serve::start(
        &test,
        &[
            "--no-discover",
            "--settings",
            &settings,
            "--managed-settings",
            &managed,
            "--listen",
            "127.0.0.1:0",
            "--no-auth",
            "--max-concurrent",
            "2",
        ],
        &[],
    )
    .unwrap();
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
    let response = client()
        .post(served.url("/hooks"))
        .json(&rm_input(&test))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    deny_reason(&response.json().await.unwrap());
    // Answered by the hooks, not after the trickling bodies timed out (10 s).
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    drop(trickling);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_fails_closed_on_an_oversize_line() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let test = TestEnv::new();
    let settings = guard_file(&test);
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
}

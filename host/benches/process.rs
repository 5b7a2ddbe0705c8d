//! Benchmarks of `hookhost` as a process, the way hosts that cannot link the library
//! reach it (run with `cargo bench -p hookhost --bench process`; release build):
//!
//! * `fire/one_cached_wasm_hook`: wall time of one `hookhost fire` process, one
//!   PreToolUse through bash-guard, the component in the disk cache;
//!   `fire/one_command_hook`: the same with the policy as a `sh -c` hook;
//!   `fire/no_hooks`: the process with nothing configured.
//! * `serve/*`: `hookhost serve` on loopback TCP and a unix socket under load from `oha`
//!   and `wrk` (keep-alive clients posting PreToolUse inputs to `/hooks` for 4 s per
//!   row: p50, p99, requests per second, errors), back to back and at 200 requests/s,
//!   through bash-guard and (where the toolchains are installed) ts-guard and py-guard;
//!   and `--stdio` one request line at a time, back to back and every 2 ms, each with a
//!   second row for the hook's own `duration_ms` (the call inside `serve`, without the
//!   request's way in and out). The load generators share the machine with the server.
//!
//! Figures are medians/percentiles of wall time, printed as a table (no criterion: a
//! process start and a loaded server are not microbenchmarks).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

mod support;

use support::{rust_guest, settings};

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// `hookhost ARGS` on `settings` alone (no discovery, no managed settings), with the
/// bench's cache and configuration folders.
fn cli(dir: &Path, settings: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(CLI);
    command
        .args(args)
        .arg("--no-discover")
        .arg("--settings")
        .arg(settings)
        .arg("--managed-settings")
        .arg(dir.join("none.json"))
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .env("XDG_CONFIG_HOME", dir.join("config"));
    command
}

/// A `hookhost fire` started with the bench's input written to its stdin; its output
/// goes to `output` (null while timing, a pipe when it is read).
fn start_fire(dir: &Path, settings: &Path, output: fn() -> Stdio) -> std::process::Child {
    let mut child = cli(dir, settings, &["fire"])
        .stdin(Stdio::piped())
        .stdout(output())
        .stderr(output())
        .spawn()
        .expect("run hookhost fire");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(request_body(dir).as_bytes())
        .unwrap();
    child
}

fn fire(dir: &Path, settings: &Path, runs: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let mut child = start_fire(dir, settings, Stdio::null);
        assert!(child.wait().unwrap().success());
        times.push(started.elapsed());
    }
    times.sort();
    times
}

/// One `fire` whose outcome is read: `hooks` hooks ran and succeeded, or the row would
/// time something else (a hook that failed to load, a component that did not compile).
fn check_fire(dir: &Path, settings: &Path, hooks: usize, name: &str) {
    let out = start_fire(dir, settings, Stdio::piped)
        .wait_with_output()
        .unwrap();
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_eq!(
        outcome["counts"]["success"].as_u64(),
        Some(hooks as u64),
        "{name}: {outcome} {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The stored artifacts of the bench's cache, by name and file identity: a compile
/// stores a new file under the name.
fn artifacts(dir: &Path) -> Vec<(std::ffi::OsString, u64)> {
    let mut found: Vec<_> = std::fs::read_dir(dir.join("cache"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "cwasm"))
                .map(|e| {
                    let id = std::os::unix::fs::MetadataExt::ino(&e.metadata().unwrap());
                    (e.file_name(), id)
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// One request through `curl` before a load: the answer is a 200 whose one hook
/// succeeded (the load generators count statuses, not what the answers say).
fn check_served(served: &Served, dir: &Path, token: &str, name: &str) {
    let mut command = Command::new("curl");
    command.args([
        "-s",
        "-w",
        "\n%{http_code}",
        "-H",
        "content-type: application/json",
    ]);
    command.args(["-H", &format!("authorization: Bearer {token}")]);
    command.args(["-d", &request_body(dir)]);
    match served.address.strip_prefix("unix:") {
        Some(path) => command.args(["--unix-socket", path, "http://localhost/v1/fire"]),
        None => command.arg(format!("http://{}/v1/fire", served.address)),
    };
    let out = command.output().expect("run curl");
    let text = String::from_utf8_lossy(&out.stdout);
    let (body, code) = text.rsplit_once('\n').unwrap_or((&text, ""));
    let answer: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    let outcome = answer.get("outcome").unwrap_or(&answer);
    assert!(
        code == "200" && outcome["counts"]["success"].as_u64() == Some(1),
        "{name} via {}: {code} {body}",
        served.address
    );
}

/// A running `hookhost serve` (killed when dropped).
struct Served {
    child: std::process::Child,
    /// What it printed: `127.0.0.1:PORT` or `unix:/path`.
    address: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_serve(dir: &Path, settings: &Path, listen: &str, extra: &[&str]) -> Served {
    let mut child = cli(dir, settings, &["serve", "--listen", listen])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run hookhost serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .trim()
        .strip_prefix("listening on ")
        .expect("serve prints its address")
        .to_string();
    Served { child, address }
}

fn request_body(dir: &Path) -> String {
    json!({"hook_event_name": "PreToolUse", "session_id": "b", "cwd": dir,
        "tool_name": "Bash", "tool_input": {"command": "ls -la"}})
    .to_string()
}

fn installed(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// One load with `oha` (TCP or unix socket): p50, p99 (µs) and requests/s, from its JSON.
/// `rate`: requests per second (None: back to back).
fn oha(
    served: &Served,
    dir: &Path,
    token: &str,
    clients: usize,
    rate: Option<u32>,
) -> Option<(f64, f64, f64, u64)> {
    let mut command = Command::new("oha");
    command
        .args([
            "--no-tui",
            "--output-format",
            "json",
            "-z",
            "4s",
            "-m",
            "POST",
        ])
        .args(["-c", &clients.to_string()])
        .args(["-H", "content-type: application/json"])
        .args(["-H", &format!("authorization: Bearer {token}")])
        .args(["-d", &request_body(dir)]);
    if let Some(rate) = rate {
        command.args(["-q", &rate.to_string()]);
    }
    match served.address.strip_prefix("unix:") {
        Some(path) => command.args(["--unix-socket", path, "http://localhost/hooks"]),
        None => command.arg(format!("http://{}/hooks", served.address)),
    };
    let output = command.stderr(Stdio::null()).output().ok()?;
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).ok()?;
    let pct = |key: &str| {
        report["latencyPercentiles"][key]
            .as_f64()
            .unwrap_or(f64::NAN)
            * 1e6
    };
    let errors = report["errorDistribution"]
        .as_object()
        .map(|m| m.values().filter_map(|v| v.as_u64()).sum())
        .unwrap_or(0)
        + report["statusCodeDistribution"]
            .as_object()
            .map(|m| {
                m.iter()
                    .filter(|(code, _)| code.as_str() != "200")
                    .filter_map(|(_, v)| v.as_u64())
                    .sum::<u64>()
            })
            .unwrap_or(0);
    Some((
        pct("p50"),
        pct("p99"),
        report["summary"]["requestsPerSec"].as_f64()?,
        errors,
    ))
}

/// One load with `wrk` over TCP: p50, p99 (µs) and requests/s.
fn wrk(served: &Served, dir: &Path, token: &str, clients: usize) -> Option<(f64, f64, f64, u64)> {
    let script = dir.join("post.lua");
    std::fs::write(
        &script,
        format!(
            "wrk.method = \"POST\"\nwrk.body = [[{}]]\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.headers[\"Authorization\"] = \"Bearer {token}\"\n",
            request_body(dir)
        ),
    )
    .ok()?;
    let output = Command::new("wrk")
        .args(["-t1", "-d4s", "--latency", "-c", &clients.to_string(), "-s"])
        .arg(&script)
        .arg(format!("http://{}/hooks", served.address))
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let micros = |value: &str| -> Option<f64> {
        let (number, unit) = value.split_at(value.find(|c: char| c.is_ascii_alphabetic())?);
        let number: f64 = number.parse().ok()?;
        Some(match unit {
            "us" => number,
            "ms" => number * 1e3,
            "s" => number * 1e6,
            _ => return None,
        })
    };
    let field = |prefix: &str| {
        text.lines()
            .map(str::trim)
            .find_map(|line| line.strip_prefix(prefix))
            .map(|rest| rest.trim().to_string())
    };
    let errors = field("Non-2xx or 3xx responses:")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    Some((
        micros(&field("50%")?)?,
        micros(&field("99%")?)?,
        field("Requests/sec:")?.parse().ok()?,
        errors,
    ))
}

fn row(name: &str, via: &str, clients: usize, figures: Option<(f64, f64, f64, u64)>) {
    match figures {
        Some((p50, p99, rps, errors)) => println!(
            "| {name} | {via} | {clients} | {p50:.0} µs | {p99:.0} µs | {rps:.0} | {errors} |"
        ),
        None => println!("| {name} | {via} | {clients} | (the load generator failed) | | | |"),
    }
}

/// `hookhost serve` under load from `oha` (TCP and unix socket; https://github.com/hatoo/oha,
/// `cargo install oha`) and `wrk` (TCP; Debian's package), whichever are installed, and
/// `--stdio` one line at a time.
fn serve_load(dir: &Path, settings: &[(&str, std::path::PathBuf)]) {
    let token = "bench-token-0123456789abcdef";
    let token_file = dir.join("token");
    std::fs::write(&token_file, token).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let token_arg = token_file.display().to_string();
    let (has_oha, has_wrk) = (installed("oha"), installed("wrk"));
    if !has_oha && !has_wrk {
        eprintln!(
            "neither oha nor wrk is installed: serve rows skipped (cargo install oha; apt-get install wrk)"
        );
    }
    println!("| serve | via | clients | p50 | p99 | requests/s | errors |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (name, file) in settings {
        let tcp = start_serve(dir, file, "127.0.0.1:0", &["--token-file", &token_arg]);
        let socket = dir.join(format!("{}.sock", name.replace('/', "-")));
        let unix = start_serve(dir, file, &format!("unix:{}", socket.display()), &[]);
        check_served(&tcp, dir, token, name);
        check_served(&unix, dir, token, name);
        let client_counts: &[usize] = if name.contains("bash") {
            &[1, 4, 16]
        } else {
            &[1]
        };
        for &clients in client_counts {
            if has_wrk {
                row(name, "wrk, TCP", clients, wrk(&tcp, dir, token, clients));
            }
            if has_oha {
                row(
                    name,
                    "oha, TCP",
                    clients,
                    oha(&tcp, dir, token, clients, None),
                );
                row(
                    name,
                    "oha, unix socket",
                    clients,
                    oha(&unix, dir, token, clients, None),
                );
            }
        }
        if has_oha {
            // At a pace the preparer keeps up with (an agent's hooks, not a flood).
            row(
                name,
                "oha, TCP, 200 req/s",
                1,
                oha(&tcp, dir, token, 1, Some(200)),
            );
            row(
                name,
                "oha, unix socket, 200 req/s",
                1,
                oha(&unix, dir, token, 1, Some(200)),
            );
        }
        stdio_load(dir, name, file, None);
        stdio_load(dir, name, file, Some(Duration::from_millis(2)));
    }
}

/// `serve --stdio`: one request line written, its answer line read, one at a time; the
/// next line `gap` after the last answer (an agent's pace), or at once.
fn stdio_load(dir: &Path, name: &str, settings: &Path, gap: Option<Duration>) {
    let mut child = cli(dir, settings, &["serve", "--stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run hookhost serve --stdio");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let input: serde_json::Value = serde_json::from_str(&request_body(dir)).unwrap();
    let line = format!("{}\n", json!({"id": 1, "input": input}));
    let mut answer = String::new();
    let (mut times, mut calls) = (Vec::new(), Vec::new());
    let deadline = Instant::now() + Duration::from_secs(4);
    while Instant::now() < deadline {
        if let Some(gap) = gap {
            std::thread::sleep(gap);
        }
        answer.clear();
        let started = Instant::now();
        stdin.write_all(line.as_bytes()).unwrap();
        stdout.read_line(&mut answer).unwrap();
        times.push(started.elapsed());
        calls.push(hook_duration(&answer));
    }
    drop(stdin);
    let _ = child.wait();
    times.sort();
    calls.sort();
    let via = match gap {
        Some(gap) => format!("--stdio, a request every {} ms", gap.as_millis()),
        None => "--stdio, back to back".to_string(),
    };
    println!(
        "| {name} | {via} | 1 | {:.0} µs | {:.0} µs | — | — |",
        percentile(&times, 0.5).as_secs_f64() * 1e6,
        percentile(&times, 0.99).as_secs_f64() * 1e6,
    );
    println!(
        "| {name} | {via}: the hook's own `duration_ms` | 1 | {:.0} µs | {:.0} µs | — | — |",
        percentile(&calls, 0.5).as_secs_f64() * 1e6,
        percentile(&calls, 0.99).as_secs_f64() * 1e6,
    );
}

/// The `duration_ms` of the one hook in a `serve` answer line: the call itself, as the
/// engine timed it, without the request's way in and out.
fn hook_duration(answer: &str) -> Duration {
    let answer: serde_json::Value = serde_json::from_str(answer).expect("an answer line");
    assert_eq!(
        answer["outcome"]["hooks"][0]["status"], "success",
        "a failed call is no measurement: {answer}"
    );
    let ms = answer["outcome"]["hooks"][0]["duration_ms"]
        .as_f64()
        .expect("the hook's duration_ms");
    Duration::from_secs_f64(ms / 1e3)
}

/// Settings running ts-guard and py-guard (built now), named `names`, where the guest
/// toolchains are installed; none otherwise.
fn script_guests(dir: &Path, names: [&'static str; 2]) -> Vec<(&'static str, std::path::PathBuf)> {
    if !support::toolchains_installed() {
        eprintln!("guest toolchains missing: TS/Python rows skipped");
        return Vec::new();
    }
    names
        .into_iter()
        .zip(["ts-guard", "py-guard"])
        .map(|(name, guest)| {
            let file = settings(
                dir,
                &format!("{}.json", name.replace('/', "-")),
                json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "wasm", "component": support::script_guest(guest)}]}]}),
            );
            (name, file)
        })
        .collect()
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects fire or serve.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f));
    let dir = tempfile::tempdir().unwrap();
    let guard = rust_guest("bash-guard");
    let wasm = settings(
        dir.path(),
        "wasm.json",
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "wasm", "component": guard}]}]}),
    );
    if wanted("fire") {
        let command = settings(
            dir.path(),
            "command.json",
            json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                "command": "grep -q 'rm -rf /' && { echo no >&2; exit 2; }; exit 0"}]}]}),
        );
        let none = settings(dir.path(), "none-hooks.json", json!({}));
        let mut runs = vec![
            ("fire/no_hooks", none),
            ("fire/one_cached_wasm_hook", wasm.clone()),
            ("fire/one_command_hook", command),
        ];
        // The big components: TypeScript (~12 MB, a ~25 MB artifact) and Python (~18 MB,
        // a ~40 MB artifact), where the toolchains are installed.
        runs.extend(script_guests(
            dir.path(),
            ["fire/one_cached_ts_hook", "fire/one_cached_python_hook"],
        ));
        // Warm the disk cache; a component's digest is remembered once its file has not
        // changed for 2 s (see cache::memo), so warm again after that.
        for (_, file) in &runs {
            fire(dir.path(), file, 1);
        }
        std::thread::sleep(Duration::from_millis(2100));
        for (_, file) in &runs {
            fire(dir.path(), file, 1);
        }
        println!("| fire | median | p90 |");
        println!("| --- | --- | --- |");
        for (name, file) in &runs {
            let hooks = usize::from(*name != "fire/no_hooks");
            check_fire(dir.path(), file, hooks, name);
            let stored = artifacts(dir.path());
            let times = fire(dir.path(), file, 60);
            assert_eq!(
                artifacts(dir.path()),
                stored,
                "{name}: a timed run compiled a component (not a cached hook)"
            );
            println!(
                "| {name} | {:.2} ms | {:.2} ms |",
                percentile(&times, 0.5).as_secs_f64() * 1e3,
                percentile(&times, 0.9).as_secs_f64() * 1e3,
            );
        }
    }
    if wanted("serve") {
        let mut served = vec![("serve/wasm_bash_guard", wasm.clone())];
        served.extend(script_guests(
            dir.path(),
            ["serve/ts_guard", "serve/py_guard"],
        ));
        serve_load(dir.path(), &served);
    }
}

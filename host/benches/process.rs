//! Benchmarks of `hookhost` as a process, the way hosts that cannot link the library
//! reach it (run with `cargo bench -p hookhost --bench process`; release build):
//!
//! * `fire/one_cached_wasm_hook`: wall time of one `hookhost fire` process, one
//!   PreToolUse through bash-guard, the component in the disk cache;
//!   `fire/one_command_hook`: the same with the policy as a `sh -c` hook;
//!   `fire/no_hooks`: the process with nothing configured.
//! * `serve/http_wasm_bash_guard`: `hookhost serve` on loopback, keep-alive clients posting
//!   PreToolUse inputs to `/hooks` for a few seconds per concurrency level: p50, p99 and
//!   requests per second, errors counted. The clients share the machine with the server.
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

fn fire(dir: &Path, settings: &Path, runs: usize) -> Vec<Duration> {
    let input = json!({"hook_event_name": "PreToolUse", "session_id": "b", "cwd": dir,
        "tool_name": "Bash", "tool_input": {"command": "ls -la"}})
    .to_string();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let mut child = Command::new(CLI)
            .args(["fire", "--no-discover", "--settings"])
            .arg(settings)
            .arg("--managed-settings")
            .arg(dir.join("none.json"))
            .arg("--cache-dir")
            .arg(dir.join("cache"))
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run hookhost fire");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success());
        times.push(started.elapsed());
    }
    times.sort();
    times
}

fn serve_load(dir: &Path, settings: &Path) {
    let mut child = Command::new(CLI)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--no-discover",
            "--settings",
        ])
        .arg(settings)
        .arg("--managed-settings")
        .arg(dir.join("none.json"))
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run hookhost serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    let url = format!("http://{addr}/hooks");
    let body = json!({"hook_event_name": "PreToolUse", "session_id": "b", "cwd": dir,
        "tool_name": "Bash", "tool_input": {"command": "ls -la"}})
    .to_string();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!("| serve/http_wasm_bash_guard | clients | p50 | p99 | requests/s | errors |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for clients in [1usize, 4, 16] {
        let (mut latencies, errors, elapsed) = runtime.block_on(async {
            let deadline = Instant::now() + Duration::from_secs(4);
            let mut tasks = Vec::new();
            for _ in 0..clients {
                let (url, body) = (url.clone(), body.clone());
                tasks.push(tokio::spawn(async move {
                    let http = reqwest::Client::new();
                    let mut latencies = Vec::new();
                    let mut errors = 0u64;
                    while Instant::now() < deadline {
                        let started = Instant::now();
                        let ok = match http.post(&url).body(body.clone()).send().await {
                            Ok(response) => {
                                let ok = response.status().is_success();
                                ok && response.bytes().await.is_ok()
                            }
                            Err(_) => false,
                        };
                        if ok {
                            latencies.push(started.elapsed());
                        } else {
                            errors += 1;
                        }
                    }
                    (latencies, errors)
                }));
            }
            let started = Instant::now();
            let mut all = Vec::new();
            let mut errors = 0;
            for task in tasks {
                let (latencies, e) = task.await.unwrap();
                all.extend(latencies);
                errors += e;
            }
            (all, errors, started.elapsed())
        });
        latencies.sort();
        println!(
            "| | {clients} | {:.0} µs | {:.0} µs | {:.0} | {errors} |",
            percentile(&latencies, 0.5).as_secs_f64() * 1e6,
            percentile(&latencies, 0.99).as_secs_f64() * 1e6,
            latencies.len() as f64 / elapsed.as_secs_f64(),
        );
    }
    let _ = child.kill();
    let _ = child.wait();
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
        if support::toolchains_installed() {
            for (name, guest) in [
                ("fire/one_cached_ts_hook", "ts-guard"),
                ("fire/one_cached_python_hook", "py-guard"),
            ] {
                let file = settings(
                    dir.path(),
                    &format!("{guest}.json"),
                    json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
                        {"type": "wasm", "component": support::script_guest(guest)}]}]}),
                );
                runs.push((name, file));
            }
        } else {
            eprintln!("guest toolchains missing: TS/Python fire rows skipped");
        }
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
            let times = fire(dir.path(), file, 60);
            println!(
                "| {name} | {:.2} ms | {:.2} ms |",
                percentile(&times, 0.5).as_secs_f64() * 1e3,
                percentile(&times, 0.9).as_secs_f64() * 1e3,
            );
        }
    }
    if wanted("serve") {
        serve_load(dir.path(), &wasm);
    }
}

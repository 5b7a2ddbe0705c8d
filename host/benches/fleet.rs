//! Criterion benchmarks of the fleet.
//!
//! * `export/off`, `export/on_collector_up`, `export/on_collector_down`, `export/spooled`:
//!   one PreToolUse through the bash-guard component with the OTLP export off, on with a
//!   collector that answers at once, on with no collector at all (its port closed: every
//!   POST fails and is retried, then dropped), and spooled (what a one-shot process
//!   pays: the record written to the spool). The decision path's cost of the export is the
//!   difference from `off`.
//! * `rollout/10_machines`: a new signed revision, pushed to a real registry (Debian's
//!   `docker-registry`; untimed), pulled, verified and activated by 10 machines one after
//!   another (timed): how long a revision takes to reach a fleet that pulls now. Skipped,
//!   saying so, where `docker-registry` or `minisign` is missing.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_main};
use hookhost::{Engine, EngineOptions, LoadOptions};
use serde_json::{Value, json};

mod support;

/// A collector that answers every request 200 at once (what a healthy one does).
fn answering_collector() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream));
        }
    });
    port
}

fn answer(mut stream: std::net::TcpStream) {
    let mut buf = vec![0u8; 1 << 16];
    let mut seen = Vec::new();
    loop {
        let Ok(n) = stream.read(&mut buf) else { return };
        if n == 0 {
            return;
        }
        seen.extend_from_slice(&buf[..n]);
        // One request: headers, then the body its content-length names.
        while let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&seen[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if seen.len() < end + 4 + length {
                break;
            }
            seen.drain(..end + 4 + length);
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
        }
    }
}

fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// An engine over the bash guard with `telemetry` (when given) in its settings file.
fn engine(dir: &Path, telemetry: Option<Value>, spool: Option<PathBuf>) -> Engine {
    let mut settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "wasm", "component": "builtin:bash-guard"}]}]}});
    if let Some(telemetry) = telemetry {
        settings["telemetry"] = telemetry;
    }
    let unique = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let file = dir.join(format!("settings-{unique}.json"));
    std::fs::write(&file, settings.to_string()).unwrap();
    let mut load = LoadOptions::default();
    load.project_dir = Some(dir.join("project"));
    load.managed_path = Some(dir.join("none.json"));
    load.settings = vec![file.display().to_string()];
    let mut options = EngineOptions::default();
    options.wasm.cache_dir = Some(dir.join("cache"));
    options.export_spool = spool;
    Engine::load(&load, options).expect("engine")
}

fn export(c: &mut Criterion, dir: &Path) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    std::fs::create_dir_all(dir.join("project")).unwrap();
    let input = support::input(&dir.join("project"));
    let up = format!("http://127.0.0.1:{}", answering_collector());
    let down = format!("http://127.0.0.1:{}", closed_port());
    let cases = [
        ("off", None, None),
        ("on_collector_up", Some(json!({"endpoint": up})), None),
        ("on_collector_down", Some(json!({"endpoint": down})), None),
        (
            "spooled",
            Some(json!({"endpoint": up})),
            Some(dir.join("spool")),
        ),
    ];
    let mut group = c.benchmark_group("export");
    for (name, telemetry, spool) in cases {
        let engine = engine(dir, telemetry, spool.clone());
        let check = rt.block_on(engine.execute("PreToolUse", input.clone()));
        assert_eq!(check.counts.success, 1, "{:?}", check.hooks);
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for done in 0..iters {
                    // The spool is emptied (untimed) every 200 calls, as serve sends it
                    // every second: a one-shot process writes into a near-empty spool.
                    if done % 200 == 0
                        && let Some(spool) = &spool
                    {
                        let _ = std::fs::remove_dir_all(spool);
                    }
                    let started = Instant::now();
                    std::hint::black_box(rt.block_on(engine.execute("PreToolUse", input.clone())));
                    total += started.elapsed();
                }
                total
            });
        });
    }
    group.finish();
}

fn installed(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

struct Registry(Child);

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn registry(dir: &Path) -> (Registry, String) {
    let port = closed_port();
    let addr = format!("127.0.0.1:{port}");
    let config = dir.join("registry.yml");
    std::fs::write(
        &config,
        format!(
            "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: {addr}\n",
            dir.join("registry").display()
        ),
    )
    .unwrap();
    let child = Command::new("docker-registry")
        .arg("serve")
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while std::net::TcpStream::connect(&addr).is_err() {
        assert!(started.elapsed() < Duration::from_secs(20), "no registry");
        std::thread::sleep(Duration::from_millis(50));
    }
    (Registry(child), addr)
}

/// A signed revision of a policy in `dir`, signed at `at`.
fn revision(dir: &Path, secret: &Path, at: u64) -> PathBuf {
    let hooks = dir.join(format!("hooks-{at}.json"));
    std::fs::write(
        &hooks,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "wasm", "component": "builtin:bash-guard", "config": {"revision": at}}]}]}})
        .to_string(),
    )
    .unwrap();
    let out = dir.join(format!("built-{at}"));
    let document = hookhost::fleet::build_into(&hooks, &out).unwrap();
    let status = Command::new("minisign")
        .args(["-S", "-s"])
        .arg(secret)
        .arg("-m")
        .arg(&document)
        .args(["-t", &format!("timestamp:{at}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    out
}

fn rollout(c: &mut Criterion, dir: &Path) {
    if !installed("docker-registry") || !installed("minisign") {
        eprintln!("rollout/10_machines: skipped (docker-registry and minisign are not installed)");
        return;
    }
    let (_registry, addr) = registry(dir);
    let public = dir.join("team.pub");
    let secret = dir.join("team.key");
    let status = Command::new("minisign")
        .args(["-G", "-W", "-p"])
        .arg(&public)
        .arg("-s")
        .arg(&secret)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let key = std::fs::read_to_string(&public).unwrap();
    let signing = hookhost::SigningPolicy {
        signers: vec![hookhost::TrustedSigner::new("team", key.lines().last().unwrap()).unwrap()],
        require: true,
    };
    let reference = hookhost::OciRef::parse(&format!("oci://{addr}/acme/policy:prod")).unwrap();
    let machines: Vec<hookhost::fleet::store::PolicyStore> = (0..10)
        .map(|i| hookhost::fleet::store::PolicyStore::in_config_dir(&dir.join(format!("m{i}"))))
        .collect();
    let mut at = 1_000;
    let mut group = c.benchmark_group("rollout");
    group.sample_size(10);
    group.bench_function("10_machines", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                at += 1;
                let built = revision(dir, &secret, at);
                hookhost::fleet::publish(&built, &reference).unwrap();
                let started = Instant::now();
                for machine in &machines {
                    let pulled = hookhost::fleet::pull::pull(&reference, machine, &signing);
                    assert!(
                        matches!(pulled, Ok(hookhost::fleet::pull::PullOutcome::Activated(_))),
                        "{pulled:?}"
                    );
                }
                total += started.elapsed();
            }
            total
        });
    });
    group.finish();
}

fn benches() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let mut c = Criterion::default().configure_from_args();
    export(&mut c, &dir);
    rollout(&mut c, &dir);
    c.final_summary();
}

criterion_main!(benches);

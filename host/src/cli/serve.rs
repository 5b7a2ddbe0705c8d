//! `hookhost serve`: one long-running engine for hosts that cannot link the library.
//!
//! HTTP (axum on the CLI's tokio runtime), on loopback TCP or a unix socket:
//!
//! | endpoint | answer |
//! | --- | --- |
//! | `POST /hooks` | the Claude Code HTTP-hook answer for the Claude Code hook input in the body (a drop-in `{"type":"http","url":…}` hook) |
//! | `POST /v1/fire[?event=NAME]` | the `HookOutcome` JSON (event from `?event=` or the input's event field) |
//! | `GET /healthz` | `ok` (no token needed) |
//! | `GET /metrics` | Prometheus text: calls per event and decision, hook results per hook and status, a latency histogram, Wasm cache counters, reloads |
//! | `GET /v1/diagnostics` | the running configuration's diagnostics and the last failed reload |
//!
//! Binding anything but loopback or a unix socket needs `--token-file` (bearer token,
//! compared in constant time); a refused request is 401 and reaches no hook. Bodies are
//! capped (`--max-body`, 413 beyond); at most `--max-concurrent` calls run at once, and one
//! more is answered 503 with `Retry-After: 1`, never dropped.
//!
//! The configuration's files and components are watched; a change (or SIGHUP) builds a new
//! engine, compiles its components, and swaps it in; calls in flight finish on the old one.
//! A configuration with errors keeps the old engine (logged, counted, and listed in
//! `/v1/diagnostics`). SIGTERM or SIGINT stops accepting, lets calls in flight finish (at
//! most `--drain` seconds) and exits 0.
//!
//! `--stdio` serves one JSON request per line on stdin (`{"id": …, "event": …, "input":
//! {…}}`) and writes one line per answer (`{"id": …, "outcome": {…}}` or `{"id": …,
//! "error": "…"}`), in completion order, requests running concurrently.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use anyhow::Context;
use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use super::{CliError, CliResult, ConfigArgs};
use hookhost::{Answer, Engine, Failure, HookOutcome, RequestLimits, Severity};

/// `hookhost serve` options.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Where to listen: `127.0.0.1:PORT` (port 0 picks one), `[::1]:PORT`, or
    /// `unix:/path/to.sock`. The address actually bound is printed on stdout.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8787")]
    listen: String,
    /// File holding the bearer token clients must send (`Authorization: Bearer …`; a
    /// private file: readable by others is refused). On TCP without it, a token is
    /// generated on first start into `<config dir>/serve-token` (mode 0600).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Serve loopback TCP without a bearer token (any local process, but no web page:
    /// Host and Origin are still checked).
    #[arg(long, conflicts_with = "token_file")]
    no_auth: bool,
    /// Serve JSON lines on stdin/stdout instead of HTTP.
    #[arg(long, conflicts_with_all = ["listen", "token_file", "no_auth"])]
    stdio: bool,
    /// Seconds a request body may take to arrive; a slower one is refused (a block where
    /// a failClosed hook guards the event) and holds no call slot meanwhile.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    body_timeout: u64,
    /// Milliseconds a call waits for a free slot before it is refused as overload.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    queue_wait: u64,
    /// Largest request body, bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    max_body: usize,
    /// Calls run at once; one more is answered 503 (stdio: waits).
    #[arg(long, value_name = "N", default_value_t = 256)]
    max_concurrent: usize,
    /// Seconds calls in flight get to finish after SIGTERM.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    drain: u64,
    #[command(flatten)]
    config: ConfigArgs,
}

/// Latency buckets of the histogram, seconds.
const BUCKETS: [f64; 12] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0,
];

#[derive(Default)]
struct Metrics {
    /// (event, decision) → calls.
    calls: Mutex<BTreeMap<(String, &'static str), u64>>,
    /// (hook, status) → results.
    results: Mutex<BTreeMap<(String, String), u64>>,
    /// Bucket counts (the last is +Inf), sum of seconds, count.
    latency: Mutex<([u64; BUCKETS.len() + 1], f64, u64)>,
    reloads: AtomicU64,
    reload_failures: AtomicU64,
    rejected_auth: AtomicU64,
    rejected_overload: AtomicU64,
}

impl Metrics {
    fn record(&self, outcome: &HookOutcome, elapsed: Duration) {
        let decision = match (outcome.permission_decision, outcome.should_block) {
            (Some(decision), _) => decision.as_str(),
            (None, true) => "block",
            (None, false) => "none",
        };
        *lock(&self.calls)
            .entry((outcome.event.clone(), decision))
            .or_default() += 1;
        let mut results = lock(&self.results);
        for hook in &outcome.hooks {
            let status = serde_json::to_value(hook.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            *results.entry((hook.name.clone(), status)).or_default() += 1;
        }
        drop(results);
        let secs = elapsed.as_secs_f64();
        let mut latency = lock(&self.latency);
        let bucket = BUCKETS
            .iter()
            .position(|b| secs <= *b)
            .unwrap_or(BUCKETS.len());
        latency.0[bucket] += 1;
        latency.1 += secs;
        latency.2 += 1;
    }

    fn render(&self, engine: &Engine) -> String {
        let mut out = String::new();
        let label = |text: &str| {
            text.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
        };
        out.push_str("# TYPE hookhost_calls_total counter\n");
        for ((event, decision), n) in lock(&self.calls).iter() {
            out.push_str(&format!(
                "hookhost_calls_total{{event=\"{}\",decision=\"{decision}\"}} {n}\n",
                label(event)
            ));
        }
        out.push_str("# TYPE hookhost_hook_results_total counter\n");
        for ((hook, status), n) in lock(&self.results).iter() {
            out.push_str(&format!(
                "hookhost_hook_results_total{{hook=\"{}\",status=\"{status}\"}} {n}\n",
                label(hook)
            ));
        }
        let (buckets, sum, count) = *lock(&self.latency);
        out.push_str("# TYPE hookhost_call_duration_seconds histogram\n");
        let mut cumulative = 0;
        for (index, bound) in BUCKETS.iter().enumerate() {
            cumulative += buckets[index];
            out.push_str(&format!(
                "hookhost_call_duration_seconds_bucket{{le=\"{bound}\"}} {cumulative}\n"
            ));
        }
        cumulative += buckets[BUCKETS.len()];
        out.push_str(&format!(
            "hookhost_call_duration_seconds_bucket{{le=\"+Inf\"}} {cumulative}\nhookhost_call_duration_seconds_sum {sum}\nhookhost_call_duration_seconds_count {count}\n"
        ));
        let stats = engine.wasm_cache_stats().unwrap_or_default();
        for (name, value) in [
            ("hookhost_wasm_compiled_total", stats.compiled),
            ("hookhost_wasm_cache_disk_hits_total", stats.disk_hits),
            ("hookhost_wasm_cache_memory_hits_total", stats.memory_hits),
            (
                "hookhost_reloads_total",
                self.reloads.load(Ordering::Relaxed),
            ),
            (
                "hookhost_reload_failures_total",
                self.reload_failures.load(Ordering::Relaxed),
            ),
            (
                "hookhost_rejected_unauthorized_total",
                self.rejected_auth.load(Ordering::Relaxed),
            ),
            (
                "hookhost_rejected_overload_total",
                self.rejected_overload.load(Ordering::Relaxed),
            ),
        ] {
            out.push_str(&format!("# TYPE {name} counter\n{name} {value}\n"));
        }
        out
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// What every request shares.
struct Server {
    engine: RwLock<Engine>,
    config: ConfigArgs,
    permits: Semaphore,
    token: Option<Vec<u8>>,
    metrics: Metrics,
    /// The diagnostics of the last reload that was refused.
    refused_reload: Mutex<Vec<String>>,
    /// One reload at a time.
    reloading: tokio::sync::Mutex<()>,
    limits: RequestLimits,
    body_timeout: Duration,
    queue_wait: Duration,
    /// `Host` values a request may carry (TCP on loopback); empty: not checked (a unix
    /// socket, which no web page can reach).
    hosts: std::sync::OnceLock<Vec<String>>,
}

impl Server {
    fn engine(&self) -> Engine {
        self.engine
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Builds a new engine from the configuration and swaps it in, unless it has errors.
    async fn reload(&self, why: &str) {
        let _one = self.reloading.lock().await;
        let built = self.config.engine();
        let engine = match built {
            Ok(engine) => engine,
            Err(err) => {
                self.refuse(why, vec![format!("{err}")]);
                return;
            }
        };
        let mut problems: Vec<String> = engine
            .diagnostics()
            .iter()
            .filter(|d| d.severity == Severity::Error && !engine.from_repository(d))
            .map(ToString::to_string)
            .collect();
        // Compile the components now, off the request path; an owner's component that
        // cannot load is a failed reload too (a repository's broken hooks only lose
        // themselves: they never veto the owner's changes).
        problems.extend(
            engine
                .prepare_all()
                .await
                .iter()
                .filter(|d| !engine.from_repository(d))
                .map(ToString::to_string),
        );
        if !problems.is_empty() {
            self.refuse(why, problems);
            return;
        }
        *self.engine.write().unwrap_or_else(|e| e.into_inner()) = engine;
        lock(&self.refused_reload).clear();
        self.metrics.reloads.fetch_add(1, Ordering::Relaxed);
        eprintln!("hookhost serve: reloaded ({why})");
    }

    fn refuse(&self, why: &str, problems: Vec<String>) {
        self.metrics.reload_failures.fetch_add(1, Ordering::Relaxed);
        eprintln!(
            "hookhost serve: reload ({why}) refused, the running configuration stays:\n  {}",
            problems.join("\n  ")
        );
        *lock(&self.refused_reload) = problems;
    }

    /// One call through the front door: a slot (waiting at most `--queue-wait`), then the
    /// engine's answer; the outcome is recorded in the metrics.
    async fn answer(&self, event: Option<&str>, body: Result<&[u8], (Failure, &[u8])>) -> Answer {
        let engine = self.engine();
        let body = match body {
            Ok(body) => body,
            Err((failure, head)) => return engine.refuse(event, head, failure),
        };
        let permit = tokio::time::timeout(self.queue_wait, self.permits.acquire()).await;
        let Ok(Ok(_permit)) = permit else {
            self.metrics
                .rejected_overload
                .fetch_add(1, Ordering::Relaxed);
            return engine.refuse(event, body, Failure::Overload(self.queue_wait));
        };
        let started = Instant::now();
        let answer = engine
            .answer(hookhost::Request {
                body,
                event,
                session_id: "hookhost-serve",
                limits: &self.limits,
            })
            .await;
        if let Answer::Outcome(outcome) = &answer {
            self.metrics.record(outcome, started.elapsed());
        }
        answer
    }
}

/// Runs `hookhost serve`.
pub async fn serve(args: ServeArgs) -> CliResult {
    let engine = args.config.engine()?;
    for diagnostic in engine.diagnostics() {
        eprintln!("hookhost: {diagnostic}");
    }
    // Compile every component before the first request.
    for diagnostic in engine.prepare_all().await {
        eprintln!("hookhost: {diagnostic}");
    }
    let unix = args.listen.strip_prefix("unix:").map(PathBuf::from);
    let token = match (
        &args.token_file,
        args.stdio || unix.is_some() || args.no_auth,
    ) {
        (Some(path), _) => Some(read_token(path)?),
        (None, true) => None,
        (None, false) => Some(generated_token(&args.config)?),
    };
    let server = Arc::new(Server {
        engine: RwLock::new(engine),
        config: args.config.clone(),
        permits: Semaphore::new(args.max_concurrent.max(1)),
        token,
        metrics: Metrics::default(),
        refused_reload: Mutex::new(Vec::new()),
        reloading: tokio::sync::Mutex::new(()),
        limits: RequestLimits {
            max_body: args.max_body,
            // A request's `cwd` never picks where command hooks run, nor which project
            // answers: one naming another project is refused.
            same_project: true,
        },
        body_timeout: Duration::from_secs(args.body_timeout),
        queue_wait: Duration::from_millis(args.queue_wait),
        hosts: std::sync::OnceLock::new(),
    });
    let _watcher = watch(&server).map_err(|err| {
        eprintln!("hookhost serve: not watching the configuration: {err:#}");
    });
    spawn_sighup(&server)?;
    if args.stdio {
        return stdio(server).await;
    }
    let app = Router::new()
        .route("/hooks", post(claude_hook))
        .route("/v1/fire", post(fire_outcome))
        .route("/metrics", get(metrics))
        .route("/v1/diagnostics", get(diagnostics))
        .layer(middleware::from_fn_with_state(server.clone(), authorize))
        .route("/healthz", get(|| async { "ok" }))
        .layer(middleware::from_fn_with_state(server.clone(), same_origin))
        .with_state(server.clone());
    let drain = Duration::from_secs(args.drain);
    let stop = StopSignals::watch()?;
    if let Some(path) = unix {
        let _ = server.hosts.set(Vec::new());
        let (listener, cleanup) = bind_unix(&path)?;
        println!("listening on unix:{}", path.display());
        let result = run_http(listener, app, drain, &server, stop).await;
        drop(cleanup);
        result
    } else {
        let addr: std::net::SocketAddr = args
            .listen
            .parse()
            .with_context(|| format!("--listen {}: not ADDR:PORT or unix:PATH", args.listen))?;
        if !addr.ip().is_loopback() && args.token_file.is_none() {
            return Err(CliError::Usage(anyhow::anyhow!(
                "--listen {addr} is not a loopback address: give --token-file so that only clients with the token reach the hooks"
            )));
        }
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr().context("no local address")?;
        let _ = server.hosts.set(allowed_hosts(local));
        println!("listening on {local}");
        run_http(listener, app, drain, &server, stop).await
    }
}

/// The `Host` values a request to loopback `local` may carry: the loopback names, with
/// or without the port. A page that rebinds its own name to 127.0.0.1 sends its own name
/// and is refused. Off loopback (where a token is required, and a page cannot send it
/// without a preflight that carries `Origin`) the Host is not checked: empty.
fn allowed_hosts(local: std::net::SocketAddr) -> Vec<String> {
    if !local.ip().is_loopback() {
        return Vec::new();
    }
    let names = ["localhost", "127.0.0.1", "[::1]"];
    let port = local.port();
    names
        .iter()
        .flat_map(|name| [name.to_string(), format!("{name}:{port}")])
        .collect()
}

/// Removes the socket (and its private folder) when `serve` ends.
struct UnixCleanup {
    socket: PathBuf,
}

impl Drop for UnixCleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// Binds a unix socket at `path` with no window in which another user can connect: the
/// socket is created inside a fresh private (0700) folder and renamed into place. Only a
/// stale socket at `path` is replaced; any other file there is an error.
fn bind_unix(path: &Path) -> anyhow::Result<(tokio::net::UnixListener, UnixCleanup)> {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => std::fs::remove_file(path)
            .with_context(|| format!("cannot replace the stale socket {}", path.display()))?,
        Ok(_) => anyhow::bail!(
            "--listen unix:{}: a file that is not a socket is in the way; not replacing it",
            path.display()
        ),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(err).with_context(|| format!("cannot check {}", path.display())),
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let private = tempfile::Builder::new()
        .prefix(".hookhost-sock")
        .tempdir_in(parent)
        .with_context(|| format!("cannot create a private folder in {}", parent.display()))?;
    let staged = private.path().join("s");
    let listener = tokio::net::UnixListener::bind(&staged)
        .with_context(|| format!("cannot listen on {}", path.display()))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("cannot restrict {}", path.display()))?;
    std::fs::rename(&staged, path).with_context(|| format!("cannot place {}", path.display()))?;
    Ok((
        listener,
        UnixCleanup {
            socket: path.to_path_buf(),
        },
    ))
}

/// SIGTERM and SIGINT, watched from before the address is announced: a client that
/// stops `serve` right after "listening on" gets the drain and the socket removal.
struct StopSignals {
    terminate: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
}

impl StopSignals {
    fn watch() -> anyhow::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            terminate: signal(SignalKind::terminate()).context("cannot watch SIGTERM")?,
            interrupt: signal(SignalKind::interrupt()).context("cannot watch SIGINT")?,
        })
    }
}

/// Serves `app` on `listener` until SIGTERM or SIGINT, then drains for at most `drain`.
async fn run_http<L>(
    listener: L,
    app: Router,
    drain: Duration,
    server: &Arc<Server>,
    mut stop: StopSignals,
) -> CliResult
where
    L: axum::serve::Listener,
    L::Addr: std::fmt::Debug,
{
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = stop_rx.await;
            })
            .await
    });
    tokio::select! {
        _ = stop.terminate.recv() => {}
        _ = stop.interrupt.recv() => {}
    }
    eprintln!(
        "hookhost serve: stopping; calls in flight get {}s",
        drain.as_secs()
    );
    let _ = stop_tx.send(());
    if tokio::time::timeout(drain, serving).await.is_err() {
        eprintln!("hookhost serve: drain time over; exiting with calls still running");
    }
    server.engine().close().await;
    Ok(std::process::ExitCode::SUCCESS)
}

/// The token in `path`: a private file (readable by no one else), at least 16
/// characters.
fn read_token(path: &Path) -> anyhow::Result<Vec<u8>> {
    use std::os::unix::fs::PermissionsExt;
    let file = hookhost::open_regular(path, 4096)
        .with_context(|| format!("cannot read --token-file {}", path.display()))?;
    let mode = file.metadata()?.permissions().mode();
    anyhow::ensure!(
        mode & 0o077 == 0,
        "--token-file {}: readable by others (mode {:o}); make it private: chmod 600",
        path.display(),
        mode & 0o777
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
fn generated_token(config: &ConfigArgs) -> anyhow::Result<Vec<u8>> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let Some(dir) = super::config_dir(config.home.clone()) else {
        anyhow::bail!(
            "no usable home for the generated token: give --token-file, or --no-auth to serve loopback without one"
        );
    };
    let path = dir.join("serve-token");
    if !path.exists() {
        hookhost::create_private_dir(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let mut bytes = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut random| std::io::Read::read_exact(&mut random, &mut bytes))
            .context("cannot read random bytes for the token")?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
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

fn forbidden(message: &'static str) -> Response {
    (StatusCode::FORBIDDEN, message).into_response()
}

/// Before anything else, on every route: no web page gets in. A request carrying a
/// browser's `Origin` or `Sec-Fetch-Site` is refused (a cross-site form or `fetch`), and
/// on TCP the `Host` must be the listen address or a loopback name (DNS rebinding sends
/// the attacker's own name).
async fn same_origin(State(server): State<Arc<Server>>, request: Request, next: Next) -> Response {
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
async fn authorize(State(server): State<Arc<Server>>, request: Request, next: Next) -> Response {
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

/// Reads a request body: at most `--max-body` bytes are kept (one more tells oversize),
/// all within `--body-timeout`; no call slot is held meanwhile. The rest of an oversize
/// body is read and dropped (up to [`DRAIN_CAP`]), so the answer — a deny under a
/// failClosed guard — reaches a client still writing, instead of a reset connection it
/// would read as "proceed". On failure, what was kept comes back with it (to find the
/// event in).
async fn read_body(server: &Server, request: Request) -> Result<Vec<u8>, (Failure, Vec<u8>)> {
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
const DRAIN_CAP: usize = 64 << 20;

/// The HTTP status of a failure no failClosed hook guards.
fn failure_response(failure: &Failure) -> Response {
    let status = match failure {
        Failure::Oversize { .. } => StatusCode::PAYLOAD_TOO_LARGE,
        Failure::SlowBody(_) => StatusCode::REQUEST_TIMEOUT,
        Failure::Overload(_) => StatusCode::SERVICE_UNAVAILABLE,
        Failure::ForeignProject { .. } => StatusCode::FORBIDDEN,
        Failure::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        Failure::Unreadable(_) | Failure::NoEvent(_) => StatusCode::BAD_REQUEST,
    };
    let mut response =
        (status, axum::Json(json!({ "error": failure.to_string() }))).into_response();
    if matches!(failure, Failure::Overload(_)) {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

/// One HTTP call: body, slot, answer; `render` turns an outcome into the 200 answer.
async fn door(
    server: &Server,
    event: Option<&str>,
    request: Request,
    render: fn(&HookOutcome) -> Value,
) -> Response {
    let body = read_body(server, request).await;
    let answer = match &body {
        Ok(bytes) => server.answer(event, Ok(bytes)).await,
        Err((failure, head)) => server.answer(event, Err((failure.clone(), head))).await,
    };
    match answer {
        Answer::Outcome(outcome) => axum::Json(render(&outcome)).into_response(),
        Answer::Failed(failure) => failure_response(&failure),
    }
}

/// `POST /hooks`: the answer a Claude Code HTTP hook gives.
async fn claude_hook(State(server): State<Arc<Server>>, request: Request) -> Response {
    door(&server, None, request, http_answer).await
}

/// The Claude Code answer as an HTTP hook gives it: the JSON form of every decision (an
/// HTTP hook has no exit code: a block the command form expresses by exit 2 is a
/// top-level `decision: "block"`), and WorktreeCreate's path as `worktreePath`.
fn http_answer(outcome: &HookOutcome) -> Value {
    let answer = outcome.to_claude_answer();
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
struct FireQuery {
    event: Option<String>,
}

/// `POST /v1/fire`: the whole outcome.
async fn fire_outcome(
    State(server): State<Arc<Server>>,
    Query(query): Query<FireQuery>,
    request: Request,
) -> Response {
    let whole = |outcome: &HookOutcome| serde_json::to_value(outcome).unwrap_or(Value::Null);
    door(&server, query.event.as_deref(), request, whole).await
}

async fn metrics(State(server): State<Arc<Server>>) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4"),
    );
    (headers, server.metrics.render(&server.engine())).into_response()
}

async fn diagnostics(State(server): State<Arc<Server>>) -> Response {
    let engine = server.engine();
    axum::Json(json!({
        "dialect": engine.dialect().name,
        "diagnostics": engine.diagnostics(),
        "refused_reload": *lock(&server.refused_reload),
    }))
    .into_response()
}

/// Reloads on SIGHUP.
fn spawn_sighup(server: &Arc<Server>) -> anyhow::Result<()> {
    let mut hangup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
        .context("cannot watch SIGHUP")?;
    let server = server.clone();
    tokio::spawn(async move {
        while hangup.recv().await.is_some() {
            server.reload("SIGHUP").await;
        }
    });
    Ok(())
}

/// Names a change to which is a configuration change.
fn is_config_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    matches!(
        name,
        "settings.json" | "settings.local.json" | "hooks.json" | "hooks.toml" | "plugin.json"
    ) || path
        .extension()
        .is_some_and(|ext| ext == "wasm" || ext == "json" || ext == "toml")
}

/// Watches the configuration's files, folders and components; a change reloads (after a
/// short quiet period, so an editor's burst of writes is one reload).
fn watch(server: &Arc<Server>) -> anyhow::Result<notify::RecommendedWatcher> {
    use notify::{RecursiveMode, Watcher};
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<PathBuf>();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event
            && !event.kind.is_access()
        {
            for path in event.paths {
                if is_config_file(&path) {
                    let _ = tx.send(path);
                }
            }
        }
    })
    .context("cannot create the file watcher")?;
    let options = server.config.load_options()?;
    let mut folders: Vec<PathBuf> = Vec::new();
    for file in server.engine().source_files() {
        folders.extend(file.parent().map(Path::to_path_buf));
    }
    for setting in &options.settings {
        let path = Path::new(setting);
        if path.is_absolute() || path.exists() {
            folders.extend(path.parent().map(Path::to_path_buf));
        }
    }
    // Every dialect's configuration folders, from the dialects' own discovery tables.
    for file in options.candidate_files() {
        folders.extend(file.parent().map(Path::to_path_buf));
    }
    folders.sort();
    folders.dedup();
    for folder in folders.iter().filter(|f| f.is_dir()) {
        watcher
            .watch(folder, RecursiveMode::NonRecursive)
            .with_context(|| format!("cannot watch {}", folder.display()))?;
    }
    for plugin in options.plugins.iter().filter(|p| p.is_dir()) {
        watcher
            .watch(plugin, RecursiveMode::Recursive)
            .with_context(|| format!("cannot watch {}", plugin.display()))?;
    }
    let server = server.clone();
    tokio::spawn(async move {
        while let Some(first) = rx.recv().await {
            // Quiet period: take every change of the burst.
            tokio::time::sleep(Duration::from_millis(150)).await;
            while rx.try_recv().is_ok() {}
            server.reload(&format!("{} changed", first.display())).await;
        }
    });
    Ok(watcher)
}

/// `--stdio`: JSON lines in, JSON lines out.
async fn stdio(server: Arc<Server>) -> CliResult {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = rx.recv().await {
            if stdout.write_all(line.as_bytes()).await.is_err()
                || stdout.write_all(b"\n").await.is_err()
                || stdout.flush().await.is_err()
            {
                break;
            }
        }
    });
    let mut reader = BufReader::new(tokio::io::stdin());
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
                let _ = tx.send(answer.to_string());
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
async fn stdio_answer(server: &Server, line: &[u8], oversize: bool) -> Value {
    let limit = server.limits.max_body;
    let failed = |id: Value, failure: Failure, head: &[u8]| {
        let answer = server.engine().refuse(None, head, failure);
        stdio_line(id, answer)
    };
    if oversize {
        return failed(Value::Null, Failure::Oversize { limit }, line);
    }
    let request: Value = match hookhost::parse_input(line) {
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

fn stdio_line(id: Value, answer: Answer) -> Value {
    match answer {
        Answer::Outcome(outcome) => json!({"id": id, "outcome": outcome}),
        Answer::Failed(failure) => json!({"id": id, "error": failure.to_string()}),
    }
}

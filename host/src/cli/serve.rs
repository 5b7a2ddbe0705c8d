//! `hookhost serve`: one long-running engine for hosts that cannot link the library.
//!
//! HTTP (axum on the CLI's tokio runtime), on loopback TCP or a unix socket:
//!
//! | endpoint | answer |
//! | --- | --- |
//! | `POST /hooks` | the Claude Code HTTP-hook answer for the Claude Code hook input in the body (a drop-in `{"type":"http","url":…}` hook) |
//! | `POST /v1/fire[?event=NAME]` | the `EventOutcome` JSON (event from `?event=` or the input's event field) |
//! | `POST /v1/agent/NAME[?event=EVENT]` | another agent's hook input (`hookhost hook --agent NAME --serve URL` sends it), answered in that agent's form: `{"stdout", "stderr", "exitCode"}` |
//! | `GET /healthz` | `ok` (no token needed) |
//! | `GET /metrics` | Prometheus text: calls per event and decision, hook results per hook and status, a latency histogram, Wasm cache counters, reloads |
//! | `GET /v1/diagnostics` | the running configuration's diagnostics and the last failed reload |
//!
//! Who may call ([`auth`]): on TCP a bearer token (`--token-file`, or one generated on
//! first start; `--no-auth` on loopback only), compared in constant time; no request that
//! carries a browser's `Origin` or a non-loopback `Host`. Every call goes through the
//! library's front door ([`hookhost::Engine::answer`]) after its body was read and bounded
//! ([`routes`]): under a `failClosed` guard, oversize, slow or malformed input and overload
//! are a 200 deny, never an error status a host would read as "proceed".
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

use std::collections::{BTreeMap, HashMap};
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
use hookhost::internals::platform::StopSignals;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use super::{CliError, CliResult, ConfigArgs};

mod auth;
mod fleet;
mod metrics;
mod projects;
mod reload;
mod routes;
mod stdio;
mod unix_socket;

pub(crate) use auth::read_token;
use auth::*;
use hookhost::{Answer, Engine, EventOutcome, Failure, RequestLimits, Severity};
use metrics::*;
use reload::*;
use routes::*;
use stdio::*;

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
    /// Serve every project of this user: the owners' hooks for every request, plus a
    /// project's own hooks where its `cwd` lies in a workspace the owner trusts (the
    /// trust store or Claude Code's trust dialog; hooks run in that trusted folder).
    #[arg(long, conflicts_with = "project_dir")]
    all_projects: bool,
    /// Serve as the owner's warm engine: on the unix socket `serve.sock` in hookhost's
    /// state folder, the owners' files for every project (`--own-files --all-projects`).
    /// The agents' hook commands (`hookhost-hook`) ask it when it was started with exactly
    /// the folders they name — what `install --warm`'s service unit runs.
    #[arg(long, conflicts_with_all = ["listen", "project_dir", "all_projects"])]
    warm: bool,
    /// Serve as the broker of a `hookhost envelope session` (which starts it): the agent
    /// runs inside the envelope, so shell commands are judged, not rewritten.
    #[arg(long, hide = true)]
    session_broker: bool,
    /// Seconds calls in flight get to finish after SIGTERM.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    drain: u64,
    #[command(flatten)]
    config: ConfigArgs,
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
    /// `--all-projects`: the engines of trusted projects.
    projects: Option<projects::Projects>,
    /// The configuration watcher (project folders are added as projects are served).
    watcher: Mutex<Option<notify::RecommendedWatcher>>,
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
        if let Some(projects) = &self.projects {
            projects.clear();
        }
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
        let body = match body {
            Ok(body) => body,
            Err((failure, head)) => return self.engine().refuse(event, head, failure),
        };
        let engine = self
            .projects
            .as_ref()
            .and_then(|projects| projects.engine_for(self, body))
            .unwrap_or_else(|| self.engine());
        let request = hookhost::Request::new(body, "hookhost-serve", &self.limits).event(event);
        self.in_slot(&engine, event, body, engine.answer(request))
            .await
    }

    /// One of an agent's inputs, read already, through the front door as [`Server::answer`]
    /// takes a request: the engine of its project, a slot, the metrics.
    async fn answer_input(&self, event: &str, input: Value) -> Answer {
        let cwd = input.get("cwd").and_then(Value::as_str).map(str::to_string);
        let engine = self
            .projects
            .as_ref()
            .zip(cwd)
            .and_then(|(projects, cwd)| projects.engine_for_cwd(self, &cwd))
            .unwrap_or_else(|| self.engine());
        let answer = engine.answer_input(event, input, &self.limits, "hookhost-serve");
        self.in_slot(&engine, Some(event), b"", answer).await
    }

    /// Runs `answer` once a call slot is free (waiting at most `--queue-wait`; else the
    /// overload refusal), recording its outcome in the metrics.
    async fn in_slot(
        &self,
        engine: &Engine,
        event: Option<&str>,
        body: &[u8],
        answer: impl Future<Output = Answer>,
    ) -> Answer {
        let permit = tokio::time::timeout(self.queue_wait, self.permits.acquire()).await;
        let Ok(Ok(_permit)) = permit else {
            self.metrics
                .rejected_overload
                .fetch_add(1, Ordering::Relaxed);
            return engine.refuse(event, body, Failure::Overload(self.queue_wait));
        };
        let started = Instant::now();
        let answer = answer.await;
        if let Answer::Outcome(outcome) = &answer {
            self.metrics.record(outcome, started.elapsed());
        }
        answer
    }
}

/// Runs `hookhost serve`.
pub async fn serve(mut args: ServeArgs) -> CliResult {
    if args.warm {
        let state = args.config.state_folder().ok_or_else(|| {
            CliError::Usage(anyhow::anyhow!(
                "--warm: no state folder (give --state-dir or --home)"
            ))
        })?;
        hookhost::internals::create_private_dir(&state)
            .with_context(|| format!("cannot create {}", state.display()))?;
        args.listen = format!("unix:{}", hookhost::warm::socket_in(&state).display());
        args.config.own_files = true;
        args.all_projects = true;
    }
    args.config.no_project = args.all_projects;
    args.config.session_enclosed = args.session_broker;
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
        limits: RequestLimits::new(args.max_body, true),
        body_timeout: Duration::from_secs(args.body_timeout),
        queue_wait: Duration::from_millis(args.queue_wait),
        hosts: std::sync::OnceLock::new(),
        projects: args.all_projects.then(projects::Projects::default),
        watcher: Mutex::new(None),
    });
    match watch(&server) {
        Ok(watcher) => *lock(&server.watcher) = Some(watcher),
        Err(err) => eprintln!("hookhost serve: not watching the configuration: {err:#}"),
    }
    spawn_sighup(&server)?;
    spawn_tag_updates(&server);
    fleet::spawn(&server);
    if args.stdio {
        // On a worker, which the runtime's poller wakes itself: a line is read, answered
        // and written on one thread (`block_on`'s thread would need a worker to wake it,
        // and hand each line back to a worker, a cross-thread wake-up each way).
        return tokio::spawn(stdio(server))
            .await
            .context("the --stdio loop stopped")?;
    }
    let app = Router::new()
        .route("/hooks", post(claude_hook))
        .route("/v1/fire", post(fire_outcome))
        .route("/v1/agent/{name}", post(agent_hook))
        .route("/metrics", get(metrics))
        .route("/v1/diagnostics", get(diagnostics))
        .layer(middleware::from_fn_with_state(server.clone(), authorize))
        .route("/healthz", get(|| async { "ok" }))
        .layer(middleware::from_fn_with_state(server.clone(), same_origin))
        .with_state(server.clone());
    let drain = Duration::from_secs(args.drain);
    let stop = StopSignals::watch().context("cannot watch the stop signals")?;
    if let Some(path) = unix {
        let _ = server.hosts.set(Vec::new());
        unix_socket::serve(&path, app, drain, &server, stop).await
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

/// Serves `app` on `listener` until a stop signal (SIGTERM, SIGINT; Ctrl-C on Windows),
/// then drains for at most `drain`.
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
    stop.recv().await;
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

//! The sender: a thread of its own that batches spans and POSTs them to the collector
//! (`<endpoint>/v1/traces`, `application/x-protobuf`). The decision path only hands a span
//! to a bounded queue and never waits: a full queue drops the span (counted); a collector
//! that fails or stalls is retried with backoff, each POST within a deadline, and a batch
//! that never gets through is dropped (counted) — a dead collector costs the decisions
//! nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::trace::v1::Span;

use super::TelemetrySettings;

/// Spans waiting at most.
pub const QUEUE_CAPACITY: usize = 4096;
/// Spans per POST at most.
pub const MAX_BATCH: usize = 512;
/// How long a span waits for companions before its batch goes.
pub const BATCH_DELAY: Duration = Duration::from_millis(500);
/// One POST's deadline.
pub const POST_DEADLINE: Duration = Duration::from_secs(5);
/// Waits between attempts at one batch (then it is dropped).
pub const BACKOFF: [Duration; 3] = [
    Duration::from_millis(250),
    Duration::from_secs(1),
    Duration::from_secs(4),
];

/// What the export did in this process (every sender counts here).
#[derive(Debug, Default)]
pub struct ExportStats {
    /// Spans the collector accepted.
    pub exported: AtomicU64,
    /// Spans dropped: the queue was full, or the collector refused them past the retries.
    pub dropped: AtomicU64,
    /// POSTs that failed (each retried or dropped).
    pub failed_posts: AtomicU64,
    /// Decisions a one-shot process left in the spool for `serve` to send.
    pub spooled: AtomicU64,
}

/// This process's export counters.
pub fn stats() -> &'static ExportStats {
    static STATS: std::sync::OnceLock<ExportStats> = std::sync::OnceLock::new();
    STATS.get_or_init(ExportStats::default)
}

enum Item {
    Span(Box<Span>),
    Flush(std::sync::mpsc::Sender<()>),
}

/// A handle on a sender thread; the thread sends what is queued and ends when the last
/// handle is dropped.
#[derive(Clone)]
pub struct Sender {
    queue: SyncSender<Item>,
}

impl std::fmt::Debug for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sender")
    }
}

impl Sender {
    /// Starts a sender for `settings`, every batch from the machine `resource` describes.
    pub fn start(settings: &TelemetrySettings, resource: Vec<(String, String)>) -> Self {
        let (queue, receiver) = std::sync::mpsc::sync_channel(QUEUE_CAPACITY);
        let post = Post {
            url: settings.traces_url(),
            headers: settings.headers.clone(),
            resource: Arc::new(resource),
        };
        let spawned = std::thread::Builder::new()
            .name("hookhost-otlp".into())
            .spawn(move || run(receiver, post));
        if let Err(err) = spawned {
            tracing::warn!(
                "the OTLP export cannot start a thread: {err}; decisions are not exported"
            );
        }
        Self { queue }
    }

    /// Queues `span`; drops it (counted) when the queue is full. Never waits.
    pub fn send(&self, span: Span) {
        match self.queue.try_send(Item::Span(Box::new(span))) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                stats().dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Sends what is queued now and waits for it (at most `limit`): for a process about
    /// to exit (`hookhost telemetry flush`, `hookhost policy pull`), never the decision path.
    pub fn flush(&self, limit: Duration) -> bool {
        let (done, wait) = std::sync::mpsc::channel();
        if self
            .queue
            .send_timeout_compat(Item::Flush(done), limit)
            .is_err()
        {
            return false;
        }
        wait.recv_timeout(limit).is_ok()
    }
}

/// `SyncSender::send` with a limit (std has none): tries until `limit`.
trait SendTimeout {
    fn send_timeout_compat(&self, item: Item, limit: Duration) -> Result<(), ()>;
}

impl SendTimeout for SyncSender<Item> {
    fn send_timeout_compat(&self, mut item: Item, limit: Duration) -> Result<(), ()> {
        let until = Instant::now() + limit;
        loop {
            match self.try_send(item) {
                Ok(()) => return Ok(()),
                Err(TrySendError::Disconnected(_)) => return Err(()),
                Err(TrySendError::Full(back)) if Instant::now() < until => {
                    item = back;
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(TrySendError::Full(_)) => return Err(()),
            }
        }
    }
}

struct Post {
    url: String,
    headers: Vec<(String, String)>,
    resource: Arc<Vec<(String, String)>>,
}

fn run(receiver: Receiver<Item>, post: Post) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        tracing::warn!("the OTLP export cannot start its runtime; decisions are not exported");
        return;
    };
    let client = reqwest::Client::builder()
        .timeout(POST_DEADLINE)
        .build()
        .unwrap_or_default();
    let mut batch: Vec<Span> = Vec::new();
    let mut waiting: Vec<std::sync::mpsc::Sender<()>> = Vec::new();
    let mut open = true;
    while open {
        let item = if batch.is_empty() {
            receiver.recv().map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            receiver.recv_timeout(BATCH_DELAY)
        };
        let mut waited_enough = false;
        match item {
            Ok(Item::Span(span)) => batch.push(*span),
            Ok(Item::Flush(done)) => waiting.push(done),
            Err(RecvTimeoutError::Timeout) => waited_enough = true,
            Err(RecvTimeoutError::Disconnected) => open = false,
        }
        let due = batch.len() >= MAX_BATCH || !waiting.is_empty() || !open || waited_enough;
        if due && !batch.is_empty() {
            let spans = std::mem::take(&mut batch);
            runtime.block_on(deliver(&client, &post, spans));
        }
        for done in waiting.drain(..) {
            let _ = done.send(());
        }
    }
}

/// POSTs `spans` as one request, retried with backoff; dropped (counted) when every
/// attempt fails.
async fn deliver(client: &reqwest::Client, post: &Post, spans: Vec<Span>) {
    let count = spans.len() as u64;
    let body = super::otlp::encode(&post.resource, spans);
    for (attempt, wait) in std::iter::once(None)
        .chain(BACKOFF.iter().map(Some))
        .enumerate()
    {
        if let Some(wait) = wait {
            tokio::time::sleep(*wait).await;
        }
        let mut request = client
            .post(&post.url)
            .header("content-type", "application/x-protobuf")
            .body(body.clone());
        for (name, value) in &post.headers {
            request = request.header(name, value);
        }
        match request.send().await {
            Ok(response) if response.status().is_success() => {
                stats().exported.fetch_add(count, Ordering::Relaxed);
                return;
            }
            Ok(response) => {
                stats().failed_posts.fetch_add(1, Ordering::Relaxed);
                tracing::debug!("OTLP export attempt {attempt}: HTTP {}", response.status());
                // A collector that refuses the request as bad will refuse it again.
                if response.status().is_client_error()
                    && response.status() != reqwest::StatusCode::TOO_MANY_REQUESTS
                {
                    break;
                }
            }
            Err(err) => {
                stats().failed_posts.fetch_add(1, Ordering::Relaxed);
                tracing::debug!("OTLP export attempt {attempt}: {err}");
            }
        }
    }
    stats().dropped.fetch_add(count, Ordering::Relaxed);
    tracing::warn!(
        "the OTLP collector {} did not take {count} decision span(s); dropped",
        post.url
    );
}

//! A hostile registry on 127.0.0.1 (a hand-written HTTP/1.1 server, since a real
//! registry will not misbehave): manifests and blobs trickled one byte every 2 s, or
//! served far past any size, and a signature blob that never ends. A pull stops at its
//! deadline or at the size it may read, and a failClosed guard then denies.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hookhost_tests::TestEnv;
use serde_json::json;

use super::{CLI, engine, fire};

/// A component's bytes as the hostile registry declares them.
const DECLARED: &[u8] = &[0u8; 115_000];

/// The registry, its address, and the bytes it has sent in all.
struct Hostile {
    addr: String,
    sent: Arc<AtomicU64>,
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("sha256:{:x}", sha2::Sha256::digest(bytes))
}

/// A Wasm artifact's manifest naming a `DECLARED`-sized layer.
fn manifest() -> String {
    json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.wasm.config.v0+json", "digest": sha256(b"{}"), "size": 2},
        "layers": [{"mediaType": "application/wasm", "digest": sha256(DECLARED), "size": DECLARED.len()}]
    })
    .to_string()
}

impl Hostile {
    fn start() -> Hostile {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let sent = Arc::new(AtomicU64::new(0));
        let counter = sent.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let counter = counter.clone();
                std::thread::spawn(move || serve(stream, &counter));
            }
        });
        Hostile { addr, sent }
    }

    fn reference(&self, repository: &str) -> String {
        format!("oci://{}/{repository}:1.0", self.addr)
    }
}

/// Answers one connection's requests by repository: `trickle`, `flood-manifest`,
/// `flood-blob`.
fn serve(stream: TcpStream, sent: &AtomicU64) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
        // The rest of the head.
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                break;
            }
        }
        let mut write = |bytes: &[u8]| {
            let ok = out.write_all(bytes).is_ok();
            if ok {
                sent.fetch_add(bytes.len() as u64, Ordering::Relaxed);
            }
            ok
        };
        let head = |length: Option<usize>| {
            match length {
            Some(n) => format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.oci.image.manifest.v1+json\r\nContent-Length: {n}\r\n\r\n"
            ),
            None => "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.oci.image.manifest.v1+json\r\nConnection: close\r\n\r\n".to_string(),
        }
        };
        if path == "/v2/" {
            write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
            continue;
        }
        let flood = |write: &mut dyn FnMut(&[u8]) -> bool| {
            // 768 MiB, or until the client hangs up.
            let chunk = vec![b' '; 1 << 20];
            for _ in 0..768 {
                if !write(&chunk) {
                    return;
                }
            }
        };
        let manifest = manifest();
        if path.starts_with("/v2/trickle/") {
            write(head(Some(manifest.len())).as_bytes());
            for byte in manifest.as_bytes() {
                if !write(&[*byte]) {
                    return;
                }
                std::thread::sleep(Duration::from_secs(2));
            }
            return;
        }
        if path.starts_with("/v2/flood-manifest/manifests/") {
            write(head(None).as_bytes());
            flood(&mut write);
            return;
        }
        if path.starts_with("/v2/flood-blob/manifests/") {
            write(head(Some(manifest.len())).as_bytes());
            write(manifest.as_bytes());
            continue;
        }
        if path.starts_with("/v2/flood-blob/blobs/") {
            write(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n");
            flood(&mut write);
            return;
        }
        write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
    }
}

/// `hookhost pull REFERENCE`: whether it succeeded, what it said, how long it took.
fn pull(env: &TestEnv, reference: &str) -> (bool, String, Duration) {
    let started = Instant::now();
    let out = std::process::Command::new(CLI)
        .args(["pull", reference, "--store"])
        .arg(env.root.join("store"))
        .arg("--home")
        .arg(&env.home)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        started.elapsed(),
    )
}

#[test]
fn a_manifest_or_blob_served_past_any_size_is_cut_off() {
    let env = TestEnv::new();
    let registry = Hostile::start();
    for (repository, said) in [
        (
            "flood-manifest",
            "the manifest: over the limit of 4194304 bytes",
        ),
        (
            "flood-blob",
            "runs past the 115000 bytes its manifest declares",
        ),
    ] {
        let before = registry.sent.load(Ordering::Relaxed);
        let (ok, stderr, _) = pull(&env, &registry.reference(repository));
        assert!(!ok && stderr.contains(said), "{repository}: {stderr}");
        // What the client read is bounded by what it may hold; what the server got
        // into the socket's buffers besides is a few MiB.
        let sent = registry.sent.load(Ordering::Relaxed) - before;
        assert!(
            sent < 64 << 20,
            "{repository}: {sent} bytes sent before the cut"
        );
    }
}

#[tokio::test]
async fn a_trickling_registry_meets_the_deadline_and_a_fail_closed_guard_denies() {
    let env = TestEnv::new();
    let registry = Hostile::start();
    let (ok, stderr, took) = pull(&env, &registry.reference("trickle"));
    assert!(
        !ok && stderr.contains("no complete answer within 8 s"),
        "{stderr}"
    );
    assert!(took < Duration::from_secs(20), "{took:?}");
    let guard = engine(
        &env,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "wasm", "component": registry.reference("trickle"), "failClosed": true, "timeout": 15}]}]}}),
    );
    let started = Instant::now();
    let outcome = fire(&env, &guard).await;
    assert!(outcome.should_block, "{:?}", outcome.hooks);
    assert!(started.elapsed() < Duration::from_secs(15));
}

//! A guest that misbehaves on request: its `config.mode` picks the behaviour, so one
//! component covers every limit and refusal the integration tests prove.

use std::io::Write;

use hookhost_guest::{
    Answer, Event, Hook, PreToolUse, SessionStart, Stop, config, export_hook, log,
};

/// The test hook.
pub struct TestGuest;

fn mode() -> String {
    config::get_str("mode").unwrap_or_else(|| "allow".into())
}

fn path() -> String {
    config::get_str("path").unwrap_or_default()
}

#[inline(never)]
fn recurse(depth: u64) -> u64 {
    if depth == u64::MAX {
        return 0;
    }
    std::hint::black_box(recurse(std::hint::black_box(depth + 1))) ^ depth
}

/// Sleeps `config.hold_ms` milliseconds (a host call: other hooks run meanwhile), so a
/// guest keeps what it holds while the others run.
fn hold() {
    let ms = config::get("hold_ms").and_then(|v| v.as_u64()).unwrap_or(0);
    std::thread::sleep(std::time::Duration::from_millis(ms));
}

fn act(event: &Event) -> Result<Answer, String> {
    match mode().as_str() {
        "allow" => Ok(Answer::allow()),
        "deny" => Ok(Answer::deny("test-guest says no")),
        "block" => Ok(Answer::block("test-guest blocks")),
        "context" => Ok(Answer::none().with_context(config::get_str("text").unwrap_or_default())),
        "echo" => {
            let report = serde_json::json!({
                "event": event.name(),
                "tool": event.tool_name(),
                "command": event.tool_field("command"),
                "session": event.session_id(),
                "matcher_value": event.matcher_value(),
                "config": config::all(),
                "env": std::env::var("HOME").ok(),
                "secret_env": std::env::var("PATH").ok(),
                "raw_event": event.json().get("hook_event_name").cloned(),
            });
            // `via: system` answers in the system message, for events without context.
            if config::get_str("via").as_deref() == Some("system") {
                return Ok(Answer::none().with_system_message(report.to_string()));
            }
            Ok(Answer::none().with_context(report.to_string()))
        }
        "rewrite" => {
            let mut input = event.tool_input().ok_or("no tool input")?;
            // Idempotent, as a well-behaved rewriter is: the rewrite is a fixpoint.
            let command = input["command"].as_str().unwrap_or("").to_string();
            if !command.ends_with("--dry-run") {
                input["command"] = serde_json::Value::String(format!("{command} --dry-run"));
            }
            Ok(Answer::none().update_input(&input))
        }
        "loop" => {
            let mut x: u64 = 1;
            loop {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                if x == 42 {
                    return Ok(Answer::none());
                }
            }
        }
        "memory" => {
            let mut chunks: Vec<Vec<u8>> = Vec::new();
            loop {
                chunks.push(vec![7u8; 1 << 20]);
                if chunks.len() == usize::MAX {
                    return Ok(Answer::none());
                }
            }
        }
        // Small blocks only (an allocator's small-block path), until memory runs out.
        "small-memory" => {
            let mut blocks: Vec<Box<[u8; 1000]>> = Vec::new();
            loop {
                blocks.push(Box::new([7u8; 1000]));
                if blocks.len() == usize::MAX {
                    return Ok(Answer::none());
                }
            }
        }
        // About 64 MB of small temporaries, at most 64 alive at once: fits a small memory
        // limit only if freed blocks are reused.
        "churn" => {
            let mut live: Vec<String> = Vec::new();
            let (mut total, mut seed) = (0usize, 7u32);
            while total < 64 << 20 {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                let size = 1 + (seed >> 8) as usize % 8000;
                live.push("x".repeat(size));
                total += size;
                if live.len() > 64 {
                    live.swap_remove((seed >> 4) as usize % live.len());
                }
            }
            Ok(Answer::none().with_context(format!("churned {total} bytes")))
        }
        "stack" => Ok(Answer::none().with_context(recurse(0).to_string())),
        "read" => match std::fs::read_to_string(path()) {
            Ok(text) => Ok(Answer::none().with_context(format!("read ok: {}", text.trim()))),
            Err(err) => Ok(Answer::none().with_context(format!("read failed: {err}"))),
        },
        "write" => match std::fs::write(path(), b"written by test-guest") {
            Ok(()) => Ok(Answer::none().with_context("write ok")),
            Err(err) => Ok(Answer::none().with_context(format!("write failed: {err}"))),
        },
        "print" => {
            let line = [b'x'; 1023];
            let mut out = std::io::stdout();
            for _ in 0..10_000 {
                out.write_all(&line).map_err(|e| e.to_string())?;
                out.write_all(b"\n").map_err(|e| e.to_string())?;
            }
            Ok(Answer::none())
        }
        "fds" => {
            // Opens the granted file again and again, keeping every handle.
            let mut files = Vec::new();
            let error = loop {
                match std::fs::File::open(path()) {
                    Ok(file) => files.push(file),
                    Err(err) => break err.to_string(),
                }
                if files.len() >= 100_000 {
                    break "no limit".to_string();
                }
            };
            hold();
            Ok(Answer::none().with_context(format!("opened {}: {error}", files.len())))
        }
        "listdir" => {
            // Opens directory listings of the granted folder, keeping every one.
            let mut listings = Vec::new();
            let error = loop {
                match std::fs::read_dir(path()) {
                    Ok(listing) => listings.push(listing),
                    Err(err) => break err.to_string(),
                }
                if listings.len() >= 100_000 {
                    break "no limit".to_string();
                }
            };
            hold();
            Ok(Answer::none().with_context(format!("listed {}: {error}", listings.len())))
        }
        "nap" => {
            hold();
            Ok(Answer::allow())
        }
        "watch" => {
            let count = config::get("count").and_then(|v| v.as_u64()).unwrap_or(0);
            let mut answer = Answer::none();
            for _ in 0..count {
                answer = answer.watch(String::new());
            }
            Ok(answer)
        }
        // Reports what an earlier call of the same instance would have left behind, then
        // leaves some of everything: a counter in a static, a grown linear memory, a
        // leaked heap block, and (with a granted `path`) 40 leaked WASI file handles,
        // which would fill the host's handle table within a few calls of one instance.
        "remember" => {
            use std::sync::atomic::{AtomicU64, Ordering};
            static CALLS: AtomicU64 = AtomicU64::new(0);
            let calls = CALLS.fetch_add(1, Ordering::Relaxed);
            #[cfg(target_arch = "wasm32")]
            let pages = core::arch::wasm32::memory_size(0);
            #[cfg(not(target_arch = "wasm32"))]
            let pages = 0usize;
            let heap = Box::leak(vec![1u8; 4096].into_boxed_slice()).as_ptr() as usize;
            #[cfg(target_arch = "wasm32")]
            core::arch::wasm32::memory_grow(0, 1);
            let stack = std::hint::black_box(&calls) as *const u64 as usize;
            let mut opened = 0;
            let mut open_error = None;
            if !path().is_empty() {
                for _ in 0..40 {
                    match std::fs::File::open(path()) {
                        Ok(file) => {
                            std::mem::forget(file);
                            opened += 1;
                        }
                        Err(err) => {
                            open_error = Some(err.to_string());
                            break;
                        }
                    }
                }
            }
            let report = serde_json::json!({
                "calls_before": calls, "pages": pages, "heap": heap, "stack": stack,
                "opened": opened, "open_error": open_error,
            });
            Ok(Answer::none().with_context(report.to_string()))
        }
        // Grows memory past 20 MiB (beyond what a pool keeps resident per slot), reads
        // the byte there, then marks it: a fresh instance must read 0 every time.
        "far" => {
            #[cfg(target_arch = "wasm32")]
            let found = far_marker();
            #[cfg(not(target_arch = "wasm32"))]
            let found = 0u8;
            Ok(Answer::none().with_context(format!("found {found}")))
        }
        "panic" => panic!("test-guest panicked on purpose"),
        "garbage" => Ok(Answer::none().update_input_text("{not json")),
        "err" => Err("test-guest returned an error".into()),
        "huge" => Ok(Answer::none().with_context("y".repeat(1 << 20))),
        "sleep" => {
            std::thread::sleep(std::time::Duration::from_secs(30));
            Ok(Answer::none())
        }
        "log" => {
            for i in 0..1000 {
                log::info(&format!("log line {i}"));
            }
            Ok(Answer::none())
        }
        // Asks the host for the raw input again and again, dropping each copy: the
        // host's fetch budget, not the guest's memory, must stop it.
        "fetch" => {
            for _ in 0..100_000 {
                drop(hookhost_guest::bindings::hookhost::hooks::input::raw());
            }
            Ok(Answer::none().with_context("fetched without limit"))
        }
        // Everything fetched on demand, reported back.
        "fields" => {
            let report = serde_json::json!({
                "tool_input": event.tool_input(),
                "tool_use_id": event.field("tool_use_id"),
                "missing": event.field("no_such_field"),
                "raw_len": event.raw().len(),
            });
            Ok(Answer::none().with_context(report.to_string()))
        }
        // The shell view as the SDK reads it, reported back.
        "shell" => {
            let script = match config::get_str("text") {
                Some(text) => hookhost_guest::shell::parse(&text),
                None => hookhost_guest::shell::bash_command().ok_or("no command")?,
            };
            Ok(Answer::none().with_context(shell_report(&script).to_string()))
        }
        // `config.times` parses of the command in one call.
        "shell-parses" => {
            let times = config::get("times").and_then(|v| v.as_u64()).unwrap_or(1);
            let text = config::get_str("text").unwrap_or_default();
            let nodes: usize = (0..times)
                .map(|_| hookhost_guest::shell::parse(&text).nodes().count())
                .sum();
            Ok(Answer::none().with_context(nodes.to_string()))
        }
        // Every answer field 0.2.0 added.
        "full-answer" => Ok(Answer::deny("full")
            .update_permissions(
                &serde_json::json!({"type": "setMode", "mode": "plan", "destination": "session"}),
            )
            .interrupt()
            .with_session_title("titled by wasm")
            .suppress_output()
            .update_message("new message")
            .append_system_prompt("be careful")
            .with_worktree_path("/tmp/wt")
            .with_custom_instructions("keep the tests")),
        other => Err(format!("unknown mode {other}")),
    }
}

impl Hook for TestGuest {
    fn pre_tool_use(call: PreToolUse) -> Result<Answer, String> {
        act(&call)
    }

    fn stop(stop: Stop) -> Result<Answer, String> {
        act(&stop)
    }

    fn session_start(start: SessionStart) -> Result<Answer, String> {
        act(&start)
    }

    fn other(event: Event) -> Result<Answer, String> {
        act(&event)
    }
}

export_hook!(TestGuest);

/// The byte at 20 MiB after growing the memory to hold it (grown here, so no allocator
/// owns it), then set to 0x5a.
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)]
fn far_marker() -> u8 {
    const AT: usize = 20 << 20;
    const PAGE: usize = 64 << 10;
    let have = core::arch::wasm32::memory_size(0) * PAGE;
    if have > AT {
        // Not a fresh instance's small memory: report it rather than touch the heap.
        return 0xff;
    }
    core::arch::wasm32::memory_grow(0, (AT - have) / PAGE + 1);
    let at = AT as *mut u8;
    // SAFETY: `AT` lies in pages this call grew (the heap is far smaller), which nothing
    // else uses; volatile so the read and write happen as written.
    unsafe {
        let found = at.read_volatile();
        at.write_volatile(0x5a);
        found
    }
}

/// Everything the SDK's shell view gives, as JSON.
fn shell_report(script: &hookhost_guest::shell::Script) -> serde_json::Value {
    use hookhost_guest::shell::Word;
    let word = |w: Word| serde_json::json!({"text": w.text, "dynamic": w.dynamic});
    let names = |it: &mut dyn Iterator<Item = hookhost_guest::shell::Command>| {
        it.map(|c| c.text().to_string()).collect::<Vec<_>>()
    };
    let nodes: Vec<serde_json::Value> = script
        .nodes()
        .map(|c| {
            serde_json::json!({
                "kind": format!("{:?}", c.kind()),
                "text": c.text(),
                "program": c.program(),
                "name": c.name(),
                "args": c.args(),
                "arg_words": c.arg_words().map(word).collect::<Vec<_>>(),
                "words": c.words().map(word).collect::<Vec<_>>(),
                "words_back": c.words().rev().map(|w| w.text).collect::<Vec<_>>(),
                "assignments": c.assignments().map(word).collect::<Vec<_>>(),
                "redirects": c.redirects().map(|r| serde_json::json!({
                    "fd": r.fd, "op": r.op, "target": word(r.target)
                })).collect::<Vec<_>>(),
                "operands": c.operands(),
                "via": format!("{:?}", c.via()),
                "runs_code": c.runs_code(),
                "name_is_dynamic": c.name_is_dynamic(),
                "ancestors": names(&mut c.ancestors()),
                "inside": names(&mut c.inside()),
                "upstream": names(&mut c.upstream()),
            })
        })
        .collect();
    serde_json::json!({
        "partial": script.partial(),
        "error": script.error(),
        "nodes": nodes,
        "commands": script.commands().count(),
    })
}

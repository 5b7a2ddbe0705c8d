//! Unit tests of the engine: executors' default timeouts and the futures' sizes.
use super::*;
use crate::config::{Handler, PromptHandler, WasmHandler};
use crate::executor::prompt::LlmOptions;
use crate::executor::registry::{self, Shared};
use crate::executor::wasm::WasmOptions;

fn timeout_of(event: &str, handler: Handler) -> Duration {
    let spec = session_hooks::test_spec(event, None, handler).unwrap();
    let shared = Shared::new(
        Default::default(),
        Default::default(),
        None,
        LlmOptions::default(),
        WasmOptions::default(),
    );
    let executor = registry::build(&spec, &shared);
    LoadedHook::new(1, spec, executor).timeout
}

#[test]
fn each_executor_gives_its_default_timeout() {
    let wasm = || Handler::Wasm(WasmHandler::new("x.wasm"));
    let prompt = || {
        Handler::Prompt(PromptHandler {
            prompt: "p".into(),
            model: None,
            continue_on_block: false,
        })
    };
    assert_eq!(timeout_of("PreToolUse", wasm()), Duration::from_secs(5));
    assert_eq!(timeout_of("MessageDisplay", wasm()), Duration::from_secs(5));
    assert_eq!(timeout_of("Stop", prompt()), Duration::from_secs(30));
    assert_eq!(
        timeout_of("UserPromptSubmit", prompt()),
        Duration::from_secs(30)
    );
}

#[test]
fn an_events_future_stays_below_the_large_request_size() {
    // Hosts move this future whole and box or spawn it (`serve` per request,
    // `execute_detached`); the stages below it box their own large parts.
    let dir = tempfile::tempdir().unwrap();
    let load = LoadOptions {
        project_dir: Some(dir.path().to_path_buf()),
        managed_path: Some(dir.path().join("none.json")),
        ..Default::default()
    };
    let engine = Engine::load(&load, EngineOptions::default()).unwrap();
    let event = engine.execute("PreToolUse", serde_json::json!({}));
    let size = std::mem::size_of_val(&event);
    assert!(
        size <= crate::executor::SMALL_REQUEST,
        "Engine::execute's future is {size} bytes"
    );
    let input = HookInput::new(engine.inner.dialect.event("PreToolUse"), Value::Null);
    let run = EventRun {
        event: input.event.clone(),
        project_dir: None,
        background: engine.inner.background.clone(),
        calls: engine.inner.calls.clone(),
    };
    let round = run.run_all(&[], input);
    let size = std::mem::size_of_val(&round);
    assert!(
        size <= crate::executor::SMALL_REQUEST,
        "a round's future is {size} bytes"
    );
}

//! The prompt executor against a real local server that speaks the Anthropic Messages
//! and OpenAI chat-completions shapes, checking what hookhost sent.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookhost::{Engine, EventOutcome, HookStatus};
use hookhost::{LlmOptions, Provider};
use hookhost_tests::TestEnv;
use hookhost_tests::hook_error;
use hookhost_tests::server::{Reply, TestServer};
use serde_json::{Value, json};

/// A fake model: answers `text` in the shape of the API the request came in on.
async fn model(text: Arc<Mutex<String>>) -> TestServer {
    TestServer::start(move |request| {
        let text = text.lock().unwrap().clone();
        if text == "<500>" {
            return Reply::new(500, r#"{"error": {"message": "overloaded"}}"#);
        }
        let delay = if text == "<slow>" { Duration::from_secs(5) } else { Duration::ZERO };
        match request.path.as_str() {
            "/v1/messages" => Reply::new(200, json!({"type": "message", "role": "assistant",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}).to_string()),
            "/v1/chat/completions" => Reply::new(200, json!({"object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}).to_string()),
            _ => Reply::new(404, "{}"),
        }
        .delayed(delay)
    })
    .await
}

fn engine(env: &TestEnv, server: &TestServer, provider: Provider, hooks: Value) -> Engine {
    let settings = env.settings("prompt.json", hooks);
    let mut options = env.engine_options();
    let mut llm = LlmOptions::for_provider(provider);
    llm.base_url = match provider {
        Provider::Anthropic => server.url(""),
        Provider::OpenAi => server.url("/v1"),
        other => panic!("no mock for {other:?}"),
    };
    llm.api_key = Some("test-key-123".into());
    llm.model = "default-model".into();
    options.llm = llm;
    Engine::load(&env.load_options(&[settings], &[]), options).unwrap()
}

fn prompt_hook(event: &str, prompt: &str, extra: Value) -> Value {
    let mut handler = json!({"type": "prompt", "prompt": prompt});
    for (k, v) in extra.as_object().unwrap() {
        handler[k] = v.clone();
    }
    json!({ event: [{"hooks": [handler]}] })
}

async fn fire(engine: &Engine, event: &str, input: Value) -> EventOutcome {
    engine.execute(event, input).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_request_shape_and_ok_true() {
    let env = TestEnv::new();
    let answer = Arc::new(Mutex::new(r#"{"ok": true}"#.to_string()));
    let server = model(answer.clone()).await;
    let hooks = prompt_hook(
        "Stop",
        "Did the agent finish? Input: $ARGUMENTS (costs \\$0)",
        json!({"model": "haiku-test"}),
    );
    let engine = engine(&env, &server, Provider::Anthropic, hooks);
    let outcome = fire(
        &engine,
        "Stop",
        json!({"session_id": "s", "last_assistant_message": "All done"}),
    )
    .await;
    assert_eq!(
        outcome.hooks[0].status,
        HookStatus::Success,
        "{:?}",
        outcome.hooks[0]
    );
    assert_eq!(outcome.hooks[0].executor, "prompt");
    assert!(!outcome.should_block);
    let sent = server.requests().pop().unwrap();
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some("test-key-123"));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    let body = sent.json();
    assert_eq!(body["model"], "haiku-test");
    let text = body["messages"][0]["content"].as_str().unwrap();
    assert!(text.starts_with("Did the agent finish? Input: {"), "{text}");
    hookhost_tests::assert_says(text, "\"last_assistant_message\":\"All done\"");
    assert!(text.ends_with("(costs $0)"), "{text}");
    assert!(body["system"].as_str().unwrap().contains("\"ok\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_shape_and_ok_false_effects() {
    let env = TestEnv::new();
    let answer = Arc::new(Mutex::new(
        "Here you go:\n```json\n{\"ok\": false, \"reason\": \"rm is destructive\"}\n```"
            .to_string(),
    ));
    let server = model(answer.clone()).await;
    let hooks = json!({
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Is this safe?"}]}],
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "Done?"}]}],
        "PermissionRequest": [{"hooks": [{"type": "prompt", "prompt": "Allow?"}]}]
    });
    let engine = engine(&env, &server, Provider::OpenAi, hooks);
    let outcome = fire(&engine, "PreToolUse", env.bash("rm -rf build")).await;
    hookhost_tests::assert_decision(&outcome, "deny");
    assert_eq!(outcome.block_reason.as_deref(), Some("rm is destructive"));
    assert!(
        !outcome.continue_,
        "PreToolUse ok:false ends the turn by default"
    );
    let sent = server.requests().pop().unwrap();
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some("Bearer test-key-123"));
    let body = sent.json();
    assert_eq!(body["model"], "default-model");
    assert_eq!(body["messages"][0]["role"], "system");
    assert!(
        body["messages"][1]["content"]
            .as_str()
            .unwrap()
            .starts_with("Is this safe?\n\n{")
    );
    let stop = fire(&engine, "Stop", json!({})).await;
    assert!(stop.should_block && stop.continue_);
    assert_eq!(stop.block_reason.as_deref(), Some("rm is destructive"));
    let permission = fire(
        &engine,
        "PermissionRequest",
        json!({"tool_name": "Bash", "tool_input": {}}),
    )
    .await;
    assert!(
        !permission.should_block,
        "ok:false has no effect on PermissionRequest"
    );
    *answer.lock().unwrap() =
        r#"{"ok": false, "reason": "cannot be done", "impossible": true}"#.into();
    assert!(!fire(&engine, "Stop", json!({})).await.should_block);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_answers_errors_and_timeouts() {
    let env = TestEnv::new();
    let answer = Arc::new(Mutex::new("I think it is fine.".to_string()));
    let server = model(answer.clone()).await;
    let mut hooks = prompt_hook("Stop", "Done?", json!({"timeout": 1}));
    hooks["Stop"][0]["hooks"][0]["name"] = json!("done-check");
    let engine = engine(&env, &server, Provider::Anthropic, hooks);
    let outcome = fire(&engine, "Stop", json!({})).await;
    assert_eq!(outcome.hooks[0].status, HookStatus::NonBlockingError);
    let error = outcome.hooks[0].error.clone().unwrap();
    assert!(
        error.contains("prompt hook done-check") && error.contains("did not answer"),
        "{error}"
    );
    *answer.lock().unwrap() = "<500>".into();
    let outcome = fire(&engine, "Stop", json!({})).await;
    assert!(hook_error(&outcome, 0).contains("HTTP 500 Internal Server Error: overloaded"));
    *answer.lock().unwrap() = "<slow>".into();
    let outcome = fire(&engine, "Stop", json!({})).await;
    assert_eq!(outcome.hooks[0].status, HookStatus::Cancelled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_key_agent_hooks_and_misplaced_prompts() {
    let env = TestEnv::new();
    let hooks = json!({
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "Done?"}, {"type": "agent", "prompt": "Check"}]}],
        "SessionStart": [{"hooks": [{"type": "prompt", "prompt": "Hello"}]}]
    });
    let settings = env.settings("p.json", hooks);
    let mut options = env.engine_options();
    let mut llm = LlmOptions::for_provider(Provider::Anthropic);
    llm.api_key_env = "HOOKHOST_TEST_NO_SUCH_KEY".into();
    llm.base_url = "http://127.0.0.1:9".into();
    options.llm = llm;
    let engine = Engine::load(&env.load_options(&[settings], &[]), options).unwrap();
    let warnings: Vec<String> = engine.diagnostics().iter().map(|d| d.to_string()).collect();
    assert!(
        warnings.iter().any(|w| w.starts_with("warning:")
            && w.contains("`prompt` hooks are not accepted on `SessionStart`")),
        "{warnings:?}"
    );
    let outcome = fire(&engine, "Stop", json!({})).await;
    assert!(hook_error(&outcome, 0).contains("HOOKHOST_TEST_NO_SUCH_KEY"));
    assert!(hook_error(&outcome, 1).contains("`agent` hooks are not supported"));
    assert_eq!(outcome.counts.non_blocking_error, 2);
}

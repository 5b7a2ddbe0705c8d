use serde_json::{Value, json};

use super::*;
use crate::agent::{AGENT_FIELD, AGENT_TOOL_FIELD};
use crate::outcome::EventOutcome;

fn one(agent: Agent, event: Option<&str>, raw: Value) -> (String, Value) {
    let normalised = Normalised::read(agent, event, raw).unwrap();
    assert_eq!(normalised.inputs.len(), 1);
    (normalised.event, normalised.inputs[0].clone())
}

#[test]
fn every_agents_shell_call_is_bash_with_its_command() {
    let cases = [
        (
            Agent::Copilot,
            Some("preToolUse"),
            json!({"sessionId": "s", "timestamp": 1, "cwd": "/p", "toolName": "bash",
                   "toolArgs": {"command": "ls", "description": "d"}}),
        ),
        (
            Agent::Copilot,
            None,
            json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/p",
                   "tool_name": "Bash", "tool_input": {"command": "ls"}}),
        ),
        (
            Agent::Codex,
            None,
            json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/p",
                   "tool_name": "exec_command", "tool_input": {"cmd": "ls"}}),
        ),
        (
            Agent::Codex,
            None,
            json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/p",
                   "tool_name": "write_stdin", "tool_input": {"session_id": 3, "chars": "ls"}}),
        ),
        (
            Agent::Gemini,
            None,
            json!({"hook_event_name": "BeforeTool", "session_id": "s", "cwd": "/p",
                   "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
        ),
        (
            Agent::Cursor,
            None,
            json!({"hook_event_name": "beforeShellExecution", "conversation_id": "s",
                   "command": "ls", "workspace_roots": ["/p"]}),
        ),
        (
            Agent::OpenCode,
            None,
            json!({"hook_event_name": "tool.execute.before", "sessionID": "s", "cwd": "/p",
                   "tool": "bash", "args": {"command": "ls"}}),
        ),
        (
            Agent::Factory,
            None,
            json!({"hook_event_name": "PreToolUse", "sessionId": "s", "cwd": "/p",
                   "toolName": "Execute", "toolInput": {"command": "ls"}}),
        ),
    ];
    for (agent, event, raw) in cases {
        let (ours, input) = one(agent, event, raw);
        assert_eq!(ours, "PreToolUse", "{agent:?}");
        assert_eq!(input["hook_event_name"], "PreToolUse", "{agent:?}");
        assert_eq!(input["tool_name"], "Bash", "{agent:?}: {input}");
        assert_eq!(input["tool_input"]["command"], "ls", "{agent:?}: {input}");
        assert_eq!(input["session_id"], "s", "{agent:?}: {input}");
        assert_eq!(input["cwd"], "/p", "{agent:?}: {input}");
        assert_eq!(input[AGENT_FIELD], agent.name(), "{agent:?}");
    }
}

#[test]
fn file_tools_name_their_file_path_and_mcp_tools_their_server() {
    let (_, input) = one(
        Agent::Gemini,
        None,
        json!({"hook_event_name": "BeforeTool", "tool_name": "read_file",
               "tool_input": {"absolute_path": "/p/a"}}),
    );
    assert_eq!(
        (
            input["tool_name"].as_str(),
            input["tool_input"]["file_path"].as_str()
        ),
        (Some("Read"), Some("/p/a"))
    );
    let (_, input) = one(
        Agent::OpenCode,
        None,
        json!({"hook_event_name": "tool.execute.before", "tool": "write",
               "args": {"filePath": "/p/a", "content": "x"}}),
    );
    assert_eq!(input["tool_name"], "Write");
    assert_eq!(input["tool_input"]["file_path"], "/p/a");
    let (_, input) = one(
        Agent::Cursor,
        None,
        json!({"hook_event_name": "preToolUse", "tool_name": "MCP:github:create_issue",
               "tool_input": {}}),
    );
    assert_eq!(input["tool_name"], "mcp__github__create_issue");
}

#[test]
fn a_codex_patch_is_one_call_per_file() {
    let patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.rs\n@@\n-y\n+z\n*** End Patch\n";
    let normalised = Normalised::read(
        Agent::Codex,
        None,
        json!({"hook_event_name": "PreToolUse", "tool_name": "apply_patch",
                   "tool_input": {"input": patch}}),
    )
    .unwrap();
    let calls: Vec<(String, String)> = normalised
        .inputs
        .iter()
        .map(|input| {
            (
                input["tool_name"].as_str().unwrap().to_string(),
                input["tool_input"]["file_path"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        vec![
            ("Write".into(), "a.txt".into()),
            ("Edit".into(), "b.rs".into())
        ]
    );
}

#[test]
fn unreadable_inputs_are_named() {
    assert_eq!(
        Normalised::read(Agent::Gemini, None, json!([1])),
        Err(AgentError::NotAnObject { agent: "gemini" })
    );
    assert_eq!(
        Normalised::read(Agent::Copilot, None, json!({"toolName": "bash"})),
        Err(AgentError::NoEvent { agent: "copilot" })
    );
}

fn denied(event: &str) -> EventOutcome {
    let mut outcome = EventOutcome::empty(event);
    outcome.permission_decision = Some(PermissionDecision::Deny);
    outcome.permission_decision_reason = Some("no".into());
    outcome
}

#[test]
fn each_agent_reads_a_deny_in_its_own_form() {
    let parse = |reply: AgentReply| -> Value { serde_json::from_str(&reply.stdout).unwrap() };
    let copilot = parse(AgentReply::to_outcome(
        Agent::Copilot,
        "preToolUse",
        &denied("PreToolUse"),
    ));
    assert_eq!(
        copilot,
        json!({"permissionDecision": "deny", "permissionDecisionReason": "no"})
    );
    let pascal = parse(AgentReply::to_outcome(
        Agent::Copilot,
        "PreToolUse",
        &denied("PreToolUse"),
    ));
    assert_eq!(pascal["hookSpecificOutput"]["permissionDecision"], "deny");
    let codex = parse(AgentReply::to_outcome(
        Agent::Codex,
        "PreToolUse",
        &denied("PreToolUse"),
    ));
    assert_eq!(codex["hookSpecificOutput"]["permissionDecision"], "deny");
    let gemini = parse(AgentReply::to_outcome(
        Agent::Gemini,
        "BeforeTool",
        &denied("PreToolUse"),
    ));
    assert_eq!(gemini, json!({"decision": "deny", "reason": "no"}));
    let cursor = parse(AgentReply::to_outcome(
        Agent::Cursor,
        "beforeShellExecution",
        &denied("PreToolUse"),
    ));
    assert_eq!(
        cursor,
        json!({"permission": "deny", "user_message": "no", "agent_message": "no"})
    );
    let opencode = parse(AgentReply::to_outcome(
        Agent::OpenCode,
        "tool.execute.before",
        &denied("PreToolUse"),
    ));
    assert_eq!(opencode["decision"], "deny");
}

#[test]
fn a_failure_is_answered_in_band() {
    for &agent in Agent::ALL {
        let (event, _) = agent.contract().event("PreToolUse");
        let guarded = AgentReply::failure(agent, event, true, "hookhost failed closed: x");
        assert_eq!(guarded.exit_code, 0, "{agent:?}");
        assert!(
            guarded.stdout.contains("deny"),
            "{agent:?}: {}",
            guarded.stdout
        );
        let open = AgentReply::failure(agent, event, false, "x");
        assert_eq!(open.exit_code, 0, "{agent:?}");
        assert!(!open.stdout.contains("deny"), "{agent:?}: {}", open.stdout);
    }
    let copilot = AgentReply::failure(Agent::Copilot, "preToolUse", false, "x");
    assert!(
        copilot.stdout.contains("\"permissionDecision\":\"allow\""),
        "{}",
        copilot.stdout
    );
}

#[test]
fn a_rewritten_input_goes_back_in_the_agents_own_field_names() {
    let rewritten = |input: &Value, field: &str, value: &str| {
        let mut outcome = EventOutcome::empty("PreToolUse");
        let mut updated = input["tool_input"].clone();
        updated[field] = json!(value);
        outcome.updated_input = Some(updated);
        outcome
    };
    let parse = |reply: AgentReply| -> Value { serde_json::from_str(&reply.stdout).unwrap() };
    let (_, codex) = one(
        Agent::Codex,
        None,
        json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/p",
               "tool_name": "exec_command", "tool_input": {"cmd": "ls", "workdir": "w"}}),
    );
    assert_eq!(codex[AGENT_TOOL_FIELD], "exec_command");
    let reply = parse(AgentReply::to_input(
        Agent::Codex,
        "PreToolUse",
        &codex,
        &rewritten(&codex, "command", "ls -a"),
    ));
    assert_eq!(
        reply["hookSpecificOutput"]["updatedInput"],
        json!({"cmd": "ls -a", "workdir": "w"})
    );
    let (_, copilot) = one(
        Agent::Copilot,
        Some("preToolUse"),
        json!({"toolName": "create", "toolArgs": {"path": "a", "file_text": "x"}}),
    );
    let reply = parse(AgentReply::to_input(
        Agent::Copilot,
        "preToolUse",
        &copilot,
        &rewritten(&copilot, "file_path", "b"),
    ));
    assert_eq!(
        reply["modifiedArgs"],
        json!({"path": "b", "file_text": "x"})
    );
    // The field is hookhost's: an input that brings its own loses it.
    let (_, claude_named) = one(
        Agent::Codex,
        None,
        json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/p",
               "agent_tool_name": "write_stdin",
               "tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    assert!(claude_named.get(AGENT_TOOL_FIELD).is_none());
    assert!(Agent::Codex.starts_process("exec_command"));
    assert!(!Agent::Codex.starts_process("write_stdin"));
}

#[test]
fn a_call_is_read_once_by_the_front_doors_reader() {
    let limits = RequestLimits::new(4096, false);
    // A lone surrogate: serde_json alone refuses it, the front door's reader repairs it —
    // an agent's call gets the outcome Claude Code's would.
    let body = br#"{"hook_event_name": "BeforeTool", "cwd": "/p", "tool_name": "run_shell_command",
        "tool_input": {"command": "echo \ud800"}}"#;
    let call = AgentCall::read(Agent::Gemini, None, Ok(body), &limits);
    let normalised = call.normalised().unwrap();
    assert_eq!(normalised.event, "PreToolUse");
    assert_eq!(
        normalised.inputs[0]["tool_input"]["command"],
        "echo \u{FFFD}"
    );
    assert_eq!(call.project(), Some(std::path::PathBuf::from("/p")));
    // Over the limit, not JSON, no event: each a failure naming why, the project unknown.
    let big = vec![b' '; 4097];
    let over = AgentCall::read(Agent::Gemini, None, Ok(&big), &limits);
    assert_eq!(
        over.normalised().unwrap_err(),
        &Failure::Oversize { limit: 4096 }
    );
    let garbage = AgentCall::read(Agent::Codex, None, Ok(b"{nope"), &limits);
    assert!(matches!(garbage.normalised(), Err(Failure::Unreadable(_))));
    assert_eq!(garbage.project(), None);
    let nameless = AgentCall::read(Agent::Copilot, None, Ok(b"{}"), &limits);
    let why = nameless.normalised().unwrap_err().to_string();
    assert!(why.contains("names no event"), "{why}");
    // A relative cwd names no project.
    let relative = AgentCall::read(
        Agent::Codex,
        None,
        Ok(br#"{"hook_event_name": "Stop", "cwd": "p"}"#),
        &limits,
    );
    assert_eq!(relative.project(), None);
    // Unanswered: a deny in the agent's form, whatever guards the event.
    let reply = over.unanswered("hookhost cannot start");
    assert!(reply.stdout.contains("deny"), "{}", reply.stdout);
}

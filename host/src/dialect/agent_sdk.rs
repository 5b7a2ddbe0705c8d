//! The Agent SDK hook spec (agent-sdk-hooks-spec.txt): Claude Code's files, glob
//! matchers, hooks in order, the first PreToolUse decider wins.

use super::*;

const AGENT_SDK_EVENTS: &[EventRule] = &[
    same("PreToolUse"),
    same("PostToolUse"),
    same("PostToolUseFailure"),
    adding(same("Notification"), Fields::ADDITIONAL_CONTEXT),
    same("UserPromptSubmit"),
    same("SessionStart"),
    same("SessionEnd"),
    same("Stop"),
    same("SubagentStart"),
    same("SubagentStop"),
    same("PreCompact"),
    same("PermissionRequest"),
    same("Setup"),
    same("TeammateIdle"),
    same("TaskCompleted"),
];

/// The Agent SDK hook spec (agent-sdk-hooks-spec.txt): glob matchers, hooks in order,
/// `continue: false` stops the rest, the first PreToolUse decider wins (none: ask), Stop
/// continues on `continue: true`.
pub const AGENT_SDK: Dialect = Dialect {
    id: DialectId::AgentSdk,
    name: "agent-sdk",
    order: Order::InOrder(Chain {
        feed_forward: None,
        stop_on_block: false,
        stop_on_continue_false: true,
    }),
    decision: DecisionRule::FirstDecider,
    stop: StopRule::ContinueTrue,
    matcher: MatcherSyntax::Glob,
    events: Some(AGENT_SDK_EVENTS),
    tool_patterns: true,
    ..CLAUDE
};

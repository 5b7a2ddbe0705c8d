//! evva (evva-hooks.txt): `.evva/settings.json` and `$EVVA_HOME`, project hooks first,
//! HTTP hooks in the background, a Stop block honoured once.

use super::*;

// "Matcher is empty for events that don't carry a tool name (SessionStart, Stop,
// Notification) — those run unconditionally."
const EVVA_EVENTS: &[EventRule] = &[
    unmatched(same("SessionStart")),
    same("UserPromptSubmit"),
    same("PreToolUse"),
    // "PostToolUse is non-blocking — it can only append additionalContext."
    removing(
        same("PostToolUse"),
        Fields::BLOCK.with(Fields::UPDATED_TOOL_OUTPUT),
    ),
    unmatched(same("Stop")),
    // "Notification: stdout ignored."
    unmatched(removing(same("Notification"), Fields::ALL)),
];

/// evva (evva-hooks.txt): `.evva/settings.json`, project hooks first and able to stop
/// the user's with `continue: false`, HTTP hooks in the background by default,
/// `timeout: 0` = the event default, a Stop block honoured once.
pub const EVVA: Dialect = Dialect {
    id: DialectId::Evva,
    name: "evva",
    discovery: &[
        file(FileLayer::Project, Root::Project, ".evva/settings.json"),
        file(FileLayer::User, Root::EvvaHome, "settings.json"),
    ],
    layering: Layering::ProjectFirst,
    timeout_zero: TimeoutZero::EventDefault,
    http_async_default: true,
    order: Order::InOrder(Chain {
        feed_forward: Some(super::FED_FORWARD),
        stop_on_block: false,
        stop_on_continue_false: true,
    }),
    continue_false_blocks: true,
    stop: StopRule::Once,
    matcher: MatcherSyntax::Glob,
    events: Some(EVVA_EVENTS),
    tool_patterns: true,
    ..CLAUDE
};

//! The Go hook engine (gen-hook-engine.txt): `.gen/settings.json`, project hooks replace
//! the user's per event, a block skips the remaining hooks.

use super::*;

/// The Sync column of gen-hook-engine.txt's execution table: the caller waits for these
/// events' hooks (and their `ShouldBlock`).
const SYNC_EVENTS: &[&str] = &[
    "PreToolUse",
    "PermissionRequest",
    "UserPromptSubmit",
    "PreCompact",
    "SessionStart",
    "PostCompact",
    "SessionEnd",
    "FileChanged",
    "CwdChanged",
    "InstructionsLoaded",
    "TaskCreated",
    "TaskCompleted",
];

/// The Go hook engine (gen-hook-engine.txt): `.gen/` settings, project replaces user per
/// event, `type` defaults to `command`, `async` on any executor, and "if any hook sets
/// ShouldBlock=true, remaining hooks are skipped".
pub const GEN: Dialect = Dialect {
    id: DialectId::Gen,
    name: "gen",
    discovery: &[
        file(FileLayer::User, Root::Home, ".gen/settings.json"),
        file(FileLayer::Project, Root::Project, ".gen/settings.json"),
    ],
    layering: Layering::ProjectReplacesUser,
    type_default: Some("command"),
    async_any_executor: true,
    // "ShouldBlock | any event", "BlockReason | any event", "AdditionalContext | any
    // event", "PermissionDecision | PreToolUse". A block means something where the
    // caller waits: on the Sync column's events (custom events block as everywhere).
    // The decision column also carries PermissionRequest's `behavior`, which the same
    // spec lets those hooks return "to decide on behalf of the user".
    scope: FieldScope {
        everywhere: Fields::ADDITIONAL_CONTEXT,
        also_on: &[(Fields::BLOCK, SYNC_EVENTS)],
        only_on: &[(
            Fields::PERMISSION_DECISION,
            &["PreToolUse", "PermissionRequest"],
        )],
    },
    order: Order::InOrder(Chain {
        feed_forward: None,
        stop_on_block: true,
        stop_on_continue_false: false,
    }),
    tool_patterns: true,
    ..CLAUDE
};

//! The Go hook engine (gen-hook-engine.txt): `.gen/settings.json`, project hooks replace
//! the user's per event, a block skips the remaining hooks.

use super::*;

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
    // event", "PermissionDecision | PreToolUse".
    scope: FieldScope {
        everywhere: Fields::BLOCK.with(Fields::ADDITIONAL_CONTEXT),
        only_on: &[(Fields::PERMISSION_DECISION, &["PreToolUse"])],
    },
    order: Order::InOrder(Chain {
        feed_forward: false,
        stop_on_block: true,
        stop_on_continue_false: false,
    }),
    ..CLAUDE
};

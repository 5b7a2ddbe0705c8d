//! hygge (hygge-hooks.txt): `hooks.toml` found by walking up, four events, allow / deny /
//! modify actions, pre hooks in order stopping at the first deny.

use super::*;

const HYGGE_EVENTS: &[EventRule] = &[
    alias("pre_tool", "PreToolUse", ModeRule::SyncOnly),
    // Post hooks cannot deny: the tool already ran; only modify counts.
    removing(
        alias("post_tool", "PostToolUse", ModeRule::Free),
        Fields::BLOCK,
    ),
    adding(
        alias("pre_message", "UserPromptSubmit", ModeRule::SyncOnly),
        Fields::UPDATED_MESSAGE.with(Fields::SYSTEM_PROMPT_APPEND),
    ),
    adding(
        removing(
            alias("post_message", "Stop", ModeRule::AlwaysAsync),
            Fields::BLOCK,
        ),
        Fields::UPDATED_MESSAGE,
    ),
];

/// hygge's `hooks.toml` (hygge-hooks.txt): four events, allow/deny/modify actions, any
/// non-zero exit denies, pre hooks in order stopping at the first deny with
/// modifications fed forward, async only on post events.
pub const HYGGE: Dialect = Dialect {
    id: DialectId::Hygge,
    name: "hygge",
    discovery: &[
        file(FileLayer::User, Root::Home, ".agents/hooks.toml"),
        file(FileLayer::User, Root::XdgConfig, "hygge/hooks.toml"),
        file(FileLayer::Project, Root::WalkUp, ".agents/hooks.toml"),
        file(FileLayer::Project, Root::WalkUp, ".hygge/hooks.toml"),
    ],
    type_default: Some("command"),
    timeout_zero: TimeoutZero::Unlimited,
    async_any_executor: true,
    answer: AnswerForm::HyggeAction,
    deny_reason_cap: 1024,
    order: Order::InOrder(Chain {
        feed_forward: Some(super::FED_FORWARD),
        stop_on_block: true,
        stop_on_continue_false: false,
    }),
    event_field: "event",
    hook_name_field: Some("hook_name"),
    listing: Listing::ByName,
    // hygge's `Input`: these fields and nothing else; `pwd` has no omitempty.
    input: InputShape {
        cwd: "pwd",
        defaults: &[],
        only: Some(&[
            "event",
            "session_id",
            "hook_name",
            "pwd",
            "tool_name",
            "tool_input",
            "tool_result",
            "message",
            "mode_name",
        ]),
    },
    duplicates: Duplicates::RunEach,
    events: Some(HYGGE_EVENTS),
    tool_patterns: true,
    ..CLAUDE
};

//! Claude Code, the default dialect: `settings.json` hooks in `~/.claude` and the
//! project's `.claude/`, every layer additive, the whole catalog under its own names.

use super::*;

/// Claude Code (the default).
pub const CLAUDE: Dialect = Dialect {
    id: DialectId::Claude,
    name: "claude",
    discovery: &[
        file(FileLayer::User, Root::Home, ".claude/settings.json"),
        file(FileLayer::Project, Root::Project, ".claude/settings.json"),
        file(
            FileLayer::Local,
            Root::Project,
            ".claude/settings.local.json",
        ),
    ],
    layering: Layering::Additive,
    type_default: None,
    timeout_zero: TimeoutZero::Invalid,
    http_async_default: false,
    async_any_executor: false,
    answer: AnswerForm::Claude,
    deny_reason_cap: usize::MAX,
    order: Order::Concurrent,
    decision: DecisionRule::MostRestrictive,
    continue_false_blocks: false,
    stop: StopRule::Capped,
    event_field: "hook_event_name",
    hook_name_field: None,
    listing: Listing::ConfigOrder,
    duplicates: Duplicates::RunOnce,
    matcher: MatcherSyntax::Claude,
    // Claude Code reads `Bash(git commit*)` as a regular expression on the tool name.
    tool_patterns: false,
    events: None,
    scope: CATALOG_SCOPE,
    input: InputShape {
        cwd: "cwd",
        defaults: &[("transcript_path", ""), ("permission_mode", "default")],
        only: None,
    },
};

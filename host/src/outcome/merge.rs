//! The one merge step: folds the results of every hook that ran for an event, in
//! configuration order (never completion order), into one [`EventOutcome`].
//!
//! | field | rule |
//! | --- | --- |
//! | should_block / block_reason | any block wins; first blocking hook gives the reason |
//! | additional_context, system_message | newline-joined in configuration order |
//! | updated_input, updated_tool_output | last writer in configuration order |
//! | classifier_context | newline-joined in configuration order, cut to 2,000 UTF-16 units |
//! | suppress_original_prompt | any `true` wins |
//! | permission_decision | deny > defer > ask > allow; reason of the first hook with the winner |
//! | updated_permissions, watch_paths | accumulated (watch paths de-duplicated) |
//! | continue / stop_reason | any false stops; first reason kept |
//! | initial_user_message, session_title | first |
//!
//! Field scoping happens here as well: a field on an event that does not honour it is
//! dropped and listed in `ignored_fields`.

use std::time::Duration;

use super::{EventOutcome, HookDecision, HookReport, HookRun, HookStatus, IgnoredField, millis};
use crate::dialect::Event;
use crate::dialect::{DecisionRule, StopRule};
use crate::event::{BlockForm, Fields};
use crate::output::{HookAnswer, PermissionDecision};
use crate::protocol;

/// One finished hook, as handed to [`merge`].
#[derive(Debug, Clone)]
pub struct FinishedHook {
    /// Display name.
    pub name: String,
    /// Source label.
    pub source: crate::config::Layer,
    /// Executor name.
    pub executor: crate::config::ExecutorKind,
    /// What it produced.
    pub result: HookRun,
    /// How long it took.
    pub duration: Duration,
    /// SHA-256 of the code it ran (Wasm components).
    pub sha256: Option<String>,
    /// It runs in the background: nothing of it is merged now.
    pub detached: bool,
}

fn join(target: &mut Option<String>, text: &str) {
    match target {
        Some(existing) => {
            existing.push('\n');
            existing.push_str(text);
        }
        None => *target = Some(text.to_string()),
    }
}

/// Cuts `text` to at most `units` UTF-16 code units, on a character boundary.
fn cut_utf16(text: &mut String, units: usize) {
    let mut used = 0;
    let end = text
        .char_indices()
        .find(|(_, c)| {
            used += c.len_utf16();
            used > units
        })
        .map(|(at, _)| at);
    if let Some(end) = end {
        text.truncate(end);
    }
}

/// Merges `ran` (in configuration order) for the event described by `spec`.
pub fn merge(event: &Event, ran: Vec<FinishedHook>) -> EventOutcome {
    let mut fold = Fold::new(event, ran.len());
    for hook in ran {
        fold.add(hook);
    }
    fold.finish()
}

/// The merge under way: the outcome so far and what its last step needs.
struct Fold<'e> {
    event: &'e Event,
    outcome: EventOutcome,
    /// The strongest permission decision so far, with its reason.
    decision: Option<(PermissionDecision, Option<String>)>,
    /// The first allow or deny (decided by an owner layer, decision, reason).
    first_decider: Option<(bool, PermissionDecision, Option<String>)>,
    seen_paths: std::collections::HashSet<String>,
}

impl<'e> Fold<'e> {
    fn new(event: &'e Event, hooks: usize) -> Fold<'e> {
        let mut outcome = EventOutcome::empty(event.name());
        // One report per hook: sized once (a report is ~600 bytes, and growing the list
        // from empty would ask glibc for a block in its slow, consolidating size range).
        outcome.hooks.reserve_exact(hooks);
        Fold {
            event,
            outcome,
            decision: None,
            first_decider: None,
            seen_paths: std::collections::HashSet::new(),
        }
    }

    /// Folds in one hook: its answer scoped to the event, its status settled, then each
    /// field by its rule, then its report.
    fn add(&mut self, hook: FinishedHook) {
        let FinishedHook {
            name,
            source,
            executor,
            mut result,
            duration,
            sha256,
            detached,
        } = hook;
        let mut dropped = apply_dialect(self.event, &mut result.output);
        dropped.extend(protocol::scope(self.event.spec(), &mut result.output));
        for field in dropped {
            self.outcome.ignored_fields.push(IgnoredField {
                hook: name.clone(),
                field: field.to_string(),
            });
        }
        let out = result.output;
        let blocks = out.blocks();
        result.status = settled_status(result.status, blocks, result.error.is_some());
        if blocks {
            if !self.outcome.should_block {
                self.outcome.block_reason = out
                    .reason
                    .clone()
                    .or_else(|| out.permission_decision_reason.clone())
                    .or_else(|| Some(format!("blocked by hook {name}")));
            }
            self.outcome.should_block = true;
        }
        self.texts(&out);
        let hook_decision = self.decide(&out, source.is_owner());
        self.lists(&out);
        self.outcome.counts.add(result.status);
        let hook_decision = hook_decision
            .map(HookDecision::from)
            .or(blocks.then_some(HookDecision::Block));
        self.outcome.hooks.push(HookReport {
            name,
            source,
            executor,
            status: result.status,
            decision: hook_decision,
            detached,
            duration_ms: millis(duration),
            round: 0,
            sha256,
            error: result.error,
            output: (out != HookAnswer::default()).then_some(out),
        });
    }

    /// The text and replacement fields: joined, last writer, or first, by the table.
    fn texts(&mut self, out: &HookAnswer) {
        let outcome = &mut self.outcome;
        if let Some(context) = &out.additional_context {
            join(&mut outcome.additional_context, context);
        }
        if let Some(message) = &out.system_message {
            join(&mut outcome.system_message, message);
        }
        if let Some(input) = &out.updated_input {
            outcome.updated_input = Some(input.clone());
        }
        if let Some(output) = &out.updated_tool_output {
            outcome.updated_tool_output = Some(output.clone());
        }
        if let Some(context) = &out.classifier_context {
            join(&mut outcome.classifier_context, context);
        }
        if let Some(suppress) = out.suppress_original_prompt {
            outcome.suppress_original_prompt =
                Some(suppress || outcome.suppress_original_prompt == Some(true));
        }
        outcome.suppress_output |= out.suppress_output;
        if let Some(message) = &out.updated_message {
            outcome.updated_message = Some(message.clone());
        }
        if let Some(text) = &out.system_prompt_append {
            join(&mut outcome.system_prompt_append, text);
        }
        if outcome.worktree_path.is_none() {
            outcome.worktree_path = out.worktree_path.clone();
        }
        if let Some(text) = &out.custom_instructions {
            match &mut outcome.custom_instructions {
                Some(existing) => {
                    existing.push_str("\n\n");
                    existing.push_str(text);
                }
                None => outcome.custom_instructions = Some(text.clone()),
            }
        }
    }

    /// The hook's permission decision (a block on an event that takes one is a deny),
    /// weighed against the strongest so far and, for first-decider dialects, the first.
    fn decide(&mut self, out: &HookAnswer, owner: bool) -> Option<PermissionDecision> {
        let this = out.permission_decision.or(
            // Exit 2 / decision block on PreToolUse counts as deny.
            (out.block && self.event.spec().honours(Fields::PERMISSION_DECISION))
                .then_some(PermissionDecision::Deny),
        )?;
        let reason = out
            .permission_decision_reason
            .clone()
            .or(out.reason.clone());
        // The first decider wins, but the machine's owners decide before a repository or
        // plugin: a project `allow` cannot pre-empt a managed, user or `--settings` deny
        // that comes later in configuration order.
        if matches!(this, PermissionDecision::Allow | PermissionDecision::Deny)
            && self
                .first_decider
                .as_ref()
                .is_none_or(|(by_owner, _, _)| owner && !by_owner)
        {
            self.first_decider = Some((owner, this, reason.clone()));
        }
        match &self.decision {
            Some((current, _)) if *current >= this => {}
            _ => self.decision = Some((this, reason)),
        }
        Some(this)
    }

    /// The accumulated lists, the first-wins fields and the session controls.
    fn lists(&mut self, out: &HookAnswer) {
        let outcome = &mut self.outcome;
        outcome
            .updated_permissions
            .extend(out.updated_permissions.iter().cloned());
        for path in out.watch_paths.iter().cloned() {
            // Linear: a hash set remembers what is already in the list.
            if self.seen_paths.insert(path.clone()) {
                outcome.watch_paths.push(path);
            }
        }
        if outcome.initial_user_message.is_none() {
            outcome.initial_user_message = out.initial_user_message.clone();
        }
        if outcome.session_title.is_none() {
            outcome.session_title = out.session_title.clone();
        }
        if out.retry.is_some() {
            outcome.retry = out.retry.or(outcome.retry);
        }
        outcome.interrupt |= out.interrupt;
        if out.continue_ == Some(false) {
            if outcome.continue_ {
                outcome.stop_reason = out.stop_reason.clone();
            }
            outcome.continue_ = false;
        }
    }

    /// The permission decision settled: the strongest, or under a first-decider dialect
    /// the first allow or deny (none: ask the user).
    fn finish(mut self) -> EventOutcome {
        let first_decider_rule = self.event.dialect().decision == DecisionRule::FirstDecider
            && self.event.spec().block_form == BlockForm::PermissionDecision;
        let outcome = &mut self.outcome;
        if first_decider_rule {
            let (_, winner, reason) =
                self.first_decider
                    .unwrap_or((false, PermissionDecision::Ask, None));
            outcome.should_block = winner == PermissionDecision::Deny;
            outcome.block_reason = outcome
                .should_block
                .then(|| reason.clone())
                .flatten()
                .or_else(|| outcome.should_block.then(|| "denied by hook".to_string()));
            self.decision = Some((winner, reason));
        }
        if let Some((decision, reason)) = self.decision {
            outcome.permission_decision = Some(decision);
            outcome.permission_decision_reason = reason;
        }
        if let Some(context) = &mut outcome.classifier_context {
            cut_utf16(context, crate::outcome::CLASSIFIER_CONTEXT_UNITS);
        }
        self.outcome
    }
}

/// A hook's status once its answer is scoped: a block the dialect read into the answer
/// (evva's `continue: false`) is a blocking result; a block scoped away (the event cannot
/// block) is a success — or, for a fail-closed *failure*, still a failure, reported with
/// its error even though the block cannot apply.
fn settled_status(status: HookStatus, blocks: bool, failed: bool) -> HookStatus {
    match status {
        HookStatus::Success if blocks => HookStatus::Blocking,
        HookStatus::Blocking if !blocks && failed => HookStatus::NonBlockingError,
        HookStatus::Blocking if !blocks => HookStatus::Success,
        status => status,
    }
}

/// The dialect's reading of one answer before scoping: evva's `continue: false` blocks
/// the operation (and is ignored where nothing can be blocked); on an Agent SDK stop
/// event `continue: true` keeps the agent going (a block of the stop). Returns the
/// fields it ignored.
fn apply_dialect(event: &Event, out: &mut HookAnswer) -> Vec<&'static str> {
    let dialect = event.dialect();
    let mut ignored = Vec::new();
    if dialect.continue_false_blocks && out.continue_ == Some(false) {
        if event.can_block {
            out.block = true;
            out.reason = out.reason.take().or(out.stop_reason.take());
        } else {
            ignored.push(protocol::fields::CONTINUE.key);
        }
        out.continue_ = None;
        out.stop_reason = None;
    }
    if dialect.stop == StopRule::ContinueTrue && event.stop_guard && out.continue_ == Some(true) {
        out.block = true;
        out.reason = out
            .reason
            .take()
            .or(out.stop_reason.take())
            .or(out.system_message.clone());
    }
    ignored
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ran(name: &str, output: HookAnswer) -> FinishedHook {
        FinishedHook {
            name: name.into(),
            source: crate::config::Layer::Project,
            executor: crate::config::ExecutorKind::Command,
            result: HookRun::answer(output),
            duration: Duration::from_millis(1),
            sha256: None,
            detached: false,
        }
    }

    fn decision(d: PermissionDecision, reason: &str) -> HookAnswer {
        HookAnswer {
            permission_decision: Some(d),
            permission_decision_reason: Some(reason.into()),
            ..HookAnswer::default()
        }
    }

    struct Case {
        name: &'static str,
        event: &'static str,
        hooks: Vec<FinishedHook>,
        check: fn(&EventOutcome),
    }

    #[test]
    fn merge_table() {
        use PermissionDecision::*;
        let cases = vec![
            Case {
                name: "nothing_ran",
                event: "PreToolUse",
                hooks: vec![],
                check: |o| {
                    assert!(!o.should_block && o.continue_ && o.permission_decision.is_none())
                },
            },
            Case {
                name: "deny_beats_allow_and_ask",
                event: "PreToolUse",
                hooks: vec![
                    ran("a", decision(Allow, "fine")),
                    ran("b", decision(Ask, "hmm")),
                    ran("c", decision(Deny, "no")),
                    ran("d", decision(Allow, "fine")),
                ],
                check: |o| {
                    assert_eq!(
                        o.permission_decision.map(PermissionDecision::as_str),
                        Some("deny")
                    );
                    assert_eq!(o.permission_decision_reason.as_deref(), Some("no"));
                    assert!(o.should_block);
                    assert_eq!(o.block_reason.as_deref(), Some("no"));
                },
            },
            Case {
                name: "defer_beats_ask",
                event: "PreToolUse",
                hooks: vec![ran("a", decision(Ask, "x")), ran("b", decision(Defer, "y"))],
                check: |o| {
                    assert_eq!(
                        o.permission_decision.map(PermissionDecision::as_str),
                        Some("defer")
                    )
                },
            },
            Case {
                name: "first_reason_among_equals",
                event: "PreToolUse",
                hooks: vec![
                    ran("a", decision(Ask, "first")),
                    ran("b", decision(Ask, "second")),
                ],
                check: |o| assert_eq!(o.permission_decision_reason.as_deref(), Some("first")),
            },
            Case {
                name: "first_block_reason_in_config_order",
                event: "Stop",
                hooks: vec![
                    ran("a", HookAnswer::default()),
                    ran(
                        "b",
                        HookAnswer {
                            block: true,
                            reason: Some("keep going".into()),
                            ..HookAnswer::default()
                        },
                    ),
                    ran(
                        "c",
                        HookAnswer {
                            block: true,
                            reason: Some("later".into()),
                            ..HookAnswer::default()
                        },
                    ),
                ],
                check: |o| {
                    assert!(o.should_block);
                    assert_eq!(o.block_reason.as_deref(), Some("keep going"));
                    assert_eq!(o.counts.blocking, 2);
                    assert_eq!(o.counts.success, 1);
                },
            },
            Case {
                name: "context_joined_in_order",
                event: "UserPromptSubmit",
                hooks: vec![
                    ran(
                        "a",
                        HookAnswer {
                            additional_context: Some("one".into()),
                            ..HookAnswer::default()
                        },
                    ),
                    ran(
                        "b",
                        HookAnswer {
                            additional_context: Some("two".into()),
                            ..HookAnswer::default()
                        },
                    ),
                ],
                check: |o| assert_eq!(o.additional_context.as_deref(), Some("one\ntwo")),
            },
            Case {
                name: "classifier_context_joined_and_cut_to_claude_codes_budget",
                event: "PostToolUse",
                hooks: vec![
                    ran(
                        "a",
                        HookAnswer {
                            classifier_context: Some("ran the tests".into()),
                            ..HookAnswer::default()
                        },
                    ),
                    ran(
                        "b",
                        HookAnswer {
                            // Two UTF-16 units a character.
                            classifier_context: Some("𝄞".repeat(1500)),
                            ..HookAnswer::default()
                        },
                    ),
                ],
                check: |o| {
                    let context = o.classifier_context.as_deref().unwrap();
                    assert!(context.starts_with("ran the tests\n𝄞"));
                    assert!(context.encode_utf16().count() <= 2000);
                    assert!(context.encode_utf16().count() >= 1999);
                },
            },
            Case {
                name: "classifier_context_only_after_a_tool_ran",
                event: "PreToolUse",
                hooks: vec![ran(
                    "a",
                    HookAnswer {
                        classifier_context: Some("x".into()),
                        suppress_original_prompt: Some(true),
                        ..HookAnswer::default()
                    },
                )],
                check: |o| {
                    assert!(o.classifier_context.is_none());
                    assert!(o.suppress_original_prompt.is_none());
                    assert_eq!(o.ignored_fields.len(), 2, "{:?}", o.ignored_fields);
                },
            },
            Case {
                name: "any_hook_suppresses_the_original_prompt",
                event: "UserPromptExpansion",
                hooks: vec![
                    ran(
                        "a",
                        HookAnswer {
                            suppress_original_prompt: Some(true),
                            ..HookAnswer::default()
                        },
                    ),
                    ran(
                        "b",
                        HookAnswer {
                            suppress_original_prompt: Some(false),
                            ..HookAnswer::default()
                        },
                    ),
                ],
                check: |o| assert_eq!(o.suppress_original_prompt, Some(true)),
            },
            Case {
                name: "updated_input_last_writer_in_config_order",
                event: "PreToolUse",
                hooks: vec![
                    ran(
                        "a",
                        HookAnswer {
                            updated_input: Some(json!({"v": 1})),
                            ..HookAnswer::default()
                        },
                    ),
                    ran(
                        "b",
                        HookAnswer {
                            updated_input: Some(json!({"v": 2})),
                            ..HookAnswer::default()
                        },
                    ),
                    ran("c", HookAnswer::default()),
                ],
                check: |o| assert_eq!(o.updated_input, Some(json!({"v": 2}))),
            },
            Case {
                name: "continue_false_keeps_first_reason",
                event: "Stop",
                hooks: vec![
                    ran(
                        "a",
                        HookAnswer {
                            continue_: Some(false),
                            stop_reason: Some("first".into()),
                            ..HookAnswer::default()
                        },
                    ),
                    ran(
                        "b",
                        HookAnswer {
                            continue_: Some(false),
                            stop_reason: Some("second".into()),
                            ..HookAnswer::default()
                        },
                    ),
                ],
                check: |o| {
                    assert!(!o.continue_);
                    assert_eq!(o.stop_reason.as_deref(), Some("first"));
                },
            },
            Case {
                name: "watch_paths_accumulate_dedup",
                event: "SessionStart",
                hooks: vec![
                    ran(
                        "a",
                        HookAnswer {
                            watch_paths: vec!["/a".into(), "/b".into()],
                            ..HookAnswer::default()
                        },
                    ),
                    ran(
                        "b",
                        HookAnswer {
                            watch_paths: vec!["/b".into(), "/c".into()],
                            ..HookAnswer::default()
                        },
                    ),
                ],
                check: |o| assert_eq!(o.watch_paths, vec!["/a", "/b", "/c"]),
            },
            Case {
                name: "updated_input_out_of_scope_is_ignored_and_reported",
                event: "Stop",
                hooks: vec![ran(
                    "a",
                    HookAnswer {
                        updated_input: Some(json!({})),
                        watch_paths: vec!["/x".into()],
                        ..HookAnswer::default()
                    },
                )],
                check: |o| {
                    assert!(o.updated_input.is_none() && o.watch_paths.is_empty());
                    let fields: Vec<_> =
                        o.ignored_fields.iter().map(|f| f.field.as_str()).collect();
                    assert_eq!(fields, vec!["updatedInput", "watchPaths"]);
                },
            },
            Case {
                name: "permission_request_deny_wins_and_permissions_accumulate",
                event: "PermissionRequest",
                hooks: vec![
                    ran(
                        "a",
                        HookAnswer {
                            permission_decision: Some(Allow),
                            updated_permissions: vec![json!({"type": "setMode"})],
                            ..HookAnswer::default()
                        },
                    ),
                    ran(
                        "b",
                        HookAnswer {
                            permission_decision: Some(Allow),
                            updated_permissions: vec![json!({"type": "addRules"})],
                            ..HookAnswer::default()
                        },
                    ),
                    ran("c", decision(Deny, "nope")),
                ],
                check: |o| {
                    assert_eq!(
                        o.permission_decision.map(PermissionDecision::as_str),
                        Some("deny")
                    );
                    assert_eq!(o.updated_permissions.len(), 2);
                    assert!(o.should_block);
                },
            },
            Case {
                name: "block_on_unblockable_event_is_ignored",
                event: "Notification",
                hooks: vec![ran(
                    "a",
                    HookAnswer {
                        block: true,
                        reason: Some("x".into()),
                        ..HookAnswer::default()
                    },
                )],
                check: |o| {
                    assert!(!o.should_block);
                    assert_eq!(o.counts.success, 1);
                    assert_eq!(o.ignored_fields[0].field, "decision");
                },
            },
        ];
        for case in cases {
            let outcome = merge(&Event::new(case.event), case.hooks);
            println!("case {}", case.name);
            (case.check)(&outcome);
        }
    }

    #[test]
    fn failures_are_counted_and_reported() {
        let outcome = merge(
            &Event::new("PreToolUse"),
            vec![
                FinishedHook {
                    name: "x".into(),
                    source: crate::config::Layer::User,
                    executor: crate::config::ExecutorKind::Command,
                    result: HookRun::non_blocking("exit 1"),
                    duration: Duration::ZERO,
                    sha256: None,
                    detached: false,
                },
                FinishedHook {
                    name: "y".into(),
                    source: crate::config::Layer::User,
                    executor: crate::config::ExecutorKind::Wasm,
                    result: HookRun::cancelled("fuel"),
                    duration: Duration::ZERO,
                    sha256: None,
                    detached: false,
                },
            ],
        );
        assert_eq!(outcome.counts.non_blocking_error, 1);
        assert_eq!(outcome.counts.cancelled, 1);
        assert_eq!(outcome.hooks[1].error.as_deref(), Some("fuel"));
    }
}

//! An event judged by another event's hooks as well ([`crate::event::EventSpec::judged_as`]):
//! a skill's `!` line (`PreSkillShellCommand`) is the Bash command it is, so the hooks
//! guarding Bash calls (`PreToolUse`) judge it as one. Their refusal or question keeps it
//! from running; so does a rewrite, which the host never applies to such a command.

use serde_json::Value;

use crate::hook_input::HookInput;
use crate::outcome::EventOutcome;
use crate::output::PermissionDecision;

/// The host's input of `input` as the event `judge` sees it: the same fields, the event
/// name its hooks know.
pub(super) fn as_judged(input: &HookInput, judge: &str) -> Value {
    let mut value = input.value.clone();
    if let Value::Object(map) = &mut value {
        map.insert(
            input.event.dialect().event_field.to_string(),
            Value::String(judge.to_string()),
        );
    }
    value
}

/// `own` (the event's own hooks' outcome) with the judging event's outcome `judged`
/// folded in: the stronger decision wins, a rewrite is a refusal, and every hook that ran
/// is reported.
pub(super) fn fold(own: EventOutcome, mut judged: EventOutcome) -> EventOutcome {
    if denies(&own) {
        return own;
    }
    let event = own.event.clone();
    let mut out = own;
    out.hooks.append(&mut judged.hooks);
    // A rewrite by the event's own hooks is scoped away (the event never applies one),
    // but Claude Code reads any `updatedInput` there as "do not run": so does hookhost.
    let own_rewrote = out
        .ignored_fields
        .iter()
        .any(|ignored| ignored.field == crate::protocol::fields::UPDATED_INPUT.key);
    if own_rewrote || (judged.updated_input.is_some() && !denies(&judged)) {
        let why = format!(
            "a hook rewrote this command, and {event} runs a command only as written; not run"
        );
        return deny(out, Some(why));
    }
    if denies(&judged) {
        let why = judged
            .permission_decision_reason
            .or(judged.block_reason)
            .filter(|why| !why.is_empty());
        return deny(out, why);
    }
    match (out.permission_decision, judged.permission_decision) {
        (_, Some(PermissionDecision::Ask)) | (None, Some(_)) => {
            out.permission_decision = judged.permission_decision;
            out.permission_decision_reason = judged.permission_decision_reason;
        }
        _ => {}
    }
    out.system_message = match (out.system_message.take(), judged.system_message) {
        (Some(own), Some(other)) => Some(format!("{own}\n{other}")),
        (own, other) => own.or(other),
    };
    if !judged.continue_ {
        out.continue_ = false;
        out.stop_reason = out.stop_reason.or(judged.stop_reason);
    }
    out
}

/// Whether `outcome` keeps the action from happening.
pub(super) fn denies(outcome: &EventOutcome) -> bool {
    outcome.should_block || outcome.permission_decision == Some(PermissionDecision::Deny)
}

/// `outcome` refused with `why`.
fn deny(mut outcome: EventOutcome, why: Option<String>) -> EventOutcome {
    let why = why.unwrap_or_else(|| "refused by a hook".to_string());
    outcome.should_block = true;
    outcome.block_reason = Some(why.clone());
    outcome.permission_decision = Some(PermissionDecision::Deny);
    outcome.permission_decision_reason = Some(why);
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Event;

    fn outcome(decision: Option<PermissionDecision>, rewrite: bool) -> EventOutcome {
        let mut outcome = EventOutcome::empty("PreToolUse");
        outcome.permission_decision = decision;
        outcome.permission_decision_reason = decision.map(|_| "the guard's reason".into());
        outcome.updated_input = rewrite.then(|| serde_json::json!({"command": "ls"}));
        outcome
    }

    fn own() -> EventOutcome {
        EventOutcome::empty("PreSkillShellCommand")
    }

    #[test]
    fn the_judges_refusal_or_question_keeps_the_command_from_running() {
        let refused = fold(own(), outcome(Some(PermissionDecision::Deny), false));
        assert!(refused.should_block && refused.event == "PreSkillShellCommand");
        assert_eq!(
            refused.permission_decision_reason.as_deref(),
            Some("the guard's reason")
        );
        let asked = fold(own(), outcome(Some(PermissionDecision::Ask), false));
        assert_eq!(asked.permission_decision, Some(PermissionDecision::Ask));
        let allowed = fold(own(), outcome(None, false));
        assert!(!allowed.should_block && allowed.permission_decision.is_none());
    }

    #[test]
    fn a_rewrite_is_a_refusal() {
        let rewritten = fold(own(), outcome(None, true));
        assert!(rewritten.should_block);
        assert!(rewritten.updated_input.is_none());
        assert!(
            rewritten
                .block_reason
                .unwrap()
                .contains("runs a command only as written")
        );
    }

    #[test]
    fn the_events_own_hook_rewriting_is_a_refusal_too() {
        let mut mine = own();
        mine.ignored_fields.push(crate::outcome::IgnoredField {
            hook: "h".into(),
            field: "updatedInput".into(),
        });
        assert!(fold(mine, outcome(None, false)).should_block);
    }

    #[test]
    fn the_own_refusal_stands() {
        let mut mine = own();
        mine.should_block = true;
        mine.block_reason = Some("mine".into());
        let folded = fold(mine, outcome(Some(PermissionDecision::Allow), false));
        assert_eq!(folded.block_reason.as_deref(), Some("mine"));
    }

    #[test]
    fn the_judged_input_names_the_judging_event() {
        let input = HookInput::new(
            Event::new("PreSkillShellCommand"),
            serde_json::json!({"hook_event_name": "PreSkillShellCommand", "tool_name": "Bash",
                "tool_input": {"command": "git status"}, "command_source": "userSettings"}),
        );
        let value = as_judged(&input, "PreToolUse");
        assert_eq!(value["hook_event_name"], "PreToolUse");
        assert_eq!(value["command_source"], "userSettings");
    }
}

//! Re-validated rewrites: when the merged `updated_input` differs from the input the
//! hooks saw, the event's synchronous hooks run again on the rewritten input (selected
//! anew, so an `if` rule that matches only the new input applies). A block in any round
//! wins; a further rewrite starts another round; a rewrite still changing after
//! [`MAX_ROUNDS`] rounds blocks the event. The final `updated_input` has been seen by
//! every synchronous hook.

use std::collections::HashSet;
use std::sync::Arc;

use super::loaded_hook::LoadedHook;
use super::schedule::EventRun;
use crate::hook_input::HookInput;
use crate::outcome::merge::merge;
use crate::outcome::{Counts, EventOutcome};

/// Rounds of hooks (the first included) before a still-changing rewrite blocks.
pub const MAX_ROUNDS: u32 = 3;

/// The stages of one event after selection: `selected` run on `input` (schedule), their
/// answers merged, then — when `revalidate` — every rewrite validated as described
/// above, the hooks of each round chosen by `reselect` (the input, and the ids of hooks
/// that already ran, exempt from `once`).
pub(crate) async fn run_rounds(
    run: &EventRun,
    selected: Vec<LoadedHook>,
    input: Arc<HookInput>,
    revalidate: bool,
    reselect: impl Fn(&HookInput, &HashSet<u64>) -> Vec<LoadedHook>,
) -> EventOutcome {
    // Each round's hooks run in a boxed future, and so do the later rounds: the event's
    // own future (which hosts move whole, often several times per call) stays small. The
    // block ends the first outcome's storage before the later rounds are awaited.
    let later = {
        let outcome = merge(
            &run.event,
            Box::pin(run.run_all(&selected, input.clone())).await,
        );
        if !revalidate || outcome.should_block || outcome.updated_input.is_none() {
            return outcome;
        }
        let ran: HashSet<u64> = selected.iter().map(|h| h.id).collect();
        Box::pin(later_rounds(run, outcome, input, ran, reselect))
    };
    later.await
}

/// The rounds after the first, while a rewrite keeps changing the input.
async fn later_rounds(
    run: &EventRun,
    mut outcome: EventOutcome,
    mut seen: Arc<HookInput>,
    mut ran: HashSet<u64>,
    reselect: impl Fn(&HookInput, &HashSet<u64>) -> Vec<LoadedHook>,
) -> EventOutcome {
    let mut history = Vec::new();
    for round in 1..=MAX_ROUNDS {
        if outcome.should_block {
            break;
        }
        let Some(updated) = &outcome.updated_input else {
            break;
        };
        let Some(next) = seen.with_tool_input(updated) else {
            break;
        };
        if next == seen.value {
            break; // a fixpoint: every hook of this round saw the final input
        }
        history.push(std::mem::replace(&mut outcome, EventOutcome::empty("")));
        if round == MAX_ROUNDS {
            outcome = crate::outcome::EventOutcome::failed_closed(
                run.event.name(),
                &format!(
                    "hook rewrites did not converge: the input was still being rewritten after {MAX_ROUNDS} rounds of validation"
                ),
            );
            for report in &mut outcome.hooks {
                report.round = round;
            }
            break;
        }
        let next = seen.rewritten(next);
        let hooks = reselect(&next, &ran);
        let hooks: Vec<LoadedHook> = hooks
            .into_iter()
            .filter(|hook| hook.executor.detached().is_none())
            .collect();
        ran.extend(hooks.iter().map(|h| h.id));
        seen = next;
        outcome = merge(
            &run.event,
            Box::pin(run.run_all(&hooks, seen.clone())).await,
        );
        for report in &mut outcome.hooks {
            report.round = round;
        }
        if outcome.updated_input.is_none() {
            // Nobody rewrote the validated input: it is the answer.
            outcome.updated_input = seen.tool_input_given().cloned();
        }
    }
    combine(history, outcome)
}

/// The final outcome with the reports of the earlier rounds in front of its own.
fn combine(history: Vec<EventOutcome>, mut last: EventOutcome) -> EventOutcome {
    if history.is_empty() {
        return last;
    }
    let mut hooks = Vec::new();
    let mut ignored = Vec::new();
    for earlier in history {
        hooks.extend(earlier.hooks);
        ignored.extend(earlier.ignored_fields);
    }
    hooks.append(&mut last.hooks);
    ignored.append(&mut last.ignored_fields);
    let mut counts = Counts::default();
    for report in &hooks {
        counts.add(report.status);
    }
    last.hooks = hooks;
    last.ignored_fields = ignored;
    last.counts = counts;
    last
}

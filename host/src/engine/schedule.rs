//! Running the selected hooks of one event: every hook concurrently, a `sequential`
//! group in order (its rewritten input fed forward, stopping at the first block),
//! detached hooks handed to the background; results come back in configuration order.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::loaded_hook::LoadedHook;
use crate::dialect::Event;
use crate::dialect::{Chain, FedForward, SEQUENTIAL_GROUP};
use crate::executor::Background;
use crate::executor::{AsyncNotice, HookCall};
use crate::hook_input::HookInput;
use crate::outcome::merge::FinishedHook;
use crate::outcome::{HookRun, HookStatus};

/// The hooks running now (what [`crate::Engine::active_hooks`] shows), keyed by call.
#[derive(Default)]
pub(crate) struct Calls {
    active: Mutex<HashMap<u64, Running>>,
    next: AtomicU64,
}

/// One running call, as recorded on the hot path: shared handles only (no text is
/// copied per call; [`Calls::active`] builds the listing when asked).
struct Running {
    name: Arc<str>,
    event: crate::dialect::Event,
    spec: Arc<crate::config::HookSpec>,
    started: Instant,
}

impl Calls {
    /// The hooks running now, with their elapsed time.
    pub(crate) fn active(&self) -> Vec<ActiveHook> {
        let active = self.active.lock().unwrap_or_else(|e| e.into_inner());
        active
            .values()
            .map(|running| ActiveHook {
                name: running.name.to_string(),
                event: running.event.name().to_string(),
                status_message: running.spec.status_message.clone(),
                elapsed: running.started.elapsed(),
            })
            .collect()
    }
}

/// What the stages of one event share, and nothing else of the engine: the event, where
/// command hooks run, where detached work goes, and the table of running calls.
#[derive(Clone)]
pub(crate) struct EventRun {
    pub(crate) event: Event,
    pub(crate) project_dir: Option<Arc<Path>>,
    pub(crate) background: Background,
    pub(crate) calls: Arc<Calls>,
}

impl EventRun {
    /// Runs `selected` on `input` and returns one result per hook, in order.
    pub(crate) async fn run_all(
        &self,
        selected: &[LoadedHook],
        input: Arc<HookInput>,
    ) -> Vec<FinishedHook> {
        let run = self;
        // Units: a dialect that runs its hooks in order makes them all one chain; else a
        // sequential group is one chain and every other hook its own unit.
        let mut units: Vec<(Vec<usize>, Chain)> = Vec::new();
        if let Some(chain) = run.event.dialect().chain() {
            units.push(((0..selected.len()).collect(), chain));
        } else {
            let mut group_of: HashMap<&str, usize> = HashMap::new();
            for (index, hook) in selected.iter().enumerate() {
                if hook.spec.sequential {
                    if let Some(&unit) = group_of.get(hook.spec.group.as_str()) {
                        units[unit].0.push(index);
                        continue;
                    }
                    group_of.insert(hook.spec.group.as_str(), units.len());
                }
                units.push((vec![index], SEQUENTIAL_GROUP));
            }
        }
        let mut slots: Vec<Option<FinishedHook>> = vec![None; selected.len()];
        let run_unit = |(unit, chain): (Vec<usize>, Chain)| {
            let hooks: Vec<LoadedHook> = unit.iter().map(|&i| selected[i].clone()).collect();
            let (input, run) = (input.clone(), run.clone());
            async move {
                let ran = run.run_unit(hooks, chain, input).await;
                unit.into_iter().zip(ran).collect::<Vec<_>>()
            }
        };
        if units.len() == 1 {
            let unit = units.pop().expect("one unit");
            for (index, ran) in run_unit(unit).await {
                slots[index] = Some(ran);
            }
        } else {
            let mut tasks = tokio::task::JoinSet::new();
            for unit in units {
                tasks.spawn(run_unit(unit));
            }
            while let Some(joined) = tasks.join_next().await {
                // A panicking executor is a bug; its slot is reported below.
                if let Ok(done) = joined {
                    for (index, ran) in done {
                        slots[index] = Some(ran);
                    }
                }
            }
        }
        slots
            .into_iter()
            .zip(selected)
            .map(|(slot, hook)| {
                slot.unwrap_or_else(|| {
                    ran(
                        hook,
                        HookRun::non_blocking("internal error: the hook task panicked"),
                        Duration::ZERO,
                    )
                })
            })
            .collect()
    }

    /// Runs the hooks of one unit in order under `chain`'s rules: rewrites fed forward,
    /// the chain stopped by a block or `continue: false`, a matcher group's shared
    /// `timeout` enforced, and background hooks started last with the final input (a
    /// unit of one hook is simply that hook).
    async fn run_unit(
        &self,
        hooks: Vec<LoadedHook>,
        chain: Chain,
        mut input: Arc<HookInput>,
    ) -> Vec<FinishedHook> {
        let run = self;
        let chained = hooks.len() > 1;
        let mut out: Vec<Option<FinishedHook>> = vec![None; hooks.len()];
        let mut stopped_by: Option<String> = None;
        let mut deferred = Vec::new();
        let mut group_deadline: Option<(&str, Instant)> = None;
        for (index, hook) in hooks.iter().enumerate() {
            if chained && hook.executor.detached().is_some() {
                deferred.push(index);
                continue;
            }
            if let Some(stop) = &stopped_by {
                out[index] = Some(not_run(hook, stop));
                continue;
            }
            let mut timeout = hook.timeout;
            if let Some(limit) = hook.spec.group_timeout {
                let deadline = match group_deadline {
                    Some((group, deadline)) if group == hook.spec.group => deadline,
                    _ => {
                        let deadline = Instant::now() + limit;
                        group_deadline = Some((hook.spec.group.as_str(), deadline));
                        deadline
                    }
                };
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    let error = format!(
                        "not run: its matcher group's timeout of {}s was used up",
                        limit.as_secs_f64()
                    );
                    out[index] = Some(ran(hook, HookRun::cancelled(error), Duration::ZERO));
                    continue;
                }
                timeout = timeout.min(left);
            }
            let call = self.call(hook, &input, timeout);
            let started = Instant::now();
            let result = self.run_one(hook, call, started).await;
            let duration = started.elapsed();
            if chained {
                let output = &result.output;
                if chain.stop_on_block && output.blocks_where(run.event.fields) {
                    stopped_by = Some(format!("{} blocked", hook.name));
                } else if chain.stop_on_continue_false && output.continue_ == Some(false) {
                    stopped_by = Some(format!("{} answered continue: false", hook.name));
                }
                if let Some(fields) = &chain.feed_forward
                    && let Some(next) = fed_forward(fields, &input.value, output)
                {
                    input = input.rewritten(next);
                }
            }
            out[index] = Some(ran(hook, result, duration));
        }
        for index in deferred {
            let hook = &hooks[index];
            if let Some(stop) = &stopped_by {
                out[index] = Some(not_run(hook, stop));
                continue;
            }
            let call = self.call(hook, &input, hook.timeout);
            let result = self.run_one(hook, call, Instant::now()).await;
            out[index] = Some(ran(hook, result, Duration::ZERO));
        }
        out.into_iter()
            .map(|slot| slot.expect("every hook of the unit has a result"))
            .collect()
    }

    /// The call of `hook` on `input` (with the hook's own name in the input where the
    /// dialect passes it, hygge's `hook_name`).
    fn call(&self, hook: &LoadedHook, input: &Arc<HookInput>, timeout: Duration) -> HookCall {
        let input = match self.event.dialect().hook_name_field {
            Some(field) => {
                let mut named = input.value.clone();
                if let Some(map) = named.as_object_mut() {
                    map.insert(field.into(), Value::String(hook.name.to_string()));
                }
                input.rewritten(named)
            }
            None => input.clone(),
        };
        HookCall {
            name: hook.name.clone(),
            event: self.event.clone(),
            input,
            timeout,
            project_dir: self.project_dir.clone(),
            background: self.background.clone(),
        }
    }

    /// Runs one hook: detached hooks go to the background and answer nothing now; the
    /// others run tracked, and on events where any failure fails the event
    /// (WorktreeCreate) a failure of any executor blocks. `started`: when the call began
    /// (what [`Calls::active`] counts from).
    async fn run_one(&self, hook: &LoadedHook, call: HookCall, started: Instant) -> HookRun {
        if let Some(detached) = hook.executor.detached() {
            let executor = hook.executor.clone();
            call.background.clone().spawn(async move {
                let result = executor.execute(call.clone()).await;
                call.background.notify(AsyncNotice::from_result(
                    &call.name,
                    call.event.name(),
                    detached.rewake,
                    result,
                ));
            });
            return HookRun::answer(Default::default());
        }
        let key = self.calls.next.fetch_add(1, Ordering::Relaxed);
        self.track(key, hook, &call, started);
        let failure_blocks = call.event.failure_blocks;
        let call_timeout_blocks = call.event.timeout_blocks;
        let result = hook.executor.execute(call).await;
        self.calls
            .active
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key);
        let failed = matches!(
            result.status,
            HookStatus::NonBlockingError | HookStatus::Cancelled
        );
        match result.error.clone() {
            // `failClosed`: any failure of the hook blocks, naming it.
            // The one place a failClosed hook's failure becomes a block (the front door
            // blocks before any hook when hookhost itself cannot run them).
            Some(error) if failed && hook.spec.fail_closed() => HookRun::failed_closed(
                format!(
                    "{} hook {} failed closed: {error}",
                    hook.spec.handler.executor_kind().as_str(),
                    hook.name
                ),
                error,
            ),
            // Events a hook that did not finish blocks (PreModelSwitch).
            Some(error) if call_timeout_blocks && result.status == HookStatus::Cancelled => {
                HookRun::failed_closed(
                    format!("hook {} did not finish ({error}); blocking", hook.name),
                    error,
                )
            }
            // Events where any failure fails the event (WorktreeCreate).
            Some(error) if failure_blocks && result.status == HookStatus::NonBlockingError => {
                HookRun::failed_closed(error.clone(), error)
            }
            _ => result,
        }
    }

    fn track(&self, key: u64, hook: &LoadedHook, call: &HookCall, started: Instant) {
        let running = Running {
            name: call.name.clone(),
            event: call.event.clone(),
            spec: hook.spec.clone(),
            started,
        };
        self.calls
            .active
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, running);
    }
}

/// The input the next hook of a chain sees: `input` with this answer's rewrites applied
/// (tool input, hygge's message and tool result), or `None` when nothing changed.
fn fed_forward(
    fields: &FedForward,
    input: &Value,
    output: &crate::output::HookAnswer,
) -> Option<Value> {
    let mut next: Option<Value> = None;
    let mut apply = |field: &str, value: Value| {
        if let Some(changed) =
            crate::hook_input::rewrite_field(next.as_ref().unwrap_or(input), field, value)
        {
            next = Some(changed);
        }
    };
    if let Some(updated) = &output.updated_input {
        apply(fields.tool_input, updated.clone());
    }
    if let Some(message) = &output.updated_message {
        apply(fields.message, Value::String(message.clone()));
    }
    if let Some(result) = &output.updated_tool_output {
        apply(fields.tool_result, result.clone());
    }
    next
}

/// A hook the chain did not start because an earlier hook stopped it.
fn not_run(hook: &LoadedHook, stop: &str) -> FinishedHook {
    ran(
        hook,
        HookRun::cancelled(format!("not run: the chain stopped ({stop})")),
        Duration::ZERO,
    )
}

/// The merge input for a hook that ran (a detached hook says so).
fn ran(hook: &LoadedHook, result: HookRun, duration: Duration) -> FinishedHook {
    FinishedHook {
        name: hook.name.to_string(),
        detached: hook.executor.detached().is_some(),
        source: hook.spec.layer.clone(),
        executor: hook.spec.handler.executor_kind(),
        result,
        duration,
        sha256: hook.executor.digest(),
    }
}

/// A hook currently running, with its status message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ActiveHook {
    /// Hook name.
    pub name: String,
    /// Event it runs for.
    pub event: String,
    /// Its `statusMessage`, if configured.
    pub status_message: Option<String>,
    /// How long it has been running.
    pub elapsed: Duration,
}

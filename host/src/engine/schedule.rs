//! Running the selected hooks of one event: every hook concurrently, a `sequential`
//! group in order (its rewritten input fed forward, stopping at the first block),
//! detached hooks handed to the background; results come back in configuration order.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{ActiveHook, Engine, Prepared, select};
use crate::event::Event;
use crate::executor::{AsyncNotice, HookCall};
use crate::merge::Ran;
use crate::outcome::{HookResult, HookStatus};

/// What every call of one event shares.
#[derive(Clone)]
pub(crate) struct EventRun {
    pub(crate) event: Event,
    pub(crate) session: Arc<str>,
}

impl Engine {
    /// Runs `selected` on `input` and returns one result per hook, in order.
    pub(crate) async fn run_all(
        &self,
        run: &EventRun,
        selected: &[Prepared],
        input: Arc<Value>,
    ) -> Vec<Ran> {
        let input_json: Arc<str> = Arc::from(input.to_string());
        // Units: a sequential group runs as one unit; every other hook is its own unit.
        let mut units: Vec<Vec<usize>> = Vec::new();
        let mut group_of: HashMap<&str, usize> = HashMap::new();
        for (index, hook) in selected.iter().enumerate() {
            if hook.spec.sequential {
                if let Some(&unit) = group_of.get(hook.spec.group.as_str()) {
                    units[unit].push(index);
                    continue;
                }
                group_of.insert(hook.spec.group.as_str(), units.len());
            }
            units.push(vec![index]);
        }
        let mut slots: Vec<Option<Ran>> = vec![None; selected.len()];
        let run_unit = |unit: Vec<usize>| {
            let engine = self.clone();
            let hooks: Vec<Prepared> = unit.iter().map(|&i| selected[i].clone()).collect();
            let (input, input_json, run) = (input.clone(), input_json.clone(), run.clone());
            async move {
                let ran = engine.run_unit(&run, hooks, input, input_json).await;
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
                        HookResult::non_blocking("internal error: the hook task panicked"),
                        Duration::ZERO,
                    )
                })
            })
            .collect()
    }

    /// Runs the hooks of one unit in order, feeding rewritten input forward and stopping
    /// at the first block (a unit of one hook is simply that hook).
    async fn run_unit(
        &self,
        run: &EventRun,
        hooks: Vec<Prepared>,
        mut input: Arc<Value>,
        mut input_json: Arc<str>,
    ) -> Vec<Ran> {
        let mut out = Vec::with_capacity(hooks.len());
        let mut stopped_by: Option<String> = None;
        for hook in &hooks {
            if let Some(blocker) = &stopped_by {
                out.push(ran(
                    hook,
                    HookResult::cancelled(format!(
                        "not run: sequential group stopped at blocking hook {blocker}"
                    )),
                    Duration::ZERO,
                ));
                continue;
            }
            let call = HookCall {
                name: hook.name.clone(),
                event: run.event.clone(),
                input: input.clone(),
                input_json: input_json.clone(),
                timeout: hook.timeout,
                project_dir: self.inner.project_dir.clone(),
                session_id: run.session.clone(),
                background: self.inner.background.clone(),
            };
            let started = Instant::now();
            let result = self.run_one(hook, call).await;
            let duration = started.elapsed();
            if hooks.len() > 1 {
                if result.output.blocks() {
                    stopped_by = Some(hook.name.to_string());
                } else if let Some(updated) = &result.output.updated_input
                    && let Some(next) = select::rewrite_input(&input, updated)
                {
                    input_json = Arc::from(next.to_string());
                    input = Arc::new(next);
                }
            }
            out.push(ran(hook, result, duration));
        }
        out
    }

    /// Runs one hook: detached hooks go to the background and answer nothing now; the
    /// others run tracked, and on events where any failure fails the event
    /// (WorktreeCreate) a failure of any executor blocks.
    async fn run_one(&self, hook: &Prepared, call: HookCall) -> HookResult {
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
            return HookResult::answer(Default::default());
        }
        let key = self.inner.next_call.fetch_add(1, Ordering::Relaxed);
        self.track(key, hook, &call);
        let failure_blocks = call.event.failure_blocks;
        let result = hook.executor.execute(call).await;
        self.inner
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
            Some(error) if failed && hook.spec.fail_closed() => HookResult::failed_closed(
                format!("failClosed hook {} failed: {error}", hook.name),
                error,
            ),
            // Events where any failure fails the event (WorktreeCreate).
            Some(error) if failure_blocks && result.status == HookStatus::NonBlockingError => {
                HookResult::failed_closed(error.clone(), error)
            }
            _ => result,
        }
    }

    fn track(&self, key: u64, hook: &Prepared, call: &HookCall) {
        let active = ActiveHook {
            name: call.name.to_string(),
            event: call.event.name().to_string(),
            status_message: hook.spec.status_message.clone(),
            elapsed: Duration::ZERO,
        };
        self.inner
            .active
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, (active, Instant::now()));
    }
}

/// The merge input for a hook that ran (a detached hook is labelled as such).
fn ran(hook: &Prepared, result: HookResult, duration: Duration) -> Ran {
    let name = match hook.executor.detached() {
        Some(_) => format!("{} (async)", hook.name),
        None => hook.name.to_string(),
    };
    Ran {
        name,
        source: hook.spec.layer.clone(),
        executor: hook.spec.handler.executor_kind(),
        result,
        duration,
        sha256: hook.executor.digest(),
    }
}

//! serve's part in the fleet: every second it sends the decisions one-shot processes
//! spooled and takes up a revision another process activated; it reports the machine's
//! status when it starts and every `statusInterval`; and when the managed settings name a
//! policy it pulls it every `policyInterval`, reloading on a new revision and reporting
//! activations and failures.

use super::*;
use hookhost::fleet::pull::PullOutcome;

/// Starts the loop.
pub(super) fn spawn(server: &Arc<Server>) {
    server.engine().report_status("start");
    let server = server.clone();
    tokio::spawn(async move {
        let mut last_status = Instant::now();
        let mut last_pull = Instant::now();
        // The active revision last taken up (reloaded for once, whatever the reload made
        // of it: a copy that fails its check is not reloaded every second).
        let mut seen = server.engine().policy().and_then(|p| p.revision.clone());
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let engine = server.engine();
            let spooled = engine.clone();
            let _ = tokio::task::spawn_blocking(move || spooled.send_spooled()).await;
            if let Some(settings) = engine.telemetry()
                && last_status.elapsed() >= Duration::from_secs(settings.status_interval)
            {
                last_status = Instant::now();
                engine.report_status("periodic");
            }
            let Some(policy) = engine.policy() else {
                continue;
            };
            // A revision activated by another process (`hookhost policy pull` from a
            // timer) is taken up here, as a changed hook file is.
            let active = hookhost::fleet::store::PolicyStore::at(&policy.store)
                .active()
                .map(|record| record.revision);
            if active.is_some() && active != seen {
                seen = active;
                server.reload("the active policy revision changed").await;
                server.engine().report_status("activated");
                continue;
            }
            if last_pull.elapsed() < Duration::from_secs(policy.interval) {
                continue;
            }
            last_pull = Instant::now();
            let config = server.config.clone();
            let pulled = tokio::task::spawn_blocking(move || {
                let options = config.load_options().ok()?;
                let (reference, signing, store) = hookhost::named_policy(&options).ok()??;
                Some(hookhost::fleet::pull::pull(&reference, &store, &signing))
            })
            .await
            .ok()
            .flatten();
            match pulled {
                Some(Ok(PullOutcome::Activated(record))) => {
                    seen = Some(record.revision.clone());
                    server
                        .reload(&format!("policy revision {} activated", record.revision))
                        .await;
                    server.engine().report_status("activated");
                }
                Some(Err(err)) => {
                    eprintln!("hookhost serve: policy pull: {err}");
                    server.engine().report_status("pull-failed");
                }
                Some(Ok(PullOutcome::Unchanged(_))) | None => {}
            }
        }
    });
}

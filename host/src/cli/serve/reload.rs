//! Reloads: SIGHUP and a watch on every configuration file and component.

use super::*;

/// Reloads on SIGHUP (Ctrl-Break on Windows).
pub(super) fn spawn_sighup(server: &Arc<Server>) -> anyhow::Result<()> {
    use hookhost::internals::platform::ReloadSignal;
    let mut hangup =
        ReloadSignal::watch().with_context(|| format!("cannot watch {}", ReloadSignal::NAME))?;
    let server = server.clone();
    tokio::spawn(async move {
        while hangup.recv().await.is_some() {
            server.reload(ReloadSignal::NAME).await;
        }
    });
    Ok(())
}

/// Names a change to which is a configuration change.
pub(super) fn is_config_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    matches!(
        name,
        "settings.json" | "settings.local.json" | "hooks.json" | "hooks.toml" | "plugin.json"
    ) || path
        .extension()
        .is_some_and(|ext| ext == "wasm" || ext == "json" || ext == "toml")
}

/// Watches the configuration's files, folders and components; a change reloads (after a
/// short quiet period, so an editor's burst of writes is one reload).
pub(super) fn watch(server: &Arc<Server>) -> anyhow::Result<notify::RecommendedWatcher> {
    use notify::{RecursiveMode, Watcher};
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<PathBuf>();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event
            && !event.kind.is_access()
        {
            for path in event.paths {
                if is_config_file(&path) {
                    let _ = tx.send(path);
                }
            }
        }
    })
    .context("cannot create the file watcher")?;
    let options = server.config.load_options()?;
    let mut folders: Vec<PathBuf> = Vec::new();
    for file in server.engine().inventory().source_files {
        folders.extend(file.parent().map(Path::to_path_buf));
    }
    for setting in &options.settings {
        let path = Path::new(setting);
        if path.is_absolute() || path.exists() {
            folders.extend(path.parent().map(Path::to_path_buf));
        }
    }
    // Every dialect's configuration folders, from the dialects' own discovery tables.
    for file in hookhost::candidate_files(&options) {
        folders.extend(file.parent().map(Path::to_path_buf));
    }
    folders.sort();
    folders.dedup();
    for folder in folders.iter().filter(|f| f.is_dir()) {
        watcher
            .watch(folder, RecursiveMode::NonRecursive)
            .with_context(|| format!("cannot watch {}", folder.display()))?;
    }
    for plugin in options.plugins.iter().filter(|p| p.is_dir()) {
        watcher
            .watch(plugin, RecursiveMode::Recursive)
            .with_context(|| format!("cannot watch {}", plugin.display()))?;
    }
    let server = server.clone();
    tokio::spawn(async move {
        while let Some(first) = rx.recv().await {
            // Quiet period: take every change of the burst.
            tokio::time::sleep(Duration::from_millis(150)).await;
            while rx.try_recv().is_ok() {}
            server.reload(&format!("{} changed", first.display())).await;
        }
    });
    Ok(watcher)
}

/// Adds the folders of `files` to `server`'s watch (a project `--all-projects` now
/// serves): a change there reloads, which drops the project engines.
pub(super) fn watch_more(server: &Server, files: &[PathBuf]) {
    use notify::{RecursiveMode, Watcher};
    let mut watcher = lock(&server.watcher);
    let Some(watcher) = watcher.as_mut() else {
        return;
    };
    let mut folders: Vec<&Path> = files.iter().filter_map(|file| file.parent()).collect();
    folders.sort();
    folders.dedup();
    for folder in folders.into_iter().filter(|f| f.is_dir()) {
        if let Err(err) = watcher.watch(folder, RecursiveMode::NonRecursive) {
            eprintln!("hookhost serve: cannot watch {}: {err}", folder.display());
        }
    }
}

/// Follows the OCI tags of the running configuration: every `wasmUpdateInterval` the
/// registry is asked what each tag names now; a moved tag reloads, and the reload swaps
/// the new version in only once it is pulled, verified (signature) and compiled. A
/// refused update keeps the running version (`/v1/diagnostics`, `/metrics`) and is not
/// retried until the tag moves again.
pub(super) fn spawn_tag_updates(server: &Arc<Server>) {
    let server = server.clone();
    tokio::spawn(async move {
        let mut refused: Vec<(String, String)> = Vec::new();
        loop {
            let engine = server.engine();
            let Some(interval) = engine.inventory().oci_update_interval else {
                tokio::time::sleep(Duration::from_secs(60)).await;
                continue;
            };
            tokio::time::sleep(interval).await;
            let tags = engine.inventory().oci_tags;
            drop(engine);
            if tags.is_empty() {
                continue;
            }
            let moved = tokio::task::spawn_blocking(move || {
                tags.into_iter()
                    .filter_map(|(reference, loaded)| {
                        let now = hookhost::OciRef::parse(&reference).ok()?.resolve().ok()?;
                        (now != loaded).then_some((reference, now))
                    })
                    .collect::<Vec<_>>()
            })
            .await
            .unwrap_or_default();
            let fresh: Vec<_> = moved
                .iter()
                .filter(|m| !refused.contains(m))
                .cloned()
                .collect();
            if fresh.is_empty() {
                continue;
            }
            let names: Vec<String> = fresh.iter().map(|(r, d)| format!("{r} -> {d}")).collect();
            server
                .reload(&format!("registry tag moved: {}", names.join(", ")))
                .await;
            // Tags still not on their new digests were refused (this time or before): not
            // retried until they move again.
            let now = server.engine().inventory().oci_tags;
            refused = moved
                .into_iter()
                .filter(|(reference, digest)| {
                    !now.iter().any(|(r, d)| r == reference && d == digest)
                })
                .collect();
        }
    });
}

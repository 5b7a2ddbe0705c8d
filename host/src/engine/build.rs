//! An engine's state built from a loaded configuration: hookhost's folders kept out of the
//! project, self-protection, the shared executor parts, session state, and every hook's
//! executor (its load errors and warnings as diagnostics).

use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, RwLock};

use super::inner::Inner;
use super::loaded_hook::LoadedHook;
use super::options::EngineOptions;
use super::select::OnceTracker;
use super::stop_guard::StopGuard;
use super::{audit, session_files};
use crate::config::{Diagnostic, HookSpec, LoadedConfig};
use crate::executor::Background;
use crate::executor::registry::{self, Shared};

/// The state of an engine for `config` with `options` (see [`crate::Engine::from_config`]).
pub(super) fn inner(mut config: LoadedConfig, mut options: EngineOptions) -> Inner {
    let mut diagnostics = std::mem::take(&mut config.diagnostics);
    let in_project = |dir: &Path| {
        config
            .project_dir
            .as_deref()
            .is_some_and(|project| crate::paths::inside(dir, project))
    };
    // Folders hookhost owns never live inside the project: an absolute variable
    // pointing into a repository would let it plant session state, the artifact key
    // or compiled artifacts.
    let spool_named = options.export_spool.is_some();
    for (dir, what) in [
        (&mut options.session_state_dir, "session state folder"),
        (&mut options.wasm.cache_dir, "Wasm artifact cache"),
        (&mut options.wasm.oci_dir, "OCI component store"),
        (
            &mut options.wasm.config_dir,
            "configuration folder (artifact key)",
        ),
        (&mut options.envelope_dir, "envelope folder"),
        (&mut options.export_spool, "export spool"),
    ] {
        if let Some(path) = dir.as_deref()
            && in_project(path)
        {
            diagnostics.push(Diagnostic::new(
                crate::config::Severity::Warning,
                path.display().to_string(),
                String::new(),
                format!("the {what} lies inside the project; not used"),
            ));
            *dir = None;
        }
    }
    let audit_path = options.audit_log.clone().or(config.audit_log.clone());
    if let Some(spool) = &options.export_spool {
        config.guard_files.push(spool.clone());
    }
    let self_protection = crate::self_protection::for_engine(
        &config,
        &options.wasm,
        options.session_state_dir.as_deref(),
        audit_path.as_deref(),
    );
    let enclosure = config.envelope.enabled.then(|| {
        let (mut places, secrets) = crate::self_protection::places(
            &config,
            &options.wasm,
            options.session_state_dir.as_deref(),
            audit_path.as_deref(),
        );
        let dir = options.envelope_dir.as_deref();
        if let Some(dir) = dir {
            places.push((dir.to_path_buf(), "hookhost's envelope folder".into()));
        }
        let envelope = crate::envelope::derive(
            &config,
            places,
            secrets,
            dir.unwrap_or(std::path::Path::new("/nonexistent")),
        );
        let mut enclosure =
            super::enclose::Enclosure::new(envelope, dir, options.envelope_launcher.clone());
        enclosure.session_enclosed = options.session_enclosed;
        enclosure.unenclosed_skills = config.envelope.unenclosed_skills.clone();
        enclosure
    });
    options.wasm.signing = std::sync::Arc::new(config.signing.clone());
    if let Some(mb) = config.wasm_cache_max_mb {
        options.wasm.cache_max_bytes = mb.saturating_mul(1 << 20);
    }
    let llm = match &config.prompt_endpoint {
        Some(endpoint) => options.llm.with_endpoint(endpoint),
        None => options.llm,
    };
    let shared = Shared::new(
        config.http_policy,
        config.grant_policy,
        config.project_dir.clone(),
        llm,
        options.wasm,
    );
    let mut next = 0;
    let session_store = options.session_state_dir.as_deref().and_then(|dir| {
        let scope = config
            .project_dir
            .as_deref()
            .map(|dir| dir.display().to_string())
            .unwrap_or_default();
        match session_files::SessionStore::open(dir, &scope) {
            Ok(store) => Some(Arc::new(store)),
            Err(err) => {
                diagnostics.push(Diagnostic::new(
                    crate::config::Severity::Warning,
                    dir.display().to_string(),
                    String::new(),
                    format!("session state kept in memory only (`once`, Stop re-entry): {err}"),
                ));
                None
            }
        }
    });
    // The owner's command hooks that run project code (`checks-before-commit`) run it
    // inside the same envelope as the agent's commands: they learn its file here (never
    // from the environment they inherit, see [`crate::executor::command`]).
    if let Some(enclosure) = &enclosure
        && !enclosure.session_enclosed
    {
        let file = enclosure.file.display().to_string();
        for spec in config.hooks.iter_mut().filter(|spec| spec.layer.is_owner()) {
            if matches!(spec.handler, crate::config::Handler::Command(_)) {
                spec.env
                    .push((crate::envelope::ENVELOPE_VAR.to_string(), file.clone()));
            }
        }
    }
    let hooks = config
        .hooks
        .into_iter()
        .map(|spec| {
            next += 1;
            let executor = registry::build(&spec, &shared);
            if let Some(error) = executor.load_error() {
                diagnostics.push(hook_error(&spec, &spec.display_name(), &error));
            }
            if let Some(warning) = executor.load_warning() {
                let mut diagnostic = hook_error(&spec, &spec.display_name(), &warning);
                diagnostic.severity = crate::config::Severity::Warning;
                diagnostics.push(diagnostic);
            }
            LoadedHook::new(next, spec, executor)
        })
        .collect();
    let export = config.telemetry.clone().and_then(|settings| {
        let spool = options
            .export_spool
            .as_deref()
            .map(crate::export::Spool::new);
        if spool_named && spool.is_none() && !options.export_direct {
            // A process that exits right after answering whose spool was refused (inside
            // the project): a sender thread would lose its record at exit, silently. Say
            // so instead.
            diagnostics.push(Diagnostic::new(
                crate::config::Severity::Warning,
                "telemetry",
                "",
                "the export spool lies inside the project, so this process's decisions are not exported; give --state-dir outside the project, or run `hookhost serve`",
            ));
            return None;
        }
        Some(crate::export::Exporter::new(
            settings,
            config
                .policy
                .as_ref()
                .map(|p| (p.revision.clone(), p.store.as_path())),
            spool,
            options.export_direct,
        ))
    });
    Inner {
        export,
        policy: config.policy.clone(),
        hooks,
        session_hooks: RwLock::new(Vec::new()),
        next_id: AtomicU64::new(next + 1),
        diagnostics,
        once: OnceTracker::with_store(session_store.clone()),
        stop_guard: StopGuard::new(options.stop_block_cap).with_store(session_store),
        calls: Arc::default(),
        background: Background::default(),
        revalidate_rewrites: config.revalidate_rewrites,
        audit: audit_path.as_deref().map(audit::AuditLog::new),
        project_dir: config.project_dir.map(Arc::from),
        home: config.home,
        dialect: config.dialect.dialect(),
        dialect_detected_from: config.dialect_detected_from,
        lost_guards: config.lost_guards,
        repository_files: config.repository_files,
        dropped: config.dropped,
        shared,
        wasm_update_interval: config.wasm_update_interval,
        self_protection,
        enclosure,
    }
}

/// An error diagnostic for a hook, at its location.
pub(super) fn hook_error(spec: &HookSpec, name: &str, error: &str) -> Diagnostic {
    Diagnostic::new(
        crate::config::Severity::Error,
        spec.file.clone(),
        spec.location.clone(),
        format!("{} hook {name}: {error}", spec.handler.executor_kind()),
    )
}

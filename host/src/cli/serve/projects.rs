//! `serve --all-projects`: one user-level `serve` for every project of its user. Every
//! request gets the owners' hooks (managed, user); a request whose `cwd` lies in a
//! workspace the owner trusts (hookhost's trust store, Claude Code's trust dialog) also
//! gets that project's own hooks, from an engine loaded for the trusted folder — which
//! the trust store names, not the request: a `cwd` only picks among the folders the owner
//! trusts, and command hooks run in that folder. Any other project gets the owners' hooks
//! only. Trust is looked up again at most [`TRUST_TTL`] after the last look, so removing a
//! folder from the trust store takes effect within it.

use super::*;

/// How long a trust lookup for one `cwd` is reused.
const TRUST_TTL: Duration = Duration::from_secs(2);
/// Project engines kept at most (least recently used dropped first).
const MAX_PROJECT_ENGINES: usize = 32;
/// Trust lookups remembered at most.
const MAX_LOOKUPS: usize = 4096;

/// The engines of trusted projects, and recent trust lookups.
#[derive(Default)]
pub(super) struct Projects {
    /// Most recently used last.
    engines: Mutex<Vec<(PathBuf, Engine)>>,
    lookups: Mutex<HashMap<String, (Option<PathBuf>, Instant)>>,
}

/// The working directory fields of a request, read without parsing the rest into values.
#[derive(serde::Deserialize)]
struct Where {
    cwd: Option<String>,
    pwd: Option<String>,
}

impl Projects {
    /// The engine of the trusted project `body`'s working directory lies in, if any.
    pub(super) fn engine_for(&self, server: &Server, body: &[u8]) -> Option<Engine> {
        let place: Where = serde_json::from_slice(body).ok()?;
        let field = server.engine().dialect().input.cwd;
        let cwd = if field == "pwd" { place.pwd } else { place.cwd }?;
        self.engine_for_cwd(server, &cwd)
    }

    /// The engine of the trusted project the working directory `cwd` lies in, if any.
    pub(super) fn engine_for_cwd(&self, server: &Server, cwd: &str) -> Option<Engine> {
        let cwd = cwd.to_string();
        if !Path::new(&cwd).is_absolute() {
            return None;
        }
        let root = self.trusted_root(server, &cwd)?;
        let mut engines = lock(&self.engines);
        if let Some(index) = engines.iter().position(|(dir, _)| *dir == root) {
            let entry = engines.remove(index);
            let engine = entry.1.clone();
            engines.push(entry);
            return Some(engine);
        }
        let mut config = server.config.clone();
        config.project_dir = Some(root.clone());
        config.no_project = false;
        let engine = match config.engine() {
            Ok(engine) => engine,
            Err(err) => {
                eprintln!(
                    "hookhost serve: project {}: {err}; answering with the owners' hooks",
                    root.display()
                );
                return None;
            }
        };
        for diagnostic in engine.diagnostics() {
            eprintln!("hookhost serve: project {}: {diagnostic}", root.display());
        }
        if let Ok(options) = config.load_options() {
            super::reload::watch_more(server, &hookhost::candidate_files(&options));
        }
        if engines.len() >= MAX_PROJECT_ENGINES {
            let (_, old) = engines.remove(0);
            tokio::spawn(async move { old.close().await });
        }
        engines.push((root, engine.clone()));
        Some(engine)
    }

    /// The trusted folder `cwd` lies in, looked up at most every [`TRUST_TTL`].
    fn trusted_root(&self, server: &Server, cwd: &str) -> Option<PathBuf> {
        if let Some((root, at)) = lock(&self.lookups).get(cwd)
            && at.elapsed() < TRUST_TTL
        {
            return root.clone();
        }
        let options = server.config.load_options().ok()?;
        let root = hookhost::internals::trusted_folder(&options, Path::new(cwd));
        let mut lookups = lock(&self.lookups);
        if lookups.len() >= MAX_LOOKUPS {
            lookups.clear();
        }
        lookups.insert(cwd.to_string(), (root.clone(), Instant::now()));
        root
    }

    /// Drops every project engine (a reload): they are built again on their next call.
    pub(super) fn clear(&self) {
        let engines = std::mem::take(&mut *lock(&self.engines));
        lock(&self.lookups).clear();
        for (_, engine) in engines {
            tokio::spawn(async move { engine.close().await });
        }
    }
}

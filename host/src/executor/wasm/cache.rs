//! Compile once: components are cached in memory by content hash, and on disk as
//! precompiled artifacts keyed by content hash and the engine's compatibility hash
//! (wasmtime version and codegen settings), so a second process start never compiles.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};
use wasmtime::component::Component;
use wasmtime::{Engine, Precompiled};

/// Counters of the component cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Components compiled with Cranelift.
    pub compiled: u64,
    /// Components loaded from a precompiled artifact on disk.
    pub disk_hits: u64,
    /// Components found already loaded in this process.
    pub memory_hits: u64,
}

/// The component cache of one runtime.
pub struct ComponentCache {
    engine: Engine,
    dir: Option<PathBuf>,
    engine_key: String,
    loaded: Mutex<HashMap<String, Component>>,
    compiled: AtomicU64,
    disk_hits: AtomicU64,
    memory_hits: AtomicU64,
}

impl ComponentCache {
    /// A cache for `engine`, with artifacts under `dir` when given.
    pub fn new(engine: Engine, dir: Option<PathBuf>) -> Self {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        Self {
            engine_key: format!("{:016x}", hasher.finish()),
            engine,
            dir,
            loaded: Mutex::new(HashMap::new()),
            compiled: AtomicU64::new(0),
            disk_hits: AtomicU64::new(0),
            memory_hits: AtomicU64::new(0),
        }
    }

    /// Current counters.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            compiled: self.compiled.load(Ordering::Relaxed),
            disk_hits: self.disk_hits.load(Ordering::Relaxed),
            memory_hits: self.memory_hits.load(Ordering::Relaxed),
        }
    }

    /// The component for `bytes`: from memory, from disk, or compiled (and stored).
    pub fn load(&self, bytes: &[u8]) -> Result<Component, String> {
        let digest = hex(&Sha256::digest(bytes));
        if let Some(component) = self
            .loaded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&digest)
        {
            self.memory_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(component.clone());
        }
        let artifact = self
            .dir
            .as_ref()
            .map(|dir| dir.join(format!("{digest}-{}.cwasm", self.engine_key)));
        let component = match artifact
            .as_deref()
            .and_then(|path| self.load_artifact(path))
        {
            Some(component) => {
                self.disk_hits.fetch_add(1, Ordering::Relaxed);
                component
            }
            None => self.compile(bytes, artifact.as_deref())?,
        };
        self.loaded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(digest, component.clone());
        Ok(component)
    }

    fn load_artifact(&self, path: &Path) -> Option<Component> {
        // Deserialising trusts the bytes: only read from a directory nobody else can write.
        if !private_dir(path.parent()?) {
            tracing::warn!(
                "Wasm cache directory {} is writable by other users; not loading artifacts from it",
                path.parent()?.display()
            );
            return None;
        }
        match Engine::detect_precompiled_file(path) {
            Ok(Some(Precompiled::Component)) => deserialize_own_artifact(&self.engine, path),
            _ => None,
        }
    }

    fn compile(&self, bytes: &[u8], artifact: Option<&Path>) -> Result<Component, String> {
        let precompiled = self
            .engine
            .precompile_component(bytes)
            .map_err(|err| format!("not a valid component: {err:#}"))?;
        self.compiled.fetch_add(1, Ordering::Relaxed);
        if let Some(path) = artifact {
            // Best effort: a read-only cache directory only costs the next start a compile.
            let _ = write_atomically(path, &precompiled);
        }
        deserialize_own_bytes(&self.engine, &precompiled)
            .ok_or_else(|| "cannot load the freshly compiled component".to_string())
    }
}

#[expect(
    unsafe_code,
    reason = "the artifact was produced by this engine's precompile step"
)]
fn deserialize_own_artifact(engine: &Engine, path: &Path) -> Option<Component> {
    // SAFETY: only files named after this engine's compatibility hash in hookhost's own
    // cache directory are read; they were written by `precompile_component` above.
    unsafe { Component::deserialize_file(engine, path) }.ok()
}

#[expect(
    unsafe_code,
    reason = "the bytes come straight from precompile_component"
)]
fn deserialize_own_bytes(engine: &Engine, bytes: &[u8]) -> Option<Component> {
    // SAFETY: `bytes` were produced by `Engine::precompile_component` on this engine.
    unsafe { Component::deserialize(engine, bytes) }.ok()
}

/// Whether `dir` is owned by this user and not writable by group or others.
fn private_dir(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir).is_ok_and(|meta| {
        meta.uid() == nix::unistd::Uid::effective().as_raw() && meta.mode() & 0o022 == 0
    })
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let dir = path.parent().unwrap_or(Path::new("."));
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    if !private_dir(dir) {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    let temp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    std::fs::write(&temp, bytes)?;
    std::fs::rename(&temp, path)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The default cache directory: `$XDG_CACHE_HOME/hookhost/wasm` or
/// `~/.cache/hookhost/wasm`.
pub fn default_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|base| base.join("hookhost").join("wasm"))
}

/// Shared handle.
pub type SharedCache = Arc<ComponentCache>;

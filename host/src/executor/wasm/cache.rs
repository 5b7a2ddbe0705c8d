//! Compile once: components are cached in memory by content hash, and on disk as
//! precompiled artifacts keyed by content hash and the engine's compatibility hash
//! (wasmtime version and codegen settings), so a second process start never compiles.
//!
//! # Threat model of the disk cache
//! Loading a precompiled artifact runs native code that wasmtime does not check, so the
//! cache must never load bytes hookhost did not compile itself. The defences:
//! - the cache folder must be owned by this user and not writable by group or others;
//!   a folder that is not is refused (the cache is then memory-only), never `chmod`ed;
//! - every artifact carries a keyed BLAKE3 MAC over its name (content digest, engine
//!   key) and bytes, keyed by a random 256-bit key in hookhost's *configuration* folder
//!   (`cache.key`, mode 0600), not in the cache folder; an artifact whose MAC does not
//!   verify is ignored and recompiled. BLAKE3 rather than HMAC-SHA256 because the check
//!   runs on every process start over artifacts of tens of megabytes (a Python guest's is
//!   ~40 MB): it verifies at several GB/s, faster than the file is read;
//! - no Wasm grant may contain or lie inside the cache folder or the configuration
//!   folder (refused at load, see `grants`), so a guest can read neither the key nor
//!   the artifacts;
//! - an artifact is verified through the opened file (no symlink followed, regular, this
//!   user's, no one else may write it), then mapped by wasmtime from its name, and used
//!   only if that name still holds the very file verified (device and inode, size; other
//!   processes' use stamps change its times and do not count). Mapping rather than
//!   copying is what makes a 40 MB artifact load in milliseconds; the window between the
//!   check and the map is open only to a writer of this user's private cache folder,
//!   which is out of scope (below): such a process can read the MAC key as well;
//! - temporary files are created with `O_CREAT | O_EXCL | O_NOFOLLOW` and renamed into
//!   place, so a planted symlink or file is never followed or overwritten.
//!
//! Out of scope: code running as the same user outside hookhost (it could replace the
//! hookhost binary itself).

mod lru;
pub mod memo;
pub use lru::{CacheEntry, DEFAULT_MAX_BYTES, entries, prune};

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::hash::{Hash, Hasher};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

use super::LoadError;
use crate::files::ensure_private_dir;
use crate::platform;

/// Largest artifact read back from disk (a bigger file is ignored and recompiled).
pub const MAX_ARTIFACT_BYTES: u64 = 1 << 30;
const MAC_BYTES: usize = blake3::OUT_LEN;
/// The artifact key's file in hookhost's configuration folder.
const KEY_FILE: &str = "cache.key";
/// The format of a stored artifact: wasmtime's bytes, then a 32-byte keyed BLAKE3 MAC of
/// them (a trailer: wasmtime maps the file whole and reads its sections, so the bytes
/// after the last one are never looked at; the test
/// `a_flipped_byte_anywhere_in_an_artifact_is_refused` proves it for the pinned wasmtime).
const ARTIFACT_FORMAT: &str = "blake3-keyed-trailer-v1";

/// Counters of the component cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// Components compiled with Cranelift.
    pub compiled: u64,
    /// Components loaded from a precompiled artifact on disk.
    pub disk_hits: u64,
    /// Components found already loaded in this process.
    pub memory_hits: u64,
    /// Artifacts on disk refused (bad MAC, wrong owner, not a regular file, …).
    pub rejected: u64,
    /// Components also loaded into the pool that resets memories by copying them back
    /// whole (large memory images; see `WasmOptions::copy_reset_from`).
    pub copy_pool: u64,
}

type Loaded = Arc<OnceLock<Result<Component, LoadError>>>;

/// How compiling is bounded.
#[derive(Debug, Clone)]
pub struct CompileLimits {
    /// Longest a compile may take.
    pub timeout: Duration,
    /// A program to run as `PROGRAM __compile-worker` (see `WasmOptions::compile_worker`).
    pub worker: Option<PathBuf>,
    /// Address space of the worker.
    pub memory_bytes: u64,
}

/// The component cache of one runtime.
pub struct ComponentCache {
    engine: Engine,
    disk: Option<DiskCache>,
    engine_key: String,
    limits: CompileLimits,
    loaded: Mutex<HashMap<String, Loaded>>,
    /// Components loaded into another engine of the runtime, by digest.
    copies: Mutex<HashMap<String, Component>>,
    compiled: AtomicU64,
    disk_hits: AtomicU64,
    memory_hits: AtomicU64,
    rejected: AtomicU64,
    copy_pool: AtomicU64,
}

struct DiskCache {
    dir: PathBuf,
    key: [u8; 32],
    /// Most bytes of artifacts the folder keeps (least recently used go first).
    max_bytes: u64,
}

impl ComponentCache {
    /// A cache for `engine`, with artifacts under `dir` (MAC key in `key_dir`) when both
    /// are given and usable; compiles are bounded by `limits`.
    pub fn new(
        engine: Engine,
        dir: Option<PathBuf>,
        key_dir: Option<PathBuf>,
        limits: CompileLimits,
        max_bytes: u64,
    ) -> Self {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        // The artifact format (its MAC) is part of the name: artifacts of another format
        // are never read, only aged out by the size cap.
        ARTIFACT_FORMAT.hash(&mut hasher);
        let disk = match (dir, key_dir) {
            (Some(dir), Some(key_dir)) => match DiskCache::open(dir, &key_dir, max_bytes) {
                Ok(disk) => Some(disk),
                Err(err) => {
                    tracing::warn!("Wasm disk cache disabled: {err}");
                    None
                }
            },
            _ => None,
        };
        Self {
            engine_key: format!("{:016x}", hasher.finish()),
            engine,
            disk,
            limits,
            loaded: Mutex::new(HashMap::new()),
            copies: Mutex::new(HashMap::new()),
            compiled: AtomicU64::new(0),
            disk_hits: AtomicU64::new(0),
            memory_hits: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            copy_pool: AtomicU64::new(0),
        }
    }

    /// Current counters.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            compiled: self.compiled.load(Ordering::Relaxed),
            disk_hits: self.disk_hits.load(Ordering::Relaxed),
            memory_hits: self.memory_hits.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
            copy_pool: self.copy_pool.load(Ordering::Relaxed),
        }
    }

    /// The component whose bytes have `digest`: from memory, from disk, or compiled (and
    /// stored) from what `bytes` gives, which is asked for only then. Blocking;
    /// concurrent loads of the same digest compile once.
    pub fn load<'a>(
        &self,
        digest: &str,
        bytes: impl FnOnce() -> Result<std::borrow::Cow<'a, [u8]>, LoadError>,
    ) -> Result<Component, LoadError> {
        let slot = self.slot(digest);
        slot.get_or_init(|| match self.stored(digest) {
            Some(component) => Ok(component),
            None => self.compile_and_store(digest, &bytes()?),
        })
        .clone()
    }

    /// `component` (whose bytes have `digest`, loaded by this cache) loaded into `engine`
    /// too: another engine of the same runtime, whose compatibility hash is this one's
    /// (a unit test of the runtime checks). Kept, so every hook and every reload that
    /// uses the same component shares one copy.
    pub fn load_into(
        &self,
        engine: &Engine,
        digest: &str,
        component: &Component,
    ) -> Result<Component, LoadError> {
        let mut copies = self.copies.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(loaded) = copies.get(digest) {
            return Ok(loaded.clone());
        }
        let bytes = component
            .serialize()
            .map_err(|err| LoadError::Deserialize(format!("{err:#}")))?;
        let loaded = deserialize_own_bytes(engine, &bytes).map_err(LoadError::Deserialize)?;
        self.copy_pool.fetch_add(1, Ordering::Relaxed);
        copies.insert(digest.to_string(), loaded.clone());
        Ok(loaded)
    }

    /// The component whose bytes have `digest` if it is loaded or its artifact stored:
    /// never compiles (`None` then, and nothing is remembered).
    pub fn load_if_stored(&self, digest: &str) -> Option<Component> {
        let slot = self.slot(digest);
        if let Some(done) = slot.get() {
            return done.as_ref().ok().cloned();
        }
        let component = self.stored(digest)?;
        slot.get_or_init(|| Ok(component)).as_ref().ok().cloned()
    }

    /// The slot of `digest` in the in-memory map (a hit is counted when it is filled).
    fn slot(&self, digest: &str) -> Loaded {
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        let slot = loaded.entry(digest.to_string()).or_default().clone();
        if slot.get().is_some() {
            self.memory_hits.fetch_add(1, Ordering::Relaxed);
        }
        slot
    }

    fn artifact_name(&self, digest: &str) -> String {
        format!("{digest}-{}", self.engine_key)
    }

    /// The stored artifact of `digest`, verified and deserialised.
    fn stored(&self, digest: &str) -> Option<Component> {
        let disk = self.disk.as_ref()?;
        let name = self.artifact_name(digest);
        match disk.read(&self.engine, &name) {
            Ok(Some(component)) => {
                self.disk_hits.fetch_add(1, Ordering::Relaxed);
                return Some(component);
            }
            Ok(None) => {}
            Err(err) => {
                tracing::warn!("ignoring cached artifact {name}: {err}");
                self.rejected.fetch_add(1, Ordering::Relaxed);
            }
        }
        None
    }

    fn compile_and_store(&self, digest: &str, bytes: &[u8]) -> Result<Component, LoadError> {
        let precompiled = self.compile(bytes)?;
        let name = self.artifact_name(digest);
        if let Some(disk) = &self.disk
            && let Err(err) = disk.write(&name, &precompiled)
        {
            // A read-only cache only costs the next start a compile.
            tracing::debug!("cannot store artifact {name}: {err}");
        }
        deserialize_own_bytes(&self.engine, &precompiled).map_err(LoadError::Deserialize)
    }

    /// The SHA-256 remembered for a component file whose identity and change stamp are
    /// `stamp` (see [`memo`]); `None` when nothing is remembered or it no longer holds.
    pub fn recall_digest(&self, stamp: &memo::Stamp) -> Option<String> {
        let disk = self.disk.as_ref()?;
        memo::recall(&disk.dir, &disk.key, stamp)
    }

    /// Remembers `digest` for a component file just read whole with `stamp`.
    pub fn remember_digest(&self, stamp: &memo::Stamp, digest: &str) {
        if let Some(disk) = &self.disk
            && let Err(err) = memo::remember(&disk.dir, &disk.key, stamp, digest)
        {
            tracing::debug!("cannot remember the digest of a component file: {err}");
        }
    }

    /// Compiles within the limits: in a worker process when one is configured, else on a
    /// thread of its own. A compile that runs over is abandoned (the worker is killed; a
    /// thread finishes in the background, its result unused).
    fn compile(&self, bytes: &[u8]) -> Result<Vec<u8>, LoadError> {
        let result = match &self.limits.worker {
            Some(worker) => compile_in_worker(worker, bytes, &self.limits),
            None => self.compile_on_thread(bytes),
        };
        if result.is_ok() {
            self.compiled.fetch_add(1, Ordering::Relaxed);
        }
        result
    }

    fn compile_on_thread(&self, bytes: &[u8]) -> Result<Vec<u8>, LoadError> {
        let (send, receive) = std::sync::mpsc::sync_channel(1);
        let engine = self.engine.clone();
        let owned = bytes.to_vec();
        std::thread::Builder::new()
            .name("hookhost-wasm-compile".into())
            .spawn(move || {
                let _ = send.send(engine.precompile_component(&owned));
            })
            .map_err(|err| {
                LoadError::CompileSetup(format!("cannot start a compile thread: {err}"))
            })?;
        match receive.recv_timeout(self.limits.timeout) {
            Ok(result) => result.map_err(|err| LoadError::Invalid(format!("{err:#}"))),
            Err(_) => Err(time_limit(&self.limits)),
        }
    }
}

fn time_limit(limits: &CompileLimits) -> LoadError {
    LoadError::CompileTime(limits.timeout.as_secs_f64())
}

/// Runs `worker __compile-worker`, feeding it the component and reading the artifact.
fn compile_in_worker(
    worker: &Path,
    bytes: &[u8],
    limits: &CompileLimits,
) -> Result<Vec<u8>, LoadError> {
    use std::process::{Command, Stdio};
    let mut child = Command::new(worker)
        .arg("__compile-worker")
        .arg("--memory-bytes")
        .arg(limits.memory_bytes.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| {
            LoadError::CompileSetup(format!(
                "cannot start the compile worker {}: {err}",
                worker.display()
            ))
        })?;
    let mut stdin = child.stdin.take().expect("piped");
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut artifact = Vec::new();
        let _ = (&mut stdout)
            .take(MAX_ARTIFACT_BYTES)
            .read_to_end(&mut artifact);
        artifact
    });
    let mut stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = (&mut stderr).take(64 * 1024).read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > limits.timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(time_limit(limits));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(err) => {
                return Err(LoadError::CompileSetup(format!(
                    "compile worker failed: {err}"
                )));
            }
        }
    };
    let _ = writer.join();
    let artifact = reader.join().unwrap_or_default();
    let errors = errors.join().unwrap_or_default();
    if status.success() {
        return Ok(artifact);
    }
    let first = errors
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if let Some(reason) = first.strip_prefix("not a valid component: ")
        // An allocation wasmtime could not make under the address-space limit comes back
        // as an error rather than an abort: still the memory limit, not the component.
        && !reason.contains("out of memory")
    {
        return Err(LoadError::Invalid(reason.to_string()));
    }
    // Allocation failures under the address-space limit abort the worker.
    Err(LoadError::CompileWorker {
        mib: limits.memory_bytes >> 20,
        detail: if first.is_empty() {
            status.to_string()
        } else {
            format!("{status}: {first}")
        },
    })
}

#[expect(
    unsafe_code,
    reason = "a read-only map of an artifact of the private cache folder, open and checked"
)]
fn map_read_only(file: &std::fs::File, len: u64) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the map is only read, while the file stays open, and dropped before the
    // artifact is used. Only a writer of this user's private cache folder could change it
    // meanwhile (out of scope: see the module doc); a change then fails the MAC or the
    // identity check in `DiskCache::read`. Pages are populated up front (one call instead
    // of a fault per page).
    unsafe {
        memmap2::MmapOptions::new()
            .len(usize::try_from(len).map_err(std::io::Error::other)?)
            .populate()
            .map(file)
    }
}

#[expect(
    unsafe_code,
    reason = "an artifact of the private cache folder whose MAC was just verified through the open file, mapped by its name (`DiskCache::read` checks the name still holds that file)"
)]
fn map_own_artifact(engine: &Engine, path: &Path) -> Result<Component, String> {
    // SAFETY: see the module doc (threat model) and `DiskCache::read`.
    unsafe { Component::deserialize_file(engine, path) }.map_err(|err| format!("{err:#}"))
}

#[expect(
    unsafe_code,
    reason = "the bytes were produced by this process's wasmtime just now"
)]
fn deserialize_own_bytes(engine: &Engine, bytes: &[u8]) -> Result<Component, String> {
    // SAFETY: `bytes` come from `Engine::precompile_component` or `Component::serialize`
    // in this process, just now, with this engine's compatibility hash, and sit in
    // memory private to this process.
    unsafe { Component::deserialize(engine, bytes) }.map_err(|err| format!("{err:#}"))
}

#[expect(
    unsafe_code,
    reason = "bytes of an artifact of the private cache folder, in this process's memory, whose MAC was verified on these very bytes"
)]
fn deserialize_verified_bytes(engine: &Engine, bytes: &[u8]) -> Result<Component, String> {
    // SAFETY: the MAC over exactly these bytes verified with the key only this hookhost
    // holds (see the module doc): they are what this hookhost compiled and stored, and
    // nothing can change them in this process's memory.
    unsafe { Component::deserialize(engine, bytes) }.map_err(|err| format!("{err:#}"))
}

/// True when `path` still names the file `id` of `len` bytes: nothing was renamed over
/// it (how every writer of the cache replaces a file). Its times may have changed: other
/// processes stamp an artifact they use ([`lru::touch`]), and must not fail this load.
fn still_names(path: &Path, id: platform::FileId, len: u64) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_file() && meta.len() == len)
        && platform::path_id(path).ok() == Some(id)
}

/// Artifacts from this size on are MAC'd on every core.
const PARALLEL_MAC_BYTES: usize = 4 << 20;

/// Feeds an artifact's bytes to its MAC: past a few megabytes on every core (a process
/// loading a hook is otherwise idle).
fn feed(mac: &mut blake3::Hasher, bytes: &[u8]) {
    if bytes.len() >= PARALLEL_MAC_BYTES {
        mac.update_rayon(bytes);
    } else {
        mac.update(bytes);
    }
}

impl DiskCache {
    fn open(dir: PathBuf, key_dir: &Path, max_bytes: u64) -> Result<Self, String> {
        ensure_private_dir(&dir)?;
        ensure_private_dir(key_dir)?;
        let key = load_or_create_key(&key_dir.join(KEY_FILE))?;
        Ok(Self {
            dir,
            key,
            max_bytes,
        })
    }

    /// A MAC over an artifact's name, to be fed its bytes.
    fn mac_start(&self, name: &str) -> blake3::Hasher {
        let mut mac = blake3::Hasher::new_keyed(&self.key);
        mac.update(&(name.len() as u64).to_le_bytes());
        mac.update(name.as_bytes());
        mac
    }

    /// The artifact `name`, verified and deserialised; `None` when absent.
    fn read(&self, engine: &Engine, name: &str) -> Result<Option<Component>, String> {
        let path = self.dir.join(format!("{name}.cwasm"));
        let Some(file) = open_private_file(&path)? else {
            return Ok(None);
        };
        let meta = file.metadata().map_err(|e| e.to_string())?;
        if meta.len() > MAX_ARTIFACT_BYTES || meta.len() < MAC_BYTES as u64 {
            return Err(format!("unexpected size {} bytes", meta.len()));
        }
        let id = platform::file_id(&file).map_err(|e| e.to_string())?;
        self.verify(name, &file, meta.len())?;
        // SAFETY (of the load below): the file just verified is mapped by name; it is
        // used only when the name still holds that file.
        let component = match map_own_artifact(engine, &path) {
            Ok(component) => component,
            // A system that refuses wasmtime's copy-on-write map of a file (Wine 8:
            // "failed change pages to `PAGE_READONLY`") still loads the artifact without
            // a compile: read through the open file into this process's memory.
            Err(mapped) => {
                tracing::debug!("artifact {name}: the map was refused ({mapped}); reading it");
                self.read_into_memory(engine, name, &file, meta.len())
                    .map_err(|read| format!("{mapped}; read into memory: {read}"))?
            }
        };
        if !still_names(&path, id, meta.len()) {
            return Err("replaced while it was loaded".into());
        }
        lru::touch(&file);
        Ok(Some(component))
    }

    /// Checks the MAC trailer of the open artifact `file` of `len` bytes, through a
    /// read-only map of it (no copy; hashed on every core).
    fn verify(&self, name: &str, file: &std::fs::File, len: u64) -> Result<(), String> {
        let body = usize::try_from(len - MAC_BYTES as u64).map_err(|e| e.to_string())?;
        let mut mac = self.mac_start(name);
        let map = map_read_only(file, len).map_err(|e| format!("cannot map: {e}"))?;
        let (bytes, trailer) = map.split_at(body);
        feed(&mut mac, bytes);
        let tag: [u8; MAC_BYTES] = trailer.try_into().map_err(|_| "truncated".to_string())?;
        // `blake3::Hash` compares in constant time.
        if mac.finalize() != blake3::Hash::from_bytes(tag) {
            return Err("MAC does not verify (not written by this hookhost)".to_string());
        }
        Ok(())
    }

    /// The open artifact `file` of `len` bytes read whole into memory, its MAC checked on
    /// exactly the bytes read, then deserialised from them (no map of the file).
    fn read_into_memory(
        &self,
        engine: &Engine,
        name: &str,
        file: &std::fs::File,
        len: u64,
    ) -> Result<Component, String> {
        let mut bytes = Vec::with_capacity(usize::try_from(len).map_err(|e| e.to_string())?);
        let mut reader = file;
        std::io::Seek::rewind(&mut reader).map_err(|e| e.to_string())?;
        reader
            .take(len)
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        if bytes.len() as u64 != len {
            return Err("changed size while it was read".into());
        }
        let (body, trailer) = bytes.split_at(bytes.len() - MAC_BYTES);
        let mut mac = self.mac_start(name);
        feed(&mut mac, body);
        let tag: [u8; MAC_BYTES] = trailer.try_into().map_err(|_| "truncated".to_string())?;
        if mac.finalize() != blake3::Hash::from_bytes(tag) {
            return Err("MAC does not verify (not written by this hookhost)".to_string());
        }
        deserialize_verified_bytes(engine, body)
    }

    fn write(&self, name: &str, artifact: &[u8]) -> Result<(), String> {
        let mut mac = self.mac_start(name);
        feed(&mut mac, artifact);
        let tag = *mac.finalize().as_bytes();
        let (temp, mut file) = create_exclusive(&self.dir, name)?;
        let written = file
            .write_all(artifact)
            .and_then(|()| file.write_all(&tag))
            .and_then(|()| file.sync_data());
        drop(file);
        let stored = self.dir.join(format!("{name}.cwasm"));
        if let Err(err) = written.and_then(|()| std::fs::rename(&temp, &stored)) {
            let _ = std::fs::remove_file(&temp);
            return Err(err.to_string());
        }
        // Keep the folder under its cap; the artifact just stored stays.
        match prune(&self.dir, self.max_bytes, Some(&stored)) {
            Ok(removed) if !removed.is_empty() => tracing::debug!(
                "Wasm cache over {} bytes: removed {} least recently used artifacts",
                self.max_bytes,
                removed.len()
            ),
            Ok(_) => {}
            Err(err) => tracing::warn!("cannot keep the Wasm cache under its cap: {err}"),
        }
        Ok(())
    }
}

/// Opens a file of the cache folder for reading: never through a symlink, never blocking
/// (a FIFO), and only a regular file of this user that no one else may write. `None` when
/// it does not exist.
fn open_private_file(path: &Path) -> Result<Option<std::fs::File>, String> {
    let file = match platform::no_follow(OpenOptions::new().read(true)).open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(format!("cannot open: {err}")),
    };
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if !platform::owned_by_me(&meta) || platform::others_may_write(&meta) {
        return Err("not owned by this user, or writable by others".into());
    }
    Ok(Some(file))
}

/// Creates a new file in `dir` with an unpredictable name, `O_EXCL | O_NOFOLLOW`, 0600.
fn create_exclusive(dir: &Path, name: &str) -> Result<(PathBuf, std::fs::File), String> {
    for _ in 0..16 {
        let nonce = hex(&platform::random_bytes::<8>()?);
        let temp = dir.join(format!(".{name}.{nonce}.tmp"));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        match platform::no_follow(platform::private_file(&mut options)).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(format!("cannot create {}: {err}", temp.display())),
        }
    }
    Err("cannot find a free temporary file name".into())
}

fn load_or_create_key(path: &Path) -> Result<[u8; 32], String> {
    match read_key(path)? {
        Some(key) => Ok(key),
        None => store_key(path, &platform::random_bytes::<32>()?),
    }
}

/// The key at `path`; `None` when there is none. Anything but a private 32-byte
/// regular file of this user's is refused.
fn read_key(path: &Path) -> Result<Option<[u8; 32]>, String> {
    let file = match platform::no_follow(OpenOptions::new().read(true)).open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(format!("cannot open {}: {err}", path.display())),
    };
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file()
        || !platform::owned_by_me(&meta)
        || platform::others_may_access(&meta)
        || meta.len() != 32
    {
        return Err(format!(
            "{} must be a 32-byte file owned by this user with mode 0600",
            path.display()
        ));
    }
    let mut key = [0u8; 32];
    (&file)
        .read_exact(&mut key)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(Some(key))
}

/// Stores `key` at `path` unless a key is there already (another process created it
/// first): the key `path` holds afterwards.
fn store_key(path: &Path, key: &[u8; 32]) -> Result<[u8; 32], String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let (temp, mut file) = create_exclusive(dir, "cache.key")?;
    let written = file.write_all(key).and_then(|()| file.sync_all());
    drop(file);
    // Link, not rename: if another process created the key first, keep theirs.
    let linked = written.and_then(|()| std::fs::hard_link(&temp, path));
    let _ = std::fs::remove_file(&temp);
    match linked {
        Ok(()) => Ok(*key),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
            read_key(path)?.ok_or_else(|| format!("{} vanished", path.display()))
        }
        Err(err) => Err(format!("cannot create {}: {err}", path.display())),
    }
}

/// Makes the key in the file `key` (created when missing) the artifact key of the
/// configuration folder `to`, unless `to` has a key of its own: processes with `to` as
/// their configuration folder then trust the artifacts each other store in a cache they
/// share. `hookhost test` gives its cases fresh homes, one cache and a key of its own
/// (never the owner's: a case's command hook may read its home). Without it every case
/// compiled every component again.
pub fn share_key(key: &Path, to: &Path) -> Result<(), String> {
    if let Some(dir) = key.parent() {
        ensure_private_dir(dir)?;
    }
    let key = load_or_create_key(key)?;
    ensure_private_dir(to)?;
    let to = to.join(KEY_FILE);
    match read_key(&to)? {
        Some(_) => Ok(()),
        None => store_key(&to, &key).map(drop),
    }
}

/// The SHA-256 digest of `bytes`, lowercase hex (a component's identity: cache key,
/// `sha256` pin, audit log).
pub fn digest(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The default cache directory (see [`crate::paths::cache_dir`]).
pub fn default_dir() -> Option<PathBuf> {
    crate::paths::cache_dir()
}

/// hookhost's configuration folder, which holds the artifact key (see
/// [`crate::paths::config_dir`]).
pub fn default_config_dir() -> Option<PathBuf> {
    crate::paths::config_dir()
}

#[cfg(test)]
mod tests;

//! Loading a component: file checks (regular file, size cap, read without blocking),
//! the pin, compile or cache, import and WIT-version check, resource needs, and
//! pre-instantiation.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use wasmtime::Engine;
use wasmtime::component::Component;

use super::load_error::LoadError;
use super::runtime::{WasmRuntime, slot_weight};
use super::wit::{Pre, WIT_VERSIONS, WitTarget};
use super::{cache, limits};

/// Where a hook's component comes from.
#[derive(Clone)]
pub(super) enum Source {
    File(PathBuf),
    Bytes(Arc<[u8]>),
    /// A guard that comes with hookhost (`builtin:NAME`).
    Builtin(&'static crate::builtin::Builtin),
    /// A component in an OCI registry, pulled into the store at load.
    Oci(crate::oci::OciRef),
}

/// A component ready to instantiate, and the pool slots one call takes.
pub(super) struct Ready {
    pub(super) pre: Pre,
    /// The engine `pre` belongs to (the runtime's, or its copy pool's).
    pub(super) engine: Engine,
    /// It is the copy pool's: making and dropping an instance costs a copy of its
    /// memory image.
    pub(super) copy_pool: bool,
    pub(super) weight: u32,
    /// SHA-256 of the component bytes.
    pub(super) digest: String,
    /// The trusted signer whose signature it carries.
    pub(super) signer: Option<String>,
    /// Where it came from, for an OCI reference: `oci://…:tag → sha256:<manifest>`.
    pub(super) origin: Option<String>,
    /// A tag reference and the manifest digest it resolved to (what an update check
    /// compares).
    pub(super) tag: Option<(String, String)>,
}

/// Load-time check of a component path without opening it (opening a FIFO blocks): it
/// must be a regular file within the size cap.
pub(super) fn check_component_file(path: &Path, max_bytes: u64) -> Result<(), LoadError> {
    let meta = std::fs::metadata(path).map_err(|err| read_error(path, err))?;
    if !meta.is_file() {
        return Err(LoadError::NotRegularFile {
            path: path.to_path_buf(),
        });
    }
    if meta.len() > max_bytes {
        return Err(too_large(path, meta.len(), max_bytes));
    }
    Ok(())
}

fn read_error(path: &Path, err: std::io::Error) -> LoadError {
    LoadError::Read {
        path: path.to_path_buf(),
        source: Arc::new(err),
    }
}

fn too_large(path: &Path, size: u64, limit: u64) -> LoadError {
    LoadError::TooLarge {
        what: path.display().to_string(),
        size,
        limit,
    }
}

/// Opens a component: non-blocking (a FIFO swapped in after the check cannot hang), and
/// checked again on the open file. Returns the file and its metadata.
fn open_component(
    path: &Path,
    max_bytes: u64,
) -> Result<(std::fs::File, std::fs::Metadata), LoadError> {
    let file = crate::platform::non_blocking(std::fs::OpenOptions::new().read(true))
        .open(path)
        .map_err(|err| read_error(path, err))?;
    let meta = file.metadata().map_err(|err| read_error(path, err))?;
    if !meta.is_file() {
        return Err(LoadError::NotRegularFile {
            path: path.to_path_buf(),
        });
    }
    if meta.len() > max_bytes {
        return Err(too_large(path, meta.len(), max_bytes));
    }
    Ok((file, meta))
}

/// Reads an opened component, no further than the cap.
fn read_component(
    path: &Path,
    file: &std::fs::File,
    meta: &std::fs::Metadata,
    max_bytes: u64,
) -> Result<Vec<u8>, LoadError> {
    let mut bytes = Vec::with_capacity(meta.len().min(max_bytes) as usize);
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| read_error(path, err))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(path, bytes.len() as u64, max_bytes));
    }
    Ok(bytes)
}

/// Refuses a component that declares more memories or tables than a call may have (or
/// whose needs cannot be known), and returns the pool slots one call takes.
/// The slots one call takes, and the component's largest initial linear memory (bytes).
fn check_resources(component: &Component) -> Result<(u32, Option<u64>), LoadError> {
    let needs = component
        .resources_required()
        .ok_or(LoadError::UncheckableResources)?;
    let over = |count: u32, what: &'static str, limit: u32| {
        (count > limit).then_some(LoadError::TooManyResources { count, what, limit })
    };
    if let Some(err) = over(needs.num_memories, "linear memories", limits::MAX_MEMORIES)
        .or_else(|| over(needs.num_tables, "tables", limits::MAX_TABLES))
    {
        return Err(err);
    }
    Ok((
        slot_weight(needs.num_memories, needs.num_tables),
        // Counted in 64 KiB Wasm pages.
        needs
            .max_initial_memory_size
            .map(|pages| pages.saturating_mul(64 << 10)),
    ))
}

/// Imports a hook may have: WASI p2 without HTTP, and the hookhost host API of a
/// supported version. Anything else is refused before the component ever runs.
///
/// `wasi:sockets` links (CPython and other language runtimes import it whether or not
/// the hook uses the network) but grants nothing: every context denies TCP, UDP and
/// name lookups ([`limits::wasi_base`]), so creating or connecting a socket fails with
/// `access-denied`.
const ALLOWED_IMPORTS: &[&str] = &[
    "wasi:cli/",
    "wasi:io/",
    "wasi:clocks/",
    "wasi:filesystem/",
    "wasi:random/",
    "wasi:sockets/",
];

/// Checks every import and returns the WIT version the component targets (all its
/// `hookhost:hooks` imports must name the same supported version).
fn check_imports(engine: &Engine, component: &Component) -> Result<WitTarget, LoadError> {
    let mut target = None;
    for (name, _) in component.component_type().imports(engine) {
        if let Some(rest) = name.strip_prefix("hookhost:hooks/") {
            let version = rest.split_once('@').map(|(_, v)| v).unwrap_or("");
            let Some(this) = WitTarget::parse(version) else {
                return Err(LoadError::WitVersion {
                    found: version.to_string(),
                    supported: WIT_VERSIONS.join(", @"),
                    import: name.to_string(),
                });
            };
            if target.is_some_and(|seen| seen != this) {
                return Err(LoadError::WitVersionMix(name.to_string()));
            }
            target = Some(this);
            continue;
        }
        if !ALLOWED_IMPORTS
            .iter()
            .any(|prefix| name.starts_with(prefix))
        {
            return Err(LoadError::Import(name.to_string()));
        }
    }
    // A component that imports nothing of hookhost's (its export uses no named type)
    // can only be checked against the newest world.
    Ok(target.unwrap_or(WitTarget::NEWEST))
}

/// Refuses bytes whose digest is not the hook's `sha256` pin.
fn check_pin(pin: Option<&str>, digest: &str) -> Result<(), LoadError> {
    match pin {
        Some(expected) if expected != digest => Err(LoadError::DigestMismatch {
            expected: expected.to_string(),
            actual: digest.to_string(),
        }),
        _ => Ok(()),
    }
}

/// The component file at `path`, opened and checked, and the digest remembered for
/// it while it is unchanged ([`cache::memo`]; `None` when none is), checked against
/// the pin.
fn open_remembered(
    rt: &WasmRuntime,
    path: &Path,
    pin: Option<&str>,
) -> Result<(std::fs::File, std::fs::Metadata, Option<String>), LoadError> {
    let (file, meta) = open_component(path, rt.max_component_bytes)?;
    let remembered = cache::memo::Stamp::of(&meta).and_then(|s| rt.cache.recall_digest(&s));
    if let Some(digest) = &remembered {
        check_pin(pin, digest)?;
    }
    Ok((file, meta, remembered))
}

/// The component of a file and its digest. A file unchanged since its digest was
/// remembered ([`cache::memo`]) is read only if its artifact is not stored; otherwise
/// it is read whole and hashed (and its digest remembered).
fn load_file(
    rt: &WasmRuntime,
    path: &Path,
    pin: Option<&str>,
) -> Result<(Component, String), LoadError> {
    let (file, meta, remembered) = open_remembered(rt, path, pin)?;
    if let Some(digest) = remembered {
        let component = rt.cache.load(&digest, || {
            let bytes = read_component(path, &file, &meta, rt.max_component_bytes)?;
            // Only a write in the very tick the digest was taken could get here.
            if cache::digest(&bytes) != digest {
                return Err(LoadError::ChangedWhileLoading(path.to_path_buf()));
            }
            Ok(bytes.into())
        })?;
        return Ok((component, digest));
    }
    let bytes = read_component(path, &file, &meta, rt.max_component_bytes)?;
    let digest = cache::digest(&bytes);
    check_pin(pin, &digest)?;
    // Remembered only when the file did not change while it was read.
    let after = file.metadata().ok();
    if let Some(stamp) = cache::memo::Stamp::of(&meta)
        && after.as_ref().and_then(cache::memo::Stamp::of) == Some(stamp)
    {
        rt.cache.remember_digest(&stamp, &digest);
    }
    let component = rt.cache.load(&digest, || Ok(bytes.as_slice().into()))?;
    Ok((component, digest))
}

/// The trusted signer of the component file at `path` whose digest was found to be
/// `digest`, under the owners' signing policy (nothing is read when no policy
/// applies). The bytes checked are hashed again: a file swapped after its digest was
/// taken is refused, not vouched for.
fn signer(rt: &WasmRuntime, path: &Path, digest: &str) -> Result<Option<String>, LoadError> {
    if !rt.signing.active() {
        return Ok(None);
    }
    let (file, meta) = open_component(path, rt.max_component_bytes)?;
    let bytes = read_component(path, &file, &meta, rt.max_component_bytes)?;
    if cache::digest(&bytes) != digest {
        return Err(LoadError::ChangedWhileLoading(path.to_path_buf()));
    }
    Ok(rt.signing.check(path, &bytes)?)
}

/// [`prepare`] for a component file already compiled — its digest
/// remembered and its artifact stored — so that it takes no compile and no network
/// (what a hook's timeout could not interrupt on the calling thread); `None` for any
/// other source, or when it would compile.
pub(super) fn prepare_stored(
    rt: &WasmRuntime,
    source: &Source,
    pin: Option<&str>,
) -> Option<Result<Ready, LoadError>> {
    let Source::File(path) = source else {
        return None;
    };
    let digest = match open_remembered(rt, path, pin) {
        Ok((_, _, remembered)) => remembered?,
        Err(err) => return Some(Err(err)),
    };
    let component = rt.cache.load_if_stored(&digest)?;
    Some(
        signer(rt, path, &digest)
            .and_then(|signer| ready(rt, component, digest, signer, None, None)),
    )
}

/// Reads, compiles (or loads from cache), checks and pre-instantiates a component.
/// Blocking.
pub(super) fn prepare(
    rt: &WasmRuntime,
    source: &Source,
    pin: Option<&str>,
) -> Result<Ready, LoadError> {
    let mut tag = None;
    let (component, digest, signer, origin) = match source {
        Source::File(path) => {
            let (component, digest) = load_file(rt, path, pin)?;
            let signer = signer(rt, path, &digest)?;
            (component, digest, signer, None)
        }
        Source::Bytes(bytes) => {
            let digest = cache::digest(bytes);
            check_pin(pin, &digest)?;
            if rt.signing.require {
                return Err(LoadError::Signature(
                    crate::signing::SignatureError::Missing {
                        component: "a component given as bytes".into(),
                        signature: "a signature".into(),
                    },
                ));
            }
            (
                rt.cache.load(&digest, || Ok(bytes[..].into()))?,
                digest,
                None,
                None,
            )
        }
        Source::Builtin(builtin) => {
            // Found by its component reference: a component row.
            let (bytes, _, _) = builtin.component().unwrap_or_default();
            let digest = cache::digest(bytes);
            check_pin(pin, &digest)?;
            // Part of the binary the owner installed: a signing policy accepts it as it
            // accepts the binary.
            (
                rt.cache.load(&digest, || Ok(bytes.into()))?,
                digest,
                None,
                Some(builtin.reference()),
            )
        }
        Source::Oci(reference) => {
            let dir = rt.oci_dir.as_deref().ok_or_else(|| {
                LoadError::Oci(crate::oci::OciError::Store {
                    path: PathBuf::new(),
                    message: "no store folder (no usable cache folder for this user)".into(),
                })
            })?;
            let store = crate::oci::Store::open(dir)?;
            let pulled = store.pull(reference, rt.max_component_bytes, &rt.signing)?;
            let hex = pulled
                .resolved
                .component
                .strip_prefix("sha256:")
                .unwrap_or(&pulled.resolved.component)
                .to_string();
            check_pin(pin, &hex)?;
            let (component, digest) = load_file(rt, &pulled.path, Some(&hex))?;
            let signer = signer(rt, &pulled.path, &digest)?;
            if reference.digest().is_none() {
                tag = Some((
                    reference.as_str().to_string(),
                    pulled.resolved.manifest.clone(),
                ));
            }
            let mut origin = format!("{} -> {}", reference.as_str(), pulled.resolved.manifest);
            if let Some(note) = &pulled.offline {
                tracing::warn!("{}: {note}", reference.as_str());
                origin.push_str(" (offline: the last resolution)");
            }
            (component, digest, signer, Some(origin))
        }
    };
    ready(rt, component, digest, signer, origin, tag)
}

/// Checks a loaded component against hookhost's worlds and resources and
/// pre-instantiates it.
fn ready(
    rt: &WasmRuntime,
    component: Component,
    digest: String,
    signer: Option<String>,
    origin: Option<String>,
    tag: Option<(String, String)>,
) -> Result<Ready, LoadError> {
    let version = check_imports(&rt.engine, &component)?;
    let (weight, initial_memory) = check_resources(&component)?;
    // The copy pool is only faster: a component it cannot take runs in the other.
    let copied = rt
        .copy_pool_for(initial_memory)
        .and_then(
            |(engine, linker)| match rt.cache.load_into(engine, &digest, &component) {
                Ok(copy) => Some((copy, linker)),
                Err(err) => {
                    tracing::warn!("component {digest} stays out of the copy pool: {err}");
                    None
                }
            },
        );
    let (component, linker, copy_pool) = match copied {
        Some((copy, linker)) => (copy, linker, true),
        None => (component, &rt.linker, false),
    };
    let pre = linker
        .instantiate_pre(&component)
        .map_err(|err| LoadError::Link(format!("{err:#}")))?;
    let pre = Pre::new(version, pre).map_err(|err| LoadError::World(format!("{err:#}")))?;
    Ok(Ready {
        pre,
        engine: component.engine().clone(),
        copy_pool,
        weight: weight.min(rt.slot_count),
        digest,
        signer,
        origin,
        tag,
    })
}

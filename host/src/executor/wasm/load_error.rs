//! [`LoadError`]: every way a Wasm hook can fail to load, typed. Loading happens once per
//! hook and its result is shared by every call, so the error is `Clone` (an I/O cause is
//! kept behind an `Arc`; wasmtime's errors, which are not `std` errors, as their text).

use std::path::PathBuf;
use std::sync::Arc;

/// Why a Wasm hook cannot be loaded.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The component file cannot be read.
    #[error("cannot read component {}: {source}", path.display())]
    Read {
        /// The configured path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// The component path is a FIFO, a device, a directory, …
    #[error("component {} is not a regular file", path.display())]
    NotRegularFile {
        /// The configured path.
        path: PathBuf,
    },
    /// The component is over the size cap.
    #[error("component {what} is {size} bytes, over the component size limit of {limit} bytes")]
    TooLarge {
        /// The path, or a description of bytes given directly.
        what: String,
        /// Its size.
        size: u64,
        /// The cap.
        limit: u64,
    },
    /// The component's bytes are not the pinned ones.
    #[error("component digest sha256:{actual} does not match the pinned sha256:{expected}")]
    DigestMismatch {
        /// The configured `sha256`.
        expected: String,
        /// The digest of the bytes found.
        actual: String,
    },
    /// The component file changed while it was being loaded.
    #[error("component {} changed while it was loaded; load it again", .0.display())]
    ChangedWhileLoading(PathBuf),
    /// Not a component wasmtime accepts.
    #[error("not a valid component: {0}")]
    Invalid(String),
    /// Compiling took longer than allowed.
    #[error("compile time limit of {0}s exceeded")]
    CompileTime(f64),
    /// The compile worker ran out of memory or failed.
    #[error("compile memory limit of {mib} MiB exceeded or the compiler failed ({detail})")]
    CompileWorker {
        /// The worker's address-space limit, MiB.
        mib: u64,
        /// Exit status and first line of its error output.
        detail: String,
    },
    /// The compile machinery itself failed (no thread, no worker process).
    #[error("{0}")]
    CompileSetup(String),
    /// The compiled artifact could not be loaded.
    #[error("cannot load the compiled component: {0}")]
    Deserialize(String),
    /// The component imports something hooks are not granted.
    #[error("component imports `{0}`, which hookhost does not grant to hooks")]
    Import(String),
    /// The component targets another version of the hookhost WIT package.
    #[error(
        "component targets hookhost:hooks@{found}, this host supports @{supported} (import `{import}`)"
    )]
    WitVersion {
        /// The version the component imports.
        found: String,
        /// The version this host implements.
        supported: String,
        /// The import naming it.
        import: String,
    },
    /// The component imports several versions of the hookhost WIT package at once.
    #[error("component mixes versions of hookhost:hooks (import `{0}`)")]
    WitVersionMix(String),
    /// The component declares more memories or tables than a call may have.
    #[error("component declares {count} {what}, more than the limit of {limit}")]
    TooManyResources {
        /// How many it declares.
        count: u32,
        /// `linear memories` or `tables`.
        what: &'static str,
        /// The cap.
        limit: u32,
    },
    /// The component's resource needs cannot be computed.
    #[error("component imports core modules or instances; its memory needs cannot be checked")]
    UncheckableResources,
    /// Linking against the host's imports failed.
    #[error("cannot link component: {0}")]
    Link(String),
    /// The component does not export the hook world.
    #[error("component does not export the hookhost `hook` world: {0}")]
    World(String),
    /// A directory grant was refused (see `grants`).
    #[error("{0}")]
    Grant(String),
    /// `builtin:NAME` names no guard that comes with hookhost.
    #[error("`{name}` is no builtin guard (the builtins: {known})")]
    UnknownBuiltin {
        /// The reference as configured.
        name: String,
        /// The builtins there are.
        known: String,
    },
    /// The component could not be fetched from its registry (and nothing usable is
    /// stored).
    #[error("{0}")]
    Oci(#[from] crate::oci::OciError),
    /// The component's signature does not count (see `trustedSigners`).
    #[error("{0}")]
    Signature(#[from] crate::signing::SignatureError),
    /// Preparation was interrupted (the task running it failed).
    #[error("component preparation failed: {0}")]
    Interrupted(String),
}

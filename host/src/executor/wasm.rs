//! The `wasm` executor: hooks as WebAssembly components in a sandbox.
//!
//! One [`WasmRuntime`] per hookhost engine owns the wasmtime `Engine` (pooling
//! allocator, fuel, epoch interruption), the component cache ([`cache`]) and an epoch
//! ticker thread. Each hook is compiled once and pre-instantiated (`HookPre`); every call
//! gets a fresh `Store` with its own limits ([`limits`]) and WASI context, so nothing
//! leaks between calls; hot hooks get that instance prepared ahead and their finished
//! stores dropped behind, off the call's path ([`prepared`]). Pool slots stay resident and are reset in place (PAGEMAP_SCAN),
//! which makes a fresh instance per call cost microseconds.

pub mod cache;
pub mod grants;
mod hook;
mod host;
pub mod limits;
mod listing;
mod load;
pub mod load_error;
pub mod prepared;
mod runtime;
mod ticker;
mod wit;

use std::path::PathBuf;
use std::time::Duration;

pub(crate) use self::hook::{executor, executor_from_bytes};
pub use self::load_error::LoadError;
pub use self::prepared::{PrepareOptions, PreparedStats};
pub use self::runtime::{DEFAULT_COPY_RESET_FROM, WasmRuntime, compile_worker_main};
pub use self::wit::{WIT_VERSION, WIT_VERSIONS, input_record_size};

/// Bytes a call may fetch through the `input` interface, as a multiple of the raw
/// input's size (plus [`limits::INPUT_FETCH_SLACK`]): enough to read everything a few
/// times, not a way to make the host copy without end.
pub const INPUT_FETCH_FACTOR: usize = 4;

/// Default number of instance slots in the pool; further calls wait for a slot.
pub const DEFAULT_MAX_INSTANCES: u32 = 256;
pub use crate::oci::DEFAULT_MAX_COMPONENT_BYTES;
/// Longest a component may take to compile, unless [`WasmOptions`] says otherwise.
pub const DEFAULT_COMPILE_TIMEOUT: Duration = Duration::from_secs(60);

/// Address space a compile worker may use, unless [`WasmOptions`] says otherwise.
pub const DEFAULT_COMPILE_MEMORY_BYTES: u64 = 4 << 30;

/// Wasm runtime settings.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct WasmOptions {
    /// Directory for precompiled artifacts (`None`: memory cache only).
    pub cache_dir: Option<PathBuf>,
    /// Most bytes of artifacts the cache folder keeps; past it the least recently used
    /// are removed (default 2 GiB; owners' settings key `wasmCacheMaxMb`).
    pub cache_max_bytes: u64,
    /// hookhost's configuration folder: holds the artifact MAC key (`None`: memory
    /// cache only). Like the cache folder, no grant may reach it.
    pub config_dir: Option<PathBuf>,
    /// Instance slots in the pool (the most calls alive at once); more calls wait.
    pub max_instances: u32,
    /// Largest component file accepted, bytes.
    pub max_component_bytes: u64,
    /// Longest one component may take to compile.
    pub compile_timeout: Duration,
    /// A program that compiles components in a child process when run as
    /// `PROGRAM __compile-worker` (the `hookhost` binary does): the child runs under an
    /// address-space limit of [`WasmOptions::compile_memory_bytes`] and is killed at the
    /// compile timeout, so a compile bomb costs neither unbounded memory nor a thread
    /// that keeps running. `None`: compile in-process on a thread (time bound only).
    pub compile_worker: Option<PathBuf>,
    /// Address space a compile worker may use.
    pub compile_memory_bytes: u64,
    /// Instances prepared ahead of calls, and stores dropped behind them.
    pub prepare: PrepareOptions,
    /// Where components pulled from OCI registries are kept (`None`: `oci://`
    /// components cannot load).
    pub oci_dir: Option<PathBuf>,
    /// Who may sign components, and whether a signature is required (the owners'
    /// `trustedSigners` and `requireSignedWasm`; the engine fills it in).
    pub signing: std::sync::Arc<crate::signing::SigningPolicy>,
    /// Load components already compiled (artifact on disk, component file unchanged) on
    /// the calling thread instead of a blocking-pool thread: for a one-shot engine on a
    /// current-thread runtime, which has nothing else to run meanwhile, it saves starting
    /// a thread. A compile, or a pull from a registry, still runs off the caller, where
    /// the hook's timeout bounds it.
    pub load_on_caller: bool,
    /// Components whose initial linear memory is at least this many bytes run, where
    /// instances are prepared ahead, in a second pool that copies each used memory back
    /// whole behind the call instead of resetting only the pages it wrote: the pages
    /// then stay private, and a call to a JavaScript or Python component no longer
    /// copy-on-write-faults hundreds of them in again (`None`: never).
    pub copy_reset_from: Option<u64>,
    /// Recent shell views, shared with the engine's self-protection so a command is
    /// parsed once for both.
    pub(crate) views: std::sync::Arc<crate::shell::ViewMemo>,
}

impl Default for WasmOptions {
    fn default() -> Self {
        Self {
            cache_dir: cache::default_dir(),
            cache_max_bytes: cache::DEFAULT_MAX_BYTES,
            config_dir: cache::default_config_dir(),
            max_instances: DEFAULT_MAX_INSTANCES,
            max_component_bytes: DEFAULT_MAX_COMPONENT_BYTES,
            compile_timeout: DEFAULT_COMPILE_TIMEOUT,
            compile_worker: None,
            compile_memory_bytes: DEFAULT_COMPILE_MEMORY_BYTES,
            prepare: PrepareOptions::default(),
            oci_dir: crate::oci::Store::default_dir(),
            signing: Default::default(),
            load_on_caller: false,
            copy_reset_from: Some(DEFAULT_COPY_RESET_FROM),
            views: Default::default(),
        }
    }
}

/// Errors creating the runtime.
#[derive(Debug, thiserror::Error)]
#[error("cannot configure wasmtime: {0}")]
pub struct WasmError(pub(super) String);

//! The sandbox policy in one place: default limits, the per-call resource limiter, and
//! the WASI context built from a hook's grants (and nothing else).

use std::time::Duration;

use wasmtime::ResourceLimiter;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder};

use crate::config::WasmHandler;

/// Fuel per call when the hook sets none (about a second of guest compute).
pub const DEFAULT_FUEL: u64 = 1_000_000_000;
/// Memory per call when the hook sets none.
pub const DEFAULT_MEMORY_MB: u64 = 64;
/// Largest `memoryMb` any hook may ask for (the pooling allocator's hard ceiling).
pub const MAX_MEMORY_MB: u64 = 512;
/// Wall time per call when the hook sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// Answer size cap when the hook sets none.
pub const DEFAULT_OUTPUT_BYTES: usize = 256 * 1024;
/// Captured guest stdout + stderr; writing more traps the guest.
pub const STDIO_CAPTURE_BYTES: usize = 64 * 1024;
/// Table elements per instance.
pub const MAX_TABLE_ELEMENTS: usize = 100_000;
/// How often the epoch ticks.
pub const EPOCH_TICK: Duration = Duration::from_millis(5);
/// Bytes of one `log` message kept.
pub const LOG_MESSAGE_BYTES: usize = 4096;
/// `log` calls honoured per invocation.
pub const LOG_CALLS: usize = 100;

/// Effective limits of one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookLimits {
    /// Fuel per call.
    pub fuel: u64,
    /// Memory per call, bytes.
    pub memory_bytes: usize,
    /// Answer size cap, bytes.
    pub output_bytes: usize,
}

impl HookLimits {
    /// The limits a settings entry asks for, defaults filled in and capped.
    pub fn for_handler(handler: &WasmHandler) -> Self {
        let memory_mb = handler
            .memory_mb
            .unwrap_or(DEFAULT_MEMORY_MB)
            .clamp(1, MAX_MEMORY_MB);
        Self {
            fuel: handler.fuel.unwrap_or(DEFAULT_FUEL),
            memory_bytes: (memory_mb as usize) << 20,
            output_bytes: handler.max_output_bytes.unwrap_or(DEFAULT_OUTPUT_BYTES),
        }
    }
}

/// Epoch ticks covering `timeout`, plus one so a call never starts on its last tick.
pub fn deadline_ticks(timeout: Duration) -> u64 {
    (timeout.as_micros() / EPOCH_TICK.as_micros()).max(1) as u64 + 1
}

/// The per-store limiter: refuses growth past the hook's memory budget (trapping the
/// guest at once) and remembers that it did, so the report can name the limit.
#[derive(Debug)]
pub struct Limiter {
    memory_bytes: usize,
    /// Set when the memory limit stopped the guest.
    pub memory_exceeded: bool,
}

impl Limiter {
    /// A limiter for `limits`.
    pub fn new(limits: &HookLimits) -> Self {
        Self {
            memory_bytes: limits.memory_bytes,
            memory_exceeded: false,
        }
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_bytes {
            self.memory_exceeded = true;
            return Err(wasmtime::Error::msg(format!(
                "memory limit of {} MiB exceeded",
                self.memory_bytes >> 20
            )));
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > MAX_TABLE_ELEMENTS {
            return Err(wasmtime::Error::msg(format!(
                "table limit of {MAX_TABLE_ELEMENTS} elements exceeded"
            )));
        }
        Ok(true)
    }
}

/// A directory grant, resolved and checked when the hook loads.
#[derive(Debug, Clone)]
pub struct Preopen {
    /// Host directory.
    pub host: std::path::PathBuf,
    /// Path the guest sees.
    pub guest: String,
    /// Read-write when true.
    pub write: bool,
}

/// Builds the WASI context of one call: the granted directories and environment
/// variables, captured (bounded) stdout/stderr, and nothing else — no network, no
/// inherited stdio, no arguments.
pub fn wasi_context(
    preopens: &[Preopen],
    env: &[(String, String)],
    stdio: &wasmtime_wasi::p2::pipe::MemoryOutputPipe,
) -> Result<WasiCtx, String> {
    let mut builder = WasiCtxBuilder::new();
    builder
        .stdout(stdio.clone())
        .stderr(stdio.clone())
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false);
    for (name, value) in env {
        builder.env(name, value);
    }
    for dir in preopens {
        let perms = if dir.write {
            FsPerms::ReadWrite
        } else {
            FsPerms::ReadOnly
        };
        builder
            .preopened_dir(&dir.host, &dir.guest, perms)
            .map_err(|err| {
                format!(
                    "cannot open granted directory {}: {err}",
                    dir.host.display()
                )
            })?;
    }
    Ok(builder.build())
}

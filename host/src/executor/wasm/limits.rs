//! The sandbox policy in one place: default limits, the per-call resource limiter, and
//! the WASI context built from a hook's grants (and nothing else).

use std::time::Duration;

use wasmtime::ResourceLimiter;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder};

use super::grants::Preopen;
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
/// Elements of any one table.
pub const MAX_TABLE_ELEMENTS: usize = 100_000;
/// What one table element costs against the memory budget (a pointer).
pub const TABLE_ELEMENT_BYTES: usize = std::mem::size_of::<usize>();
/// Linear memories one component may declare (counted over every core instance it
/// creates); more is refused at load.
pub const MAX_MEMORIES: u32 = 4;
/// Tables one component may declare; more is refused at load.
pub const MAX_TABLES: u32 = 16;
/// Core instances one call may create.
pub const MAX_CORE_INSTANCES: usize = 64;
/// Pool tables per instance slot: a component with more tables takes more slots.
pub const TABLES_PER_SLOT: u32 = 4;
/// WASI resources (descriptors, streams, directory listings, pollables) one call may
/// hold at once; each is host memory and possibly a file descriptor.
pub const MAX_RESOURCES: usize = 128;
/// Directory entries one call may list in total (each listing is read eagerly into host
/// memory), and their name bytes.
pub const MAX_LISTED_ENTRIES: usize = 100_000;
/// Name bytes of the listed entries, in total per call.
pub const MAX_LISTED_BYTES: usize = 8 << 20;
/// File descriptors kept free for everything that is not a Wasm call (command hooks,
/// sockets, the component files themselves).
pub const FD_RESERVE: u64 = 256;
/// Largest hook input (all the text the WIT record carries, in bytes) a Wasm hook is
/// given; a larger input is a failure of that hook (a block when it is `failClosed`).
pub const MAX_INPUT_BYTES: usize = 64 << 20;
/// The input's share of the memory budget: the record's text is copied into the guest
/// and usually read once more; that much memory is added to the hook's own budget, so a
/// padded input cannot push a policy over its limit.
pub const INPUT_ALLOWANCE_FACTOR: usize = 2;
/// Bytes any call may fetch through `hookhost:hooks/input` besides its multiple of the
/// input's size (a guest reading a few small fields of a tiny input is never refused).
pub const INPUT_FETCH_SLACK: usize = 64 << 10;
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
    /// Memory per call, bytes: every linear memory and table of the call together.
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

/// The most memory a single linear memory can ever be granted: the largest budget plus
/// the largest input allowance (the pooling allocator's per-memory ceiling).
pub const fn max_linear_memory_bytes() -> usize {
    ((MAX_MEMORY_MB as usize) << 20) + INPUT_ALLOWANCE_FACTOR * MAX_INPUT_BYTES
}

/// Epoch ticks covering `timeout`, plus one so a call never starts on its last tick.
pub fn deadline_ticks(timeout: Duration) -> u64 {
    let ticks = timeout.as_micros() / EPOCH_TICK.as_micros();
    u64::try_from(ticks).unwrap_or(u64::MAX / 2).max(1) + 1
}

/// The per-store limiter. One budget covers the *sum* of every linear memory and table
/// the call creates or grows (a component declaring eight memories gets the same budget
/// as one declaring one); counts of memories, tables and core instances are capped too.
/// Growth past the budget traps the guest at once and is remembered, so the report can
/// name the limit.
#[derive(Debug)]
pub struct Limiter {
    budget: usize,
    used: usize,
    /// Bytes granted by the last approved growth, returned if the growth then failed.
    last_memory_grant: usize,
    last_table_grant: usize,
    /// Set when the memory budget stopped the guest.
    pub memory_exceeded: bool,
    /// Set when a table grew past [`MAX_TABLE_ELEMENTS`].
    pub table_exceeded: bool,
}

impl Limiter {
    /// A limiter with `budget` bytes for memories and tables together.
    pub fn new(budget: usize) -> Self {
        Self {
            budget,
            used: 0,
            last_memory_grant: 0,
            last_table_grant: 0,
            memory_exceeded: false,
            table_exceeded: false,
        }
    }

    /// Bytes of memories and tables in use by the call.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Sets the budget (a call adds its input's allowance to the budget its instance
    /// was prepared under); what is in use already counts against it.
    pub fn set_budget(&mut self, budget: usize) {
        self.budget = budget;
    }

    fn grant(&mut self, delta: usize) -> wasmtime::Result<usize> {
        match self.used.checked_add(delta) {
            Some(total) if total <= self.budget => {
                self.used = total;
                Ok(delta)
            }
            _ => {
                self.memory_exceeded = true;
                Err(wasmtime::Error::msg(format!(
                    "memory limit of {} MiB exceeded",
                    self.budget >> 20
                )))
            }
        }
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.last_memory_grant = self.grant(desired.saturating_sub(current))?;
        Ok(true)
    }

    fn memory_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        self.used = self.used.saturating_sub(self.last_memory_grant);
        self.last_memory_grant = 0;
        Ok(())
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > MAX_TABLE_ELEMENTS {
            self.table_exceeded = true;
            return Err(wasmtime::Error::msg(format!(
                "table limit of {MAX_TABLE_ELEMENTS} elements exceeded"
            )));
        }
        let delta = desired
            .saturating_sub(current)
            .saturating_mul(TABLE_ELEMENT_BYTES);
        self.last_table_grant = self.grant(delta)?;
        Ok(true)
    }

    fn table_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        self.used = self.used.saturating_sub(self.last_table_grant);
        self.last_table_grant = 0;
        Ok(())
    }

    fn instances(&self) -> usize {
        MAX_CORE_INSTANCES
    }

    fn tables(&self) -> usize {
        MAX_TABLES as usize
    }

    fn memories(&self) -> usize {
        MAX_MEMORIES as usize
    }
}

/// Builds the WASI context of one call: the granted directories and environment
/// variables, captured (bounded) stdout/stderr, and nothing else — no network, no
/// inherited stdio, no arguments.
/// The WASI context every hook gets: captured stdio, the listed environment variables,
/// no network, no files.
pub fn wasi_base(
    env: &[(String, String)],
    stdio: &wasmtime_wasi::p2::pipe::MemoryOutputPipe,
) -> WasiCtxBuilder {
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
    builder
}

/// [`wasi_base`] plus the hook's granted directories, each checked to be the directory
/// resolved at load ([`super::grants::verify_opened`]).
pub fn wasi_context(
    preopens: &[Preopen],
    env: &[(String, String)],
    stdio: &wasmtime_wasi::p2::pipe::MemoryOutputPipe,
) -> Result<WasiCtx, String> {
    let mut builder = wasi_base(env, stdio);
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
    let mut ctx = builder.build();
    super::grants::verify_opened(preopens, &mut ctx)?;
    Ok(ctx)
}

/// What one call has listed so far.
#[derive(Debug, Default)]
pub struct ListingBudget {
    entries: usize,
    bytes: usize,
    /// Set when a listing was refused, so a failure can name the limit.
    pub exceeded: bool,
}

impl ListingBudget {
    /// Charges a listing of `entries` entries and `bytes` name bytes; false when it
    /// does not fit (nothing is charged then).
    pub(super) fn charge(&mut self, entries: usize, bytes: usize) -> bool {
        let entries = self.entries.saturating_add(entries);
        let bytes = self.bytes.saturating_add(bytes);
        if entries > MAX_LISTED_ENTRIES || bytes > MAX_LISTED_BYTES {
            self.exceeded = true;
            return false;
        }
        self.entries = entries;
        self.bytes = bytes;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_shared_by_every_memory_and_table() {
        let mut limiter = Limiter::new(10 << 20);
        // Three memories of 3 MiB each fit; a fourth does not.
        for _ in 0..3 {
            assert!(limiter.memory_growing(0, 3 << 20, None).unwrap());
        }
        assert!(limiter.memory_growing(0, 3 << 20, None).is_err());
        assert!(limiter.memory_exceeded);
        assert_eq!(limiter.used(), 9 << 20);
        // Tables count too, at a pointer per element.
        let mut limiter = Limiter::new(1 << 20);
        assert!(limiter.table_growing(0, 1000, None).unwrap());
        assert!(limiter.memory_growing(0, 1 << 20, None).is_err());
    }

    #[test]
    fn a_failed_growth_gives_its_grant_back() {
        let mut limiter = Limiter::new(4 << 20);
        assert!(limiter.memory_growing(1 << 20, 3 << 20, None).unwrap());
        limiter
            .memory_grow_failed(wasmtime::Error::msg("no"))
            .unwrap();
        assert_eq!(limiter.used(), 0);
        assert!(limiter.memory_growing(0, 4 << 20, None).unwrap());
    }

    #[test]
    fn deadline_ticks_never_overflow() {
        assert_eq!(deadline_ticks(Duration::from_millis(1)), 2);
        assert!(deadline_ticks(Duration::MAX) > 1 << 40);
    }
}

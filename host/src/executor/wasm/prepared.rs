//! Instances prepared ahead and stores dropped behind.
//!
//! Instantiating a component and dropping its store are most of a fresh-instance call;
//! neither needs the call's input. One background thread per runtime (the *preparer*,
//! started on first use) keeps a few instances of every hot hook instantiated before a
//! call needs one, and takes finished stores off the caller to drop them. Isolation is
//! unchanged: a prepared instance is one store that no call has entered; a call takes
//! it whole (its own fuel, deadline, memory budget, input and — for a hook with grants —
//! a WASI context opened for that call) and it is never entered again.
//!
//! Waking a sleeping thread is a system call (and, on a VM, an interrupt to another
//! core): a call does not pay for it unless its hook's shelf is empty or finished
//! stores pile up. Otherwise its work waits in the queue, and the runtime's epoch
//! ticker, which wakes every [`EPOCH_TICK`](super::limits::EPOCH_TICK) anyway, wakes
//! the preparer for it ([`Preparer::bell`]); a hook called at an agent's pace gets its
//! shelf refilled between calls, and its calls never wake anyone. Between calls that
//! come back to back the preparer does not sleep at all: it lingers awake for
//! [`LINGER`] after its last work, looking for more, so even the call that empties a
//! shelf hands it work without a wake-up.
//!
//! The preparer gives way to calls: it runs only on a core that would otherwise idle
//! (`SCHED_IDLE` on Linux), and what it has not taken yet is bounded — once
//! [`Preparer::finish`] finds it behind, a call drops its own store, and calls that find
//! no instance ready instantiate their own. Under a load that keeps every core busy,
//! calls then cost what they cost without a preparer, instead of paying for handing work
//! to a thread that competes with them for the same cores.
//!
//! Bounds: at most [`PrepareOptions::per_hook`] instances per hook, pool slots and bytes
//! of linear memory and tables held by all prepared instances together capped
//! ([`PrepareOptions::max_slots`], [`PrepareOptions::max_bytes`]) and counted
//! ([`PreparedStats`]); a hook not called for [`PrepareOptions::idle`] lets its
//! instances go; a hook that is dropped (its configuration reloaded, its component
//! changed or removed) drops them with it.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use tokio::sync::OwnedSemaphorePermit;
use wasmtime::Store;

use super::host::HostState;
use super::wit::Instance;

/// Instances kept ready per hot hook, unless [`PrepareOptions`] says otherwise.
pub const DEFAULT_PER_HOOK: usize = 4;
/// Bytes of linear memory and tables all prepared instances may hold, by default.
pub const DEFAULT_MAX_BYTES: usize = 256 << 20;
/// How long a hook's prepared instances outlive its last call, by default.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(60);
/// Most pool slots prepared instances may hold by default: a quarter of the pool, so
/// calls always find most slots free.
pub const DEFAULT_SLOT_SHARE: u32 = 4;

/// Settings of the prepared instances.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PrepareOptions {
    /// Instances kept ready per hook once it has been called (0: none; every call
    /// instantiates and drops its store on its own path, as a one-shot `fire` does).
    pub per_hook: usize,
    /// Pool slots all prepared instances may hold together (`None`: a quarter of the
    /// runtime's slots).
    pub max_slots: Option<u32>,
    /// Bytes of linear memory and tables all prepared instances may hold together.
    pub max_bytes: usize,
    /// A hook not called for this long lets its prepared instances go.
    pub idle: Duration,
}

impl Default for PrepareOptions {
    fn default() -> Self {
        Self {
            per_hook: DEFAULT_PER_HOOK,
            max_slots: None,
            max_bytes: DEFAULT_MAX_BYTES,
            idle: DEFAULT_IDLE,
        }
    }
}

impl PrepareOptions {
    /// No prepared instances and no background thread.
    pub fn none() -> Self {
        Self {
            per_hook: 0,
            ..Self::default()
        }
    }
}

/// What prepared instances hold now, and how calls found them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PreparedStats {
    /// Instances ready now.
    pub ready: usize,
    /// Pool slots they hold.
    pub slots: usize,
    /// Bytes of linear memory and tables they hold.
    pub bytes: usize,
    /// Calls that took a prepared instance.
    pub hits: u64,
    /// Calls that instantiated on their own path (none ready).
    pub misses: u64,
    /// Instances prepared in all.
    pub prepared: u64,
    /// Instances let go unused (idle hooks, dropped hooks).
    pub released: u64,
}

#[derive(Default)]
struct Counts {
    ready: AtomicUsize,
    slots: AtomicUsize,
    bytes: AtomicUsize,
    hits: AtomicU64,
    misses: AtomicU64,
    prepared: AtomicU64,
    released: AtomicU64,
}

/// The parts of a prepared instance a call takes.
pub(super) struct Parts {
    pub(super) store: Store<HostState>,
    pub(super) instance: Instance,
    pub(super) slot: OwnedSemaphorePermit,
    /// Fuel its instantiation used (charged to the call, as on the inline path).
    pub(super) fuel_spent: u64,
}

/// One prepared instance, counted while it waits.
pub(super) struct Prepared {
    parts: Option<Parts>,
    slots: usize,
    bytes: usize,
    counts: Arc<Counts>,
}

impl Prepared {
    /// Hands the instance to a call.
    fn into_parts(mut self) -> Parts {
        self.parts
            .take()
            .expect("a prepared instance is taken once")
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        self.counts.ready.fetch_sub(1, Ordering::Relaxed);
        self.counts.slots.fetch_sub(self.slots, Ordering::Relaxed);
        self.counts.bytes.fetch_sub(self.bytes, Ordering::Relaxed);
        if self.parts.is_some() {
            self.counts.released.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// One hook's prepared instances.
#[derive(Default)]
pub(super) struct Shelf {
    ready: Mutex<Vec<Prepared>>,
    /// A refill is on its way to the preparer.
    queued: AtomicBool,
    /// This hook is not prepared ahead (its instantiation failed, or touched WASI while
    /// the hook has grants, which are opened per call).
    disabled: AtomicBool,
    /// When the hook was last called, ms since the preparer's origin.
    last_call_ms: AtomicU64,
}

impl Shelf {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Prepared>> {
        self.ready.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the preparer needs of a hook; the hook implements it, so the preparer never
/// names the hook's type (the dependency runs one way: the hook uses the preparer).
pub(super) trait Preparable: Send + Sync {
    /// Its shelf of instances made ahead.
    fn shelf(&self) -> &Shelf;
    /// Its name, for logs.
    fn name(&self) -> &str;
    /// Pool slots one call of it takes, once its component is loaded.
    fn weight(&self) -> Option<u32>;
    /// The pool's slots, of which an instance made ahead holds its share.
    fn slots(&self) -> &Arc<tokio::sync::Semaphore>;
    /// A new instance in a store of its own holding `slot`, and the bytes it holds; or
    /// why this hook is not prepared ahead.
    fn prepare_instance(
        &self,
        rt: &tokio::runtime::Runtime,
        slot: OwnedSemaphorePermit,
    ) -> Result<(Parts, usize), String>;
}

/// A finished call's store and slot to drop, and a hook whose shelf wants refilling.
struct Job {
    retire: Option<(Store<HostState>, OwnedSemaphorePermit)>,
    refill: Option<Weak<dyn Preparable>>,
}

/// The runtime's side of the preparer: settings, counters and the channel to its thread.
pub(super) struct Preparer {
    options: PrepareOptions,
    max_slots: usize,
    counts: Arc<Counts>,
    origin: Instant,
    /// The preparer thread's queue, started on first use (shared with the ticker).
    bell: Arc<Bell>,
    retire_batch: usize,
}

/// The preparer's queue as the epoch ticker sees it: set once the thread runs.
#[derive(Default)]
pub(super) struct Bell {
    queue: OnceLock<Option<Arc<Queue>>>,
}

impl Bell {
    /// Wakes the preparer if calls left work for it without waking it (called by the
    /// epoch ticker on every tick).
    pub(super) fn ring(&self) {
        if let Some(Some(queue)) = self.queue.get() {
            let state = queue.lock();
            let waiting = !state.jobs.is_empty();
            queue.wake_if_asleep(state, waiting);
        }
    }
}

impl Preparer {
    /// A preparer for a runtime with `slot_count` call slots.
    pub(super) fn new(options: PrepareOptions, slot_count: u32) -> Self {
        let max_slots = options
            .max_slots
            .unwrap_or(slot_count / DEFAULT_SLOT_SHARE)
            .min(slot_count) as usize;
        Self {
            options,
            max_slots,
            counts: Arc::default(),
            origin: Instant::now(),
            bell: Arc::default(),
            retire_batch: retire_batch(slot_count),
        }
    }

    /// What the epoch ticker rings on every tick.
    pub(super) fn bell(&self) -> Arc<Bell> {
        self.bell.clone()
    }

    /// Whether instances are prepared ahead at all.
    pub(super) fn enabled(&self) -> bool {
        self.options.per_hook > 0 && self.max_slots > 0
    }

    /// Counters.
    pub(super) fn stats(&self) -> PreparedStats {
        let c = &self.counts;
        PreparedStats {
            ready: c.ready.load(Ordering::Relaxed),
            slots: c.slots.load(Ordering::Relaxed),
            bytes: c.bytes.load(Ordering::Relaxed),
            hits: c.hits.load(Ordering::Relaxed),
            misses: c.misses.load(Ordering::Relaxed),
            prepared: c.prepared.load(Ordering::Relaxed),
            released: c.released.load(Ordering::Relaxed),
        }
    }

    fn now_ms(&self) -> u64 {
        self.origin.elapsed().as_millis() as u64
    }

    /// A prepared instance of `hook`, if one is ready; the call is recorded either way.
    pub(super) fn take(&self, shelf: &Shelf) -> Option<Parts> {
        if !self.enabled() {
            return None;
        }
        shelf.last_call_ms.store(self.now_ms(), Ordering::Relaxed);
        let taken = shelf.lock().pop();
        match taken {
            Some(prepared) => {
                self.counts.hits.fetch_add(1, Ordering::Relaxed);
                Some(prepared.into_parts())
            }
            None => {
                self.counts.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// After a call: the store and its slot are dropped off the caller's path, and the
    /// hook's shelf refilled. Without a preparer both are dropped here.
    ///
    /// What the call itself put in the store (its input, shell view, WASI context and
    /// handles) is freed here, on the thread that allocated it: a free from another
    /// thread contends for this thread's allocator arena. The preparer is woken here
    /// only when the hook's shelf is empty, finished stores pile up, or the hook is
    /// `costly` (its instances are made and dropped with a copy of a large memory
    /// image: that work is started at once, so that it is done before the hook's next
    /// call instead of landing on it, and the wake is a few µs against a call of
    /// hundreds). Otherwise the epoch ticker wakes it within a tick (a wake-up is a
    /// system call on the call's path).
    pub(super) fn finish(
        &self,
        hook: &Weak<dyn Preparable>,
        shelf: &Shelf,
        mut store: Store<HostState>,
        slot: OwnedSemaphorePermit,
        costly: bool,
    ) {
        let Some(queue) = self.queue() else {
            drop(store);
            drop(slot);
            return;
        };
        let call_owned = store.data_mut().take_call_owned();
        let refill = (!shelf.disabled.load(Ordering::Relaxed)
            && !shelf.queued.swap(true, Ordering::AcqRel))
        .then(|| hook.clone());
        let urgent = costly || shelf.lock().is_empty();
        let job = Job {
            retire: Some((store, slot)),
            refill,
        };
        if let Err(job) = queue.push(job, urgent) {
            // The preparer is behind (every core busy): this call drops its own store,
            // and a later call asks for the refill again.
            if job.refill.is_some() {
                shelf.queued.store(false, Ordering::Release);
            }
            drop(job);
        }
        drop(call_owned);
    }

    /// The queue of the preparer thread, started on first use (`None`: disabled, or the
    /// thread could not start).
    fn queue(&self) -> Option<&Arc<Queue>> {
        if !self.enabled() {
            return None;
        }
        self.bell
            .queue
            .get_or_init(|| {
                let queue = Arc::new(Queue::new(self.retire_batch));
                let worker = Worker {
                    options: self.options.clone(),
                    max_slots: self.max_slots,
                    counts: self.counts.clone(),
                    origin: self.origin,
                    queue: queue.clone(),
                };
                match std::thread::Builder::new()
                    .name("hookhost-wasm-prepare".into())
                    .spawn(move || worker.run())
                {
                    Ok(_) => Some(queue),
                    Err(err) => {
                        tracing::warn!("cannot start the Wasm preparer thread: {err}");
                        None
                    }
                }
            })
            .as_ref()
    }
}

impl Drop for Preparer {
    fn drop(&mut self) {
        if let Some(Some(queue)) = self.bell.queue.get() {
            queue.close();
        }
    }
}

/// Finished stores queued before the preparer is woken anyway (each holds its pool slot
/// until dropped): at most 8, and at most an eighth of the slots.
fn retire_batch(slot_count: u32) -> usize {
    (slot_count as usize / 8).clamp(1, 8)
}

/// Jobs the preparer may have waiting, in retire batches: past them it is behind, and
/// calls do their own dropping.
const RETIRE_CAP_BATCHES: usize = 2;

/// How long the preparer, at idle priority, keeps looking for work before it sleeps.
/// Calls that come back to back then hand it work without waking it: a wake-up is a
/// system call on the call's path and, on a VM, an interrupt to another core (run L
/// measured it at ~9 % of a prepared call). It yields the core on every look, and at
/// idle priority it only ever has cores nothing else wants.
const LINGER: Duration = Duration::from_micros(250);

/// Work for the preparer thread.
struct Queue {
    state: Mutex<QueueState>,
    /// Jobs are waiting (read without the lock while the thread lingers).
    pending: AtomicBool,
    wake: Condvar,
    batch: usize,
    /// Most jobs waiting (see [`RETIRE_CAP_BATCHES`]).
    cap: usize,
}

#[derive(Default)]
struct QueueState {
    jobs: Vec<Job>,
    /// The thread waits on the condition variable.
    asleep: bool,
    closed: bool,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn new(batch: usize) -> Self {
        Self {
            state: Mutex::default(),
            pending: AtomicBool::new(false),
            wake: Condvar::new(),
            batch,
            cap: batch * RETIRE_CAP_BATCHES,
        }
    }

    /// Queues `job`; wakes the thread if it sleeps and `urgent` or work piled up (else
    /// the ticker's [`Bell::ring`] does). A job the thread is too far behind to take
    /// comes back.
    fn push(&self, job: Job, urgent: bool) -> Result<(), Job> {
        let mut state = self.lock();
        if state.jobs.len() >= self.cap {
            return Err(job);
        }
        state.jobs.push(job);
        self.pending.store(true, Ordering::Release);
        let wanted = urgent || state.jobs.len() >= self.batch;
        self.wake_if_asleep(state, wanted);
        Ok(())
    }

    /// Wakes the thread if `wanted` and it sleeps (notified after the lock is let go).
    fn wake_if_asleep(&self, mut state: std::sync::MutexGuard<'_, QueueState>, wanted: bool) {
        let wake = wanted && state.asleep;
        if wake {
            state.asleep = false;
        }
        drop(state);
        if wake {
            self.wake.notify_one();
        }
    }

    /// Takes the queued jobs, waiting at most `timeout` for some: the first `linger` of
    /// it awake, looking, the rest asleep; `None` once closed.
    fn take(&self, timeout: Duration, linger: Duration) -> Option<Vec<Job>> {
        let started = Instant::now();
        let linger = linger.min(timeout);
        while !self.pending.load(Ordering::Acquire) && started.elapsed() < linger {
            std::thread::yield_now();
        }
        let timeout = timeout.saturating_sub(started.elapsed());
        let mut state = self.lock();
        if state.jobs.is_empty() && !state.closed {
            state.asleep = true;
            state = self
                .wake
                .wait_timeout(state, timeout)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            state.asleep = false;
        }
        if state.closed && state.jobs.is_empty() {
            return None;
        }
        self.pending.store(false, Ordering::Release);
        Some(std::mem::take(&mut state.jobs))
    }

    fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_one();
    }
}

/// The preparer thread's state.
struct Worker {
    options: PrepareOptions,
    max_slots: usize,
    counts: Arc<Counts>,
    origin: Instant,
    queue: Arc<Queue>,
}

impl Worker {
    fn run(self) {
        // Calls come first: this thread takes only cores nothing else wants. Only then
        // does it linger awake between calls.
        let linger = if crate::platform::give_way_to_other_work() {
            LINGER
        } else {
            tracing::debug!("the Wasm preparer runs at normal priority");
            Duration::ZERO
        };
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
        else {
            tracing::warn!("cannot start the Wasm preparer's runtime");
            // Keep draining so finished stores are still dropped.
            while let Some(jobs) = self.queue.take(Duration::from_secs(1), Duration::ZERO) {
                drop(jobs);
            }
            return;
        };
        let sweep_every =
            (self.options.idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(5));
        let mut next_sweep = Instant::now() + sweep_every;
        let mut hooks: Vec<Weak<dyn Preparable>> = Vec::new();
        loop {
            let wait = next_sweep.saturating_duration_since(Instant::now());
            let Some(jobs) = self.queue.take(wait, linger) else {
                return;
            };
            // Finished stores first: their slots go back to the pool (each slot after
            // its store, the pool slot with it).
            let mut refills = Vec::new();
            for job in jobs {
                if let Some((store, slot)) = job.retire {
                    drop(store);
                    drop(slot);
                }
                refills.extend(job.refill);
            }
            for weak in refills {
                if let Some(hook) = weak.upgrade() {
                    if !hooks.iter().any(|known| known.ptr_eq(&weak)) {
                        hooks.push(weak);
                    }
                    self.refill(&rt, hook.as_ref());
                }
            }
            if Instant::now() >= next_sweep {
                hooks.retain(|weak| match weak.upgrade() {
                    Some(hook) => {
                        self.release_if_idle(hook.as_ref());
                        true
                    }
                    None => false,
                });
                next_sweep = Instant::now() + sweep_every;
            }
        }
    }

    /// Prepares instances of `hook` up to its share.
    fn refill(&self, rt: &tokio::runtime::Runtime, hook: &dyn Preparable) {
        let shelf = hook.shelf();
        shelf.queued.store(false, Ordering::Release);
        while !shelf.disabled.load(Ordering::Relaxed)
            && shelf.lock().len() < self.options.per_hook
            && self.counts.bytes.load(Ordering::Relaxed) < self.options.max_bytes
        {
            let Some(weight) = hook.weight() else { return };
            let weight = weight as usize;
            if self.counts.slots.fetch_add(weight, Ordering::AcqRel) + weight > self.max_slots {
                self.counts.slots.fetch_sub(weight, Ordering::AcqRel);
                return;
            }
            // Never wait for a slot: calls come first.
            let Ok(slot) = hook.slots().clone().try_acquire_many_owned(weight as u32) else {
                self.counts.slots.fetch_sub(weight, Ordering::AcqRel);
                return;
            };
            match hook.prepare_instance(rt, slot) {
                Ok((parts, bytes)) => {
                    // Counted under the shelf's lock: whoever sees the instance counted
                    // ready and then takes from the shelf finds it there (this thread
                    // runs at idle priority and can be stopped between any two steps).
                    let mut ready = shelf.lock();
                    self.counts.ready.fetch_add(1, Ordering::Relaxed);
                    self.counts.bytes.fetch_add(bytes, Ordering::Relaxed);
                    self.counts.prepared.fetch_add(1, Ordering::Relaxed);
                    ready.push(Prepared {
                        parts: Some(parts),
                        slots: weight,
                        bytes,
                        counts: self.counts.clone(),
                    });
                }
                Err(reason) => {
                    self.counts.slots.fetch_sub(weight, Ordering::AcqRel);
                    tracing::debug!(hook = %hook.name(), "not prepared ahead: {reason}");
                    shelf.disabled.store(true, Ordering::Relaxed);
                    return;
                }
            }
        }
    }

    /// Lets the prepared instances of a hook not called for the idle time go.
    fn release_if_idle(&self, hook: &dyn Preparable) {
        let now = self.origin.elapsed().as_millis() as u64;
        let last = hook.shelf().last_call_ms.load(Ordering::Relaxed);
        if now.saturating_sub(last) >= self.options.idle.as_millis() as u64 {
            let idle: Vec<Prepared> = std::mem::take(&mut *hook.shelf().lock());
            drop(idle);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> Job {
        Job {
            retire: None,
            refill: None,
        }
    }

    #[test]
    fn a_preparer_that_is_behind_gets_no_more_work() {
        let queue = Queue::new(2);
        for _ in 0..2 * RETIRE_CAP_BATCHES {
            assert!(queue.push(job(), false).is_ok());
        }
        // Full: the job comes back to the caller, which does the work itself.
        assert!(queue.push(job(), true).is_err());
        assert_eq!(
            queue
                .take(Duration::ZERO, Duration::ZERO)
                .map(|jobs| jobs.len()),
            Some(4)
        );
        assert!(queue.push(job(), false).is_ok());
    }

    /// A thread asleep in `queue.take` (returned once it sleeps).
    fn asleep_in_take(queue: &Arc<Queue>) -> std::thread::JoinHandle<Option<Vec<Job>>> {
        let sleeper = {
            let queue = queue.clone();
            std::thread::spawn(move || queue.take(Duration::from_secs(60), Duration::ZERO))
        };
        while !queue.lock().asleep {
            std::thread::yield_now();
        }
        sleeper
    }

    #[test]
    fn work_that_is_not_urgent_waits_for_the_bell() {
        let queue = Arc::new(Queue::new(8));
        let sleeper = asleep_in_take(&queue);
        // Not urgent, under the batch: the thread is left asleep.
        assert!(queue.push(job(), false).is_ok());
        assert!(queue.lock().asleep);
        // The ticker's ring wakes it, and it takes the job.
        let bell = Bell::default();
        let _ = bell.queue.set(Some(queue.clone()));
        bell.ring();
        let taken = sleeper.join().unwrap();
        assert_eq!(taken.map(|jobs| jobs.len()), Some(1));
    }

    #[test]
    fn an_empty_shelf_wakes_the_preparer_at_once() {
        let queue = Arc::new(Queue::new(8));
        let sleeper = asleep_in_take(&queue);
        assert!(queue.push(job(), true).is_ok());
        assert_eq!(sleeper.join().unwrap().map(|jobs| jobs.len()), Some(1));
    }

    #[test]
    fn a_lingering_preparer_takes_work_without_a_wake() {
        let queue = Arc::new(Queue::new(8));
        let (sent, taken) = std::sync::mpsc::channel();
        {
            let queue = queue.clone();
            std::thread::spawn(move || {
                let jobs = queue.take(Duration::from_secs(60), Duration::from_secs(30));
                let _ = sent.send(jobs.map(|jobs| jobs.len()));
            });
        }
        // Work that wakes nobody (not urgent, under the batch): a sleeping preparer
        // would wait for the bell; a lingering one finds it by itself.
        std::thread::sleep(Duration::from_millis(20));
        assert!(queue.push(job(), false).is_ok());
        assert_eq!(taken.recv_timeout(Duration::from_secs(10)), Ok(Some(1)));
        assert!(!queue.pending.load(Ordering::Acquire));
        // With nothing to do, it lingers at most the timeout, then comes back empty.
        assert_eq!(
            queue
                .take(Duration::from_millis(5), Duration::from_secs(30))
                .map(|jobs| jobs.len()),
            Some(0)
        );
    }

    #[test]
    fn the_retire_batch_follows_the_pool() {
        assert_eq!(retire_batch(1), 1);
        assert_eq!(retire_batch(32), 4);
        assert_eq!(retire_batch(1000), 8);
    }
}

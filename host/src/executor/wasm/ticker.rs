//! The epoch ticker: one thread per runtime that advances the engine's epoch every
//! [`EPOCH_TICK`], the wall-clock guard of every running guest, and on the same beat
//! rings the preparer's [`Bell`] (work calls left without waking it). It stops when the
//! runtime drops its [`Ticker`] or the engine is gone.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use wasmtime::Engine;

use super::limits::EPOCH_TICK;
use super::prepared::Bell;

/// Handle to the ticker thread; stops it when dropped.
pub struct Ticker {
    stop: Arc<AtomicBool>,
}

impl Ticker {
    /// Starts ticking `engine`'s epoch and ringing `bell`.
    pub fn start(engine: &Engine, bell: Arc<Bell>) -> std::io::Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = stop.clone();
        let weak = engine.weak();
        std::thread::Builder::new()
            .name("hookhost-wasm-epoch".into())
            .spawn(move || {
                while !thread_stop.load(Ordering::Relaxed) {
                    std::thread::sleep(EPOCH_TICK);
                    match weak.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                    bell.ring();
                }
            })?;
        Ok(Self { stop })
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

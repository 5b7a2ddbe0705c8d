//! The epoch ticker: one thread per runtime that advances its engines' epochs every
//! [`EPOCH_TICK`], the wall-clock guard of every running guest, and on the same beat
//! rings the preparer's [`Bell`] (work calls left without waking it). It stops when the
//! runtime drops its [`Ticker`] or the first engine is gone.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use wasmtime::{Engine, EngineWeak};

use super::limits::EPOCH_TICK;
use super::prepared::Bell;

/// Handle to the ticker thread; stops it when dropped.
pub struct Ticker {
    stop: Arc<AtomicBool>,
    /// The engines it ticks; the first one's end stops the thread.
    engines: Arc<Mutex<Vec<EngineWeak>>>,
}

impl Ticker {
    /// Starts ticking `engine`'s epoch and ringing `bell`.
    pub fn start(engine: &Engine, bell: Arc<Bell>) -> std::io::Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let engines = Arc::new(Mutex::new(vec![engine.weak()]));
        let (thread_stop, thread_engines) = (stop.clone(), engines.clone());
        std::thread::Builder::new()
            .name("hookhost-wasm-epoch".into())
            .spawn(move || {
                while !thread_stop.load(Ordering::Relaxed) {
                    std::thread::sleep(EPOCH_TICK);
                    let engines = thread_engines.lock().unwrap_or_else(|e| e.into_inner());
                    for (index, weak) in engines.iter().enumerate() {
                        match weak.upgrade() {
                            Some(engine) => engine.increment_epoch(),
                            None if index == 0 => return,
                            None => {}
                        }
                    }
                    drop(engines);
                    bell.ring();
                }
            })?;
        Ok(Self { stop, engines })
    }

    /// Ticks `engine`'s epoch too, from the next tick on.
    pub fn add(&self, engine: &Engine) {
        self.engines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(engine.weak());
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

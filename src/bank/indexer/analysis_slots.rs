//! How many analysed releases a build holds at once.
//!
//! Workers outnumber cores so that downloads overlap, but what a release costs in memory comes
//! after its download: its sources parsed, its import flow run, and its APIs held until the
//! writer has stored them (a transformers release is 289k APIs and about 150 MiB). A worker
//! takes a slot before parsing and the slot travels with the outcome until it is written, so
//! the build holds at most as many analysed releases as there are slots, however many workers
//! are downloading.

use std::sync::{Arc, Condvar, Mutex};

#[derive(Debug)]
struct Slots {
    free: Mutex<usize>,
    released: Condvar,
}

/// A counting semaphore over analysed releases.
#[derive(Debug, Clone)]
pub struct AnalysisSlots(Arc<Slots>);

/// One slot, given back when dropped.
#[derive(Debug)]
pub struct AnalysisSlot(Arc<Slots>);

impl AnalysisSlots {
    pub fn new(slots: usize) -> Self {
        Self(Arc::new(Slots {
            free: Mutex::new(slots.max(1)),
            released: Condvar::new(),
        }))
    }

    /// Slots for a build on this machine: one per core to analyse with, one for the release
    /// being written and one waiting for the writer, so that neither leaves a core idle.
    pub fn for_build(workers: usize) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self::new(workers.min(cores + 2))
    }

    /// Waits for a free slot.
    pub fn acquire(&self) -> AnalysisSlot {
        let mut free = self.0.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self
                .0
                .released
                .wait(free)
                .unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        AnalysisSlot(self.0.clone())
    }

    /// Slots not taken now, for tests.
    pub fn free(&self) -> usize {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for AnalysisSlot {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.released.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// However many threads want one, no more than the slots are held at once, and every
    /// slot comes back.
    #[test]
    fn holds_at_most_its_slots() {
        let slots = AnalysisSlots::new(3);
        let held = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..12 {
                s.spawn(|| {
                    for _ in 0..50 {
                        let slot = slots.acquire();
                        let now = held.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        held.fetch_sub(1, Ordering::SeqCst);
                        drop(slot);
                    }
                });
            }
        });
        assert_eq!(most.load(Ordering::SeqCst), 3);
        assert_eq!(slots.free(), 3);
    }

    #[test]
    fn a_build_never_has_more_slots_than_workers() {
        assert_eq!(AnalysisSlots::for_build(1).free(), 1);
        assert!(AnalysisSlots::for_build(64).free() <= 64);
    }
}

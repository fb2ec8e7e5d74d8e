//! Worker threads for a batch: each takes the next notebook until none is left, the user
//! asks to stop (Ctrl-C, [`crate::interrupt`]) or the work says to stop (the output can no
//! longer be written). Work in flight finishes; nothing new starts.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Each worker's stack.
const STACK: usize = 8 << 20;

/// How the pool ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolEnd {
    /// Items handed to workers.
    pub started: usize,
    /// Stopped before every item was started.
    pub stopped: bool,
}

/// Runs `work` on every item on `jobs` threads, in order of the items as far as threads
/// allow. `work` returns false to stop the pool.
pub fn run<T: Sync>(items: &[T], jobs: usize, work: impl Fn(&T) -> bool + Sync) -> PoolEnd {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let worker = || loop {
        if stop.load(Ordering::SeqCst) || crate::interrupt::requested() {
            stop.store(true, Ordering::SeqCst);
            return;
        }
        let i = next.fetch_add(1, Ordering::SeqCst);
        let Some(item) = items.get(i) else {
            return;
        };
        if !work(item) {
            stop.store(true, Ordering::SeqCst);
        }
    };
    let threads = jobs.clamp(1, items.len().max(1));
    std::thread::scope(|s| {
        for i in 1..threads {
            // The main thread's stack, not a spawned thread's 2 MiB: the parser recurses on
            // deeply nested code, and an overflow would end the whole batch.
            let spawned = std::thread::Builder::new()
                .name(format!("nbenv-worker-{i}"))
                .stack_size(STACK)
                .spawn_scoped(s, worker);
            if spawned.is_err() {
                break;
            }
        }
        worker();
    });
    let started = next.load(Ordering::SeqCst).min(items.len());
    PoolEnd {
        started,
        stopped: started < items.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn every_item_once_and_a_stop_is_kept() {
        let items: Vec<u32> = (0..100).collect();
        let seen = Mutex::new(Vec::new());
        let end = run(&items, 4, |i| {
            seen.lock().unwrap().push(*i);
            true
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        assert_eq!(seen, items);
        assert_eq!(
            end,
            PoolEnd {
                started: 100,
                stopped: false
            }
        );

        let end = run(&items, 1, |i| *i < 9);
        assert_eq!(
            end,
            PoolEnd {
                started: 10,
                stopped: true
            }
        );
    }
}

//! Summaries shared by the workers of one build.
//!
//! Consecutive releases ship mostly the same files, and workers index neighbouring releases at
//! the same time: without sharing, each would parse the files the others are parsing. A file
//! being parsed by one worker is waited for by the others rather than parsed again, since
//! parsing, not the network, is what costs here.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};

use crate::bank::extract::{FileSummary, Sha256};

enum Entry {
    Ready(Arc<FileSummary>),
    Parsing,
}

pub struct SummaryCache {
    entries: Mutex<HashMap<Sha256, Entry>>,
    ready: Condvar,
    capacity: usize,
}

impl SummaryCache {
    pub fn new(capacity: usize) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            ready: Condvar::new(),
            capacity,
        }
    }

    pub fn get(&self, hash: &Sha256) -> Option<Arc<FileSummary>> {
        match self.lock().get(hash) {
            Some(Entry::Ready(s)) => Some(s.clone()),
            _ => None,
        }
    }

    /// Remembers summaries read from the bank.
    pub fn insert(&self, hash: Sha256, summary: Arc<FileSummary>) {
        let mut entries = self.lock();
        self.make_room(&mut entries);
        entries.entry(hash).or_insert(Entry::Ready(summary));
    }

    /// The summary of `hash`, computed here unless another worker has it or is computing it.
    /// The flag says whether this call did the parsing.
    pub fn get_or_compute(
        &self,
        hash: Sha256,
        compute: impl FnOnce() -> FileSummary,
    ) -> (Arc<FileSummary>, bool) {
        let mut entries = self.lock();
        loop {
            match entries.get(&hash) {
                Some(Entry::Ready(s)) => return (s.clone(), false),
                Some(Entry::Parsing) => {
                    entries = self.ready.wait(entries).unwrap_or_else(|e| e.into_inner());
                }
                None => break,
            }
        }
        self.make_room(&mut entries);
        entries.insert(hash, Entry::Parsing);
        drop(entries);
        // Parsing never panics on bad input (the parser recovers), but if it did, waiters
        // must not hang: the guard clears the marker.
        let guard = ClearOnPanic { cache: self, hash };
        let summary = Arc::new(compute());
        std::mem::forget(guard);
        self.lock().insert(hash, Entry::Ready(summary.clone()));
        self.ready.notify_all();
        (summary, true)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Sha256, Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bounds memory on very long builds: finished entries are dropped wholesale (the bank
    /// still has them), entries being parsed are kept.
    fn make_room(&self, entries: &mut HashMap<Sha256, Entry>) {
        if entries.len() >= self.capacity {
            entries.retain(|_, e| matches!(e, Entry::Parsing));
        }
    }
}

struct ClearOnPanic<'a> {
    cache: &'a SummaryCache,
    hash: Sha256,
}

impl Drop for ClearOnPanic<'_> {
    fn drop(&mut self) {
        self.cache.lock().remove(&self.hash);
        self.cache.ready.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn concurrent_requests_parse_once() {
        let cache = SummaryCache::new(100);
        let parses = AtomicUsize::new(0);
        let hash = Sha256::of(b"x = 1\n");
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    cache.get_or_compute(hash, || {
                        parses.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(30));
                        FileSummary::default()
                    })
                });
            }
        });
        assert_eq!(parses.load(Ordering::SeqCst), 1);
        assert!(cache.get(&hash).is_some());
    }
}

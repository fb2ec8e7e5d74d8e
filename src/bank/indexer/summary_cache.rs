//! Summaries shared by the workers of one build.
//!
//! Consecutive releases ship mostly the same files, and workers index neighbouring releases at
//! the same time: without sharing, each would parse the files the others are parsing. A file
//! being parsed by one worker is waited for by the others rather than parsed again, since
//! parsing, not the network, is what costs here.
//!
//! Only recent summaries are worth holding: a release shares its files with its neighbours,
//! and anything older is one read away in the summary store. The cache keeps two generations
//! of at most `capacity` entries each; a hit in the older one moves the entry forward, and
//! when the newer one is full the older one is dropped. Memory stays bounded by
//! `2 × capacity` summaries however long the build (a full-list build parses about a
//! million files).

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};

use crate::bank::extract::{FileSummary, Sha256};

enum Entry {
    Ready(Arc<FileSummary>),
    Parsing,
}

#[derive(Default)]
struct Generations {
    current: HashMap<Sha256, Entry>,
    previous: HashMap<Sha256, Entry>,
}

impl Generations {
    /// The entry of `hash`, moved into the current generation if it was in the previous one.
    fn get(&mut self, hash: &Sha256) -> Option<&Entry> {
        if !self.current.contains_key(hash) {
            let entry = self.previous.remove(hash)?;
            self.current.insert(*hash, entry);
        }
        self.current.get(hash)
    }
}

pub struct SummaryCache {
    entries: Mutex<Generations>,
    ready: Condvar,
    capacity: usize,
}

/// Entries per generation for a build: two large releases' worth of files (transformers
/// ships about 2,000). Twice as many held 0.4 GiB more on a transformers build for little
/// gain: what drops out is one read away in the summary store.
pub const BUILD_CAPACITY: usize = 4096;

impl SummaryCache {
    pub fn new(capacity: usize) -> Self {
        Self {
            entries: Mutex::new(Generations::default()),
            ready: Condvar::new(),
            capacity: capacity.max(1),
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
        if entries.get(&hash).is_none() {
            self.make_room(&mut entries);
            entries.current.insert(hash, Entry::Ready(summary));
        }
    }

    /// Summaries held now, for tests and measurements.
    pub fn len(&self) -> usize {
        let entries = self.lock();
        entries.current.len() + entries.previous.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
        entries.current.insert(hash, Entry::Parsing);
        drop(entries);
        // Parsing never panics on bad input (the parser recovers), but if it did, waiters
        // must not hang: the guard clears the marker.
        let guard = ClearOnPanic { cache: self, hash };
        let summary = Arc::new(compute());
        std::mem::forget(guard);
        {
            let mut entries = self.lock();
            // The marker may have moved to the previous generation meanwhile.
            entries.previous.remove(&hash);
            entries.current.insert(hash, Entry::Ready(summary.clone()));
        }
        self.ready.notify_all();
        (summary, true)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Generations> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a new generation when the current one is full. The dropped summaries are in the
    /// summary store; markers of files being parsed are carried over, or their waiters would
    /// wait for nothing.
    fn make_room(&self, entries: &mut Generations) {
        if entries.current.len() < self.capacity {
            return;
        }
        let full = std::mem::take(&mut entries.current);
        let mut previous = HashMap::with_capacity(full.len());
        for (hash, entry) in full {
            match entry {
                Entry::Parsing => {
                    entries.current.insert(hash, entry);
                }
                Entry::Ready(_) => {
                    previous.insert(hash, entry);
                }
            }
        }
        for (hash, entry) in std::mem::take(&mut entries.previous) {
            if matches!(entry, Entry::Parsing) {
                entries.current.insert(hash, entry);
            }
        }
        entries.previous = previous;
    }
}

struct ClearOnPanic<'a> {
    cache: &'a SummaryCache,
    hash: Sha256,
}

impl Drop for ClearOnPanic<'_> {
    fn drop(&mut self) {
        {
            let mut entries = self.cache.lock();
            entries.current.remove(&self.hash);
            entries.previous.remove(&self.hash);
        }
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

    fn summary(n: u32) -> Arc<FileSummary> {
        Arc::new(FileSummary {
            parse_errors: n,
            ..FileSummary::default()
        })
    }

    #[test]
    fn memory_is_bounded_and_recent_entries_survive() {
        let cache = SummaryCache::new(10);
        let hash = |i: u32| Sha256::of(&i.to_le_bytes());
        for i in 0..1000 {
            cache.insert(hash(i), summary(i));
            // One file every release ships: used all the time, never dropped.
            cache.insert(hash(9999), summary(9999));
            assert!(cache.len() <= 20, "{} entries after {i}", cache.len());
        }
        assert!(cache.get(&hash(9999)).is_some());
        assert!(cache.get(&hash(999)).is_some());
        assert!(cache.get(&hash(0)).is_none());
    }

    #[test]
    fn a_file_being_parsed_is_not_dropped_with_its_generation() {
        let cache = SummaryCache::new(2);
        let parsing = Sha256::of(b"slow");
        let parses = AtomicUsize::new(0);
        std::thread::scope(|s| {
            s.spawn(|| {
                cache.get_or_compute(parsing, || {
                    parses.fetch_add(1, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(200));
                    FileSummary::default()
                })
            });
            std::thread::sleep(std::time::Duration::from_millis(50));
            // Two generations go by while the file is parsed.
            for i in 0..10u32 {
                cache.insert(Sha256::of(&i.to_le_bytes()), summary(i));
            }
            let (_, parsed_here) = cache.get_or_compute(parsing, || {
                parses.fetch_add(1, Ordering::SeqCst);
                FileSummary::default()
            });
            assert!(!parsed_here);
        });
        assert_eq!(parses.load(Ordering::SeqCst), 1);
    }
}

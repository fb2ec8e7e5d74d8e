//! The size budget of the cache's archive bytes, kept by evicting what was used least recently.
//!
//! Whole files, byte ranges and `.metadata` files can all be fetched again, so they may go;
//! index pages stay (they make the next refresh cheap: a revalidation, not a download). A full
//! build reads tens of GB of archives whose bytes are worth nothing once their summaries are
//! stored, so without a budget the cache grows until the disk is full.
//!
//! Recency is the modification time of each entry (a file, or the directory of one remote
//! file's ranges), set on every use: it survives restarts, needs no index file that a crash
//! could leave stale, and several nbenv processes sharing a cache agree on it.

use std::path::Path;
use std::sync::Mutex;
use std::time::SystemTime;

use super::cache_usage::{evictable_entries, remove_entry};

/// 2 GiB: a few hundred releases' worth of archives, small beside the disk of a laptop.
pub const DEFAULT_CACHE_BUDGET: u64 = 2 << 30;

/// How many bytes of archives the cache may hold, and how many it holds as far as this process
/// knows.
#[derive(Debug)]
pub struct CacheBudget {
    max: u64,
    /// Unknown until the first write: commands that only read never walk the cache.
    used: Mutex<Option<u64>>,
}

impl CacheBudget {
    pub fn new(max: u64) -> Self {
        Self {
            max,
            used: Mutex::new(None),
        }
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    /// Whether an entry of `bytes` is worth caching at all: one bigger than a sixteenth of the
    /// budget would push out many small ones that are more likely to be read again.
    pub fn admits(&self, bytes: u64) -> bool {
        bytes <= self.max / 16
    }

    /// Counts `bytes` just written under `root`; past the budget, evicts the least recently
    /// used entries down to 80% of it, so the next eviction is some way off.
    pub fn charge(&self, root: &Path, bytes: u64) {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let total = used.get_or_insert_with(|| {
            evictable_entries(root)
                .iter()
                .map(|e| e.bytes)
                .sum::<u64>()
                .saturating_sub(bytes)
        });
        *total += bytes;
        if *total > self.max {
            *total = evict_to(root, self.max / 10 * 8);
        }
    }
}

/// Removes the least recently used entries under `root` until at most `target` bytes remain;
/// returns what remains (as measured: other processes may have written meanwhile).
pub fn evict_to(root: &Path, target: u64) -> u64 {
    let mut entries = evictable_entries(root);
    let mut total: u64 = entries.iter().map(|e| e.bytes).sum();
    entries.sort_by_key(|e| e.last_used);
    for entry in entries {
        if total <= target {
            break;
        }
        if remove_entry(&entry.path) {
            total = total.saturating_sub(entry.bytes);
        }
    }
    total
}

/// Marks `path` (a file or a directory) as used now. Best effort: a cache that cannot be
/// touched only evicts less well.
pub fn touch(path: &Path) {
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.set_modified(SystemTime::now());
    }
}

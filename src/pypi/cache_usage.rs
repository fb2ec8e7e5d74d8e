//! What the cache directory holds, by kind, and removing it: for the budget's eviction,
//! `nbenv cache info` and `nbenv cache prune`.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Serialize;

/// The kinds of entries under the cache's `v1/` directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// Index pages, revalidated after their TTL.
    Pages,
    /// Whole archives, keyed by sha256.
    Files,
    /// Byte ranges of remote archives, one directory per archive.
    Ranges,
    /// PEP 658 `.metadata` files.
    Metadata,
    /// Lengths of remote files the index gave no size for.
    Lengths,
    /// Index pages in nbenv's binary form, each tied to the page body it was made from.
    Compact,
}

impl EntryKind {
    pub const ALL: [EntryKind; 6] = [
        EntryKind::Pages,
        EntryKind::Compact,
        EntryKind::Files,
        EntryKind::Ranges,
        EntryKind::Metadata,
        EntryKind::Lengths,
    ];

    pub fn dir_name(self) -> &'static str {
        match self {
            EntryKind::Pages => "pages",
            EntryKind::Files => "files",
            EntryKind::Ranges => "ranges",
            EntryKind::Metadata => "metadata",
            EntryKind::Lengths => "lengths",
            EntryKind::Compact => "compact",
        }
    }

    /// Whether the budget covers it: what can be fetched again and is not needed to refresh.
    pub fn evictable(self) -> bool {
        matches!(
            self,
            EntryKind::Files | EntryKind::Ranges | EntryKind::Metadata
        )
    }
}

/// One entry: a file, or for ranges the directory of one archive's ranges.
#[derive(Debug, Clone)]
pub struct CacheEntry {
    pub kind: EntryKind,
    pub path: PathBuf,
    pub bytes: u64,
    pub last_used: SystemTime,
}

/// How many entries of a kind and their size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub entries: u64,
    pub bytes: u64,
}

impl Tally {
    pub fn add(&mut self, bytes: u64) {
        self.entries += 1;
        self.bytes += bytes;
    }
}

/// The directory the entries of this cache format live in.
pub fn versioned_root(root: &Path) -> PathBuf {
    root.join("v1")
}

/// Every entry of `kind` under the cache at `root`.
pub fn entries(root: &Path, kind: EntryKind) -> Vec<CacheEntry> {
    let mut out = Vec::new();
    let dir = versioned_root(root).join(kind.dir_name());
    for shard in read_dir(&dir) {
        for entry in read_dir(&shard) {
            let Ok(meta) = std::fs::symlink_metadata(&entry) else {
                continue;
            };
            let last_used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            let bytes = if meta.is_dir() {
                dir_size(&entry)
            } else {
                meta.len()
            };
            out.push(CacheEntry {
                kind,
                path: entry,
                bytes,
                last_used,
            });
        }
    }
    out
}

/// The entries the budget covers.
pub fn evictable_entries(root: &Path) -> Vec<CacheEntry> {
    EntryKind::ALL
        .into_iter()
        .filter(|k| k.evictable())
        .flat_map(|k| entries(root, k))
        .collect()
}

/// Removes one entry (file or directory); false when it was already gone or cannot go.
pub fn remove_entry(path: &Path) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path).is_ok(),
        Ok(_) => std::fs::remove_file(path).is_ok(),
        Err(_) => false,
    }
}

/// The bytes of every file under `path` (not following links).
pub fn dir_size(path: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in read_dir(&dir) {
            match std::fs::symlink_metadata(&entry) {
                Ok(m) if m.is_dir() => stack.push(entry),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

fn read_dir(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|it| it.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

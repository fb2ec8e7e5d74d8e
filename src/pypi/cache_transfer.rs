//! The part of the cache that a resolution reads, carried to another machine: index pages,
//! their compact copies and core metadata (`bank export --with-index-cache`), so that a
//! worker started from a snapshot resolves with no index at all. Archives and byte ranges
//! stay behind: they are what indexing reads, and a warm bank has no need of them.
//!
//! Entries travel by kind and key (the file's name in its shard), never by path, and a key is
//! checked before anything is written, so a snapshot cannot write outside the cache.

use std::path::{Path, PathBuf};

use super::cache::{read_page_header, split_page, write_atomic, Cache};
use super::cache_usage::{entries, EntryKind};
use super::error::PypiError;

/// The kinds a snapshot carries, in the order they are written: pages before compact copies,
/// so the importer knows whether a copy goes with a page it kept.
pub const CARRIED: [EntryKind; 3] = [EntryKind::Pages, EntryKind::Compact, EntryKind::Metadata];

/// One entry to carry.
#[derive(Debug, Clone)]
pub struct CarriedEntry {
    pub kind: EntryKind,
    pub key: String,
    pub path: PathBuf,
}

/// What became of an entry offered to this cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installed {
    Written,
    /// A page fetched here no earlier than the offered one (or a compact copy of such a
    /// page): this machine's is kept.
    KeptLocal,
    /// An immutable entry this cache already holds.
    AlreadyHeld,
    /// Larger than the cache's budget admits.
    OverBudget,
}

/// Whether `key` can name an entry of `kind`: a file name of hex digits, dots and letters,
/// with no way out of its directory.
pub fn valid_key(kind: EntryKind, key: &str) -> bool {
    let plain = |s: &str| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit());
    match kind {
        EntryKind::Pages | EntryKind::Compact => plain(key),
        EntryKind::Metadata => key
            .split_once('.')
            .is_some_and(|(hash, rest)| plain(hash) && matches!(rest, "metadata" | "from-archive")),
        _ => false,
    }
}

/// Whether `bytes` read as an entry of `kind` the way the cache reads it: an index page must
/// have its page header, so that a snapshot carrying a damaged one is refused before anything
/// is written rather than failing half way through its install. Compact copies are checked
/// against their page when used, and metadata is read as text; both are taken as they come.
pub fn carried_entry_reads(kind: EntryKind, bytes: &[u8]) -> bool {
    match kind {
        EntryKind::Pages => split_page(bytes).is_some(),
        _ => true,
    }
}

impl Cache {
    /// Every entry a snapshot carries, in [`CARRIED`] order and by key within a kind, so that
    /// two exports of one cache write the same stream.
    pub fn carried_entries(&self) -> Vec<CarriedEntry> {
        let mut out = Vec::new();
        for kind in CARRIED {
            let mut found: Vec<CarriedEntry> = entries(self.root(), kind)
                .into_iter()
                .filter_map(|e| {
                    let key = e.path.file_name()?.to_str()?.to_string();
                    (valid_key(kind, &key) && e.path.is_file()).then_some(CarriedEntry {
                        kind,
                        key,
                        path: e.path,
                    })
                })
                .collect();
            found.sort_by(|a, b| a.key.cmp(&b.key));
            out.extend(found);
        }
        out
    }

    /// Offers one carried entry to this cache. `page_written` says whether the page with
    /// this key was written by the same import (it decides for a compact copy).
    pub fn install_carried(
        &self,
        kind: EntryKind,
        key: &str,
        bytes: &[u8],
        page_written: bool,
    ) -> Result<Installed, PypiError> {
        debug_assert!(valid_key(kind, key));
        let path = self.entry_path(kind, key);
        match kind {
            EntryKind::Pages => {
                let (offered, _) = split_page(bytes).ok_or_else(|| PypiError::Cache {
                    path: path.clone(),
                    source: std::io::Error::other("the carried index page does not read"),
                })?;
                let local = read_page_header(&path);
                if local.is_some_and(|l| l.fetched_at >= offered.fetched_at) {
                    return Ok(Installed::KeptLocal);
                }
                write_atomic(&path, bytes)?;
                Ok(Installed::Written)
            }
            EntryKind::Compact => {
                // A compact copy names the body it was made from, so one that does not match
                // its page is remade on first use, never trusted: this only saves the work.
                if !page_written && path.exists() {
                    return Ok(Installed::KeptLocal);
                }
                write_atomic(&path, bytes)?;
                Ok(Installed::Written)
            }
            _ => {
                if path.exists() {
                    return Ok(Installed::AlreadyHeld);
                }
                if !self.budget().admits(bytes.len() as u64) {
                    return Ok(Installed::OverBudget);
                }
                self.put_blob(kind.dir_name(), key, bytes)?;
                Ok(Installed::Written)
            }
        }
    }
}

/// Reads one carried entry's bytes; `None` when it went (evicted) since it was listed.
pub fn read_carried(path: &Path) -> Result<Option<Vec<u8>>, PypiError> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(PypiError::Cache {
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pypi::cache::CachedPage;

    fn page(fetched_at: u64, body: &str) -> CachedPage {
        CachedPage {
            final_url: "https://example.org/simple/x/".into(),
            content_type: Some("application/vnd.pypi.simple.v1+json".into()),
            etag: None,
            last_modified: None,
            fetched_at,
            digest: None,
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn keys_that_could_leave_the_cache_are_refused() {
        let h = "ab".repeat(32);
        assert!(valid_key(EntryKind::Pages, &h));
        assert!(valid_key(EntryKind::Metadata, &format!("{h}.metadata")));
        assert!(valid_key(EntryKind::Metadata, &format!("{h}.from-archive")));
        for bad in ["../x", "", &format!("{h}/x"), &format!("{h}.py"), ".."] {
            assert!(!valid_key(EntryKind::Pages, bad), "{bad}");
            assert!(!valid_key(EntryKind::Metadata, bad), "{bad}");
        }
        assert!(!valid_key(EntryKind::Files, &h), "archives are not carried");
    }

    #[test]
    fn a_page_fetched_later_here_is_kept_and_so_is_its_compact_copy() {
        let from = tempfile::tempdir().unwrap();
        let to = tempfile::tempdir().unwrap();
        let (a, b) = (Cache::new(from.path()), Cache::new(to.path()));
        let (url, accept) = ("https://example.org/simple/x/", "json");
        a.put_page(url, accept, &page(100, "old")).unwrap();
        a.put_compact(url, accept, b"compact of old").unwrap();
        a.put_blob(
            "metadata",
            &format!("{}.metadata", "cd".repeat(32)),
            b"Name: x",
        )
        .unwrap();
        let carried = a.carried_entries();
        let kinds: Vec<EntryKind> = carried.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, CARRIED.to_vec());

        let offer = |cache: &Cache| -> Vec<Installed> {
            let mut page_written = false;
            carried
                .iter()
                .map(|e| {
                    let bytes = read_carried(&e.path).unwrap().unwrap();
                    let got = cache
                        .install_carried(e.kind, &e.key, &bytes, page_written)
                        .unwrap();
                    if e.kind == EntryKind::Pages {
                        page_written = got == Installed::Written;
                    }
                    got
                })
                .collect()
        };
        // Into an empty cache: everything is written, and reads back as it was.
        assert_eq!(offer(&b), vec![Installed::Written; 3]);
        assert_eq!(b.get_page(url, accept).unwrap().body, b"old");
        // Again: the page is no newer, the metadata already held.
        assert_eq!(
            offer(&b),
            vec![
                Installed::KeptLocal,
                Installed::KeptLocal,
                Installed::AlreadyHeld
            ]
        );
        // A page this machine fetched later wins over the carried one.
        b.put_page(url, accept, &page(200, "new")).unwrap();
        b.put_compact(url, accept, b"compact of new").unwrap();
        offer(&b);
        assert_eq!(b.get_page(url, accept).unwrap().body, b"new");
        let mut compact = Vec::new();
        use std::io::Read;
        b.open_compact(url, accept)
            .unwrap()
            .read_to_end(&mut compact)
            .unwrap();
        assert_eq!(compact, b"compact of new");
    }
}

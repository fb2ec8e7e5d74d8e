use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::cache_budget::{touch, CacheBudget, DEFAULT_CACHE_BUDGET};
use super::cache_usage::versioned_root;
use super::error::PypiError;

/// The on-disk HTTP cache.
///
/// Three kinds of entries, each written atomically (temp file + rename), so a crash or a
/// concurrent nbenv never leaves a half-written entry behind:
/// - index pages, revalidated with ETag / Last-Modified after a TTL;
/// - whole immutable files (wheels, sdists, `.metadata`), keyed by their sha256;
/// - byte ranges of remote wheels, keyed like whole files, so that a second run reading the
///   same members needs no network at all.
///
/// Files and ranges are held to a size budget (see [`CacheBudget`]).
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
    budget: Arc<CacheBudget>,
}

/// A cached index page with what is needed to revalidate it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CachedPage {
    pub final_url: String,
    pub content_type: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Seconds since the Unix epoch when the page was last fetched or revalidated.
    pub fetched_at: u64,
    /// sha256 of the body (hex), which ties a compact copy to this very body. Pages cached
    /// by older nbenvs lack it until their next revalidation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    #[serde(skip)]
    pub body: Vec<u8>,
}

const PAGE_MAGIC: &[u8] = b"nbenv-page-v1\n";

/// The header of the page file at `path`, read without its body.
pub(super) fn read_page_header(path: &Path) -> Option<CachedPage> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    let mut reader = std::io::BufReader::with_capacity(4096, file);
    let mut line = Vec::new();
    reader.read_until(b'\n', &mut line).ok()?;
    if line != PAGE_MAGIC {
        return None;
    }
    line.clear();
    reader.read_until(b'\n', &mut line).ok()?;
    let header = line.strip_suffix(b"\n")?;
    serde_json::from_slice(header).ok()
}

/// A page file's bytes as its header (body left empty) and its body.
pub(super) fn split_page(bytes: &[u8]) -> Option<(CachedPage, &[u8])> {
    let rest = bytes.strip_prefix(PAGE_MAGIC)?;
    let newline = rest.iter().position(|&b| b == b'\n')?;
    let page = serde_json::from_slice(&rest[..newline]).ok()?;
    Some((page, &rest[newline + 1..]))
}

impl CachedPage {
    /// The page without its body.
    fn clone_header(&self) -> Self {
        Self {
            final_url: self.final_url.clone(),
            content_type: self.content_type.clone(),
            etag: self.etag.clone(),
            last_modified: self.last_modified.clone(),
            fetched_at: self.fetched_at,
            digest: self.digest.clone(),
            body: Vec::new(),
        }
    }
}

pub fn hex_sha256(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Checks downloaded bytes against the sha256 the index gave (if any), before they are used
/// or cached: a wrong hash means a tampered or truncated file.
pub fn check_sha256(url: &str, expected: Option<&str>, bytes: &[u8]) -> Result<(), PypiError> {
    let Some(expected) = expected else {
        return Ok(());
    };
    let actual = hex_sha256(bytes);
    if actual == expected {
        Ok(())
    } else {
        Err(PypiError::HashMismatch {
            file: url.to_string(),
            expected: expected.to_string(),
            actual,
        })
    }
}

pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Cache {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self::with_budget(root, DEFAULT_CACHE_BUDGET)
    }

    /// A cache whose archives and ranges take at most `max_bytes` (0: none are kept).
    pub fn with_budget(root: impl Into<PathBuf>, max_bytes: u64) -> Self {
        Self {
            root: root.into(),
            budget: Arc::new(CacheBudget::new(max_bytes)),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn budget(&self) -> &CacheBudget {
        &self.budget
    }

    fn sharded(&self, kind: &str, key: &str) -> PathBuf {
        let shard = key.get(..2).unwrap_or("00");
        versioned_root(&self.root).join(kind).join(shard).join(key)
    }

    /// Where the entry `key` of `kind` lives.
    pub(super) fn entry_path(&self, kind: super::EntryKind, key: &str) -> PathBuf {
        self.sharded(kind.dir_name(), key)
    }

    fn page_path(&self, url: &str, accept: &str) -> PathBuf {
        let key = hex_sha256(format!("{accept}\n{url}").as_bytes());
        self.sharded("pages", &key)
    }

    /// A cached page's header alone (its body left empty): enough to decide whether it is
    /// fresh and whether its compact copy speaks for it, without reading megabytes.
    pub fn get_page_header(&self, url: &str, accept: &str) -> Option<CachedPage> {
        read_page_header(&self.page_path(url, accept))
    }

    pub fn get_page(&self, url: &str, accept: &str) -> Option<CachedPage> {
        let bytes = std::fs::read(self.page_path(url, accept)).ok()?;
        let (mut page, body) = split_page(&bytes)?;
        page.body = body.to_vec();
        Some(page)
    }

    /// Keeps a page, with its body's digest in the header (computed if the page lacks one).
    pub fn put_page(&self, url: &str, accept: &str, page: &CachedPage) -> Result<(), PypiError> {
        let header = if page.digest.is_some() {
            serde_json::to_vec(page)
        } else {
            serde_json::to_vec(&CachedPage {
                digest: Some(hex_sha256(&page.body)),
                body: Vec::new(),
                ..page.clone_header()
            })
        }
        .expect("page header serializes");
        let mut bytes = Vec::with_capacity(PAGE_MAGIC.len() + header.len() + 1 + page.body.len());
        bytes.extend_from_slice(PAGE_MAGIC);
        bytes.extend_from_slice(&header);
        bytes.push(b'\n');
        bytes.extend_from_slice(&page.body);
        write_atomic(&self.page_path(url, accept), &bytes)
    }

    /// Records the digest of a page cached without one (by an older nbenv), so that the next
    /// read can trust the header alone. Only a page still exactly as `seen` is rewritten: one
    /// replaced in between is left to whoever replaced it.
    pub fn record_page_digest(
        &self,
        url: &str,
        accept: &str,
        seen: &CachedPage,
        digest: &str,
    ) -> Result<(), PypiError> {
        let Some(current) = self.get_page(url, accept) else {
            return Ok(());
        };
        let unchanged = current.digest.is_none()
            && current.fetched_at == seen.fetched_at
            && current.final_url == seen.final_url
            && current.content_type == seen.content_type
            && current.body == seen.body;
        if unchanged {
            let page = CachedPage {
                digest: Some(digest.to_string()),
                ..current
            };
            return unless_disk_full(self.put_page(url, accept, &page));
        }
        Ok(())
    }

    fn compact_path(&self, url: &str, accept: &str) -> PathBuf {
        let key = hex_sha256(format!("{accept}\n{url}").as_bytes());
        self.sharded("compact", &key)
    }

    /// The compact copy of a page (see `compact_page`), whatever page it was made from,
    /// opened to be read in parts. A copy replaced meanwhile leaves this one readable.
    pub fn open_compact(&self, url: &str, accept: &str) -> Option<std::fs::File> {
        std::fs::File::open(self.compact_path(url, accept)).ok()
    }

    pub fn put_compact(&self, url: &str, accept: &str, bytes: &[u8]) -> Result<(), PypiError> {
        write_atomic(&self.compact_path(url, accept), bytes)
    }

    /// An immutable blob (`kind` is `files` or `metadata`).
    pub fn get_blob(&self, kind: &str, key: &str) -> Option<Vec<u8>> {
        use std::io::Read;
        let path = self.sharded(kind, key);
        // Read and marked as used through one handle: opening it again to mark it was as
        // much as the read (a resolution reads a blob per release it visits).
        let mut file = std::fs::File::open(&path).ok()?;
        let len = file.metadata().ok()?.len();
        let mut bytes = Vec::with_capacity(usize::try_from(len).ok()?);
        file.read_to_end(&mut bytes).ok()?;
        let _ = file.set_modified(std::time::SystemTime::now());
        Some(bytes)
    }

    pub fn blob_path(&self, kind: &str, key: &str) -> Option<PathBuf> {
        let path = self.sharded(kind, key);
        path.is_file().then(|| {
            touch(&path);
            path
        })
    }

    /// Keeps a blob, if the budget admits one of its size.
    pub fn put_blob(&self, kind: &str, key: &str, bytes: &[u8]) -> Result<(), PypiError> {
        if !self.budget.admits(bytes.len() as u64) {
            return Ok(());
        }
        write_atomic(&self.sharded(kind, key), bytes)?;
        self.budget.charge(&self.root, bytes.len() as u64);
        Ok(())
    }

    /// A temporary file beside where blob `key` of `kind` goes, to be filled while the bytes
    /// stream past and then kept with [`Cache::keep_blob`]; `None` when the budget would not
    /// admit `len` bytes or the file cannot be made.
    pub fn blob_writer(&self, kind: &str, key: &str, len: u64) -> Option<tempfile::NamedTempFile> {
        if !self.budget.admits(len) {
            return None;
        }
        let dir = self.sharded(kind, key).parent()?.to_path_buf();
        std::fs::create_dir_all(&dir).ok()?;
        tempfile::NamedTempFile::new_in(dir).ok()
    }

    /// Moves a filled [`Cache::blob_writer`] file into place.
    pub fn keep_blob(
        &self,
        kind: &str,
        key: &str,
        file: tempfile::NamedTempFile,
    ) -> Result<(), PypiError> {
        let path = self.sharded(kind, key);
        let len = file.as_file().metadata().map_or(0, |m| m.len());
        file.persist(&path)
            .map_err(|e| PypiError::cache_write(&path, e.error))?;
        self.budget.charge(&self.root, len);
        Ok(())
    }

    /// Every cached byte range of the file `key`, as (offset, bytes).
    pub fn get_ranges(&self, key: &str) -> Vec<(u64, Vec<u8>)> {
        let dir = self.sharded("ranges", key);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Vec::new();
        };
        touch(&dir);
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some((start, len)) = name.to_str().and_then(|n| n.split_once('-')) else {
                continue;
            };
            let (Ok(start), Ok(len)) = (start.parse::<u64>(), len.parse::<usize>()) else {
                continue;
            };
            match std::fs::read(entry.path()) {
                Ok(bytes) if bytes.len() == len => out.push((start, bytes)),
                // A truncated entry cannot come from write_atomic; drop anything odd.
                _ => {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        out.sort_by_key(|(start, _)| *start);
        out
    }

    /// Keeps a byte range, if the budget admits one of its size.
    pub fn put_range(&self, key: &str, start: u64, bytes: &[u8]) -> Result<(), PypiError> {
        if !self.budget.admits(bytes.len() as u64) {
            return Ok(());
        }
        let path = self
            .sharded("ranges", key)
            .join(format!("{start}-{}", bytes.len()));
        write_atomic(&path, bytes)?;
        self.budget.charge(&self.root, bytes.len() as u64);
        Ok(())
    }
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename. A
/// write cut short by a full disk leaves nothing: the temporary file goes with the error.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), PypiError> {
    let cache_err = |source| PypiError::cache_write(path, source);
    let dir = path.parent().expect("cache paths have a parent");
    std::fs::create_dir_all(dir).map_err(cache_err)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(cache_err)?;
    tmp.write_all(bytes).map_err(cache_err)?;
    tmp.persist(path).map_err(|e| cache_err(e.error))?;
    Ok(())
}

/// What a cache write that nothing depends on comes to: an entry that could not be kept
/// costs a fetch next time, and nothing more, but a full disk is the user's to hear about (and
/// to make room on) rather than to pay for on every run.
pub(crate) fn unless_disk_full(written: Result<(), PypiError>) -> Result<(), PypiError> {
    match written {
        Err(e) if e.is_disk_full() => Err(e),
        _ => Ok(()),
    }
}

impl Cache {
    /// The length of a remote file whose size the index did not give, learnt from a range answer.
    pub fn get_len(&self, key: &str) -> Option<u64> {
        let path = self.sharded("lengths", key);
        std::fs::read_to_string(path).ok()?.trim().parse().ok()
    }

    pub fn put_len(&self, key: &str, len: u64) -> Result<(), PypiError> {
        write_atomic(&self.sharded("lengths", key), len.to_string().as_bytes())
    }
}

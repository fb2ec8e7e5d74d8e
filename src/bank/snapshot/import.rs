//! `bank import`: a snapshot checked whole, then installed as the bank in one rename.

use std::path::{Path, PathBuf};

use super::container::SnapshotHeader;
use super::copy::RunRecords;
use super::error::SnapshotError;
use super::index_section::{self, CacheInstall};
use super::install::{self, ExistingBank};
use super::source::SnapshotSource;
use super::unpack;
use crate::bank::store::{LockPolicy, Store, StoreError, WriterLock, SCHEMA_VERSION};
use crate::disk_full::Written;
use crate::pypi::{Cache, HttpClient};

/// The largest snapshot fetched from a URL unless told otherwise: the full bank's is about
/// 100 MB.
pub const DEFAULT_MAX_SIZE: u64 = 8 << 30;

#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Replace a bank that holds releases.
    pub force: bool,
    /// What to do when another writer holds the bank's lock.
    pub lock: LockPolicy,
    /// Largest snapshot, compressed (fetched from a URL) or decompressed (what its header
    /// says its sections hold, which then bounds what is written).
    pub max_size: u64,
    /// Where the index cache a snapshot carries goes; `None` leaves it out.
    pub cache: Option<Cache>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            force: false,
            lock: LockPolicy::default(),
            max_size: DEFAULT_MAX_SIZE,
            cache: None,
        }
    }
}

/// What an import installed, and what it replaced.
#[derive(Debug, Clone)]
pub struct ImportReport {
    pub bank: PathBuf,
    pub header: SnapshotHeader,
    /// Bytes of the snapshot read.
    pub snapshot_len: u64,
    pub replaced: ExistingBank,
    /// The snapshot's schema, when it was older than this nbenv's and was migrated.
    pub migrated_from: Option<u32>,
    /// Run tables and their rows; `runs_kept` says whether the rows were kept.
    pub runs: RunRecords,
    pub runs_kept: bool,
    /// What became of the index cache the snapshot carried, when it carried one and a cache
    /// was given.
    pub index_cache: Option<CacheInstall>,
}

/// Installs the snapshot at `source` as the bank at `bank`. Everything about the snapshot is
/// checked before the bank is touched, and a failure leaves the bank as it was; `http`
/// fetches URLs.
pub fn import(
    source: &SnapshotSource,
    bank: &Path,
    http: &HttpClient,
    options: &ImportOptions,
) -> Result<ImportReport, SnapshotError> {
    // The database is written beside the bank, then renamed over it: a full disk there is
    // the bank's (the index cache's own is a cache error).
    import_beside(source, bank, http, options).map_err(|e| e.on_full_disk(bank, Written::Bank))
}

fn import_beside(
    source: &SnapshotSource,
    bank: &Path,
    http: &HttpClient,
    options: &ImportOptions,
) -> Result<ImportReport, SnapshotError> {
    if bank.is_dir() {
        return Err(StoreError::NotABank {
            path: bank.to_path_buf(),
            detail: "it is a directory; a bank is one file, such as bank.sqlite3 inside it".into(),
        }
        .into());
    }
    let dir = match bank.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)
        .map_err(SnapshotError::io(&dir, "creating the bank's directory"))?;
    if let SnapshotSource::File(path) = source {
        if !path.exists() {
            return Err(SnapshotError::Missing { path: path.clone() });
        }
    }
    // Said before a long download, and decided again under the lock.
    install::may_replace(bank, &ExistingBank::inspect(bank)?, options.force)?;

    let unpacked = unpack::unpack(source, &dir, http, options.max_size)?;
    // The cache first: its entries are each written whole and harm nothing if the bank is
    // then not replaced, while a bank installed without them would resolve nothing offline.
    let index_cache = match (&unpacked.index_cache, &options.cache) {
        (Some(stream), Some(cache)) => Some(index_section::install_stream(stream.path(), cache)?),
        _ => None,
    };

    let replaced = {
        let _guard = WriterLock::new(bank, options.lock.clone()).acquire()?;
        let existing = ExistingBank::inspect(bank)?;
        install::may_replace(bank, &existing, options.force)?;
        install::replace(unpacked.file, bank, &existing)?;
        existing
    };
    // The usual open: back to WAL mode, and an older schema migrated.
    drop(Store::open_with(bank, options.lock.clone())?);
    let header = unpacked.header;
    Ok(ImportReport {
        bank: bank.to_path_buf(),
        migrated_from: (header.schema_version < SCHEMA_VERSION).then_some(header.schema_version),
        header,
        snapshot_len: unpacked.snapshot_len,
        replaced,
        runs: unpacked.runs,
        runs_kept: unpacked.runs_kept,
        index_cache,
    })
}

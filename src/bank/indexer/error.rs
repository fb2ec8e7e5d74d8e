use serde::Serialize;

use crate::bank::store::StoreError;
use crate::pypi::PypiError;

/// Why a release or a distribution could not be indexed.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Index(#[from] PypiError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The machine would not give nbenv a worker thread.
    #[error("cannot start a worker thread: {0}")]
    WorkerThread(#[source] std::io::Error),
    /// The distribution's page, read when planning, could not be read again when its
    /// releases' turn came (each release carries this).
    #[error("{reason}")]
    Page { reason: String, kind: FailureKind },
    /// The release has no wheel or sdist to read.
    #[error("no wheel or sdist to read")]
    NoFile,
    /// A scratch directory or a file in it could not be made (temp dir full, permissions).
    #[error("cannot create {what}: {source}")]
    Scratch {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
}

impl IndexError {
    /// What kind of failure this is, for reports and exit codes.
    pub fn kind(&self) -> FailureKind {
        match self {
            IndexError::Index(e) => FailureKind::of(e),
            IndexError::Store(e) if e.is_disk_full() => FailureKind::DiskFull,
            IndexError::Store(_) => FailureKind::Bank,
            IndexError::NoFile => FailureKind::NoFile,
            IndexError::Page { kind, .. } => *kind,
            IndexError::WorkerThread(_) | IndexError::Scratch { .. } => FailureKind::Other,
        }
    }
}

/// The kind of a release's or a distribution's failure: what a report counts and the command
/// line turns into an exit code, without reading the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The project is not on the index, or none of its releases matches what was asked.
    NotFound,
    /// The index could not be reached, answered errors, or `--offline` had no cached answer.
    Network,
    /// A file from the index is corrupt, refused by the limits, or fails its hash.
    Archive,
    /// The release has no file nbenv can read (no wheel, no sdist).
    NoFile,
    /// The bank could not be written.
    Bank,
    /// The disk (or quota) under the cache, the bank or a temporary directory is full.
    DiskFull,
    /// Anything else: threads, temporary files, the cache, the HTTP client.
    Other,
}

impl FailureKind {
    /// The kind of an index client error.
    pub fn of(e: &PypiError) -> Self {
        if e.is_disk_full() {
            FailureKind::DiskFull
        } else if e.is_not_found() {
            FailureKind::NotFound
        } else if e.is_network() {
            FailureKind::Network
        } else if e.is_bad_archive() {
            FailureKind::Archive
        } else {
            FailureKind::Other
        }
    }
}

use std::path::{Path, PathBuf};

use crate::disk_full::{DiskFull, Written};

/// What can go wrong talking to an index or reading what it serves.
///
/// Every variant names the URL or file involved: these messages reach users running batch jobs
/// over thousands of notebooks, who need to know which request failed and why.
#[derive(Debug, thiserror::Error)]
pub enum PypiError {
    #[error("project `{name}` was not found on the index ({url})")]
    ProjectNotFound { name: String, url: String },

    #[error("{url} answered HTTP {status}{}", detail_suffix(detail))]
    Status {
        url: String,
        status: u16,
        detail: Option<String>,
    },

    #[error("request to {url} failed after {attempts} attempt(s): {cause}")]
    Network {
        url: String,
        attempts: u32,
        cause: String,
    },

    #[error("{url} is not in the cache and --offline forbids fetching it")]
    Offline { url: String },

    #[error("could not understand the index page {url}: {message}")]
    BadPage { url: String, message: String },

    #[error("{file}: {message}")]
    BadArchive { file: String, message: String },

    #[error("{file}: refused: {message}")]
    Refused { file: String, message: String },

    #[error("{file}: hash mismatch: expected sha256 {expected}, got {actual}")]
    HashMismatch {
        file: String,
        expected: String,
        actual: String,
    },

    #[error("{file} has no core metadata: {message}")]
    NoMetadata { file: String, message: String },

    #[error("invalid index URL `{url}`: {message}")]
    BadIndexUrl { url: String, message: String },

    #[error("cache at {}: {source}", path.display())]
    Cache {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The cache's disk (or quota) is full: never just a cache entry lost, since every later
    /// write there (the next entry, the summaries, an environment) would fail alike.
    #[error("{0}")]
    DiskFull(#[from] DiskFull),

    #[error("could not set up the HTTP client: {0}")]
    Client(String),
}

fn detail_suffix(detail: &Option<String>) -> String {
    match detail {
        Some(d) => format!(" ({d})"),
        None => String::new(),
    }
}

impl PypiError {
    /// Writing the cache entry at `path` failed with `source`.
    pub(crate) fn cache_write(path: &Path, source: std::io::Error) -> Self {
        match DiskFull::of_io(path, Written::Cache, &source) {
            Some(full) => PypiError::DiskFull(full),
            None => PypiError::Cache {
                path: path.to_path_buf(),
                source,
            },
        }
    }

    /// Whether the error is a full disk (or quota).
    pub fn is_disk_full(&self) -> bool {
        matches!(self, PypiError::DiskFull(_))
    }

    /// Whether the error means "this does not exist" rather than "we could not find out".
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            PypiError::ProjectNotFound { .. } | PypiError::Status { status: 404, .. }
        )
    }

    /// Whether the error is about reaching the index (network, HTTP, offline cache miss).
    pub fn is_network(&self) -> bool {
        matches!(
            self,
            PypiError::Status { .. } | PypiError::Network { .. } | PypiError::Offline { .. }
        ) && !self.is_not_found()
    }

    /// Whether the error is about what a file contains (corrupt, refused, wrong hash).
    pub fn is_bad_archive(&self) -> bool {
        matches!(
            self,
            PypiError::BadArchive { .. }
                | PypiError::Refused { .. }
                | PypiError::HashMismatch { .. }
                | PypiError::NoMetadata { .. }
                | PypiError::BadPage { .. }
        )
    }
}

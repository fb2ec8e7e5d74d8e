use std::path::{Path, PathBuf};

use super::container::Defect;
use crate::bank::store::StoreError;
use crate::disk_full::{DiskFull, Limit, Written};
use crate::pypi::PypiError;

/// Errors of exporting and importing bank snapshots. Each names the snapshot (a path or a
/// URL) or the bank it is about.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The snapshot is refused as it is: nothing was installed.
    #[error("snapshot {snapshot}: {defect}")]
    Refused { snapshot: String, defect: Defect },
    #[error("snapshot {} does not exist", path.display())]
    Missing { path: PathBuf },
    /// A snapshot URL that nbenv does not fetch.
    #[error("snapshot {snapshot}: {detail}")]
    BadSource { snapshot: String, detail: String },
    #[error("snapshot {url}: {source}")]
    Fetch {
        url: String,
        #[source]
        source: PypiError,
    },
    #[error("snapshot {url}: larger than the {limit} byte limit (--max-size)")]
    TooLarge { url: String, limit: u64 },
    #[error("{}: {action}: {source}", path.display())]
    Io {
        path: PathBuf,
        action: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    /// Replacing a bank that holds releases must be asked for.
    #[error("bank {} {}; add --force to replace it with the snapshot", bank.display(), holds(releases))]
    BankNotEmpty {
        bank: PathBuf,
        releases: Option<u64>,
    },
    /// Another process has the bank open: replacing the file under it would leave it reading
    /// (or writing) a bank that is no longer there.
    #[error("bank {} is open in another process (an nbenv infer, batch or build?); stop it and import again", bank.display())]
    BankInUse { bank: PathBuf },
    /// Reading or writing the index cache a snapshot carries.
    #[error("index cache {}: {source}", cache.display())]
    Cache {
        cache: PathBuf,
        #[source]
        source: PypiError,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The disk (or quota) under the snapshot being written, or the bank being replaced, is
    /// full; the scratch files are gone, and the bank is as it was.
    #[error("{0}")]
    DiskFull(#[from] DiskFull),
}

fn holds(releases: &Option<u64>) -> String {
    match releases {
        Some(n) => format!("already holds {n} releases"),
        None => "already holds a bank (too damaged to count its releases)".into(),
    }
}

impl SnapshotError {
    /// This error as a full disk under `path` when it is one, whichever scratch file beside
    /// `path` filled up.
    pub(crate) fn on_full_disk(self, path: &Path, written: Written) -> Self {
        let limit = match &self {
            SnapshotError::Io { source, .. } => Limit::of_io(source),
            SnapshotError::Sqlite {
                source: rusqlite::Error::SqliteFailure(f, _),
                ..
            } if f.code == rusqlite::ErrorCode::DiskFull => Some(Limit::Device),
            _ => None,
        };
        match limit {
            Some(limit) => SnapshotError::DiskFull(DiskFull {
                path: path.to_path_buf(),
                written,
                limit,
            }),
            None => self,
        }
    }

    pub(crate) fn io(
        path: impl Into<PathBuf>,
        action: &'static str,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| SnapshotError::Io {
            path,
            action,
            source,
        }
    }

    pub(crate) fn sqlite(path: impl Into<PathBuf>) -> impl FnOnce(rusqlite::Error) -> Self {
        let path = path.into();
        move |source| SnapshotError::Sqlite { path, source }
    }
}

use crate::bank::store::StoreError;
use crate::pypi::PypiError;

/// Why a release or a distribution could not be indexed.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Index(#[from] PypiError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    NoUsableFile(String),
}

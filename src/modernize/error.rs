//! What keeps `modernize` from writing a modernized notebook.

use std::path::PathBuf;

use crate::bank::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum ModernizeError {
    /// Only nbformat 3 and 4 notebooks are rewritten in place of their cells: older formats and
    /// scripts would have to be converted, which is another change than a move.
    #[error("{}: modernize rewrites nbformat 3 and 4 notebooks only (this is {what})", path.display())]
    NotNbformat4 { path: PathBuf, what: String },
    #[error("{}: not notebook JSON: {source}", path.display())]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

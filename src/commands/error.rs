//! Why a command could not do what it was asked; each cause keeps its own type, so that the
//! command line decides exit codes on types.

use std::path::PathBuf;

use crate::modernize::restoring::AttemptError;
use crate::notebook::NotebookError;
use crate::output::WriteError;
use crate::pypi::PypiError;
use crate::resolve::session::SessionError;
use crate::restore::RoundError;

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error(transparent)]
    Notebook(#[from] NotebookError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Round(#[from] RoundError),
    #[error(transparent)]
    Attempt(#[from] AttemptError),
    /// Setting up the index client (a bad `--index-url`, the TLS roots).
    #[error("setting up the index client: {0}")]
    Index(#[from] PypiError),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(
        "{0}: the modernized notebook would be written over the input, which restore never writes"
    )]
    WouldOverwriteInput(PathBuf),
}

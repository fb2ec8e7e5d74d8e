use std::path::PathBuf;

use crate::bank::indexer::IndexError;
use crate::bank::store::StoreError;
use crate::disk_full::DiskFull;
use crate::notebook::NotebookError;
use crate::resolve::evidence::BankReadError;
use crate::resolve::infer::InferError;

/// Why an inference session ended without an inference. The command line turns each variant
/// into an exit code; a batch into the kind its record keeps.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Past [`super::InferRun::deadline`]: the next step did not start.
    #[error("past its time limit")]
    OutOfTime,
    /// The user stopped indexing or introspection (Ctrl-C); `kept` of `noun` were written.
    #[error("{kept} {noun} kept; {left} left for the next run")]
    Interrupted {
        kept: usize,
        left: usize,
        noun: &'static str,
    },
    /// A folder was given with no `.ipynb` under it.
    #[error("no notebook (.ipynb) under {}", .0.display())]
    NoNotebook(PathBuf),
    #[error("reading {}", .path.display())]
    ReadDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Notebook(#[from] NotebookError),
    #[error("creating the bank at {}", .bank.display())]
    CreateBank {
        bank: PathBuf,
        #[source]
        source: StoreError,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    BankRead(#[from] BankReadError),
    #[error("building the bank at {}", .bank.display())]
    Build {
        bank: PathBuf,
        #[source]
        source: IndexError,
    },
    #[error("introspecting into the bank at {}", .bank.display())]
    Introspect {
        bank: PathBuf,
        #[source]
        source: IndexError,
    },
    /// No environment satisfies the notebook; `listed` when the reasons per interpreter were
    /// said before the error.
    #[error(
        "no environment satisfies {}{}",
        .notebook.display(),
        if *.listed { " (see why above)" } else { "" }
    )]
    NoSolution {
        notebook: PathBuf,
        listed: bool,
        #[source]
        source: Box<InferError>,
    },
    #[error(transparent)]
    Infer(Box<InferError>),
    /// A lookup on the index failed for a full disk: said in the lookup's words, with the
    /// disk's error under them.
    #[error("{message}")]
    DiskFull {
        message: String,
        #[source]
        source: DiskFull,
    },
}

impl From<InferError> for SessionError {
    fn from(e: InferError) -> Self {
        SessionError::Infer(Box::new(e))
    }
}

impl SessionError {
    /// The resolver's error behind this one, where there is one.
    pub fn infer_error(&self) -> Option<&InferError> {
        match self {
            SessionError::NoSolution { source, .. } => Some(source),
            SessionError::Infer(e) => Some(e),
            _ => None,
        }
    }
}

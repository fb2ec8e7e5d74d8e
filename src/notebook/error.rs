//! Why a file could not be read as a notebook. Each kind maps to its own exit code at the CLI
//! edge, so batch runs can tell a broken file from an R notebook without parsing messages.

use std::path::PathBuf;

/// A notebook that cannot be analysed. Messages always name the file.
#[derive(Debug, thiserror::Error)]
pub enum NotebookError {
    /// The file could not be read at all (missing, permissions, not UTF-8 for scripts).
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid JSON (truncated download, merge conflict markers, ...).
    #[error("{}: broken JSON at line {line}, column {column}: {message}", path.display())]
    BrokenJson {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// Valid JSON (or text) that does not have the shape of a Jupyter notebook.
    #[error("{} is not a Jupyter notebook: {reason}", path.display())]
    NotANotebook { path: PathBuf, reason: String },
    /// A notebook without a single non-blank code cell: there is nothing to restore.
    #[error("{} has no code: {cells} cells, none of them non-empty code", path.display())]
    Empty { path: PathBuf, cells: usize },
    /// The kernel runs another language (R, Julia, ...): nbenv only restores Python.
    #[error("{} is not a Python notebook: its kernel `{kernel}` runs {language}", path.display())]
    NotPython {
        path: PathBuf,
        language: String,
        kernel: String,
    },
}

impl NotebookError {
    /// The file the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            NotebookError::Io { path, .. }
            | NotebookError::BrokenJson { path, .. }
            | NotebookError::NotANotebook { path, .. }
            | NotebookError::Empty { path, .. }
            | NotebookError::NotPython { path, .. } => path,
        }
    }
}

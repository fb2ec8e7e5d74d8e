//! Exit codes: the contract scripts and batch pipelines rely on. Documented in the README.

use std::process::ExitCode;

use nbenv::bank::indexer::IndexError;
use nbenv::bank::store::StoreError;
use nbenv::notebook::NotebookError;
use nbenv::pypi::PypiError;

/// Success.
pub const OK: u8 = 0;
/// Any failure without a more specific code.
pub const FAILURE: u8 = 1;
// 2 is clap's own code for bad arguments.
/// The project, release or file asked for does not exist on the index.
pub const NOT_FOUND: u8 = 3;
/// The index could not be reached or answered with an error (after retries), or `--offline`
/// was given and the answer is not cached.
pub const NETWORK: u8 = 4;
/// A file from the index is corrupt, refused by the size limits, or fails its hash.
pub const BAD_ARCHIVE: u8 = 5;

/// The bank could not be opened, is not an nbenv bank, is corrupt or too new.
pub const BANK: u8 = 7;

/// Some of the work could not be done (e.g. releases that failed to index); the rest was.
pub const PARTIAL: u8 = 6;

/// Some of the work failed while the rest succeeded.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PartialFailure(pub String);

/// Something the user asked for does not exist.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NotFound(pub String);
// 3–9 are reserved for index and bank errors.

/// The notebook file is not valid JSON.
pub const NOTEBOOK_BROKEN_JSON: u8 = 10;
/// Valid JSON (or text) that is not a Jupyter notebook.
pub const NOT_A_NOTEBOOK: u8 = 11;
/// The notebook has no non-empty code cell.
pub const NOTEBOOK_EMPTY: u8 = 12;
/// The notebook's kernel is not Python (R, Julia, ...).
pub const NOTEBOOK_NOT_PYTHON: u8 = 13;
/// The notebook file cannot be read (missing, permissions, a script that is not UTF-8).
pub const NOTEBOOK_UNREADABLE: u8 = 14;

/// Prints the error chain (if any) and turns the result into an exit code.
pub fn report(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::from(OK),
        // `nbenv ... | head` closing the pipe early is not a failure.
        Err(err) if is_broken_pipe(&err) => ExitCode::from(OK),
        Err(err) => {
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(code_for(&err))
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The most specific code that any error in the chain maps to.
fn code_for(err: &anyhow::Error) -> u8 {
    for cause in err.chain() {
        if cause.is::<NotFound>() {
            return NOT_FOUND;
        }
        if cause.is::<PartialFailure>() {
            return PARTIAL;
        }
        // `IndexError` wraps these transparently, so they are not in the chain themselves.
        let (pypi, store) = match cause.downcast_ref::<IndexError>() {
            Some(IndexError::Index(e)) => (Some(e), None),
            Some(IndexError::Store(e)) => (None, Some(e)),
            _ => (
                cause.downcast_ref::<PypiError>(),
                cause.downcast_ref::<StoreError>(),
            ),
        };
        if let Some(e) = store {
            return match e {
                StoreError::Missing { .. } => NOT_FOUND,
                _ => BANK,
            };
        }
        if let Some(e) = pypi {
            if e.is_not_found() {
                return NOT_FOUND;
            }
            if e.is_network() {
                return NETWORK;
            }
            if e.is_bad_archive() {
                return BAD_ARCHIVE;
            }
        }
        if let Some(e) = cause.downcast_ref::<NotebookError>() {
            return match e {
                NotebookError::BrokenJson { .. } => NOTEBOOK_BROKEN_JSON,
                NotebookError::NotANotebook { .. } => NOT_A_NOTEBOOK,
                NotebookError::Empty { .. } => NOTEBOOK_EMPTY,
                NotebookError::NotPython { .. } => NOTEBOOK_NOT_PYTHON,
                NotebookError::Io { .. } => NOTEBOOK_UNREADABLE,
            };
        }
    }
    FAILURE
}

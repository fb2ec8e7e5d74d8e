//! Exit codes: the contract scripts and batch pipelines rely on. Documented in the README.

use std::process::ExitCode;

use nbenv::notebook::NotebookError;

use super::args::GlobalArgs;

/// Success.
pub const OK: u8 = 0;
/// Any failure without a more specific code.
pub const FAILURE: u8 = 1;
// 2 is clap's own code for bad arguments.
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
pub fn report(result: anyhow::Result<()>, _global: &GlobalArgs) -> ExitCode {
    match result {
        Ok(()) => ExitCode::from(OK),
        Err(err) => {
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(code_for(&err))
        }
    }
}

/// The most specific code that any error in the chain maps to.
fn code_for(err: &anyhow::Error) -> u8 {
    for cause in err.chain() {
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

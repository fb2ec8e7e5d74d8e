//! Why a stage could not go on for a notebook, as its record says it: decided on the error's
//! type (the session's, a round's, the resolver's), never on its words. An interruption and
//! a full disk are no record at all: the notebook is measured again when the batch resumes.

use std::error::Error;
use std::time::Duration;

use crate::bank::indexer::{FailureKind, IndexError};
use crate::bank::store::StoreError;
use crate::disk_full::DiskFull;
use crate::measure::record::{ErrorKind, RecordError, Status};
use crate::measure::usage_stage::error_kind as notebook_kind;
use crate::pypi::PypiError;
use crate::resolve::evidence::{BankReadError, EvidenceError};
use crate::resolve::infer::InferError;
use crate::resolve::interpreter::Reach;
use crate::resolve::session::SessionError;
use crate::resolve::solver::CatalogError;
use crate::restore::RoundError;

/// What stopped a stage: its inference (stage infer), or its rounds (verify, restore).
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Round(#[from] RoundError),
}

impl StageError {
    /// The inference session's error, also where a round holds it.
    fn session(&self) -> Option<&SessionError> {
        match self {
            StageError::Session(e) | StageError::Round(RoundError::Session(e)) => Some(e),
            StageError::Round(_) => None,
        }
    }

    /// The resolver's error, where the session's holds one.
    fn infer(&self) -> Option<&InferError> {
        self.session().and_then(SessionError::infer_error)
    }
}

/// What a stage's error makes of the notebook's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The user stopped the batch: nothing is recorded.
    Stopped,
    /// The disk (or quota) filled up: nothing is recorded, and the batch stops, since no
    /// notebook after it would fare better.
    DiskFull,
    /// The record's status and error.
    Recorded { status: Status, error: RecordError },
}

impl Failure {
    /// The failure `e` is, for a notebook with `timeout` to run in.
    pub fn of(e: &StageError, timeout: Duration) -> Failure {
        // Whatever was being done, the disk filling up is what stopped it.
        if disk_full(e) {
            return Failure::DiskFull;
        }
        if interrupted(e) {
            return Failure::Stopped;
        }
        let (status, kind, message) = if matches!(e.session(), Some(SessionError::OutOfTime)) {
            (
                Status::Timeout,
                ErrorKind::Timeout,
                format!("stopped past the limit of {} s", timeout.as_secs()),
            )
        } else if let Some(why) = e.infer().and_then(no_solution) {
            (Status::NoSolution, ErrorKind::NoSolution, why)
        } else if python_missing(e) {
            (Status::Error, ErrorKind::PythonMissing, chain_text(e))
        } else {
            (Status::Error, kind(e), chain_text(e))
        };
        Failure::Recorded {
            status,
            error: RecordError { kind, message },
        }
    }
}

/// A full disk anywhere in the chain (only nbenv's own error says so: `ENOSPC` elsewhere means
/// other things), or an indexing failure of that kind.
fn disk_full(e: &StageError) -> bool {
    let page_full = |source: &IndexError| {
        matches!(
            source,
            IndexError::Page {
                kind: FailureKind::DiskFull,
                ..
            }
        )
    };
    causes(e).any(|c| c.is::<DiskFull>())
        || matches!(
            e.session(),
            Some(SessionError::Build { source, .. } | SessionError::Introspect { source, .. })
                if page_full(source)
        )
}

/// The user stopped indexing, introspection or the resolution.
fn interrupted(e: &StageError) -> bool {
    matches!(e.session(), Some(SessionError::Interrupted { .. }))
        || matches!(e.infer(), Some(InferError::Interrupted))
}

/// Each interpreter tried and why it had no solution, when none had one.
fn no_solution(e: &InferError) -> Option<String> {
    match e {
        InferError::NoSolution { tried } => Some(
            tried
                .iter()
                .map(|t| format!("Python {}: {}", t.python, t.why.trim_end()))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        InferError::Joint(j) => Some(j.to_string()),
        InferError::NoInterpreter {
            reach: Reach::Known,
            ..
        } => Some(e.to_string()),
        _ => None,
    }
}

/// The notebook resolved for (or needs) a Python this machine does not have.
fn python_missing(e: &StageError) -> bool {
    matches!(e, StageError::Round(RoundError::NotInstalled(_)))
        || matches!(e.infer(), Some(InferError::NoInterpreter { .. }))
}

/// The record's kind of any other error.
fn kind(e: &StageError) -> ErrorKind {
    match e {
        StageError::Session(e) | StageError::Round(RoundError::Session(e)) => session_kind(e),
        StageError::Round(RoundError::NotInstalled(_)) => ErrorKind::NotFound,
        // The installer's failure, the interpreter's, the run's (a sandbox refused included).
        StageError::Round(
            RoundError::Env(_) | RoundError::Interpreter(_) | RoundError::Run { .. },
        ) => ErrorKind::Other,
    }
}

fn session_kind(e: &SessionError) -> ErrorKind {
    match e {
        SessionError::NoNotebook(_) => ErrorKind::NotFound,
        SessionError::Notebook(e) => notebook_kind(e),
        SessionError::CreateBank { source, .. }
        | SessionError::Store(source)
        | SessionError::BankRead(BankReadError::Store(source)) => store_kind(source),
        SessionError::Build { source, .. } | SessionError::Introspect { source, .. } => {
            index_kind(source)
        }
        SessionError::NoSolution { source, .. } => infer_kind(source),
        SessionError::Infer(e) => infer_kind(e),
        SessionError::OutOfTime
        | SessionError::Interrupted { .. }
        | SessionError::ReadDir { .. }
        | SessionError::DiskFull { .. } => ErrorKind::Other,
    }
}

fn infer_kind(e: &InferError) -> ErrorKind {
    match e {
        InferError::Evidence(EvidenceError::Bank(BankReadError::Store(e))) => store_kind(e),
        InferError::Catalog(
            CatalogError::Releases { source, .. } | CatalogError::Metadata { source, .. },
        ) => pypi_kind(source),
        // To run it here, a missing interpreter is something to install.
        InferError::NoInterpreter {
            reach: Reach::Installed,
            ..
        } => ErrorKind::NotFound,
        InferError::NoSolution { .. } | InferError::Joint(_) | InferError::NoInterpreter { .. } => {
            ErrorKind::NoSolution
        }
        InferError::Evidence(EvidenceError::Lookup(_))
        | InferError::Catalog(CatalogError::NotFound { .. } | CatalogError::NoFiles { .. })
        | InferError::Interrupted => ErrorKind::Other,
    }
}

/// A missing bank is not found; any other error makes it unusable.
fn store_kind(e: &StoreError) -> ErrorKind {
    match e {
        StoreError::Missing { .. } => ErrorKind::NotFound,
        _ => ErrorKind::Bank,
    }
}

fn index_kind(e: &IndexError) -> ErrorKind {
    match e {
        IndexError::Index(e) => pypi_kind(e),
        IndexError::Store(e) => store_kind(e),
        other => failure_kind(other.kind()),
    }
}

fn pypi_kind(e: &PypiError) -> ErrorKind {
    match e {
        // What the user typed, not the notebook's doing.
        PypiError::BadIndexUrl { .. } => ErrorKind::Other,
        e => failure_kind(FailureKind::of(e)),
    }
}

fn failure_kind(kind: FailureKind) -> ErrorKind {
    match kind {
        FailureKind::NotFound => ErrorKind::NotFound,
        FailureKind::Network => ErrorKind::Network,
        FailureKind::Archive => ErrorKind::BadArchive,
        FailureKind::Bank => ErrorKind::Bank,
        FailureKind::DiskFull | FailureKind::NoFile | FailureKind::Other => ErrorKind::Other,
    }
}

/// The error and each cause under it.
fn causes(e: &StageError) -> impl Iterator<Item = &(dyn Error + 'static)> {
    std::iter::successors(Some(e as &(dyn Error + 'static)), |&c| c.source())
}

/// The error and its causes in one line, `error: cause: cause`.
fn chain_text(e: &StageError) -> String {
    causes(e)
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(": ")
}

#[cfg(test)]
mod tests;

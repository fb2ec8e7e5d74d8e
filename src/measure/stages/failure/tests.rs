use std::path::PathBuf;

use super::*;
use crate::disk_full::Written;
use crate::python::{PythonRange, PythonVersion};
use crate::resolve::infer::PassedOver;
use crate::restore::NotInstalled;
use crate::verify::RunError;

const LIMIT: Duration = Duration::from_secs(300);

fn py(minor: u8) -> PythonVersion {
    PythonVersion::new(3, minor)
}

fn recorded(e: impl Into<StageError>) -> (Status, ErrorKind, String) {
    match Failure::of(&e.into(), LIMIT) {
        Failure::Recorded { status, error } => (status, error.kind, error.message),
        other => panic!("expected a record, got {other:?}"),
    }
}

fn no_space() -> std::io::Error {
    std::io::Error::from_raw_os_error(28)
}

fn full_disk() -> DiskFull {
    DiskFull::of_io("/c/x".as_ref(), Written::Cache, &no_space()).expect("ENOSPC is a full disk")
}

fn build(source: IndexError) -> SessionError {
    SessionError::Build {
        bank: PathBuf::from("b.sqlite3"),
        source,
    }
}

fn no_solution() -> SessionError {
    SessionError::NoSolution {
        notebook: PathBuf::from("a.ipynb"),
        listed: false,
        source: Box::new(InferError::NoSolution {
            tried: vec![
                PassedOver {
                    python: py(8),
                    why: "pandas==2.0 needs numpy>=1.22\n".into(),
                    sdists_refused: Vec::new(),
                },
                PassedOver {
                    python: py(6),
                    why: "no pandas for Python 3.6 has DataFrame.map".into(),
                    sdists_refused: Vec::new(),
                },
            ],
        }),
    }
}

#[test]
fn no_solution_is_its_status_with_each_python_tried() {
    let expected = (
        Status::NoSolution,
        ErrorKind::NoSolution,
        "Python 3.8: pandas==2.0 needs numpy>=1.22\nPython 3.6: no pandas for Python 3.6 has DataFrame.map"
            .to_string(),
    );
    assert_eq!(recorded(no_solution()), expected);
    // The same held by a restoration's round.
    assert_eq!(recorded(RoundError::Session(no_solution())), expected);
    // No Python nbenv knows fits the code: nothing to install would help.
    let none = SessionError::from(InferError::NoInterpreter {
        allowed: PythonRange::default(),
        reach: Reach::Known,
    });
    let (status, kind, _) = recorded(none);
    assert_eq!((status, kind), (Status::NoSolution, ErrorKind::NoSolution));
}

#[test]
fn an_interruption_is_no_record() {
    let interrupted = SessionError::Interrupted {
        kept: 3,
        left: 2,
        noun: "releases",
    };
    assert_eq!(Failure::of(&interrupted.into(), LIMIT), Failure::Stopped);
    let resolving = RoundError::Session(InferError::Interrupted.into());
    assert_eq!(Failure::of(&resolving.into(), LIMIT), Failure::Stopped);
}

#[test]
fn a_full_disk_stops_the_batch_wherever_it_is_in_the_chain() {
    // Under a bank error, which would be an unusable bank on its own.
    let bank = build(IndexError::Store(StoreError::DiskFull(full_disk())));
    assert_eq!(Failure::of(&bank.into(), LIMIT), Failure::DiskFull);
    let cache = RoundError::Session(build(IndexError::Index(PypiError::DiskFull(full_disk()))));
    assert_eq!(Failure::of(&cache.into(), LIMIT), Failure::DiskFull);
    let env = RoundError::Env(crate::verify::EnvError::DiskFull(full_disk()));
    assert_eq!(Failure::of(&env.into(), LIMIT), Failure::DiskFull);
    // A release whose page failed for it, carried as its kind.
    let page = build(IndexError::Page {
        reason: "no space".into(),
        kind: FailureKind::DiskFull,
    });
    assert_eq!(Failure::of(&page.into(), LIMIT), Failure::DiskFull);
    // ENOSPC from no write of nbenv's is no full disk (`unshare` says it when user namespaces
    // run out): the notebook's record says it.
    let run = RoundError::Run {
        notebook: PathBuf::from("a.ipynb"),
        source: RunError::Scratch(no_space()),
    };
    let (status, kind, _) = recorded(run);
    assert_eq!((status, kind), (Status::Error, ErrorKind::Other));
}

#[test]
fn past_the_limit_is_a_timeout() {
    assert_eq!(
        recorded(SessionError::OutOfTime),
        (
            Status::Timeout,
            ErrorKind::Timeout,
            "stopped past the limit of 300 s".to_string()
        )
    );
}

#[test]
fn a_python_not_installed_is_python_missing() {
    let round = RoundError::NotInstalled(NotInstalled { python: py(7) });
    let (status, kind, message) = recorded(round);
    assert_eq!((status, kind), (Status::Error, ErrorKind::PythonMissing));
    assert!(message.contains("Python 3.7"), "{message}");
    let none = SessionError::from(InferError::NoInterpreter {
        allowed: PythonRange::default(),
        reach: Reach::Installed,
    });
    assert_eq!(recorded(none).1, ErrorKind::PythonMissing);
}

#[test]
fn other_errors_are_kinds_of_their_cause_with_every_cause_said() {
    let network = build(IndexError::Index(PypiError::Network {
        url: "https://pypi.org/simple/six/".into(),
        attempts: 3,
        cause: "timed out".into(),
    }));
    assert_eq!(
        recorded(network),
        (
            Status::Error,
            ErrorKind::Network,
            "building the bank at b.sqlite3: request to https://pypi.org/simple/six/ failed after 3 attempt(s): timed out"
                .to_string()
        )
    );
    let missing = SessionError::Store(StoreError::Missing {
        path: PathBuf::from("b.sqlite3"),
    });
    assert_eq!(recorded(missing).1, ErrorKind::NotFound);
    let corrupt = RoundError::Session(SessionError::from(InferError::Evidence(
        EvidenceError::Bank(BankReadError::Store(StoreError::Corrupt {
            path: PathBuf::from("b.sqlite3"),
            what: "apis row (id 1)".into(),
        })),
    )));
    assert_eq!(recorded(corrupt).1, ErrorKind::Bank);
    let unknown = SessionError::from(InferError::Catalog(CatalogError::Releases {
        dist: "nosuchdist".parse().expect("a name"),
        source: PypiError::ProjectNotFound {
            name: "nosuchdist".into(),
            url: "https://pypi.org/simple/nosuchdist/".into(),
        },
    }));
    assert_eq!(recorded(unknown).1, ErrorKind::NotFound);
    let broken = SessionError::Notebook(crate::notebook::NotebookError::Empty {
        path: PathBuf::from("a.ipynb"),
        cells: 2,
    });
    assert_eq!(recorded(broken).1, ErrorKind::Empty);
}

//! A run as the bank keeps it ([`RunRecord`]): what was installed on which Python, how far the
//! notebook got, and which releases failed, so that later resolutions learn from it.

use std::path::Path;
use std::time::Duration;

use jiff::Timestamp;

use super::repair::Lesson;
use super::run::NotebookRun;
use crate::bank::store::{FailedRelease, RunOutcome, RunRecord};
use crate::notebook::failure::Failure;
use crate::python::PythonVersion;

/// What every record of one notebook run says, whatever its end.
#[derive(Debug, Clone)]
pub struct RunContext<'a> {
    pub notebook: &'a Path,
    pub command: &'static str,
    pub round: u32,
    pub python: PythonVersion,
    pub started_at: Timestamp,
    pub requirements: &'a str,
}

/// How the run ended.
#[derive(Debug, Clone, Copy)]
pub enum RunEnded<'a> {
    /// The notebook ran (to the end, or to `failure`).
    Ran {
        run: &'a NotebookRun,
        failure: Option<&'a Failure>,
    },
    /// The environment could not be built: the installer's report, classified.
    NotBuilt {
        failure: &'a Failure,
        detail: &'a str,
    },
}

/// The record of a run; `lessons` give the releases it found broken on its Python.
pub fn run_record(
    cx: &RunContext<'_>,
    ended: RunEnded<'_>,
    lessons: &[Lesson],
    took: Duration,
) -> RunRecord {
    let failed = lessons
        .iter()
        .filter_map(|l| match l {
            Lesson::Broken {
                dist,
                version,
                step,
            } => Some(FailedRelease {
                dist: dist.clone(),
                version: version.clone(),
                step: *step,
                detail: match ended {
                    RunEnded::Ran { failure, .. } => {
                        failure.map(ToString::to_string).unwrap_or_default()
                    }
                    RunEnded::NotBuilt { detail, .. } => tail(detail),
                },
            }),
            _ => None,
        })
        .collect();
    let (outcome, cells, failure, detail) = match ended {
        RunEnded::Ran { run, failure } => (
            if failure.is_none() && run.executability.complete() {
                RunOutcome::Ran
            } else {
                RunOutcome::Failed
            },
            Some(&run.executability),
            failure,
            failure.map(ToString::to_string),
        ),
        RunEnded::NotBuilt { failure, detail } => (
            RunOutcome::InstallFailed,
            None,
            Some(failure),
            Some(tail(detail)),
        ),
    };
    RunRecord {
        notebook: cx.notebook.display().to_string(),
        notebook_sha256: notebook_sha256(cx.notebook),
        command: cx.command,
        round: cx.round,
        python: cx.python,
        started_at: cx.started_at,
        seconds: took.as_secs_f64(),
        requirements: cx.requirements.to_string(),
        outcome,
        cells_run: cells.map(|e| e.cells_before_first_error),
        code_cells: cells.map(|e| e.code_cells),
        failure_class: failure.map(|f| f.class.as_str().to_string()),
        failure_kind: failure.and_then(kind_of),
        failure_cell: failure.and_then(|f| f.cell),
        detail,
        failed,
    }
}

/// The cause's name, as its JSON spells it (`missing_api`).
fn kind_of(f: &Failure) -> Option<String> {
    serde_json::to_value(&f.cause)
        .ok()?
        .get("cause")?
        .as_str()
        .map(str::to_string)
}

/// The last lines of an installer's report: where it says what failed.
fn tail(detail: &str) -> String {
    let lines: Vec<&str> = detail.lines().collect();
    lines[lines.len().saturating_sub(12)..].join("\n")
}

/// Stores `run` in the bank at `bank`. A bank that cannot take it (read-only, busy past the
/// wait) costs the record, not the run: said, and the work goes on.
pub fn store_run(bank: &Path, run: &RunRecord, reporter: &dyn crate::reporter::Reporter) {
    let stored = crate::bank::store::Store::open(bank).and_then(|mut store| store.record_run(run));
    if let Err(e) = stored {
        reporter.warn(&format!("the run was not recorded in the bank: {e}"), None);
    }
}

/// The sha256 of a notebook's bytes, which keys its run records; empty when it cannot be read.
pub fn notebook_sha256(notebook: &std::path::Path) -> String {
    std::fs::read(notebook)
        .map(|b| crate::pypi::hex_sha256(&b))
        .unwrap_or_default()
}

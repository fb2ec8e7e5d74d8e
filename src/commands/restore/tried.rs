//! How `--prefer modern`'s modern attempt fared, as `restore` reports it (and `--format json`
//! gives it).

use std::path::PathBuf;

use serde::Serialize;

use crate::modernize::forward::Met;
use crate::modernize::prefer::{Preferred, Why};
use crate::modernize::restoring::{Attempt, AttemptError};
use crate::modernize::trial::CandidatesKept;
use crate::modernize::Modernized;
use crate::restore::Stop;

#[derive(Debug, Serialize)]
pub struct Tried {
    pub why: Why,
    /// Changes the modernization made (in the notebook it ran last), and APIs it could not
    /// move.
    pub changes: usize,
    pub unmoved: usize,
    /// What became of changes only a warning names, when there were some.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<CandidatesKept>,
    /// The modernized notebook ran to its end.
    pub ran: bool,
    /// Why its rounds stopped, when they ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stop>,
    /// The cell and the exception its last run stopped at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ename: Option<String>,
    /// APIs its runs met missing, and whether its code moved past each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub met: Vec<Met>,
    /// Why it could not be modernized or restored at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The modernized notebook, written beside the input when it is the one kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<PathBuf>,
    /// Where its moved local modules were written beside it, when some moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modules_written: Option<PathBuf>,
}

impl Tried {
    /// What `done` says of the modern attempt (nothing is written yet).
    pub fn of(done: &Preferred<Modernized, Attempt, AttemptError>) -> Self {
        let mut tried = Tried {
            why: done.why,
            changes: 0,
            unmoved: 0,
            candidates: done.candidates,
            ran: false,
            stopped: None,
            cell: None,
            ename: None,
            met: Vec::new(),
            error: None,
            written: None,
            modules_written: None,
        };
        match &done.modernized {
            Some(Ok(m)) => {
                tried.changes = m.report.kept_changes(done.candidates);
                tried.unmoved = m.report.unmoved.len();
            }
            Some(Err(e)) => tried.error = Some(e.to_string()),
            None => {}
        }
        match &done.modern {
            Some(Ok(a)) => {
                // The code a run moved forward is the code that ran.
                if let Some(f) = &a.restored.forwarded {
                    tried.changes = f.modernized.report.kept_changes(done.candidates);
                    tried.unmoved = f.modernized.report.unmoved.len();
                    tried.met = f.met.clone();
                }
                tried.ran = a.ran();
                tried.stopped = Some(a.restored.stopped);
                if let Some(last) = a.restored.rounds.last() {
                    tried.cell = last.first_failure.as_ref().and_then(|f| f.cell);
                    tried.ename = last.ename.clone();
                }
            }
            Some(Err(e)) => tried.error = Some(e.to_string()),
            None => {}
        }
        tried
    }
}

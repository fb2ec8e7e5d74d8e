//! What happened to one cell.

use std::time::Duration;

use serde::{Serialize, Serializer};

use crate::notebook::failure::{Problem, Raised};
use crate::notebook::Output;

/// How a cell ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum CellStatus {
    Ok,
    /// It raised an exception ([`CellRun::error`]).
    Error,
    /// It ran past its own time limit.
    Timeout,
    /// The run's total time limit ended it.
    RunTimeout,
    /// The interpreter died from a signal while it ran.
    Killed {
        signal: Option<i32>,
    },
    /// The interpreter exited while it ran (`os._exit`).
    Exited {
        code: Option<i32>,
    },
}

/// One cell's run.
#[derive(Debug, Clone, Serialize)]
pub struct CellRun {
    /// The cell's number in the notebook.
    pub cell: u32,
    #[serde(flatten)]
    pub status: CellStatus,
    #[serde(serialize_with = "seconds")]
    pub duration: Duration,
    /// Captured stdout/stderr and displayed values (`text/plain`), in order, capped.
    pub outputs: Vec<Output>,
    /// Characters of output dropped beyond the cap.
    pub dropped: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Raised>,
    /// Install commands (`!pip install …`) the runner did not run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_installs: Vec<String>,
    /// Folders the cell's globs looked in that are not there (`data/train/pos`): the glob
    /// found nothing, and what fails after is the data's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub absent_folders: Vec<String>,
}

fn seconds<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 1000.0).round() / 1000.0)
}

impl CellRun {
    pub fn ok(&self) -> bool {
        self.status == CellStatus::Ok
    }

    /// What went wrong, for the classifier.
    pub fn problem(&self) -> Option<Problem> {
        match self.status {
            CellStatus::Ok => None,
            CellStatus::Error => Some(match &self.error {
                Some(e) => Problem::Raised(e.clone()),
                None => Problem::Raised(Raised {
                    ename: "Exception".into(),
                    evalue: String::new(),
                    frames: Vec::new(),
                }),
            }),
            CellStatus::Timeout => Some(Problem::TimedOut { whole_run: false }),
            CellStatus::RunTimeout => Some(Problem::TimedOut { whole_run: true }),
            CellStatus::Killed { signal } => Some(Problem::Killed { signal }),
            CellStatus::Exited { code } => Some(Problem::Exited { code }),
        }
    }
}

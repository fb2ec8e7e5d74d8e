//! One round of a restoration as its caller keeps it: what was resolved, how the run went,
//! what it taught; and the errors that end the rounds.

use std::path::PathBuf;

use serde::Serialize;

use crate::notebook::failure::Failure;
use crate::python::PythonVersion;
use crate::resolve::infer::Inference;
use crate::resolve::session::SessionError;
use crate::verify::{self, EnvError, Executability, Lesson, RunError};

/// One round: what was resolved, and how the run went.
#[derive(Debug, Serialize)]
pub struct Round {
    pub python: PythonVersion,
    pub requirements: String,
    /// `None` when the environment could not be built.
    pub executability: Option<Executability>,
    pub first_failure: Option<Failure>,
    /// The exception the run stopped at (`ModuleNotFoundError`), when one was raised.
    #[serde(skip)]
    pub ename: Option<String>,
    /// Cells whose stored text outputs the run printed the same, of those compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproduced: Option<(u32, u32)>,
    /// Why the environment could not be built.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install_error: Option<String>,
    pub learned: Vec<Lesson>,
    /// How the cells ran: through IPython (the kernel runtime, with its version) or plain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runner: Option<verify::RunnerMode>,
    /// The kernel runtime's lock, as installed beside the requirements (never in them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kernel_runtime: Vec<String>,
    /// The order its cells ran in: top to bottom, unless a run showed the author ran them
    /// otherwise.
    #[serde(skip_serializing_if = "crate::notebook::CellOrder::is_page")]
    pub order: crate::notebook::CellOrder,
    /// Seconds each stage took this round.
    pub seconds: Stages,
    /// The resolution, for callers that record it.
    #[serde(skip)]
    pub inference: Option<Box<Inference>>,
}

/// Seconds by stage: resolving (and indexing what the bank lacked), creating the venv,
/// installing into it (both zero when the environment was reused), running the notebook.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct Stages {
    pub resolution: f64,
    pub venv: f64,
    pub install: f64,
    pub run: f64,
}

/// The resolution chose a Python this machine does not have.
#[derive(Debug, thiserror::Error)]
#[error("the notebook resolved for Python {python}, which is not installed here: install it (pyenv install {python}) to run the notebook")]
pub struct NotInstalled {
    pub python: PythonVersion,
}

/// Why the rounds ended without a round to show.
#[derive(Debug, thiserror::Error)]
pub enum RoundError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    NotInstalled(#[from] NotInstalled),
    /// The interpreter the resolution chose could not be run.
    #[error(transparent)]
    Interpreter(#[from] crate::python::NotAnInterpreter),
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error("running {}", .notebook.display())]
    Run {
        notebook: PathBuf,
        #[source]
        source: RunError,
    },
}

/// The `name==version` lines of a requirements file.
pub fn pins_of(requirements: &str) -> Vec<&str> {
    requirements
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#') && !l.starts_with('-') && !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .map(|p| p.trim_end_matches('\\'))
        .collect()
}

impl RoundError {
    /// What a failed build ends the rounds with: an install cut short because the deadline
    /// came (its time limit is what was left of the notebook's) is running out of time, as
    /// a resolution stopped there is, not an installer's failure.
    pub fn of_build(e: EnvError, past_deadline: bool) -> Self {
        match e {
            EnvError::Venv(crate::python::VenvError::Timeout { .. }) if past_deadline => {
                RoundError::Session(SessionError::OutOfTime)
            }
            e => RoundError::Env(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::VenvError;

    fn timeout() -> EnvError {
        EnvError::Venv(VenvError::Timeout {
            what: "-r requirements.txt".into(),
            seconds: 69,
        })
    }

    #[test]
    fn an_install_cut_by_the_deadline_is_out_of_time() {
        assert!(matches!(
            RoundError::of_build(timeout(), true),
            RoundError::Session(SessionError::OutOfTime)
        ));
    }

    #[test]
    fn an_install_slower_than_its_own_limit_stays_an_install_error() {
        assert!(matches!(
            RoundError::of_build(timeout(), false),
            RoundError::Env(EnvError::Venv(VenvError::Timeout { .. }))
        ));
        let failed = EnvError::Install {
            python: "3.7".into(),
            detail: "no".into(),
        };
        assert!(matches!(
            RoundError::of_build(failed, true),
            RoundError::Env(EnvError::Install { .. })
        ));
    }
}

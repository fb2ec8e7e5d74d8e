//! What went wrong, as the classifier receives it: an exception (from a live run or stored in
//! the notebook), or the end of a process that never got to raise one.

use serde::{Deserialize, Serialize};

use super::context::FailureContext;
use super::frame::{Frame, FrameOrigin};
use super::traceback;
use crate::notebook::outputs::strip_ansi;

/// An exception: its type name, its message and its frames, outermost first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Raised {
    pub ename: String,
    pub evalue: String,
    #[serde(default)]
    pub frames: Vec<Frame>,
}

impl Raised {
    /// An error output stored in the notebook: its traceback lines are read into frames
    /// (execution counts mapped to cells through the notebook's stored counts).
    pub fn stored(ename: &str, evalue: &str, traceback: &[String], cx: &FailureContext) -> Self {
        Self {
            ename: strip_ansi(ename).into_owned(),
            evalue: strip_ansi(evalue).into_owned(),
            frames: traceback::parse(traceback, &|count| cx.cell_of_count(count)),
        }
    }

    /// Where it was raised.
    pub fn innermost(&self) -> Option<&Frame> {
        self.frames.last()
    }

    /// The library that raised it: that of the innermost frame outside the standard library,
    /// so `subprocess.check_output` raising for matplotlib is matplotlib's doing.
    pub fn raising_library(&self) -> Option<crate::names::ModulePath> {
        self.frames
            .iter()
            .rev()
            .find(|f| f.origin() != FrameOrigin::Stdlib)
            .and_then(Frame::library)
    }

    /// The innermost frame in notebook code.
    pub fn innermost_cell_frame(&self) -> Option<&Frame> {
        self.frames
            .iter()
            .rev()
            .find(|f| matches!(f.origin(), FrameOrigin::Cell(_)))
    }

    /// The exception's class name without its module (`requests.exceptions.HTTPError` →
    /// `HTTPError`).
    pub fn short_ename(&self) -> &str {
        self.ename.rsplit('.').next().unwrap_or(&self.ename)
    }
}

/// A failure to classify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    Raised(Raised),
    /// A cell ran past its time limit, or the run past its total one (`whole_run`).
    TimedOut {
        whole_run: bool,
    },
    /// The interpreter died from a signal (the OOM killer's SIGKILL, a segfault).
    Killed {
        signal: Option<i32>,
    },
    /// The interpreter exited in the middle of a cell (`os._exit`).
    Exited {
        code: Option<i32>,
    },
    /// Installing `what` failed; `detail` is the installer's output.
    InstallFailed {
        what: String,
        detail: String,
    },
}

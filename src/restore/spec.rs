//! How a restoration runs its rounds: the notebook, how far to repair, the limits, where
//! environments are kept and how they are installed, how each inference runs.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::notebook::Notebook;
use crate::python::{Installer, Tools};
use crate::resolve::session::InferRun;
use crate::verify::DiskBudget;

/// How to run the rounds.
#[derive(Clone)]
pub struct RoundsSpec<'a> {
    pub notebook: &'a Path,
    pub nb: &'a Notebook,
    /// Rounds at most; 1 verifies without repairing.
    pub max_rounds: usize,
    pub allow_sdist: bool,
    pub kernel_runtime: bool,
    pub cell_timeout: Duration,
    /// Each run's limit.
    pub run_timeout: Duration,
    pub sandbox: bool,
    /// Where the environments are kept.
    pub envs: &'a Path,
    pub installer: &'a Installer,
    pub tools: &'a Tools,
    /// The index installers are given, where it is not PyPI.
    pub index_url: Option<String>,
    /// How each inference runs (a batch's deadline, shared caches, silence); its `failed`
    /// is replaced by what the rounds learn.
    pub infer: InferRun<'a>,
    /// `restore` or `batch`, for the run records.
    pub command: &'static str,
    /// What environments and nbenv's installer caches may hold together: room is made
    /// before each build, and what is kept is brought within it after.
    pub disk: Option<&'a DiskBudget>,
    /// Runs that may be building an environment at once, this one included (a batch's
    /// workers): room is made for as many.
    pub builders: usize,
    /// For a modernized notebook: its original, to move its code forward past what a run
    /// meets missing ([`crate::modernize::forward`]); `None` runs the code as it is.
    pub forward: Option<crate::modernize::forward::ForwardFrom<'a>>,
    /// Local modules whose moved text the runs read in place of the files (a modernized
    /// notebook's; see [`crate::notebook::FileOverride`]).
    pub overrides: &'a [crate::notebook::FileOverride],
}

impl RoundsSpec<'_> {
    /// What is left of `limit` before the deadline, if any.
    pub fn within(&self, limit: Duration) -> Duration {
        match self.infer.deadline {
            Some(d) => limit.min(d.saturating_duration_since(Instant::now())),
            None => limit,
        }
    }

    pub fn past_deadline(&self) -> bool {
        self.infer.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

//! The modernized notebook, written at its output, restored as `restore`
//! restores it; with its candidate changes first when it has some, kept only when it runs to
//! the end with them ([`crate::modernize::trial`]).

use std::path::Path;

use crate::modernize::restoring::Attempt;
use crate::modernize::trial::TrialSteps;
use crate::modernize::Modernized;
use crate::notebook::Notebook;
use crate::output::write_atomically;
use crate::reporter::Reporter;

use super::super::restore::{attempt, Original, RestoreSettings, Rig, Target};
use super::super::CommandError;

/// The modernized notebook restored at `output`, written with its candidates or without.
pub struct CandidateRuns<'a> {
    pub rig: &'a Rig,
    /// How the modernized notebook (at `output`) is restored.
    pub settings: &'a RestoreSettings,
    pub output: &'a Path,
    pub done: &'a Modernized,
    /// The input notebook and its bytes, for a run to move further forward.
    pub original: (&'a Notebook, &'a [u8]),
    pub reporter: &'a dyn Reporter,
}

impl TrialSteps for CandidateRuns<'_> {
    type Restored = Attempt;
    type Error = CommandError;

    fn restore(&mut self, candidates: bool) -> Result<Attempt, CommandError> {
        write_atomically(self.output, &self.done.written(candidates).notebook)?;
        let nb = crate::notebook::read(self.output)?;
        let target = Target {
            original: Some(Original {
                nb: self.original.0.clone(),
                bytes: self.original.1.to_vec(),
                candidates,
                modules: self.done.modules.clone(),
            }),
            ..Target::era(self.settings, nb)
        };
        attempt(self.rig, self.settings, target, self.reporter)
    }

    fn ran(&self, restored: &Attempt) -> bool {
        restored.ran()
    }
}

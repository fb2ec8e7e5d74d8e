//! Stage restore with `--prefer modern`: each notebook modernized with the bank's facts and
//! restored on the newest installed Python first, in its era when that does not run to the
//! end, both within the notebook's one time limit. The order and the fallback are the
//! library's ([`crate::modernize::prefer::prefer`]); the modernized copy is removed after
//! each notebook (a killed batch's copies carry nbenv's temporary names, and the next
//! modernized copy written in that directory removes them).

use crate::bank::store::Store;
use crate::measure::record::ModernAttempt;
use crate::modernize::prefer::{PreferSteps, Preferred};
use crate::modernize::{modernize, Facts, ModernizeError, Modernized};
use crate::notebook::{Notebook, NotebookError, Usage};
use crate::resolve::options::InferOptions;
use crate::restore::{restore, Restored, RoundsSpec, Stop};

use super::{Batch, Job, Runner, StageError};

/// Why an attempt gave no rounds.
#[derive(Debug, thiserror::Error)]
pub enum AttemptError {
    #[error(transparent)]
    Stage(#[from] StageError),
    #[error(transparent)]
    Modernize(#[from] ModernizeError),
    #[error(transparent)]
    Notebook(#[from] NotebookError),
    #[error("writing the modernized notebook beside the original: {0}")]
    Copy(#[from] std::io::Error),
    #[error("no Python interpreter is installed to run the modernized notebook")]
    NoPython,
    #[error("the batch was stopped")]
    Stopped,
    #[error("indexing the evidence of the moves: {0}")]
    Evidence(crate::modernize::prepare::PrepareError),
}

/// A batch's steps for one notebook.
pub(super) struct Steps<'a, 'b> {
    pub batch: &'a Batch<'b>,
    pub runner: &'a Runner,
    pub job: &'a Job<'a>,
    /// The notebook as it is, and what its era's rounds run with.
    pub nb: &'a Notebook,
    pub infer_args: &'a InferOptions,
    pub usages: &'a mut Vec<(String, Usage)>,
    pub spec: &'a RoundsSpec<'a>,
}

impl PreferSteps for Steps<'_, '_> {
    type Modernized = Modernized;
    type Restored = Restored;
    type Error = AttemptError;

    fn modernize(&mut self) -> Result<Modernized, AttemptError> {
        // What the moves need to be seen, indexed as `nbenv modernize` indexes it (unless the
        // batch never indexes), within the notebook's time.
        let indexing = self.infer_args.indexing != crate::resolve::options::Indexing::Never;
        if let Some(session) = self.batch.session.filter(|s| indexing && !s.offline) {
            let within = match self.infer_args.introspect {
                crate::resolve::options::Introspect::Within(d) => d,
                crate::resolve::options::Introspect::Never => std::time::Duration::ZERO,
            };
            crate::modernize::prepare::index_evidence(
                session,
                self.infer_args,
                self.usages,
                self.spec.infer,
                within,
                self.batch.reporter,
            )
            .map_err(|e| match e {
                crate::modernize::prepare::PrepareError::Interrupted => AttemptError::Stopped,
                e => AttemptError::Evidence(e),
            })?;
        }
        // No bank: nothing is known to move, and the notebook still runs on today's Python.
        let facts = match &self.batch.bank_file {
            Some(file) => {
                let store = Store::open_read_only(file).map_err(ModernizeError::from)?;
                Facts::gather(&store, &self.usages[0].1).map_err(ModernizeError::from)?
            }
            None => Facts::default(),
        };
        let name = crate::modernize::prefer::modern_path(&self.job.input.file);
        Ok(modernize(
            self.nb,
            &self.job.bytes,
            &self.usages[0].1,
            &facts,
            &name.display().to_string(),
        )?)
    }

    fn has_candidates(&self, modern: &Modernized) -> bool {
        modern.has_candidates()
    }

    fn restore_modern(
        &mut self,
        modern: &Modernized,
        candidates: bool,
    ) -> Result<Restored, AttemptError> {
        let python = self.runner.modern_python.ok_or(AttemptError::NoPython)?;
        // Removed when this returns, whatever the rounds gave.
        let copy = crate::modernize::prefer::ModernCopy::beside(
            &self.job.input.file,
            &modern.written(candidates).notebook,
        )?;
        let nb = crate::notebook::read(copy.path())?;
        let usage = crate::notebook::analyze(&nb, &self.batch.analyze);
        let mut usages = self.job.with_local_imports(&self.batch.analyze, usage);
        let infer_args = InferOptions {
            notebook: copy.path().to_path_buf(),
            python: Some(python),
            // The newest installed first, then the next newest with a resolution.
            python_source: crate::resolve::options::PythonSource::NewestInstalled,
            // Today's releases: the notebook's era is the era attempt's.
            era: crate::resolve::options::EraChoice::Off,
            ..self.infer_args.clone()
        };
        let spec = RoundsSpec {
            notebook: copy.path(),
            nb: &nb,
            forward: Some(crate::modernize::forward::ForwardFrom {
                original: self.nb,
                bytes: &self.job.bytes,
                analyze: &self.batch.analyze,
                name: crate::modernize::prefer::modern_path(&self.job.input.file)
                    .display()
                    .to_string(),
                candidates,
            }),
            ..super::runs::spec(self.batch, self.runner, self.job, &nb)
        };
        let session = self.batch.session.expect("opened for the running stages");
        let restored = restore(
            self.batch.reporter,
            &infer_args,
            session,
            &mut usages,
            &spec,
        )
        .map_err(StageError::from)?;
        Ok(restored)
    }

    fn restore_era(&mut self) -> Result<Restored, AttemptError> {
        if crate::interrupt::requested() {
            return Err(AttemptError::Stopped);
        }
        let session = self.batch.session.expect("opened for the running stages");
        Ok(restore(
            self.batch.reporter,
            self.infer_args,
            session,
            self.usages,
            self.spec,
        )
        .map_err(StageError::from)?)
    }

    fn ran(&self, restored: &Restored) -> bool {
        restored.stopped == Stop::Ran
    }
}

/// How the modern attempt fared, as the record keeps it; `None` when it was not tried.
pub(super) fn attempt_of(
    done: &Preferred<Modernized, Restored, AttemptError>,
) -> Option<ModernAttempt> {
    let modernized = done.modernized.as_ref()?;
    let mut attempt = ModernAttempt {
        changes: 0,
        unmoved: 0,
        python3: 0,
        candidates: None,
        ran: false,
        stop: None,
        error: None,
        failure: None,
        kinds: Default::default(),
        met: 0,
        moved_by_runs: 0,
    };
    match modernized {
        Ok(m) => {
            attempt.changes = m.report.kept_changes(done.candidates);
            attempt.unmoved = m.report.unmoved.len();
            attempt.python3 = m.report.python3.converted.len();
            attempt.candidates = done.candidates;
        }
        Err(e) => attempt.error = Some(e.to_string()),
    }
    if let (Ok(m), Some(Ok(r))) = (modernized, &done.modern) {
        // The code a run moved forward is the code that ran.
        let report = r
            .forwarded
            .as_ref()
            .map_or(&m.report, |f| &f.modernized.report);
        attempt.changes = report.kept_changes(done.candidates);
        attempt.unmoved = report.unmoved.len();
        attempt.kinds = report.kept_kinds(done.candidates);
        attempt.met = report.met.len();
        attempt.moved_by_runs = report.met.iter().filter(|m| m.moved).count();
    }
    match &done.modern {
        Some(Ok(r)) => {
            attempt.ran = r.stopped == Stop::Ran;
            let failure = r.rounds.last().and_then(|l| l.first_failure.as_ref());
            attempt.stop = failure.map(|f| f.class);
            attempt.failure = failure.map(|f| f.located());
        }
        Some(Err(e)) => attempt.error = Some(e.to_string()),
        None => {}
    }
    Some(attempt)
}

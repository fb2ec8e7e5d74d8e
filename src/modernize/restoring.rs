//! The production steps of a preferred restoration ([`super::prefer::PreferSteps`]), once
//! for `restore --prefer modern` and for a batch's stage restore: the bank's facts read (after
//! indexing the evidence of the moves, where asked), the modernized notebook's rounds run on
//! a temporary copy beside the input, the era's rounds as the caller prepared them.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::prefer::{modern_path, ModernCopy, PreferSteps};
use super::{modernize, Facts, ModernizeError, Modernized};
use crate::notebook::{AnalyzeOptions, Notebook, NotebookError, Usage};
use crate::python::PythonVersion;
use crate::reporter::Reporter;
use crate::resolve::options::{EraChoice, InferOptions, PythonSource};
use crate::resolve::session::{InferRun, InferSession};
use crate::restore::{restore, Restored, RoundError, RoundsSpec, Stop};

/// Why an attempt gave no rounds.
#[derive(Debug, thiserror::Error)]
pub enum AttemptError {
    #[error(transparent)]
    Round(#[from] RoundError),
    #[error(transparent)]
    Modernize(#[from] ModernizeError),
    #[error(transparent)]
    Notebook(#[from] NotebookError),
    #[error("writing the modernized notebook beside the original: {0}")]
    Copy(#[from] std::io::Error),
    #[error("no Python interpreter is installed to run the modernized notebook")]
    NoPython,
    #[error("stopped before the notebook was restored")]
    Stopped,
    #[error("indexing the evidence of the moves: {0}")]
    Evidence(super::prepare::PrepareError),
}

/// One restoration's rounds, with the notebook they ran.
pub struct Attempt {
    /// The notebook as the rounds read it: the input, or the modernized notebook's temporary
    /// copy (removed by now).
    pub notebook: PathBuf,
    pub nb: Notebook,
    /// Reading and analysing that notebook, once for all rounds.
    pub analysis: Duration,
    pub restored: Restored,
}

impl Attempt {
    /// Whether the last round ran the notebook to its end.
    pub fn ran(&self) -> bool {
        self.restored.stopped == Stop::Ran
    }

    /// Removes every environment these rounds built: another attempt is kept.
    pub fn discard(&self, envs: &Path) {
        for root in &self.restored.built {
            crate::verify::remove_unused(envs, root);
        }
    }
}

/// What is indexed before modernizing, so that the moves can be seen: the notebook's own
/// inference, then the releases around each used API's disappearance
/// ([`super::prepare::index_evidence`]).
pub struct Evidence<'a> {
    pub options: InferOptions,
    pub run: InferRun<'a>,
    /// What introspection may take in all.
    pub within: Duration,
}

/// The notebook as it is, what its era's rounds run with, and how the modern attempt runs.
pub struct Restoring<'a> {
    pub reporter: &'a dyn Reporter,
    pub session: &'a InferSession,
    /// The notebook as given, as read, and its bytes.
    pub input: &'a Path,
    pub nb: &'a Notebook,
    pub bytes: &'a [u8],
    /// How the modernized notebook's code is read.
    pub analyze: &'a AnalyzeOptions,
    /// The era's inference, its usages (the notebook's and its local modules') and rounds.
    pub options: &'a InferOptions,
    pub usages: &'a mut Vec<(String, Usage)>,
    pub spec: &'a RoundsSpec<'a>,
    /// The era's reading and analysis of the notebook.
    pub analysis: Duration,
    /// The modern attempt's Python (`--python`, else the newest installed), and who chose it.
    pub modern_python: Option<PythonVersion>,
    pub modern_source: PythonSource,
    /// Indexing before modernizing; `None` reads the bank as it is.
    pub evidence: Option<Evidence<'a>>,
    /// The bank's file, when there is one: no bank, nothing is known to move.
    pub bank: Option<&'a Path>,
    /// The Python the modern attempt ran on last (the one asked, or one below it the rounds
    /// moved to).
    pub ran_on: Option<PythonVersion>,
}

impl PreferSteps for Restoring<'_> {
    type Modernized = Modernized;
    type Restored = Attempt;
    type Error = AttemptError;

    fn modernize(&mut self) -> Result<Modernized, AttemptError> {
        if let Some(e) = &self.evidence {
            super::prepare::index_evidence(
                self.session,
                &e.options,
                self.usages,
                e.run,
                e.within,
                self.reporter,
            )
            .map_err(|e| match e {
                super::prepare::PrepareError::Interrupted => AttemptError::Stopped,
                e => AttemptError::Evidence(e),
            })?;
        }
        // No bank: nothing is known to move, and the notebook still runs on today's Python.
        let (facts, modules) = match self.bank.filter(|b| b.exists()) {
            Some(file) => {
                let store = crate::bank::store::Store::open_read_only(file)
                    .map_err(ModernizeError::from)?;
                (
                    Facts::gather(&store, &self.usages[0].1).map_err(ModernizeError::from)?,
                    super::modules::modernize_modules(&store, self.usages)
                        .map_err(ModernizeError::from)?,
                )
            }
            None => (Facts::default(), Vec::new()),
        };
        let name = modern_path(self.input).display().to_string();
        Ok(modernize(self.nb, self.bytes, &self.usages[0].1, &facts, &name)?.with_modules(modules))
    }

    fn has_candidates(&self, modern: &Modernized) -> bool {
        modern.has_candidates()
    }

    fn restore_modern(
        &mut self,
        modern: &Modernized,
        candidates: bool,
    ) -> Result<Attempt, AttemptError> {
        let python = self.modern_python.ok_or(AttemptError::NoPython)?;
        self.ran_on = Some(python);
        // Removed when this returns, whatever the rounds gave.
        let copy = ModernCopy::beside(self.input, &modern.written(candidates).notebook)?;
        let analysed = Instant::now();
        let nb = crate::notebook::read(copy.path())?;
        let usage = crate::notebook::analyze(&nb, self.analyze);
        let base = self.input.parent().unwrap_or(Path::new(""));
        let mut usages = crate::notebook::with_local_imports(
            self.usages[0].0.clone(),
            usage,
            self.analyze,
            base,
        );
        // The local modules as modernized: what the runs read in their place.
        let overrides = &modern.written(candidates).modules;
        crate::notebook::with_overrides(&mut usages, overrides, self.analyze);
        let analysis = analysed.elapsed();
        let options = InferOptions {
            notebook: copy.path().to_path_buf(),
            python: Some(python),
            python_source: self.modern_source,
            // Today's releases: the notebook's era is the era attempt's.
            era: EraChoice::Off,
            ..self.options.clone()
        };
        let spec = RoundsSpec {
            notebook: copy.path(),
            nb: &nb,
            forward: Some(super::forward::ForwardFrom {
                original: self.nb,
                bytes: self.bytes,
                analyze: self.analyze,
                name: modern_path(self.input).display().to_string(),
                candidates,
                modules: &modern.modules,
            }),
            overrides,
            ..self.spec.clone()
        };
        let restored = restore(self.reporter, &options, self.session, &mut usages, &spec)?;
        // The rounds may have climbed down to an older Python.
        if let Some((_, interpreter)) = &restored.last_env {
            self.ran_on = Some(interpreter.version);
        }
        Ok(Attempt {
            notebook: copy.path().to_path_buf(),
            nb,
            analysis,
            restored,
        })
    }

    fn restore_era(&mut self) -> Result<Attempt, AttemptError> {
        if crate::interrupt::requested() {
            return Err(AttemptError::Stopped);
        }
        let on = self
            .ran_on
            .map(|p| format!(" on Python {p}"))
            .unwrap_or_default();
        self.reporter.note(
            &format!(
                "the modernized notebook{on} did not run to the end: restoring the notebook in its era"
            ),
            None,
        );
        let restored = restore(
            self.reporter,
            self.options,
            self.session,
            self.usages,
            self.spec,
        )?;
        Ok(Attempt {
            notebook: self.spec.notebook.to_path_buf(),
            nb: self.nb.clone(),
            analysis: self.analysis,
            restored,
        })
    }

    fn ran(&self, restored: &Attempt) -> bool {
        restored.ran()
    }
}

//! A batch's stages: each one function from a notebook to its [`Record`]. Stage usage reads,
//! analyses and triages the notebook; stage infer also resolves its environment ([`infer`]);
//! stages verify and restore also run it, first as it was ([`Baseline`]), then in nbenv's
//! environment, round after round for restore, as `nbenv restore` does ([`runs`]). A notebook
//! that fails is a record, never the end of the batch; [`failure`] says which record, from
//! the error's type.

pub mod failure;
pub mod infer;
pub mod prefer;
pub mod runs;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use super::bank_cache::CachedBank;
use super::input::NotebookInput;
use super::record::{millis, ErrorKind, Record, Stage};
use super::resume::Done;
use super::usage_stage::{analyse, unreadable};
use crate::notebook::failure::{ApiHistory, BankHistory};
use crate::notebook::{AnalyzeOptions, Usage};
use crate::reporter::Reporter;
use crate::resolve::evidence::SharedBank;
use crate::resolve::options::InferOptions;
use crate::resolve::session::{InferSession, RememberingBank};
use crate::resolve::solver::IndexCatalog;

pub use failure::{Failure, StageError};
pub use runs::{Baseline, Runner};

/// What every notebook of a batch is measured with: worker threads share it.
pub struct Batch<'a> {
    pub stage: Stage,
    /// Wall-time limit per notebook.
    pub timeout: Duration,
    pub analyze: AnalyzeOptions,
    /// How inference runs, for any notebook (its own path is set for each).
    pub infer: InferOptions,
    /// What the output already holds: those notebooks are skipped.
    pub done: Done,
    /// Where the library says what happens; the record keeps what matters.
    pub reporter: &'a dyn Reporter,
    /// Opened for stage infer and later.
    pub session: Option<&'a InferSession>,
    /// The index as read so far, shared by every notebook's resolution.
    pub catalog: Option<IndexCatalog<'a>>,
    /// The bank's answers so far (forgotten whenever a notebook's inference writes it).
    pub bank: Option<CachedBank<SharedBank>>,
    /// The bank's file, when there is one: it tells errors another release would fix from
    /// the code's own.
    pub bank_file: Option<PathBuf>,
    /// What running notebooks needs (stages verify and restore).
    pub runner: Option<Runner>,
    /// The full disk (or quota) that stopped the batch.
    pub full_disk: FullDisk,
}

/// The full disk (or quota) that stopped a batch: no notebook after it would fare better,
/// and one recorded as failed for it would be skipped when the batch resumes.
#[derive(Debug, Default)]
pub struct FullDisk(Mutex<Option<StageError>>);

impl FullDisk {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<StageError>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps the first full disk met.
    fn keep(&self, e: StageError) {
        self.lock().get_or_insert(e);
    }

    /// Whether a full disk stopped the batch.
    pub fn met(&self) -> bool {
        self.lock().is_some()
    }

    /// The error of the full disk that stopped the batch, if one did.
    pub fn take(&self) -> Option<StageError> {
        self.lock().take()
    }
}

impl Batch<'_> {
    /// The bank's answers so far, as an inference reads them.
    fn remembered(&self) -> Option<&dyn RememberingBank> {
        self.bank.as_ref().map(|b| b as &dyn RememberingBank)
    }

    /// The bank, for one notebook's errors (opened on this thread when first asked).
    fn history(&self) -> Option<BankHistory> {
        self.bank_file.as_deref().map(BankHistory::at)
    }

    /// How inference runs for this notebook.
    fn infer_options(&self, notebook: &Path) -> InferOptions {
        InferOptions {
            notebook: notebook.to_path_buf(),
            ..self.infer.clone()
        }
    }

    /// Records why the stage could not go on for the notebook; `None` when the user stopped
    /// the batch, or a full disk did (nothing is written: the notebook is measured when it
    /// resumes).
    fn failed(&self, record: &mut Record, e: StageError) -> Option<()> {
        if crate::interrupt::requested() {
            return None;
        }
        match Failure::of(&e, self.timeout) {
            Failure::Stopped => None,
            Failure::DiskFull => {
                self.full_disk.keep(e);
                None
            }
            Failure::Recorded { status, error } => {
                record.status = status;
                record.error = Some(error);
                Some(())
            }
        }
    }
}

/// One notebook's work: its bytes read, its hash known, its time limit set.
pub struct Job<'a> {
    pub input: &'a NotebookInput,
    pub bytes: Vec<u8>,
    pub sha256: String,
    pub deadline: Instant,
}

impl Job<'_> {
    /// The notebook's usage, then those of the local modules it imports (as `infer` reads
    /// them).
    fn with_local_imports(&self, analyze: &AnalyzeOptions, usage: Usage) -> Vec<(String, Usage)> {
        let base = self.input.file.parent().unwrap_or(Path::new(""));
        crate::notebook::with_local_imports(self.input.path.clone(), usage, analyze, base)
    }
}

/// What became of one notebook.
pub enum Outcome {
    /// Already in the output.
    Skipped,
    /// The user stopped the batch while it ran, or a full disk did: nothing written.
    Stopped,
    Measured(Box<Record>),
}

/// Reads the notebook, skips it if done, measures it at the batch's stage. A panic in nbenv
/// while measuring becomes the notebook's record, so one bug does not end a long batch.
pub fn measure_one(batch: &Batch<'_>, input: &NotebookInput) -> Outcome {
    let started = Instant::now();
    let bytes = match std::fs::read(&input.file) {
        Ok(b) => b,
        // Unreadable last time too: its record stands.
        Err(_) if batch.done.contains(&input.path, None, batch.stage) => return Outcome::Skipped,
        Err(e) => return Outcome::Measured(Box::new(unreadable(input, batch.stage, &e))),
    };
    let sha256 = format!("{:x}", Sha256::digest(&bytes));
    if batch.done.contains(&input.path, Some(&sha256), batch.stage) {
        return Outcome::Skipped;
    }
    let job = Job {
        input,
        bytes,
        sha256,
        deadline: started + batch.timeout,
    };
    let record = catch_unwind(AssertUnwindSafe(|| measurer(batch.stage)(batch, &job)));
    let mut record = match record {
        Ok(Some(r)) => r,
        Ok(None) => return Outcome::Stopped,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            let mut r = Record::new(input.path.clone(), Some(job.sha256.clone()), batch.stage);
            r.failed(ErrorKind::Internal, format!("nbenv failed on it: {what}"));
            r
        }
    };
    record.timings.total_ms = millis(started.elapsed());
    Outcome::Measured(Box::new(record))
}

/// A stage: a notebook's record, or `None` when the user stopped the batch while it ran
/// (nothing is written, so the next run measures it).
type Measure = fn(&Batch<'_>, &Job<'_>) -> Option<Record>;

/// The function of each stage.
fn measurer(stage: Stage) -> Measure {
    match stage {
        Stage::Usage => measure_usage,
        Stage::Infer => infer::measure_infer,
        Stage::Verify | Stage::Restore => runs::measure_runs,
    }
}

/// Stage usage: read, analyse, triage.
fn measure_usage(batch: &Batch<'_>, job: &Job<'_>) -> Option<Record> {
    Some(
        match analyse(
            job.input,
            &job.bytes,
            job.sha256.clone(),
            Stage::Usage,
            &batch.analyze,
            false,
            batch.history().as_ref().map(|h| h as &dyn ApiHistory),
        ) {
            Ok(a) => a.record,
            Err(record) => *record,
        },
    )
}

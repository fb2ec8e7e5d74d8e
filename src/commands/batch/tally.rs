//! The worker threads of a batch, and what their records say, counted for the summary.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::interrupt::Graceful;
use crate::measure::stages::{measure_one, Batch, Outcome};
use crate::measure::{pool, Appender, NotebookInput, Record, Status};
use crate::reporter::Reporter;

use super::super::CommandError;

/// What the records measured say.
#[derive(Debug, Default)]
pub struct Tally {
    /// Records by status: `ok` is a notebook the stage measured, whether or not it ran.
    pub statuses: BTreeMap<Status, usize>,
    /// Notebooks the stage ran (verify, restore), and how many of them ran to the end.
    pub run: usize,
    pub ran: usize,
}

impl Tally {
    fn add(&mut self, record: &Record) {
        *self.statuses.entry(record.status).or_default() += 1;
        if let Some(ran) = record.ran_to_end() {
            self.run += 1;
            self.ran += usize::from(ran);
        }
    }
}

/// What the worker threads did.
pub(super) struct Driven {
    pub written: usize,
    pub skipped: usize,
    pub tally: Tally,
    /// The pool stopped before the end (the user, or a full disk).
    pub stopped: bool,
}

/// Measures the notebooks on `jobs` worker threads, the reporter's task advancing and each
/// record appended as it comes.
pub(super) fn drive(
    batch: &Batch<'_>,
    jobs: usize,
    notebooks: &[NotebookInput],
    appender: Appender,
    reporter: &dyn Reporter,
) -> Result<Driven, CommandError> {
    let progress = reporter.task("notebooks", notebooks.len() as u64);
    let tally: Mutex<Tally> = Mutex::default();
    let skipped = AtomicUsize::new(0);
    let sink = appender.sink();
    let end = {
        let _graceful = Graceful::start();
        pool::run(notebooks, jobs, |nb| match measure_one(batch, nb) {
            Outcome::Skipped => {
                skipped.fetch_add(1, Ordering::Relaxed);
                progress.shrink();
                true
            }
            // Stopped by the user (the pool sees it too), or by a full disk.
            Outcome::Stopped => !batch.full_disk.met(),
            Outcome::Measured(record) => {
                tally
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .add(&record);
                progress.advance(&nb.path);
                sink.send(*record).is_ok()
            }
        })
    };
    drop(sink);
    progress.finish();
    Ok(Driven {
        written: appender.finish()?,
        skipped: skipped.into_inner(),
        tally: tally.into_inner().unwrap_or_default(),
        stopped: end.stopped,
    })
}

//! `batch`: many notebooks measured on worker threads, one JSONL record each, appended as
//! each finishes. A notebook that fails is a record, never the end of the batch; a batch run
//! again on the same output resumes. The stages are [`crate::measure::stages`]'; this finds
//! what they share once, drives the workers and returns what the summary says.

mod settings;
mod tally;

pub use settings::{cores, BatchSettings};
pub use tally::Tally;

use std::io::BufRead;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::measure::stages::{Batch, FullDisk, Runner, StageError};
use crate::measure::{expand, CachedBank, Done, Input, NotebookInput, Stage};
use crate::notebook::AnalyzeOptions;
use crate::reporter::{Reporter, Silent};
use crate::resolve::session::InferSession;
use crate::resolve::solver::IndexCatalog;

use super::{CommandError, GlobalSettings};

/// What a batch did, for its summary.
#[derive(Debug)]
pub struct BatchOutcome {
    /// The notebooks of the INPUTs, before the shard kept its own.
    pub corpus: usize,
    /// The notebooks this batch was given (its shard's).
    pub notebooks: usize,
    /// Records appended, and notebooks skipped as already recorded.
    pub written: usize,
    pub skipped: usize,
    pub tally: Tally,
    pub elapsed: Duration,
    /// Why the batch ended before its last notebook, if it did.
    pub stop: Option<BatchStop>,
}

/// What ended a batch early; what was measured is recorded, and the next run resumes.
#[derive(Debug)]
pub enum BatchStop {
    /// A full disk (or quota): no notebook after it would fare better.
    FullDisk(StageError),
    /// The user asked (Ctrl-C); `left` notebooks were not measured.
    Interrupted { left: usize },
}

/// Measures the notebooks of `settings.inputs` (a `-` among them reads its list from
/// `stdin`), appending a record each to `settings.out`.
pub fn run(
    global: &GlobalSettings,
    settings: &BatchSettings,
    stdin: impl BufRead,
    reporter: &dyn Reporter,
) -> Result<BatchOutcome, CommandError> {
    let (corpus, notebooks) = notebooks(settings, stdin)?;
    let (done, appender) = open_output(&settings.out, reporter)?;

    let mut working = global.clone();
    working.index.offline |= settings.no_index();
    let session = if settings.stage >= Stage::Infer {
        Some(working.open_session(&settings.infer)?)
    } else {
        None
    };
    let batch = batch(settings, &working, done, session.as_ref());

    let started = Instant::now();
    let driven = tally::drive(&batch, settings.jobs, &notebooks, appender, reporter)?;
    let stop = match batch.full_disk.take() {
        Some(e) => Some(BatchStop::FullDisk(e)),
        None if driven.stopped && crate::interrupt::requested() => Some(BatchStop::Interrupted {
            left: notebooks
                .len()
                .saturating_sub(driven.written + driven.skipped),
        }),
        None => None,
    };
    Ok(BatchOutcome {
        corpus,
        notebooks: notebooks.len(),
        written: driven.written,
        skipped: driven.skipped,
        tally: driven.tally,
        elapsed: started.elapsed(),
        stop,
    })
}

/// The notebooks of the INPUTs, and how many there are before keeping the shard's.
fn notebooks(
    settings: &BatchSettings,
    stdin: impl BufRead,
) -> Result<(usize, Vec<NotebookInput>), CommandError> {
    let inputs: Vec<Input> = settings.inputs.iter().map(|p| Input::classify(p)).collect();
    let all = expand(&inputs, stdin)?;
    let corpus = all.len();
    let notebooks = match settings.shard {
        Some(shard) => all
            .into_iter()
            .filter(|n| shard.contains(&n.path))
            .collect(),
        None => all,
    };
    Ok((corpus, notebooks))
}

/// What the output holds already (said when a line of it is cut short or not a record), and
/// the output opened to append to.
fn open_output(
    out: &Path,
    reporter: &dyn Reporter,
) -> Result<(Done, crate::measure::Appender), CommandError> {
    let done = Done::read(out).map_err(|source| CommandError::Records {
        path: out.to_path_buf(),
        source,
    })?;
    if let Some(t) = done.truncated {
        reporter.note(
            &format!(
                "{}:{}: ignoring a last line cut short ({} bytes, left by an interrupted run); it is cut off and its notebook measured again",
                out.display(),
                t.line,
                t.bytes
            ),
            None,
        );
    }
    for line in &done.malformed {
        reporter.warn(
            &format!("{}:{line}: not a record (ignored)", out.display()),
            None,
        );
    }
    let keep = done.truncated.map(|_| done.valid_len);
    let appender = crate::measure::Appender::open(out, keep)?;
    Ok((done, appender))
}

/// What every notebook is measured with. Workers say nothing while the bar is drawn: they
/// report to [`Silent`], and the record keeps what matters.
fn batch<'a>(
    settings: &BatchSettings,
    working: &GlobalSettings,
    done: Done,
    session: Option<&'a InferSession>,
) -> Batch<'a> {
    Batch {
        stage: settings.stage,
        timeout: settings.timeout,
        infer: settings.infer.clone(),
        reporter: &Silent,
        done,
        analyze: AnalyzeOptions {
            python_versions: settings
                .python()
                .map_or_else(|| AnalyzeOptions::default().python_versions, |v| vec![v]),
            ..AnalyzeOptions::default()
        },
        session,
        catalog: session.map(|s| IndexCatalog::new(&s.client)),
        bank: session.map(|s| CachedBank::new(s.bank.clone())),
        bank_file: Some(working.bank.clone()).filter(|p| p.exists()),
        runner: (settings.stage >= Stage::Verify).then(|| runner(settings, working)),
        full_disk: FullDisk::default(),
    }
}

/// The installer and where environments are kept, found once for the batch, and how
/// notebooks run.
fn runner(settings: &BatchSettings, working: &GlobalSettings) -> Runner {
    let interpreters = crate::python::found();
    let tools = working.tools(interpreters);
    let (installer, _) = tools.installer();
    let envs = working.cache_dir.join(super::global::ENVS_DIR);
    Runner {
        disk: working.disk_budget(&envs, &installer),
        builders: settings.jobs,
        tools,
        installer,
        envs,
        index_url: working.index_url_if_not_pypi(),
        before: settings.before.clone(),
        max_rounds: settings.max_rounds,
        allow_sdist: settings.allow_sdist(),
        kernel_runtime: settings.kernel_runtime,
        cell_timeout: settings.cell_timeout,
        sandbox: settings.sandbox,
        prefer: settings.prefer,
        modern_python: settings
            .python()
            .or_else(|| crate::modernize::newest(interpreters)),
    }
}

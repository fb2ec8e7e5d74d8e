//! `nbenv batch INPUT... --out FILE`: many notebooks measured on worker threads, one JSONL
//! record each, appended as each finishes. A notebook that fails is a record (status
//! `error`, `no_solution` or `timeout`), never the end of the batch; a batch run again on
//! the same output resumes; `--shard K/N` (or `--shard-index`) splits a corpus across machines.
//!
//! The stages themselves are the library's ([`nbenv::measure::stages`]): this reads the
//! options, finds what the stages share once, drives the worker threads and says the summary.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use clap::{Args, ValueEnum};

use nbenv::measure::stages::{measure_one, Baseline, Batch, FullDisk, Outcome, Runner};
use nbenv::measure::{
    expand, pool, Appender, CachedBank, Done, Input, InputError, NotebookInput, Shard, Stage,
    Status,
};
use nbenv::notebook::AnalyzeOptions;
use nbenv::python::PythonVersion;
use nbenv::reporter::Silent;
use nbenv::resolve::options::{DateCap, Indexing, InferOptions};
use nbenv::resolve::session::InferSession;
use nbenv::resolve::solver::IndexCatalog;

use super::context;
use super::context::Global;
use super::exit::CliError;
use super::interrupt::{self, Graceful};
use super::output::count;
use super::progress::Progress;

#[derive(Debug, Args)]
pub struct BatchArgs {
    /// Directories (searched recursively for `.ipynb`), notebooks, list files (one path per
    /// line; relative paths are read from the list's folder), or `-` for a list on standard
    /// input. Records name each notebook by its path relative to its INPUT.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// The JSONL file each notebook's record is appended to. Notebooks it already has a
    /// record for (same path, same content, same stage) are skipped.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// How far to take each notebook: `usage` reads and triages it; `infer` also resolves
    /// its environment (indexing what the bank lacks, unless --no-index); `verify` also
    /// builds that environment and runs the notebook in it; `restore` also repairs what the
    /// run reveals, round after round.
    #[arg(long, value_enum, default_value_t = BatchStage::Infer, value_name = "STAGE")]
    pub stage: BatchStage,
    /// Notebooks measured at once. Default: the number of cores.
    #[arg(long, value_name = "N", value_parser = super::args::positive)]
    pub jobs: Option<usize>,
    /// Only the K-th of N shards, K counted from 1 (as nextest's --partition): the
    /// notebooks whose path relative to their INPUT hashes there. N machines running 1/N …
    /// N/N cover a corpus once.
    #[arg(long, value_name = "K/N", conflicts_with = "shard_index")]
    pub shard: Option<Shard>,
    /// The same, K counted from 0 (0/N … N-1/N), as Kubernetes' JOB_COMPLETION_INDEX and
    /// most array jobs count.
    #[arg(long, value_name = "K/N", value_parser = Shard::from_zero)]
    pub shard_index: Option<Shard>,
    /// Wall-time limit per notebook, in seconds. Inference stops at its next step (reading
    /// the bank, an indexing round, a resolution) once past it; the record says `timeout`.
    #[arg(long, value_name = "SECS", default_value_t = 300, value_parser = seconds)]
    pub timeout: u64,
    /// Resolve every notebook for this Python (X.Y).
    #[arg(long, value_name = "X.Y", value_parser = super::args::parse_python)]
    pub python: Option<PythonVersion>,
    /// Ignore files uploaded after this date (YYYY-MM-DD or an RFC 3339 instant).
    #[arg(long, value_name = "DATE", value_parser = super::args::parse_date)]
    pub exclude_newer: Option<jiff::Timestamp>,
    /// Each notebook's era, preferred for every release chosen, as `infer --date`: `auto`
    /// (the default: its last commit, else its stored outputs), a date, or `none`.
    #[arg(long, value_name = "auto|DATE|none", default_value = "auto", value_parser = super::args::parse_era)]
    pub date: nbenv::resolve::options::EraChoice,
    /// Count releases that have only an sdist as installable.
    #[arg(long, conflicts_with = "wheels_only")]
    pub allow_sdist: bool,
    /// Nothing from sdists, not even pure-Python ones: a notebook without a resolution from
    /// wheels alone is `no_solution` rather than resolved again with sdists allowed (as
    /// `infer --wheels-only`).
    #[arg(long)]
    pub wheels_only: bool,
    /// Never index what the bank lacks, and never touch the network: resolve with what the
    /// bank and the cache hold (implies --offline).
    #[arg(long)]
    pub no_index: bool,
    /// Never run releases to settle what static reading cannot tell.
    #[arg(long)]
    pub no_introspect: bool,
    /// Seconds introspection may take in all, per resolution (a restore round is one): past
    /// them an answer static reading cannot give stays unknown and constrains nothing (`nbenv
    /// bank introspect` settles it without a limit). 0: introspect nothing.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub introspect_budget: u64,
    /// Do not read the repository's declarations beside each notebook.
    #[arg(long)]
    pub no_declarations: bool,
    /// Stages verify and restore: what each notebook runs in first, to measure it as it
    /// was: `bare` (a venv of the resolved Python with only the kernel runtime), the path
    /// of a Python interpreter (the environment the pipeline supplies), or `none`.
    #[arg(long, value_name = "ENV", default_value = "bare")]
    pub before: Baseline,
    /// Stage restore: rounds of infer, build and run at most.
    #[arg(long, default_value_t = 4, value_name = "N", value_parser = super::args::positive)]
    pub max_rounds: usize,
    /// Stages verify and restore: seconds each cell may take (within --timeout).
    #[arg(long, default_value_t = 600, value_name = "SECS", value_parser = seconds)]
    pub cell_timeout: u64,
    /// Stages verify and restore: run cells as plain Python, without the kernel runtime.
    #[arg(long)]
    pub no_kernel_runtime: bool,
    /// Stage restore: `era` restores each notebook as it is; `modern` first restores it
    /// modernized (as `restore --prefer modern`) on --python (else the newest installed), and
    /// in its era when that does not run to the end, within the same --timeout.
    #[arg(long, default_value = "era", value_name = "modern|era")]
    pub prefer: nbenv::modernize::prefer::Mode,
    #[command(flatten)]
    pub sandbox: super::args::SandboxArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BatchStage {
    Usage,
    Infer,
    Verify,
    Restore,
}

impl BatchStage {
    fn stage(self) -> Stage {
        match self {
            BatchStage::Usage => Stage::Usage,
            BatchStage::Infer => Stage::Infer,
            BatchStage::Verify => Stage::Verify,
            BatchStage::Restore => Stage::Restore,
        }
    }
}

fn seconds(s: &str) -> Result<u64, String> {
    super::args::positive(s).map(|n| n as u64)
}

pub fn run(global: &Global, args: &BatchArgs) -> Result<()> {
    let stage = args.stage.stage();
    if stage >= Stage::Verify {
        check_runs(args)?;
    }
    let (corpus, notebooks) = notebooks(args)?;
    let (done, appender) = open_output(global, args)?;

    // Without indexing, a batch reads the bank and the cache and never the network.
    let offline = global.offline() || args.no_index;
    let working = global.offline_if(offline);
    let session = if stage >= Stage::Infer {
        Some(working.open_session(&infer_args(args, Path::new(".")))?)
    } else {
        None
    };
    let batch = batch(args, &working, stage, done, session.as_ref());

    let started = Instant::now();
    let driven = drive(global, args, &batch, &notebooks, appender)?;
    let (written, skipped) = (driven.written, driven.skipped);
    super::printer::say(&summary(
        args,
        corpus,
        &notebooks,
        written,
        skipped,
        &driven.tally,
        started.elapsed(),
    ));
    if let Some(e) = batch.full_disk.take() {
        return Err(anyhow::Error::new(e).context(
            "the batch stopped; what was measured is recorded, and the next run resumes after it",
        ));
    }
    if driven.stopped && nbenv::interrupt::requested() {
        let left = notebooks.len().saturating_sub(written + skipped);
        return Err(interrupt::stopped(written, left, "notebooks").into());
    }
    Ok(())
}

/// Stages verify and restore: what running notebooks needs is there.
fn check_runs(args: &BatchArgs) -> Result<()> {
    args.sandbox.check()?;
    if let Baseline::Python(path) = &args.before {
        nbenv::python::Interpreter::at(path).map_err(|e| {
            CliError::usage(format!(
                "--before {}: not a Python interpreter: {e}",
                path.display()
            ))
        })?;
    }
    Ok(())
}

/// The notebooks of the INPUTs, and how many there are before keeping the shard's.
fn notebooks(args: &BatchArgs) -> Result<(usize, Vec<NotebookInput>)> {
    let inputs: Vec<Input> = args.inputs.iter().map(|p| Input::classify(p)).collect();
    let all = expand(&inputs, std::io::stdin().lock()).map_err(|e| match e {
        InputError::Missing { .. } => anyhow::Error::new(CliError::not_found(e.to_string())),
        InputError::SameName { .. } => CliError::usage(e.to_string()).into(),
        other => anyhow::Error::new(other),
    })?;
    let corpus = all.len();
    let notebooks = match args.shard.or(args.shard_index) {
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
fn open_output(global: &Global, args: &BatchArgs) -> Result<(Done, Appender)> {
    let done = Done::read(&args.out)
        .with_context(|| format!("reading what {} holds already", args.out.display()))?;
    if let Some(t) = done.truncated.filter(|_| !global.quiet) {
        super::printer::note(&format!(
            "{}:{}: ignoring a last line cut short ({} bytes, left by an interrupted run); it is cut off and its notebook measured again",
            args.out.display(),
            t.line,
            t.bytes
        ));
    }
    for line in &done.malformed {
        super::printer::warn(&format!(
            "{}:{line}: not a record (ignored)",
            args.out.display()
        ));
    }
    let keep = done.truncated.map(|_| done.valid_len);
    let appender = Appender::open(&args.out, keep)?;
    Ok((done, appender))
}

/// What every notebook is measured with. Workers say nothing while the bar is drawn: they
/// report to [`Silent`], and the record keeps what matters.
fn batch<'a>(
    args: &BatchArgs,
    working: &Global,
    stage: Stage,
    done: Done,
    session: Option<&'a InferSession>,
) -> Batch<'a> {
    Batch {
        stage,
        timeout: Duration::from_secs(args.timeout),
        infer: infer_args(args, Path::new(".")),
        reporter: &Silent,
        done,
        analyze: AnalyzeOptions {
            python_versions: args
                .python
                .map_or_else(|| AnalyzeOptions::default().python_versions, |v| vec![v]),
            ..AnalyzeOptions::default()
        },
        session,
        catalog: session.map(|s| IndexCatalog::new(&s.client)),
        bank: session.map(|s| CachedBank::new(s.bank.clone())),
        bank_file: Some(working.bank()).filter(|p| p.exists()),
        runner: (stage >= Stage::Verify).then(|| runner(args, working)),
        full_disk: FullDisk::default(),
    }
}

/// The installer and where environments are kept, found once for the batch, and how
/// notebooks run.
fn runner(args: &BatchArgs, working: &Global) -> Runner {
    let tools = working.tools(context::interpreters());
    let (installer, _) = tools.installer();
    let envs = working.cache_dir().join(super::verify::ENVS_DIR);
    Runner {
        disk: working.disk_budget(&envs, &installer),
        builders: jobs(args),
        tools,
        installer,
        envs,
        index_url: working.settings.index_url_if_not_pypi(),
        before: args.before.clone(),
        max_rounds: args.max_rounds,
        allow_sdist: args.allow_sdist,
        kernel_runtime: !args.no_kernel_runtime,
        cell_timeout: Duration::from_secs(args.cell_timeout),
        sandbox: args.sandbox.sandbox,
        prefer: args.prefer,
        modern_python: args
            .python
            .or_else(|| nbenv::modernize::newest(context::interpreters())),
    }
}

/// What the worker threads did.
struct Driven {
    written: usize,
    skipped: usize,
    tally: Tally,
    /// The pool stopped before the end (the user, or a full disk).
    stopped: bool,
}

/// What the records measured say, for the summary line.
#[derive(Debug, Default)]
struct Tally {
    /// Records by status: `ok` is a notebook the stage measured, whether or not it ran.
    statuses: BTreeMap<Status, usize>,
    /// Notebooks the stage ran (verify, restore), and how many of them ran to the end.
    run: usize,
    ran: usize,
}

impl Tally {
    fn add(&mut self, record: &nbenv::measure::Record) {
        *self.statuses.entry(record.status).or_default() += 1;
        if let Some(ran) = record.ran_to_end() {
            self.run += 1;
            self.ran += usize::from(ran);
        }
    }
}

/// Measures the notebooks on `--jobs` worker threads, the bar advancing and each record
/// appended as it comes.
/// Notebooks measured at once: `--jobs`, else the cores.
fn jobs(args: &BatchArgs) -> usize {
    args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

fn drive(
    global: &Global,
    args: &BatchArgs,
    batch: &Batch<'_>,
    notebooks: &[NotebookInput],
    appender: Appender,
) -> Result<Driven> {
    let jobs = jobs(args);
    let progress = Progress::new(&global.printer, notebooks.len() as u64, "notebooks");
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
                progress.advance(nb.path.clone());
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

/// `measured 3 notebooks in 272.0 s, 39.7 notebooks/h: 3 ok (measured); ran to the end: 2 of
/// 3; …`
fn summary(
    args: &BatchArgs,
    corpus: usize,
    notebooks: &[NotebookInput],
    written: usize,
    skipped: usize,
    tally: &Tally,
    elapsed: Duration,
) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        format!(", {}", rate(written, secs))
    } else {
        String::new()
    };
    let by_status: Vec<String> = tally
        .statuses
        .iter()
        .map(|(s, n)| format!("{n} {}", s.as_str()))
        .collect();
    let shard = args
        .shard
        .or(args.shard_index)
        .map(|s| format!("; shard {s}: {} of the {corpus}", notebooks.len()))
        .unwrap_or_default();
    if written == 0 {
        return format!(
            "nothing new to measure: {} already in {}{shard}",
            count(skipped, "notebook", "notebooks"),
            args.out.display()
        );
    }
    let mut line = format!(
        "measured {} in {secs:.1} s{rate}",
        count(written, "notebook", "notebooks"),
    );
    if !by_status.is_empty() {
        line.push_str(&format!(": {}", by_status.join(", ")));
        if tally.statuses.contains_key(&Status::Ok) {
            line.push_str(" (ok: measured, whether or not it ran)");
        }
    }
    if tally.run > 0 {
        line.push_str(&format!("; ran to the end: {} of {}", tally.ran, tally.run));
    }
    if skipped > 0 {
        line.push_str(&format!(
            "; {skipped} skipped (already in {})",
            args.out.display()
        ));
    }
    line.push_str(&shard);
    line.push_str(&format!("; records appended to {}", args.out.display()));
    line
}

/// Notebooks per second, minute or hour: the first unit whose figure is not below 1, so a
/// slow batch does not read `0.0 notebooks/s`.
fn rate(notebooks: usize, secs: f64) -> String {
    let per_second = notebooks as f64 / secs;
    let (figure, unit) = if per_second >= 1.0 {
        (per_second, "s")
    } else if per_second * 60.0 >= 1.0 {
        (per_second * 60.0, "min")
    } else {
        (per_second * 3600.0, "h")
    };
    format!("{figure:.1} notebooks/{unit}")
}

/// How inference runs for this notebook, from the batch's options.
fn infer_args(args: &BatchArgs, notebook: &Path) -> InferOptions {
    InferOptions {
        python: args.python,
        cap: args.exclude_newer.map_or(DateCap::None, DateCap::Before),
        era: args.date,
        sdists: super::args::sdists(args.allow_sdist, args.wheels_only),
        indexing: if args.no_index {
            Indexing::Never
        } else {
            Indexing::Needed
        },
        introspect: super::args::introspect(args.no_introspect, args.introspect_budget),
        declarations: !args.no_declarations,
        ..InferOptions::new(notebook.to_path_buf())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_in_the_first_unit_not_below_one() {
        assert_eq!(rate(18, 0.5), "36.0 notebooks/s");
        assert_eq!(rate(3, 90.0), "2.0 notebooks/min");
        assert_eq!(rate(3, 272.0), "39.7 notebooks/h");
    }
}

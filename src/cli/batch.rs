//! `nbenv batch INPUT... --out FILE`: many notebooks measured on worker threads, one JSONL
//! record each, appended as each finishes. A notebook that fails is a record (status
//! `error`, `no_solution` or `timeout`), never the end of the batch; a batch run again on
//! the same output resumes; `--shard K/N` (or `--shard-index`) splits a corpus across machines.
//!
//! Each stage is one function from a notebook to its record ([`measurer`]). The stages that
//! run notebooks (verify, restore) run each first as it is ([`Baseline`]: in a bare
//! environment, or the one the pipeline supplies), then in nbenv's environment, round after
//! round for restore, as `nbenv restore` does.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use clap::{Args, ValueEnum};
use sha2::{Digest, Sha256};

use nbenv::measure::record::{millis, RecordError, Requirement};
use nbenv::measure::usage_stage::unreadable;
use nbenv::measure::{
    add_resolution, analyse, expand, pool, record_runs, Analysed, Appender, CachedBank, Done,
    Environment, ErrorKind, Input, InputError, NotebookInput, Record, RunOutcome, Runs, Shard,
    Stage, Status,
};
use nbenv::notebook::failure::{ApiHistory, BankHistory, FailureContext};
use nbenv::notebook::{AnalyzeOptions, Usage};
use nbenv::python::PythonVersion;
use nbenv::resolve::evidence::SharedBank;
use nbenv::resolve::infer::{InferError, Inference};
use nbenv::resolve::interpreter::Reach;
use nbenv::resolve::options::{DateCap, Indexing, InferOptions};
use nbenv::resolve::solver::{IndexCatalog, RequiredBy};
use nbenv::verify::EnvPlan;

use super::args::GlobalArgs;
use super::context;
use super::exit::{code_for, infer_error_in, session_error_in, CliError, Code};
use super::interrupt::{self, Graceful};
use super::output::count;
use super::printer::Printer;
use super::progress::Progress;
use nbenv::reporter::Silent;
use nbenv::resolve::session::{
    infer_usages_with, InferRun, InferSession, RememberingBank, SessionError,
};
use nbenv::resolve::solver::Catalog;
use nbenv::restore::{restore, NotInstalled, Round, RoundError, RoundsSpec, Stop};

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
    #[arg(long, value_name = "X.Y", value_parser = super::usage::parse_python)]
    pub python: Option<PythonVersion>,
    /// Ignore files uploaded after this date (YYYY-MM-DD or an RFC 3339 instant).
    #[arg(long, value_name = "DATE", value_parser = super::infer::parse_date)]
    pub exclude_newer: Option<jiff::Timestamp>,
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
    #[command(flatten)]
    pub sandbox: super::verify::SandboxArg,
}

/// What a notebook runs in before nbenv's environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Baseline {
    /// A venv of the Python nbenv resolved, with nothing but the kernel runtime.
    Bare,
    /// The environment the pipeline supplies: this interpreter, as it is.
    Python(PathBuf),
    /// No run before: the first round stands for the notebook as it was.
    None,
}

impl std::str::FromStr for Baseline {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "bare" => Ok(Baseline::Bare),
            "none" => Ok(Baseline::None),
            "" => Err("expected `bare`, `none` or the path of a Python interpreter".into()),
            path => Ok(Baseline::Python(PathBuf::from(path))),
        }
    }
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

/// One notebook's work: its bytes read, its hash known, its time limit set.
struct Job<'a> {
    input: &'a NotebookInput,
    bytes: Vec<u8>,
    sha256: String,
    deadline: Instant,
}

/// A stage: a notebook's record, or `None` when the user stopped the batch while it ran
/// (nothing is written, so the next run measures it).
type Measure = fn(&Batch<'_>, &Job<'_>) -> Option<Record>;

/// The function of each stage.
fn measurer(stage: Stage) -> Measure {
    match stage {
        Stage::Usage => measure_usage,
        Stage::Infer => measure_infer,
        Stage::Verify | Stage::Restore => measure_runs,
    }
}

/// What every worker shares.
struct Batch<'a> {
    args: &'a BatchArgs,
    /// The global options, offline when indexing is off. Workers say nothing while the bar
    /// is drawn: they report to [`Silent`], and the record keeps what matters.
    working: GlobalArgs,
    stage: Stage,
    measure: Measure,
    done: Done,
    analyze: AnalyzeOptions,
    session: Option<&'a InferSession>,
    /// The index as read so far, shared by every notebook's resolution.
    catalog: Option<IndexCatalog<'a>>,
    /// The bank's answers so far (forgotten whenever a notebook's inference writes it).
    bank: Option<CachedBank<SharedBank>>,
    /// The bank's file, when there is one: it tells errors another release would fix from
    /// the code's own.
    bank_file: Option<PathBuf>,
    /// What running notebooks needs (stages verify and restore).
    runner: Option<Runner>,
    /// The full disk (or quota) that stopped the batch: no notebook after it would fare
    /// better, and one recorded as failed for it would be skipped when the batch resumes.
    disk_full: Mutex<Option<anyhow::Error>>,
}

impl Batch<'_> {
    fn disk_full(&self) -> std::sync::MutexGuard<'_, Option<anyhow::Error>> {
        self.disk_full
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The bank's answers so far, as an inference reads them.
    fn remembered(&self) -> Option<&dyn RememberingBank> {
        self.bank.as_ref().map(|b| b as &dyn RememberingBank)
    }

    /// The bank, for one notebook's errors (opened on this thread when first asked).
    fn history(&self) -> Option<BankHistory> {
        self.bank_file.as_deref().map(BankHistory::at)
    }
}

/// The installer and where environments are kept, found once for the batch.
struct Runner {
    tools: nbenv::python::Tools,
    installer: nbenv::python::Installer,
    envs: PathBuf,
    /// What the environments and nbenv's installer caches may hold together.
    disk: nbenv::verify::DiskBudget,
}

pub fn run(global: &GlobalArgs, args: &BatchArgs) -> Result<()> {
    let stage = args.stage.stage();
    let measure = measurer(stage);
    if stage >= Stage::Verify {
        args.sandbox.check()?;
        if let Baseline::Python(path) = &args.before {
            nbenv::python::Interpreter::at(path).map_err(|e| {
                CliError::usage(format!(
                    "--before {}: not a Python interpreter: {e}",
                    path.display()
                ))
            })?;
        }
    }
    let inputs: Vec<Input> = args.inputs.iter().map(|p| Input::classify(p)).collect();
    let all = expand(&inputs, std::io::stdin().lock()).map_err(|e| match e {
        InputError::Missing { .. } => anyhow::Error::new(CliError::not_found(e.to_string())),
        InputError::SameName { .. } => CliError::usage(e.to_string()).into(),
        other => anyhow::Error::new(other),
    })?;
    let corpus = all.len();
    let notebooks: Vec<NotebookInput> = match args.shard.or(args.shard_index) {
        Some(shard) => all
            .into_iter()
            .filter(|n| shard.contains(&n.path))
            .collect(),
        None => all,
    };

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

    // Without indexing, a batch reads the bank and the cache and never the network.
    let offline = global.offline || args.no_index;
    let working = GlobalArgs {
        offline,
        ..global.clone()
    };
    let session = if stage >= Stage::Infer {
        Some(context::open_session(
            &working,
            &infer_args(args, Path::new(".")),
            &Printer::of(&working),
        )?)
    } else {
        None
    };
    let batch = Batch {
        args,
        working: working.clone(),
        stage,
        measure,
        done,
        analyze: AnalyzeOptions {
            python_versions: args
                .python
                .map_or_else(|| AnalyzeOptions::default().python_versions, |v| vec![v]),
            ..AnalyzeOptions::default()
        },
        session: session.as_ref(),
        catalog: session.as_ref().map(|s| IndexCatalog::new(&s.client)),
        bank: session.as_ref().map(|s| CachedBank::new(s.bank.clone())),
        bank_file: Some(super::bank::bank_path(&working)).filter(|p| p.exists()),
        runner: (stage >= Stage::Verify).then(|| {
            let tools = context::tools(&working, context::interpreters());
            let (installer, _) = tools.installer();
            let envs = context::cache_dir(&working).join(super::verify::ENVS_DIR);
            Runner {
                disk: context::disk_budget(&working, &envs, &installer),
                tools,
                installer,
                envs,
            }
        }),
        disk_full: Mutex::new(None),
    };

    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let progress = Progress::new(&Printer::of(global), notebooks.len() as u64, "notebooks");
    let statuses: Mutex<BTreeMap<Status, usize>> = Mutex::default();
    let skipped = AtomicUsize::new(0);
    let sink = appender.sink();
    let started = Instant::now();
    let end = {
        let _graceful = Graceful::start();
        pool::run(&notebooks, jobs, |nb| match measure_one(&batch, nb) {
            Outcome::Skipped => {
                skipped.fetch_add(1, Ordering::Relaxed);
                progress.shrink();
                true
            }
            // Stopped by the user (the pool sees it too), or by a full disk.
            Outcome::Stopped => batch.disk_full().is_none(),
            Outcome::Measured(record) => {
                *statuses
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .entry(record.status)
                    .or_default() += 1;
                progress.advance(nb.path.clone());
                sink.send(*record).is_ok()
            }
        })
    };
    drop(sink);
    progress.finish();
    let written = appender.finish()?;
    let elapsed = started.elapsed();

    let statuses = statuses.into_inner().unwrap_or_default();
    let skipped = skipped.into_inner();
    super::printer::say(&summary(
        args, corpus, &notebooks, written, skipped, &statuses, elapsed,
    ));
    if let Some(e) = batch.disk_full().take() {
        return Err(e.context(
            "the batch stopped; what was measured is recorded, and the next run resumes after it",
        ));
    }
    if end.stopped && nbenv::interrupt::requested() {
        let left = notebooks.len().saturating_sub(written + skipped);
        return Err(interrupt::stopped(written, left, "notebooks").into());
    }
    Ok(())
}

/// `measured 17 notebooks in 1.2 s (13.8 notebooks/s): 14 ok, 3 error; …`
fn summary(
    args: &BatchArgs,
    corpus: usize,
    notebooks: &[NotebookInput],
    written: usize,
    skipped: usize,
    statuses: &BTreeMap<Status, usize>,
    elapsed: Duration,
) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        format!(", {:.1} notebooks/s", written as f64 / secs)
    } else {
        String::new()
    };
    let by_status: Vec<String> = statuses
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

enum Outcome {
    /// Already in the output.
    Skipped,
    /// The user stopped the batch while it ran: nothing written.
    Stopped,
    Measured(Box<Record>),
}

/// Reads the notebook, skips it if done, measures it at the batch's stage. A panic in nbenv
/// while measuring becomes the notebook's record, so one bug does not end a long batch.
fn measure_one(batch: &Batch<'_>, input: &NotebookInput) -> Outcome {
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
        deadline: started + Duration::from_secs(batch.args.timeout),
    };
    let record = catch_unwind(AssertUnwindSafe(|| (batch.measure)(batch, &job)));
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

/// Stage infer: the usage stage, then the environment resolved as `nbenv infer` resolves it
/// The notebook's usage, then those of the local modules it imports (as `infer` reads them).
fn with_local_imports(batch: &Batch<'_>, job: &Job<'_>, usage: Usage) -> Vec<(String, Usage)> {
    let mut usages = vec![(job.input.path.clone(), usage)];
    let base = job.input.file.parent().unwrap_or(Path::new(""));
    let modules = nbenv::notebook::local_imports(&usages, &batch.analyze, base);
    usages.extend(modules);
    usages
}

/// (lazily indexing what the bank lacks unless `--no-index`), within the time limit.
fn measure_infer(batch: &Batch<'_>, job: &Job<'_>) -> Option<Record> {
    let analysed = match analyse(
        job.input,
        &job.bytes,
        job.sha256.clone(),
        Stage::Infer,
        &batch.analyze,
        !batch.args.no_declarations,
        batch.history().as_ref().map(|h| h as &dyn ApiHistory),
    ) {
        Ok(a) => a,
        Err(record) => return Some(*record),
    };
    let mut record = analysed.record;
    let session = batch.session.expect("opened for stage infer");
    let started = Instant::now();
    let usages = with_local_imports(batch, job, analysed.usage);
    let result = infer_usages_with(
        &infer_args(batch.args, &job.input.file),
        session,
        &usages,
        &[],
        InferRun {
            deadline: Some(job.deadline),
            catalog: batch.catalog.as_ref().map(|c| c as &dyn Catalog),
            bank: batch.remembered(),
            failed: &[],
            reach: Reach::Known,
            skip_pythons: &[],
        },
        &Silent,
    );
    record.timings.infer_ms = Some(millis(started.elapsed()));
    match result {
        Ok(found) => {
            if let Some(t) = record.triage.as_mut() {
                add_resolution(t, &found.inference.evidence.imports);
            }
            record.environment = Some(environment(&found.inference));
        }
        Err(e) => failed(batch, &mut record, e.into())?,
    }
    Some(record)
}

/// Records why the stage could not go on for the notebook; `None` when the user stopped the
/// batch, or a full disk did (nothing is written: the notebook is measured when it resumes).
fn failed(batch: &Batch<'_>, record: &mut Record, e: anyhow::Error) -> Option<()> {
    if stopped_by_user(&e) {
        return None;
    }
    if code_for(&e) == Code::DiskFull {
        batch.disk_full().get_or_insert(e);
        return None;
    }
    let (e, timeout) = (&e, batch.args.timeout);
    if matches!(session_error_in(e), Some(SessionError::OutOfTime)) {
        record.status = Status::Timeout;
        record.error = Some(RecordError {
            kind: ErrorKind::Timeout,
            message: format!("stopped past the limit of {timeout} s"),
        });
    } else if let Some(why) = no_solution(e) {
        record.status = Status::NoSolution;
        record.error = Some(RecordError {
            kind: ErrorKind::NoSolution,
            message: why,
        });
    } else if e.chain().any(|c| {
        c.is::<NotInstalled>() || matches!(c.downcast_ref(), Some(RoundError::NotInstalled(_)))
    }) || matches!(infer_error_in(e), Some(InferError::NoInterpreter { .. }))
    {
        record.failed(ErrorKind::PythonMissing, format!("{e:#}"));
    } else {
        record.failed(error_kind(code_for(e)), format!("{e:#}"));
    }
    Some(())
}

/// Stages verify and restore: the notebook analysed and resolved as for stage infer, then
/// run in nbenv's environment, one round (verify) or round after round until it runs or
/// nothing more is learned (restore), and run as it was ([`Baseline`]) in the time left.
fn measure_runs(batch: &Batch<'_>, job: &Job<'_>) -> Option<Record> {
    let Analysed {
        mut record,
        notebook: nb,
        usage,
    } = match analyse(
        job.input,
        &job.bytes,
        job.sha256.clone(),
        batch.stage,
        &batch.analyze,
        !batch.args.no_declarations,
        batch.history().as_ref().map(|h| h as &dyn ApiHistory),
    ) {
        Ok(a) => a,
        Err(record) => return Some(*record),
    };
    let session = batch.session.expect("opened for the running stages");
    let runner = batch.runner.as_ref().expect("found for the running stages");
    let args = batch.args;
    let infer_args = infer_args(args, &job.input.file);
    let mut usages = with_local_imports(batch, job, usage);
    let spec = RoundsSpec {
        notebook: &job.input.file,
        nb: &nb,
        max_rounds: if batch.stage == Stage::Verify {
            1
        } else {
            args.max_rounds
        },
        allow_sdist: args.allow_sdist,
        kernel_runtime: !args.no_kernel_runtime,
        cell_timeout: Duration::from_secs(args.cell_timeout),
        run_timeout: Duration::from_secs(args.timeout),
        sandbox: args.sandbox.sandbox,
        envs: &runner.envs,
        installer: &runner.installer,
        tools: &runner.tools,
        index_url: super::context::index_url_if_not_pypi(&batch.working),
        infer: InferRun {
            deadline: Some(job.deadline),
            catalog: batch.catalog.as_ref().map(|c| c as &dyn Catalog),
            bank: batch.remembered(),
            failed: &[],
            // As restore: on the installed interpreters nearest where it last ran.
            reach: Reach::Installed,
            skip_pythons: &[],
        },
        command: "batch",
    };
    let rounds = match restore(&Silent, &infer_args, session, &mut usages, &spec) {
        Ok(r) => r,
        Err(e) => {
            failed(batch, &mut record, e.into())?;
            return Some(record);
        }
    };
    let inference = rounds
        .rounds
        .iter()
        .rev()
        .find_map(|r| r.inference.as_deref());
    if let Some(inference) = inference {
        if let Some(t) = record.triage.as_mut() {
            add_resolution(t, &inference.evidence.imports);
        }
        record.environment = Some(environment(inference));
    }
    let mut run_ms: f64 = rounds.rounds.iter().map(|r| r.seconds.run * 1e3).sum();
    record.timings.infer_ms = Some(
        rounds
            .rounds
            .iter()
            .map(|r| r.seconds.resolution * 1e3)
            .sum(),
    );

    let past = || Instant::now() >= job.deadline;
    let before = match (&args.before, rounds.rounds.first()) {
        (Baseline::None, _) | (_, None) => None,
        _ if past() => None,
        (baseline, Some(first)) => {
            let ran = Instant::now();
            let outcome = run_before(batch, runner, &spec, baseline, first, &usages[0].1);
            run_ms += ran.elapsed().as_secs_f64() * 1e3;
            outcome
        }
    };
    let outcome = |r: &Round| RunOutcome {
        executability: r.executability,
        failure: r.first_failure.clone(),
        ename: r.ename.clone(),
    };
    record_runs(
        &mut record,
        &Runs {
            before,
            rounds: rounds.rounds.iter().map(outcome).collect(),
            failed: rounds.failed.clone(),
        },
    );
    record.timings.run_ms = Some(run_ms);
    if rounds.stopped == Stop::TimeLimit
        || (args.before != Baseline::None && record.executability_before.is_none() && past())
    {
        record.status = Status::Timeout;
        record.error = Some(RecordError {
            kind: ErrorKind::Timeout,
            message: format!(
                "stopped past the limit of {} s after {}",
                args.timeout,
                count(rounds.rounds.len(), "round", "rounds")
            ),
        });
    }

    // Only the environment the notebook last ran in is worth keeping, within the budget.
    let last = rounds.last_env.as_ref().map(|(env, _)| env.root.clone());
    for root in rounds.built.iter().filter(|r| Some(*r) != last.as_ref()) {
        nbenv::verify::remove_unused(&runner.envs, root);
    }
    // Measuring what is kept walks every environment: only worth it when one was added.
    if let (Some(root), false) = (&last, rounds.built.is_empty()) {
        nbenv::verify::keep_within(&runner.disk, root);
    }
    Some(record)
}

/// The notebook run as it was: in a bare environment of the Python the first round used, or
/// with the pipeline's interpreter. `None` when that run could not be had (the bare
/// environment could not be built, the interpreter could not start).
fn run_before(
    batch: &Batch<'_>,
    runner: &Runner,
    spec: &RoundsSpec<'_>,
    baseline: &Baseline,
    first: &Round,
    usage: &nbenv::notebook::Usage,
) -> Option<RunOutcome> {
    let python = match baseline {
        Baseline::None => return None,
        Baseline::Python(path) => path.clone(),
        Baseline::Bare => {
            let installed = first.inference.as_ref()?.python.installed.clone()?;
            let plan = EnvPlan {
                interpreter: nbenv::python::Interpreter::at(&installed).ok()?,
                requirements: String::new(),
                only_binary: !spec.allow_sdist,
                index_url: super::context::index_url_if_not_pypi(&batch.working),
                kernel_runtime: spec.kernel_runtime,
                kernel_runtime_at_most: None,
                kernel_runtime_below: nbenv::notebook::ipython_bound(spec.nb).map(|b| b.below()),
            };
            let env = nbenv::verify::prepare(
                &plan,
                &runner.envs,
                &runner.installer,
                &runner.tools,
                Duration::from_secs(600),
            )
            .ok()?;
            let python = env.python.clone();
            return run_in(spec, &python, usage, batch.history(), Some(env));
        }
    };
    run_in(spec, &python, usage, batch.history(), None)
}

/// One run of the notebook with `python`, as the record counts it (`_env` held while it runs).
fn run_in(
    spec: &RoundsSpec<'_>,
    python: &Path,
    usage: &nbenv::notebook::Usage,
    bank: Option<BankHistory>,
    _env: Option<nbenv::verify::PreparedEnv>,
) -> Option<RunOutcome> {
    let options = nbenv::verify::RunOptions {
        cell_timeout: spec.within(spec.cell_timeout),
        total_timeout: spec.within(spec.run_timeout),
        sandbox: spec.sandbox,
        ..nbenv::verify::RunOptions::default()
    };
    let run = nbenv::verify::run_notebook(spec.nb, python, &options).ok()?;
    let version = run
        .python
        .unwrap_or_else(|| PythonVersion::parse("3").expect("a version"));
    let mut failures = FailureContext::new(spec.nb, usage).with_python(version);
    if let Some(bank) = &bank {
        failures = failures.with_bank(bank);
    }
    Some(RunOutcome {
        executability: Some(run.executability),
        failure: run.first_failure(&failures),
        ename: run.first_error_name().map(str::to_string),
    })
}

/// How inference runs for this notebook, from the batch's options.
fn infer_args(args: &BatchArgs, notebook: &Path) -> InferOptions {
    InferOptions {
        python: args.python,
        cap: args.exclude_newer.map_or(DateCap::None, DateCap::Before),
        sdists: super::infer::sdists(args.allow_sdist, args.wheels_only),
        indexing: if args.no_index {
            Indexing::Never
        } else {
            Indexing::Needed
        },
        introspect: super::infer::introspect(args.no_introspect, args.introspect_budget),
        declarations: !args.no_declarations,
        ..InferOptions::new(notebook.to_path_buf())
    }
}

fn stopped_by_user(e: &anyhow::Error) -> bool {
    nbenv::interrupt::requested() || code_for(e) == Code::Interrupted
}

/// Each interpreter tried and why it had no solution.
fn no_solution(e: &anyhow::Error) -> Option<String> {
    match infer_error_in(e) {
        Some(InferError::NoSolution { tried }) => Some(
            tried
                .iter()
                .map(|t| format!("Python {}: {}", t.python, t.why.trim_end()))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Some(InferError::Joint(j)) => Some(j.to_string()),
        Some(
            e @ InferError::NoInterpreter {
                reach: nbenv::resolve::interpreter::Reach::Known,
                ..
            },
        ) => Some(e.to_string()),
        _ => None,
    }
}

fn error_kind(code: Code) -> ErrorKind {
    match code {
        Code::NotFound => ErrorKind::NotFound,
        Code::Network => ErrorKind::Network,
        Code::BadArchive => ErrorKind::BadArchive,
        Code::Bank => ErrorKind::Bank,
        Code::NotebookBrokenJson => ErrorKind::BrokenJson,
        Code::NotANotebook => ErrorKind::NotANotebook,
        Code::NotebookEmpty => ErrorKind::Empty,
        Code::NotebookNotPython => ErrorKind::NotPython,
        Code::NotebookUnreadable => ErrorKind::Unreadable,
        _ => ErrorKind::Other,
    }
}

/// The resolution as the record keeps it: what the notebook asks for, and the rest.
fn environment(inference: &Inference) -> Environment {
    let (roots, rest): (Vec<_>, Vec<_>) = inference.solution.pins.iter().partition(|p| {
        p.required_by
            .iter()
            .any(|r| matches!(r, RequiredBy::Root { .. }))
    });
    let requirement = |p: &&nbenv::resolve::solver::Pin| Requirement {
        dist: p.dist.clone(),
        version: p.version.clone(),
    };
    Environment {
        python: inference.python.version,
        python_installed: inference.python.installed.is_some(),
        requirements: roots.iter().map(requirement).collect(),
        dependencies: rest.iter().map(requirement).collect(),
        built_from_sdist: inference
            .pure_sdists
            .iter()
            .chain(inference.sdist_fallback.iter().flat_map(|f| &f.built))
            .map(|(dist, version)| Requirement {
                dist: dist.clone(),
                version: version.clone(),
            })
            .collect(),
    }
}

//! Stages verify and restore: the notebook analysed and resolved as for stage infer, then run
//! in nbenv's environment, one round (verify) or round after round until it runs or nothing
//! more is learned (restore), and run as it was ([`Baseline`]) in the time left.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::infer::environment;
use super::{Batch, Job};
use crate::measure::record::{ErrorKind, Record, RecordError, Stage, Status};
use crate::measure::run_stage::{record_runs, RunOutcome, Runs};
use crate::measure::triage::add_resolution;
use crate::measure::usage_stage::{analyse, Analysed};
use crate::modernize::prefer::{prefer, Mode};
use crate::modernize::restoring::AttemptError;
use crate::notebook::failure::{ApiHistory, BankHistory, FailureContext};
use crate::notebook::{Notebook, Usage};
use crate::python::{Installer, Interpreter, PythonVersion, Tools};
use crate::reporter::count;
use crate::resolve::interpreter::Reach;
use crate::resolve::session::InferRun;
use crate::resolve::solver::Catalog;
use crate::restore::{restore, Restored, Round, RoundsSpec, Stop};
use crate::verify::{DiskBudget, EnvPlan, PreparedEnv, RunOptions};

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

/// What running notebooks needs, found once for the batch, and how they run.
pub struct Runner {
    pub tools: Tools,
    pub installer: Installer,
    /// Where environments are kept.
    pub envs: PathBuf,
    /// What the environments and nbenv's installer caches may hold together.
    pub disk: DiskBudget,
    /// Workers that may build environments at once.
    pub builders: usize,
    /// The index installers are given, where it is not PyPI.
    pub index_url: Option<String>,
    /// What each notebook runs in first.
    pub before: Baseline,
    /// Stage restore: rounds of infer, build and run at most.
    pub max_rounds: usize,
    /// Count releases that have only an sdist as installable.
    pub allow_sdist: bool,
    /// Run cells with the kernel runtime (rather than as plain Python).
    pub kernel_runtime: bool,
    /// What each cell may take (within the notebook's limit).
    pub cell_timeout: Duration,
    /// Run notebooks confined (no network, limits).
    pub sandbox: bool,
    /// Stage restore: each notebook modernized first, or in its era alone.
    pub prefer: Mode,
    /// The Python modernized notebooks run on: the batch's `--python`, else the newest
    /// installed.
    pub modern_python: Option<PythonVersion>,
}

pub(super) fn measure_runs(batch: &Batch<'_>, job: &Job<'_>) -> Option<Record> {
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
        batch.infer.declarations,
        batch.history().as_ref().map(|h| h as &dyn ApiHistory),
    ) {
        Ok(a) => a,
        Err(record) => return Some(*record),
    };
    let session = batch.session.expect("opened for the running stages");
    let runner = batch.runner.as_ref().expect("found for the running stages");
    let infer_args = batch.infer_options(&job.input.file);
    let mut usages = job.with_local_imports(&batch.analyze, usage);
    let spec = spec(batch, runner, job, &nb);
    let rounds = if batch.stage == Stage::Restore && runner.prefer == Mode::Modern {
        let mut steps =
            super::prefer::steps(batch, runner, job, &nb, &infer_args, &mut usages, &spec);
        let done = prefer(&mut steps, Mode::Modern);
        record.mode = Some(done.mode());
        record.modern = super::prefer::attempt_of(&done);
        if let (Mode::Era, Some(Ok(modern))) = (done.mode(), &done.modern) {
            modern.discard(&runner.envs);
        }
        if let Some(Ok(other)) = &done.set_aside {
            other.discard(&runner.envs);
        }
        let kept = match done.mode() {
            Mode::Modern => done.modern,
            Mode::Era => done.era,
        };
        kept.expect("the kept mode's attempt was made")
            .map(|a| a.restored)
    } else {
        if batch.stage == Stage::Restore {
            record.mode = Some(Mode::Era);
        }
        restore(batch.reporter, &infer_args, session, &mut usages, &spec)
            .map_err(AttemptError::from)
    };
    let rounds = match rounds {
        Ok(r) => r,
        Err(AttemptError::Round(e)) => {
            batch.failed(&mut record, e.into())?;
            return Some(record);
        }
        Err(e) => {
            if crate::interrupt::requested() {
                return None;
            }
            record.failed(ErrorKind::Other, e.to_string());
            return Some(record);
        }
    };
    add_resolutions(&mut record, &rounds);
    let mut run_ms: f64 = rounds.rounds.iter().map(|r| r.seconds.run * 1e3).sum();

    let past = || Instant::now() >= job.deadline;
    let before = match (&runner.before, rounds.rounds.first()) {
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
        || (runner.before != Baseline::None && record.executability_before.is_none() && past())
    {
        record.status = Status::Timeout;
        record.error = Some(RecordError {
            kind: ErrorKind::Timeout,
            message: format!(
                "stopped past the limit of {} s after {}",
                batch.timeout.as_secs(),
                count(rounds.rounds.len(), "round", "rounds")
            ),
        });
    }
    keep_last(runner, &rounds);
    Some(record)
}

/// How the notebook's rounds run: one for stage verify, as restore's for stage restore.
pub(super) fn spec<'a>(
    batch: &'a Batch<'_>,
    runner: &'a Runner,
    job: &'a Job<'_>,
    nb: &'a Notebook,
) -> RoundsSpec<'a> {
    RoundsSpec {
        notebook: &job.input.file,
        nb,
        max_rounds: if batch.stage == Stage::Verify {
            1
        } else {
            runner.max_rounds
        },
        allow_sdist: runner.allow_sdist,
        kernel_runtime: runner.kernel_runtime,
        cell_timeout: runner.cell_timeout,
        run_timeout: batch.timeout,
        sandbox: runner.sandbox,
        envs: &runner.envs,
        installer: &runner.installer,
        tools: &runner.tools,
        index_url: runner.index_url.clone(),
        infer: InferRun {
            deadline: Some(job.deadline),
            catalog: batch.catalog.as_ref().map(|c| c as &dyn Catalog),
            bank: batch.remembered(),
            failed: &[],
            // As restore: on the installed interpreters nearest where it last ran.
            reach: Reach::Installed,
            skip_pythons: &[],
            steer: &[],
        },
        command: "batch",
        disk: Some(&runner.disk),
        builders: runner.builders,
        forward: None,
        overrides: &[],
    }
}

/// The last round's resolution, as the record keeps it, and the time resolving took.
fn add_resolutions(record: &mut Record, rounds: &Restored) {
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
    record.timings.infer_ms = Some(
        rounds
            .rounds
            .iter()
            .map(|r| r.seconds.resolution * 1e3)
            .sum(),
    );
}

/// Only the environment the notebook last ran in is worth keeping (each build kept the
/// budget already).
fn keep_last(runner: &Runner, rounds: &Restored) {
    let last = rounds.last_env.as_ref().map(|(env, _)| env.root.clone());
    for root in rounds.built.iter().filter(|r| Some(*r) != last.as_ref()) {
        crate::verify::remove_unused(&runner.envs, root);
    }
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
    usage: &Usage,
) -> Option<RunOutcome> {
    let python = match baseline {
        Baseline::None => return None,
        Baseline::Python(path) => path.clone(),
        Baseline::Bare => {
            let installed = first.inference.as_ref()?.python.installed.clone()?;
            let interpreter = Interpreter::at(&installed).ok()?;
            let python = interpreter.version;
            let plan = EnvPlan {
                interpreter,
                requirements: String::new(),
                only_binary: !spec.allow_sdist,
                index_url: runner.index_url.clone(),
                kernel_runtime: spec.kernel_runtime,
                kernel_runtime_at_most: None,
                kernel_runtime_below: crate::notebook::ipython_bound(spec.nb, python)
                    .map(|b| b.below()),
                wheels: Vec::new(),
            };
            let env = crate::verify::prepare_within(
                &plan,
                &runner.envs,
                &runner.installer,
                &runner.tools,
                Duration::from_secs(600),
                Some(crate::verify::Budgeted {
                    budget: &runner.disk,
                    builders: runner.builders,
                    estimate: None,
                    reporter: &crate::reporter::Silent,
                }),
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
    usage: &Usage,
    bank: Option<BankHistory>,
    _env: Option<PreparedEnv>,
) -> Option<RunOutcome> {
    let options = RunOptions {
        cell_timeout: spec.within(spec.cell_timeout),
        total_timeout: spec.within(spec.run_timeout),
        sandbox: spec.sandbox,
        sys_path: usage.repository_paths(),
        ..RunOptions::default()
    };
    let run = crate::verify::run_notebook(spec.nb, python, &options).ok()?;
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

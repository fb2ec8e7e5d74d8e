//! The rounds of a restoration: infer, build the environment, run the notebook, and when it
//! stops at an environment error, turn the error into evidence and go again. `nbenv restore`
//! runs them for one notebook and prints them; `nbenv batch --stage verify|restore` runs them
//! on worker threads for many, within each notebook's time limit, and records them.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use serde::Serialize;

use nbenv::bank::store::ReleaseFailure;
use nbenv::names::DistName;
use nbenv::notebook::failure::{classify, BankHistory, Failure, FailureContext, Problem};
use nbenv::notebook::{Notebook, Usage};
use nbenv::output::requirements_txt;
use nbenv::python::{Installer, Interpreter, PythonVersion, Tools};
use nbenv::resolve::infer::{InferError, Inference};
use nbenv::resolve::interpreter::Reach;
use nbenv::verify::{
    self, run_record, EnvError, EnvPlan, Executability, Lesson, NotebookRun, PreparedEnv,
    RunContext, RunEnded, RunOptions,
};
use pep508_rs::pep440_rs::Version;

use super::args::GlobalArgs;
use super::infer::{infer_usages_with, InferArgs, InferRun, InferSession, OutOfTime};
use super::runs;
use super::verify::located;

/// One round: what was resolved, and how the run went.
#[derive(Debug, Serialize)]
pub(super) struct Round {
    pub python: PythonVersion,
    pub requirements: String,
    /// `None` when the environment could not be built.
    pub executability: Option<Executability>,
    pub first_failure: Option<Failure>,
    /// The exception the run stopped at (`ModuleNotFoundError`), when one was raised.
    #[serde(skip)]
    pub ename: Option<String>,
    /// Cells whose stored text outputs the run printed the same, of those compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproduced: Option<(u32, u32)>,
    /// Why the environment could not be built.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install_error: Option<String>,
    pub learned: Vec<Lesson>,
    /// How the cells ran: through IPython (the kernel runtime, with its version) or plain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runner: Option<verify::RunnerMode>,
    /// The kernel runtime's lock, as installed beside the requirements (never in them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kernel_runtime: Vec<String>,
    /// Seconds each stage took this round.
    pub seconds: Stages,
    /// The resolution, for callers that record it.
    #[serde(skip)]
    pub inference: Option<Box<Inference>>,
}

/// Seconds by stage: resolving (and indexing what the bank lacked), creating the venv,
/// installing into it (both zero when the environment was reused), running the notebook.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub(super) struct Stages {
    pub resolution: f64,
    pub venv: f64,
    pub install: f64,
    pub run: f64,
}

/// Why the rounds stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Stop {
    Ran,
    NotEnvironmental,
    NothingLearned,
    InstallFailed,
    MaxRounds,
    /// The caller's time limit passed between two steps.
    TimeLimit,
}

/// The resolution chose a Python this machine does not have.
#[derive(Debug, thiserror::Error)]
#[error("the notebook resolved for Python {python}, which is not installed here: install it (pyenv install {python}) to run the notebook")]
pub(super) struct NotInstalled {
    pub python: PythonVersion,
}

/// How to run the rounds.
pub(super) struct RoundsSpec<'a> {
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
    /// How each inference runs (a batch's deadline, shared caches, silence); its `failed`
    /// is replaced by what the rounds learn.
    pub infer: InferRun<'a>,
    /// `restore` or `batch`, for the run records.
    pub command: &'static str,
}

impl RoundsSpec<'_> {
    /// What is left of `limit` before the deadline, if any.
    pub(super) fn within(&self, limit: Duration) -> Duration {
        match self.infer.deadline {
            Some(d) => limit.min(d.saturating_duration_since(Instant::now())),
            None => limit,
        }
    }

    fn past_deadline(&self) -> bool {
        self.infer.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// What the rounds did.
pub(super) struct Rounds {
    pub rounds: Vec<Round>,
    pub stopped: Stop,
    /// The last environment the notebook ran in, and the interpreter it was built on.
    pub last_env: Option<(PreparedEnv, Interpreter)>,
    pub last_run: Option<NotebookRun>,
    /// Environments these rounds built (the caller keeps the last one at most).
    pub built: Vec<PathBuf>,
    /// Releases that failed to install or import, as learned, with the Python.
    pub failed: Vec<ReleaseFailure>,
}

/// Runs the rounds for `usage` (taught what each round reveals).
pub(super) fn run_rounds(
    global: &GlobalArgs,
    infer_args: &InferArgs,
    session: &InferSession,
    usages: &mut [(String, Usage)],
    spec: &RoundsSpec<'_>,
) -> Result<Rounds> {
    let name = spec.notebook.display().to_string();
    let mut excluded: Vec<(DistName, Version)> = Vec::new();
    let mut failed: Vec<ReleaseFailure> = Vec::new();
    let mut rounds: Vec<Round> = Vec::new();
    let mut stopped = Stop::MaxRounds;
    let mut last_env: Option<(PreparedEnv, Interpreter)> = None;
    // Worked out once, on the first round's Python (every round resolves for the same one).
    let mut runtime_era: Option<Option<Version>> = None;
    let mut runtime_below: Option<Option<Version>> = None;
    let mut last_run: Option<NotebookRun> = None;
    let mut built: Vec<PathBuf> = Vec::new();
    // Interpreters whose environment could not be built, with nothing left to learn there:
    // the next round resolves for the next one of the plan.
    let mut skipped: Vec<PythonVersion> = spec.infer.skip_pythons.to_vec();
    for round in 1..=spec.max_rounds {
        if round > 1 && spec.past_deadline() {
            stopped = Stop::TimeLimit;
            break;
        }
        let started_at = jiff::Timestamp::now();
        let clock = Instant::now();
        let inferred = infer_usages_with(
            global,
            infer_args,
            session,
            usages,
            &excluded,
            InferRun {
                failed: &failed,
                skip_pythons: &skipped,
                ..spec.infer
            },
        );
        let inference = match inferred {
            Ok((inference, _)) => inference,
            Err(e) if round > 1 && e.chain().any(|c| c.is::<OutOfTime>()) => {
                stopped = Stop::TimeLimit;
                break;
            }
            // Moved on from interpreters that could not build it, and none is left.
            Err(e)
                if round > 1
                    && !skipped.is_empty()
                    && e.chain().any(|c| {
                        matches!(
                            c.downcast_ref::<InferError>(),
                            Some(InferError::NoSolution { .. })
                        )
                    }) =>
            {
                stopped = Stop::InstallFailed;
                break;
            }
            Err(e) => return Err(e),
        };
        let resolution = clock.elapsed();
        let requirements = requirements_txt(&inference, &name, None);
        let python = inference.python.version;
        let Some(path) = inference.python.installed.clone() else {
            return Err(NotInstalled { python }.into());
        };
        let interpreter = Interpreter::at(&path).map_err(anyhow::Error::msg)?;
        let chosen = interpreter.clone();
        if !global.quiet {
            if round == 1 {
                if let Some(note) = nbenv::output::recorded_elsewhere(&inference) {
                    eprintln!("note: {note}");
                }
            }
            eprintln!(
                "round {round}: Python {python}, {}",
                pins_of(&requirements).join(" ")
            );
        }
        let plan = EnvPlan {
            interpreter,
            requirements: requirements.clone(),
            only_binary: !spec.allow_sdist && inference.sdist_fallback.is_none(),
            index_url: (global.index_url() != nbenv::pypi::PYPI_SIMPLE)
                .then(|| global.index_url().to_string()),
            kernel_runtime: spec.kernel_runtime,
            kernel_runtime_at_most: if spec.kernel_runtime {
                runtime_era
                    .get_or_insert_with(|| {
                        super::verify::runtime_era(global, spec.nb, python, &session.client)
                    })
                    .clone()
            } else {
                None
            },
            kernel_runtime_below: if spec.kernel_runtime {
                runtime_below
                    .get_or_insert_with(|| super::verify::runtime_below(global, spec.nb))
                    .clone()
            } else {
                None
            },
        };
        let cx = RunContext {
            notebook: spec.notebook,
            command: spec.command,
            round: round as u32,
            python,
            started_at,
            requirements: &requirements,
        };
        let bank = BankHistory::at(&session.bank_file);
        let failures = FailureContext::new(spec.nb, &usages[0].1)
            .with_python(python)
            .with_bank(&bank)
            .with_installed(verify::pinned(&requirements));
        let building = super::progress::Spinner::start(
            global,
            if plan.is_built(spec.envs) {
                None
            } else {
                Some(format!(
                    "round {round}: building the environment on Python {python}"
                ))
            },
        );
        let prepared = verify::prepare(
            &plan,
            spec.envs,
            spec.installer,
            spec.tools,
            spec.within(Duration::from_secs(1800)),
        );
        building.finish();
        let env = match prepared {
            Ok(env) => env,
            Err(EnvError::Install { detail, .. }) => {
                let failure = classify(
                    &Problem::InstallFailed {
                        what: "the requirements".into(),
                        detail: detail.clone(),
                    },
                    None,
                    &failures,
                );
                let lessons =
                    verify::install_lessons(&failure, &detail, &verify::pinned(&requirements));
                let record = run_record(
                    &cx,
                    RunEnded::NotBuilt {
                        failure: &failure,
                        detail: &detail,
                    },
                    &lessons,
                    clock.elapsed(),
                );
                runs::record(global.quiet, &session.bank_file, &record);
                if !global.quiet {
                    eprintln!("round {round}: {failure}");
                }
                say_broken(global, round, python, &lessons);
                let new = learn(&mut excluded, &mut failed, &lessons, python, &name);
                rounds.push(Round {
                    python,
                    requirements,
                    executability: None,
                    first_failure: Some(failure),
                    ename: None,
                    reproduced: None,
                    install_error: Some(detail),
                    learned: lessons,
                    runner: None,
                    kernel_runtime: Vec::new(),
                    seconds: Stages {
                        resolution: resolution.as_secs_f64(),
                        ..Stages::default()
                    },
                    inference: Some(Box::new(inference)),
                });
                if !new {
                    if spec.infer.reach == Reach::Installed && infer_args.python.is_none() {
                        // Nothing to learn on this interpreter: the next one nearest the
                        // notebook's.
                        if !global.quiet {
                            eprintln!(
                                "round {round}: the environment cannot be built on Python {python}: \
                                 trying the next interpreter"
                            );
                        }
                        skipped.push(python);
                        continue;
                    }
                    stopped = Stop::InstallFailed;
                    break;
                }
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        if !env.reused {
            built.push(env.root.clone());
        }
        let options = RunOptions {
            cell_timeout: spec.within(spec.cell_timeout),
            total_timeout: spec.within(spec.run_timeout),
            sandbox: spec.sandbox,
            ..RunOptions::default()
        };
        let ran = Instant::now();
        let run = verify::run_notebook(spec.nb, &env.python, &options)
            .with_context(|| format!("running {}", spec.notebook.display()))?;
        let run_time = ran.elapsed();
        let failure = run.first_failure(&failures);
        let lessons = failure
            .as_ref()
            .map(|f| verify::lessons(f, &inference))
            .unwrap_or_default();
        let record = run_record(
            &cx,
            RunEnded::Ran {
                run: &run,
                failure: failure.as_ref(),
            },
            &lessons,
            clock.elapsed(),
        );
        runs::record(global.quiet, &session.bank_file, &record);
        let mut this = Round {
            python,
            requirements,
            executability: Some(run.executability),
            first_failure: failure.clone(),
            ename: run.first_error_name().map(str::to_string),
            reproduced: {
                let r = run.reproduction(spec.nb);
                (r.compared > 0).then_some((r.reproduced, r.compared))
            },
            install_error: None,
            learned: Vec::new(),
            runner: Some(run.mode.clone()),
            kernel_runtime: env.kernel_runtime.clone(),
            seconds: Stages {
                resolution: resolution.as_secs_f64(),
                venv: env.venv_time.as_secs_f64(),
                install: env.install_time.as_secs_f64(),
                run: run_time.as_secs_f64(),
            },
            inference: Some(Box::new(inference)),
        };
        last_env = Some((env, chosen));
        last_run = Some(run);
        let Some(failure) = failure else {
            rounds.push(this);
            stopped = Stop::Ran;
            break;
        };
        if !global.quiet {
            eprintln!("round {round}: stopped at {}", located(&failure));
        }
        if !failure.may_repair() {
            rounds.push(this);
            stopped = Stop::NotEnvironmental;
            break;
        }
        say_broken(global, round, python, &lessons);
        let mut new = verify::teach(&mut usages[0].1, &lessons);
        new |= learn(&mut excluded, &mut failed, &lessons, python, &name);
        this.learned = lessons;
        rounds.push(this);
        if !new {
            stopped = Stop::NothingLearned;
            break;
        }
    }
    Ok(Rounds {
        rounds,
        stopped,
        last_env,
        last_run,
        built,
        failed,
    })
}

/// `round 1: gast 0.2.2 failed to install on Python 3.6: passed over from now on`.
fn say_broken(global: &GlobalArgs, round: usize, python: PythonVersion, lessons: &[Lesson]) {
    if global.quiet {
        return;
    }
    for lesson in lessons {
        if let Lesson::Broken {
            dist,
            version,
            step,
        } = lesson
        {
            eprintln!(
                "round {round}: {dist} {version} failed to {step} on Python {}: passed over from now on",
                python.feature()
            );
        }
    }
}

/// Takes in what a round taught: exclusions for this notebook, and releases broken on this
/// Python, which the next rounds pass over (and every resolution after, through the bank's
/// run records). Returns whether anything was new.
fn learn(
    excluded: &mut Vec<(DistName, Version)>,
    failed: &mut Vec<ReleaseFailure>,
    lessons: &[Lesson],
    python: PythonVersion,
    notebook: &str,
) -> bool {
    let mut new = false;
    for lesson in lessons {
        match lesson {
            Lesson::Exclude { dist, version } => {
                if !excluded.iter().any(|(d, v)| d == dist && v == version) {
                    excluded.push((dist.clone(), version.clone()));
                    new = true;
                }
            }
            Lesson::Broken {
                dist,
                version,
                step,
            } => {
                if !failed.iter().any(|f| {
                    &f.dist == dist
                        && &f.version == version
                        && f.python.feature() == python.feature()
                }) {
                    failed.push(ReleaseFailure {
                        dist: dist.clone(),
                        version: version.clone(),
                        python: python.feature(),
                        step: *step,
                        detail: String::new(),
                        at: jiff::Timestamp::now(),
                        notebook: notebook.to_string(),
                    });
                    new = true;
                }
            }
            Lesson::Api { .. }
            | Lesson::Keyword { .. }
            | Lesson::Module { .. }
            | Lesson::Install { .. } => {}
        }
    }
    new
}

/// The `name==version` lines of a requirements file.
pub(super) fn pins_of(requirements: &str) -> Vec<&str> {
    requirements
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#') && !l.starts_with('-') && !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .map(|p| p.trim_end_matches('\\'))
        .collect()
}

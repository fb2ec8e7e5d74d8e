//! The production steps of a restoration's rounds: infer, build the environment, run the
//! notebook, record the run. The loop that decides what comes next is [`super::run_rounds`];
//! `restore` runs the rounds for one notebook and prints them, a batch runs them on worker
//! threads for many, within each notebook's time limit, and records them. What happens is
//! said through a [`Reporter`] (round lines, building, lessons learned).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::bank::store::ReleaseFailure;
use crate::notebook::failure::{classify, BankHistory, FailureContext, Problem};
use crate::notebook::Usage;
use crate::output::requirements_txt;
use crate::python::{Interpreter, PythonVersion};
use crate::reporter::Reporter;
use crate::resolve::infer::{InferError, Inference};
use crate::resolve::interpreter::Reach;
use crate::resolve::options::InferOptions;
use crate::resolve::session::{infer_usages_with, InferRun, InferSession, SessionError};
use crate::verify::{
    self, run_record, EnvError, EnvPlan, Lesson, NotebookRun, PreparedEnv, RunContext, RunEnded,
    RunOptions,
};
use pep508_rs::pep440_rs::Version;

use super::round::{pins_of, NotInstalled, Round, RoundError, Stages};
use super::spec::RoundsSpec;
use super::{Built, Learned, ResolveEnd, RoundEnd, RunEnd, Stop};

/// What the rounds did.
pub struct Restored {
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

/// Runs the rounds for `usage` (taught what each round reveals): the library's loop
/// ([`super::run_rounds`]) over the production steps.
pub fn restore(
    reporter: &dyn Reporter,
    infer_args: &InferOptions,
    session: &InferSession,
    usages: &mut [(String, Usage)],
    spec: &RoundsSpec<'_>,
) -> Result<Restored, RoundError> {
    let mut steps = Steps {
        reporter,
        infer_args,
        session,
        usages,
        spec,
        name: spec.notebook.display().to_string(),
        runtime_era: None,
        runtime_below: None,
        last_env: None,
        last_run: None,
        built: Vec::new(),
    };
    let learned = Learned {
        skipped: spec.infer.skip_pythons.to_vec(),
        ..Learned::default()
    };
    let done = super::run_rounds(&mut steps, spec.max_rounds as u32, learned)?;
    Ok(Restored {
        rounds: done.rounds,
        stopped: done.stopped,
        last_env: steps.last_env,
        last_run: steps.last_run,
        built: steps.built,
        failed: done.learned.failed,
    })
}

/// The production steps: the inference session, uv, the runner, the bank's run records.
struct Steps<'a, 'u> {
    reporter: &'a dyn Reporter,
    infer_args: &'a InferOptions,
    session: &'a InferSession,
    usages: &'u mut [(String, Usage)],
    spec: &'a RoundsSpec<'a>,
    name: String,
    // Worked out once, on the first round's Python (every round resolves for the same one).
    runtime_era: Option<Option<Version>>,
    runtime_below: Option<Option<Version>>,
    last_env: Option<(PreparedEnv, Interpreter)>,
    last_run: Option<NotebookRun>,
    built: Vec<PathBuf>,
}

/// A round's resolution, and when the round began.
struct Resolved {
    inference: Inference,
    requirements: String,
    interpreter: Interpreter,
    started_at: jiff::Timestamp,
    clock: Instant,
    resolution: Duration,
}

impl Resolved {
    fn python(&self) -> PythonVersion {
        self.inference.python.version
    }

    fn context<'r>(&'r self, spec: &'r RoundsSpec<'_>, round: u32) -> RunContext<'r> {
        RunContext {
            notebook: spec.notebook,
            command: spec.command,
            round,
            python: self.python(),
            started_at: self.started_at,
            requirements: &self.requirements,
        }
    }
}

impl Steps<'_, '_> {
    /// The environment a resolution asks for, with the kernel runtime's bounds (worked out,
    /// and said, once).
    fn plan(&mut self, r: &Resolved) -> EnvPlan {
        let (spec, python) = (self.spec, r.python());
        EnvPlan {
            interpreter: r.interpreter.clone(),
            requirements: r.requirements.clone(),
            only_binary: !spec.allow_sdist && r.inference.sdist_fallback.is_none(),
            index_url: spec.index_url.clone(),
            kernel_runtime: spec.kernel_runtime,
            kernel_runtime_at_most: if spec.kernel_runtime {
                self.runtime_era
                    .get_or_insert_with(|| {
                        verify::runtime_era(self.reporter, spec.nb, python, &self.session.client)
                    })
                    .clone()
            } else {
                None
            },
            kernel_runtime_below: if spec.kernel_runtime {
                self.runtime_below
                    .get_or_insert_with(|| verify::runtime_below(self.reporter, spec.nb))
                    .clone()
            } else {
                None
            },
        }
    }

    /// The round whose environment could not be installed: classified, recorded, said.
    fn not_built(
        &self,
        round: u32,
        r: Resolved,
        detail: String,
    ) -> Built<(Resolved, PreparedEnv), Round> {
        let (spec, python) = (self.spec, r.python());
        let bank = BankHistory::at(&self.session.bank_file);
        let failure = classify(
            &Problem::InstallFailed {
                what: "the requirements".into(),
                detail: detail.clone(),
            },
            None,
            &self.failures(&bank, &r),
        );
        let lessons = verify::install_lessons(&failure, &detail, &verify::pinned(&r.requirements));
        let record = run_record(
            &r.context(spec, round),
            RunEnded::NotBuilt {
                failure: &failure,
                detail: &detail,
            },
            &lessons,
            r.clock.elapsed(),
        );
        verify::store_run(&self.session.bank_file, &record, self.reporter);
        self.reporter.round(round, &failure.to_string());
        say_broken(self.reporter, round, python, &lessons);
        let round = Round {
            python,
            requirements: r.requirements,
            executability: None,
            first_failure: Some(failure),
            ename: None,
            reproduced: None,
            install_error: Some(detail),
            learned: lessons.clone(),
            runner: None,
            kernel_runtime: Vec::new(),
            seconds: Stages {
                resolution: r.resolution.as_secs_f64(),
                ..Stages::default()
            },
            inference: Some(Box::new(r.inference)),
        };
        Built::Failed { round, lessons }
    }

    fn failures<'b>(&'b self, bank: &'b BankHistory, r: &Resolved) -> FailureContext<'b> {
        FailureContext::new(self.spec.nb, &self.usages[0].1)
            .with_python(r.python())
            .with_bank(bank)
            .with_installed(verify::pinned(&r.requirements))
    }
}

impl super::RoundSteps for Steps<'_, '_> {
    type Resolution = Resolved;
    type Env = (Resolved, PreparedEnv);
    type Round = Round;
    type Error = RoundError;

    fn resolve(
        &mut self,
        round: u32,
        learned: &Learned,
    ) -> Result<Resolved, ResolveEnd<RoundError>> {
        let spec = self.spec;
        let started_at = jiff::Timestamp::now();
        let clock = Instant::now();
        let inferred = infer_usages_with(
            self.infer_args,
            self.session,
            self.usages,
            &learned.excluded,
            InferRun {
                failed: &learned.failed,
                skip_pythons: &learned.skipped,
                ..spec.infer
            },
            self.reporter,
        );
        let inference = match inferred {
            Ok(found) => found.inference,
            Err(e @ SessionError::OutOfTime) => return Err(ResolveEnd::OutOfTime(e.into())),
            Err(e) if matches!(e.infer_error(), Some(InferError::NoSolution { .. })) => {
                return Err(ResolveEnd::NoSolution(e.into()))
            }
            Err(e) => return Err(ResolveEnd::Error(e.into())),
        };
        let resolution = clock.elapsed();
        let requirements = requirements_txt(&inference, &self.name, None);
        let python = inference.python.version;
        let Some(path) = inference.python.installed.clone() else {
            return Err(ResolveEnd::Error(NotInstalled { python }.into()));
        };
        let interpreter = Interpreter::at(&path)
            .map_err(RoundError::Interpreter)
            .map_err(ResolveEnd::Error)?;
        if round == 1 {
            if let Some(note) = crate::output::recorded_elsewhere(&inference) {
                self.reporter.note(&note, None);
            }
        }
        self.reporter.round(
            round,
            &format!("Python {python}, {}", pins_of(&requirements).join(" ")),
        );
        Ok(Resolved {
            inference,
            requirements,
            interpreter,
            started_at,
            clock,
            resolution,
        })
    }

    fn python(&self, resolution: &Resolved) -> PythonVersion {
        resolution.python()
    }

    fn build(&mut self, round: u32, r: Resolved) -> Result<Built<Self::Env, Round>, RoundError> {
        let spec = self.spec;
        let python = r.python();
        let plan = self.plan(&r);
        let building = (!plan.is_built(spec.envs)).then(|| {
            self.reporter.step(&format!(
                "round {round}: building the environment on Python {python}"
            ))
        });
        let prepared = verify::prepare_within(
            &plan,
            spec.envs,
            spec.installer,
            spec.tools,
            spec.within(Duration::from_secs(1800)),
            spec.disk.map(|budget| verify::Budgeted {
                budget,
                builders: spec.builders,
                estimate: verify::build_estimate(&r.inference.solution.pins),
                reporter: self.reporter,
            }),
        );
        if let Some(building) = building {
            building.finish();
        }
        let detail = match prepared {
            Ok(env) => {
                if !env.reused {
                    self.built.push(env.root.clone());
                }
                return Ok(Built::Env((r, env)));
            }
            Err(EnvError::Install { detail, .. }) => detail,
            Err(e) => return Err(RoundError::of_build(e, spec.past_deadline())),
        };
        Ok(self.not_built(round, r, detail))
    }

    fn run(&mut self, round: u32, (r, env): Self::Env) -> Result<RoundEnd<Round>, RoundError> {
        let spec = self.spec;
        let python = r.python();
        let options = RunOptions {
            cell_timeout: spec.within(spec.cell_timeout),
            total_timeout: spec.within(spec.run_timeout),
            sandbox: spec.sandbox,
            ..RunOptions::default()
        };
        let ran = Instant::now();
        let run = verify::run_notebook(spec.nb, &env.python, &options).map_err(|source| {
            RoundError::Run {
                notebook: spec.notebook.to_path_buf(),
                source,
            }
        })?;
        let run_time = ran.elapsed();
        let bank = BankHistory::at(&self.session.bank_file);
        let failure = run.first_failure(&self.failures(&bank, &r));
        let lessons = failure
            .as_ref()
            .map(|f| verify::lessons(f, &r.inference))
            .unwrap_or_default();
        let record = run_record(
            &r.context(spec, round),
            RunEnded::Ran {
                run: &run,
                failure: failure.as_ref(),
            },
            &lessons,
            r.clock.elapsed(),
        );
        verify::store_run(&self.session.bank_file, &record, self.reporter);
        let end = match &failure {
            None => RunEnd::Clean,
            Some(f) => RunEnd::Failed {
                repairable: f.may_repair(),
            },
        };
        if let Some(failure) = &failure {
            self.reporter
                .round(round, &format!("stopped at {}", failure.located()));
        }
        let repairable = end == RunEnd::Failed { repairable: true };
        if repairable {
            say_broken(self.reporter, round, python, &lessons);
        }
        let this = Round {
            python,
            requirements: r.requirements,
            executability: Some(run.executability),
            first_failure: failure,
            ename: run.first_error_name().map(str::to_string),
            reproduced: {
                let rep = run.reproduction(spec.nb);
                (rep.compared > 0).then_some((rep.reproduced, rep.compared))
            },
            install_error: None,
            learned: if repairable {
                lessons.clone()
            } else {
                Vec::new()
            },
            runner: Some(run.mode.clone()),
            kernel_runtime: env.kernel_runtime.clone(),
            seconds: Stages {
                resolution: r.resolution.as_secs_f64(),
                venv: env.venv_time.as_secs_f64(),
                install: env.install_time.as_secs_f64(),
                run: run_time.as_secs_f64(),
            },
            inference: Some(Box::new(r.inference)),
        };
        self.last_env = Some((env, r.interpreter));
        self.last_run = Some(run);
        Ok(RoundEnd {
            end,
            round: this,
            lessons,
        })
    }

    fn teach(&mut self, lessons: &[Lesson]) -> bool {
        verify::teach(&mut self.usages[0].1, lessons)
    }

    fn may_move_on(&self) -> bool {
        self.spec.infer.reach == Reach::Installed && self.infer_args.python.is_none()
    }

    fn moving_on(&mut self, round: u32, python: PythonVersion) {
        self.reporter.round(
            round,
            &format!(
                "the environment cannot be built on Python {python}: trying the next interpreter"
            ),
        );
    }

    fn repeats_last(&mut self, r: &Resolved) -> bool {
        let Some(root) = self.last_env.as_ref().map(|(env, _)| env.root.clone()) else {
            return false;
        };
        root == self.spec.envs.join(self.plan(r).key())
    }

    fn past_deadline(&self) -> bool {
        self.spec.past_deadline()
    }

    fn notebook(&self) -> &str {
        &self.name
    }
}

/// `round 1: gast 0.2.2 failed to install on Python 3.6: passed over from now on`.
fn say_broken(reporter: &dyn Reporter, round: u32, python: PythonVersion, lessons: &[Lesson]) {
    for lesson in lessons {
        if let Lesson::Broken {
            dist,
            version,
            step,
        } = lesson
        {
            reporter.round(
                round,
                &format!(
                    "{dist} {version} failed to {step} on Python {}: passed over from now on",
                    python.feature()
                ),
            );
        }
    }
}

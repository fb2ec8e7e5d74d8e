//! The production steps of a restoration's rounds: infer, build the environment, run the
//! notebook, record the run. The loop that decides what comes next is [`super::run_rounds`];
//! `restore` runs the rounds for one notebook and prints them, a batch runs them on worker
//! threads for many, within each notebook's time limit, and records them. What happens is
//! said through a [`Reporter`] (round lines, building, lessons learned).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::bank::store::ReleaseFailure;
use crate::notebook::failure::{
    classify, BankHistory, Cause, Definition, Failure, FailureContext, InstallReason, Problem,
};
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

use super::kept::Kept;
use super::round::{pins_of, NotInstalled, Round, RoundError, Stages};
use super::search::{Candidate, Move, Refutation, SearchSpace, Suspect};
use super::spec::RoundsSpec;
use super::{Built, Learned, ResolveEnd, RoundEnd, RunEnd, Stop};
use crate::modernize::forward::{met, Forwarded, Met};
use crate::names::{ApiPath, DistName, ModulePath};
use crate::resolve::solver::Catalog;

/// What the rounds did.
pub struct Restored {
    pub rounds: Vec<Round>,
    pub stopped: Stop,
    /// The requirements to write, and why those (see [`super::kept`]).
    pub kept: Kept,
    /// The environment of the kept requirements (of the last run when they were not run),
    /// and the interpreter it was built on.
    pub last_env: Option<(PreparedEnv, Interpreter)>,
    /// The run in that environment.
    pub last_run: Option<NotebookRun>,
    /// Environments these rounds built (the caller keeps the last one at most).
    pub built: Vec<PathBuf>,
    /// Releases that failed to install or import, as learned, with the Python.
    pub failed: Vec<ReleaseFailure>,
    /// For a modernized notebook whose code a run moved forward: the notebook the rounds
    /// ran last (written at the spec's path too), and every API the runs met.
    pub forwarded: Option<Forwarded>,
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
    let notebook_sha256 = verify::notebook_sha256(spec.notebook);
    let resumed = resumed_refutations(&session.bank_file, &notebook_sha256);
    if !resumed.is_empty() {
        let named: Vec<String> = resumed.iter().map(ToString::to_string).collect();
        reporter.note(
            &format!(
                "earlier restorations of this notebook refuted {}: not tried again (`nbenv bank runs --forget` forgets them)",
                named.join(", ")
            ),
            None,
        );
    }
    let mut steps = Steps {
        reporter,
        infer_args,
        session,
        usages,
        spec,
        name: spec.notebook.display().to_string(),
        notebook_sha256,
        runtime_era: None,
        runtime_below: None,
        last_env: None,
        last_run: None,
        last_installed: None,
        built: Vec::new(),
        own_catalog: crate::resolve::solver::IndexCatalog::new(&session.client),
        last_python: None,
        era: None,
        ran: Vec::new(),
        nb: spec.nb.clone(),
        last_failure: None,
        met: Vec::new(),
        forwarded: None,
        order: crate::notebook::CellOrder::default(),
    };
    let learned = Learned {
        skipped: spec.infer.skip_pythons.to_vec(),
        search: super::search::Search::resumed(&resumed),
        ..Learned::default()
    };
    let done = super::run_rounds(&mut steps, spec.max_rounds as u32, learned)?;
    // Out of rounds while the search still moved: what it would have run next.
    let untried = (done.stopped == Stop::MaxRounds)
        .then(|| steps.untried(&done.learned))
        .flatten();
    let kept = super::kept::keep(
        &done.rounds,
        done.stopped,
        &done.learned.search,
        untried,
        spec.max_rounds,
        &|cell| spec.nb.cell_label(cell),
    );
    let (last_env, last_run) = match kept.round(done.rounds.len()) {
        Some(round) => steps
            .ran
            .into_iter()
            .find(|(r, ..)| *r as usize == round)
            .map(|(_, env, interpreter, run)| (Some((env, interpreter)), Some(run)))
            .unwrap_or((steps.last_env, steps.last_run)),
        None => (steps.last_env, steps.last_run),
    };
    Ok(Restored {
        rounds: done.rounds,
        stopped: done.stopped,
        kept,
        last_env,
        last_run,
        built: steps.built,
        failed: done.learned.failed,
        forwarded: steps.forwarded.map(|mut f| {
            f.modernized.report.met = steps.met.clone();
            f.met = steps.met;
            f
        }),
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
    /// The kernel runtime of the notebook's era, worked out for the Python it was worked out
    /// on: rounds that move to another Python work it out again (an IPython of 2018 does
    /// not run on 3.8, and the era applies only to Pythons of then).
    runtime_era: Option<(PythonVersion, Option<verify::RuntimeEra>)>,
    runtime_below: Option<(PythonVersion, Option<Version>)>,
    last_env: Option<(PreparedEnv, Interpreter)>,
    last_run: Option<NotebookRun>,
    /// The Python and the installed lines of the last round that ran
    /// ([`crate::output::installed_lines`]).
    last_installed: Option<(PythonVersion, Vec<String>)>,
    built: Vec<PathBuf>,
    /// The notebook's content hash, which keys what runs refuted for it.
    notebook_sha256: String,
    /// The index's releases, for the search (the batch's shared catalog when it has one).
    own_catalog: crate::resolve::solver::IndexCatalog<'a>,
    /// The Python and the era of the last resolution: the search's releases are those that
    /// install there, its era release the newest of that era.
    last_python: Option<PythonVersion>,
    era: Option<jiff::Timestamp>,
    /// Every round that ran: its environment and run (the kept one is returned).
    ran: Vec<(u32, PreparedEnv, Interpreter, NotebookRun)>,
    /// The notebook the rounds run: the spec's, or its code moved forward by a run.
    nb: crate::notebook::Notebook,
    /// The last run's first failure, for moving the code forward past it.
    last_failure: Option<Failure>,
    /// What runs met, and the last step forward that moved the code.
    met: Vec<Met>,
    forwarded: Option<Forwarded>,
    /// The order the rounds run the cells in: the page's, with each cell a run proved its
    /// author ran first moved before the cell that needed it.
    order: crate::notebook::CellOrder,
}

/// What earlier restorations refuted for the notebook; none from a bank that cannot say.
fn resumed_refutations(bank: &std::path::Path, notebook_sha256: &str) -> Vec<Refutation> {
    if !bank.exists() {
        return Vec::new();
    }
    crate::bank::store::Store::open_read_only(bank)
        .and_then(|store| store.refutations(notebook_sha256))
        .unwrap_or_default()
}

/// `plotkit 1.2, not 2.0 as the search planned: ... (cell 2 passes hold= to plotkit.plot
/// (removed in 2.0))`: the search's "trying 2.0 next" is not left standing when the bank,
/// indexed further, placed the change and the resolution went elsewhere.
fn departed(learned: &Learned, inference: &Inference) -> Vec<String> {
    let pins = &inference.solution.pins;
    let pinned: Vec<(DistName, Version)> = pins
        .iter()
        .map(|p| (p.dist.clone(), p.version.clone()))
        .collect();
    learned
        .search
        .departures(&pinned)
        .into_iter()
        .map(|(dist, target, version)| {
            let why = pins
                .iter()
                .find(|p| p.dist == dist)
                .and_then(|p| crate::output::pin_reason(p, inference))
                .map(|why| format!(" ({why})"))
                .unwrap_or_default();
            format!(
                "{dist} {version}, not {target} as the search planned: the resolution, with \
                 what the bank now knows, takes {version}{why}"
            )
        })
        .collect()
}

/// A round's resolution, and when the round began.
struct Resolved {
    inference: Inference,
    requirements: String,
    /// Where the resolution did not take what the search asked for, said with the round.
    departed: Vec<String>,
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
    /// For an API the run found missing that the installed release defines: why it is not
    /// there in `env` (see [`verify::unbound`]).
    fn unbound(
        &self,
        failure: &Failure,
        installed: &[(DistName, Version)],
        env: &PreparedEnv,
    ) -> Option<verify::Unbound> {
        let Cause::MissingApi { api, .. } = &failure.cause else {
            return None;
        };
        if !failure.may_repair() {
            return None;
        }
        let modules = verify::defining_modules(&self.session.bank_file, api, installed);
        verify::unbound(&env.python, &modules)
    }

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
                let (reporter, client) = (self.reporter, &self.session.client);
                for_python(&mut self.runtime_era, python, || {
                    verify::runtime_era(reporter, &self.nb, python, client)
                })
            } else {
                None
            },
            kernel_runtime_below: if spec.kernel_runtime {
                let reporter = self.reporter;
                for_python(&mut self.runtime_below, python, || {
                    verify::runtime_below(reporter, &self.nb, python)
                })
            } else {
                None
            },
            wheels: r
                .inference
                .solution
                .pins
                .iter()
                .filter(|p| {
                    p.files
                        .iter()
                        .any(|f| f.kind == crate::resolve::solver::LockedKind::Wheel)
                })
                .map(|p| p.dist.to_string())
                .collect(),
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
        if let Some(last) = last_words(&failure, &detail) {
            // Said where it is of use: nbenv read nothing it knows in it.
            self.reporter.note(
                &format!("round {round}: the installer ended: {last}"),
                Some(&detail),
            );
        }
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
            order: self.order.clone(),
            seconds: Stages {
                resolution: r.resolution.as_secs_f64(),
                ..Stages::default()
            },
            inference: Some(Box::new(r.inference)),
        };
        Built::Failed { round, lessons }
    }

    fn failures<'b>(&'b self, bank: &'b BankHistory, r: &Resolved) -> FailureContext<'b> {
        FailureContext::new(&self.nb, &self.usages[0].1)
            .with_python(r.python())
            .with_bank(bank)
            .with_installed(verify::pinned(&r.requirements))
            .with_unprovided(r.inference.unprovided_modules())
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
        let started_at = jiff::Timestamp::now();
        let clock = Instant::now();
        let inferred = self.infer(learned, self.reporter);
        let inference = match inferred {
            Ok(found) => found.inference,
            Err(e @ SessionError::OutOfTime) => return Err(ResolveEnd::OutOfTime(e.into())),
            Err(e) if matches!(e.infer_error(), Some(InferError::NoSolution { .. })) => {
                return Err(ResolveEnd::NoSolution(e.into()))
            }
            // Every interpreter the code allows was passed over (their environments could
            // not be built): no solution left, not a Python missing.
            Err(e)
                if !learned.skipped.is_empty()
                    && matches!(e.infer_error(), Some(InferError::NoInterpreter { .. })) =>
            {
                return Err(ResolveEnd::NoSolution(e.into()))
            }
            Err(e) => return Err(ResolveEnd::Error(e.into())),
        };
        let resolution = clock.elapsed();
        let requirements = requirements_txt(&inference, &self.name, None);
        let departed = departed(learned, &inference);
        let python = inference.python.version;
        self.last_python = Some(python);
        self.era = inference
            .era
            .as_ref()
            .map(crate::resolve::era::Era::prefer_before);
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
        Ok(Resolved {
            inference,
            requirements,
            departed,
            interpreter,
            started_at,
            clock,
            resolution,
        })
    }

    fn python(&self, resolution: &Resolved) -> PythonVersion {
        resolution.python()
    }

    /// Announces the round: only a resolution that will be built and run gets here, never one
    /// repeating the last round's environment.
    fn build(&mut self, round: u32, r: Resolved) -> Result<Built<Self::Env, Round>, RoundError> {
        let spec = self.spec;
        let python = r.python();
        let pins = pins_of(&r.requirements);
        let said = if pins.is_empty() {
            format!("Python {python}, no pinned requirement")
        } else {
            format!("Python {python}, {}", pins.join(" "))
        };
        self.reporter.round(round, &said);
        for departed in &r.departed {
            self.reporter.round(round, departed);
        }
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
            sys_path: self.usages[0].1.repository_paths(),
            order: self.order.clone(),
            overrides: spec.overrides.to_vec(),
            ..RunOptions::default()
        };
        if let Some(note) = options.sys_path_note().filter(|_| round == 1) {
            self.reporter.note(
                &format!(
                    "{note}, as its author had them (nbenv does not install the repository: \
                     a build would write into it)"
                ),
                None,
            );
        }
        let ran = Instant::now();
        let live = self
            .reporter
            .live(&format!("round {round}: starting the notebook's runner"));
        let nb = &self.nb;
        let run = verify::run_notebook_watching(nb, &env.python, &options, &mut |cell| {
            live.advance(&format!("round {round}: running {}", nb.cell_label(cell)));
        })
        .map_err(|source| RoundError::Run {
            notebook: spec.notebook.to_path_buf(),
            source,
        });
        live.finish();
        let run = run?;
        let run_time = ran.elapsed();
        let ran_with = installed(&r.requirements, &env);
        self.last_installed = Some((python, crate::output::installed_lines(&r.requirements)));
        let bank = BankHistory::at(&self.session.bank_file);
        let mut failure = run.first_failure(&self.failures(&bank, &r));
        let unbound = failure
            .as_ref()
            .and_then(|f| self.unbound(f, &ran_with, &env));
        // The release has the name, bound only when its data is there: no release is at
        // fault, and the data is the notebook's to fetch.
        if let (Some(verify::Unbound::Data { defined_in, error }), Some(f)) =
            (&unbound, &mut failure)
        {
            if let Cause::MissingApi { api, .. } = &f.cause {
                *f = Failure::new(
                    Cause::UnboundWithoutData {
                        api: api.clone(),
                        module: defined_in.clone(),
                        error: error.clone(),
                    },
                    f.cell,
                    f.frame.clone(),
                );
            }
        }
        // The import its definition makes that fails here.
        let lacked = match unbound {
            Some(verify::Unbound::Import {
                defined_in,
                missing,
            }) => Some((defined_in, missing)),
            _ => None,
        };
        // Who installed which module, read from the environment once, when a failure asks.
        let owners = std::cell::OnceCell::new();
        let owners = || owners.get_or_init(|| verify::Owners::of_env(&env.root));
        // With the import its definition lacks found, no release is suspect.
        let suspects = match &failure {
            Some(f) if lacked.is_none() && f.may_repair() && f.cause.points_at_releases() => {
                suspects(&run, owners(), &self.usages[0].1, f.cause.named_api())
            }
            _ => Vec::new(),
        };
        let mut lessons = match (&failure, &lacked) {
            // The release has the name; an import its definition makes does not work here.
            (Some(f), Some((_, missing))) => vec![Lesson::Module {
                module: ModulePath::new(missing.top_level()).unwrap_or_else(|_| missing.clone()),
                cell: f.cell.unwrap_or(0),
            }],
            (Some(f), None) => verify::lessons(f, &r.inference, python),
            (None, _) => Vec::new(),
        };
        lessons.extend(undeclared(&suspects, &r.requirements));
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
        let bank_knows_where = failure
            .as_ref()
            .is_some_and(|f| lacked.is_none() && f.cause.bank_saw_elsewhere());
        // The distribution whose code this Python could not read: the installed owner of
        // the library the SyntaxError is in.
        let unreadable = failure
            .as_ref()
            .and_then(|f| f.cause.unreadable_library())
            .and_then(|library| owners().owner(library.top_level()))
            .map(|(dist, _)| dist.clone());
        let end = match &failure {
            None => RunEnd::Clean,
            Some(f) if f.needs_program() => RunEnd::ProgramMissing,
            Some(f) => RunEnd::Failed {
                repairable: f.may_repair(),
            },
        };
        if let Some(failure) = &failure {
            self.reporter.round(
                round,
                &format!("stopped at {}", failure.located_in(&self.nb)),
            );
        }
        if let (Some((defined_in, missing)), Some(api)) =
            (&lacked, failure.as_ref().and_then(|f| f.cause.named_api()))
        {
            self.reporter.round(
                round,
                &format!(
                    "the installed release defines `{api}` in `{defined_in}`, which fails to \
                     import here: no module `{missing}`"
                ),
            );
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
                let rep = run.reproduction(&self.nb);
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
            order: self.order.clone(),
            seconds: Stages {
                resolution: r.resolution.as_secs_f64(),
                venv: env.venv_time.as_secs_f64(),
                install: env.install_time.as_secs_f64(),
                run: run_time.as_secs_f64(),
            },
            inference: Some(Box::new(r.inference)),
        };
        let cell = this.first_failure.as_ref().and_then(|f| f.cell);
        let this_failure = this.first_failure.clone();
        self.ran
            .push((round, env.clone(), r.interpreter.clone(), run.clone()));
        self.last_env = Some((env, r.interpreter));
        self.last_run = Some(run);
        self.last_failure = this_failure;
        Ok(RoundEnd {
            end,
            round: this,
            lessons,
            cell,
            suspects,
            ran_with,
            bank_knows_where,
            unreadable,
        })
    }

    fn searched(&mut self, round: u32, moved: Option<&Move>, refuted: &[Refutation]) {
        if let Some(moved) = moved {
            self.reporter.round(round, &format!("searching: {moved}"));
        }
        let python = self.last_python.unwrap_or(PythonVersion::new(3, 0));
        if refuted.is_empty() || self.notebook_sha256.is_empty() {
            return;
        }
        let stored = crate::bank::store::Store::open(&self.session.bank_file).and_then(|mut s| {
            s.record_refutations(
                &self.notebook_sha256,
                python,
                refuted,
                jiff::Timestamp::now(),
            )
        });
        if let Err(e) = stored {
            self.reporter.warn(
                &format!("could not record what the runs refuted in the bank: {e}"),
                None,
            );
        }
    }

    fn teach(&mut self, lessons: &[Lesson]) -> bool {
        verify::teach(&mut self.usages[0].1, lessons)
    }

    fn reorder(&mut self, round: u32) -> bool {
        let Some(f) = &self.last_failure else {
            return false;
        };
        let (
            Cause::Undefined {
                name,
                definition: Definition::Later { cell: defined, .. },
            },
            Some(used),
        ) = (&f.cause, f.cell)
        else {
            return false;
        };
        let stored = verify::ExecutionOrder::of(&self.nb);
        let page: Vec<u32> = stored.counts.iter().map(|c| c.cell).collect();
        // Only what its author ran first, and only once: a move already made is not undone.
        if *defined == used
            || !stored.ran_before(*defined, used)
            || self.order.runs_before(&page, *defined, used)
        {
            return false;
        }
        let (first, then) = (
            stored.count(*defined).unwrap_or_default(),
            stored.count(used).unwrap_or_default(),
        );
        self.reporter.round(
            round,
            &format!(
                "`{name}` is defined by {}, which its author ran before {} (In [{first}], \
                 then In [{then}]): running cell {defined} before cell {used} next",
                self.nb.cell_label(*defined),
                self.nb.cell_label(used),
            ),
        );
        self.order = self.order.with(*defined, used);
        // The same environment runs the cells in another order: not a repeat.
        self.last_installed = None;
        true
    }

    fn forward(&mut self, round: u32, lessons: &[Lesson]) -> bool {
        let (Some(from), Some(failure)) = (&self.spec.forward, &self.last_failure) else {
            return false;
        };
        let candidates: Vec<Met> = met(failure, lessons, round)
            .into_iter()
            // Met before and still there: the step that moved past it did not hold.
            .filter(|m| !self.met.iter().any(|seen| seen.api == m.api))
            .collect();
        if candidates.is_empty() {
            return false;
        }
        // The code's own uses, read afresh: the rounds' usage holds what earlier lessons
        // taught it too (statsmodels' `numpy.MachAr`, a library's name, not the notebook's).
        let own = crate::notebook::analyze(&self.nb, from.analyze);
        let new: Vec<Met> = candidates
            .into_iter()
            .filter(|m| crate::modernize::forward::used_by(&own, m))
            .collect();
        if new.is_empty() {
            return false;
        }
        let mut all = self.met.clone();
        all.extend(new.iter().cloned());
        let config = self.session.introspect_config(None, self.reporter);
        let mut work = crate::modernize::prepare::OnIndex {
            client: &self.session.client,
            bank: &self.session.bank_file,
            introspect: &config,
            reporter: self.reporter,
        };
        let stepped =
            crate::modernize::forward::forward(from, &all, &mut work, &self.session.bank_file);
        let forwarded = match stepped {
            Ok(f) => f,
            Err(e) => {
                self.reporter.warn(
                    &format!("round {round}: moving the code past what the run met: {e}"),
                    None,
                );
                self.met = all;
                return false;
            }
        };
        self.met = forwarded.met.clone();
        let named = |m: &Met| format!("`{}` ({} {})", m.api, m.distribution, m.version);
        if !forwarded.moved_in(round) {
            let unmoved: Vec<String> = forwarded
                .modernized
                .report
                .unmoved
                .iter()
                .filter(|u| new.iter().any(|m| m.api == u.api))
                .map(|u| format!("`{}` ({})", u.api, u.era_pin))
                .collect();
            let what: Vec<String> = new.iter().map(named).collect();
            self.reporter.round(
                round,
                &format!(
                    "the run met {} missing, with no successor to move to{}",
                    what.join(", "),
                    if unmoved.is_empty() {
                        String::new()
                    } else {
                        format!(": the era pin would run it ({})", unmoved.join(", "))
                    }
                ),
            );
            return false;
        }
        let written = forwarded.modernized.written(from.candidates);
        let nb = match crate::output::write_atomically(self.spec.notebook, &written.notebook)
            .map_err(|e| e.to_string())
            .and_then(|()| {
                crate::notebook::from_bytes(self.spec.notebook, &written.notebook)
                    .map_err(|e| e.to_string())
            }) {
            Ok(nb) => nb,
            Err(e) => {
                self.reporter.warn(
                    &format!(
                        "round {round}: writing the code moved forward to {}: {e}",
                        self.spec.notebook.display()
                    ),
                    None,
                );
                return false;
            }
        };
        let moves: Vec<String> = forwarded
            .modernized
            .report
            .changes
            .iter()
            .filter(|c| {
                c.written
                    && forwarded
                        .met
                        .iter()
                        .any(|m| m.round == round && m.moved && m.api == c.old)
            })
            .map(|c| format!("`{}` -> `{}` ({})", c.old, c.new, c.evidence.kind()))
            .collect();
        self.reporter.round(
            round,
            &format!(
                "moved the code forward past what the run met: {}; running it again",
                moves.join(", ")
            ),
        );
        // The new code's evidence. What earlier rounds taught is not taught to it again
        // (a known gap: a lesson about other code is learned anew if a run meets it).
        let usage = crate::notebook::analyze(&nb, from.analyze);
        self.usages[0].1 = usage;
        self.nb = nb;
        self.forwarded = Some(forwarded);
        // The same releases run the new code: not a repeat of the last round.
        self.last_installed = None;
        true
    }

    /// On the interpreters the plan lists: those the notebook allows, or, for a modernized
    /// notebook, the installed ones newest first (not one the user asked for).
    fn may_move_on(&self) -> bool {
        self.spec.infer.reach == Reach::Installed
            && (self.infer_args.python.is_none()
                || self.infer_args.python_source
                    == crate::resolve::options::PythonSource::NewestInstalled)
    }

    fn moving_on(&mut self, round: u32, python: PythonVersion) {
        self.reporter.round(
            round,
            &format!(
                "the environment cannot be built on Python {python}: trying the next interpreter"
            ),
        );
    }

    /// Whether `r` installs what the last round that ran installed, on the same Python: the
    /// very environment, or one whose requirements differ only in comments (a name found to
    /// have no provider, say). The rest of what keys an environment (the kernel runtime's
    /// bounds, the index) is the same in every round.
    fn repeats_last(&mut self, r: &Resolved) -> bool {
        self.last_installed.as_ref().is_some_and(|(python, lines)| {
            *python == r.python() && *lines == crate::output::installed_lines(&r.requirements)
        })
    }

    fn past_deadline(&self) -> bool {
        self.spec.past_deadline()
    }

    fn notebook(&self) -> &str {
        &self.name
    }
}

impl Steps<'_, '_> {
    /// The requirements the next round would have run, resolved quietly; `None` when there
    /// is no resolution.
    fn untried(&mut self, learned: &Learned) -> Option<String> {
        let inferred = self.infer(learned, &crate::reporter::Silent).ok()?;
        Some(requirements_txt(&inferred.inference, &self.name, None))
    }

    /// One inference with what the rounds learned: the releases refuted and broken, the
    /// interpreters passed over, the search's steering.
    fn infer(
        &mut self,
        learned: &Learned,
        reporter: &dyn Reporter,
    ) -> Result<crate::resolve::session::Inferred, SessionError> {
        infer_usages_with(
            self.infer_args,
            self.session,
            self.usages,
            &learned.excluded(),
            InferRun {
                failed: &learned.failed,
                skip_pythons: &learned.skipped,
                steer: &learned.search.steer(),
                ..self.spec.infer
            },
            reporter,
        )
    }
}

impl SearchSpace for Steps<'_, '_> {
    /// The stable releases of `dist` that install on the last resolution's Python: with a
    /// wheel, or (unless only wheels are allowed) built from an sdist uploaded while that
    /// Python was supported.
    fn candidates(&mut self, dist: &DistName) -> Vec<Candidate> {
        let Some(python) = self.last_python else {
            return Vec::new();
        };
        let catalog: &dyn Catalog = match self.spec.infer.catalog {
            Some(shared) => shared,
            None => &self.own_catalog,
        };
        let Ok(releases) = catalog.releases(dist) else {
            return Vec::new();
        };
        let target = crate::resolve::solver::Target::new(python);
        let options = &self.session.solve_options;
        let out = crate::resolve::solver::exclusions(catalog, dist, &releases, &target, options);
        let built_out = if options.wheels_only {
            out.clone()
        } else {
            let building = crate::resolve::solver::SolveOptions {
                sdist_where_no_wheel: true,
                sdist_anywhere: true,
                ..options.clone()
            };
            crate::resolve::solver::exclusions(catalog, dist, &releases, &target, &building)
        };
        releases
            .iter()
            .zip(out.iter().zip(&built_out))
            .filter(|(r, (_, built_out))| built_out.is_none() && r.version.is_stable())
            .map(|(r, (out, _))| Candidate {
                version: r.version.clone(),
                uploaded: r.upload_time(),
                built: out.is_some(),
            })
            .collect()
    }

    fn era(&self) -> Option<jiff::Timestamp> {
        self.era
    }

    fn python_released(&self) -> Option<jiff::Timestamp> {
        let day = crate::python::released_on(self.last_python?)?;
        Some(day.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp())
    }
}

/// The releases a failed run points at besides what its lessons name: the distribution of the
/// API the failure names (`named`), then those whose files its traceback runs through,
/// innermost first, then those whose APIs the failing cell uses.
fn suspects(
    run: &NotebookRun,
    owners: &verify::Owners,
    usage: &Usage,
    named: Option<&ApiPath>,
) -> Vec<Suspect> {
    let Some(raised) = run.first_raised() else {
        return Vec::new();
    };
    let mut found: Vec<(DistName, Version)> = named
        .and_then(|api| owners.owner(api.top_level()))
        .cloned()
        .into_iter()
        .collect();
    for owner in owners.in_frames(raised) {
        if !found.iter().any(|(d, _)| d == &owner.0) {
            found.push(owner);
        }
    }
    let cell = run.executability.first_error_cell;
    for api in usage.third_party_apis() {
        if !api.locations.iter().any(|l| Some(l.cell) == cell) {
            continue;
        }
        if let Some(owner) = owners.owner(api.api.top_level()) {
            if !found.iter().any(|(d, _)| d == &owner.0) {
                found.push(owner.clone());
            }
        }
    }
    found
        .into_iter()
        .map(|(dist, version)| Suspect::new(dist, version))
        .collect()
}

/// What `cache` holds when it was worked out for `python`, else `work_out()`'s answer, kept
/// for `python` in its place.
fn for_python<T: Clone>(
    cache: &mut Option<(PythonVersion, T)>,
    python: PythonVersion,
    work_out: impl FnOnce() -> T,
) -> T {
    match cache {
        Some((on, kept)) if *on == python => kept.clone(),
        _ => cache.insert((python, work_out())).1.clone(),
    }
}

/// The last line of an installer's report that nbenv could not read (`Cython.Compiler.Errors.
/// CompileError: bcolz/carray_ext.pyx`), its hints left out: the failure only says "see the
/// installer's output", which the round's lines would otherwise not show.
fn last_words<'d>(failure: &Failure, detail: &'d str) -> Option<&'d str> {
    if !matches!(
        failure.cause,
        Cause::Install {
            reason: InstallReason::Other,
            ..
        }
    ) {
        return None;
    }
    detail
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with("hint:"))
}

/// The suspects the installer chose, not nbenv (a dependency a release does not declare):
/// to be resolved as the rest, so that the search's move reaches them.
fn undeclared(suspects: &[Suspect], requirements: &str) -> Vec<Lesson> {
    let pins = verify::pinned(requirements);
    suspects
        .iter()
        .filter(|s| !pins.iter().any(|(d, _)| d == &s.dist))
        .map(|s| Lesson::Undeclared {
            dist: s.dist.clone(),
            by: None,
        })
        .collect()
}

/// Every release a run's environment had: the requirements' pins and what they pulled in.
fn installed(requirements: &str, env: &PreparedEnv) -> Vec<(DistName, Version)> {
    let mut all = verify::pinned(requirements);
    for line in &env.unpinned_dependencies {
        all.extend(verify::pinned(line));
    }
    all
}

/// `round 1: gast 0.2.2 failed to install on Python 3.6: passed over from now on`, and
/// `round 1: seaborn 0.7.0 depends on pandas without declaring it, ...`.
fn say_broken(reporter: &dyn Reporter, round: u32, python: PythonVersion, lessons: &[Lesson]) {
    for lesson in lessons {
        match lesson {
            Lesson::Broken {
                dist,
                version,
                step,
            } => reporter.round(
                round,
                &format!(
                    "{dist} {version} failed to {step} on Python {}: passed over from now on",
                    python.feature()
                ),
            ),
            Lesson::Undeclared { dist, by } => reporter.round(
                round,
                &match by {
                    Some((d, v)) => format!(
                        "{d} {v} depends on {dist} without declaring it, and the installer's \
                         choice failed: nbenv resolves {dist} itself next"
                    ),
                    // Declared or not, nbenv did not pin it: the installer chose the release.
                    None => format!(
                        "{dist} was the installer's choice (a dependency of a release here), \
                         not nbenv's, and it failed: nbenv resolves {dist} itself next"
                    ),
                },
            ),
            Lesson::Python { module, range, .. } => reporter.round(
                round,
                &format!(
                    "Python {} has no `{module}` in its standard library: the notebook needs \
                     Python {range}",
                    python.feature()
                ),
            ),
            Lesson::Interpreter { detail, range, .. } => reporter.round(
                round,
                &format!(
                    "Python {} cannot run the code ({detail}): the notebook needs Python {range}",
                    python.feature()
                ),
            ),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel runtime of the era is worked out again when the rounds move to another
    /// Python: IPython 6.3 of a 2018 notebook run on 3.6 does not run on 3.8.
    #[test]
    fn what_is_worked_out_for_one_python_is_worked_out_again_for_another() {
        let mut cache = None;
        let (p36, p38) = (PythonVersion::new(3, 6), PythonVersion::new(3, 8));
        assert_eq!(for_python(&mut cache, p36, || "6.3.1"), "6.3.1");
        assert_eq!(for_python(&mut cache, p36, || unreachable!()), "6.3.1");
        assert_eq!(for_python(&mut cache, p38, || "none"), "none");
        assert_eq!(for_python(&mut cache, p38, || unreachable!()), "none");
    }

    /// An installer failure nbenv reads nothing in shows its last line; one it names does not.
    #[test]
    fn an_install_failure_nbenv_cannot_read_shows_the_installers_last_line() {
        let failed = |reason| {
            Failure::new(
                Cause::Install {
                    what: "the requirements".into(),
                    reason,
                },
                None,
                None,
            )
        };
        let detail = "    raise CompileError(None, pyx_file)\n  Cython.Compiler.Errors.CompileError: bcolz/carray_ext.pyx\nhint: Build failures usually indicate a problem\n\n";
        assert_eq!(
            last_words(&failed(InstallReason::Other), detail),
            Some("Cython.Compiler.Errors.CompileError: bcolz/carray_ext.pyx")
        );
        assert_eq!(
            last_words(&failed(InstallReason::BuildFailed), detail),
            None
        );
        assert_eq!(
            last_words(&failed(InstallReason::Other), "hint: only\n"),
            None
        );
    }

    /// A traceback through a release the installer chose (not among the pins) makes that
    /// distribution one to resolve, so that the search's move reaches it; pinned ones do not.
    #[test]
    fn a_suspect_nbenv_did_not_pin_is_resolved_next() {
        let suspect =
            |d: &str, v: &str| Suspect::new(DistName::new(d).unwrap(), v.parse().unwrap());
        let lessons = undeclared(
            &[suspect("easyprocess", "1.1"), suspect("pandas", "0.19.1")],
            "# Generated by nbenv\npandas==0.19.1  # the notebook imports pandas\npyredatam==0.0.12\n",
        );
        assert_eq!(
            lessons,
            vec![Lesson::Undeclared {
                dist: DistName::new("easyprocess").unwrap(),
                by: None
            }]
        );
    }
}

//! `nbenv restore NB`: infer, build the environment, run the notebook, and when it stops at
//! an environment error, turn the error into evidence and go again, a few rounds at most.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use clap::Args;
use serde::Serialize;

use nbenv::bank::store::ReleaseFailure;
use nbenv::names::DistName;
use nbenv::notebook::failure::{classify, Failure, FailureContext, Problem};
use nbenv::output::{requirements_txt, write_atomically};
use nbenv::python::{Interpreter, PythonVersion};
use nbenv::resolve::interpreter::{runnable_fallback, InterpreterPlan};
use nbenv::verify::{
    self, run_record, EnvError, EnvPlan, Executability, Lesson, PreparedEnv, RunContext, RunEnded,
    RunOptions,
};
use pep508_rs::pep440_rs::Version;

use super::args::{Format, FormatArg, GlobalArgs};
use super::context;
use super::exit::{CliError, Code};
use super::infer::{infer_usages, read_usages, InferArgs, InferFormat, InferSession};
use super::output::write_json;
use super::runs;
use super::verify::{located, ENVS_DIR};

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The notebook (`.ipynb`, or a percent-format / plain `.py`).
    pub notebook: PathBuf,
    /// Write the final requirements to FILE (atomically) instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Rounds of infer, build and run at most.
    #[arg(long, default_value_t = 4, value_name = "N", value_parser = super::args::positive)]
    pub max_rounds: usize,
    /// Resolve for this Python (X.Y); it must be installed here to run the notebook.
    #[arg(long, value_name = "X.Y", value_parser = super::usage::parse_python)]
    pub python: Option<PythonVersion>,
    /// Count releases that have only an sdist as installable, and let the installer build them.
    #[arg(long)]
    pub allow_sdist: bool,
    /// Seconds each cell may take.
    #[arg(long, default_value_t = 600, value_name = "SECS")]
    pub cell_timeout: u64,
    /// Seconds each run may take.
    #[arg(long, default_value_t = 3600, value_name = "SECS")]
    pub timeout: u64,
    /// Do not install the kernel runtime (IPython below 9.1): cells run as plain Python.
    #[arg(long)]
    pub no_kernel_runtime: bool,
    /// After a successful restore, do not install ipykernel into the environment nor register
    /// a Jupyter kernel for it.
    #[arg(long)]
    pub no_kernel_spec: bool,
    /// Write the notebook as the last run left it (outputs, execution counts) to PATH.
    #[arg(long, value_name = "PATH")]
    pub executed: Option<PathBuf>,
    /// Write the final environment as installed to FILE: the requirements' pins, their
    /// unpinned dependencies and the kernel runtime, each marked.
    #[arg(long, value_name = "FILE")]
    pub lock: Option<PathBuf>,
    #[command(flatten)]
    pub sandbox: super::verify::SandboxArg,
    #[command(flatten)]
    pub format: FormatArg,
}

/// One round: what was resolved, and how the run went.
#[derive(Debug, Serialize)]
struct Round {
    python: PythonVersion,
    requirements: String,
    /// `None` when the environment could not be built.
    executability: Option<Executability>,
    first_failure: Option<Failure>,
    /// Cells whose stored text outputs the run printed the same, of those compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    reproduced: Option<(u32, u32)>,
    /// Why the environment could not be built.
    #[serde(skip_serializing_if = "Option::is_none")]
    install_error: Option<String>,
    learned: Vec<Lesson>,
    /// How the cells ran: through IPython (the kernel runtime, with its version) or plain.
    #[serde(skip_serializing_if = "Option::is_none")]
    runner: Option<verify::RunnerMode>,
    /// The kernel runtime's lock, as installed beside the requirements (never in them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    kernel_runtime: Vec<String>,
    /// Seconds each stage took this round.
    seconds: Stages,
}

/// Seconds by stage: resolving (and indexing what the bank lacked), creating the venv,
/// installing into it (both zero when the environment was reused), running the notebook.
#[derive(Debug, Default, Clone, Copy, Serialize)]
struct Stages {
    resolution: f64,
    venv: f64,
    install: f64,
    run: f64,
}

/// Why the rounds stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Stop {
    Ran,
    NotEnvironmental,
    NothingLearned,
    InstallFailed,
    MaxRounds,
}

#[derive(Debug, Serialize)]
struct Restoration<'a> {
    notebook: &'a std::path::Path,
    /// Seconds reading and analysing the notebook, once for all rounds.
    analysis: f64,
    rounds: Vec<Round>,
    stopped: Stop,
    /// The final environment, kept (the earlier rounds' are removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    environment: Option<Kept>,
}

/// How to use the restored environment.
#[derive(Debug, Serialize)]
struct Kept {
    root: PathBuf,
    activate: String,
    /// The Jupyter kernel registered for it, when the notebook ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    kernel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kernel_dir: Option<PathBuf>,
}

pub fn run(global: &GlobalArgs, args: &RestoreArgs) -> Result<()> {
    let infer_args = InferArgs {
        notebook: args.notebook.clone(),
        output: None,
        format: InferFormat::Requirements,
        python: args.python,
        exclude_newer: None,
        date: None,
        allow_sdist: args.allow_sdist,
        ranges: false,
        no_index: false,
        no_declarations: false,
        full_history: false,
        no_introspect: false,
        jobs: 8,
    };
    args.sandbox.check()?;
    let nb = nbenv::notebook::read(&args.notebook)?;
    let analysed = Instant::now();
    let mut usages = read_usages(global, &infer_args)?;
    let analysis = analysed.elapsed();
    let mut infer_args = infer_args;
    if args.python.is_none() {
        let evidence = &usages[0].1.python;
        let installed = nbenv::python::discover_by_name();
        if let Some(v) = runnable_fallback(evidence, &installed) {
            if !global.quiet {
                eprintln!(
                    "note: the notebook was written for Python {}, which is not installed here; \
                     restoring it on Python {v}, the newest installed one its code allows",
                    InterpreterPlan::new(evidence, None, &[])
                        .candidates
                        .first()
                        .map_or_else(|| "?".to_string(), |c| c.version.to_string())
                );
            }
            infer_args.python = Some(v);
        }
    }
    let mut session = InferSession::open(global, &infer_args)?;
    let mut excluded: Vec<(DistName, Version)> = Vec::new();
    let mut rounds: Vec<Round> = Vec::new();
    let name = args.notebook.display().to_string();
    let tools = context::tools(global, &nbenv::python::discover());
    let (installer, _) = tools.installer();
    let envs = context::cache_dir(global).join(ENVS_DIR);
    let mut stopped = Stop::MaxRounds;
    let mut last_env: Option<(PreparedEnv, Interpreter)> = None;
    // Worked out once, on the first round's Python (every round resolves for the same one).
    let mut runtime_era: Option<Option<Version>> = None;
    let mut last_run: Option<verify::NotebookRun> = None;
    // Environments this restore built: all but the last are removed at the end.
    let mut built: Vec<PathBuf> = Vec::new();
    for round in 1..=args.max_rounds {
        let started_at = jiff::Timestamp::now();
        let clock = Instant::now();
        let (inference, _) = infer_usages(global, &infer_args, &session, &usages, &excluded)?;
        let resolution = clock.elapsed();
        let requirements = requirements_txt(&inference, &name, None);
        let python = inference.python.version;
        let Some(path) = inference.python.installed.clone() else {
            return Err(CliError::not_found(format!(
                "the notebook resolved for Python {python}, which is not installed here: install it (pyenv install {python}) to run the notebook"
            ))
            .into());
        };
        let interpreter = Interpreter::at(&path).map_err(anyhow::Error::msg)?;
        let chosen = interpreter.clone();
        if !global.quiet {
            eprintln!(
                "round {round}: Python {python}, {}",
                pins_of(&requirements).join(" ")
            );
        }
        let plan = EnvPlan {
            interpreter,
            requirements: requirements.clone(),
            only_binary: !args.allow_sdist,
            index_url: (global.index_url() != nbenv::pypi::PYPI_SIMPLE)
                .then(|| global.index_url().to_string()),
            kernel_runtime: !args.no_kernel_runtime,
            kernel_runtime_at_most: if args.no_kernel_runtime {
                None
            } else {
                runtime_era
                    .get_or_insert_with(|| {
                        super::verify::runtime_era(global, &nb, python, &session.client)
                    })
                    .clone()
            },
        };
        let cx = RunContext {
            notebook: &args.notebook,
            command: "restore",
            round: round as u32,
            python,
            started_at,
            requirements: &requirements,
        };
        let usage = &usages[0].1;
        let failures = FailureContext::new(&nb, usage).with_python(python);
        let building = super::progress::Spinner::start(
            global,
            if plan.is_built(&envs) {
                None
            } else {
                Some(format!(
                    "round {round}: building the environment on Python {python}"
                ))
            },
        );
        let prepared = verify::prepare(&plan, &envs, &installer, &tools, Duration::from_secs(1800));
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
                let new = learn(&mut session, &mut excluded, &lessons, python, &name);
                rounds.push(Round {
                    python,
                    requirements,
                    executability: None,
                    first_failure: Some(failure),
                    reproduced: None,
                    install_error: Some(detail),
                    learned: lessons,
                    runner: None,
                    kernel_runtime: Vec::new(),
                    seconds: Stages {
                        resolution: resolution.as_secs_f64(),
                        ..Stages::default()
                    },
                });
                if !new {
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
            cell_timeout: Duration::from_secs(args.cell_timeout),
            total_timeout: Duration::from_secs(args.timeout),
            sandbox: args.sandbox.sandbox,
            ..RunOptions::default()
        };
        let ran = Instant::now();
        let run = verify::run_notebook(&nb, &env.python, &options)
            .with_context(|| format!("running {}", args.notebook.display()))?;
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
            reproduced: {
                let r = run.reproduction(&nb);
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
        if !failure.is_environmental() {
            rounds.push(this);
            stopped = Stop::NotEnvironmental;
            break;
        }
        say_broken(global, round, python, &lessons);
        let mut new = verify::teach(&mut usages[0].1, &lessons);
        new |= learn(&mut session, &mut excluded, &lessons, python, &name);
        this.learned = lessons;
        rounds.push(this);
        if !new {
            stopped = Stop::NothingLearned;
            break;
        }
    }
    let last = rounds.last().expect("at least one round");
    if let Some(path) = &args.output {
        write_atomically(path, last.requirements.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let final_root = last_env.as_ref().map(|(env, _)| env.root.clone());
    for root in built.iter().filter(|r| Some(*r) != final_root.as_ref()) {
        // A failed round's environment: nothing will use it again.
        let _ = std::fs::remove_dir_all(root);
    }
    if let Some(root) = &final_root {
        super::verify::keep_envs_within_budget(global, &envs, root);
    }
    if let (Some(path), Some((env, _))) = (&args.lock, &last_env) {
        let requirements = rounds.last().map_or("", |r| r.requirements.as_str());
        write_atomically(path, environment_lock(&name, requirements, env).as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if let (Some(path), Some(run)) = (&args.executed, &last_run) {
        let executed = verify::executed_notebook(&nb, run);
        let text = serde_json::to_string_pretty(&executed)? + "\n";
        write_atomically(path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let last_requirements = rounds.last().map_or("", |r| r.requirements.as_str());
    let environment = last_env.as_ref().map(|(env, interpreter)| {
        let ran = stopped == Stop::Ran;
        keep(
            global,
            args,
            env,
            interpreter,
            ran,
            last_requirements,
            &installer,
        )
    });
    let done = Restoration {
        notebook: &args.notebook,
        analysis: analysis.as_secs_f64(),
        rounds,
        stopped,
        environment,
    };
    match args.format.format {
        Format::Json => write_json(&mut std::io::stdout().lock(), &done)?,
        Format::Text => {
            if args.output.is_none() {
                print!("{}", done.rounds.last().expect("a round").requirements);
            }
            eprint!("{}", summary(&done));
        }
    }
    match done.stopped {
        Stop::Ran => Ok(()),
        Stop::InstallFailed => Err(CliError::reported(Code::EnvironmentFailed).into()),
        _ => Err(CliError::reported(Code::NotebookFailed).into()),
    }
}

/// The final environment, described for use; when the notebook ran, a Jupyter kernel is
/// registered for it (unless asked not to). A kernel that cannot be registered is a warning:
/// the restoration stands.
fn keep(
    global: &GlobalArgs,
    args: &RestoreArgs,
    env: &PreparedEnv,
    interpreter: &Interpreter,
    ran: bool,
    requirements: &str,
    installer: &nbenv::python::Installer,
) -> Kept {
    let mut kept = Kept {
        root: env.root.clone(),
        activate: format!("source {}", env.root.join("bin").join("activate").display()),
        kernel: None,
        kernel_dir: None,
    };
    if !ran || args.no_kernel_spec {
        return kept;
    }
    let name = verify::kernel_name(&args.notebook, env);
    let display = format!(
        "{} (nbenv, Python {})",
        args.notebook
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        interpreter.version.feature()
    );
    let pins: Vec<String> = pins_of(requirements)
        .iter()
        .map(|p| p.to_string())
        .collect();
    let spinner = super::progress::Spinner::start(
        global,
        Some("installing ipykernel and registering a Jupyter kernel".into()),
    );
    let registered = verify::install_kernel_spec(
        env,
        interpreter,
        installer,
        &pins,
        &name,
        &display,
        (global.index_url() != nbenv::pypi::PYPI_SIMPLE).then(|| global.index_url().to_string()),
        Duration::from_secs(600),
    );
    spinner.finish();
    match registered {
        Ok(dir) => {
            kept.kernel = Some(name);
            kept.kernel_dir = Some(dir);
        }
        Err(e) => {
            if !global.quiet {
                eprintln!("warning: no Jupyter kernel for the environment: {e}");
            }
        }
    }
    kept
}

/// The environment as installed, for `--lock`: what the notebook needs (pinned by nbenv),
/// what those pins pulled in, and the kernel runtime, marked so that nobody takes it for a
/// requirement of the notebook.
fn environment_lock(notebook: &str, requirements: &str, env: &PreparedEnv) -> String {
    let mut out = format!(
        "# The environment nbenv restored {notebook} in, as installed ({})\n",
        env.root.display()
    );
    for pin in pins_of(requirements) {
        out.push_str(&format!("{pin}  # requirement\n"));
    }
    for pin in &env.unpinned_dependencies {
        out.push_str(&format!("{pin}  # dependency of the requirements\n"));
    }
    for pin in &env.kernel_runtime {
        out.push_str(&format!(
            "{pin}  # kernel runtime (not a requirement of the notebook)\n"
        ));
    }
    out
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

/// Takes in what a round taught: evidence and exclusions for this notebook, and releases
/// broken on this Python, which later resolutions (this one's next round, and every one
/// after reading the bank's run records) pass over. Returns whether anything was new.
fn learn(
    session: &mut InferSession,
    excluded: &mut Vec<(DistName, Version)>,
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
                let failed = &mut session.solve_options.failed;
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
            Lesson::Api { .. } | Lesson::Module { .. } => {}
        }
    }
    new
}

fn pins_of(requirements: &str) -> Vec<&str> {
    requirements
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#') && !l.starts_with('-') && !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .map(|p| p.trim_end_matches('\\'))
        .collect()
}

/// Rounds, cells run, the first error, and why the rounds stopped.
fn summary(done: &Restoration<'_>) -> String {
    let mut out = String::new();
    for (i, r) in done.rounds.iter().enumerate() {
        let ran = match &r.executability {
            Some(e) => format!(
                "{} of {} cells ran",
                e.cells_before_first_error, e.code_cells
            ),
            None => "the environment could not be built".to_string(),
        };
        let ran = match r.reproduced {
            Some((same, of)) => format!("{ran}, {same} of {of} stored outputs reproduced"),
            None => ran,
        };
        let error = match (&r.first_failure, &r.install_error) {
            (Some(f), _) => format!("; {}", located(f)),
            (None, Some(detail)) => format!(": {}", detail.lines().last().unwrap_or_default()),
            _ => String::new(),
        };
        let runtime = match &r.runner {
            Some(verify::RunnerMode::Ipython { version }) => format!(" (IPython {version})"),
            _ => String::new(),
        };
        out.push_str(&format!(
            "round {}: Python {}{runtime}: {ran}{error}\n",
            i + 1,
            r.python
        ));
    }
    out.push_str(match done.stopped {
        Stop::Ran => "restored: the notebook ran to the end\n",
        Stop::NotEnvironmental => {
            "not restored: the first error is not the environment's (the notebook's code or data)\n"
        }
        Stop::NothingLearned => "not restored: the last error taught nothing new\n",
        Stop::InstallFailed => "not restored: the environment could not be built\n",
        Stop::MaxRounds => "not restored: --max-rounds reached\n",
    });
    if let Some(kept) = &done.environment {
        out.push_str(&format!("environment: {}\n", kept.root.display()));
        if done.stopped == Stop::Ran {
            out.push_str(&format!("  use it: {}\n", kept.activate));
            if let Some(kernel) = &kept.kernel {
                out.push_str(&format!("  in Jupyter: the kernel {kernel:?}\n"));
            }
        }
    }
    out
}

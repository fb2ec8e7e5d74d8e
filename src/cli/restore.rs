//! `nbenv restore NB`: infer, build the environment, run the notebook, and when it stops at
//! an environment error, turn the error into evidence and go again, a few rounds at most.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, Result};
use clap::Args;
use serde::Serialize;

use nbenv::names::DistName;
use nbenv::notebook::failure::{Failure, FailureContext};
use nbenv::output::{requirements_txt, write_atomically};
use nbenv::python::{Interpreter, PythonVersion};
use nbenv::verify::{self, EnvError, EnvPlan, Executability, Lesson, RunOptions};
use pep508_rs::pep440_rs::Version;

use super::args::{Format, FormatArg, GlobalArgs};
use super::context;
use super::exit::{CliError, Code};
use super::infer::{infer_usages, read_usages, InferArgs, InferFormat, InferSession};
use super::output::write_json;
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
    rounds: Vec<Round>,
    stopped: Stop,
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
    let nb = nbenv::notebook::read(&args.notebook)?;
    let mut usages = read_usages(global, &infer_args)?;
    let session = InferSession::open(global, &infer_args)?;
    let mut excluded: Vec<(DistName, Version)> = Vec::new();
    let mut rounds: Vec<Round> = Vec::new();
    let name = args.notebook.display().to_string();
    let tools = context::tools(global, &nbenv::python::discover());
    let (installer, _) = tools.installer();
    let envs = context::cache_dir(global).join(ENVS_DIR);
    let mut stopped = Stop::MaxRounds;
    for round in 1..=args.max_rounds {
        let (inference, _) = infer_usages(global, &infer_args, &session, &usages, &excluded)?;
        let requirements = requirements_txt(&inference, &name, None);
        let Some(path) = inference.python.installed.clone() else {
            return Err(CliError::not_found(format!(
                "the notebook resolved for Python {}, which is not installed here: install it (pyenv install {}) to run the notebook",
                inference.python.version, inference.python.version
            ))
            .into());
        };
        let interpreter = Interpreter::at(&path).map_err(anyhow::Error::msg)?;
        if !global.quiet {
            eprintln!(
                "round {round}: Python {}, {}",
                inference.python.version,
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
        };
        let env = match verify::prepare(&plan, &envs, &installer, &tools, Duration::from_secs(1800))
        {
            Ok(env) => env,
            Err(EnvError::Install { detail, .. }) => {
                rounds.push(Round {
                    python: inference.python.version,
                    requirements,
                    executability: None,
                    first_failure: None,
                    reproduced: None,
                    install_error: Some(detail),
                    learned: Vec::new(),
                });
                stopped = Stop::InstallFailed;
                break;
            }
            Err(e) => return Err(e.into()),
        };
        let options = RunOptions {
            cell_timeout: Duration::from_secs(args.cell_timeout),
            total_timeout: Duration::from_secs(args.timeout),
            ..RunOptions::default()
        };
        let run = verify::run_notebook(&nb, &env.python, &options)
            .with_context(|| format!("running {}", args.notebook.display()))?;
        let usage = &usages[0].1;
        let cx = FailureContext::new(&nb, usage).with_python(inference.python.version);
        let failure = run.first_failure(&cx);
        let mut this = Round {
            python: inference.python.version,
            requirements,
            executability: Some(run.executability),
            first_failure: failure.clone(),
            reproduced: {
                let r = run.reproduction(&nb);
                (r.compared > 0).then_some((r.reproduced, r.compared))
            },
            install_error: None,
            learned: Vec::new(),
        };
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
        let lessons = verify::lessons(&failure, &inference);
        let mut new = verify::teach(&mut usages[0].1, &lessons);
        for lesson in &lessons {
            if let Lesson::Exclude { dist, version } = lesson {
                if !excluded.iter().any(|(d, v)| d == dist && v == version) {
                    excluded.push((dist.clone(), version.clone()));
                    new = true;
                }
            }
        }
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
    let done = Restoration {
        notebook: &args.notebook,
        rounds,
        stopped,
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

fn pins_of(requirements: &str) -> Vec<&str> {
    requirements
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split("  #").next().unwrap_or(l))
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
        out.push_str(&format!(
            "round {}: Python {}: {ran}{error}\n",
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
    out
}

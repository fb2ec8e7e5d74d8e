//! `nbenv verify NB -r requirements.txt`: build the environment (with a kernel runtime), run
//! the notebook in it, and say how far it got, where it stopped and why.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, Result};
use clap::Args;
use serde::Serialize;

use nbenv::notebook::failure::{classify, BankHistory, Failure, FailureContext, Problem};
use nbenv::notebook::{self, AnalyzeOptions};
use nbenv::output::python_of;
use nbenv::python::{Interpreter, PythonVersion};
use nbenv::resolve::interpreter::{InterpreterPlan, Reach};
use nbenv::verify::{
    self, run_record, EnvPlan, NotebookRun, PreparedEnv, Reproduction, RunContext, RunEnded,
    RunOptions,
};

use super::args::{Format, FormatArg};
use super::context;
use super::exit::{CliError, Code};
use super::output::{count, write_json};

/// Where built environments are kept, under the cache directory.
pub use nbenv::commands::global::ENVS_DIR;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The notebook (`.ipynb`, or a percent-format / plain `.py`).
    pub notebook: PathBuf,
    /// The requirements to install (what `nbenv infer -o` wrote, or any requirements file).
    #[arg(short = 'r', long, value_name = "FILE")]
    pub requirements: PathBuf,
    /// The interpreter: a version (X.Y) installed here, or a path. Default: the Python the
    /// requirements' header names (`infer` writes it), else the newest installed one the
    /// notebook allows.
    #[arg(long, value_name = "X.Y|PATH")]
    pub python: Option<String>,
    /// Seconds each cell may take.
    #[arg(long, default_value_t = 600, value_name = "SECS")]
    pub cell_timeout: u64,
    /// Seconds the whole run may take.
    #[arg(long, default_value_t = 3600, value_name = "SECS")]
    pub timeout: u64,
    /// Seconds installing may take.
    #[arg(long, default_value_t = 1800, value_name = "SECS")]
    pub install_timeout: u64,
    /// Let the installer build sdists (default: wheels only).
    #[arg(long)]
    pub allow_sdist: bool,
    /// Do not install the kernel runtime (IPython below 9.1) with the requirements: cells run
    /// as plain Python, with the common magics translated.
    #[arg(long)]
    pub no_kernel_runtime: bool,
    /// Write the notebook as the run left it (outputs, execution counts) to PATH.
    #[arg(long, value_name = "PATH")]
    pub executed: Option<PathBuf>,
    #[command(flatten)]
    pub sandbox: SandboxArg,
    #[command(flatten)]
    pub format: FormatArg,
}

/// `--sandbox`, shared by `verify` and `restore`.
#[derive(Debug, Clone, Copy, Args)]
pub struct SandboxArg {
    /// Run the notebook confined: no network (a network namespace of its own), limits on
    /// memory (16 GiB of address space), CPU time (the run's limit), file size (4 GiB) and
    /// processes, a temporary HOME, none of your environment variables. Refused (exit 23)
    /// where the system allows no network namespace.
    #[arg(long)]
    pub sandbox: bool,
}

impl SandboxArg {
    /// Refuses before anything is built when the sandbox cannot be had here.
    pub fn check(&self) -> Result<()> {
        if self.sandbox {
            if let verify::sandbox::ProcessLimit::RlimitOnly { reason } = verify::sandbox::check()?
            {
                super::printer::note(&format!(
                    "--sandbox: no cgroup for the runs' processes here ({reason}); \
                     RLIMIT_NPROC alone bounds them, and it does not bind root"
                ));
            }
        }
        Ok(())
    }
}

/// What `verify` found, as JSON.
#[derive(Debug, Serialize)]
struct Verification<'a> {
    notebook: &'a Path,
    requirements: &'a Path,
    python: PythonVersion,
    interpreter: &'a Path,
    environment: &'a PreparedEnv,
    run: &'a NotebookRun,
    first_failure: Option<Failure>,
    reproduction: Reproduction,
}

pub fn run(global: &super::args::GlobalArgs, args: &VerifyArgs) -> Result<()> {
    args.sandbox.check()?;
    let nb = notebook::read(&args.notebook)?;
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let text = std::fs::read_to_string(&args.requirements)
        .with_context(|| format!("reading {}", args.requirements.display()))
        .map_err(|e| CliError::not_found(format!("{e:#}")))?;
    let interpreter = choose_interpreter(args, &text, &usage)?;
    let tools = context::tools(global, context::interpreters());
    let (installer, _) = tools.installer();
    // A resolution `infer` made from sdists says so in its header: pure-Python ones are
    // built by name (the plan reads them from the header), everything else from wheels;
    // one made for want of a resolution from wheels builds whatever it needs.
    let only_binary =
        !args.allow_sdist && nbenv::output::sdists_built(&text).is_none_or(|built| built.only_pure);
    let plan = EnvPlan {
        interpreter: interpreter.clone(),
        requirements: text,
        only_binary,
        index_url: (global.index_url() != nbenv::pypi::PYPI_SIMPLE)
            .then(|| global.index_url().to_string()),
        kernel_runtime: !args.no_kernel_runtime,
        kernel_runtime_at_most: if args.no_kernel_runtime {
            None
        } else {
            verify::runtime_era(
                &super::printer::Printer::of(global),
                &nb,
                interpreter.version,
                &context::index_client(global)?,
            )
        },
        kernel_runtime_below: if args.no_kernel_runtime {
            None
        } else {
            verify::runtime_below(
                &super::printer::Printer::of(global),
                &nb,
                interpreter.version,
            )
        },
        wheels: Vec::new(),
    };
    let envs = context::cache_dir(global).join(ENVS_DIR);
    if !global.quiet && !plan.is_built(&envs) {
        super::printer::note(&format!(
            "building the environment on Python {} ({}) from {}{}",
            interpreter.version,
            interpreter.path.display(),
            args.requirements.display(),
            if plan.kernel_runtime {
                format!(", with the kernel runtime ({})", plan.runtime_requirement())
            } else {
                String::new()
            }
        ));
    }
    let started_at = jiff::Timestamp::now();
    let clock = std::time::Instant::now();
    let requirements = plan.requirements.clone();
    let cx = RunContext {
        notebook: &args.notebook,
        command: "verify",
        round: 1,
        python: interpreter.version.feature(),
        started_at,
        requirements: &requirements,
    };
    let bank = super::bank::bank_path(global);
    let history = BankHistory::at(&bank);
    let failures = FailureContext::new(&nb, &usage)
        .with_python(interpreter.version)
        .with_bank(&history)
        .with_installed(verify::pinned(&requirements));
    let printer = super::printer::Printer::of(global);
    let env = match verify::prepare_within(
        &plan,
        &envs,
        &installer,
        &tools,
        Duration::from_secs(args.install_timeout),
        Some(verify::Budgeted {
            budget: &context::disk_budget(global, &envs, &installer),
            builders: 1,
            estimate: None,
            reporter: &printer,
        }),
    ) {
        Ok(env) => env,
        Err(e) => {
            if let verify::EnvError::Install { detail, .. } = &e {
                let failure = classify(
                    &Problem::InstallFailed {
                        what: args.requirements.display().to_string(),
                        detail: detail.clone(),
                    },
                    None,
                    &failures,
                );
                let lessons =
                    verify::install_lessons(&failure, detail, &verify::pinned(&requirements));
                let ended = RunEnded::NotBuilt {
                    failure: &failure,
                    detail,
                };
                verify::store_run(
                    &bank,
                    &run_record(&cx, ended, &lessons, clock.elapsed()),
                    &super::printer::Printer::of(global),
                );
            }
            return Err(e.into());
        }
    };
    let options = RunOptions {
        cell_timeout: Duration::from_secs(args.cell_timeout),
        total_timeout: Duration::from_secs(args.timeout),
        sandbox: args.sandbox.sandbox,
        sys_path: usage.repository_paths(),
        ..RunOptions::default()
    };
    if let Some(note) = options.sys_path_note() {
        super::printer::note(&note);
    }
    let live = nbenv::reporter::Reporter::live(&printer, "starting the notebook's runner");
    let run = verify::run_notebook_watching(&nb, &env.python, &options, &mut |cell| {
        live.advance(&format!("running {}", nb.cell_label(cell)));
    });
    live.finish();
    let run = run.with_context(|| format!("running {}", args.notebook.display()))?;
    if let Some(path) = &args.executed {
        let executed = verify::executed_notebook(&nb, &run);
        let text = serde_json::to_string_pretty(&executed)? + "\n";
        nbenv::output::write_atomically(path, text.as_bytes())?;
    }
    let failure = run.first_failure(&failures);
    let ended = RunEnded::Ran {
        run: &run,
        failure: failure.as_ref(),
    };
    verify::store_run(
        &bank,
        &run_record(&cx, ended, &[], clock.elapsed()),
        &super::printer::Printer::of(global),
    );
    let reproduction = run.reproduction(&nb);
    let found = Verification {
        notebook: &args.notebook,
        requirements: &args.requirements,
        python: interpreter.version,
        interpreter: &interpreter.path,
        environment: &env,
        run: &run,
        first_failure: failure.clone(),
        reproduction,
    };
    match args.format.format {
        Format::Json => write_json(&mut std::io::stdout().lock(), &found)?,
        Format::Text => print!("{}", summary(&found)),
    }
    match &failure {
        None if run.executability.complete() => Ok(()),
        _ => Err(CliError::reported(Code::NotebookFailed).into()),
    }
}

/// The human summary: cells run, the first error with its class and cell, the environment.
fn summary(v: &Verification<'_>) -> String {
    let mut out = String::new();
    let e = &v.run.executability;
    out.push_str(&format!("notebook     {}\n", v.notebook.display()));
    out.push_str(&format!(
        "environment  Python {} ({}), {} {}\n",
        v.python,
        v.interpreter.display(),
        if v.environment.reused {
            "reused".to_string()
        } else {
            format!("built in {:.1} s", v.environment.build_time.as_secs_f64())
        },
        v.environment.root.display()
    ));
    out.push_str(&format!(
        "cells        {} of {} ran{} (executability {:.2})\n",
        e.cells_before_first_error,
        count(e.code_cells as usize, "code cell", "code cells"),
        if e.complete() {
            ""
        } else {
            " before the first error"
        },
        e.share()
    ));
    match &v.first_failure {
        Some(f) => out.push_str(&format!("error        {}\n", f.located())),
        None if e.complete() => out.push_str("error        none: the notebook ran to the end\n"),
        None => out.push_str("error        the run stopped without an error from a cell\n"),
    }
    if let Some(share) = v.reproduction.share() {
        out.push_str(&format!(
            "reproduced   {} of {} cells with stored text output printed the same ({:.0}%)\n",
            v.reproduction.reproduced,
            v.reproduction.compared,
            share * 100.0
        ));
    }
    out
}

/// `cell 2: environment: ...`: a failure with the cell it stopped in, when known.
/// `--python`, else the requirements' header, else the newest installed interpreter the
/// notebook allows.
fn choose_interpreter(
    args: &VerifyArgs,
    requirements: &str,
    usage: &nbenv::notebook::Usage,
) -> Result<Interpreter> {
    let installed = context::interpreters();
    let by_version = |v: PythonVersion, why: &str| -> Result<Interpreter> {
        installed
            .iter()
            .filter(|i| i.version.feature() == v.feature())
            .max_by_key(|i| i.version)
            .cloned()
            .ok_or_else(|| {
                CliError::not_found(format!(
                    "no Python {v} is installed here ({why}); install one (pyenv install {v}) or pass --python"
                ))
                .into()
            })
    };
    if let Some(p) = &args.python {
        let path = Path::new(p);
        if path.exists() {
            return Interpreter::at(path)
                .map_err(|e| CliError::usage(format!("--python {p}: {e}")).into());
        }
        let v = PythonVersion::parse(p)
            .filter(|_| p.split('.').count() == 2)
            .ok_or_else(|| {
                CliError::usage(format!("--python {p}: not a version like 3.8 nor a file"))
            })?;
        return by_version(v, "asked for with --python");
    }
    if let Some(v) = python_of(requirements) {
        return by_version(v, "the requirements were resolved for it");
    }
    let by_name = context::interpreters_by_name();
    let plan = InterpreterPlan::new(&usage.python, None, by_name, Reach::Installed);
    plan.candidates
        .iter()
        .find_map(|c| c.installed.as_ref())
        .map(|p| Interpreter::at(p).map_err(anyhow::Error::msg))
        .unwrap_or_else(|| {
            Err(
                CliError::not_found("no installed interpreter fits the notebook; pass --python")
                    .into(),
            )
        })
}

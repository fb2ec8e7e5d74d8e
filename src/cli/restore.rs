//! `nbenv restore NB`: infer, build the environment, run the notebook, and when it stops at
//! an environment error, turn the error into evidence and go again, a few rounds at most.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Args;
use serde::Serialize;

use nbenv::modernize::prefer::Mode;
use nbenv::output::write_atomically;
use nbenv::python::{Interpreter, PythonVersion};
use nbenv::resolve::interpreter::Reach;
use nbenv::verify::{self, PreparedEnv};

use super::args::{Format, FormatArg, GlobalArgs};
use super::context;
use super::exit::{CliError, Code};
use nbenv::resolve::options::InferOptions;

use nbenv::resolve::session::{read_usages_of, InferRun};

use super::output::write_json;
use super::printer::Printer;
use super::verify::ENVS_DIR;
use nbenv::restore::{pins_of, restore, Restored, Round, RoundError, RoundsSpec, Stop};

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
    /// Who fixed `python` (modernize fixes the newest installed), not a flag.
    #[arg(skip)]
    pub python_source: nbenv::resolve::options::PythonSource,
    /// Count releases that have only an sdist as installable, and let the installer build them.
    #[arg(long, conflicts_with = "wheels_only")]
    pub allow_sdist: bool,
    /// Nothing from sdists, not even pure-Python ones: stop (exit 20) rather than build from
    /// sdists when no interpreter has a resolution from wheels alone (as `infer --wheels-only`).
    #[arg(long)]
    pub wheels_only: bool,
    /// Ignore files uploaded after this date (YYYY-MM-DD, or an RFC 3339 instant), as
    /// `infer --exclude-newer`.
    #[arg(long, value_name = "DATE", value_parser = super::infer::parse_date)]
    pub exclude_newer: Option<jiff::Timestamp>,
    /// The notebook's era, preferred for every release chosen, as `infer --date`: `auto` (the
    /// default: its last commit, else its stored outputs), a date, or `none`.
    #[arg(long, value_name = "auto|DATE|none", default_value = "auto", value_parser = super::infer::parse_era)]
    pub date: nbenv::resolve::options::EraChoice,
    /// Do not read the repository's declarations beside the notebook, as `infer
    /// --no-declarations`.
    #[arg(long)]
    pub no_declarations: bool,
    /// Seconds introspection may take in all, per resolution (a restore round is one): past
    /// them an answer static reading cannot give stays unknown and constrains nothing (`nbenv
    /// bank introspect` settles it without a limit). 0: introspect nothing.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub introspect_budget: u64,
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
    /// `era`: restore the notebook as it is, in its era. `modern`: first move its code to the
    /// successors the bank proves (as `nbenv modernize`) and restore that on the newest
    /// installed Python (or `--python`), writing it to `<stem>.modern.ipynb` when it runs to
    /// the end; else restore the notebook in its era.
    #[arg(long, default_value = "era", value_name = "modern|era")]
    pub prefer: Mode,
    #[command(flatten)]
    pub sandbox: super::verify::SandboxArg,
    #[command(flatten)]
    pub format: FormatArg,
}

#[derive(Serialize)]
struct Restoration<'a> {
    notebook: &'a std::path::Path,
    /// The mode kept, when `--prefer modern` tried the modern one.
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<Mode>,
    /// How the modern attempt fared, when it was tried.
    #[serde(skip_serializing_if = "Option::is_none")]
    modern: Option<&'a super::prefer::Tried>,
    /// Seconds reading and analysing the notebook, once for all rounds.
    analysis: f64,
    rounds: Vec<Round>,
    stopped: Stop,
    /// Which requirements were written, and why.
    kept: &'a nbenv::restore::Kept,
    /// The notebook the rounds ran, for its cells' numbering.
    #[serde(skip)]
    nb: &'a nbenv::notebook::Notebook,
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
    run_under(global, args, None)
}

/// [`run`], its JSON document nested under `run` in `head` when there is one (`modernize
/// --format json` prints one document: its report, and the restoration under it).
pub(super) fn run_under(
    global: &GlobalArgs,
    args: &RestoreArgs,
    head: Option<serde_json::Value>,
) -> Result<()> {
    args.sandbox.check()?;
    if args.prefer == Mode::Modern {
        return super::prefer::run(global, args);
    }
    let nb = nbenv::notebook::read(&args.notebook)?;
    let era = attempt(global, args, Target::era(args, nb)?)?;
    finish(global, args, era, None, head)
}

/// Which notebook a restoration's rounds run, on which Python, capped at which date.
pub(super) struct Target {
    /// The notebook as the rounds read it (the modernized one's temporary copy).
    pub notebook: PathBuf,
    pub nb: nbenv::notebook::Notebook,
    pub python: Option<PythonVersion>,
    pub python_source: nbenv::resolve::options::PythonSource,
    pub cap: nbenv::resolve::options::DateCap,
    pub era: nbenv::resolve::options::EraChoice,
    /// For a modernized notebook: its original, whose code a run may move further forward.
    pub original: Option<Original>,
}

/// The notebook a modernized one was made from, and whether the rounds run its candidates.
pub(super) struct Original {
    pub nb: nbenv::notebook::Notebook,
    pub bytes: Vec<u8>,
    pub candidates: bool,
}

impl Target {
    /// The notebook as it is, on its own Python (or `--python`), in its era.
    pub fn era(args: &RestoreArgs, nb: nbenv::notebook::Notebook) -> Result<Self> {
        Ok(Self {
            notebook: args.notebook.clone(),
            nb,
            python: args.python,
            python_source: args.python_source,
            cap: super::infer::date_cap(args.exclude_newer),
            era: args.date,
            original: None,
        })
    }
}

/// One restoration's rounds, with what finishing it needs.
pub(super) struct Attempt {
    pub target: Target,
    /// Reading and analysing the notebook, once for all rounds.
    pub analysis: Duration,
    pub restored: Restored,
    pub envs: PathBuf,
    pub installer: nbenv::python::Installer,
}

impl Attempt {
    /// Whether the last round ran the notebook to its end.
    pub fn ran(&self) -> bool {
        self.restored.stopped == Stop::Ran
    }

    /// Removes every environment these rounds built: another attempt is kept.
    pub fn discard(&self) {
        for root in &self.restored.built {
            verify::remove_unused(&self.envs, root);
        }
    }
}

/// Runs restore's rounds for `target`.
pub(super) fn attempt(global: &GlobalArgs, args: &RestoreArgs, target: Target) -> Result<Attempt> {
    let infer_args = InferOptions {
        python: target.python,
        python_source: target.python_source,
        cap: target.cap,
        era: target.era,
        sdists: super::infer::sdists(args.allow_sdist, args.wheels_only),
        introspect: super::infer::introspect(false, args.introspect_budget),
        declarations: !args.no_declarations,
        ..InferOptions::new(target.notebook.clone())
    };
    let analysed = Instant::now();
    let printer = Printer::of(global);
    let mut usages = read_usages_of(&infer_args, Some(&target.nb), &printer)?;
    let analysis = analysed.elapsed();
    let session = context::open_session(global, &infer_args)?;
    let tools = context::tools(global, context::interpreters());
    let (installer, _) = tools.installer();
    let envs = context::cache_dir(global).join(ENVS_DIR);
    let analyze = nbenv::notebook::AnalyzeOptions::default();
    let forward = target
        .original
        .as_ref()
        .map(|o| nbenv::modernize::forward::ForwardFrom {
            original: &o.nb,
            bytes: &o.bytes,
            analyze: &analyze,
            name: target.notebook.display().to_string(),
            candidates: o.candidates,
        });
    let restored = restore(
        &printer,
        &infer_args,
        &session,
        &mut usages,
        &RoundsSpec {
            notebook: &target.notebook,
            nb: &target.nb,
            max_rounds: args.max_rounds,
            allow_sdist: args.allow_sdist,
            kernel_runtime: !args.no_kernel_runtime,
            cell_timeout: Duration::from_secs(args.cell_timeout),
            run_timeout: Duration::from_secs(args.timeout),
            sandbox: args.sandbox.sandbox,
            envs: &envs,
            installer: &installer,
            tools: &tools,
            index_url: context::index_url_if_not_pypi(global),
            infer: InferRun {
                reach: Reach::Installed,
                ..InferRun::default()
            },
            command: "restore",
            disk: Some(&context::disk_budget(global, &envs, &installer)),
            builders: 1,
            forward,
        },
    )
    .map_err(|e| -> anyhow::Error {
        match e {
            RoundError::NotInstalled(not) => CliError::not_found(not.to_string()).into(),
            e => e.into(),
        }
    })?;
    Ok(Attempt {
        target,
        analysis,
        restored,
        envs,
        installer,
    })
}

/// The kept attempt's outputs written, its environment kept (and a kernel registered when it
/// ran), its summary printed; the exit code is its own. `modern` says how the modern mode
/// fared when it was tried: the kept notebook is then `notebook` (the modernized one written
/// beside the input when it is the one kept).
pub(super) fn finish(
    global: &GlobalArgs,
    args: &RestoreArgs,
    kept: Attempt,
    modern: Option<super::prefer::Tried>,
    head: Option<serde_json::Value>,
) -> Result<()> {
    let Attempt {
        target,
        analysis,
        restored:
            Restored {
                mut rounds,
                stopped,
                mut kept,
                last_env,
                last_run,
                built,
                failed: _,
                forwarded: _,
            },
        envs,
        installer,
    } = kept;
    // The notebook as the user has it: the input, or the modernized one written beside it.
    let notebook = match &modern {
        Some(tried) if tried.why.mode() == Mode::Modern => tried.written.clone(),
        _ => None,
    }
    .unwrap_or_else(|| args.notebook.clone());
    let name = notebook.display().to_string();
    if notebook != target.notebook {
        // The rounds ran a temporary copy: the requirements name the notebook kept.
        for r in &mut rounds {
            if let Some(inference) = &r.inference {
                r.requirements = nbenv::output::requirements_txt(inference, &name, None);
            }
        }
        kept.requirements = kept
            .requirements
            .replace(&target.notebook.display().to_string(), &name);
    }
    if let Some(path) = &args.output {
        write_atomically(path, kept.requirements.as_bytes())?;
    }
    let final_root = last_env.as_ref().map(|(env, _)| env.root.clone());
    for root in built.iter().filter(|r| Some(*r) != final_root.as_ref()) {
        // A failed round's environment: nothing will use it again (unless another run is
        // using it now).
        verify::remove_unused(&envs, root);
    }
    if let (Some(path), Some((env, _))) = (&args.lock, &last_env) {
        write_atomically(
            path,
            environment_lock(&name, &kept.requirements, env).as_bytes(),
        )?;
    }
    if let (Some(path), Some(run)) = (&args.executed, &last_run) {
        let executed = verify::executed_notebook(&target.nb, run);
        let text = serde_json::to_string_pretty(&executed)? + "\n";
        write_atomically(path, text.as_bytes())?;
    }
    let environment = last_env.as_ref().map(|(env, interpreter)| {
        let ran = stopped == Stop::Ran;
        keep(
            global,
            args,
            &notebook,
            env,
            interpreter,
            ran,
            &kept.requirements,
            &installer,
        )
    });
    let done = Restoration {
        notebook: &notebook,
        mode: modern.as_ref().map(|m| m.why.mode()),
        modern: modern.as_ref(),
        analysis: analysis.as_secs_f64(),
        rounds,
        stopped,
        kept: &kept,
        nb: &target.nb,
        environment,
    };
    match args.format.format {
        Format::Json => match head {
            None => write_json(&mut std::io::stdout().lock(), &done)?,
            Some(mut head) => {
                head["run"] = serde_json::to_value(&done)?;
                write_json(&mut std::io::stdout().lock(), &head)?
            }
        },
        Format::Text => {
            if args.output.is_none() {
                print!("{}", done.kept.requirements);
            }
            super::printer::block(&summary(&done));
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
#[allow(clippy::too_many_arguments)]
fn keep(
    global: &GlobalArgs,
    args: &RestoreArgs,
    notebook: &Path,
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
    let name = verify::kernel_name(notebook, env);
    let display = format!(
        "{} (nbenv, Python {})",
        notebook
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
        &Printer::of(global),
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
                super::printer::warn(&format!("no Jupyter kernel for the environment: {e}"));
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
        "{} {notebook} in, as installed ({})\n",
        nbenv::notebook::WRITTEN_BY_NBENV[2],
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

/// Rounds, cells run, the first error, and why the rounds stopped.
fn summary(done: &Restoration<'_>) -> String {
    let mut out = String::new();
    if let Some(tried) = done.modern {
        out.push_str(&tried.said());
    }
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
            (Some(f), _) => format!("; {}", f.located_in(done.nb)),
            (None, Some(detail)) => format!(": {}", detail.lines().last().unwrap_or_default()),
            _ => String::new(),
        };
        let runtime = match &r.runner {
            Some(verify::RunnerMode::Ipython {
                version,
                kernel: Some(_),
                ..
            }) => format!(" (IPython {version})"),
            Some(verify::RunnerMode::Ipython { version, .. }) => {
                format!(" (IPython {version}, without a kernel)")
            }
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
        Stop::ProgramMissing => {
            "not restored: the notebook runs a program no Python package installs, which nbenv cannot install (the error names where it comes from)\n"
        }
        Stop::InstallFailed => "not restored: the environment could not be built\n",
        Stop::MaxRounds => "not restored: --max-rounds reached\n",
        Stop::TimeLimit => "not restored: out of time\n",
    });
    match &done.kept.why {
        nbenv::restore::KeptWhy::MostCells { round, cells, of }
            if *round as usize != done.rounds.len() =>
        {
            out.push_str(&format!(
                "requirements: round {round}'s environment, which ran the most cells ({cells} of {of})\n"
            ));
        }
        nbenv::restore::KeptWhy::Untried { after } => out.push_str(&format!(
            "requirements: not run: what round {} would have tried, keeping out every release the runs refuted (--max-rounds goes further)\n",
            after + 1
        )),
        _ => {}
    }
    if !done.kept.refuted_pins.is_empty() {
        out.push_str(&format!(
            "requirements: left out, refuted by a run: {}\n",
            done.kept.refuted_pins.join(", ")
        ));
    }
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

//! `nbenv restore NB`: infer, build the environment, run the notebook, and when it stops at
//! an environment error, turn the error into evidence and go again, a few rounds at most. The
//! command is the library's ([`nbenv::commands::restore`]); this file gives its arguments and
//! prints what it did.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use nbenv::commands::restore::{RestoreOutcome, RestoreSettings, Tried};
use nbenv::modernize::prefer::{Mode, Why};
use nbenv::modernize::trial::CandidatesKept;
use nbenv::python::PythonVersion;
use nbenv::restore::Stop;
use nbenv::verify;

use super::args::{Format, FormatArg};
use super::context::Global;
use super::exit::{CliError, Code};
use super::output::write_json;

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
    #[arg(long, value_name = "X.Y", value_parser = super::args::parse_python)]
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
    #[arg(long, value_name = "DATE", value_parser = super::args::parse_date)]
    pub exclude_newer: Option<jiff::Timestamp>,
    /// The notebook's era, preferred for every release chosen, as `infer --date`: `auto` (the
    /// default: its last commit, else its stored outputs), a date, or `none`.
    #[arg(long, value_name = "auto|DATE|none", default_value = "auto", value_parser = super::args::parse_era)]
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
    pub sandbox: super::args::SandboxArg,
    #[command(flatten)]
    pub format: FormatArg,
}

impl RestoreArgs {
    /// The arguments as the library's settings.
    pub fn settings(&self) -> RestoreSettings {
        RestoreSettings {
            notebook: self.notebook.clone(),
            output: self.output.clone(),
            max_rounds: self.max_rounds,
            python: self.python,
            python_source: self.python_source,
            sdists: super::args::sdists(self.allow_sdist, self.wheels_only),
            cap: super::args::date_cap(self.exclude_newer),
            era: self.date,
            declarations: !self.no_declarations,
            introspect_budget: Duration::from_secs(self.introspect_budget),
            cell_timeout: Duration::from_secs(self.cell_timeout),
            run_timeout: Duration::from_secs(self.timeout),
            kernel_runtime: !self.no_kernel_runtime,
            kernel_spec: !self.no_kernel_spec,
            executed: self.executed.clone(),
            lock: self.lock.clone(),
            prefer: self.prefer,
            sandbox: self.sandbox.sandbox,
        }
    }
}

pub fn run(global: &Global, args: &RestoreArgs) -> Result<()> {
    // The arguments become settings once; nothing below reads them.
    let (settings, format) = (args.settings(), args.format.format);
    args.sandbox.check()?;
    let done = nbenv::commands::restore::run(&global.settings, &settings, &global.printer)?;
    print(format, settings.output.is_none(), &done, None)
}

/// Prints what a restoration did (its JSON document nested under `run` in `head` when there
/// is one: `modernize --format json` prints one document, its report and the restoration
/// under it); the exit code is the restoration's.
pub(super) fn print(
    format: Format,
    requirements: bool,
    done: &RestoreOutcome,
    head: Option<serde_json::Value>,
) -> Result<()> {
    match format {
        Format::Json => match head {
            None => write_json(&mut super::printer::stdout(), done)?,
            Some(mut head) => {
                head["run"] = serde_json::to_value(done)?;
                write_json(&mut super::printer::stdout(), &head)?
            }
        },
        Format::Text => {
            if requirements {
                write!(super::printer::stdout(), "{}", done.kept.requirements)?;
            }
            super::printer::block(&summary(done));
        }
    }
    match done.stopped {
        Stop::Ran => Ok(()),
        Stop::InstallFailed => Err(CliError::reported(Code::EnvironmentFailed).into()),
        _ => Err(CliError::reported(Code::NotebookFailed).into()),
    }
}

/// The line that says which mode was kept and why.
fn said(tried: &Tried) -> String {
    let mut changes = nbenv::reporter::count(tried.changes, "change", "changes");
    match tried.candidates {
        Some(CandidatesKept::Kept) => changes.push_str(", its candidates kept"),
        Some(CandidatesKept::Dropped) => {
            changes.push_str(", its candidates dropped: it did not run to the end with them")
        }
        None => {}
    }
    let moved = tried.met.iter().filter(|m| m.moved).count();
    if moved > 0 {
        changes.push_str(&format!(", {moved} moved forward by its runs"));
    }
    let written = match (&tried.written, &tried.modules_written) {
        (Some(p), Some(m)) => format!(
            " (written to {}, its moved local modules under {})",
            p.display(),
            m.display()
        ),
        (Some(p), None) => format!(" (written to {})", p.display()),
        _ => String::new(),
    };
    let stopped = match (tried.cell, &tried.ename, tried.stopped) {
        (Some(cell), Some(ename), _) => format!("stopped at cell {cell} ({ename})"),
        (Some(cell), None, _) => format!("stopped at cell {cell}"),
        (None, _, Some(Stop::InstallFailed)) => "could not have its environment built".into(),
        (None, _, Some(Stop::TimeLimit)) => "ran out of time".into(),
        _ => "did not run to the end".into(),
    };
    let error = tried.error.as_deref().unwrap_or("an error");
    match tried.why {
        Why::ModernRan => {
            format!("mode: modern: the modernized notebook ({changes}) ran to the end{written}\n")
        }
        Why::ModernStopped => format!(
            "mode: era: the modernized notebook ({changes}) {stopped}: restored in its era instead\n"
        ),
        Why::ModernFailed => format!(
            "mode: era: the modernized notebook ({changes}) could not be restored ({error}): restored in its era instead\n"
        ),
        Why::NotModernized => format!(
            "mode: era: the notebook could not be modernized ({error}): restored in its era instead\n"
        ),
        Why::Asked => "mode: era\n".into(),
    }
}

/// Rounds, cells run, the first error, and why the rounds stopped.
fn summary(done: &RestoreOutcome) -> String {
    let mut out = String::new();
    if let Some(tried) = &done.modern {
        out.push_str(&said(tried));
    }
    for (i, r) in done.rounds.iter().enumerate() {
        out.push_str(&round_line(i + 1, r, &done.nb));
    }
    out.push_str(&stopped_line(done));
    out.push_str(&kept_lines(done));
    out
}

/// `round N: Python X (runtime): how far it ran; its first error`.
fn round_line(n: usize, r: &nbenv::restore::Round, nb: &nbenv::notebook::Notebook) -> String {
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
    let ran = if r.order.is_page() {
        ran
    } else {
        format!("{ran} ({})", nbenv::output::moved_cells(&r.order))
    };
    let error = match (&r.first_failure, &r.install_error) {
        (Some(f), _) => format!("; {}", f.located_in(nb)),
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
    format!("round {n}: Python {}{runtime}: {ran}{error}\n", r.python)
}

/// Why the rounds stopped.
fn stopped_line(done: &RestoreOutcome) -> String {
    let said = match done.stopped {
        Stop::Ran => "restored: the notebook ran to the end",
        Stop::NotEnvironmental => {
            let last = done.rounds.last().and_then(|r| r.first_failure.as_ref());
            return format!(
                "not restored: the first error is not the environment's ({})\n",
                not_environmental(last)
            );
        }
        Stop::NothingLearned => "not restored: the last error taught nothing new",
        Stop::ProgramMissing => {
            "not restored: the notebook runs a program no Python package installs, which nbenv cannot install (the error names where it comes from)"
        }
        Stop::InstallFailed => "not restored: the environment could not be built",
        Stop::MaxRounds => "not restored: --max-rounds reached",
        Stop::TimeLimit => "not restored: out of time",
    };
    format!("{said}\n")
}

/// What a stop that is not the environment's is, by the failure's class.
fn not_environmental(failure: Option<&nbenv::notebook::failure::Failure>) -> &'static str {
    use nbenv::notebook::failure::{Cause, FailureClass};
    match failure {
        Some(f) if matches!(f.cause, Cause::Timeout { whole_run: false }) => {
            "a cell ran past its time limit: --cell-timeout gives it more"
        }
        Some(f) if matches!(f.cause, Cause::Timeout { whole_run: true }) => {
            "the run ran past its time limit: --timeout gives it more"
        }
        Some(f) => match f.class {
            FailureClass::Code => "the notebook's code",
            FailureClass::DataInput => "the notebook's data or input",
            FailureClass::Resource => "a resource of this machine",
            FailureClass::Hardware => "this machine's hardware",
            _ => "the notebook's code or data",
        },
        None => "the notebook's code or data",
    }
}

/// Which requirements were written and why, when not the last round's; what was left out;
/// and the environment kept.
fn kept_lines(done: &RestoreOutcome) -> String {
    let mut out = String::new();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `modernize` and tests build restore's settings without a command line: the library's
    /// defaults must be the command line's.
    #[test]
    fn the_librarys_defaults_are_the_command_lines() {
        #[derive(clap::Parser)]
        struct Restore {
            #[command(flatten)]
            args: RestoreArgs,
        }
        let parsed = <Restore as clap::Parser>::try_parse_from(["restore", "nb.ipynb"]).unwrap();
        assert_eq!(
            format!("{:?}", parsed.args.settings()),
            format!("{:?}", RestoreSettings::new(PathBuf::from("nb.ipynb")))
        );
    }
}

//! `nbenv modernize NB`: the notebook's code moved to the successors the bank proves, written
//! to a new notebook (never over the input), with the diff of its code cells and the report.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use serde::Serialize;

use nbenv::bank::store::Store;
use nbenv::commands::modernize::CandidateRuns;
use nbenv::commands::restore::{finish, RestoreSettings, Rig};
use nbenv::modernize::trial::{try_candidates, CandidatesKept};
use nbenv::modernize::{modernize, Facts, Modernized, Report};
use nbenv::notebook::{self, AnalyzeOptions};
use nbenv::output::write_atomically;
use nbenv::python::PythonVersion;
use nbenv::reporter::Reporter;
use nbenv::resolve::options::PythonSource;

use super::args::{Format, FormatArg, GlobalArgs};
use super::exit::CliError;
use super::output::write_json;
use super::printer::Printer;

#[derive(Debug, Args)]
pub struct ModernizeArgs {
    /// The notebook (nbformat 4 `.ipynb`). It is only read.
    pub notebook: PathBuf,
    /// Write the modernized notebook to FILE (default: `<stem>.modern.ipynb` beside the input).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the unified diff of the code cells to FILE.
    #[arg(long, value_name = "FILE")]
    pub diff: Option<PathBuf>,
    /// Also write the report (as `--format` says) to FILE.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Only rewrite: do not restore the modernized notebook.
    #[arg(long)]
    pub no_run: bool,
    /// Restore the modernized notebook for this Python (X.Y) instead of the newest installed.
    #[arg(long, value_name = "X.Y", value_parser = super::args::parse_python)]
    pub python: Option<PythonVersion>,
    /// Write the modernized notebook's requirements (the last round's) to FILE.
    #[arg(long, value_name = "FILE")]
    pub requirements: Option<PathBuf>,
    /// Rounds of infer, build and run at most, as `restore --max-rounds`.
    #[arg(long, default_value_t = 4, value_name = "N", value_parser = super::args::positive)]
    pub max_rounds: usize,
    /// As `restore --no-kernel-runtime`: cells run as plain Python.
    #[arg(long)]
    pub no_kernel_runtime: bool,
    /// As `restore --no-kernel-spec`.
    #[arg(long)]
    pub no_kernel_spec: bool,
    /// Read the bank as it is: index nothing first (by default the notebook's inference
    /// runs, then the releases around each used API's disappearance are indexed).
    #[arg(long)]
    pub no_index: bool,
    /// Seconds introspection may take in all while indexing the evidence (0: none).
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub introspect_budget: u64,
    #[command(flatten)]
    pub format: FormatArg,
}

/// What `--format json` prints.
#[derive(Serialize)]
struct Json<'a> {
    output: &'a Path,
    diff: &'a str,
    #[serde(flatten)]
    report: &'a Report,
}

/// `<stem>.modern.ipynb` beside the input.
fn default_output(notebook: &Path) -> PathBuf {
    let stem = notebook
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "notebook".into());
    notebook.with_file_name(format!("{stem}.modern.ipynb"))
}

/// Whether two paths name one file (the second may not exist yet).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

pub fn run(global: &GlobalArgs, args: &ModernizeArgs) -> Result<()> {
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| default_output(&args.notebook));
    for (flag, path) in [
        ("--output", Some(&output)),
        ("--diff", args.diff.as_ref()),
        ("--report", args.report.as_ref()),
    ] {
        if let Some(path) = path.filter(|p| same_file(p, &args.notebook)) {
            return Err(CliError::usage(format!(
                "{flag} {}: that is the input notebook, which modernize never writes",
                path.display()
            ))
            .into());
        }
    }
    let bytes = std::fs::read(&args.notebook).map_err(|source| notebook::NotebookError::Io {
        path: args.notebook.clone(),
        source,
    })?;
    let nb = notebook::from_bytes(&args.notebook, &bytes)?;
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    if !global.offline && !args.no_index {
        index_evidence(global, &args.notebook, args.introspect_budget, &nb)?;
    }
    let store = Store::open_read_only(&super::bank::bank_path(global))?;
    let facts = Facts::gather(&store, &usage)?;
    let mut done = modernize(&nb, &bytes, &usage, &facts, &output.display().to_string())?;
    if args.no_run {
        // A candidate is kept only when a run passes with it: none will.
        done.report.settle(None);
    }
    // With its candidates when a run will decide on them.
    let text = write_outputs(args, &output, &done, !args.no_run)?;
    // One JSON document: with a run, the report goes in it when the run is done.
    let json = args.format.format == Format::Json;
    if args.no_run || !json {
        print!("{text}");
    }
    if args.no_run {
        return Ok(());
    }
    let restore = restore_settings(args, &output)?;
    let settings = super::context::settings(global);
    let printer = Printer::of(global);
    let rig = Rig::open(&settings, &restore)?;
    // The candidates are kept only when the notebook runs to its end with them (see
    // `nbenv::modernize::trial`); a run may move the code further forward (see
    // `nbenv::modernize::forward`).
    let mut steps = CandidateRuns {
        rig: &rig,
        settings: &restore,
        output: &output,
        done: &done,
        original: (&nb, &bytes),
        reporter: &printer,
    };
    let tried = try_candidates(&mut steps, done.has_candidates());
    if let Some(Ok(other)) = &tried.set_aside {
        other.discard(&rig.envs);
    }
    let with = tried.candidates.is_some_and(CandidatesKept::written);
    // The code the kept rounds ran last: moved forward by a run, or as modernized.
    let forwarded = match &tried.kept {
        Ok(a) => a.restored.forwarded.as_ref().map(|f| f.modernized.clone()),
        Err(_) => None,
    };
    let moved_forward = forwarded.is_some();
    if let Some(f) = forwarded {
        done = f;
    }
    done.report.settle(tried.candidates);
    // The notebook kept, as the last restoration may have written the other.
    let text = write_outputs(args, &output, &done, with)?;
    if moved_forward && !json {
        print!("\n{text}");
    }
    match tried.candidates {
        Some(CandidatesKept::Kept) => printer.note(
            "the modernized notebook ran to the end with its candidates: they are kept",
            None,
        ),
        Some(CandidatesKept::Dropped) => printer.note(
            "the modernized notebook did not run to the end with its candidates: they are dropped, and it was restored without them",
            None,
        ),
        None => {}
    }
    let head = json.then(|| json_head(&output, &done, with)).transpose()?;
    let outcome = finish(&settings, &rig, &restore, tried.kept?, None, &printer)?;
    super::restore::print(args.format.format, restore.output.is_none(), &outcome, head)
}

/// The report as `--format json` has it, for the restoration to go under (`run`).
fn json_head(output: &Path, done: &Modernized, candidates: bool) -> Result<serde_json::Value> {
    Ok(serde_json::to_value(Json {
        output,
        diff: &done.written(candidates).diff,
        report: &done.report,
    })?)
}

/// Writes the modernized notebook (with its candidates or not) to `output`, and the diff and
/// the report where asked; returns the report's text as printed.
fn write_outputs(
    args: &ModernizeArgs,
    output: &Path,
    done: &Modernized,
    candidates: bool,
) -> Result<String> {
    let written = done.written(candidates);
    write_atomically(output, &written.notebook)?;
    if let Some(path) = &args.diff {
        write_atomically(path, written.diff.as_bytes())?;
    }
    let text = match args.format.format {
        Format::Json => {
            let mut buf = Vec::new();
            write_json(&mut buf, &json_head(output, done, candidates)?)?;
            String::from_utf8(buf)?
        }
        Format::Text => {
            let mut t = written.diff.clone();
            if !t.is_empty() {
                t.push('\n');
            }
            t.push_str(&done.report.render());
            t.push_str(&format!("Wrote {}\n", output.display()));
            t
        }
    };
    if let Some(path) = &args.report {
        write_atomically(path, text.as_bytes())?;
    }
    Ok(text)
}

/// Indexes what the moves need to be seen (see [`nbenv::modernize::prepare::index_evidence`]).
pub(super) fn index_evidence(
    global: &GlobalArgs,
    notebook: &Path,
    introspect_budget: u64,
    nb: &notebook::Notebook,
) -> Result<()> {
    use nbenv::resolve::options::InferOptions;
    use nbenv::resolve::session::{read_usages_of, InferRun};

    let printer = Printer::of(global);
    // The moves are to today's releases: the notebook's era does not steer what is indexed.
    let options = InferOptions {
        era: nbenv::resolve::options::EraChoice::Off,
        ..InferOptions::new(notebook.to_path_buf())
    };
    let usages = read_usages_of(&options, Some(nb), &printer)?;
    let session = super::context::open_session(global, &options)?;
    nbenv::modernize::prepare::index_evidence(
        &session,
        &options,
        &usages,
        InferRun::default(),
        std::time::Duration::from_secs(introspect_budget),
        &printer,
    )?;
    Ok(())
}

/// `restore`'s settings for the modernized notebook at `notebook`: the newest installed
/// Python (or `--python`), and what modernize passes on; every other default `restore`'s own.
fn restore_settings(args: &ModernizeArgs, notebook: &Path) -> Result<RestoreSettings> {
    let Some(python) = args
        .python
        .or_else(|| nbenv::modernize::newest(super::context::interpreters()))
    else {
        return Err(CliError::not_found("no Python interpreter is installed to run the modernized notebook (--no-run only rewrites it)").into());
    };
    Ok(RestoreSettings {
        python: Some(python.feature()),
        python_source: if args.python.is_some() {
            PythonSource::Asked
        } else {
            PythonSource::NewestInstalled
        },
        max_rounds: args.max_rounds,
        output: args.requirements.clone(),
        kernel_runtime: !args.no_kernel_runtime,
        kernel_spec: !args.no_kernel_spec,
        ..RestoreSettings::new(notebook.to_path_buf())
    })
}

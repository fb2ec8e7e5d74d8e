//! `nbenv modernize NB`: the notebook's code moved to the successors the bank proves, written
//! to a new notebook (never over the input), with the diff of its code cells and the report;
//! then restored. The command is the library's ([`nbenv::commands::modernize`]); this file
//! gives its arguments and prints what it did.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use nbenv::commands::modernize::{ModernizeSettings, ReportDocument, ReportFormat};
use nbenv::commands::restore::RestoreSettings;
use nbenv::python::PythonVersion;
use nbenv::resolve::options::PythonSource;

use super::args::{Format, FormatArg};
use super::context::Global;
use super::exit::CliError;

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

impl ModernizeArgs {
    /// The arguments as the library's settings.
    pub fn settings(&self) -> Result<ModernizeSettings> {
        let defaults = ModernizeSettings::new(self.notebook.clone());
        let output = self.output.clone().unwrap_or(defaults.output.clone());
        let restore = match self.no_run {
            true => None,
            false => Some(restore_settings(self, &output)?),
        };
        Ok(ModernizeSettings {
            output,
            diff: self.diff.clone(),
            report: self.report.clone(),
            report_format: match self.format.format {
                Format::Text => ReportFormat::Text,
                Format::Json => ReportFormat::Json,
            },
            index: (!self.no_index).then(|| Duration::from_secs(self.introspect_budget)),
            restore,
            ..defaults
        })
    }
}

pub fn run(global: &Global, args: &ModernizeArgs) -> Result<()> {
    let settings = args.settings()?;
    let printer = global.printer;
    let global = &global.settings;
    let rewritten = nbenv::commands::modernize::rewrite(global, &settings, &printer)?;
    // One JSON document: with a run, the report goes in it when the run is done.
    let json = args.format.format == Format::Json;
    if args.no_run || !json {
        write!(printer.stdout(), "{}", rewritten.text)?;
    }
    if args.no_run {
        return Ok(());
    }
    let done = nbenv::commands::modernize::restore(global, &settings, rewritten, &printer)?;
    if done.moved_forward && !json {
        write!(printer.stdout(), "\n{}", done.text)?;
    }
    let head = json
        .then(|| {
            serde_json::to_value(ReportDocument::of(
                &settings.output,
                &done.modernized,
                done.with_candidates,
            ))
        })
        .transpose()?;
    let requirements = args.requirements.is_none();
    super::restore::print(args.format.format, requirements, &done.restored, head)
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

//! `nbenv verify NB -r requirements.txt`: build the environment (with a kernel runtime), run
//! the notebook in it, and say how far it got, where it stopped and why.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use nbenv::commands::verify::{PythonAsked, VerifyOutcome, VerifySettings};
use nbenv::python::PythonVersion;

use super::args::{Format, FormatArg};
use super::context::Global;
use super::exit::{CliError, Code};
use super::output::{count, write_json};

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
    pub sandbox: super::args::SandboxArg,
    #[command(flatten)]
    pub format: FormatArg,
}

impl VerifyArgs {
    /// The arguments as the library's settings: `--python` a file when there is one, else a
    /// version.
    pub fn settings(&self) -> Result<VerifySettings> {
        let python = match &self.python {
            None => None,
            Some(p) if Path::new(p).exists() => Some(PythonAsked::Path(PathBuf::from(p))),
            Some(p) => Some(PythonAsked::Version(
                PythonVersion::parse(p)
                    .filter(|_| p.split('.').count() == 2)
                    .ok_or_else(|| {
                        CliError::usage(format!("--python {p}: not a version like 3.8 nor a file"))
                    })?,
            )),
        };
        Ok(VerifySettings {
            python,
            cell_timeout: Duration::from_secs(self.cell_timeout),
            run_timeout: Duration::from_secs(self.timeout),
            install_timeout: Duration::from_secs(self.install_timeout),
            allow_sdist: self.allow_sdist,
            kernel_runtime: !self.no_kernel_runtime,
            executed: self.executed.clone(),
            sandbox: self.sandbox.sandbox,
            ..VerifySettings::new(self.notebook.clone(), self.requirements.clone())
        })
    }
}

pub fn run(global: &Global, args: &VerifyArgs) -> Result<()> {
    // The arguments become settings once; nothing below reads them.
    let (settings, format) = (args.settings()?, args.format.format);
    args.sandbox.check()?;
    let found = nbenv::commands::verify::run(&global.settings, &settings, &global.printer)?;
    match format {
        Format::Json => write_json(&mut super::printer::stdout(), &found)?,
        Format::Text => write!(super::printer::stdout(), "{}", summary(&found))?,
    }
    if found.ran() {
        Ok(())
    } else {
        Err(CliError::reported(Code::NotebookFailed).into())
    }
}

/// The human summary: cells run, the first error with its class and cell, the environment.
fn summary(v: &VerifyOutcome) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The library's defaults are the command line's; `--python` is a file or a version.
    #[test]
    fn the_librarys_defaults_are_the_command_lines() {
        #[derive(clap::Parser)]
        struct Verify {
            #[command(flatten)]
            args: VerifyArgs,
        }
        let parse = |extra: &[&str]| {
            let argv = ["verify", "nb.ipynb", "-r", "req.txt"].iter().chain(extra);
            <Verify as clap::Parser>::try_parse_from(argv).unwrap().args
        };
        assert_eq!(
            format!("{:?}", parse(&[]).settings().unwrap()),
            format!(
                "{:?}",
                VerifySettings::new(PathBuf::from("nb.ipynb"), PathBuf::from("req.txt"))
            )
        );
        let python = |p: &str| parse(&["--python", p]).settings().map(|s| s.python);
        assert_eq!(
            python("3.8").unwrap(),
            Some(PythonAsked::Version(PythonVersion::new(3, 8)))
        );
        let file = std::env::current_exe().unwrap().display().to_string();
        assert_eq!(
            python(&file).unwrap(),
            Some(PythonAsked::Path(PathBuf::from(&file)))
        );
        assert!(python("3").is_err());
    }
}

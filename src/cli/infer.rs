//! `nbenv infer NB`: the distributions, versions and Python a notebook was written for, as a
//! requirements file whose every pin says why, or as JSON with all the evidence. The command
//! is the library's ([`nbenv::commands::infer`]); this file gives its arguments and writes
//! what it returns.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use clap::{Args, ValueEnum};

use nbenv::commands::infer::InferSettings;
use nbenv::output::write_atomically;
use nbenv::python::PythonVersion;
use nbenv::resolve::options::{EraChoice, Indexing, InferOptions};

use super::context::Global;

#[derive(Debug, Args)]
pub struct InferArgs {
    /// The notebook: `.ipynb` (nbformat 3 or 4), a jupytext percent script or a plain `.py`;
    /// or a directory, for one environment that every `.ipynb` under it runs in.
    pub notebook: PathBuf,
    /// Write to FILE (atomically) instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// What to write.
    #[arg(long, value_enum, default_value_t, value_name = "FORMAT")]
    pub format: InferFormat,
    /// Resolve for this Python (X.Y), installed here or not. Default: the newest CPython the
    /// notebook allows that has a full resolution, installed ones first.
    #[arg(long, value_name = "X.Y", value_parser = super::args::parse_python)]
    pub python: Option<PythonVersion>,
    /// Ignore files uploaded after this date (YYYY-MM-DD, or an RFC 3339 instant): resolve as
    /// the index stood then. A cap, unlike `--date`.
    #[arg(long, value_name = "DATE", value_parser = super::args::parse_date)]
    pub exclude_newer: Option<jiff::Timestamp>,
    /// The notebook's era, preferred for every release chosen (dependencies too): the newest
    /// release uploaded by then that fits wins, a newer one only where none fits (the output
    /// names those). `auto` (the default): the notebook's last commit, else what its stored
    /// outputs show it ran with. A date sets it; `none` turns the preference off.
    #[arg(long, value_name = "auto|DATE|none", default_value = "auto", value_parser = super::args::parse_era)]
    pub date: EraChoice,
    /// Count releases that have only an sdist for the target as installable (pip builds them)
    /// from the start, so they compete with wheels for the interpreter and the versions.
    #[arg(long, conflicts_with = "wheels_only")]
    pub allow_sdist: bool,
    /// Install nothing from an sdist: not even a pure-Python one (counted as installable by
    /// default, for releases with no wheel for the target), and fail (exit 20) rather than
    /// build from sdists when no interpreter has a resolution from wheels alone. Without it,
    /// that resolution is made again with sdists allowed, and the output names the releases
    /// to be built.
    #[arg(long)]
    pub wheels_only: bool,
    /// Write each distribution's compatible versions (what the evidence allows and installs on
    /// the chosen Python) instead of pins; requirements format only.
    #[arg(long)]
    pub ranges: bool,
    /// Do not index distributions the bank lacks; resolve with what it has.
    #[arg(long)]
    pub no_index: bool,
    /// Do not read the repository's declarations beside the notebook (requirements*.txt,
    /// environment.yml, setup.py, pyproject.toml, Binder's runtime.txt, from the notebook's
    /// folder up to the repository's root). Read by default, as soft evidence: they narrow
    /// versions and steer the Python only where the notebook's own evidence allows.
    #[arg(long)]
    pub no_declarations: bool,
    /// Index the whole history of each distribution the bank lacks before resolving. By
    /// default only the releases the notebook's evidence needs are indexed: the newest, those
    /// around the releases where its APIs appear or disappear, and the ones pinned.
    #[arg(long, conflicts_with = "no_index")]
    pub full_history: bool,
    /// Never run releases to settle what static reading cannot tell. By default, when a pin
    /// hinges on such an answer (`df.ix` on pandas 0.x), the release is installed in a scratch
    /// venv on a fitting interpreter here and its names read at run time, as `bank introspect`
    /// does.
    #[arg(long)]
    pub no_introspect: bool,
    /// Seconds introspection may take in all, per resolution (a restore round is one): past
    /// them an answer static reading cannot give stays unknown and constrains nothing (`nbenv
    /// bank introspect` settles it without a limit). 0: introspect nothing.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub introspect_budget: u64,
    /// Worker threads when indexing what the bank lacks.
    #[arg(long, default_value_t = 8, value_name = "N", value_parser = super::args::positive)]
    pub jobs: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum InferFormat {
    /// requirements.txt: pins with their evidence as comments, the chosen Python in the header.
    #[default]
    Requirements,
    /// The full transitive closure pinned, with the sha256 of every file that installs on
    /// the target: for `pip install --require-hashes -r` and `uv pip install -r`.
    Lock,
    /// The same closure as a PEP 751 `pylock.toml`, for `uv pip install -r pylock.toml` and
    /// other readers of the standard; only for the chosen Python on this platform.
    Pylock,
    /// For programs: one JSON document with the evidence, the choice of Python and the
    /// full resolution, `schema_version` first.
    Json,
}

impl InferArgs {
    /// The decisions these flags make, once.
    pub fn options(&self) -> Result<InferOptions> {
        Ok(InferOptions {
            notebook: self.notebook.clone(),
            python: self.python,
            python_source: nbenv::resolve::options::PythonSource::Asked,
            cap: super::args::date_cap(self.exclude_newer),
            era: self.date,
            sdists: super::args::sdists(self.allow_sdist, self.wheels_only),
            indexing: if self.no_index {
                Indexing::Never
            } else if self.full_history {
                Indexing::FullHistory
            } else {
                Indexing::Needed
            },
            introspect: super::args::introspect(self.no_introspect, self.introspect_budget),
            jobs: self.jobs,
            declarations: !self.no_declarations,
        })
    }
}

impl InferFormat {
    fn settings(self) -> nbenv::commands::infer::InferFormat {
        use nbenv::commands::infer::InferFormat as Lib;
        match self {
            InferFormat::Requirements => Lib::Requirements,
            InferFormat::Lock => Lib::Lock,
            InferFormat::Pylock => Lib::Pylock,
            InferFormat::Json => Lib::Json,
        }
    }
}

pub fn run(global: &Global, args: &InferArgs) -> Result<()> {
    let settings = InferSettings {
        options: args.options()?,
        format: args.format.settings(),
        ranges: args.ranges,
    };
    let printer = global.printer;
    match nbenv::commands::infer::run(&global.settings, &settings, &printer) {
        Ok(text) => write_result(args.output.as_deref(), &text),
        Err(failed) => {
            if let Some(document) = &failed.document {
                write_result(args.output.as_deref(), document.as_bytes())?;
            }
            Err((*failed.error).into())
        }
    }
}

fn write_result(output: Option<&Path>, bytes: &[u8]) -> Result<()> {
    match output {
        Some(path) => Ok(write_atomically(path, bytes)?),
        None => {
            let mut out = super::printer::stdout();
            out.write_all(bytes)?;
            out.flush().context("writing to stdout")
        }
    }
}

#[cfg(test)]
mod options_tests {
    use super::*;
    use crate::cli::args::{date_cap, introspect, parse_date, parse_era, sdists};
    use nbenv::resolve::options::{DateCap, Introspect, Sdists};

    /// Each command's flags make the same decisions: the date cap, sdists, introspection.
    #[test]
    fn flags_become_the_decisions_the_session_reads() {
        let at = parse_date("2019-06-30").unwrap();
        assert_eq!(date_cap(None), DateCap::None);
        assert_eq!(date_cap(Some(at)), DateCap::Before(at));
        assert_eq!(parse_era(" auto "), Ok(EraChoice::Auto));
        assert_eq!(parse_era("none"), Ok(EraChoice::Off));
        assert_eq!(parse_era("2019-06-30"), Ok(EraChoice::At(at)));
        assert!(parse_era("June").is_err());
        assert_eq!(sdists(false, false), Sdists::AsFallback);
        assert_eq!(sdists(true, false), Sdists::Allowed);
        assert_eq!(sdists(false, true), Sdists::Never);
        assert_eq!(introspect(true, 30), Introspect::Never);
        assert_eq!(
            introspect(false, 5),
            Introspect::Within(std::time::Duration::from_secs(5))
        );
    }
}

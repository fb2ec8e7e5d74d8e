//! `nbenv batch INPUT... --out FILE`: many notebooks measured on worker threads, one JSONL
//! record each, appended as each finishes. A notebook that fails is a record (status
//! `error`, `no_solution` or `timeout`), never the end of the batch; a batch run again on
//! the same output resumes; `--shard K/N` (or `--shard-index`) splits a corpus across machines.
//!
//! The work is the library's ([`nbenv::commands::batch`]): this turns the options into its
//! settings and says the summary.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::{Args, ValueEnum};

use nbenv::commands::batch::{cores, BatchOutcome, BatchSettings, BatchStop};
use nbenv::measure::stages::Baseline;
use nbenv::measure::{Shard, Stage, Status};
use nbenv::python::PythonVersion;
use nbenv::resolve::options::{Indexing, InferOptions};

use super::context::Global;
use super::exit::CliError;
use super::interrupt;
use super::output::count;

#[derive(Debug, Args)]
pub struct BatchArgs {
    /// Directories (searched recursively for `.ipynb`), notebooks, list files (one path per
    /// line; relative paths are read from the list's folder), or `-` for a list on standard
    /// input. Records name each notebook by its path relative to its INPUT.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// The JSONL file each notebook's record is appended to. Notebooks it already has a
    /// record for (same path, same content, same stage) are skipped.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// How far to take each notebook: `usage` reads and triages it; `infer` also resolves
    /// its environment (indexing what the bank lacks, unless --no-index); `verify` also
    /// builds that environment and runs the notebook in it; `restore` also repairs what the
    /// run reveals, round after round.
    #[arg(long, value_enum, default_value_t = BatchStage::Infer, value_name = "STAGE")]
    pub stage: BatchStage,
    /// Notebooks measured at once. Default: the number of cores.
    #[arg(long, value_name = "N", value_parser = super::args::positive)]
    pub jobs: Option<usize>,
    /// Only the K-th of N shards, K counted from 1 (as nextest's --partition): the
    /// notebooks whose path relative to their INPUT hashes there. N machines running 1/N …
    /// N/N cover a corpus once.
    #[arg(long, value_name = "K/N", conflicts_with = "shard_index")]
    pub shard: Option<Shard>,
    /// The same, K counted from 0 (0/N … N-1/N), as Kubernetes' JOB_COMPLETION_INDEX and
    /// most array jobs count.
    #[arg(long, value_name = "K/N", value_parser = Shard::from_zero)]
    pub shard_index: Option<Shard>,
    /// Wall-time limit per notebook, in seconds. Inference stops at its next step (reading
    /// the bank, an indexing round, a resolution) once past it; the record says `timeout`.
    #[arg(long, value_name = "SECS", default_value_t = 300, value_parser = seconds)]
    pub timeout: u64,
    /// Resolve every notebook for this Python (X.Y).
    #[arg(long, value_name = "X.Y", value_parser = super::args::parse_python)]
    pub python: Option<PythonVersion>,
    /// Ignore files uploaded after this date (YYYY-MM-DD or an RFC 3339 instant).
    #[arg(long, value_name = "DATE", value_parser = super::args::parse_date)]
    pub exclude_newer: Option<jiff::Timestamp>,
    /// Each notebook's era, preferred for every release chosen, as `infer --date`: `auto`
    /// (the default: its last commit, else its stored outputs), a date, or `none`.
    #[arg(long, value_name = "auto|DATE|none", default_value = "auto", value_parser = super::args::parse_era)]
    pub date: nbenv::resolve::options::EraChoice,
    /// Count releases that have only an sdist as installable.
    #[arg(long, conflicts_with = "wheels_only")]
    pub allow_sdist: bool,
    /// Nothing from sdists, not even pure-Python ones: a notebook without a resolution from
    /// wheels alone is `no_solution` rather than resolved again with sdists allowed (as
    /// `infer --wheels-only`).
    #[arg(long)]
    pub wheels_only: bool,
    /// Never index what the bank lacks, and never touch the network: resolve with what the
    /// bank and the cache hold (implies --offline).
    #[arg(long)]
    pub no_index: bool,
    /// Never run releases to settle what static reading cannot tell.
    #[arg(long)]
    pub no_introspect: bool,
    /// Seconds introspection may take in all, per resolution (a restore round is one): past
    /// them an answer static reading cannot give stays unknown and constrains nothing (`nbenv
    /// bank introspect` settles it without a limit). 0: introspect nothing.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub introspect_budget: u64,
    /// Do not read the repository's declarations beside each notebook.
    #[arg(long)]
    pub no_declarations: bool,
    /// Stages verify and restore: what each notebook runs in first, to measure it as it
    /// was: `bare` (a venv of the resolved Python with only the kernel runtime), the path
    /// of a Python interpreter (the environment the pipeline supplies), or `none`.
    #[arg(long, value_name = "ENV", default_value = "bare")]
    pub before: Baseline,
    /// Stage restore: rounds of infer, build and run at most.
    #[arg(long, default_value_t = 4, value_name = "N", value_parser = super::args::positive)]
    pub max_rounds: usize,
    /// Stages verify and restore: seconds each cell may take (within --timeout).
    #[arg(long, default_value_t = 600, value_name = "SECS", value_parser = seconds)]
    pub cell_timeout: u64,
    /// Stages verify and restore: run cells as plain Python, without the kernel runtime.
    #[arg(long)]
    pub no_kernel_runtime: bool,
    /// Stage restore: `era` restores each notebook as it is; `modern` first restores it
    /// modernized (as `restore --prefer modern`) on --python (else the newest installed), and
    /// in its era when that does not run to the end, within the same --timeout.
    #[arg(long, default_value = "era", value_name = "modern|era")]
    pub prefer: nbenv::modernize::prefer::Mode,
    #[command(flatten)]
    pub sandbox: super::args::SandboxArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BatchStage {
    Usage,
    Infer,
    Verify,
    Restore,
}

impl BatchStage {
    fn stage(self) -> Stage {
        match self {
            BatchStage::Usage => Stage::Usage,
            BatchStage::Infer => Stage::Infer,
            BatchStage::Verify => Stage::Verify,
            BatchStage::Restore => Stage::Restore,
        }
    }
}

fn seconds(s: &str) -> Result<u64, String> {
    super::args::positive(s).map(|n| n as u64)
}

impl BatchArgs {
    /// The arguments as the library's settings: the one place they are read.
    pub fn settings(&self) -> BatchSettings {
        BatchSettings {
            inputs: self.inputs.clone(),
            out: self.out.clone(),
            stage: self.stage.stage(),
            jobs: self.jobs.unwrap_or_else(cores),
            shard: self.shard.or(self.shard_index),
            timeout: Duration::from_secs(self.timeout),
            infer: InferOptions {
                python: self.python,
                cap: super::args::date_cap(self.exclude_newer),
                era: self.date,
                sdists: super::args::sdists(self.allow_sdist, self.wheels_only),
                indexing: if self.no_index {
                    Indexing::Never
                } else {
                    Indexing::Needed
                },
                introspect: super::args::introspect(self.no_introspect, self.introspect_budget),
                declarations: !self.no_declarations,
                ..InferOptions::new(PathBuf::from("."))
            },
            before: self.before.clone(),
            max_rounds: self.max_rounds,
            cell_timeout: Duration::from_secs(self.cell_timeout),
            kernel_runtime: !self.no_kernel_runtime,
            prefer: self.prefer,
            sandbox: self.sandbox.sandbox,
        }
    }
}

pub fn run(global: &Global, args: &BatchArgs) -> Result<()> {
    let settings = args.settings();
    if settings.stage >= Stage::Verify {
        check_runs(args)?;
    }
    let done = nbenv::commands::batch::run(
        &global.settings,
        &settings,
        std::io::stdin().lock(),
        &global.printer,
    )?;
    super::printer::say(&summary(&settings, &done));
    match done.stop {
        Some(BatchStop::FullDisk(e)) => Err(anyhow::Error::new(e).context(
            "the batch stopped; what was measured is recorded, and the next run resumes after it",
        )),
        Some(BatchStop::Interrupted { left }) => {
            Err(interrupt::stopped(done.written, left, "notebooks").into())
        }
        None => Ok(()),
    }
}

/// Stages verify and restore: what running notebooks needs is there.
fn check_runs(args: &BatchArgs) -> Result<()> {
    args.sandbox.check()?;
    if let Baseline::Python(path) = &args.before {
        nbenv::python::Interpreter::at(path).map_err(|e| {
            CliError::usage(format!(
                "--before {}: not a Python interpreter: {e}",
                path.display()
            ))
        })?;
    }
    Ok(())
}

/// `measured 3 notebooks in 272.0 s, 39.7 notebooks/h: 3 ok (measured); ran to the end: 2 of
/// 3; …`
fn summary(settings: &BatchSettings, done: &BatchOutcome) -> String {
    let (written, skipped, tally, out) = (done.written, done.skipped, &done.tally, &settings.out);
    let secs = done.elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        format!(", {}", rate(written, secs))
    } else {
        String::new()
    };
    let by_status: Vec<String> = tally
        .statuses
        .iter()
        .map(|(s, n)| format!("{n} {}", s.as_str()))
        .collect();
    let shard = settings
        .shard
        .map(|s| format!("; shard {s}: {} of the {}", done.notebooks, done.corpus))
        .unwrap_or_default();
    if written == 0 {
        return format!(
            "nothing new to measure: {} already in {}{shard}",
            count(skipped, "notebook", "notebooks"),
            out.display()
        );
    }
    let mut line = format!(
        "measured {} in {secs:.1} s{rate}",
        count(written, "notebook", "notebooks"),
    );
    if !by_status.is_empty() {
        line.push_str(&format!(": {}", by_status.join(", ")));
        if tally.statuses.contains_key(&Status::Ok) {
            line.push_str(" (ok: measured, whether or not it ran)");
        }
    }
    if tally.run > 0 {
        line.push_str(&format!("; ran to the end: {} of {}", tally.ran, tally.run));
    }
    if skipped > 0 {
        line.push_str(&format!(
            "; {skipped} skipped (already in {})",
            out.display()
        ));
    }
    line.push_str(&shard);
    line.push_str(&format!("; records appended to {}", out.display()));
    line
}

/// Notebooks per second, minute or hour: the first unit whose figure is not below 1, so a
/// slow batch does not read `0.0 notebooks/s`.
fn rate(notebooks: usize, secs: f64) -> String {
    let per_second = notebooks as f64 / secs;
    let (figure, unit) = if per_second >= 1.0 {
        (per_second, "s")
    } else if per_second * 60.0 >= 1.0 {
        (per_second * 60.0, "min")
    } else {
        (per_second * 3600.0, "h")
    };
    format!("{figure:.1} notebooks/{unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tests build batch's settings without a command line: the library's defaults must be
    /// the command line's.
    #[test]
    fn the_librarys_defaults_are_the_command_lines() {
        #[derive(clap::Parser)]
        struct Batch {
            #[command(flatten)]
            args: BatchArgs,
        }
        let parsed =
            <Batch as clap::Parser>::try_parse_from(["batch", "corpus", "--out", "o.jsonl"])
                .unwrap();
        assert_eq!(
            format!("{:?}", parsed.args.settings()),
            format!(
                "{:?}",
                BatchSettings::new(vec![PathBuf::from("corpus")], PathBuf::from("o.jsonl"))
            )
        );
    }

    #[test]
    fn the_rate_is_in_the_first_unit_not_below_one() {
        assert_eq!(rate(18, 0.5), "36.0 notebooks/s");
        assert_eq!(rate(3, 90.0), "2.0 notebooks/min");
        assert_eq!(rate(3, 272.0), "39.7 notebooks/h");
    }
}

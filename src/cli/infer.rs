//! `nbenv infer NB`: the distributions, versions and Python a notebook was written for, as a
//! requirements file whose every pin says why, or as JSON with all the evidence.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use clap::{Args, ValueEnum};

use nbenv::bank::indexer::{BuildOptions, BuildTarget, Selection};
use nbenv::bank::store::Store;
use nbenv::names::DistName;
use nbenv::notebook::{self, AnalyzeOptions};
use nbenv::output::{lock_txt, pylock_toml, requirements_txt, write_atomically};
use nbenv::python::PythonVersion;
use nbenv::resolve::evidence::{gather, SharedBank, Sources};
use nbenv::resolve::index_providers::IndexProviders;
use nbenv::resolve::infer::{self, InferError};
use nbenv::resolve::interpreter::InterpreterPlan;
use nbenv::resolve::joint::{joint_evidence, joint_python};
use nbenv::resolve::solver::{IndexCatalog, SolveOptions};

use super::args::GlobalArgs;
use super::bank::{bank_path, run_build};
use super::context;
use super::exit::CliError;
use super::output::write_json;

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
    #[arg(long, value_name = "X.Y", value_parser = super::usage::parse_python)]
    pub python: Option<PythonVersion>,
    /// Ignore files uploaded after this date (YYYY-MM-DD, or an RFC 3339 instant): resolve as
    /// the index stood then.
    #[arg(long, value_name = "DATE", value_parser = parse_date, conflicts_with = "date")]
    pub exclude_newer: Option<jiff::Timestamp>,
    /// `auto`: resolve as the index stood when the notebook was last committed (its git
    /// repository's date for the file; with no repository or commit, nothing is capped and
    /// a note says so). A date works as `--exclude-newer`.
    #[arg(long, value_name = "auto|DATE")]
    pub date: Option<String>,
    /// Count releases that have only an sdist for the target as installable (pip builds them).
    #[arg(long)]
    pub allow_sdist: bool,
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

fn parse_date(s: &str) -> Result<jiff::Timestamp, String> {
    let t = s.trim();
    if let Ok(ts) = t.parse::<jiff::Timestamp>() {
        return Ok(ts);
    }
    t.parse::<jiff::civil::Date>()
        .ok()
        .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
        .map(|z| z.timestamp())
        .ok_or_else(|| format!("`{s}` is not a date like 2019-06-30"))
}

pub fn run(global: &GlobalArgs, args: &InferArgs) -> Result<()> {
    if args.ranges && args.format != InferFormat::Requirements {
        return Err(CliError::usage("--ranges is for the requirements format only").into());
    }
    let mut options = AnalyzeOptions::default();
    if let Some(v) = args.python {
        options.python_versions = vec![v];
    }
    let paths = notebooks_at(&args.notebook)?;
    let mut usages = Vec::new();
    for path in &paths {
        let nb = notebook::read(path)?;
        let name = path
            .strip_prefix(&args.notebook)
            .ok()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(path)
            .display()
            .to_string();
        let mut usage = notebook::analyze(&nb, &options);
        if !args.no_declarations {
            let declarations = notebook::read_declarations(path);
            if !global.quiet {
                for problem in &declarations.problems {
                    eprintln!("warning: {problem} (ignored)");
                }
            }
            usage.attach_declarations(declarations);
        }
        usages.push((name, usage));
    }
    let python = joint_python(
        &usages
            .iter()
            .map(|(_, u)| u.python.clone())
            .collect::<Vec<_>>(),
    )
    .expect("at least one notebook");

    let bank_file = bank_path(global);
    if !bank_file.exists() {
        // An empty bank: created here, filled below with what the notebook needs.
        Store::open(&bank_file)
            .with_context(|| format!("creating the bank at {}", bank_file.display()))?;
    }
    let bank = SharedBank::open(&bank_file)?;
    let client = context::index_client(global)?;
    // Import names nothing else knows are looked up on the index, unless asked not to.
    let on_index = IndexProviders::new(&client);
    let built_in = Sources::built_in();
    let sources = Sources {
        lookup: if args.no_index || global.offline {
            built_in.lookup
        } else {
            &on_index
        },
        ..built_in
    };
    let gather_all = || -> Result<nbenv::resolve::evidence::Evidence, InferError> {
        if let [(_, usage)] = &usages[..] {
            return Ok(gather(usage, &bank, &sources)?);
        }
        let mut each = Vec::new();
        for (name, usage) in &usages {
            each.push((name.clone(), gather(usage, &bank, &sources)?));
        }
        Ok(joint_evidence(each)?)
    };
    let mut evidence = gather_all()?;
    let missing = infer::missing_from_bank(&evidence);
    if !missing.is_empty() {
        if args.no_index || global.offline {
            if !global.quiet {
                let names: Vec<String> = missing.iter().map(ToString::to_string).collect();
                eprintln!(
                    "note: the bank lacks {}: resolved without API evidence for {}",
                    names.join(", "),
                    if names.len() == 1 { "it" } else { "them" }
                );
            }
        } else {
            index_missing(global, &bank_file, &missing, args.jobs)?;
            evidence = gather_all()?;
        }
    }

    let catalog = IndexCatalog::new(&client);
    let installed = nbenv::python::discover_by_name();
    let plan = InterpreterPlan::new(&python, args.python, &installed);
    let solve_options = SolveOptions {
        allow_sdist: args.allow_sdist,
        exclude_newer: cap_date(global, args)?,
    };
    let inference = match infer::resolve(
        evidence,
        plan,
        args.python.is_some(),
        &catalog,
        &solve_options,
    ) {
        Ok(i) => i,
        Err(InferError::NoSolution { tried }) => {
            for t in &tried {
                eprintln!("Python {}: {}\n", t.python, t.why.trim_end());
            }
            return Err(InferError::NoSolution { tried }).with_context(|| {
                format!(
                    "no environment satisfies {} (see why above)",
                    args.notebook.display()
                )
            });
        }
        Err(e) => return Err(e.into()),
    };
    if !global.quiet {
        for d in &inference.evidence.distributions {
            for r in d.dropped() {
                eprintln!(
                    "warning: {}: {} ({}; dropped)",
                    d.dist,
                    infer::describe(r),
                    r.dropped_why().map_or("", |w| w.describe())
                );
            }
        }
    }

    let text = match args.format {
        InferFormat::Requirements => {
            let ranges = if args.ranges {
                Some(infer::compatible_ranges(
                    &inference,
                    &catalog,
                    &solve_options,
                )?)
            } else {
                None
            };
            requirements_txt(
                &inference,
                &args.notebook.display().to_string(),
                ranges.as_deref(),
            )
            .into_bytes()
        }
        InferFormat::Lock => {
            let (text, unhashed) = lock_txt(&inference, &args.notebook.display().to_string());
            if !unhashed.is_empty() {
                eprintln!(
                    "warning: the index gives no hash for {}: pip's --require-hashes will refuse this lock",
                    unhashed.join(", ")
                );
            }
            text.into_bytes()
        }
        InferFormat::Pylock => {
            let (text, unhashed) = pylock_toml(
                &inference,
                &args.notebook.display().to_string(),
                Some(client.index_url().as_str()),
            )?;
            if !unhashed.is_empty() {
                eprintln!(
                    "warning: the index gives no hash for files of {}: they are left out of the lock",
                    unhashed.join(", ")
                );
            }
            text.into_bytes()
        }
        InferFormat::Json => {
            let mut buf = Vec::new();
            write_json(&mut buf, &inference)?;
            buf
        }
    };
    write_result(args.output.as_deref(), &text)
}

/// `--exclude-newer`, or `--date`: a date, or `auto` for the notebook's last commit (the end of
/// that day, so that what was on the index when the notebook was committed counts).
fn cap_date(global: &GlobalArgs, args: &InferArgs) -> Result<Option<jiff::Timestamp>> {
    let Some(date) = args.date.as_deref() else {
        return Ok(args.exclude_newer);
    };
    if date.trim() != "auto" {
        return parse_date(date)
            .map(Some)
            .map_err(|e| CliError::usage(format!("--date: {e}")).into());
    }
    match notebook::last_commit_date(&args.notebook) {
        Some(committed) => {
            let cap = committed
                .to_zoned(jiff::tz::TimeZone::UTC)
                .date()
                .tomorrow()
                .ok()
                .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
                .map_or(committed, |z| z.timestamp());
            if !global.quiet {
                eprintln!(
                    "note: resolving as the index stood on {} (the notebook's last commit)",
                    committed.strftime("%Y-%m-%d")
                );
            }
            Ok(Some(cap))
        }
        None => {
            if !global.quiet {
                eprintln!(
                    "note: {} has no git commit: --date auto caps nothing",
                    args.notebook.display()
                );
            }
            Ok(None)
        }
    }
}

/// The notebook itself, or every `.ipynb` under a directory (checkpoints and hidden
/// directories skipped), sorted.
fn notebooks_at(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut found = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
        for entry in entries.flatten() {
            let p = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with(".ipynb") {
                found.push(p);
            }
        }
    }
    found.sort();
    if found.is_empty() {
        return Err(
            CliError::not_found(format!("no notebook (.ipynb) under {}", path.display())).into(),
        );
    }
    Ok(found)
}

fn write_result(output: Option<&Path>, bytes: &[u8]) -> Result<()> {
    match output {
        Some(path) => {
            write_atomically(path, bytes).with_context(|| format!("writing {}", path.display()))
        }
        None => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            out.write_all(bytes)?;
            out.flush().context("writing to stdout")
        }
    }
}

/// Indexes the whole history of each distribution the bank lacks, with a progress bar.
fn index_missing(
    global: &GlobalArgs,
    bank: &Path,
    missing: &[DistName],
    jobs: usize,
) -> Result<()> {
    if !global.quiet {
        let names: Vec<String> = missing.iter().map(ToString::to_string).collect();
        eprintln!(
            "note: indexing what the bank lacks: {} (once; later runs read the bank)",
            names.join(", ")
        );
    }
    let targets: Vec<BuildTarget> = missing
        .iter()
        .map(|name| BuildTarget {
            name: name.clone(),
            selection: Selection::All,
        })
        .collect();
    let options = BuildOptions {
        jobs,
        ..BuildOptions::default()
    };
    let report = run_build(global, bank, &targets, &options)?;
    if report.interrupted {
        return Err(super::interrupt::stopped(
            report.releases_indexed,
            report.releases_left,
            "releases",
        )
        .into());
    }
    if !global.quiet {
        for failed in &report.failed {
            let version = failed
                .version
                .as_ref()
                .map(|v| format!(" {v}"))
                .unwrap_or_default();
            eprintln!(
                "note: could not index {}{version}: {}",
                failed.distribution, failed.reason
            );
        }
    }
    Ok(())
}

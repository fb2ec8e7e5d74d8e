//! `nbenv infer NB`: the distributions, versions and Python a notebook was written for, as a
//! requirements file whose every pin says why, or as JSON with all the evidence.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use anyhow::{Context as _, Result};
use clap::{Args, ValueEnum};

use nbenv::bank::indexer::{BuildOptions, BuildReport, BuildTarget, Selection};
use nbenv::bank::introspect::Outcome;
use nbenv::bank::store::Store;
use nbenv::measure::CachedBank;
use nbenv::names::DistName;
use nbenv::notebook::{self, AnalyzeOptions, Usage};
use nbenv::output::{lock_txt, pylock_toml, requirements_txt, write_atomically};
use nbenv::python::PythonVersion;
use nbenv::resolve::evidence::{gather, BankView, SharedBank, Sources};
use nbenv::resolve::index_providers::IndexProviders;
use nbenv::resolve::infer::{self, InferError};
use nbenv::resolve::interpreter::{InterpreterPlan, PythonChoice, Reach};
use nbenv::resolve::joint::{joint_evidence, joint_python, Part};
use nbenv::resolve::lazy::{self, LazyOptions, LazySteps, Probe};
use nbenv::resolve::solver::{IndexCatalog, SolveOptions};
use pep508_rs::pep440_rs::Version;

use super::args::GlobalArgs;
use nbenv::resolve::options::{DateCap, Indexing, InferOptions, Introspect, Sdists};

use super::bank::{bank_path, introspect_for_infer, run_build};
use super::context;
use super::exit::CliError;
use super::output::{count, write_json};

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

pub(super) fn parse_date(s: &str) -> Result<jiff::Timestamp, String> {
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

impl InferArgs {
    /// The decisions these flags make, once.
    pub fn options(&self) -> Result<InferOptions> {
        Ok(InferOptions {
            notebook: self.notebook.clone(),
            python: self.python,
            cap: date_cap(self.exclude_newer, self.date.as_deref())?,
            sdists: sdists(self.allow_sdist, self.wheels_only),
            indexing: if self.no_index {
                Indexing::Never
            } else if self.full_history {
                Indexing::FullHistory
            } else {
                Indexing::Needed
            },
            introspect: introspect(self.no_introspect, self.introspect_budget),
            jobs: self.jobs,
            declarations: !self.no_declarations,
        })
    }
}

/// `--exclude-newer DATE`, or `--date auto|DATE`.
pub(super) fn date_cap(
    exclude_newer: Option<jiff::Timestamp>,
    date: Option<&str>,
) -> Result<DateCap> {
    match date.map(str::trim) {
        None => Ok(exclude_newer.map_or(DateCap::None, DateCap::Before)),
        Some("auto") => Ok(DateCap::LastCommit),
        Some(date) => parse_date(date)
            .map(DateCap::Before)
            .map_err(|e| CliError::usage(format!("--date: {e}")).into()),
    }
}

/// `--allow-sdist` or `--wheels-only` (which clap keeps apart).
pub(super) fn sdists(allow_sdist: bool, wheels_only: bool) -> Sdists {
    if allow_sdist {
        Sdists::Allowed
    } else if wheels_only {
        Sdists::Never
    } else {
        Sdists::AsFallback
    }
}

/// `--no-introspect`, or `--introspect-budget SECS`.
pub(super) fn introspect(no_introspect: bool, budget: u64) -> Introspect {
    if no_introspect {
        Introspect::Never
    } else {
        Introspect::Within(std::time::Duration::from_secs(budget))
    }
}

pub fn run(global: &GlobalArgs, args: &InferArgs) -> Result<()> {
    if args.ranges && args.format != InferFormat::Requirements {
        return Err(CliError::usage("--ranges is for the requirements format only").into());
    }
    let opts = args.options()?;
    let usages = read_usages(global, &opts)?;
    let session = InferSession::open(global, &opts)?;
    let (inference, read) = match infer_usages(global, &opts, &session, &usages, &[]) {
        Ok(found) => found,
        Err(e) => {
            // A program reading the JSON learns why there is none, as a person reads stderr.
            if args.format == InferFormat::Json {
                if let Some(failure) = NoSolutionJson::of(&args.notebook, &e) {
                    let mut buf = Vec::new();
                    write_json(&mut buf, &failure)?;
                    write_result(args.output.as_deref(), &buf)?;
                }
            }
            return Err(e);
        }
    };
    let bank = &session.bank;
    let catalog = IndexCatalog::new(&session.client);
    let solve_options = &inference.options_used(&session.solve_options);
    if !global.quiet {
        if inference.python.installed.is_none() {
            super::printer::note(&format!(
                "resolved for Python {}, which is not installed here{}",
                inference.python.version,
                if inference.python_choice == PythonChoice::Requested {
                    ""
                } else {
                    " (`nbenv restore` runs the notebook on the installed one nearest it)"
                }
            ));
        }
        if let Some(built) = nbenv::output::sdist_builds(&inference) {
            super::printer::note(&format!(
                "no resolution from wheels alone on any Python the notebook allows; \
                 built from their sdists: {built} (--wheels-only refuses this)"
            ));
        }
        for d in &inference.evidence.distributions {
            for r in d.dropped() {
                super::printer::warn(&format!(
                    "{}: {} ({}; dropped)",
                    d.dist,
                    infer::describe(r),
                    r.dropped_why().map_or("", |w| w.describe())
                ));
            }
        }
    }

    let text = match args.format {
        InferFormat::Requirements => {
            let ranges = if args.ranges {
                Some(infer::compatible_ranges(
                    &inference,
                    &catalog,
                    solve_options,
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
                super::printer::warn(&format!(
                    "the index gives no hash for {}: pip's --require-hashes will refuse this lock",
                    unhashed.join(", ")
                ));
            }
            text.into_bytes()
        }
        InferFormat::Pylock => {
            let (text, unhashed) = pylock_toml(
                &inference,
                &args.notebook.display().to_string(),
                Some(session.client.index_url().as_str()),
            )?;
            if !unhashed.is_empty() {
                super::printer::warn(&format!(
                    "the index gives no hash for files of {}: they are left out of the lock",
                    unhashed.join(", ")
                ));
            }
            text.into_bytes()
        }
        InferFormat::Json => {
            let mut buf = Vec::new();
            let document = InferJson {
                inference: &inference,
                read: &read,
                unknown_at_pins: lazy::hinging(&inference, bank)?,
            };
            write_json(&mut buf, &document)?;
            buf
        }
    };
    write_result(args.output.as_deref(), &text)
}

/// What one `infer` (or every round of a `restore`, or every notebook of a `batch`) works
/// with, opened once: the bank (created empty when missing), the index client, the solver's
/// options (the date cap is worked out, and said, once) and the interpreters on this machine.
/// Threads may share it: a batch's workers do.
pub(super) struct InferSession {
    pub bank_file: PathBuf,
    pub bank: SharedBank,
    pub client: nbenv::pypi::IndexClient,
    pub solve_options: SolveOptions,
    pub installed: Vec<nbenv::python::Interpreter>,
    /// Held while lazy inference writes the bank (indexing, introspection): threads sharing
    /// the session write one at a time, and each then reads what the others wrote instead of
    /// fetching it again.
    pub writing: Mutex<()>,
}

/// How one inference runs within a longer job (a batch).
#[derive(Clone, Copy, Default)]
pub(super) struct InferRun<'a> {
    /// Past this instant, the next step (reading the bank, an indexing round, a resolution)
    /// fails with [`OutOfTime`] instead of starting.
    pub deadline: Option<Instant>,
    /// Print nothing: no notes, no progress, no reasons for a missing solution (the caller
    /// records what matters).
    pub silent: bool,
    /// The index's releases and metadata as read for earlier inferences of the same job:
    /// shared, each project page is decoded once per batch rather than once per notebook.
    pub catalog: Option<&'a IndexCatalog<'a>>,
    /// The bank's answers to earlier inferences of the same job: read instead of the
    /// session's bank, and forgotten whenever an inference writes the bank.
    pub bank: Option<&'a CachedBank<SharedBank>>,
    /// Releases this job saw fail (a restoration's earlier rounds), passed over besides the
    /// ones the bank's run records name.
    pub failed: &'a [nbenv::bank::store::ReleaseFailure],
    /// Which interpreters to resolve for: installed ones only when the notebook is to run
    /// here.
    pub reach: Reach,
    /// Interpreters to pass over (a restoration whose environment could not be built on
    /// them).
    pub skip_pythons: &'a [PythonVersion],
}

/// An inference stopped at [`InferRun::deadline`].
#[derive(Debug, thiserror::Error)]
#[error("past its time limit")]
pub(super) struct OutOfTime;

fn check_time(deadline: Option<Instant>) -> Result<()> {
    match deadline {
        Some(d) if Instant::now() >= d => Err(OutOfTime.into()),
        _ => Ok(()),
    }
}

impl InferSession {
    pub fn open(global: &GlobalArgs, args: &InferOptions) -> Result<Self> {
        let bank_file = bank_path(global);
        if !bank_file.exists() {
            // An empty bank: created here, filled with what the notebook needs.
            Store::open(&bank_file)
                .with_context(|| format!("creating the bank at {}", bank_file.display()))?;
        }
        let bank = SharedBank::open(&bank_file)?;
        Ok(Self {
            client: context::index_client(global)?,
            solve_options: SolveOptions {
                allow_sdist: args.sdists == Sdists::Allowed,
                wheels_only: args.sdists == Sdists::Never,
                sdist_where_no_wheel: false,
                sdist_fallback: args.sdists != Sdists::Never,
                exclude_newer: cap_date(global, args)?,
                failed: super::runs::failures(&bank_file)?,
                // What releases import, as the bank read their code. What it shows other
                // releases lack is kept for the session: one indexed meanwhile counts from
                // the next.
                import_time: nbenv::resolve::solver::ImportTime::new(std::sync::Arc::new(
                    nbenv::resolve::import_time::BankImportTime::new(bank.clone()),
                )),
            },
            bank,
            installed: context::interpreters_by_name().to_vec(),
            writing: Mutex::new(()),
            bank_file,
        })
    }
}

/// Each notebook (every `.ipynb` of a folder) read and analysed, with the repository's
/// declarations beside it unless asked not to; named as the output names them.
pub(super) fn read_usages(
    global: &GlobalArgs,
    args: &InferOptions,
) -> Result<Vec<(String, Usage)>> {
    read_usages_of(global, args, None)
}

/// [`read_usages`], with the notebook already read by the caller (`restore` runs it too): it
/// is read once.
pub(super) fn read_usages_of(
    global: &GlobalArgs,
    args: &InferOptions,
    read: Option<&notebook::Notebook>,
) -> Result<Vec<(String, Usage)>> {
    let mut options = AnalyzeOptions::default();
    if let Some(v) = args.python {
        options.python_versions = vec![v];
    }
    let paths = notebooks_at(&args.notebook)?;
    let mut usages = Vec::new();
    for path in &paths {
        let owned;
        let nb = match read.filter(|_| path == &args.notebook) {
            Some(nb) => nb,
            None => {
                owned = notebook::read(path)?;
                &owned
            }
        };
        let name = path
            .strip_prefix(&args.notebook)
            .ok()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(path)
            .display()
            .to_string();
        let mut usage = notebook::analyze(nb, &options);
        if args.declarations {
            let declarations = notebook::read_declarations(path);
            if !global.quiet {
                for problem in &declarations.problems {
                    super::printer::warn(&format!("{problem} (ignored)"));
                }
            }
            usage.attach_declarations(declarations);
        }
        usages.push((name, usage));
    }
    // The local modules they import, after them: `usages[0]` stays the first notebook.
    let base = if args.notebook.is_dir() {
        args.notebook.as_path()
    } else {
        args.notebook.parent().unwrap_or(Path::new(""))
    };
    let modules = notebook::local_imports(&usages, &options, base);
    usages.extend(modules);
    Ok(usages)
}

/// Resolves the notebooks' evidence, indexing (and introspecting) what the bank lacks unless
/// told not to; `excluded` releases (a verification saw them fail) are ruled out.
pub(super) fn infer_usages(
    global: &GlobalArgs,
    args: &InferOptions,
    session: &InferSession,
    usages: &[(String, Usage)],
    excluded: &[(DistName, Version)],
) -> Result<(infer::Inference, lazy::LazyReport)> {
    infer_usages_with(global, args, session, usages, excluded, InferRun::default())
}

/// [`infer_usages`] within a time limit, silently if asked.
pub(super) fn infer_usages_with(
    global: &GlobalArgs,
    args: &InferOptions,
    session: &InferSession,
    usages: &[(String, Usage)],
    excluded: &[(DistName, Version)],
    run: InferRun<'_>,
) -> Result<(infer::Inference, lazy::LazyReport)> {
    let quiet;
    let global = if run.silent {
        quiet = GlobalArgs {
            quiet: true,
            no_progress: true,
            verbose: 0,
            ..global.clone()
        };
        &quiet
    } else {
        global
    };
    check_time(run.deadline)?;
    let python = joint_python(
        &usages
            .iter()
            .map(|(_, u)| u.python.clone())
            .collect::<Vec<_>>(),
    )
    .expect("at least one notebook");

    let InferSession {
        bank_file,
        bank,
        client,
        solve_options,
        installed,
        writing,
    } = session;
    let with_failed;
    let solve_options = if run.failed.is_empty() {
        solve_options
    } else {
        with_failed = SolveOptions {
            failed: solve_options
                .failed
                .iter()
                .chain(run.failed)
                .cloned()
                .collect(),
            ..solve_options.clone()
        };
        &with_failed
    };
    // Import names nothing else knows are looked up on the index, unless asked not to.
    let on_index = IndexProviders::new(client);
    let built_in = Sources::built_in();
    let sources = Sources {
        lookup: if args.indexing == Indexing::Never || global.offline {
            built_in.lookup
        } else {
            &on_index
        },
        ..built_in
    };
    // Indexing lazily, releases not read yet between ones that lack an API are ranked as
    // lacking it too (see `lazy::Assumed`); without indexing, the bank is read as it is.
    let read: &dyn BankView = match run.bank {
        Some(cached) => cached,
        None => bank,
    };
    let assumed = lazy::Assumed::new(read);
    let view: &dyn BankView = if args.indexing == Indexing::Never || global.offline {
        read
    } else {
        &assumed
    };
    let gather_each = || -> Result<nbenv::resolve::evidence::Evidence, InferError> {
        if let [(_, usage)] = usages {
            return Ok(gather(usage, view, &sources)?);
        }
        // One notebook with the local modules it imports: its own places stay unnamed.
        let notebooks = usages
            .iter()
            .filter(|(_, u)| u.imported_as.is_none())
            .count();
        let mut each = Vec::new();
        for (name, usage) in usages {
            let in_module = usage.imported_as.is_some();
            each.push(Part {
                name: (notebooks > 1 || in_module).then(|| name.clone()),
                in_module,
                evidence: gather(usage, view, &sources)?,
            });
        }
        Ok(joint_evidence(each)?)
    };
    // A lookup on the index that failed for a full disk says so in words only: the disk's
    // error goes under it, for the exit code.
    let gather_all = || -> Result<nbenv::resolve::evidence::Evidence> {
        gather_each().map_err(|e| match on_index.disk_full() {
            Some(full) => anyhow::Error::new(full).context(e.to_string()),
            None => e.into(),
        })
    };
    let own_catalog;
    let catalog = match run.catalog {
        Some(shared) => shared,
        None => {
            own_catalog = IndexCatalog::new(client);
            &own_catalog
        }
    };
    let plan =
        InterpreterPlan::new(&python, args.python, installed, run.reach).without(run.skip_pythons);
    let resolve = |mut evidence| -> Result<infer::Inference> {
        infer::exclude(&mut evidence, excluded);
        match infer::resolve(
            evidence,
            plan.clone(),
            args.python.is_some(),
            catalog,
            solve_options,
        ) {
            Ok(i) => Ok(i),
            Err(InferError::NoSolution { tried }) => {
                // One interpreter's reason is in the error itself; several are listed first.
                let listed = !run.silent && tried.len() > 1;
                if listed {
                    for t in &tried {
                        eprintln!("Python {}: {}\n", t.python, t.why.trim_end());
                    }
                }
                Err(InferError::NoSolution { tried }).with_context(|| {
                    format!(
                        "no environment satisfies {}{}",
                        args.notebook.display(),
                        if listed { " (see why above)" } else { "" }
                    )
                })
            }
            Err(e) => Err(e.into()),
        }
    };
    let (inference, read) = if args.indexing == Indexing::Never || global.offline {
        let evidence = gather_all()?;
        let missing = infer::missing_from_bank(&evidence);
        if !missing.is_empty() && !global.quiet {
            let names: Vec<String> = missing.iter().map(ToString::to_string).collect();
            super::printer::note(&format!(
                "the bank lacks {}: resolved without API evidence for {}",
                names.join(", "),
                if names.len() == 1 { "it" } else { "them" }
            ));
        }
        (resolve(evidence)?, lazy::LazyReport::default())
    } else {
        let mut downloaded = 0;
        if args.indexing == Indexing::FullHistory {
            let missing = infer::missing_from_bank(&gather_all()?);
            if !missing.is_empty() {
                let report = index_missing(global, bank_file, &missing, args.jobs)?;
                downloaded += report.bytes_fetched;
                if !global.quiet {
                    super::printer::note(&format!(
                        "indexed {} ({} downloaded)",
                        count(report.releases_indexed, "release", "releases"),
                        super::index::human_size(report.bytes_fetched)
                    ));
                }
            }
        }
        let mut steps = Steps {
            global,
            bank: bank_file,
            jobs: args.jobs,
            gather: &gather_all,
            resolve: &resolve,
            announced: false,
            downloaded: 0,
            deadline: run.deadline,
            introspected: 0,
            writing,
            written: run.bank,
        };
        let (inference, report) = lazy::infer_lazily(
            bank,
            &mut steps,
            LazyOptions {
                cap: solve_options.exclude_newer,
                introspect: args.introspect != Introspect::Never,
                introspect_budget: args.introspect_budget(),
                python: plan.candidates.first().map(|c| c.version),
            },
        )?;
        downloaded += steps.downloaded;
        if !global.quiet {
            let introspected = steps.introspected;
            if introspected > 0 {
                super::printer::note(&format!(
                    "introspected {} where a pin hinged on what static reading could not tell",
                    count(introspected, "release", "releases"),
                ));
            }
            if !report.over_budget.is_empty() {
                super::printer::note(&format!(
                    "the introspection budget ({} s) is spent: {} not introspected ({}); \
                     what static reading cannot tell of them stays unknown and constrains \
                     nothing (--introspect-budget SECS, or `nbenv bank introspect`)",
                    args.introspect_budget().unwrap_or_default().as_secs(),
                    count(report.over_budget.len(), "release", "releases"),
                    report
                        .over_budget
                        .iter()
                        .map(|p| match &p.version {
                            Some(v) => format!("{} {v}", p.dist),
                            None => p.dist.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                ));
            }
            for h in lazy::hinging(&inference, bank)? {
                super::printer::note(&format!(
                    "{} {}: whether it has {} is unknown (static reading cannot tell{})",
                    h.pin.dist,
                    h.pin
                        .version
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default(),
                    h.unknown.join(", "),
                    if args.introspect == Introspect::Never {
                        "; without --no-introspect, nbenv would run it to see"
                    } else if report.over_budget.iter().any(|p| p.dist == h.pin.dist) {
                        "; the introspection budget was spent before it"
                    } else {
                        ", and introspection could not settle it here"
                    }
                ));
            }
        }
        if report.releases() > 0 && !global.quiet {
            super::printer::note(&format!(
                "indexed {} in {} ({} downloaded; the rest of their histories is \
                 indexed when a notebook needs it, or by `nbenv bank build`)",
                count(report.releases(), "release", "releases"),
                count(report.rounds.len(), "round", "rounds"),
                super::index::human_size(downloaded),
            ));
        }
        (inference, report)
    };
    if !global.quiet {
        for f in passed_over_after_runs(&inference, &solve_options.failed) {
            super::printer::note(&format!(
                "passed over {} {}: {} ({}; nbenv bank runs)",
                f.dist,
                f.version,
                nbenv::resolve::solver::Exclusion::FailedBefore {
                    python: f.python.feature(),
                    step: f.step,
                    at: f.at,
                },
                f.notebook
            ));
        }
    }
    Ok((inference, read))
}

/// The releases earlier runs saw fail on the chosen Python, of the distributions the solution
/// pins: what the resolution did without.
fn passed_over_after_runs<'a>(
    inference: &infer::Inference,
    failed: &'a [nbenv::bank::store::ReleaseFailure],
) -> Vec<&'a nbenv::bank::store::ReleaseFailure> {
    let python = inference.python.version.feature();
    let mut seen = std::collections::HashSet::new();
    failed
        .iter()
        .rev()
        .filter(|f| f.python.feature() == python)
        .filter(|f| {
            inference
                .solution
                .get(&f.dist)
                .is_some_and(|pin| pin.version != f.version)
        })
        .filter(|f| seen.insert((f.dist.clone(), f.version.clone())))
        .collect()
}

/// `--exclude-newer`, or `--date`: a date, or `auto` for the notebook's last commit (the end of
/// that day, so that what was on the index when the notebook was committed counts).
fn cap_date(global: &GlobalArgs, args: &InferOptions) -> Result<Option<jiff::Timestamp>> {
    match args.cap {
        DateCap::None => return Ok(None),
        DateCap::Before(at) => return Ok(Some(at)),
        DateCap::LastCommit => {}
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
                super::printer::note(&format!(
                    "resolving as the index stood on {} (the notebook's last commit)",
                    committed.strftime("%Y-%m-%d")
                ));
            }
            Ok(Some(cap))
        }
        None => {
            if !global.quiet {
                super::printer::note(&format!(
                    "{} has no git commit: --date auto caps nothing",
                    args.notebook.display()
                ));
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
        Some(path) => Ok(write_atomically(path, bytes)?),
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
) -> Result<BuildReport> {
    if !global.quiet {
        let names: Vec<String> = missing.iter().map(ToString::to_string).collect();
        super::printer::note(&format!(
            "indexing what the bank lacks: {} (once; later runs read the bank)",
            names.join(", ")
        ));
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
    stop_if_interrupted(&report)?;
    note_failures(global, &report);
    Ok(report)
}

/// Ctrl-C during indexing ends `infer`, saying what was kept.
fn stop_if_interrupted(report: &BuildReport) -> Result<()> {
    if report.interrupted {
        return Err(super::interrupt::stopped(
            report.releases_indexed,
            report.releases_left,
            "releases",
        )
        .into());
    }
    Ok(())
}

/// Releases that could not be indexed stay unknown to the evidence: said, not fatal.
fn note_failures(global: &GlobalArgs, report: &BuildReport) {
    if global.quiet {
        return;
    }
    for failed in &report.failed {
        let version = failed
            .version
            .as_ref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default();
        super::printer::note(&format!(
            "could not index {}{version}: {}",
            failed.distribution, failed.reason
        ));
    }
}

/// `--format json` when nothing satisfies the notebook (exit 20): why, per interpreter tried.
#[derive(serde::Serialize)]
struct NoSolutionJson<'a> {
    notebook: &'a Path,
    error: NoSolutionError<'a>,
}

#[derive(serde::Serialize)]
struct NoSolutionError<'a> {
    kind: &'static str,
    message: String,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tried: &'a [infer::PassedOver],
}

impl<'a> NoSolutionJson<'a> {
    fn of(notebook: &'a Path, e: &'a anyhow::Error) -> Option<Self> {
        let (kind, tried): (_, &[infer::PassedOver]) =
            match e.chain().find_map(|c| c.downcast_ref::<InferError>())? {
                InferError::NoSolution { tried } => ("no_solution", tried),
                InferError::NoInterpreter { .. } => ("no_interpreter", &[]),
                InferError::Joint(_) => ("joint_conflict", &[]),
                _ => return None,
            };
        Some(Self {
            notebook,
            error: NoSolutionError {
                kind,
                message: format!("{e:#}"),
                tried,
            },
        })
    }
}

/// `--format json`: the inference, what was indexed and introspected to reach it, and the
/// answers still unknown at the pins.
#[derive(serde::Serialize)]
struct InferJson<'a> {
    #[serde(flatten)]
    inference: &'a infer::Inference,
    read: &'a lazy::LazyReport,
    unknown_at_pins: Vec<lazy::Hinging>,
}

/// Lazy inference's steps, done for real: the bank read again, releases indexed with a
/// progress bar, the resolution on the planned interpreters.
struct Steps<'a> {
    global: &'a GlobalArgs,
    bank: &'a Path,
    jobs: usize,
    gather: &'a dyn Fn() -> Result<nbenv::resolve::evidence::Evidence>,
    resolve: &'a dyn Fn(nbenv::resolve::evidence::Evidence) -> Result<infer::Inference>,
    announced: bool,
    /// Archive bytes received while indexing.
    downloaded: u64,
    deadline: Option<Instant>,
    /// Releases introspection ran (not those an earlier run could not introspect).
    introspected: usize,
    writing: &'a Mutex<()>,
    /// Answers to forget once the bank is written.
    written: Option<&'a CachedBank<SharedBank>>,
}

impl LazySteps for Steps<'_> {
    type Error = anyhow::Error;

    fn gather(&mut self) -> Result<nbenv::resolve::evidence::Evidence> {
        check_time(self.deadline)?;
        (self.gather)()
    }

    fn index(&mut self, round: &[Probe]) -> Result<()> {
        check_time(self.deadline)?;
        let _writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        if !self.global.quiet && !self.announced {
            let mut names: Vec<String> = round.iter().map(|p| p.dist.to_string()).collect();
            names.dedup();
            super::printer::note(&format!(
                "indexing what the notebook needs of {}: the newest releases, then those \
                 around the releases where its APIs change (once; later runs read the bank)",
                names.join(", ")
            ));
            self.announced = true;
        }
        if self.global.verbose > 0 {
            for p in round {
                eprintln!("indexing {p}");
            }
        }
        let targets = targets_of(round);
        let options = BuildOptions {
            jobs: self.jobs,
            ..BuildOptions::default()
        };
        let report = run_build(self.global, self.bank, &targets, &options);
        if let Some(cached) = self.written {
            cached.forget();
        }
        let report = report?;
        stop_if_interrupted(&report)?;
        note_failures(self.global, &report);
        self.downloaded += report.bytes_fetched;
        Ok(())
    }

    fn resolve(
        &mut self,
        evidence: nbenv::resolve::evidence::Evidence,
    ) -> Result<infer::Inference> {
        check_time(self.deadline)?;
        (self.resolve)(evidence)
    }

    fn introspect(&mut self, round: &[Probe], within: Option<std::time::Duration>) -> Result<()> {
        check_time(self.deadline)?;
        let _writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        if self.global.verbose > 0 {
            for p in round {
                eprintln!("introspecting {p}");
            }
        }
        let targets = targets_of(round);
        let report = introspect_for_infer(self.global, self.bank, &targets, within);
        if let Some(cached) = self.written {
            cached.forget();
        }
        let report = report?;
        self.introspected += report.releases.len();
        if report.interrupted {
            return Err(super::interrupt::stopped(
                report.releases.len(),
                report.releases_left,
                "introspected releases",
            )
            .into());
        }
        if !self.global.quiet {
            if report.gaps_kept > 0 && self.global.verbose > 0 {
                super::printer::note(&format!(
                    "{} not introspected again: an earlier run could not (`nbenv bank \
                     introspect --force` tries again)",
                    count(report.gaps_kept, "release", "releases")
                ));
            }
            if report.past_deadline > 0 {
                super::printer::note(&format!(
                    "the introspection budget ran out with {} not started; what \
                     static reading cannot tell of them stays unknown",
                    count(report.past_deadline, "release", "releases")
                ));
            }
            for (dist, version, outcome) in &report.releases {
                if let Outcome::Gap { reason } = outcome {
                    let said = if self.global.verbose > 0 {
                        reason.clone()
                    } else {
                        gist(reason)
                    };
                    super::printer::note(&format!("could not introspect {dist} {version}: {said}"));
                }
            }
        }
        Ok(())
    }
}

/// The gist of why introspection could not settle a release: one line per interpreter tried
/// (`Python 3.6: installing x==1.0 failed`), without the installer's or the interpreter's own
/// words, which `-v` and `nbenv bank introspect` show.
fn gist(reason: &str) -> String {
    let lines: Vec<&str> = reason
        .lines()
        .filter(|l| l.starts_with("Python "))
        .map(|l| l.trim_end().trim_end_matches(':'))
        .collect();
    if lines.is_empty() {
        reason.lines().next().unwrap_or_default().to_string()
    } else {
        lines.join("; ")
    }
}

/// A build target per release of the round (the newest for a distribution not registered
/// yet); the indexer merges those of one distribution.
fn targets_of(round: &[Probe]) -> Vec<BuildTarget> {
    round
        .iter()
        .map(|p| BuildTarget {
            name: p.dist.clone(),
            selection: match &p.version {
                Some(v) => Selection::Exact(vec![v.clone()]),
                None => Selection::Latest(1),
            },
        })
        .collect()
}

#[cfg(test)]
mod options_tests {
    use super::*;

    /// Each command's flags make the same decisions: the date cap, sdists, introspection.
    #[test]
    fn flags_become_the_decisions_the_session_reads() {
        let at = parse_date("2019-06-30").unwrap();
        assert_eq!(date_cap(None, None).unwrap(), DateCap::None);
        assert_eq!(date_cap(Some(at), None).unwrap(), DateCap::Before(at));
        assert_eq!(date_cap(None, Some(" auto ")).unwrap(), DateCap::LastCommit);
        assert_eq!(
            date_cap(None, Some("2019-06-30")).unwrap(),
            DateCap::Before(at)
        );
        let bad = date_cap(None, Some("June")).unwrap_err();
        assert_eq!(
            super::super::exit::code_for(&bad),
            super::super::exit::Code::Usage
        );
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

//! `nbenv bank`: build and query the API bank.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::Result;
use clap::{Args, Subcommand};
use nbenv::bank::indexer::{
    self, BuildOptions, BuildReport, BuildTarget, FailureKind, PackageEntry, Selection,
};
use nbenv::bank::introspect::{IntrospectReport, Outcome};
use nbenv::bank::snapshot::{self, ExportOptions, ImportOptions};
use nbenv::bank::store::{
    ApiReport, BankStats, CanonicalSpan, DiffEntry, DiffMiss, DiffSource, LockPolicy, Move,
    MoveKind, SignatureChange, SignatureMatch, SourcelessRelease, Store, Successor, VersionRun,
};
use nbenv::names::DistName;
use nbenv::pypi::{Version, VersionSpecifiers};
use serde_json::json;

use super::args::{byte_size, positive, Format, FormatArg};
use super::context::Global;
use super::exit::{CliError, Code};
use super::index::human_size;
use super::interrupt;
use super::output::{count, write_json};
use nbenv::commands::bank::{self, Again, BankRuns, RuntimeSettings};

#[derive(Debug, Args)]
pub struct BankArgs {
    #[command(subcommand)]
    pub command: BankCommand,
}

/// The package list `bank build` uses unless `--packages` names another.
const PACKAGES_NAME: &str = "the built-in package list (apibank/packages.txt)";

#[derive(Debug, Subcommand)]
pub enum BankCommand {
    /// Index releases of distributions into the bank (idempotent).
    ///
    /// A bare NAME indexes its newest release; NAME with a specifier (`pandas>=0.20,<1.1`)
    /// indexes every matching release. Releases already in the bank are skipped.
    Add {
        /// A distribution, optionally with a PEP 440 specifier: `six`, `pandas==0.25.3`,
        /// `'scikit-learn>=0.17,<0.21'`.
        #[arg(required = true, value_name = "NAME[SPEC]")]
        specs: Vec<DistSpec>,
        /// Every release (matching the specifier, if any).
        #[arg(long, conflicts_with = "latest")]
        all_versions: bool,
        /// The newest N final releases (matching the specifier, if any).
        #[arg(long, value_name = "N", value_parser = positive)]
        latest: Option<usize>,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Index the full history of every distribution in a package list.
    Build {
        /// A package list to use instead of the built-in one (format: apibank/README.md).
        #[arg(long, value_name = "FILE")]
        packages: Option<PathBuf>,
        /// Only the newest N final releases of each (a partial bank, for trying things out).
        #[arg(long, value_name = "N", value_parser = positive)]
        latest: Option<usize>,
        /// Only these distributions of the list.
        #[arg(long, value_name = "NAME", num_args = 1..)]
        only: Vec<DistName>,
        /// Skip runtime introspection of the distributions the list marks `introspect`.
        #[arg(long)]
        no_introspect: bool,
        #[command(flatten)]
        runtime: RuntimeArgs,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Install releases into scratch venvs and record the names they expose at run time
    /// (indexing them statically first if needed).
    ///
    /// A bare NAME introspects its newest release; NAME with a specifier every matching one.
    Introspect {
        /// A distribution, optionally with a PEP 440 specifier: `pandas==0.25.3`.
        #[arg(required = true, value_name = "NAME[SPEC]")]
        specs: Vec<DistSpec>,
        #[command(flatten)]
        runtime: RuntimeArgs,
        /// Introspect releases again even when introspection recorded them already.
        #[arg(long)]
        force: bool,
        /// Only releases where the bank has unknown answers: a module static reading cannot
        /// list (`__getattr__`, lazy or compiled) that introspection has not listed yet.
        #[arg(long)]
        unknown_only: bool,
        #[command(flatten)]
        write: WriteArgs,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Which releases have an API, its definition and signature changes; or, with
    /// `--module`, which distributions provide a module; or, with `--imports`, what a release
    /// imports from other distributions when it is imported.
    Query {
        /// A fully qualified API, e.g. `sklearn.cross_validation.train_test_split`.
        #[arg(required_unless_present_any = ["module", "imports"], conflicts_with_all = ["module", "imports"])]
        api: Option<String>,
        /// An import name or module, e.g. `sklearn` or `google.protobuf`.
        #[arg(long, value_name = "MODULE", conflicts_with = "imports")]
        module: Option<String>,
        /// A release, e.g. `scikit-learn==0.19.1`: the other distributions' modules and names
        /// it imports whenever it is imported.
        #[arg(long, value_name = "NAME==VERSION")]
        imports: Option<DistSpec>,
        #[command(flatten)]
        format: FormatArg,
    },
    /// APIs added, removed or changed in signature between two releases.
    ///
    /// Both releases must be indexed (`nbenv bank add 'NAME==FROM' 'NAME==TO'`).
    Diff {
        /// The distribution, e.g. `scikit-learn`.
        name: DistName,
        /// The older release, e.g. `0.19.2`.
        from: Version,
        /// The newer release, e.g. `0.20.0`.
        to: Version,
        /// Include private names (a segment starting with `_`).
        #[arg(long)]
        private: bool,
        #[command(flatten)]
        format: FormatArg,
    },
    /// APIs removed from a distribution that live on under another path of it, with the
    /// releases and definitions that prove it.
    ///
    /// A move is the same definition reached by a new path, or a twin: the same final name
    /// with the same signature (or one that only adds parameters with defaults) in the
    /// releases that have both. Index the releases around the removal first.
    Moves {
        /// The distribution, e.g. `scikit-learn`.
        name: DistName,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Read a release's change notes from its sdist into the bank.
    ///
    /// Kept are the statements that name an old API and what replaces it: `bank moves` lists
    /// them, `modernize` tries them. Reads the newest final release's sdist unless VERSION
    /// names another; a release read before is not read again.
    Notes {
        /// The distribution, e.g. `pandas`.
        name: DistName,
        /// The release whose sdist to read, e.g. `1.0.0`.
        #[arg(value_name = "VERSION")]
        release: Option<Version>,
        /// Read the release again, though it was read before.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Distributions, releases, APIs, aliases and size on disk.
    Stats {
        #[command(flatten)]
        format: FormatArg,
    },
    /// Check the whole bank for damage, read-only (exit 7 on any).
    ///
    /// SQLite's integrity and foreign-key checks, the schema's tables and columns, then the
    /// seal of every row and of every block of paths. Every failure is listed: check, table,
    /// row, what.
    Check {
        #[command(flatten)]
        format: FormatArg,
    },
    /// What verifications recorded: the releases that failed to install or import on an
    /// interpreter, which `infer` and `restore` then pass over for that Python.
    Runs {
        /// Delete every run record (resolutions stop passing those releases over).
        #[arg(long)]
        forget: bool,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Write the whole bank into one compressed, checksummed snapshot file, which `bank
    /// import` installs elsewhere (batch workers start warm).
    ///
    /// Writers may go on meanwhile: the snapshot holds what was committed when the export
    /// started. Run records (`run_*` tables) are left out unless `--with-runs`.
    Export {
        /// The snapshot to write (replaced atomically), e.g. `bank.nbsnap`.
        file: PathBuf,
        /// Keep the run records.
        #[arg(long)]
        with_runs: bool,
        /// Also carry the cache's index pages and core metadata (not its archives), so that
        /// workers resolve with `--no-index` and no index at all. Such a snapshot is in
        /// container format 2, which older nbenvs refuse.
        #[arg(long)]
        with_index_cache: bool,
        /// zstd level, from 1 (fastest) to 19 (smallest).
        #[arg(long, default_value_t = snapshot::DEFAULT_LEVEL, value_name = "N",
              value_parser = clap::value_parser!(i32).range(1..=19))]
        level: i32,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Install a snapshot made by `bank export` as the bank, after checking it whole.
    ///
    /// A corrupt, truncated or newer-schema snapshot is refused and the bank left as it was;
    /// an older schema is migrated. A bank that holds releases is replaced only with
    /// `--force`.
    Import {
        /// A snapshot file, or an http(s) URL to fetch it from.
        #[arg(value_name = "FILE|URL")]
        source: String,
        /// Replace a bank that already holds releases.
        #[arg(long)]
        force: bool,
        /// The largest snapshot, compressed (as fetched from a URL) or decompressed, e.g.
        /// `500M`.
        #[arg(long, value_name = "SIZE", value_parser = byte_size, default_value = "8GiB")]
        max_size: u64,
        #[command(flatten)]
        write: WriteArgs,
        #[command(flatten)]
        format: FormatArg,
    },
}

#[derive(Debug, Args)]
pub struct RuntimeArgs {
    /// Interpreters to install releases on (default: python3*, python2.7 on PATH and pyenv's).
    #[arg(long = "python", value_name = "PATH")]
    pub pythons: Vec<PathBuf>,
    /// Seconds allowed for installing one release.
    #[arg(long, default_value_t = 900, value_name = "SECS")]
    pub install_timeout: u64,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Releases fetched and analysed in parallel.
    #[arg(long, short = 'j', default_value_t = 8, value_name = "N", value_parser = positive)]
    pub jobs: usize,
    /// Index releases again even when the bank has them.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub format: FormatArg,
}

/// How a command that writes the bank meets another writer.
#[derive(Debug, Clone, Copy, Args)]
pub struct WriteArgs {
    /// Fail at once when another nbenv is writing the bank, instead of waiting for it
    /// (writers take turns release by release; readers never wait).
    #[arg(long)]
    pub no_wait: bool,
}

impl WriteArgs {
    fn lock_policy(self) -> LockPolicy {
        if self.no_wait {
            return LockPolicy::NoWait;
        }
        waiting_lock()
    }
}

/// Waiting for another nbenv writing the bank, after saying so.
pub(super) fn waiting_lock() -> LockPolicy {
    LockPolicy::WaitWithNotice(std::sync::Arc::new(|bank: &Path| {
        super::printer::say(&format!(
            "nbenv: waiting for another nbenv writing to the bank at {}",
            bank.display()
        ));
    }))
}

/// `NAME` or `NAME<specifier>` on the command line: a PEP 508 requirement without URL or
/// markers. Extras (`pkg[extra]>=1`) are accepted and change nothing: the bank indexes the
/// distribution, whichever extras an install would add.
#[derive(Debug, Clone)]
pub struct DistSpec {
    pub name: DistName,
    pub spec: Option<VersionSpecifiers>,
}

impl FromStr for DistSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let requirement = nbenv::names::parse_requirement(s.trim()).map_err(|e| e.to_string())?;
        if !requirement.marker.is_true() {
            return Err(format!(
                "`{s}`: environment markers do not apply to the bank"
            ));
        }
        let name = DistName::new(requirement.name.as_ref()).map_err(|e| e.to_string())?;
        let spec = match requirement.version_or_url {
            None => None,
            Some(pep508_rs::VersionOrUrl::VersionSpecifier(spec)) => {
                Some(spec).filter(|s| !s.is_empty())
            }
            Some(pep508_rs::VersionOrUrl::Url(_)) => {
                return Err(format!(
                    "`{s}`: the bank indexes releases from the index, not URLs"
                ))
            }
        };
        Ok(Self { name, spec })
    }
}

/// The package list: `--packages FILE`, else the one built into nbenv.
pub fn package_list(file: Option<&Path>) -> Result<(Vec<PackageEntry>, String)> {
    Ok(match file {
        Some(path) => (indexer::read_packages(path)?, path.display().to_string()),
        None => (
            indexer::parse_packages(indexer::BUILT_IN, "apibank/packages.txt")?,
            PACKAGES_NAME.to_string(),
        ),
    })
}

pub fn run(global: &Global, args: &BankArgs) -> Result<()> {
    let bank = global.bank();
    match &args.command {
        BankCommand::Add {
            specs,
            all_versions,
            latest,
            run,
        } => {
            let targets = add_targets(specs, *all_versions, latest);
            let options = run.build_options();
            let runs = bank::add(&global.settings, &targets, &options, &global.printer)?;
            print_runs(&runs, run.format.format, true)?;
            outcome(&runs, run.format.format)
        }
        BankCommand::Introspect {
            specs,
            runtime,
            force,
            unknown_only,
            write,
            format,
        } => introspect(
            global,
            specs,
            runtime,
            Again {
                force: *force,
                unknown_only: *unknown_only,
            },
            *write,
            format.format,
        ),
        BankCommand::Build {
            packages,
            latest,
            only,
            no_introspect,
            runtime,
            run,
        } => build(
            global,
            packages.as_deref(),
            only,
            *latest,
            (!no_introspect).then(|| runtime.settings()),
            run,
        ),
        BankCommand::Notes {
            name,
            release,
            force,
            format,
        } => super::notes::read(global, &bank, name, release.as_ref(), *force, format.format),
        BankCommand::Runs { forget, format } => super::runs::show(&bank, *forget, format.format),
        BankCommand::Import {
            source,
            force,
            max_size,
            write,
            format,
        } => super::snapshot::import(
            global,
            &bank,
            source,
            &ImportOptions {
                force: *force,
                lock: write.lock_policy(),
                max_size: *max_size,
                cache: None,
            },
            format.format,
        ),
        command => read(global, &bank, command),
    }
}

/// `bank build`: the package list (`--packages`, else nbenv's), or those of it `--only` names.
fn build(
    global: &Global,
    packages: Option<&Path>,
    only: &[DistName],
    latest: Option<usize>,
    runtime: Option<RuntimeSettings>,
    run: &RunArgs,
) -> Result<()> {
    let (list, list_name) = package_list(packages)?;
    let targets = bank::list_targets(&list, &list_name, only, latest)
        .map_err(nbenv::commands::CommandError::from)?;
    let runs = bank::build(
        &global.settings,
        &list,
        targets,
        &run.build_options(),
        runtime.as_ref(),
        &global.printer,
    )?;
    print_runs(&runs, run.format.format, true)?;
    outcome(&runs, run.format.format)
}

/// `bank introspect`: the indexing summary is printed only when it says something
/// introspection does not.
fn introspect(
    global: &Global,
    specs: &[DistSpec],
    runtime: &RuntimeArgs,
    again: Again,
    write: WriteArgs,
    format: Format,
) -> Result<()> {
    let options = BuildOptions {
        lock: write.lock_policy(),
        ..BuildOptions::default()
    };
    let targets = add_targets(specs, false, &None);
    let runs = bank::introspect(
        &global.settings,
        &targets,
        &options,
        &runtime.settings(),
        again,
        &global.printer,
    )?;
    // What had to be indexed first is said, as `bank add` says it; a release the bank held
    // already needs no word.
    let show_build =
        !runs.build.failed.is_empty() || runs.runtime.is_none() || runs.build.releases_indexed > 0;
    print_runs(&runs, format, show_build)?;
    outcome(&runs, format)
}

/// The commands that only read the bank (`bank export` copies it); `run` handles those that
/// index, write or replace it.
fn read(global: &Global, bank: &Path, command: &BankCommand) -> Result<()> {
    match command {
        BankCommand::Query {
            api,
            module,
            imports,
            format,
        } => {
            let store = Store::open_read_only(bank)?;
            match (api, module, imports) {
                (Some(api), _, _) => query_api(&store, api, format.format),
                (None, Some(module), _) => query_module(&store, module, format.format),
                (None, None, Some(release)) => query_imports(&store, release, format.format),
                (None, None, None) => unreachable!("clap requires one"),
            }
        }
        BankCommand::Diff {
            name,
            from,
            to,
            private,
            format,
        } => diff(
            &Store::open_read_only(bank)?,
            name,
            from,
            to,
            *private,
            format.format,
        ),
        BankCommand::Moves { name, format } => {
            moves(&Store::open_read_only(bank)?, name, format.format)
        }
        BankCommand::Stats { format } => stats(&Store::open_read_only(bank)?, format.format),
        BankCommand::Check { format } => check(&Store::open_read_only_as_is(bank)?, format.format),
        BankCommand::Export {
            file,
            with_runs,
            with_index_cache,
            level,
            format,
        } => super::snapshot::export(
            bank,
            file,
            &ExportOptions {
                with_runs: *with_runs,
                level: *level,
                index_cache: with_index_cache.then(|| {
                    nbenv::pypi::Cache::with_budget(global.cache_dir(), global.cache_budget())
                }),
            },
            format.format,
        ),
        _ => unreachable!("`run` handles the commands that index, write or replace the bank"),
    }
}

fn add_targets(specs: &[DistSpec], all_versions: bool, latest: &Option<usize>) -> Vec<BuildTarget> {
    specs
        .iter()
        .map(|s| BuildTarget {
            name: s.name.clone(),
            selection: match (latest, &s.spec, all_versions) {
                (Some(n), Some(spec), _) => Selection::LatestMatching(*n, spec.clone()),
                (Some(n), None, _) => Selection::Latest(*n),
                (None, Some(spec), _) => Selection::Matching(spec.clone()),
                (None, None, true) => Selection::All,
                (None, None, false) => Selection::Latest(1),
            },
        })
        .collect()
}

/// Prints what a command's runs did: the indexing summary (when `show_build`) and what each
/// release showed at run time, or one JSON document with both.
fn print_runs(runs: &BankRuns, format: Format, show_build: bool) -> Result<()> {
    let (bank, build, runtime) = (&runs.bank, &runs.build, runs.runtime.as_ref());
    let mut out = super::printer::stdout();
    if format == Format::Json {
        return write_json(&mut out, &runs_json(bank, build, runtime));
    }
    if show_build {
        write_report(&mut out, bank, build)?;
    }
    if let Some(r) = runtime {
        write_introspect_tally(&mut out, r)?;
    }
    for (name, version, outcome) in runtime.map_or(&[][..], |r| &r.releases[..]) {
        write_introspected(&mut out, name, version, outcome)?;
    }
    Ok(())
}

/// The JSON document of a command's runs: the indexing report, and introspection's if any.
fn runs_json(
    bank: &Path,
    build: &BuildReport,
    runtime: Option<&IntrospectReport>,
) -> serde_json::Value {
    let mut doc = json!({"bank": bank, "report": build});
    if let Some(r) = runtime {
        doc["introspected"] = json!(r.releases);
        doc["introspection_interrupted"] = json!(r.interrupted);
        doc["introspection_skipped"] = json!(r.skipped);
        doc["introspection_settled"] = json!(r.settled);
        doc["introspection_failed"] = json!(r.failed);
    }
    doc
}

/// Releases introspection left alone (done already, or nothing to settle) and distributions
/// it could not look at.
fn write_introspect_tally(out: &mut impl Write, r: &IntrospectReport) -> Result<()> {
    if r.skipped > 0 {
        writeln!(
            out,
            "{} introspected already (--force introspects again)",
            count(r.skipped, "release was", "releases were")
        )?;
    }
    if r.settled > 0 {
        writeln!(
            out,
            "{} no unknown answer to settle",
            count(r.settled, "release has", "releases have")
        )?;
    }
    for f in &r.failed {
        writeln!(out, "  failed: {}: {}", f.distribution, f.reason)?;
    }
    Ok(())
}

/// One introspected release: the names it showed at run time and how, or why it was not.
fn write_introspected(
    out: &mut impl Write,
    name: &DistName,
    version: &Version,
    outcome: &Outcome,
) -> Result<()> {
    match outcome {
        Outcome::Recorded {
            python,
            names,
            failed_imports,
            extras,
            extras_left_out,
            unreadable_metadata,
        } => writeln!(
            out,
            "{name} {version}: {names} names at run time on Python {python}{}{}{}{}",
            if *failed_imports > 0 {
                format!(" ({failed_imports} modules failed to import)")
            } else {
                String::new()
            },
            if extras.is_empty() {
                String::new()
            } else {
                format!("; with extras {} for its imports", extras.join(", "))
            },
            if extras_left_out.is_empty() {
                String::new()
            } else {
                format!(
                    "; left out of them: {} (heavy frameworks, and what would not install without them)",
                    extras_left_out.join(", ")
                )
            },
            if unreadable_metadata.is_empty() {
                String::new()
            } else {
                format!(
                    "; installed apart from its dependencies, whose constraints it declares as no installer reads them: {}",
                    unreadable_metadata.join(", ")
                )
            }
        )?,
        Outcome::Gap { reason } => writeln!(
            out,
            "{name} {version}: not introspected: {}",
            reason.replace('\n', "\n    ")
        )?,
    }
    Ok(())
}

impl RuntimeArgs {
    fn settings(&self) -> RuntimeSettings {
        RuntimeSettings {
            pythons: self.pythons.clone(),
            install_timeout: std::time::Duration::from_secs(self.install_timeout),
        }
    }
}

impl RunArgs {
    fn build_options(&self) -> BuildOptions {
        BuildOptions {
            jobs: self.jobs,
            force: self.force,
            lock: self.write.lock_policy(),
        }
    }
}

/// The exit of a run: interrupted (130, saying what was kept); nothing done, with the code of
/// what failed (3 when nothing matched, 4 when the index could not be reached, ...); partly
/// done (6); or success.
fn outcome(runs: &BankRuns, format: Format) -> Result<()> {
    let (report, runtime) = (&runs.build, runs.runtime.as_ref());
    if report.interrupted {
        return Err(interrupt::stopped(
            report.releases_indexed + report.releases_skipped,
            report.releases_left,
            "releases",
        )
        .into());
    }
    if let Some(r) = runtime.filter(|r| r.interrupted) {
        return Err(
            interrupt::stopped(r.releases.len(), r.releases_left, "introspected releases").into(),
        );
    }
    let runtime_failed = runtime.map_or(&[][..], |r| &r.failed[..]);
    if report.failed.is_empty() && !runtime_failed.is_empty() {
        return Err(CliError::partial(format!(
            "{} could not be introspected; the rest is recorded",
            count(runtime_failed.len(), "distribution", "distributions")
        ))
        .into());
    }
    let Some(first) = report.failed.first() else {
        return Ok(());
    };
    let listed = match format {
        Format::Json => "listed under `failed` in the output",
        Format::Text => "listed in the summary",
    };
    if report.releases_indexed + report.releases_skipped == 0 {
        let same_kind = report.failed.iter().all(|f| f.kind == first.kind);
        let code = if same_kind {
            Code::of_failure(first.kind)
        } else {
            Code::Failure
        };
        let message = format!(
            "nothing was indexed ({}, {listed})",
            count(report.failed.len(), "failure", "failures")
        );
        return Err(CliError::new(code, message).into());
    }
    let what = if report
        .failed
        .iter()
        .all(|f| f.kind == FailureKind::NotFound)
    {
        "could not be found"
    } else {
        "could not be indexed"
    };
    Err(CliError::partial(format!(
        "{} {what} ({listed}); the rest is in the bank",
        count(
            report.failed.len(),
            "release or distribution",
            "releases or distributions"
        )
    ))
    .into())
}

fn write_report(out: &mut impl Write, bank: &Path, r: &BuildReport) -> Result<()> {
    writeln!(
        out,
        "indexed {} of {} in {:.1} s into {} ({} already there, {} failed)",
        count(r.releases_indexed, "release", "releases"),
        count(r.distributions, "distribution", "distributions"),
        r.seconds,
        bank.display(),
        r.releases_skipped,
        r.failed.len()
    )?;
    if r.releases_indexed > 0 {
        writeln!(
            out,
            "parsed {} of {} source files ({:.0}% reused); fetched {} of {} of archives",
            r.parsed_files,
            r.source_files,
            100.0 * (1.0 - r.parsed_files as f64 / r.source_files.max(1) as f64),
            human_size(r.bytes_fetched),
            human_size(r.archive_bytes)
        )?;
    }
    for f in &r.failed {
        match &f.version {
            Some(v) => writeln!(out, "  failed: {} {v}: {}", f.distribution, f.reason)?,
            None => writeln!(out, "  failed: {}: {}", f.distribution, f.reason)?,
        }
    }
    for (name, version, reason) in &r.sourceless {
        writeln!(out, "  no sources: {name} {version}: {}", reason.as_str())?;
    }
    for (name, version) in &r.not_converged {
        writeln!(
            out,
            "  not converged: {name} {version}: the import flow stopped at its limit; some APIs may be missing"
        )?;
    }
    Ok(())
}

fn show_runs(runs: &[VersionRun]) -> String {
    if runs.is_empty() {
        return "none".into();
    }
    runs.iter()
        .map(|r| {
            if r.first == r.last {
                r.first.to_string()
            } else {
                format!("{} – {}", r.first, r.last)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Prints query results as JSON or text, or says nothing was found (exit code 3).
fn print_reports<T: serde::Serialize>(
    reports: &[T],
    format: Format,
    nothing: impl FnOnce() -> String,
    text: impl Fn(&mut dyn Write, &T) -> Result<()>,
) -> Result<()> {
    if reports.is_empty() {
        return Err(CliError::not_found(nothing()).into());
    }
    let mut out = super::printer::stdout();
    if format == Format::Json {
        return write_json(&mut out, &json!({ "results": reports }));
    }
    for (i, r) in reports.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        text(&mut out, r)?;
    }
    Ok(())
}

fn query_api(store: &Store, api: &str, format: Format) -> Result<()> {
    print_reports(
        &store.query_api(api)?,
        format,
        || api_miss(store, api),
        write_api_report,
    )
}

fn write_api_report(out: &mut dyn Write, r: &ApiReport) -> Result<()> {
    writeln!(
        out,
        "{} ({}, {})",
        r.path,
        r.display_name.as_deref().unwrap_or(r.distribution.as_str()),
        r.kind
    )?;
    writeln!(
        out,
        "  present in:  {} (of {} indexed releases)",
        show_runs(&r.present),
        r.indexed_releases
    )?;
    if !r.unknown.is_empty() {
        // The name on the path itself comes first; those reached through it follow.
        let through = r
            .unknown_through
            .first()
            .map_or("a name on its path", |o| o.through.as_str());
        writeln!(
            out,
            "  unknown in:  {} (static reading cannot see through {through})",
            show_runs(&r.unknown),
        )?;
    }
    if !r.absent.is_empty() {
        writeln!(out, "  absent in:   {}", show_runs(&r.absent))?;
    }
    for m in &r.raising_modules {
        writeln!(
            out,
            "  {} raises on import in {}: {}",
            m.module,
            show_runs(&m.releases),
            m.message.as_deref().unwrap_or("an exception")
        )?;
    }
    if !r.not_indexed.is_empty() {
        writeln!(
            out,
            "  not indexed: {} (`nbenv bank add {} --all-versions` indexes them)",
            count(r.not_indexed.len(), "other release", "other releases"),
            r.distribution
        )?;
    }
    if let (Some(first), Some(last)) = (&r.first, &r.last) {
        let after = after_last(last, r.latest_indexed.as_ref(), &r.unknown);
        writeln!(out, "  first, last: {first}, {last}{after}")?;
    }
    write_found_by(out, &r.static_present, &r.runtime_present)?;
    write_definitions(out, &r.canonical, &r.present)?;
    write_signatures(out, &r.path, &r.signature_changes)?;
    Ok(())
}

/// What became of an API after its `last` release, as far as the latest indexed one tells.
fn after_last(last: &Version, latest: Option<&Version>, unknown: &[VersionRun]) -> String {
    let in_runs = VersionRun::any_contains;
    match latest {
        Some(latest) if latest == last => {
            "; still present in the latest indexed release".to_string()
        }
        Some(latest) if in_runs(unknown, latest) => {
            format!("; not found after {last}, unknown in the latest indexed release ({latest})")
        }
        Some(latest) => format!("; gone after {last} (latest indexed: {latest})"),
        None => String::new(),
    }
}

/// Whether static reading, introspection or both found an API, and in which releases.
fn write_found_by(
    out: &mut dyn Write,
    static_present: &[VersionRun],
    runtime_present: &[VersionRun],
) -> Result<()> {
    match (static_present.is_empty(), runtime_present.is_empty()) {
        (false, true) => writeln!(out, "  found by:    static reading")?,
        (true, false) => writeln!(
            out,
            "  found by:    introspection only ({})",
            show_runs(runtime_present)
        )?,
        (false, false) => {
            writeln!(out, "  static:      {}", show_runs(static_present))?;
            writeln!(out, "  at run time: {}", show_runs(runtime_present))?;
        }
        (true, true) => {}
    }
    Ok(())
}

/// Where an API's definition lives, or that it is defined on its own path.
fn write_definitions(
    out: &mut dyn Write,
    canonical: &[CanonicalSpan],
    present: &[VersionRun],
) -> Result<()> {
    for c in canonical {
        writeln!(
            out,
            "  defined as:  {} (in {})",
            c.path,
            show_runs(&c.releases)
        )?;
    }
    if canonical.is_empty() && !present.is_empty() {
        writeln!(out, "  defined here")?;
    }
    Ok(())
}

/// The releases where an API's signature changed, each with the new signature.
fn write_signatures(out: &mut dyn Write, path: &str, changes: &[SignatureChange]) -> Result<()> {
    if !changes.is_empty() {
        writeln!(out, "  signatures:")?;
        for s in changes {
            writeln!(
                out,
                "    from {:<10} {}{}",
                s.version.to_string(),
                path.rsplit('.').next().unwrap_or(""),
                s.signature
            )?;
        }
    }
    Ok(())
}

/// Why `api` is in no release, and what to do: index the distribution that provides its
/// top-level module, or more of its releases.
fn api_miss(store: &Store, api: &str) -> String {
    let bank = store.path().display();
    let top = api.split('.').next().unwrap_or(api);
    match store.query_module(top) {
        Ok(providers) if !providers.is_empty() => {
            let names: Vec<String> = providers
                .iter()
                .map(|p| {
                    format!(
                        "{} ({} indexed)",
                        p.distribution,
                        count(p.indexed_releases, "release", "releases")
                    )
                })
                .collect();
            let first = &providers[0].distribution;
            format!(
                "`{api}` is in none of the indexed releases of {} in the bank ({bank}); \
                 to look in every release, run `nbenv bank add {first} --all-versions`",
                names.join(", ")
            )
        }
        _ => format!(
            "no distribution in the bank ({bank}) provides `{top}`; {}",
            add_hint(api)
        ),
    }
}

/// "index it with `nbenv bank add Pillow`": the distribution the built-in package list says
/// provides `module` (a module or an API path under it), as the list spells it; else the
/// top-level module's own name, said as a guess.
fn add_hint(module: &str) -> String {
    let top = module.split('.').next().unwrap_or(module);
    let listed = indexer::parse_packages(indexer::BUILT_IN, "apibank/packages.txt")
        .ok()
        .and_then(|list| {
            list.into_iter().find(|e| {
                if e.import_names.is_empty() {
                    e.name.as_str().replace('-', "_") == top.to_ascii_lowercase()
                } else {
                    e.import_names
                        .iter()
                        .any(|i| module == i || module.starts_with(&format!("{i}.")))
                }
            })
        });
    match listed {
        Some(entry) => format!("index it with `nbenv bank add {}`", entry.spelling),
        None => format!(
            "if `{top}` is also the name of its distribution, index it with `nbenv bank add {top}`"
        ),
    }
}

/// Which of the two releases is not indexed, and the command that adds it.
fn diff_miss(store: &Store, name: &DistName, miss: DiffMiss) -> CliError {
    let bank = store.path().display();
    match miss {
        DiffMiss::Distribution => CliError::not_found(format!(
            "the bank ({bank}) has no release of {name}; index some with `nbenv bank add {name} --all-versions`"
        )),
        DiffMiss::Releases(missing) => {
            let releases: Vec<String> = missing.iter().map(|v| format!("{name} {v}")).collect();
            let specs: Vec<String> = missing.iter().map(|v| format!("'{name}=={v}'")).collect();
            CliError::not_found(format!(
                "the bank ({bank}) has not indexed {}; add {} with `nbenv bank add {}`",
                releases.join(" or "),
                if missing.len() == 1 { "it" } else { "them" },
                specs.join(" ")
            ))
        }
    }
}

/// `bank query --imports NAME==VERSION`: what the release imports from other distributions
/// when it is imported, or that the bank has not read it.
fn query_imports(store: &Store, release: &DistSpec, format: Format) -> Result<()> {
    let version = release
        .spec
        .as_ref()
        .and_then(|spec| match spec.iter().collect::<Vec<_>>()[..] {
            [one] if *one.operator() == pep508_rs::pep440_rs::Operator::Equal => {
                Some(one.version().clone())
            }
            _ => None,
        })
        .ok_or_else(|| {
            CliError::usage(format!(
                "--imports takes one release, as NAME==VERSION (`{}==1.0`)",
                release.name
            ))
        })?;
    let name = &release.name;
    let not_found = || {
        CliError::not_found(format!(
            "{name} {version} is not registered in the bank ({})",
            store.path().display()
        ))
    };
    let dist_id = store.distribution_id(name)?.ok_or_else(not_found)?;
    let slot = store
        .catalog(dist_id)?
        .find(&version)
        .map(|r| r.slot)
        .ok_or_else(not_found)?;
    let imports = store.import_time(dist_id, slot)?;
    let mut out = super::printer::stdout();
    if format == Format::Json {
        return write_json(
            &mut out,
            &json!({ "distribution": name, "version": version.to_string(), "imports": imports }),
        );
    }
    match imports {
        None => writeln!(
            out,
            "{name} {version}: what it imports is not known (not indexed, or indexed before the \
             bank kept imports: `nbenv bank build --force` indexes it again)"
        )?,
        Some(paths) if paths.is_empty() => {
            writeln!(out, "{name} {version} imports no module outside itself")?
        }
        Some(paths) => {
            writeln!(out, "{name} {version} imports, whenever it is imported:")?;
            for path in paths {
                writeln!(out, "  {path}")?;
            }
        }
    }
    Ok(())
}

fn query_module(store: &Store, module: &str, format: Format) -> Result<()> {
    print_reports(
        &store.query_module(module)?,
        format,
        || {
            format!(
                "no distribution in the bank ({}) provides `{module}`; {}",
                store.path().display(),
                add_hint(module)
            )
        },
        |out, r| {
            let name = r.display_name.as_deref().unwrap_or(r.distribution.as_str());
            if r.present.is_empty() && !r.metapackage.is_empty() {
                return Ok(writeln!(
                    out,
                    "{module}: {name} is a metapackage in {} (of {} indexed releases): the code is in {}",
                    show_runs(&r.metapackage),
                    r.indexed_releases,
                    r.metapackage_of.join(", ")
                )?);
            }
            writeln!(
                out,
                "{module}: {name} in {} (of {} indexed releases)",
                show_runs(&r.present),
                r.indexed_releases
            )?;
            if !r.opaque.is_empty() {
                writeln!(out, "  compiled without stubs in {}", show_runs(&r.opaque))?;
            }
            if !r.runtime.is_empty() {
                writeln!(
                    out,
                    "  made at run time in {} (found by introspection)",
                    show_runs(&r.runtime)
                )?;
            }
            if !r.raises.is_empty() {
                writeln!(
                    out,
                    "  raises on import in {}: {}",
                    show_runs(&r.raises),
                    r.raises_message.as_deref().unwrap_or("an exception")
                )?;
            }
            if !r.metapackage.is_empty() {
                writeln!(
                    out,
                    "  a metapackage in {}: the code is in {}",
                    show_runs(&r.metapackage),
                    r.metapackage_of.join(", ")
                )?;
            }
            Ok(())
        },
    )
}

fn diff(
    store: &Store,
    name: &DistName,
    from: &Version,
    to: &Version,
    private: bool,
    format: Format,
) -> Result<()> {
    let report = match store.diff(name, from, to, private)? {
        Ok(report) => report,
        Err(miss) => return Err(diff_miss(store, name, miss).into()),
    };
    let mut out = super::printer::stdout();
    if format == Format::Json {
        write_json(&mut out, &report)?;
        return Ok(());
    }
    writeln!(
        out,
        "{name} {from} → {to}: {} removed, {} added, {} changed signature{}",
        report.removed.len(),
        report.added.len(),
        report.changed.len(),
        if report.unknown.is_empty() {
            String::new()
        } else {
            format!(", {} unknown on one side", report.unknown.len())
        }
    )?;
    writeln!(
        out,
        "compared: {}",
        if report.runtime_compared {
            "static reading and introspection (both releases introspected)"
        } else {
            "static reading (introspection is compared only where both releases were introspected)"
        }
    )?;
    let source = |e: &DiffEntry| match e.source {
        DiffSource::Static => "",
        DiffSource::Runtime => "  (introspection)",
    };
    for e in &report.removed {
        writeln!(out, "- {}{}", e.path, source(e))?;
    }
    for e in &report.added {
        writeln!(out, "+ {}{}", e.path, source(e))?;
    }
    for e in &report.unknown {
        let side = if e.before.is_some() || e.after.is_none() {
            to
        } else {
            from
        };
        writeln!(out, "? {}  (unknown in {side})", e.path)?;
    }
    for e in &report.changed {
        let tail = e.path.rsplit('.').next().unwrap_or("");
        writeln!(
            out,
            "~ {}\n    was {tail}{}\n    now {tail}{}",
            e.path,
            e.before.as_deref().unwrap_or("?"),
            e.after.as_deref().unwrap_or("?")
        )?;
    }
    Ok(())
}

/// `bank moves NAME`: each moved API and its successors, with their evidence.
fn moves(store: &Store, name: &DistName, format: Format) -> Result<()> {
    let Some(report) = store.moves(name)? else {
        return Err(diff_miss(store, name, DiffMiss::Distribution).into());
    };
    let mut out = super::printer::stdout();
    if format == Format::Json {
        write_json(&mut out, &report)?;
        return Ok(());
    }
    let shown = report.display_name.as_deref().unwrap_or(name.as_str());
    writeln!(
        out,
        "{shown}: {} moved (of {}{})",
        count(report.moves.len(), "API", "APIs"),
        count(
            report.indexed_releases,
            "indexed release",
            "indexed releases"
        ),
        report
            .latest_indexed
            .as_ref()
            .map_or(String::new(), |v| format!(", the latest {v}"))
    )?;
    if report.indexed_releases < 2 {
        writeln!(
            out,
            "  a removal shows only between indexed releases: `nbenv bank add {name} --all-versions` indexes them"
        )?;
    }
    for m in &report.moves {
        write_move(&mut out, m)?;
    }
    if !report.unproven.is_empty() {
        writeln!(
            out,
            "not proven ({}; no release that has both records both signatures):",
            count(report.unproven.len(), "API", "APIs")
        )?;
        for m in &report.unproven {
            write_move(&mut out, m)?;
        }
    }
    write_shims(&mut out, &report.shims, &report.renamed_keywords)?;
    write_mirrors(&mut out, &report.mirrors)?;
    super::notes::write_section(&mut out, name, &report.change_notes, &report.notes_read)?;
    Ok(())
}

/// Removed APIs whose last bodies were shims, and renamed keywords, each with the releases
/// whose source says so.
fn write_shims(
    out: &mut impl Write,
    shims: &[nbenv::bank::store::Shimmed],
    renames: &[nbenv::bank::store::RenamedKeyword],
) -> Result<()> {
    use nbenv::bank::store::ShimEvidence;
    if !shims.is_empty() {
        writeln!(
            out,
            "deprecation shims ({}, read from their last bodies):",
            count(shims.len(), "removed API", "removed APIs")
        )?;
    }
    for s in shims {
        let shown = s.also_as.first().unwrap_or(&s.old);
        let what = match &s.evidence {
            ShimEvidence::Shim {
                template, params, ..
            } => format!(
                "{shown}({}) -> {}  (shim: returns it",
                params.join(", "),
                // On one line: a template may span several.
                template.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            ShimEvidence::NamedInWarning { candidate } => {
                format!("{shown} -> {candidate}  (named in the warning, not proven")
            }
        };
        writeln!(out, "{what}; removed in {})", s.removed_in)?;
        let category = s.category.as_deref().unwrap_or("UserWarning");
        writeln!(
            out,
            "    {} in {}: {category}: {}",
            s.old,
            show_runs(&s.releases),
            s.message
        )?;
        if !s.unknown_after.is_empty() {
            writeln!(
                out,
                "    not defined from {} on, but the name may be served otherwise in {} (no evidence either way)",
                s.removed_in,
                show_runs(&s.unknown_after)
            )?;
        }
        if let ShimEvidence::Shim { globals, .. } = &s.evidence {
            if !globals.is_empty() {
                writeln!(out, "    the template also reads {}", globals.join(", "))?;
            }
        }
        if s.also_as.len() > 1 {
            let rest: Vec<&str> = s.also_as[1..].iter().take(3).map(|p| p.as_str()).collect();
            writeln!(out, "    also reachable as {}", rest.join(", "))?;
        }
    }
    if !renames.is_empty() {
        writeln!(
            out,
            "renamed keywords ({}):",
            count(renames.len(), "keyword", "keywords")
        )?;
    }
    for r in renames {
        let gone = r
            .old_removed_in
            .as_ref()
            .map_or(String::new(), |v| format!("; {} gone in {v}", r.old));
        writeln!(
            out,
            "{}: {} -> {}  (both accepted, the old one warned, in {}{gone})",
            r.path,
            r.old,
            r.new,
            show_runs(&r.releases)
        )?;
        writeln!(out, "    {}", r.message)?;
    }
    Ok(())
}

/// Modules the releases forwarded, name for name, to another module, with the module whose
/// code does it.
fn write_mirrors(out: &mut impl Write, mirrors: &[nbenv::bank::store::Mirrored]) -> Result<()> {
    if !mirrors.is_empty() {
        writeln!(
            out,
            "forwarded modules ({}, every name the same as the other module's):",
            count(mirrors.len(), "module", "modules")
        )?;
    }
    for m in mirrors {
        writeln!(
            out,
            "{} -> {}  (forwarded by {} in {})",
            m.module,
            m.mirror,
            m.by,
            show_runs(&m.releases)
        )?;
    }
    Ok(())
}

/// One removed API: a line per successor, then the evidence.
fn write_move(out: &mut impl Write, m: &Move) -> Result<()> {
    let several = m.successors.len();
    for (i, s) in m.successors.iter().enumerate() {
        let rank = if several > 1 {
            format!("; candidate {} of {several}", i + 1)
        } else {
            String::new()
        };
        write_successor(out, m, s, &rank)?;
    }
    if !m.unknown_after.is_empty() {
        writeln!(
            out,
            "    unknown in {} (no evidence either way)",
            show_runs(&m.unknown_after)
        )?;
    }
    if let Some(r) = &m.raising_module {
        writeln!(
            out,
            "    {} raises on import in {}: {}",
            r.module,
            show_runs(&r.releases),
            r.message.as_deref().unwrap_or("an exception")
        )?;
    }
    Ok(())
}

/// One successor of a removed API: what proves it, its definitions and the paths that reach
/// it as well.
fn write_successor(out: &mut impl Write, m: &Move, s: &Successor, rank: &str) -> Result<()> {
    let kind = match s.kind {
        MoveKind::SameDefinition => "same definition",
        MoveKind::Twin => "twin",
        MoveKind::NoSignature => "no signature to compare",
    };
    let both = if s.overlap.is_empty() {
        format!("never both; new from {}", s.first)
    } else {
        format!("both in {}", show_runs(&s.overlap))
    };
    let signature = signature_note(s.signature_match, &s.old_signature, &s.new_signature);
    writeln!(
        out,
        "{} -> {}  ({kind}; removed in {}; {both}{signature}{rank})",
        m.old, s.path, m.removed_in
    )?;
    writeln!(
        out,
        "    last in {}: {}; new in {}: {}",
        m.last,
        defined_as(&s.old_definition, &m.old),
        s.first,
        defined_as(&s.new_definition, &s.path)
    )?;
    if !s.unrecorded.is_empty() {
        writeln!(
            out,
            "    not recorded on both sides in {} (no evidence either way)",
            show_runs(&s.unrecorded)
        )?;
    }
    write_also_reachable(out, &s.also_as)
}

/// How a successor's signature relates to the removed API's, as a note for its line.
fn signature_note(
    matched: Option<SignatureMatch>,
    old: &Option<String>,
    new: &Option<String>,
) -> String {
    match (matched, old, new) {
        (Some(SignatureMatch::Same), Some(sig), _) => format!("; signature {sig}"),
        (Some(SignatureMatch::Extended), Some(old), Some(new)) => {
            format!("; signature {old} extended to {new}")
        }
        (Some(SignatureMatch::ByKeyword), Some(old), Some(new)) => {
            format!("; signature {old} extended to {new}, for calls by keyword")
        }
        (Some(SignatureMatch::Narrowed), Some(old), Some(new)) => {
            format!(
                "; signature {old} narrowed to {new}, for calls that pass none of what it dropped"
            )
        }
        _ => String::new(),
    }
}

/// What a path is defined as: itself, another path, or nothing recorded.
fn defined_as(definition: &Option<nbenv::names::ApiPath>, own: &nbenv::names::ApiPath) -> String {
    match definition {
        Some(d) if d == own => "defined there".to_string(),
        Some(d) => format!("defined as {d}"),
        None => "definition not recorded".to_string(),
    }
}

/// The other public paths that reach a successor, the first three of them.
fn write_also_reachable(out: &mut impl Write, also_as: &[nbenv::names::ApiPath]) -> Result<()> {
    if !also_as.is_empty() {
        let shown: Vec<&str> = also_as.iter().take(3).map(|p| p.as_str()).collect();
        let more = also_as.len() - shown.len();
        writeln!(
            out,
            "    also reachable as {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more (see --format json)")
            } else {
                String::new()
            }
        )?;
    }
    Ok(())
}

/// Prints what `bank check` read and every failure; a damaged bank is the bank error.
fn check(store: &Store, format: Format) -> Result<()> {
    let report = store.check()?;
    let mut out = super::printer::stdout();
    if format == Format::Json {
        write_json(&mut out, &json!({"bank": store.path(), "check": report}))?;
    } else {
        writeln!(
            out,
            "bank {} (schema {})",
            store.path().display(),
            report.schema
        )?;
        for c in &report.checked {
            match (&c.table, c.rows, &c.skipped) {
                (_, _, Some(why)) => writeln!(out, "  {}: not checked: {why}", c.check)?,
                (Some(table), Some(rows), None) => writeln!(
                    out,
                    "  {}: {table}, {}",
                    c.check,
                    count(rows as usize, "row", "rows")
                )?,
                _ => writeln!(out, "  {}", c.check)?,
            }
        }
        for f in &report.failures {
            writeln!(out, "FAIL {f}")?;
        }
    }
    if report.is_clean() {
        if format != Format::Json {
            writeln!(out, "ok: no damage found")?;
        }
        return Ok(());
    }
    Err(CliError::new(
        Code::Bank,
        format!(
            "bank {} is damaged: {}",
            store.path().display(),
            count(report.failures.len(), "failure", "failures")
        ),
    )
    .into())
}

fn stats(store: &Store, format: Format) -> Result<()> {
    let s = store.stats()?;
    let mut out = super::printer::stdout();
    if format == Format::Json {
        write_json(&mut out, &json!({"bank": store.path(), "stats": s}))?;
        return Ok(());
    }
    writeln!(out, "bank:           {}", store.path().display())?;
    writeln!(out, "distributions:  {}", s.distributions)?;
    writeln!(
        out,
        "releases:       {} ({} indexed, {} failed, {} introspected)",
        s.releases, s.indexed_releases, s.failed_releases, s.introspected_releases
    )?;
    writeln!(out, "modules:        {}", s.modules)?;
    writeln!(
        out,
        "APIs:           {} (one row each; {} API-release pairs)",
        s.apis, s.naive_rows
    )?;
    writeln!(out, "alias links:    {}", s.alias_links)?;
    writeln!(out, "signatures:     {}", s.signatures)?;
    write_unknown_shares(&mut out, &s)?;
    write_sourceless(&mut out, &s.sourceless_releases)?;
    write_not_converged(&mut out, &s.not_converged)?;
    writeln!(out, "size on disk:   {}", human_size(s.bytes_on_disk))?;
    Ok(())
}

/// How much of what the bank says is unknown, overall and for the ten distributions with
/// the highest share.
fn write_unknown_shares(out: &mut impl Write, s: &BankStats) -> Result<()> {
    let share =
        |present: u64, unknown: u64| 100.0 * unknown as f64 / (present + unknown).max(1) as f64;
    writeln!(
        out,
        "unknown:        {:.1}% of API-release pairs ({} unknown, {} present)",
        share(s.naive_rows, s.unknown_pairs),
        s.unknown_pairs,
        s.naive_rows
    )?;
    for u in s.unknown_by_distribution.iter().take(10) {
        writeln!(
            out,
            "  {:<28} {:>5.1}%  ({} unknown, {} present)",
            u.distribution.as_str(),
            100.0 * u.share(),
            u.unknown_pairs,
            u.present_pairs
        )?;
    }
    if s.unknown_by_distribution.len() > 10 {
        writeln!(
            out,
            "  and {} more (see --format json)",
            s.unknown_by_distribution.len() - 10
        )?;
    }
    Ok(())
}

/// Indexed releases whose files had no Python sources, the first twenty with the reason.
fn write_sourceless(out: &mut impl Write, releases: &[SourcelessRelease]) -> Result<()> {
    if releases.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "no sources:     {}",
        count(releases.len(), "release", "releases")
    )?;
    for r in releases.iter().take(20) {
        let detail = match r.detail.as_deref() {
            Some(d) if !d.is_empty() => format!(" ({d})"),
            _ => String::new(),
        };
        writeln!(
            out,
            "  {} {}: {}{detail}",
            r.distribution,
            r.version,
            r.reason.as_str()
        )?;
    }
    if releases.len() > 20 {
        writeln!(
            out,
            "  and {} more (see --format json)",
            releases.len() - 20
        )?;
    }
    Ok(())
}

/// Releases whose import flow stopped at its limit, so that their answers may miss names.
fn write_not_converged(out: &mut impl Write, releases: &[(DistName, Version)]) -> Result<()> {
    if !releases.is_empty() {
        let list: Vec<String> = releases.iter().map(|(d, v)| format!("{d} {v}")).collect();
        writeln!(
            out,
            "not converged:  {} (import flow stopped at its limit): {}",
            count(list.len(), "release", "releases"),
            list.join(", ")
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> Result<(String, Option<String>), String> {
        DistSpec::from_str(s).map(|d| (d.name.to_string(), d.spec.map(|v| v.to_string())))
    }

    #[test]
    fn dist_specs_are_pep_508_requirements() {
        let some = |n: &str, v: &str| Ok((n.to_string(), Some(v.to_string())));
        assert_eq!(spec("six"), Ok(("six".into(), None)));
        assert_eq!(spec("pandas==0.25.3"), some("pandas", "==0.25.3"));
        assert_eq!(
            spec("scikit-learn>=0.17,<0.21"),
            some("scikit-learn", ">=0.17, <0.21")
        );
        // Reproduced: extras were refused as part of the name.
        assert_eq!(spec("requests[security]>=2"), some("requests", ">=2"));
        assert_eq!(spec("numpy (>=1.7)"), some("numpy", ">=1.7"));
        assert_eq!(
            spec(" Scikit_Learn ~= 0.20 "),
            some("scikit-learn", "~=0.20")
        );
        assert!(spec("pandas>=").is_err());
        assert!(spec("six @ https://example.org/six-1.0.tar.gz").is_err());
        assert!(spec("six; python_version < '3'").is_err());
    }
}

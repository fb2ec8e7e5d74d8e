//! `nbenv bank`: build and query the API bank.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::ProgressBar;
use nbenv::bank::indexer::{
    self, BuildObserver, BuildOptions, BuildReport, BuildTarget, ReleaseOutcome, Selection,
};
use nbenv::bank::introspect::{introspect, IntrospectConfig, IntrospectObserver, Outcome};
use nbenv::bank::store::{ApiReport, Store, VersionRun};
use nbenv::names::DistName;
use nbenv::pypi::{Version, VersionSpecifiers};
use serde_json::json;

use super::args::{Format, GlobalArgs};
use super::context;
use super::exit::{NotFound, PartialFailure};
use super::index::human_size;
use super::output::write_json;
use super::progress;

#[derive(Debug, Args)]
pub struct BankArgs {
    #[command(subcommand)]
    pub command: BankCommand,
}

#[derive(Debug, Subcommand)]
pub enum BankCommand {
    /// Index releases of distributions into the bank (idempotent).
    ///
    /// A bare NAME indexes its newest release; NAME with a specifier (`pandas>=0.20,<1.1`)
    /// indexes every matching release.
    Add {
        #[arg(required = true, value_name = "NAME[SPEC]")]
        specs: Vec<DistSpec>,
        /// Every release (matching the specifier, if any).
        #[arg(long, conflicts_with = "latest")]
        all_versions: bool,
        /// The newest N final releases (matching the specifier, if any).
        #[arg(long, value_name = "N")]
        latest: Option<usize>,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Index the full history of every distribution in a package list.
    Build {
        /// The package list (format: apibank/README.md).
        #[arg(long, default_value = "apibank/packages.txt", value_name = "PATH")]
        packages: PathBuf,
        /// Only the newest N final releases of each (a partial bank, for trying things out).
        #[arg(long, value_name = "N")]
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
        #[arg(required = true, value_name = "NAME[SPEC]")]
        specs: Vec<DistSpec>,
        #[command(flatten)]
        runtime: RuntimeArgs,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Which releases have an API, its definition and signature changes; or, with
    /// `--module`, which distributions provide a module.
    Query {
        /// A fully qualified API, e.g. `sklearn.cross_validation.train_test_split`.
        #[arg(required_unless_present = "module", conflicts_with = "module")]
        api: Option<String>,
        /// An import name or module, e.g. `sklearn` or `google.protobuf`.
        #[arg(long, value_name = "M")]
        module: Option<String>,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// APIs added, removed or changed in signature between two releases.
    Diff {
        name: DistName,
        from: Version,
        to: Version,
        /// Include private names (a segment starting with `_`).
        #[arg(long)]
        private: bool,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Distributions, releases, APIs, aliases and size on disk.
    Stats {
        #[arg(long, value_enum, default_value_t)]
        format: Format,
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
    #[arg(long, short = 'j', default_value_t = 8, value_name = "N")]
    pub jobs: usize,
    /// Index releases again even when the bank has them.
    #[arg(long)]
    pub force: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `NAME` or `NAME<specifier>` on the command line.
#[derive(Debug, Clone)]
pub struct DistSpec {
    pub name: DistName,
    pub spec: Option<VersionSpecifiers>,
}

impl FromStr for DistSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let split = s.find(|c: char| "<>=!~ (".contains(c)).unwrap_or(s.len());
        let name = DistName::new(&s[..split]).map_err(|e| e.to_string())?;
        let rest = s[split..]
            .trim()
            .trim_start_matches('(')
            .trim_end_matches(')');
        let spec = if rest.is_empty() {
            None
        } else {
            Some(VersionSpecifiers::from_str(rest).map_err(|e| format!("`{rest}`: {e}"))?)
        };
        Ok(Self { name, spec })
    }
}

/// `--bank`, else `<data dir>/nbenv/bank.sqlite3`.
pub fn bank_path(global: &GlobalArgs) -> PathBuf {
    global.bank.clone().unwrap_or_else(|| {
        dirs::data_dir()
            .map(|d| d.join("nbenv"))
            .unwrap_or_else(|| PathBuf::from(".nbenv"))
            .join("bank.sqlite3")
    })
}

pub fn run(global: &GlobalArgs, args: &BankArgs) -> Result<()> {
    let bank = bank_path(global);
    match &args.command {
        BankCommand::Add {
            specs,
            all_versions,
            latest,
            run,
        } => {
            let targets = add_targets(specs, *all_versions, latest);
            run_build(global, &bank, &targets, run, false)
        }
        BankCommand::Introspect {
            specs,
            runtime,
            format,
        } => {
            let targets = add_targets(specs, false, &None);
            let run = RunArgs {
                jobs: 8,
                force: false,
                format: Format::Text,
            };
            run_build(global, &bank, &targets, &run, true)?;
            run_introspect(global, &bank, &targets, runtime, *format)
        }
        BankCommand::Build {
            packages,
            latest,
            only,
            no_introspect,
            runtime,
            run,
        } => {
            let list = indexer::read_packages(packages)?;
            for name in only {
                if !list.iter().any(|e| &e.name == name) {
                    bail!("`{name}` is not in {}", packages.display());
                }
            }
            let targets: Vec<BuildTarget> = list
                .iter()
                .filter(|e| only.is_empty() || only.contains(&e.name))
                .map(|e| BuildTarget {
                    name: e.name.clone(),
                    selection: latest.map_or(Selection::All, Selection::Latest),
                })
                .collect();
            let built = run_build(global, &bank, &targets, run, false);
            if *no_introspect {
                return built;
            }
            let marked: Vec<BuildTarget> = targets
                .into_iter()
                .filter(|t| list.iter().any(|e| e.name == t.name && e.introspect))
                .collect();
            if !marked.is_empty() {
                run_introspect(global, &bank, &marked, runtime, run.format)?;
            }
            built
        }
        BankCommand::Query {
            api,
            module,
            format,
        } => {
            let store = Store::open_read_only(&bank)?;
            match (api, module) {
                (Some(api), _) => query_api(&store, api, *format),
                (None, Some(module)) => query_module(&store, module, *format),
                (None, None) => unreachable!("clap requires one"),
            }
        }
        BankCommand::Diff {
            name,
            from,
            to,
            private,
            format,
        } => diff(
            &Store::open_read_only(&bank)?,
            name,
            from,
            to,
            *private,
            *format,
        ),
        BankCommand::Stats { format } => stats(&Store::open_read_only(&bank)?, *format),
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

struct IntrospectBar {
    bar: ProgressBar,
}

impl IntrospectObserver for IntrospectBar {
    fn queued(&self, releases: usize) {
        self.bar.set_length(releases as u64);
    }

    fn finished(&self, name: &DistName, version: &Version, outcome: &Outcome) {
        self.bar.inc(1);
        self.bar.set_message(format!("{name} {version}"));
        if let Outcome::Gap { reason } = outcome {
            let first = reason.lines().next().unwrap_or_default();
            self.bar
                .println(format!("note: {name} {version} not introspected: {first}"));
        }
    }
}

fn run_introspect(
    global: &GlobalArgs,
    bank: &Path,
    targets: &[BuildTarget],
    runtime: &RuntimeArgs,
    format: Format,
) -> Result<()> {
    let client = context::index_client(global)?;
    let interpreters = if runtime.pythons.is_empty() {
        nbenv::python::discover()
    } else {
        runtime
            .pythons
            .iter()
            .map(|p| nbenv::python::Interpreter::at(p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(anyhow::Error::msg)?
    };
    if interpreters.is_empty() {
        bail!("no Python interpreter found (give one with --python PATH)");
    }
    let mut config = IntrospectConfig::new(interpreters, nbenv::python::Installer::detect());
    config.install_timeout = std::time::Duration::from_secs(runtime.install_timeout);
    if global.index_url != nbenv::pypi::PYPI_SIMPLE {
        config.index_url = Some(global.index_url.clone());
    }
    let observer = IntrospectBar {
        bar: progress::bar(global, 0, "introspected"),
    };
    let report = introspect(&client, bank, targets, &config, &observer)
        .with_context(|| format!("introspecting into the bank at {}", bank.display()))?;
    observer.bar.finish_and_clear();
    let mut out = std::io::stdout().lock();
    if format == Format::Json {
        write_json(
            &mut out,
            &json!({"bank": bank, "introspected": report.releases}),
        )?;
        return Ok(());
    }
    if global.quiet {
        return Ok(());
    }
    for (name, version, outcome) in &report.releases {
        match outcome {
            Outcome::Recorded {
                python,
                names,
                failed_imports,
            } => writeln!(
                out,
                "{name} {version}: {names} names at run time on Python {python}{}",
                if *failed_imports > 0 {
                    format!(" ({failed_imports} modules failed to import)")
                } else {
                    String::new()
                }
            )?,
            Outcome::Gap { reason } => writeln!(
                out,
                "{name} {version}: not introspected: {}",
                reason.replace('\n', "\n    ")
            )?,
        }
    }
    Ok(())
}

struct BarObserver {
    bar: ProgressBar,
    verbose: bool,
}

impl BuildObserver for BarObserver {
    fn queued(&self, releases: usize) {
        self.bar.set_length(releases as u64);
    }

    fn note(&self, message: &str) {
        self.bar.println(format!("warning: {message}"));
    }

    fn finished(&self, name: &DistName, version: &Version, result: Result<&ReleaseOutcome, &str>) {
        self.bar.inc(1);
        self.bar.set_message(format!("{name} {version}"));
        match result {
            Err(reason) => self
                .bar
                .println(format!("warning: {name} {version}: {reason}")),
            Ok(o) if self.verbose => self.bar.println(format!(
                "indexed {name} {version}: {} APIs, {} of {} files parsed",
                o.apis.apis.len(),
                o.counts.parsed_files,
                o.counts.source_files
            )),
            Ok(_) => {}
        }
    }
}

fn run_build(
    global: &GlobalArgs,
    bank: &Path,
    targets: &[BuildTarget],
    run: &RunArgs,
    quiet_report: bool,
) -> Result<()> {
    let client = context::index_client(global)?;
    let observer = BarObserver {
        bar: progress::bar(global, 0, "releases"),
        verbose: global.verbose > 0,
    };
    let options = BuildOptions {
        jobs: run.jobs,
        force: run.force,
    };
    let report = indexer::build(&client, bank, targets, &options, &observer)
        .with_context(|| format!("building the bank at {}", bank.display()))?;
    observer.bar.finish_and_clear();
    let mut out = std::io::stdout().lock();
    if run.format == Format::Json {
        write_json(&mut out, &json!({"bank": bank, "report": report}))?;
    } else if !global.quiet && !quiet_report {
        write_report(&mut out, bank, &report)?;
    }
    let missing: Vec<_> = report
        .failed
        .iter()
        .filter(|f| f.version.is_none() && f.reason.contains("not found"))
        .collect();
    if !missing.is_empty() && report.releases_indexed + report.releases_skipped == 0 {
        return Err(NotFound(
            missing
                .iter()
                .map(|f| f.reason.clone())
                .collect::<Vec<_>>()
                .join("; "),
        )
        .into());
    }
    if !report.failed.is_empty() {
        return Err(PartialFailure(format!(
            "{} release(s) or distribution(s) could not be indexed; see the warnings above",
            report.failed.len()
        ))
        .into());
    }
    Ok(())
}

fn write_report(out: &mut impl Write, bank: &Path, r: &BuildReport) -> Result<()> {
    writeln!(
        out,
        "indexed {} release(s) of {} distribution(s) in {:.1} s into {} ({} already there, {} failed)",
        r.releases_indexed,
        r.distributions,
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
        return Err(NotFound(nothing()).into());
    }
    let mut out = std::io::stdout().lock();
    if format == Format::Json {
        return write_json(&mut out, &reports);
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
        || {
            format!(
                "no distribution in the bank ({}) has `{api}`",
                store.path().display()
            )
        },
        write_api_report,
    )
}

fn write_api_report(out: &mut dyn Write, r: &ApiReport) -> Result<()> {
    let kind = serde_json::to_value(r.kind)?;
    writeln!(
        out,
        "{} ({}, {})",
        r.path,
        r.distribution,
        kind.as_str().unwrap_or("?")
    )?;
    writeln!(
        out,
        "  present in:  {} (of {} indexed releases)",
        show_runs(&r.present),
        r.indexed_releases
    )?;
    if let (Some(first), Some(last)) = (&r.first, &r.last) {
        let removed = match &r.latest_indexed {
            Some(latest) if latest != last => {
                format!("; gone after {last} (latest indexed: {latest})")
            }
            _ => "; still present in the latest indexed release".into(),
        };
        writeln!(out, "  first, last: {first}, {last}{removed}")?;
    }
    match (r.static_present.is_empty(), r.runtime_present.is_empty()) {
        (false, true) => writeln!(out, "  found by:    static reading")?,
        (true, false) => writeln!(
            out,
            "  found by:    introspection only ({})",
            show_runs(&r.runtime_present)
        )?,
        (false, false) => {
            writeln!(out, "  static:      {}", show_runs(&r.static_present))?;
            writeln!(out, "  at run time: {}", show_runs(&r.runtime_present))?;
        }
        (true, true) => {}
    }
    for c in &r.canonical {
        writeln!(
            out,
            "  defined as:  {} (in {})",
            c.path,
            show_runs(&c.releases)
        )?;
    }
    if r.canonical.is_empty() {
        writeln!(out, "  defined here")?;
    }
    if !r.signature_changes.is_empty() {
        writeln!(out, "  signatures:")?;
        for s in &r.signature_changes {
            writeln!(
                out,
                "    from {:<10} {}{}",
                s.version.to_string(),
                r.path.rsplit('.').next().unwrap_or(""),
                s.signature
            )?;
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
                "no distribution in the bank ({}) provides `{module}`",
                store.path().display()
            )
        },
        |out, r| {
            writeln!(
                out,
                "{module}: {} in {} (of {} indexed releases)",
                r.distribution,
                show_runs(&r.present),
                r.indexed_releases
            )?;
            if !r.opaque.is_empty() {
                writeln!(out, "  compiled without stubs in {}", show_runs(&r.opaque))?;
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
    let Some(report) = store.diff(name, from, to, private)? else {
        return Err(NotFound(format!(
            "the bank ({}) has no indexed release {name} {from} and {to}; index them with `nbenv bank add '{name}=={from}' '{name}=={to}'`",
            store.path().display()
        ))
        .into());
    };
    let mut out = std::io::stdout().lock();
    if format == Format::Json {
        write_json(&mut out, &report)?;
        return Ok(());
    }
    writeln!(
        out,
        "{name} {from} → {to}: {} removed, {} added, {} changed signature",
        report.removed.len(),
        report.added.len(),
        report.changed.len()
    )?;
    for e in &report.removed {
        writeln!(out, "- {}", e.path)?;
    }
    for e in &report.added {
        writeln!(out, "+ {}", e.path)?;
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

fn stats(store: &Store, format: Format) -> Result<()> {
    let s = store.stats()?;
    let mut out = std::io::stdout().lock();
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
    writeln!(out, "size on disk:   {}", human_size(s.bytes_on_disk))?;
    Ok(())
}

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::extras::{
    import_names_of as extras_import_names, plan as plan_extras, ExtrasPlan, LEFT_OUT_OF_EXTRAS,
};
use super::request::{RuntimeRequest, RuntimeResult};
use super::SCRIPT;
use crate::bank::extract::is_private;
use crate::bank::flow::ApiKind;
use crate::bank::indexer::{merge_targets, BuildTarget, FailedRelease, FailureKind, IndexError};
use crate::bank::store::{
    BankWriter, DistId, LockPolicy, ReleaseRow, ReleaseStatus, RuntimeFinding, RuntimeLinks,
    RuntimeStatus, Store,
};
use crate::names::DistName;
use crate::pypi::{IndexClient, ProjectPage, PypiError, Release, Version};
use crate::python::{
    candidate_interpreters, environments, run_limited, start_of_next_day, Environment,
    EnvironmentSpec, InstallOptions, Installer, Interpreter, ProcessError, PythonVersion,
    ReleaseInstall, Tools,
};

#[derive(Debug, Clone)]
pub struct IntrospectConfig {
    pub interpreters: Vec<Interpreter>,
    pub installer: Installer,
    /// Where uv and old virtualenv are kept when the machine lacks them.
    pub tools: Tools,
    /// Passed to the installer, so private indexes work here too.
    pub index_url: Option<String>,
    pub install_timeout: Duration,
    pub run_timeout: Duration,
    pub seconds_per_import: u64,
    /// Interpreters tried per release before giving up.
    pub attempts: usize,
    /// What to do when another process is writing the bank.
    pub lock: LockPolicy,
    /// Introspect releases again even if introspection recorded them already.
    pub force: bool,
    /// Only releases where the bank has unknown answers: a module static reading cannot list
    /// that introspection has not listed yet.
    pub unknown_only: bool,
    /// No release is started past it, and installs and imports are cut at it (an inference's
    /// introspection budget). A release cut short is recorded as a gap, so that later runs
    /// do not spend their budget on it again.
    pub deadline: Option<Instant>,
    /// Try again releases that could not be introspected before (a runtime gap). An
    /// inference does not: a release whose interpreter aborts on import, or that has no
    /// wheel here, would cost every run the same minutes for the same answer.
    pub retry_gaps: bool,
}

impl IntrospectConfig {
    pub fn new(interpreters: Vec<Interpreter>, installer: Installer, tools: Tools) -> Self {
        Self {
            interpreters,
            installer,
            tools,
            index_url: None,
            install_timeout: Duration::from_secs(900),
            run_timeout: Duration::from_secs(600),
            seconds_per_import: 60,
            attempts: 2,
            lock: LockPolicy::default(),
            force: false,
            unknown_only: false,
            deadline: None,
            retry_gaps: true,
        }
    }
}

/// What happened to one release.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum Outcome {
    Recorded {
        python: PythonVersion,
        names: usize,
        failed_imports: usize,
        /// Extras installed because the release's imports needed them (`alldeps`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        extras: Vec<String>,
        /// Distributions those extras need that the cap left out (torch, tensorflow, ...).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        extras_left_out: Vec<String>,
        /// Requires-Dist lines the installer cannot read (`pytz (>=2011k)`): the release was
        /// installed without dependencies, after them with these constraints dropped.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        unreadable_metadata: Vec<String>,
    },
    /// Could not be introspected here; the reason is stored with the release.
    Gap { reason: String },
}

pub trait IntrospectObserver: Sync {
    fn queued(&self, _releases: usize) {}
    /// Whether the user asked to stop: the release in flight is abandoned (its installer is
    /// killed, its scratch venv removed, nothing recorded) and no other is started.
    fn cancelled(&self) -> bool {
        crate::interrupt::requested()
    }
    fn finished(&self, _name: &DistName, _version: &Version, _outcome: &Outcome) {}
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct IntrospectReport {
    pub releases: Vec<(DistName, Version, Outcome)>,
    /// Releases introspection had recorded already, left as they are (`--force` redoes them).
    pub skipped: usize,
    /// Releases left out by `unknown_only`: nothing in them is unknown.
    pub settled: usize,
    /// Distributions or releases that could not be looked at (the index, the bank); the rest
    /// went on.
    pub failed: Vec<FailedRelease>,
    /// The user stopped the run; `releases_left` were not introspected.
    pub interrupted: bool,
    pub releases_left: usize,
    /// Releases not started because the deadline had passed.
    pub past_deadline: usize,
    /// Releases left out because an earlier run could not introspect them (`retry_gaps`).
    pub gaps_kept: usize,
    /// Releases no interpreter of this machine can install from a wheel: recorded as gaps
    /// (also in `releases`) without building anything.
    pub no_interpreter: usize,
}

/// Why a release the introspection budget left unstarted is not settled.
pub const OVER_BUDGET: &str = "the introspection budget ran out before it was started";

/// Records `releases` as not settled because the budget ran out before them (an inference's
/// rounds planned after its budget was spent), so that later inferences do not try them
/// again; `nbenv bank introspect` does. Releases the bank does not know are left alone.
pub fn defer(
    bank_path: &Path,
    lock: LockPolicy,
    releases: &[(DistName, Version)],
) -> Result<usize, IndexError> {
    let mut store = Store::open_with(bank_path, lock)?;
    let mut marked = 0;
    for (name, version) in releases {
        let Some(dist_id) = store.distribution_id(name)? else {
            continue;
        };
        let rows = store.releases(dist_id)?;
        if let Some(row) = rows.iter().find(|r| &r.version == version) {
            if !row.is_introspected() {
                store.mark_runtime_gap(row.id, OVER_BUDGET)?;
                marked += 1;
            }
        }
    }
    Ok(marked)
}

/// Introspects the selected releases of each distribution. They must be indexed statically
/// first (their modules are what gets imported); others are skipped with a note.
pub fn introspect(
    client: &IndexClient,
    bank_path: &Path,
    targets: &[BuildTarget],
    config: &IntrospectConfig,
    observer: &dyn IntrospectObserver,
) -> Result<IntrospectReport, IndexError> {
    let _clock = crate::timings::start(crate::timings::Stage::Introspection);
    let pages = merge_targets(targets).into_iter().map(|target| {
        let page = client.project(&target.name);
        (target, page)
    });
    introspect_pages(bank_path, pages, config, observer)
}

/// [`introspect`] over the project pages of its targets, read as they are asked for.
fn introspect_pages(
    bank_path: &Path,
    pages: impl Iterator<Item = (BuildTarget, Result<ProjectPage, PypiError>)>,
    config: &IntrospectConfig,
    observer: &dyn IntrospectObserver,
) -> Result<IntrospectReport, IndexError> {
    let mut store = Store::open_with(bank_path, config.lock.clone())?;
    let mut work = Vec::new();
    let mut uninstallable = Vec::new();
    let mut report = IntrospectReport::default();
    for (BuildTarget { name, selection }, page) in pages {
        let name = &name;
        // One project that cannot be read does not stop the others.
        let page = match page {
            Ok(page) => page,
            // Every other project would find the disk as full.
            Err(e) if e.is_disk_full() => return Err(e.into()),
            Err(e) => {
                report.failed.push(FailedRelease {
                    distribution: name.clone(),
                    version: None,
                    kind: FailureKind::of(&e),
                    reason: e.to_string(),
                });
                continue;
            }
        };
        let Some(dist_id) = store.distribution_id(name)? else {
            continue;
        };
        let rows = store.releases(dist_id)?;
        let unknown = if config.unknown_only {
            Some(store.releases_with_unknowns(dist_id)?)
        } else {
            None
        };
        let releases = page.releases();
        let versions: Vec<&Version> = releases.iter().map(|r| r.version).collect();
        for version in selection.pick(&versions) {
            let Some(row) = rows.iter().find(|r| &r.version == version) else {
                continue;
            };
            if row.is_introspected() && !config.force {
                report.skipped += 1;
                continue;
            }
            if row.runtime_status == Some(RuntimeStatus::Gap) && !config.retry_gaps && !config.force
            {
                report.gaps_kept += 1;
                continue;
            }
            if unknown.as_ref().is_some_and(|u| !u.contains(row.slot)) {
                report.settled += 1;
                continue;
            }
            let release = releases
                .iter()
                .find(|r| r.version == version)
                .expect("picked from these")
                .clone();
            // Decided before anything is built or queued: a release no interpreter here can
            // install from a wheel takes no place in the round nor in an inference's budget.
            if let Err(no_fit) = candidate_interpreters(&config.interpreters, &release) {
                uninstallable.push((name.clone(), row.clone(), no_fit.to_string()));
                continue;
            }
            work.push((
                name.clone(),
                dist_id,
                row.clone(),
                release
                    .files
                    .iter()
                    .map(|f| (*f).clone())
                    .collect::<Vec<_>>(),
            ));
        }
    }
    // What they could not tell stays unknown; why is kept with the release, so that an
    // inference does not plan them again (`bank introspect` does, as on another machine
    // other interpreters may fit).
    for (name, row, reason) in uninstallable {
        store.mark_runtime_gap(row.id, &reason)?;
        report.no_interpreter += 1;
        report
            .releases
            .push((name, row.version, Outcome::Gap { reason }));
    }
    observer.queued(work.len());
    let mut writer = BankWriter::new(&mut store);
    let total = work.len();
    let mut work = work.into_iter().enumerate();
    while let Some((done, (name, dist_id, row, files))) = work.next() {
        if observer.cancelled() {
            report.interrupted = true;
            report.releases_left = total - done;
            break;
        }
        let left = config
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()));
        if left == Some(Duration::ZERO) {
            report.past_deadline = total - done;
            // Recorded as not settled, as one cut short is: a later inference does not spend
            // its own budget on them (`bank introspect` tries them).
            let not_started = std::iter::once(row.id).chain(work.map(|(_, (_, _, row, _))| row.id));
            for id in not_started {
                writer.store().mark_runtime_gap(id, OVER_BUDGET)?;
            }
            break;
        }
        let cut;
        let config = match left {
            Some(left) => {
                cut = IntrospectConfig {
                    install_timeout: config.install_timeout.min(left),
                    run_timeout: config.run_timeout.min(left),
                    seconds_per_import: config.seconds_per_import.min(left.as_secs().max(1)),
                    ..config.clone()
                };
                &cut
            }
            None => config,
        };
        let release = Release {
            version: &row.version,
            files: files.iter().collect(),
        };
        let outcome = if row.status != ReleaseStatus::Indexed {
            Outcome::Gap {
                reason: "not indexed statically yet".into(),
            }
        } else {
            match introspect_release(config, &mut writer, &name, dist_id, &row, &release)? {
                Outcome::Gap { reason } if config.deadline.is_some_and(|d| Instant::now() >= d) => {
                    Outcome::Gap {
                        reason: format!("the introspection budget ran out: {reason}"),
                    }
                }
                outcome => outcome,
            }
        };
        if observer.cancelled() && matches!(outcome, Outcome::Gap { .. }) {
            // Its installer or script was killed: the gap is not about the release.
            report.interrupted = true;
            report.releases_left = total - done;
            break;
        }
        match &outcome {
            Outcome::Gap { reason } => writer.store().mark_runtime_gap(row.id, reason)?,
            Outcome::Recorded { .. } => {}
        }
        observer.finished(&name, &row.version, &outcome);
        report.releases.push((name, row.version.clone(), outcome));
    }
    Ok(report)
}

fn introspect_release(
    config: &IntrospectConfig,
    writer: &mut BankWriter<'_>,
    name: &DistName,
    dist_id: DistId,
    row: &ReleaseRow,
    release: &Release<'_>,
) -> Result<Outcome, IndexError> {
    let gap = |reason: String| Ok(Outcome::Gap { reason });
    let store = writer.store();
    let modules = store.release_modules(dist_id, row.slot)?;
    let top_level = store.release_import_names(dist_id, row.slot)?;
    let mut request = RuntimeRequest {
        top_level: top_level
            .iter()
            .map(|t| t.split('.').next().unwrap_or(t).to_string())
            .collect(),
        modules: Vec::new(),
        probe: BTreeMap::new(),
        keep_all: Vec::new(),
        seconds_per_import: config.seconds_per_import,
    };
    for m in &modules {
        if m.path.split('.').any(is_private) {
            continue;
        }
        request.modules.push(m.path.clone());
        if m.dynamic {
            request.keep_all.push(m.path.clone());
        }
        if m.dynamic || m.opaque {
            let names = store.names_ever_under(dist_id, &m.path)?;
            if !names.is_empty() {
                request.probe.insert(m.path.clone(), names);
            }
        }
    }
    if request.modules.is_empty() {
        return gap("the release has no public modules to import".into());
    }

    let candidates = match candidate_interpreters(&config.interpreters, release) {
        Ok(c) => c,
        Err(reason) => return gap(reason.to_string()),
    };
    let newest_upload = release.files.iter().filter_map(|f| f.upload_time).max();
    let requires_dist = store.requires_dist(row.id)?;
    let install = ReleaseInstall::plan(&format!("{name}=={}", release.version), &requires_dist);
    let spec = EnvironmentSpec {
        requirements: install.requirements,
        without_dependencies: install.without_dependencies,
        options: InstallOptions {
            only_binary: true,
            sdists_allowed: Vec::new(),
            only_binary_names: Vec::new(),
            exclude_newer: newest_upload.and_then(start_of_next_day),
            index_url: config.index_url.clone(),
            no_deps: false,
            constraints: Vec::new(),
            timeout: config.install_timeout,
            // Read once and thrown away: nothing of it is worth a place in the cache.
            no_cache: true,
            no_build_isolation: false,
        },
        purpose: "introspect",
        create_timeout: config.install_timeout,
    };
    let packages = crate::bank::indexer::built_in();
    let mut failures = Vec::new();
    let tried = candidates.into_iter().take(config.attempts.max(1));
    for built in environments(&spec, tried, &config.installer, &config.tools) {
        let env = match built {
            Ok(env) => env,
            Err(e) => {
                failures.push(e.to_string());
                continue;
            }
        };
        let python = env.interpreter.version;
        let mut result = match run_script(config, &env, &request) {
            Ok(result) => result,
            Err(reason) => {
                failures.push(format!("Python {python}: {reason}"));
                continue;
            }
        };
        // Modules the release's own imports missed may come with one of its extras: those are
        // installed and the imports run again, a few rounds at most (a module found this time
        // may import one missing next).
        let mut extras = ExtrasPlan::default();
        let capped = InstallOptions {
            constraints: LEFT_OUT_OF_EXTRAS
                .iter()
                .map(|d| format!("{d}<0"))
                .collect(),
            ..spec.options.clone()
        };
        for _ in 0..MAX_EXTRAS_ROUNDS {
            if result.missing.is_empty() {
                break;
            }
            let round = plan_extras(&requires_dist, &result.missing_modules(), &packages);
            let new: Vec<String> = round
                .requirements
                .iter()
                .filter(|r| !extras.requirements.contains(r))
                .cloned()
                .collect();
            extras.merge(round);
            if new.is_empty() {
                break;
            }
            // One at a time, each forbidden to pull in a left-out framework through its own
            // dependencies (timm needs torch): one that would is left out too.
            for requirement in &new {
                if env
                    .venv
                    .install(std::slice::from_ref(requirement), &capped)
                    .is_err()
                {
                    extras.leave_out(requirement);
                }
            }
            result = match run_script(config, &env, &request) {
                Ok(result) => result,
                Err(reason) => {
                    failures.push(format!("Python {python}: {reason}"));
                    break;
                }
            };
        }
        // Modules that need a framework the cap left out fail as expected: they say nothing
        // against the run.
        let excused = extras_import_names(&extras.left_out, &packages);
        if let Some(reason) = import_gap(&request, &result, &excused) {
            let cap = if extras.left_out.is_empty() {
                String::new()
            } else {
                format!(
                    " (extras would need {}, left out)",
                    extras.left_out.join(", ")
                )
            };
            failures.push(format!("Python {python}: {reason}{cap}"));
            continue;
        }
        let findings: Vec<RuntimeFinding> = result
            .names
            .iter()
            .map(|(path, k)| RuntimeFinding {
                path: path.clone(),
                kind: k.parse().unwrap_or(ApiKind::Unknown),
            })
            .collect();
        let mut modules = result.modules.clone();
        modules.extend(result.listed.iter().cloned());
        modules.sort();
        modules.dedup();
        let links = RuntimeLinks {
            aliases: &result.aliases,
            bases: &result.bases,
            listed: &result.listed,
            modules: &modules,
        };
        writer.write_runtime(dist_id, row.id, row.slot, &findings, &links)?;
        return Ok(Outcome::Recorded {
            python: result.python,
            names: findings.len(),
            failed_imports: result.failed.len(),
            extras: extras.extras,
            extras_left_out: extras.left_out,
            unreadable_metadata: install.unreadable,
        });
    }
    gap(failures.join("\n"))
}

/// Rounds of installing extras and importing again, per environment.
const MAX_EXTRAS_ROUNDS: usize = 3;

/// Why the introspection script gave no answer.
#[derive(Debug, thiserror::Error)]
enum ScriptError {
    #[error("cannot write the introspection script: {0}")]
    Write(#[source] std::io::Error),
    #[error(transparent)]
    Run(#[from] ProcessError),
    #[error("the introspection script {} without a result:\n{stderr_tail}", if *.timed_out { "timed out" } else { "ended" })]
    NoResult {
        timed_out: bool,
        stderr_tail: String,
    },
}

/// Runs the bundled script in `env` on `request`; what it answered, or why it did not.
fn run_script(
    config: &IntrospectConfig,
    env: &Environment,
    request: &RuntimeRequest,
) -> Result<RuntimeResult, ScriptError> {
    let script = env.scratch().join("nbenv_introspect.py");
    std::fs::write(&script, SCRIPT).map_err(ScriptError::Write)?;
    let mut cmd = Command::new(&env.venv.python);
    cmd.arg(&script)
        .current_dir(env.scratch())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("MPLBACKEND", "Agg")
        .env_remove("PYTHONPATH");
    let input = serde_json::to_vec(request).expect("request serializes");
    let done = run_limited(cmd, &input, config.run_timeout)?;
    let stdout = String::from_utf8_lossy(&done.stdout);
    stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .ok_or_else(|| ScriptError::NoResult {
            timed_out: done.timed_out,
            stderr_tail: done.stderr_tail(8),
        })
}

/// Why a run that ended with a result still says little about the release: its top-level
/// package did not import, or most of its modules did not (scikit-learn 0.19.2 without numpy,
/// which its wheel lists only under an extra). Such a run is a gap, not a record.
fn import_gap(
    request: &RuntimeRequest,
    result: &RuntimeResult,
    excused: &[String],
) -> Option<String> {
    let first_error = |module: &str| {
        result
            .failed
            .get(module)
            .map(|e| e.lines().next().unwrap_or_default().to_string())
            .unwrap_or_default()
    };
    if let Some(top) = request
        .top_level
        .iter()
        .find(|t| result.failed.contains_key(t.as_str()))
    {
        return Some(format!("importing `{top}` failed: {}", first_error(top)));
    }
    let is_excused = |m: &String| {
        result
            .missing
            .get(m.as_str())
            .is_some_and(|wanted| excused.contains(wanted))
    };
    let considered: Vec<&String> = request.modules.iter().filter(|m| !is_excused(m)).collect();
    let failed = considered
        .iter()
        .copied()
        .filter(|m| result.failed.contains_key(m.as_str()))
        .collect::<Vec<_>>();
    if failed.len() * 2 > considered.len() {
        return Some(format!(
            "most modules failed to import ({} of {}; `{}`: {})",
            failed.len(),
            considered.len(),
            failed[0],
            first_error(failed[0])
        ));
    }
    None
}

#[cfg(test)]
mod defer_tests {
    use super::*;
    use crate::bank::store::ReleaseInfo;

    #[test]
    fn releases_left_over_budget_are_recorded_as_not_settled() {
        let dir = tempfile::tempdir().unwrap();
        let bank = dir.path().join("bank.sqlite3");
        let pandas = DistName::new("pandas").unwrap();
        let info = |v: &str| ReleaseInfo {
            version: v.parse().unwrap(),
            upload_time: None,
            requires_python: None,
            yanked: None,
        };
        let mut store = Store::open(&bank).unwrap();
        let (dist, _) = store
            .register(&pandas, "http://index/", &[info("0.25.3"), info("1.0.0")])
            .unwrap();
        drop(store);
        let marked = defer(
            &bank,
            LockPolicy::default(),
            &[
                (pandas.clone(), "0.25.3".parse().unwrap()),
                // Not in the bank: left alone.
                (pandas.clone(), "9.9".parse().unwrap()),
                (DistName::new("numpy").unwrap(), "1.0".parse().unwrap()),
            ],
        )
        .unwrap();
        assert_eq!(marked, 1);
        let rows = Store::open(&bank).unwrap().releases(dist).unwrap();
        let row = |v: &str| {
            let v: Version = v.parse().unwrap();
            rows.iter().find(|r| r.version == v).unwrap().clone()
        };
        assert_eq!(row("0.25.3").runtime_status, Some(RuntimeStatus::Gap));
        assert_eq!(row("0.25.3").runtime_detail.as_deref(), Some(OVER_BUDGET));
        assert_eq!(row("1.0.0").runtime_status, None);
    }
}

#[cfg(test)]
mod uninstallable_tests {
    use std::sync::Mutex;

    use super::*;
    use crate::bank::indexer::Selection;
    use crate::bank::store::ReleaseInfo;
    use crate::pypi::{DistFile, DistFilename, MetadataHint, PageFormat, RequiresPython};

    fn file(project: &DistName, filename: &str) -> DistFile {
        let parsed = DistFilename::parse(filename, project).unwrap();
        DistFile {
            filename: filename.into(),
            url: format!("http://index/{filename}"),
            version: parsed.version,
            kind: parsed.kind,
            hashes: Default::default(),
            requires_python: RequiresPython::Any,
            size: None,
            upload_time: None,
            yanked: None,
            core_metadata: MetadataHint::Unknown,
        }
    }

    /// Counts what was queued, and stops before the first release is built.
    #[derive(Default)]
    struct Stopping {
        queued: Mutex<Option<usize>>,
    }

    impl IntrospectObserver for Stopping {
        fn queued(&self, releases: usize) {
            *self.queued.lock().unwrap() = Some(releases);
        }
        fn cancelled(&self) -> bool {
            true
        }
    }

    /// Like scikit-learn 0.12.1 (an sdist only) and a release with wheels only for an
    /// interpreter this machine lacks: decided from the page before anything is queued,
    /// recorded with why, and what they could not tell stays unknown.
    #[test]
    fn releases_no_interpreter_here_installs_are_recorded_without_being_queued() {
        let dir = tempfile::tempdir().unwrap();
        let bank = dir.path().join("bank.sqlite3");
        let name = DistName::new("oldpkg").unwrap();
        let info = |v: &str| ReleaseInfo {
            version: v.parse().unwrap(),
            upload_time: None,
            requires_python: None,
            yanked: None,
        };
        let (dist, _) = Store::open(&bank)
            .unwrap()
            .register(
                &name,
                "http://index/",
                &[info("0.1"), info("0.2"), info("1.0")],
            )
            .unwrap();
        let page = ProjectPage {
            name: name.clone(),
            url: "http://index/oldpkg/".into(),
            format: PageFormat::Json,
            files: vec![
                file(&name, "oldpkg-0.1.tar.gz"),
                file(&name, "oldpkg-0.2-cp27-cp27mu-manylinux1_x86_64.whl"),
                file(&name, "oldpkg-0.2.tar.gz"),
                file(&name, "oldpkg-1.0-py3-none-any.whl"),
            ],
            skipped: Vec::new(),
        };
        let interpreters = vec![Interpreter {
            path: dir.path().join("python3.11"),
            version: PythonVersion::new(3, 11),
        }];
        let tools = Tools::new(dir.path().join("tools"), None, &interpreters);
        let config = IntrospectConfig::new(interpreters, Installer::Pip, tools);
        let target = BuildTarget {
            name: name.clone(),
            selection: Selection::All,
        };
        let observer = Stopping::default();
        let report =
            introspect_pages(&bank, [(target, Ok(page))].into_iter(), &config, &observer).unwrap();

        // Only 1.0 was queued (and the stop came before it was built).
        assert_eq!(*observer.queued.lock().unwrap(), Some(1));
        assert_eq!(report.releases_left, 1);
        assert_eq!(report.no_interpreter, 2);
        let gaps: Vec<String> = report
            .releases
            .iter()
            .map(|(_, v, o)| match o {
                Outcome::Gap { reason } => format!("{v}: {reason}"),
                Outcome::Recorded { .. } => panic!("{v} recorded"),
            })
            .collect();
        assert_eq!(gaps.len(), 2, "{gaps:?}");
        assert!(gaps[0].starts_with("0.1: no wheel fits"), "{gaps:?}");
        assert!(gaps[1].contains("wheels for: cp27"), "{gaps:?}");

        let rows = Store::open(&bank).unwrap().releases(dist).unwrap();
        let row = |v: &str| {
            let v: Version = v.parse().unwrap();
            rows.iter().find(|r| r.version == v).unwrap().clone()
        };
        for v in ["0.1", "0.2"] {
            assert_eq!(row(v).runtime_status, Some(RuntimeStatus::Gap), "{v}");
            assert!(
                row(v)
                    .runtime_detail
                    .as_deref()
                    .is_some_and(|d| d.contains("interpreters: 3.11")),
                "{v}: {:?}",
                row(v).runtime_detail
            );
            // Not settled: nothing was recorded of what it has.
            assert!(!row(v).is_introspected(), "{v}");
        }
        assert_eq!(row("1.0").runtime_status, None);
    }
}

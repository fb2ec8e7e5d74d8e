//! One inference in a session: the evidence gathered, what the bank lacks indexed (and
//! introspected) lazily unless told not to, the resolution on the planned interpreters, and
//! what the reader should know of it said as notes.

use std::borrow::Cow;
use std::time::Duration;

use pep508_rs::pep440_rs::Version;

use super::steps::{index_missing, Steps};
use super::{check_time, InferRun, InferSession, SessionError};
use crate::bank::store::ReleaseFailure;
use crate::names::DistName;
use crate::notebook::Usage;
use crate::reporter::{count, human_size, Reporter};
use crate::resolve::era::Era;
use crate::resolve::evidence::{gather, BankView, Evidence, Sources};
use crate::resolve::index_providers::IndexProviders;
use crate::resolve::infer::{self, InferError, Inference};
use crate::resolve::interpreter::{InterpreterPlan, PythonChoice};
use crate::resolve::joint::{joint_evidence, joint_python, Part};
use crate::resolve::lazy::{self, LazyOptions, LazyReport};
use crate::resolve::options::{Indexing, InferOptions, Introspect, PythonSource};
use crate::resolve::solver::{Catalog, IndexCatalog, SolveOptions};

/// What an inference found, and what it read to find it.
#[derive(Debug)]
pub struct Inferred {
    pub inference: Inference,
    /// What lazy inference indexed and introspected (nothing without indexing).
    pub read: LazyReport,
    /// Distributions the evidence chose that the bank had not registered, and that were not
    /// indexed (indexing off, or offline): resolved without API evidence for them.
    pub unindexed: Vec<DistName>,
}

/// Resolves the notebooks' evidence, indexing (and introspecting) what the bank lacks unless
/// told not to; `excluded` releases (a verification saw them fail) are ruled out.
pub fn infer_usages(
    args: &InferOptions,
    session: &InferSession,
    usages: &[(String, Usage)],
    excluded: &[(DistName, Version)],
    reporter: &dyn Reporter,
) -> Result<Inferred, SessionError> {
    infer_usages_with(
        args,
        session,
        usages,
        excluded,
        InferRun::default(),
        reporter,
    )
}

/// [`infer_usages`] within a longer job: a time limit, a shared catalog and bank answers.
pub fn infer_usages_with(
    args: &InferOptions,
    session: &InferSession,
    usages: &[(String, Usage)],
    excluded: &[(DistName, Version)],
    run: InferRun<'_>,
    reporter: &dyn Reporter,
) -> Result<Inferred, SessionError> {
    check_time(run.deadline)?;
    let solve_options = for_this_run(&session.solve_options, &run);
    let indexing = args.indexing != Indexing::Never && !session.offline;
    // Import names nothing else knows are looked up on the index, unless asked not to.
    let on_index = IndexProviders::new(&session.client);
    let built_in = Sources::built_in();
    let sources = Sources {
        lookup: if indexing { &on_index } else { built_in.lookup },
        ..built_in
    };
    // Indexing lazily, releases not read yet between ones that lack an API are ranked as
    // lacking it too (see `lazy::Assumed`); without indexing, the bank is read as it is.
    let read: &dyn BankView = match run.bank {
        Some(cached) => cached,
        None => &session.bank,
    };
    let assumed = lazy::Assumed::new(read);
    let gatherer = Gatherer {
        usages,
        view: if indexing { &assumed } else { read },
        sources: &sources,
        on_index: &on_index,
    };
    let own_catalog;
    let catalog: &dyn Catalog = match run.catalog {
        Some(shared) => shared,
        None => {
            own_catalog = IndexCatalog::new(&session.client);
            &own_catalog
        }
    };
    let resolver = Resolver {
        args,
        plan: plan(args, session, usages, &run),
        excluded,
        catalog,
        solve_options: &solve_options,
        reporter,
        committed: Era::of_notebook(args.era, &args.notebook),
        warned: Default::default(),
    };
    let found = if indexing {
        infer_indexing(args, session, &gatherer, &resolver, &run, reporter)?
    } else {
        infer_from_bank(&gatherer, &resolver, reporter)?
    };
    say_passed_over(&found.inference, &solve_options.failed, reporter);
    Ok(found)
}

/// The session's options for this inference: the releases this job saw fail passed over too,
/// and the job's search steering.
fn for_this_run<'a>(options: &'a SolveOptions, run: &InferRun<'_>) -> Cow<'a, SolveOptions> {
    if run.failed.is_empty() && run.steer.is_empty() {
        return Cow::Borrowed(options);
    }
    Cow::Owned(SolveOptions {
        failed: options.failed.iter().chain(run.failed).cloned().collect(),
        steer: run.steer.to_vec(),
        ..options.clone()
    })
}

/// The era the notebook's stored outputs show: the newest upload among the releases they
/// show it ran with (a printed `__version__`, pip's `Successfully installed`).
fn stored_era(evidence: &Evidence, catalog: &dyn Catalog) -> Option<Era> {
    let mut newest: Option<(jiff::Timestamp, String, String)> = None;
    for d in &evidence.distributions {
        for r in &d.records {
            let crate::resolve::evidence::EvidenceSource::Output { version, .. } = &r.source else {
                continue;
            };
            let Ok(parsed) = version.parse::<Version>() else {
                continue;
            };
            let Ok(releases) = catalog.releases(&d.dist) else {
                continue;
            };
            let Some(at) = releases
                .iter()
                .find(|rel| rel.version == parsed)
                .and_then(|rel| rel.upload_time())
            else {
                continue;
            };
            if newest.as_ref().is_none_or(|(t, ..)| at > *t) {
                newest = Some((at, d.dist.to_string(), version.clone()));
            }
        }
    }
    newest.map(|(date, dist, version)| Era {
        date,
        source: crate::resolve::era::EraSource::StoredVersion { dist, version },
    })
}

/// The interpreters to resolve for: those the notebooks allow, the one asked for, the
/// installed ones when the notebook is to run here, without those the job passed over.
fn plan(
    args: &InferOptions,
    session: &InferSession,
    usages: &[(String, Usage)],
    run: &InferRun<'_>,
) -> InterpreterPlan {
    let pythons: Vec<_> = usages.iter().map(|(_, u)| u.python.clone()).collect();
    let python = joint_python(&pythons).expect("at least one notebook");
    let plan = match (args.python, args.python_source) {
        (Some(newest), PythonSource::NewestInstalled) => {
            InterpreterPlan::newest_first(&python, newest, &session.installed)
        }
        _ => InterpreterPlan::new(&python, args.python, &session.installed, run.reach),
    };
    plan.without(run.skip_pythons)
}

/// Reads the evidence of every notebook (and local module) from the bank.
pub(super) struct Gatherer<'a> {
    usages: &'a [(String, Usage)],
    view: &'a dyn BankView,
    sources: &'a Sources<'a>,
    on_index: &'a IndexProviders<'a>,
}

impl Gatherer<'_> {
    /// The evidence, joint over the notebooks. A lookup on the index that failed for a full
    /// disk says so in words only: the disk's error goes under it, for the exit code.
    pub(super) fn gather(&self) -> Result<Evidence, SessionError> {
        self.gather_each()
            .map_err(|e| match self.on_index.disk_full() {
                Some(full) => SessionError::DiskFull {
                    message: e.to_string(),
                    source: full,
                },
                None => e.into(),
            })
    }

    fn gather_each(&self) -> Result<Evidence, InferError> {
        if let [(_, usage)] = self.usages {
            return Ok(gather(usage, self.view, self.sources)?);
        }
        // One notebook with the local modules it imports: its own places stay unnamed.
        let notebooks = self
            .usages
            .iter()
            .filter(|(_, u)| u.imported_as.is_none())
            .count();
        let mut each = Vec::new();
        for (name, usage) in self.usages {
            let in_module = usage.imported_as.is_some();
            each.push(Part {
                name: (notebooks > 1 || in_module).then(|| name.clone()),
                in_module,
                evidence: gather(usage, self.view, self.sources)?,
            });
        }
        Ok(joint_evidence(each)?)
    }
}

/// Resolves evidence on the planned interpreters.
pub(super) struct Resolver<'a> {
    args: &'a InferOptions,
    plan: InterpreterPlan,
    excluded: &'a [(DistName, Version)],
    catalog: &'a dyn Catalog,
    solve_options: &'a SolveOptions,
    reporter: &'a dyn Reporter,
    /// The era as asked, or from the notebook's git history.
    committed: Option<Era>,
    /// Install lines already said to be set aside (resolutions repeat while indexing).
    warned: std::sync::Mutex<std::collections::BTreeSet<DistName>>,
}

impl Resolver<'_> {
    /// The notebook's era: as asked or committed, else what its stored outputs show.
    fn era(&self, evidence: &Evidence) -> Option<Era> {
        self.committed.clone().or_else(|| {
            (self.args.era == crate::resolve::era::EraChoice::Auto)
                .then(|| stored_era(evidence, self.catalog))
                .flatten()
        })
    }

    /// Sets aside the distributions only install lines ask for that the index does not have
    /// (`%pip install cv2`, whose stored output shows it never ran): the install failed for
    /// the notebook's author too, and its imports resolve as any other.
    fn set_aside_unknown_installs(&self, evidence: &mut Evidence) {
        evidence.distributions.retain(|d| {
            let only_installed = !d.needs.is_empty()
                && d.needs
                    .iter()
                    .all(|n| matches!(n, crate::resolve::evidence::Need::Installed { .. }));
            if !only_installed || d.in_bank {
                return true;
            }
            let missing = matches!(
                self.catalog.releases(&d.dist),
                Err(crate::resolve::solver::CatalogError::NotFound { .. })
            );
            let first = missing
                && self
                    .warned
                    .lock()
                    .map(|mut w| w.insert(d.dist.clone()))
                    .unwrap_or(false);
            if first {
                let cells: Vec<String> = d
                    .needs
                    .iter()
                    .filter_map(|n| match n {
                        crate::resolve::evidence::Need::Installed { at } => {
                            Some(format!("cell {}", at.cell))
                        }
                        _ => None,
                    })
                    .collect();
                self.reporter.warn(
                    &format!(
                        "{} installs {}, which is not on the index: set aside (it could not have been installed for the notebook's author either)",
                        cells.join(", "),
                        d.dist
                    ),
                    None,
                );
            }
            !missing
        });
    }

    pub(super) fn resolve(&self, mut evidence: Evidence) -> Result<Inference, SessionError> {
        infer::exclude(&mut evidence, self.excluded);
        self.set_aside_unknown_installs(&mut evidence);
        let era = self.era(&evidence);
        let options = match &era {
            Some(era) => Cow::Owned(SolveOptions {
                prefer_before: Some(era.prefer_before()),
                ..self.solve_options.clone()
            }),
            None => Cow::Borrowed(self.solve_options),
        };
        let resolved = infer::resolve(
            evidence,
            self.plan.clone(),
            self.args.python.is_some(),
            self.catalog,
            &options,
        )
        .map(|mut inference| {
            inference.era = era;
            if inference.python_choice == PythonChoice::Requested
                && self.args.python_source == PythonSource::NewestInstalled
            {
                inference.python_choice = PythonChoice::NewestForModern;
            }
            inference
        });
        match resolved {
            Ok(i) => Ok(i),
            Err(InferError::NoSolution { tried }) => {
                // One interpreter's reason is in the error itself; several are listed first,
                // each reason once, with the option that builds sdists where that is all
                // there is.
                let listed = tried.len() > 1 && {
                    let mut lines = crate::resolve::passed_over::reasons_by_python(&tried);
                    lines.extend(crate::resolve::passed_over::sdist_hint(&tried));
                    self.reporter.explain(&lines)
                };
                Err(SessionError::NoSolution {
                    notebook: self.args.notebook.clone(),
                    listed,
                    source: Box::new(InferError::NoSolution { tried }),
                })
            }
            Err(e) => Err(e.into()),
        }
    }
}

/// Without indexing: the bank read as it is, what it lacks resolved without API evidence.
fn infer_from_bank(
    gatherer: &Gatherer<'_>,
    resolver: &Resolver<'_>,
    reporter: &dyn Reporter,
) -> Result<Inferred, SessionError> {
    let evidence = gatherer.gather()?;
    let unindexed = infer::missing_from_bank(&evidence);
    if !unindexed.is_empty() {
        let names: Vec<String> = unindexed.iter().map(ToString::to_string).collect();
        reporter.note(
            &format!(
                "the bank lacks {}: resolved without API evidence for {}",
                names.join(", "),
                if names.len() == 1 { "it" } else { "them" }
            ),
            None,
        );
    }
    Ok(Inferred {
        inference: resolver.resolve(evidence)?,
        read: LazyReport::default(),
        unindexed,
    })
}

/// The releases the budget left unstarted are recorded as not settled, so that the next
/// inference of the notebook does not spend its own budget on them: a warm run introspects
/// nothing an earlier one planned (`nbenv bank introspect` settles them).
fn defer_over_budget(
    args: &InferOptions,
    session: &InferSession,
    report: &LazyReport,
) -> Result<(), SessionError> {
    let releases: Vec<(DistName, Version)> = report
        .over_budget
        .iter()
        .filter_map(|p| Some((p.dist.clone(), p.version.clone()?)))
        .collect();
    // A budget of 0 asked for no introspection at all: nothing was left over.
    if releases.is_empty() || args.introspect_budget() == Some(Duration::ZERO) {
        return Ok(());
    }
    let dists: Vec<DistName> = releases.iter().map(|(d, _)| d.clone()).collect();
    let _claim = session.claim(&dists, None, &crate::reporter::Silent)?;
    crate::bank::introspect::defer(&session.bank_file, session.lock.clone(), &releases)
        .map(drop)
        .map_err(|source| SessionError::Introspect {
            bank: session.bank_file.clone(),
            source,
        })
}

/// With indexing: the whole history of what the bank lacks first when asked, then lazily
/// what the evidence needs, introspecting where a pin hinges on what static reading cannot
/// tell.
fn infer_indexing(
    args: &InferOptions,
    session: &InferSession,
    gatherer: &Gatherer<'_>,
    resolver: &Resolver<'_>,
    run: &InferRun<'_>,
    reporter: &dyn Reporter,
) -> Result<Inferred, SessionError> {
    let mut downloaded = 0;
    if args.indexing == Indexing::FullHistory {
        let missing = infer::missing_from_bank(&gatherer.gather()?);
        if !missing.is_empty() {
            downloaded += index_missing(session, &missing, args.jobs, reporter)?;
        }
    }
    let mut steps = Steps::new(session, args.jobs, gatherer, resolver, run, reporter);
    let (inference, report) = lazy::infer_lazily(
        &session.bank,
        &mut steps,
        LazyOptions {
            cap: resolver.solve_options.exclude_newer,
            introspect: args.introspect != Introspect::Never,
            introspect_budget: args.introspect_budget(),
            python: resolver.plan.candidates.first().map(|c| c.version),
        },
    )?;
    downloaded += steps.downloaded;
    defer_over_budget(args, session, &report)?;
    say_introspection(
        args,
        session,
        &inference,
        &report,
        steps.introspected,
        reporter,
    )?;
    if report.releases() > 0 {
        reporter.note(
            &format!(
                "indexed {} in {} ({} downloaded; the rest of their histories is \
                 indexed when a notebook needs it, or by `nbenv bank build`)",
                count(report.releases(), "release", "releases"),
                count(report.rounds.len(), "round", "rounds"),
                human_size(downloaded),
            ),
            None,
        );
    }
    Ok(Inferred {
        inference,
        read: report,
        unindexed: Vec::new(),
    })
}

/// What introspection did, what the budget left out, and the pins that still hinge on an
/// answer static reading cannot give.
fn say_introspection(
    args: &InferOptions,
    session: &InferSession,
    inference: &Inference,
    report: &LazyReport,
    introspected: usize,
    reporter: &dyn Reporter,
) -> Result<(), SessionError> {
    if introspected > 0 {
        reporter.note(
            &format!(
                "introspected {} where a pin hinged on what static reading could not tell",
                count(introspected, "release", "releases"),
            ),
            None,
        );
    }
    if !report.over_budget.is_empty() {
        reporter.note(
            &format!(
                "the introspection budget ({} s) is spent: {} not introspected ({}); \
                 what static reading cannot tell of them stays unknown and constrains \
                 nothing, and later inferences leave them so (`nbenv bank introspect` \
                 settles them; --introspect-budget SECS gives the next notebooks more)",
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
            ),
            None,
        );
    }
    for h in lazy::hinging(inference, &session.bank)? {
        let why = if args.introspect == Introspect::Never {
            "; without --no-introspect, nbenv would run it to see"
        } else if report.over_budget.iter().any(|p| p.dist == h.pin.dist) {
            "; the introspection budget was spent before it"
        } else {
            ", and introspection could not settle it here"
        };
        let version = h.pin.version.as_ref().map(ToString::to_string);
        let pin = format!("{} {}", h.pin.dist, version.unwrap_or_default());
        if !h.unknown.is_empty() {
            reporter.note(
                &format!(
                    "{pin}: whether it has {} is unknown (static reading cannot tell{why})",
                    h.unknown.join(", "),
                ),
                None,
            );
        }
        if !h.also_elsewhere.is_empty() {
            reporter.verbose_note(&format!(
                "{pin}: whether it has {} is unknown, and cannot matter: other libraries the \
                 notebook uses have them, and the value may be theirs",
                h.also_elsewhere.join(", "),
            ));
        }
    }
    Ok(())
}

/// Says which releases earlier runs saw fail were passed over.
fn say_passed_over(inference: &Inference, failed: &[ReleaseFailure], reporter: &dyn Reporter) {
    for f in passed_over_after_runs(inference, failed) {
        reporter.note(
            &format!(
                "passed over {} {}: {} ({}; nbenv bank runs)",
                f.dist,
                f.version,
                crate::resolve::solver::Exclusion::FailedBefore {
                    python: f.python.feature(),
                    step: f.step,
                    at: f.at,
                },
                f.notebook
            ),
            None,
        );
    }
}

/// The releases earlier runs saw fail on the chosen Python, of the distributions the solution
/// pins: what the resolution did without.
pub(super) fn passed_over_after_runs<'a>(
    inference: &Inference,
    failed: &'a [ReleaseFailure],
) -> Vec<&'a ReleaseFailure> {
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

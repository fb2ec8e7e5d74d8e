//! Lazy indexing: on a bank that lacks what a notebook needs, `infer` reads only the releases
//! its evidence needs instead of each distribution's whole history. It reads the newest
//! release first, then only what locates the releases where the used APIs appear or
//! disappear ([`search`]), then the releases the resolution pins, gathering the evidence
//! again after each round.
//!
//! Releases may be skipped only while ranking: a pin is always read before it is trusted, the
//! neighbours of every turn the evidence reports are read, a gap the indexed releases show
//! is read whole, and a distribution none of whose read releases has any used API has its
//! whole history read, since whether it is a requirement at all depends on the rest.
//!
//! Then, when a pin hinges on an answer static reading could not give ("unknown"), the pinned
//! release, and what the same search over the known answers needs, are introspected
//! ([`settle`]).
//!
//! [`plan`], [`unindexed_pins`] and [`unsettled_pins`] are pure over the evidence and the bank;
//! [`infer_lazily`] runs the rounds through [`LazySteps`], which the CLI implements with the
//! real indexer and introspection, and tests with an in-memory bank.

mod assumed;
mod budget;
mod line;
mod probe;
mod search;
mod settle;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use pep508_rs::pep440_rs::Version;

pub use assumed::{assume_absent, Assumed};
pub use budget::Budget;
pub use probe::{Action, Probe, ProbeReason};
pub use settle::{hinging, unsettled_pins, Hinging};

use super::evidence::{
    BankReadError, BankView, DistVersions, Effect, Evidence, EvidenceRecord, EvidenceSource,
    NoConstraint, ReleaseState, Strength,
};
use super::infer::Inference;
use super::solver::Solution;
use crate::bank::store::{Catalog, CatalogRelease, IndexStatus, ReleaseSet, Slot};
use crate::names::DistName;
use crate::pypi::Admits;
use crate::python::PythonVersion;
use line::{Line, Reading};
use search::{next, Has, Step, Wanted};

/// The releases to read next, for every distribution the evidence chose. `introspected`:
/// releases introspection was asked for already (what it could not tell stays unknown).
pub fn plan<B: BankView + ?Sized>(
    evidence: &Evidence,
    bank: &B,
    options: LazyOptions,
    introspected: &HashSet<(DistName, Option<Version>)>,
) -> Result<Vec<Probe>, BankReadError> {
    let mut out = Vec::new();
    for d in &evidence.distributions {
        let catalog = bank.catalog(&d.dist)?;
        out.extend(plan_dist(d, catalog.as_ref(), options, introspected));
    }
    Ok(out)
}

/// What to read of one distribution.
fn plan_dist(
    d: &DistVersions,
    catalog: Option<&Catalog>,
    options: LazyOptions,
    introspected: &HashSet<(DistName, Option<Version>)>,
) -> Vec<Probe> {
    let Some(catalog) = catalog else {
        return vec![Probe {
            dist: d.dist.clone(),
            version: None,
            reason: ProbeReason::Newest,
            action: Action::Index,
        }];
    };
    let scope = on_target(catalog, install_scope(d), options.python);
    let probe = |r: &CatalogRelease, reason| Probe {
        dist: d.dist.clone(),
        version: Some(r.version.clone()),
        reason,
        action: if r.index == IndexStatus::Indexed {
            Action::Introspect
        } else {
            Action::Index
        },
    };
    let indexing = Line::new(catalog, scope.as_ref(), options.cap);
    let Some(newest) = indexing.releases.len().checked_sub(1) else {
        return Vec::new();
    };
    if !indexing.is_read(newest) {
        return vec![probe(indexing.releases[newest], ProbeReason::Newest)];
    }
    // Tried in this inference, or by an earlier run that could not introspect it here.
    let tried = |v: &Version| {
        introspected.contains(&(d.dist.clone(), Some(v.clone())))
            || catalog.find(v).is_some_and(|r| r.runtime_gap)
    };
    let mut wanted: Vec<Probe> = Vec::new();
    let mut want = |p: Probe| {
        if !wanted.iter().any(|w| w.version == p.version) {
            wanted.push(p);
        }
    };
    let mut apis = 0;
    let mut apis_exhausted = 0;
    for record in d.records.iter().filter(|r| from_bank(r) && may_move_pin(r)) {
        let reading = RecordReading {
            known: Known::of(catalog, record),
            introspect: options.introspect && settles(record),
            tried: &tried,
        };
        let line = Line::reading(catalog, scope.as_ref(), options.cap, &reading);
        let Some(last) = line.releases.len().checked_sub(1) else {
            continue;
        };
        if !line.is_read(last) {
            want(probe(line.releases[last], ProbeReason::Newest));
            continue;
        }
        let has = |at: usize| reading.has(line.releases[at]);
        let what = what(record);
        let version = |at: usize| line.releases[at].version.clone();
        let step = next(&line, &has);
        if matches!(record.source, EvidenceSource::Api { .. }) {
            apis += 1;
            apis_exhausted += usize::from(step == Step::Exhausted);
        }
        let Step::Read(reads) = step else {
            continue;
        };
        for w in reads {
            let reason = match w {
                Wanted::Back(_) => ProbeReason::LookingBack { what: what.clone() },
                Wanted::Middle { older, newer, .. } => ProbeReason::Bisect {
                    what: what.clone(),
                    older: version(older),
                    newer: version(newer),
                },
                Wanted::Gap { older, newer, .. } => ProbeReason::Gap {
                    what: what.clone(),
                    older: version(older),
                    newer: version(newer),
                },
            };
            want(probe(line.releases[w.at()], reason));
        }
    }
    if apis > 0 && apis_exhausted == apis {
        for at in (0..indexing.releases.len()).filter(|&i| !indexing.is_read(i)) {
            want(probe(indexing.releases[at], ProbeReason::Credibility));
        }
    }
    wanted.sort_by(|a, b| a.version.cmp(&b.version));
    wanted
}

/// One record's reading of the releases: a release is read once the bank knows whether it
/// has the evidence; one not indexed can be indexed, and one static reading could not tell
/// can be introspected (when allowed, and not tried already). Otherwise an unknown answer
/// counts as read, and as possibly having it.
struct RecordReading<'a> {
    known: Known,
    introspect: bool,
    tried: &'a dyn Fn(&Version) -> bool,
}

impl RecordReading<'_> {
    /// Whether introspecting this release could still settle its unknown answer.
    fn to_introspect(&self, release: &CatalogRelease) -> bool {
        self.introspect && !(self.tried)(&release.version)
    }
}

/// The releases a search may read: those the notebook's install lines allow (`scope`), and
/// with a target Python, those it can install. No pin on that Python falls elsewhere, so what
/// the others have cannot change the answer: scikit-learn 1.x and pandas 3 are neither indexed
/// nor introspected for a notebook on Python 3.6. When a resolution lands on another Python,
/// the next plan reads for that one.
fn on_target(
    catalog: &Catalog,
    scope: Option<ReleaseSet>,
    python: Option<PythonVersion>,
) -> Option<ReleaseSet> {
    let Some(python) = python else {
        return scope;
    };
    let mut installable = ReleaseSet::new();
    // An unreadable Requires-Python is no reason to leave a release out: installers ignore it.
    for r in catalog
        .releases
        .iter()
        .filter(|r| python.meets(&r.requires_python) != Admits::No)
    {
        installable.insert(r.slot);
    }
    Some(match scope {
        Some(scope) => scope.intersection(&installable),
        None => installable,
    })
}

impl RecordReading<'_> {
    fn has(&self, release: &CatalogRelease) -> Has {
        match self.known.state(release.slot) {
            Some(ReleaseState::Present) => Has::Yes,
            Some(ReleaseState::Unknown) => Has::Maybe,
            _ => Has::No,
        }
    }
}

impl Reading for RecordReading<'_> {
    fn is_read(&self, release: &CatalogRelease) -> bool {
        // What ranking assumed of a release not indexed (see `Assumed`) is not a reading.
        if release.index != IndexStatus::Indexed {
            return false;
        }
        match self.known.state(release.slot) {
            Some(ReleaseState::Present | ReleaseState::Absent) => true,
            Some(ReleaseState::Unknown) => !self.to_introspect(release),
            _ => false,
        }
    }
    fn can_read(&self, release: &CatalogRelease) -> bool {
        match self.known.state(release.slot) {
            _ if release.index == IndexStatus::NotIndexed => true,
            Some(ReleaseState::Unknown) => self.to_introspect(release),
            _ => false,
        }
    }
}

/// One record's answer release by release, from its history.
pub(super) struct Known {
    /// By slot (slots number a distribution's releases densely).
    states: Vec<Option<ReleaseState>>,
}

impl Known {
    pub(super) fn of(catalog: &Catalog, record: &EvidenceRecord) -> Self {
        let slots = catalog.releases.iter().map(|r| r.slot.0 as usize + 1).max();
        let mut states = vec![None; slots.unwrap_or(0)];
        let mut releases = catalog.releases.iter();
        for span in &record.history {
            for r in releases.by_ref() {
                states[r.slot.0 as usize] = Some(span.state);
                if r.version == span.last {
                    break;
                }
            }
        }
        Self { states }
    }

    pub(super) fn state(&self, slot: Slot) -> Option<ReleaseState> {
        self.states.get(slot.0 as usize).copied().flatten()
    }
}

/// The releases the notebook's own install lines allow, when they constrain.
fn install_scope(d: &DistVersions) -> Option<ReleaseSet> {
    d.records
        .iter()
        .filter(|r| {
            matches!(r.source, EvidenceSource::Install { .. })
                && r.strength == Strength::Hard
                && r.effect == Effect::Constrains
        })
        .map(|r| r.allowed.clone())
        .reduce(|a, b| a.intersection(&b))
}

/// Whether introspection can settle an unknown answer to this evidence: it records the names
/// a release has at run time, not the keywords its functions accept (`**kwargs`).
fn settles(record: &EvidenceRecord) -> bool {
    !matches!(record.source, EvidenceSource::Keyword { .. })
}

/// Whether what the bank answers of this evidence could move the distribution's pin: not a
/// member that classes of other libraries the notebook uses have (the value may be theirs).
fn may_move_pin(record: &EvidenceRecord) -> bool {
    record.effect != Effect::NoConstraint(NoConstraint::AlsoElsewhere)
}

/// Evidence the bank answers (not install lines, versions outputs show or declarations).
fn from_bank(record: &EvidenceRecord) -> bool {
    !matches!(
        record.source,
        EvidenceSource::Install { .. }
            | EvidenceSource::Output { .. }
            | EvidenceSource::Declared { .. }
    )
}

/// The evidence in a few words, for progress and reasons.
fn what(record: &EvidenceRecord) -> String {
    match &record.source {
        EvidenceSource::Import { module } => module.to_string(),
        EvidenceSource::Api { api } => api.to_string(),
        EvidenceSource::Member { member, .. } => format!(".{member}"),
        EvidenceSource::Keyword { api, keyword } => format!("{api}({keyword}=)"),
        EvidenceSource::Install { command, .. } => command.clone(),
        EvidenceSource::Output { version, .. } => format!("=={version}"),
        EvidenceSource::Declared { text, .. } => text.clone(),
    }
}

/// The releases the notebook asks for directly that the solution pinned but the bank has
/// not read.
pub fn unindexed_pins<B: BankView + ?Sized>(
    solution: &Solution,
    bank: &B,
) -> Result<Vec<Probe>, BankReadError> {
    let mut out = Vec::new();
    for pin in solution.roots() {
        let Some(catalog) = bank.catalog(&pin.dist)? else {
            continue;
        };
        if catalog
            .find(&pin.version)
            .is_some_and(|r| r.index == IndexStatus::NotIndexed)
        {
            out.push(Probe {
                dist: pin.dist.clone(),
                version: Some(pin.version.clone()),
                reason: ProbeReason::Pinned,
                action: Action::Index,
            });
        }
    }
    Ok(out)
}

/// The steps lazy inference takes, each done for real by the CLI and in memory by tests.
pub trait LazySteps {
    type Error: From<BankReadError>;
    /// The notebook's evidence, read from the bank as it is now.
    fn gather(&mut self) -> Result<Evidence, Self::Error>;
    /// Indexes the releases (all at once; a round).
    fn index(&mut self, round: &[Probe]) -> Result<(), Self::Error>;
    fn resolve(&mut self, evidence: Evidence) -> Result<Inference, Self::Error>;
    /// Introspects the releases (all indexed already), settling unknown answers, `within`
    /// the time left of the budget (`None`: no limit): a release not started in time is left
    /// as it is.
    fn introspect(&mut self, round: &[Probe], within: Option<Duration>) -> Result<(), Self::Error>;
}

/// What lazy indexing read, round by round.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct LazyReport {
    pub rounds: Vec<Vec<Probe>>,
    /// Releases introspected because a pin hinged on unknown answers, round by round.
    pub introspected: Vec<Vec<Probe>>,
    /// Releases to introspect once the budget was spent: their unknown answers stay unknown.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub over_budget: Vec<Probe>,
}

/// How far lazy inference goes.
#[derive(Debug, Clone, Copy, Default)]
pub struct LazyOptions {
    /// Releases uploaded after this are never read (`--exclude-newer`).
    pub cap: Option<Timestamp>,
    /// Settle unknown answers a pin hinges on by introspection.
    pub introspect: bool,
    /// The time introspection may take in all (`None`: no limit).
    pub introspect_budget: Option<Duration>,
    /// The Python the resolution is expected to land on: the plan's first choice, then the
    /// one each resolution chose. Searches introspect only releases whose Requires-Python
    /// admits it: elsewhere an unknown answer cannot change a pin on it, and installing
    /// pandas 3 to learn whether it has `.ix` cost a 2016 notebook on Python 3.6 half its
    /// introspection budget. A pin that hinges on an unknown is introspected whatever this
    /// says. `None`: any release.
    pub python: Option<PythonVersion>,
}

impl LazyReport {
    pub fn releases(&self) -> usize {
        self.rounds.iter().map(Vec::len).sum()
    }
}

/// Gathers, indexes what the evidence needs, and resolves, until the resolution pins only
/// releases the bank has read (and, with `introspect`, whose answers are known). A release is
/// asked for once: one that could not be read stays unknown and is not asked for again.
pub fn infer_lazily<B, S>(
    bank: &B,
    steps: &mut S,
    mut options: LazyOptions,
) -> Result<(Inference, LazyReport), S::Error>
where
    B: BankView + ?Sized,
    S: LazySteps,
{
    let mut indexing: HashSet<(DistName, Option<Version>)> = HashSet::new();
    let mut introspecting: HashSet<(DistName, Option<Version>)> = HashSet::new();
    let mut report = LazyReport::default();
    let mut budget = Budget::new(options.introspect_budget);
    let mut introspect =
        |round: Vec<Probe>, steps: &mut S, report: &mut LazyReport| -> Result<(), S::Error> {
            if budget.spent() {
                report.over_budget.extend(round);
                return Ok(());
            }
            let started = Instant::now();
            let done = steps.introspect(&round, budget.left());
            budget.spend(started.elapsed());
            done?;
            report.introspected.push(round);
            Ok(())
        };
    loop {
        let evidence = steps.gather()?;
        let mut to_index = Vec::new();
        let mut to_introspect = Vec::new();
        for p in plan(&evidence, bank, options, &introspecting)? {
            let key = (p.dist.clone(), p.version.clone());
            let (asked, round) = match p.action {
                Action::Index => (&mut indexing, &mut to_index),
                Action::Introspect => (&mut introspecting, &mut to_introspect),
            };
            if asked.insert(key) {
                round.push(p);
            }
        }
        if !to_index.is_empty() || !to_introspect.is_empty() {
            if !to_index.is_empty() {
                steps.index(&to_index)?;
                report.rounds.push(to_index);
            }
            if !to_introspect.is_empty() {
                introspect(to_introspect, steps, &mut report)?;
            }
            continue;
        }
        let inference = steps.resolve(evidence)?;
        options.python = Some(inference.python.version);
        let round: Vec<Probe> = unindexed_pins(&inference.solution, bank)?
            .into_iter()
            .filter(|p| indexing.insert((p.dist.clone(), p.version.clone())))
            .collect();
        if !round.is_empty() {
            steps.index(&round)?;
            report.rounds.push(round);
            continue;
        }
        if options.introspect {
            let round: Vec<Probe> = unsettled_pins(&inference, bank)?
                .into_iter()
                .filter(|p| introspecting.insert((p.dist.clone(), p.version.clone())))
                .collect();
            if !round.is_empty() {
                let before = report.over_budget.len();
                introspect(round, steps, &mut report)?;
                if report.over_budget.len() == before {
                    continue;
                }
            }
        }
        return Ok((inference, report));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn release(slot: u32, version: &str, requires_python: Option<&str>) -> CatalogRelease {
        CatalogRelease {
            slot: Slot(slot),
            version: version.parse().unwrap(),
            upload_time: None,
            requires_python: crate::pypi::RequiresPython::parse(requires_python),
            yanked: false,
            index: IndexStatus::Indexed,
            runtime_gap: false,
        }
    }

    #[test]
    fn a_search_reads_only_releases_the_target_python_installs() {
        let catalog = Catalog::new(vec![
            release(0, "0.19.0", None),
            release(1, "1.1.5", Some(">=3.6.1")),
            release(2, "3.1.1", Some(">=3.11")),
        ]);
        let slots =
            |set: Option<ReleaseSet>| set.map(|s| s.iter().map(|s| s.0).collect::<Vec<_>>());
        let py36 = PythonVersion::new(3, 6);
        // pandas 3 cannot be pinned on 3.6: it is out of every line, never indexed nor
        // introspected; a release with no Requires-Python may install.
        assert_eq!(
            slots(on_target(&catalog, None, Some(py36))),
            Some(vec![0, 1])
        );
        let line = Line::new(
            &catalog,
            on_target(&catalog, None, Some(py36)).as_ref(),
            None,
        );
        assert_eq!(line.releases.len(), 2);
        // Within what the install lines allow.
        let mut pinned = ReleaseSet::new();
        pinned.insert(Slot(1));
        pinned.insert(Slot(2));
        assert_eq!(
            slots(on_target(&catalog, Some(pinned.clone()), Some(py36))),
            Some(vec![1])
        );
        // Without a target, the install lines alone, or nothing.
        assert_eq!(
            slots(on_target(&catalog, Some(pinned), None)),
            Some(vec![1, 2])
        );
        assert_eq!(slots(on_target(&catalog, None, None)), None);
        let py312 = PythonVersion::new(3, 12);
        assert_eq!(
            slots(on_target(&catalog, None, Some(py312))),
            Some(vec![0, 1, 2])
        );
    }
}

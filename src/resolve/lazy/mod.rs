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
mod line;
mod probe;
mod search;
mod settle;

use std::collections::HashSet;

use jiff::Timestamp;
use pep508_rs::pep440_rs::Version;

pub use assumed::{assume_absent, Assumed};
pub use probe::{Probe, ProbeReason};
pub use settle::{hinging, unsettled_pins, Hinging};

use super::evidence::{
    BankReadError, BankView, DistVersions, Effect, Evidence, EvidenceRecord, EvidenceSource,
    Strength,
};
use super::infer::Inference;
use super::solver::Solution;
use crate::bank::store::{Catalog, IndexStatus, ReleaseSet};
use crate::names::DistName;
use line::Line;
use search::{next, Step, Wanted};

/// The releases to read next, for every distribution the evidence chose.
pub fn plan<B: BankView + ?Sized>(
    evidence: &Evidence,
    bank: &B,
    cap: Option<Timestamp>,
) -> Result<Vec<Probe>, BankReadError> {
    let mut out = Vec::new();
    for d in &evidence.distributions {
        let catalog = bank.catalog(&d.dist)?;
        out.extend(plan_dist(d, catalog.as_ref(), cap));
    }
    Ok(out)
}

/// What to read of one distribution.
fn plan_dist(d: &DistVersions, catalog: Option<&Catalog>, cap: Option<Timestamp>) -> Vec<Probe> {
    let probe = |version: Option<Version>, reason| Probe {
        dist: d.dist.clone(),
        version,
        reason,
    };
    let Some(catalog) = catalog else {
        return vec![probe(None, ProbeReason::Newest)];
    };
    let line = Line::new(catalog, install_scope(d).as_ref(), cap);
    let Some(newest) = line.releases.len().checked_sub(1) else {
        return Vec::new();
    };
    if !line.is_read(newest) {
        return vec![probe(
            Some(line.releases[newest].version.clone()),
            ProbeReason::Newest,
        )];
    }
    let mut wanted: Vec<(usize, ProbeReason)> = Vec::new();
    let mut apis = 0;
    let mut apis_exhausted = 0;
    for record in d.records.iter().filter(|r| from_bank(r)) {
        let has = |at: usize| record.allowed.contains(line.releases[at].slot);
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
            if !wanted.iter().any(|(at, _)| *at == w.at()) {
                wanted.push((w.at(), reason));
            }
        }
    }
    if apis > 0 && apis_exhausted == apis {
        for at in (0..line.releases.len()).filter(|&i| !line.is_read(i)) {
            if !wanted.iter().any(|(w, _)| *w == at) {
                wanted.push((at, ProbeReason::Credibility));
            }
        }
    }
    wanted.sort_by_key(|(at, _)| *at);
    wanted
        .into_iter()
        .map(|(at, reason)| probe(Some(line.releases[at].version.clone()), reason))
        .collect()
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

/// Evidence the bank answers (not install lines).
fn from_bank(record: &EvidenceRecord) -> bool {
    !matches!(record.source, EvidenceSource::Install { .. })
}

/// The evidence in a few words, for progress and reasons.
fn what(record: &EvidenceRecord) -> String {
    match &record.source {
        EvidenceSource::Import { module } => module.to_string(),
        EvidenceSource::Api { api } => api.to_string(),
        EvidenceSource::Member { member, .. } => format!(".{member}"),
        EvidenceSource::Keyword { api, keyword } => format!("{api}({keyword}=)"),
        EvidenceSource::Install { command, .. } => command.clone(),
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
    /// Introspects the releases (all indexed already), settling unknown answers.
    fn introspect(&mut self, round: &[Probe]) -> Result<(), Self::Error>;
}

/// What lazy indexing read, round by round.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct LazyReport {
    pub rounds: Vec<Vec<Probe>>,
    /// Releases introspected because a pin hinged on unknown answers, round by round.
    pub introspected: Vec<Vec<Probe>>,
}

/// How far lazy inference goes.
#[derive(Debug, Clone, Copy, Default)]
pub struct LazyOptions {
    /// Releases uploaded after this are never read (`--exclude-newer`).
    pub cap: Option<Timestamp>,
    /// Settle unknown answers a pin hinges on by introspection.
    pub introspect: bool,
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
    options: LazyOptions,
) -> Result<(Inference, LazyReport), S::Error>
where
    B: BankView + ?Sized,
    S: LazySteps,
{
    let mut indexing: HashSet<(DistName, Option<Version>)> = HashSet::new();
    let mut introspecting: HashSet<(DistName, Option<Version>)> = HashSet::new();
    let fresh = |asked: &mut HashSet<_>, probes: Vec<Probe>| -> Vec<Probe> {
        probes
            .into_iter()
            .filter(|p| asked.insert((p.dist.clone(), p.version.clone())))
            .collect()
    };
    let mut report = LazyReport::default();
    loop {
        let evidence = steps.gather()?;
        let round = fresh(&mut indexing, plan(&evidence, bank, options.cap)?);
        if !round.is_empty() {
            steps.index(&round)?;
            report.rounds.push(round);
            continue;
        }
        let inference = steps.resolve(evidence)?;
        let round = fresh(&mut indexing, unindexed_pins(&inference.solution, bank)?);
        if !round.is_empty() {
            steps.index(&round)?;
            report.rounds.push(round);
            continue;
        }
        if options.introspect {
            let round = fresh(
                &mut introspecting,
                unsettled_pins(&inference, bank, options.cap)?,
            );
            if !round.is_empty() {
                steps.introspect(&round)?;
                report.introspected.push(round);
                continue;
            }
        }
        return Ok((inference, report));
    }
}

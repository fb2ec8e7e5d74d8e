//! Settling unknown answers by introspection. Where static reading cannot tell whether a
//! release has an API (pandas 0.x makes `DataFrame.ix` with `setattr` in a loop; compiled
//! modules hide their names), the answer is "unknown" and rules nothing out. When a pin
//! hinges on such an answer, the pinned release is introspected, and so are the releases a
//! search over the known answers needs (the newest, a look back, bisection), as lazy indexing
//! does with releases not indexed.

use jiff::Timestamp;

use super::line::{Line, Reading};
use super::probe::{Probe, ProbeReason};
use super::search::{next, Step, Wanted};
use super::{from_bank, install_scope, what};
use crate::bank::store::{Catalog, CatalogRelease, IndexStatus, Slot};
use crate::resolve::evidence::{
    BankReadError, BankView, DistVersions, EvidenceRecord, ReleaseState,
};
use crate::resolve::infer::Inference;

/// A pin whose evidence the bank cannot answer there.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Hinging {
    pub pin: Probe,
    /// The evidence unknown at the pin (`.ix`, `pandas.DataFrame.ix`).
    pub unknown: Vec<String>,
}

/// The pins that hinge on unknown answers.
pub fn hinging<B: BankView + ?Sized>(
    inference: &Inference,
    bank: &B,
) -> Result<Vec<Hinging>, BankReadError> {
    Ok(searches(inference, bank, None)?
        .into_iter()
        .map(|(h, _)| h)
        .collect())
}

/// The releases to introspect: each hinging pin, and what a search over each unknown
/// answer reads next.
pub fn unsettled_pins<B: BankView + ?Sized>(
    inference: &Inference,
    bank: &B,
    cap: Option<Timestamp>,
) -> Result<Vec<Probe>, BankReadError> {
    let mut out: Vec<Probe> = Vec::new();
    for (h, more) in searches(inference, bank, cap)? {
        for p in std::iter::once(h.pin).chain(more) {
            if !out
                .iter()
                .any(|o| o.dist == p.dist && o.version == p.version)
            {
                out.push(p);
            }
        }
    }
    Ok(out)
}

fn searches<B: BankView + ?Sized>(
    inference: &Inference,
    bank: &B,
    cap: Option<Timestamp>,
) -> Result<Vec<(Hinging, Vec<Probe>)>, BankReadError> {
    let mut out = Vec::new();
    for pin in inference.solution.roots() {
        let Some(d) = inference
            .evidence
            .distributions
            .iter()
            .find(|d| d.dist == pin.dist)
        else {
            continue;
        };
        let Some(catalog) = bank.catalog(&pin.dist)? else {
            continue;
        };
        let Some(at) = catalog.find(&pin.version) else {
            continue;
        };
        if at.index != IndexStatus::Indexed {
            continue;
        }
        let mut unknown = Vec::new();
        let mut more = Vec::new();
        for record in d.records.iter().filter(|r| from_bank(r)) {
            let known = Known::of(&catalog, record);
            if known.state(at.slot) != Some(ReleaseState::Unknown) {
                continue;
            }
            unknown.push(what(record));
            more.extend(search(d, &catalog, record, &known, cap));
        }
        if unknown.is_empty() {
            continue;
        }
        let probe = Probe {
            dist: pin.dist.clone(),
            version: Some(pin.version.clone()),
            reason: ProbeReason::Pinned,
        };
        out.push((
            Hinging {
                pin: probe,
                unknown,
            },
            more,
        ));
    }
    Ok(out)
}

/// What a search over the known answers of `record` reads next.
fn search(
    d: &DistVersions,
    catalog: &Catalog,
    record: &EvidenceRecord,
    known: &Known,
    cap: Option<Timestamp>,
) -> Vec<Probe> {
    let line = Line::reading(catalog, install_scope(d).as_ref(), cap, known);
    let version = |at: usize| line.releases[at].version.clone();
    let probe = |at: usize, reason| Probe {
        dist: d.dist.clone(),
        version: Some(version(at)),
        reason,
    };
    let Some(newest) = line.releases.len().checked_sub(1) else {
        return Vec::new();
    };
    if !line.is_read(newest) {
        return vec![probe(newest, ProbeReason::Newest)];
    }
    let what = what(record);
    let has = |at: usize| known.state(line.releases[at].slot) == Some(ReleaseState::Present);
    let Step::Read(reads) = next(&line, &has) else {
        return Vec::new();
    };
    reads
        .into_iter()
        .map(|w| match w {
            Wanted::Back(at) => probe(at, ProbeReason::LookingBack { what: what.clone() }),
            Wanted::Middle { at, older, newer } => probe(
                at,
                ProbeReason::Bisect {
                    what: what.clone(),
                    older: version(older),
                    newer: version(newer),
                },
            ),
            Wanted::Gap { at, older, newer } => probe(
                at,
                ProbeReason::Gap {
                    what: what.clone(),
                    older: version(older),
                    newer: version(newer),
                },
            ),
        })
        .collect()
}

/// One record's answer release by release, from its history.
struct Known {
    states: Vec<(Slot, ReleaseState)>,
}

impl Known {
    fn of(catalog: &Catalog, record: &EvidenceRecord) -> Self {
        let mut states = Vec::with_capacity(catalog.releases.len());
        let mut releases = catalog.releases.iter();
        for span in &record.history {
            for r in releases.by_ref() {
                states.push((r.slot, span.state));
                if r.version == span.last {
                    break;
                }
            }
        }
        Self { states }
    }

    fn state(&self, slot: Slot) -> Option<ReleaseState> {
        self.states
            .iter()
            .find(|(s, _)| *s == slot)
            .map(|(_, st)| *st)
    }
}

impl Reading for Known {
    fn is_read(&self, release: &CatalogRelease) -> bool {
        matches!(
            self.state(release.slot),
            Some(ReleaseState::Present | ReleaseState::Absent)
        )
    }
    fn can_read(&self, release: &CatalogRelease) -> bool {
        self.state(release.slot) == Some(ReleaseState::Unknown)
    }
}

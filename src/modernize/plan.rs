//! What to move: from the APIs a notebook uses and what the bank knows of them, the changes
//! the bank proves and the removed APIs it cannot move. A pure function of its inputs, so
//! each decision is testable without a bank.

use std::collections::BTreeMap;
use std::fmt;

use pep440_rs::Version;
use serde::{Serialize, Serializer};

use super::facts::Facts;
use crate::bank::flow::ApiKind;
use crate::bank::store::{ApiReport, Move, MoveKind, SignatureMatch, Successor, VersionRun};
use crate::names::{ApiPath, DistName};
use crate::notebook::{ApiUse, Location, Origin};

/// A used API the bank shows removed, and the successor that proves where it went.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub old: ApiPath,
    pub new: ApiPath,
    pub distribution: DistName,
    /// The removal, with every successor the bank found (the first is `new`).
    pub evidence: Move,
    /// Where the notebook uses it.
    pub at: Vec<Location>,
}

impl Change {
    /// The successor the change follows.
    pub fn successor(&self) -> &Successor {
        &self.evidence.successors[0]
    }
}

/// The pin that runs a removed API as it was: its distribution before the release that
/// removed it, or at most its last release with it when releases between those two are not
/// indexed (nothing is known of them: the API may be gone there already).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EraPin {
    pub distribution: DistName,
    pub bound: Bound,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    Below(Version),
    AtMost(Version),
}

impl fmt::Display for EraPin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.bound {
            Bound::Below(v) => write!(f, "{}<{v}", self.distribution),
            Bound::AtMost(v) => write!(f, "{}<={v}", self.distribution),
        }
    }
}

impl Serialize for EraPin {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Why a removed API stays as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Why {
    /// The bank knows no path that took its place.
    NoSuccessor,
    /// Candidates exist, but no recorded signature proves one.
    Unproven { candidates: Vec<ApiPath> },
    /// Several successors prove it equally well: the bank cannot choose.
    Ambiguous { candidates: Vec<ApiPath> },
    /// The successor put a new parameter before old positional ones: calls passing those by
    /// position would change meaning.
    PositionalOrder { successor: ApiPath },
}

/// A used API the bank shows removed that `modernize` does not move, and the pin that would
/// run it instead.
#[derive(Debug, Clone, Serialize)]
pub struct Unmoved {
    pub api: ApiPath,
    /// Its last release with it, and the first without.
    pub last: Version,
    pub removed_in: Version,
    pub era_pin: EraPin,
    pub why: Why,
    pub at: Vec<Location>,
}

/// The changes, sorted by old path, and what could not move.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Plan {
    pub changes: Vec<Change>,
    pub unmoved: Vec<Unmoved>,
}

impl Plan {
    /// Old path → new path, for the rewriter.
    pub fn renames(&self) -> BTreeMap<ApiPath, ApiPath> {
        self.changes
            .iter()
            .map(|c| (c.old.clone(), c.new.clone()))
            .collect()
    }
}

/// A removal as one distribution's report shows it.
struct Removal<'a> {
    report: &'a ApiReport,
    last: Version,
    removed_in: Version,
    /// Releases between the two that are not indexed.
    gap: bool,
}

/// Whether the API is gone from the newest indexed release of every distribution that ever
/// had it. A release where the bank cannot tell is not a removal: unknown is not absent.
fn removal(reports: &[ApiReport]) -> Option<Removal<'_>> {
    let mut found: Option<Removal<'_>> = None;
    for r in reports {
        let Some(last) = r.present.last().map(|run| run.last.clone()) else {
            continue;
        };
        let latest = r.latest_indexed.as_ref()?;
        let within = |runs: &[VersionRun]| {
            runs.iter()
                .any(|run| run.first <= *latest && *latest <= run.last)
        };
        if within(&r.present) || within(&r.unknown) {
            return None;
        }
        // The first indexed release after the last with it that lacks it.
        let removed_in = r
            .absent
            .iter()
            .map(|run| &run.first)
            .filter(|v| **v > last)
            .min()?
            .clone();
        if found.as_ref().is_none_or(|f| f.last < last) {
            let gap = r.not_indexed.iter().any(|v| *v > last && *v < removed_in);
            found = Some(Removal {
                report: r,
                last,
                removed_in,
                gap,
            });
        }
    }
    found
}

/// A successor whose signature takes every call the old one took.
fn compatible(s: &Successor) -> bool {
    match s.kind {
        MoveKind::SameDefinition => true,
        MoveKind::Twin => s.signature_match != Some(SignatureMatch::ByKeyword),
        MoveKind::NoSignature => false,
    }
}

/// Two successors the bank's ranking cannot tell apart.
fn tied(a: &Successor, b: &Successor) -> bool {
    a.kind == b.kind && a.signature_match == b.signature_match && a.overlap == b.overlap
}

/// The changes and the unmoved APIs among the third-party APIs `uses` names.
pub fn plan(uses: &[ApiUse], facts: &Facts) -> Plan {
    let mut out = Plan::default();
    for u in uses.iter().filter(|u| u.origin == Origin::ThirdParty) {
        let Some(reports) = facts.apis.get(&u.api) else {
            continue;
        };
        let Some(removal) = removal(reports) else {
            continue;
        };
        // A removed module is moved through the names used from it.
        if removal.report.kind == ApiKind::Module {
            continue;
        }
        let dist = &removal.report.distribution;
        let moves = facts.moves.get(dist);
        let find = |list: &[Move]| list.iter().find(|m| m.old == u.api).cloned();
        let proven = moves.and_then(|m| find(&m.moves));
        let unproven = moves.and_then(|m| find(&m.unproven));
        let why = match (proven, unproven) {
            (Some(m), _) => {
                let first = &m.successors[0];
                if m.successors.len() > 1 && tied(first, &m.successors[1]) {
                    Why::Ambiguous {
                        candidates: m
                            .successors
                            .iter()
                            .filter(|s| tied(first, s))
                            .map(|s| s.path.clone())
                            .collect(),
                    }
                } else if !compatible(first) {
                    Why::PositionalOrder {
                        successor: first.path.clone(),
                    }
                } else {
                    out.changes.push(Change {
                        old: u.api.clone(),
                        new: first.path.clone(),
                        distribution: dist.clone(),
                        evidence: m,
                        at: u.locations.clone(),
                    });
                    continue;
                }
            }
            (None, Some(m)) => Why::Unproven {
                candidates: m.successors.iter().map(|s| s.path.clone()).collect(),
            },
            (None, None) => Why::NoSuccessor,
        };
        out.unmoved.push(Unmoved {
            api: u.api.clone(),
            last: removal.last.clone(),
            removed_in: removal.removed_in.clone(),
            era_pin: EraPin {
                distribution: dist.clone(),
                bound: if removal.gap {
                    Bound::AtMost(removal.last.clone())
                } else {
                    Bound::Below(removal.removed_in.clone())
                },
            },
            why,
            at: u.locations.clone(),
        });
    }
    out.changes.sort_by(|a, b| a.old.cmp(&b.old));
    out.unmoved.sort_by(|a, b| a.api.cmp(&b.api));
    out
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;
    use crate::bank::store::MovesReport;

    fn v(s: &str) -> Version {
        Version::from_str(s).unwrap()
    }

    fn run(a: &str, b: &str) -> VersionRun {
        VersionRun {
            first: v(a),
            last: v(b),
        }
    }

    fn p(s: &str) -> ApiPath {
        ApiPath::new(s).unwrap()
    }

    fn dist() -> DistName {
        DistName::new("toolkit").unwrap()
    }

    /// An API of `toolkit` over releases 1.0, 1.1, 1.2: present, unknown and absent runs.
    fn report(path: &str, present: &[VersionRun], unknown: &[VersionRun]) -> ApiReport {
        let absent = ["1.0", "1.1", "1.2"]
            .iter()
            .map(|x| v(x))
            .filter(|x| {
                !present
                    .iter()
                    .chain(unknown)
                    .any(|r| r.first <= *x && *x <= r.last)
            })
            .map(|x| VersionRun {
                first: x.clone(),
                last: x,
            })
            .collect();
        ApiReport {
            distribution: dist(),
            display_name: None,
            path: path.into(),
            kind: ApiKind::Function,
            indexed_releases: 3,
            present: present.to_vec(),
            unknown: unknown.to_vec(),
            absent,
            not_indexed: vec![],
            first: present.first().map(|r| r.first.clone()),
            last: present.last().map(|r| r.last.clone()),
            latest_indexed: Some(v("1.2")),
            static_present: present.to_vec(),
            runtime_present: vec![],
            unknown_through: vec![],
            raising_modules: vec![],
            canonical: vec![],
            signature_changes: vec![],
        }
    }

    fn successor(path: &str, kind: MoveKind, m: Option<SignatureMatch>) -> Successor {
        Successor {
            path: p(path),
            kind,
            signature_match: m,
            overlap: vec![run("1.1", "1.1")],
            unrecorded: vec![],
            first: v("1.1"),
            old_definition: None,
            new_definition: None,
            old_signature: None,
            new_signature: None,
            also_as: vec![],
        }
    }

    fn moved(old: &str, successors: Vec<Successor>) -> Move {
        Move {
            old: p(old),
            kind: ApiKind::Function,
            last: v("1.1"),
            removed_in: v("1.2"),
            unknown_after: vec![],
            raising_module: None,
            successors,
        }
    }

    fn uses(paths: &[&str]) -> Vec<ApiUse> {
        paths
            .iter()
            .map(|a| ApiUse {
                api: p(a),
                origin: Origin::ThirdParty,
                count: 1,
                kinds: vec![],
                keywords: vec![],
                locations: vec![Location::new(1, 1)],
            })
            .collect()
    }

    fn facts(apis: Vec<ApiReport>, moves: Vec<Move>, unproven: Vec<Move>) -> Facts {
        Facts {
            apis: apis.into_iter().map(|r| (p(&r.path), vec![r])).collect(),
            moves: BTreeMap::from([(
                dist(),
                MovesReport {
                    distribution: dist(),
                    display_name: None,
                    indexed_releases: 3,
                    latest_indexed: Some(v("1.2")),
                    moves,
                    unproven,
                    shims: Vec::new(),
                    renamed_keywords: Vec::new(),
                },
            )]),
        }
    }

    const OLD: &str = "toolkit.cv.split";

    /// The plan for a notebook using `OLD`, removed after 1.1, whose one successor is a twin
    /// whose signature matches as `matching` says.
    fn plan_with_twin(matching: SignatureMatch) -> Plan {
        let f = facts(
            vec![report(OLD, &[run("1.0", "1.1")], &[])],
            vec![moved(
                OLD,
                vec![successor(
                    "toolkit.ms.split",
                    MoveKind::Twin,
                    Some(matching),
                )],
            )],
            vec![],
        );
        plan(&uses(&[OLD]), &f)
    }

    #[test]
    fn a_proven_successor_is_a_change() {
        let plan = plan_with_twin(SignatureMatch::Same);
        assert_eq!(plan.changes.len(), 1);
        assert_eq!(plan.changes[0].new, p("toolkit.ms.split"));
        assert!(plan.unmoved.is_empty());
    }

    #[test]
    fn no_successor_is_unmoved_with_the_era_pin() {
        let f = facts(vec![report(OLD, &[run("1.0", "1.1")], &[])], vec![], vec![]);
        let plan = plan(&uses(&[OLD]), &f);
        assert!(plan.changes.is_empty());
        let u = &plan.unmoved[0];
        assert_eq!(u.why, Why::NoSuccessor);
        assert_eq!(u.era_pin.to_string(), "toolkit<1.2");
        assert_eq!(u.last, v("1.1"));
    }

    #[test]
    fn releases_not_indexed_before_the_removal_pin_the_last_known() {
        let mut r = report(OLD, &[run("1.0", "1.0")], &[]);
        r.absent = vec![run("1.2", "1.2")];
        r.not_indexed = vec![v("1.1")];
        let plan = plan(&uses(&[OLD]), &facts(vec![r], vec![], vec![]));
        assert_eq!(plan.unmoved[0].era_pin.to_string(), "toolkit<=1.0");
    }

    #[test]
    fn unknown_in_the_newest_release_is_not_a_removal() {
        let f = facts(
            // Absent in 1.1, unknown in 1.2: it may be back.
            vec![report(OLD, &[run("1.0", "1.0")], &[run("1.2", "1.2")])],
            vec![],
            vec![],
        );
        let plan = plan(&uses(&[OLD]), &f);
        assert!(plan.changes.is_empty() && plan.unmoved.is_empty());
    }

    #[test]
    fn still_present_is_left_alone() {
        let f = facts(vec![report(OLD, &[run("1.0", "1.2")], &[])], vec![], vec![]);
        assert!(plan(&uses(&[OLD]), &f).unmoved.is_empty());
    }

    #[test]
    fn tied_successors_are_ambiguous() {
        let twin = |path| successor(path, MoveKind::Twin, Some(SignatureMatch::Same));
        let f = facts(
            vec![report(OLD, &[run("1.0", "1.1")], &[])],
            vec![moved(
                OLD,
                vec![twin("toolkit.a.split"), twin("toolkit.b.split")],
            )],
            vec![],
        );
        let plan = plan(&uses(&[OLD]), &f);
        assert!(plan.changes.is_empty());
        assert_eq!(
            plan.unmoved[0].why,
            Why::Ambiguous {
                candidates: vec![p("toolkit.a.split"), p("toolkit.b.split")]
            }
        );
    }

    #[test]
    fn a_reordered_signature_is_not_moved() {
        let plan = plan_with_twin(SignatureMatch::ByKeyword);
        assert!(matches!(plan.unmoved[0].why, Why::PositionalOrder { .. }));
    }

    #[test]
    fn an_unproven_successor_is_named_but_not_taken() {
        let f = facts(
            vec![report(OLD, &[run("1.0", "1.1")], &[])],
            vec![],
            vec![moved(
                OLD,
                vec![successor("toolkit.ms.split", MoveKind::NoSignature, None)],
            )],
        );
        let plan = plan(&uses(&[OLD]), &f);
        assert_eq!(
            plan.unmoved[0].why,
            Why::Unproven {
                candidates: vec![p("toolkit.ms.split")]
            }
        );
    }
}

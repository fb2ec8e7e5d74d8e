//! An answer of the bank laid out over a distribution's releases in version order, as runs:
//! "present 0.9-0.19.2, absent 0.20.0-1.3.2" is what "removed in 0.20.0" is read from.

use pep508_rs::pep440_rs::Version;
use serde::Serialize;

use crate::bank::store::{Catalog, Presence};

/// What one release says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReleaseState {
    Present,
    Unknown,
    Absent,
    NotIndexed,
}

/// Consecutive releases (in version order) in one state, first and last inclusive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Span {
    pub state: ReleaseState,
    pub first: Version,
    pub last: Version,
}

/// Where the answer turns, between releases the bank has read (unknown and not-indexed
/// releases in between are skipped: they are reported as spans, not as changes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Change {
    /// First present in `version`, after being absent up to `after`.
    Added { version: Version, after: Version },
    /// Absent from `version` on, after being present up to `after`.
    Removed { version: Version, after: Version },
}

/// The runs of `presence` over the catalog's releases, oldest first.
pub fn spans(catalog: &Catalog, presence: &Presence) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    for r in &catalog.releases {
        let state = if presence.present.contains(r.slot) {
            ReleaseState::Present
        } else if presence.unknown.contains(r.slot) {
            ReleaseState::Unknown
        } else if presence.absent.contains(r.slot) {
            ReleaseState::Absent
        } else {
            ReleaseState::NotIndexed
        };
        match out.last_mut() {
            Some(span) if span.state == state => span.last = r.version.clone(),
            _ => out.push(Span {
                state,
                first: r.version.clone(),
                last: r.version.clone(),
            }),
        }
    }
    out
}

/// The additions and removals the spans show.
pub fn changes(spans: &[Span]) -> Vec<Change> {
    let mut out = Vec::new();
    let mut previous: Option<&Span> = None;
    for span in spans {
        if !matches!(span.state, ReleaseState::Present | ReleaseState::Absent) {
            continue;
        }
        if let Some(before) = previous.filter(|p| p.state != span.state) {
            let (version, after) = (span.first.clone(), before.last.clone());
            out.push(match span.state {
                ReleaseState::Present => Change::Added { version, after },
                _ => Change::Removed { version, after },
            });
        }
        previous = Some(span);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::store::{CatalogRelease, IndexStatus, Slot};
    use crate::pypi::RequiresPython;

    #[test]
    fn removed_then_restored_across_unknown_and_not_indexed() {
        let versions = ["1.0", "1.1", "2.0", "2.1", "3.0"];
        let catalog = Catalog::new(
            versions
                .iter()
                .enumerate()
                .map(|(i, v)| CatalogRelease {
                    runtime_gap: false,
                    slot: Slot(i as u32),
                    version: v.parse().unwrap(),
                    upload_time: None,
                    requires_python: RequiresPython::Any,
                    yanked: false,
                    index: IndexStatus::Indexed,
                })
                .collect(),
        );
        let set = |s: &[u32]| s.iter().map(|&i| Slot(i)).collect();
        let presence = Presence {
            present: set(&[0, 4]),
            unknown: set(&[1]),
            absent: set(&[2]),
            not_indexed: set(&[3]),
        };
        let shown: Vec<String> = spans(&catalog, &presence)
            .iter()
            .map(|s| format!("{:?} {}-{}", s.state, s.first, s.last))
            .collect();
        assert_eq!(
            shown,
            [
                "Present 1.0-1.0",
                "Unknown 1.1-1.1",
                "Absent 2.0-2.0",
                "NotIndexed 2.1-2.1",
                "Present 3.0-3.0"
            ]
        );
        let v = |s: &str| s.parse::<Version>().unwrap();
        assert_eq!(
            changes(&spans(&catalog, &presence)),
            [
                Change::Removed {
                    version: v("2.0"),
                    after: v("1.0")
                },
                Change::Added {
                    version: v("3.0"),
                    after: v("2.0")
                }
            ]
        );
    }
}

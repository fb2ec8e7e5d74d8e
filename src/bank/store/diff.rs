//! What changed between two indexed releases of a distribution.
//!
//! Like is compared with like: static reading with static reading always, and runtime
//! introspection's findings only where both releases were introspected; otherwise a name only
//! one side's introspection saw would show as added or removed. A name found on one side and
//! unknown on the other (static reading cannot see through its path there) is listed apart,
//! not as a change.

use pep440_rs::Version;
use serde::Serialize;

use super::registry::{ReleaseRow, ReleaseStatus};
use super::release_set::ReleaseSet;
use super::resolve::Resolver;
use super::seal::{select_sealed, APIS};
use super::{Slot, Store, StoreError};
use crate::bank::extract::is_private;
use crate::bank::flow::ApiKind;
use crate::names::DistName;

/// Which reading found a difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiffSource {
    Static,
    /// Introspection, both releases having been introspected.
    Runtime,
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffEntry {
    pub path: String,
    pub kind: ApiKind,
    pub before: Option<String>,
    pub after: Option<String>,
    pub source: DiffSource,
}

/// APIs added, removed or changed in signature between two releases.
#[derive(Debug, Clone, Serialize)]
pub struct DiffReport {
    pub distribution: DistName,
    pub from: Version,
    pub to: Version,
    /// Whether introspection's findings were compared too (both releases introspected).
    pub runtime_compared: bool,
    pub added: Vec<DiffEntry>,
    pub removed: Vec<DiffEntry>,
    pub changed: Vec<DiffEntry>,
    /// Found on one side, unknown on the other: not counted as added or removed.
    pub unknown: Vec<DiffEntry>,
}

/// Why two releases cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffMiss {
    /// The bank does not have the distribution.
    Distribution,
    /// These releases are not indexed (registered or not).
    Releases(Vec<Version>),
}

impl Store {
    /// What changed between two indexed releases of `name`. Private names (a segment with a
    /// leading underscore) are left out unless `include_private`.
    pub fn diff(
        &self,
        name: &DistName,
        from: &Version,
        to: &Version,
        include_private: bool,
    ) -> Result<Result<DiffReport, DiffMiss>, StoreError> {
        let Some(dist_id) = self.distribution_id(name)? else {
            return Ok(Err(DiffMiss::Distribution));
        };
        let rows = self.releases(dist_id)?;
        let find = |v: &Version| {
            rows.iter()
                .find(|r| &r.version == v && r.status == ReleaseStatus::Indexed)
        };
        let (a, b) = match (find(from), find(to)) {
            (Some(a), Some(b)) => (a, b),
            (a, b) => {
                let missing = [(a, from), (b, to)]
                    .into_iter()
                    .filter(|(row, _)| row.is_none())
                    .map(|(_, v)| v.clone())
                    .collect();
                return Ok(Err(DiffMiss::Releases(missing)));
            }
        };
        let runtime_compared = a.is_introspected() && b.is_introspected();
        let err = self.err();
        self.check_apis_index(dist_id)?;
        let mut apis: Vec<(i64, i64, [ReleaseSet; 3])> = Vec::new();
        self.each_sealed(
            &APIS,
            select_sealed!(apis, "WHERE dist_id = ?1"),
            [dist_id],
            |r| {
                apis.push((
                    r.get(0).map_err(&err)?,
                    r.get(2).map_err(&err)?,
                    [self.set_at(r, 3)?, self.set_at(r, 4)?, self.set_at(r, 6)?],
                ));
                Ok(())
            },
        )?;
        let mut report = DiffReport {
            distribution: name.clone(),
            from: from.clone(),
            to: to.clone(),
            runtime_compared,
            added: Vec::new(),
            removed: Vec::new(),
            changed: Vec::new(),
            unknown: Vec::new(),
        };
        let dictionary = self.path_dictionary(dist_id)?;
        let mut resolver = Resolver::new(self, dist_id);
        for (id, kind, [static_set, runtime_set, external]) in apis {
            let path = dictionary
                .path(id)
                .ok_or_else(|| self.corrupt(format!("API {id} has no path")))?
                .to_string();
            if !include_private && path.split('.').any(is_private) {
                continue;
            }
            // Names bound to another distribution's objects (`import numpy as np`) are that
            // distribution's business.
            if external.contains(a.slot) || external.contains(b.slot) {
                continue;
            }
            let seen = |row: &ReleaseRow| -> (bool, DiffSource) {
                if static_set.contains(row.slot) {
                    (true, DiffSource::Static)
                } else if runtime_compared && runtime_set.contains(row.slot) {
                    (true, DiffSource::Runtime)
                } else {
                    (false, DiffSource::Static)
                }
            };
            let ((in_a, source_a), (in_b, source_b)) = (seen(a), seen(b));
            if !in_a && !in_b {
                continue;
            }
            let sigs = self.signatures_of_api(id)?;
            let sig = |slot: Slot| {
                sigs.iter()
                    .find(|(_, s)| s.contains(slot))
                    .map(|(t, _)| t.clone())
            };
            let mut entry = DiffEntry {
                path,
                kind: ApiKind::from_code(kind),
                before: if in_a { sig(a.slot) } else { None },
                after: if in_b { sig(b.slot) } else { None },
                source: if in_a { source_a } else { source_b },
            };
            match (in_a, in_b) {
                (true, false) | (false, true) => {
                    // Not found on the other side: absent, or unknown there? Found there by
                    // introspection alone, the other side not introspected: no change.
                    let other = if in_a { b.slot } else { a.slot };
                    if runtime_set.contains(other) {
                        continue;
                    }
                    if resolver.resolve(&entry.path)?.unknown().contains(other) {
                        report.unknown.push(entry);
                    } else if in_a {
                        report.removed.push(entry);
                    } else {
                        report.added.push(entry);
                    }
                }
                _ if entry.before != entry.after
                    && entry.before.is_some()
                    && entry.after.is_some() =>
                {
                    entry.source = DiffSource::Static;
                    report.changed.push(entry)
                }
                _ => {}
            }
        }
        for list in [
            &mut report.added,
            &mut report.removed,
            &mut report.changed,
            &mut report.unknown,
        ] {
            list.sort_by(|x, y| x.path.cmp(&y.path));
        }
        Ok(Ok(report))
    }
}

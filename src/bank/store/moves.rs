//! APIs that moved: a module-level function or class removed from a distribution, and the
//! path of the same distribution that took its place (`sklearn.cross_validation.
//! train_test_split` → `sklearn.model_selection.train_test_split`), each with the releases
//! and definitions that prove it ([`super::pairing`] decides).
//!
//! Computed on demand from the bank: a distribution's module-level names are read once, and
//! only the removed ones whose final name some newest-release name shares are resolved.

use std::collections::HashMap;

use pep440_rs::Version;
use serde::Serialize;

use super::pairing::{self, Pairing, Ranked, Seen, SignatureMatch};
use super::query::{indexed, runs, RaisingModule, VersionRun};
use super::registry::ReleaseRow;
use super::release_set::ReleaseSet;
use super::resolve::Resolver;
use super::seal::{select_sealed, APIS};
use super::shim_moves::{Mirrored, RenamedKeyword, Shimmed};
use super::{Store, StoreError};
use crate::bank::extract::is_private;
use crate::bank::flow::ApiKind;
use crate::names::{ApiPath, DistName};

/// What proves a successor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveKind {
    /// Both paths resolve to one definition: a new alias of the same object.
    SameDefinition,
    /// Another definition of the same final name, with the same signature (or one that only
    /// adds parameters with defaults) wherever both exist.
    Twin,
    /// They coexist with no conflicting signature, but one has no recorded signature in
    /// some release both are in: not proven.
    NoSignature,
}

/// A path that took a removed API's place, and the evidence.
#[derive(Debug, Clone, Serialize)]
pub struct Successor {
    pub path: ApiPath,
    pub kind: MoveKind,
    /// How the signatures compare where both exist (when both were recorded there).
    pub signature_match: Option<SignatureMatch>,
    /// The indexed releases that have both.
    pub overlap: Vec<VersionRun>,
    /// Those of them where what proves it (definitions, or signatures for a twin) is not
    /// recorded on both sides: no evidence either way.
    pub unrecorded: Vec<VersionRun>,
    /// Its first indexed release.
    pub first: Version,
    /// What the old path is defined as in its last release, and the new one in its first.
    pub old_definition: Option<ApiPath>,
    pub new_definition: Option<ApiPath>,
    /// Their signatures in those same releases.
    pub old_signature: Option<String>,
    pub new_signature: Option<String>,
    /// For the same definition: the other public paths that reach it as well (modules that
    /// import it), ranked below this one.
    pub also_as: Vec<ApiPath>,
}

/// A removed API and where it went, its successors best first (several: the bank cannot
/// choose between them).
#[derive(Debug, Clone, Serialize)]
pub struct Move {
    pub old: ApiPath,
    pub kind: ApiKind,
    /// Its last indexed release, and the next indexed one, which lacks it.
    pub last: Version,
    pub removed_in: Version,
    /// Releases after the removal where the bank cannot tell whether it is back (static
    /// reading cannot see through a name on its path there): no evidence either way.
    pub unknown_after: Vec<VersionRun>,
    /// A module on its path that raises when imported in the removal release (a shim), and
    /// what it says.
    pub raising_module: Option<RaisingModule>,
    pub successors: Vec<Successor>,
}

/// The moves of one distribution's APIs.
#[derive(Debug, Clone, Serialize)]
pub struct MovesReport {
    pub distribution: DistName,
    /// The name as the index spells it (`Pillow`), where the bank knows it.
    pub display_name: Option<String>,
    pub indexed_releases: usize,
    pub latest_indexed: Option<Version>,
    /// Removed APIs with a proven successor.
    pub moves: Vec<Move>,
    /// Removed APIs whose only candidates lack a recorded signature somewhere both exist.
    pub unproven: Vec<Move>,
    /// Removed functions and methods whose last bodies were deprecation shims: the template
    /// they returned, or the successor their warning named.
    pub shims: Vec<Shimmed>,
    /// Keywords accepted under an old name with a warning.
    pub renamed_keywords: Vec<RenamedKeyword>,
    /// What the distribution's own change notes say replaced an old API (read from its
    /// sdists: candidates, not proof).
    pub change_notes: Vec<super::StoredNote>,
    /// Modules some releases forward, name for name, to another module (perhaps another
    /// distribution's).
    pub mirrors: Vec<Mirrored>,
    /// The releases whose sdists were read for them.
    pub notes_read: Vec<super::NotesReadRow>,
}

/// A module-level public function or class of the distribution, as its own row says.
struct Named {
    path: String,
    kind: ApiKind,
    presence: ReleaseSet,
}

impl Store {
    /// The moved APIs of distribution `name`, and its change notes; `None` when the bank has
    /// neither it nor notes of it.
    pub fn moves(&self, name: &DistName) -> Result<Option<MovesReport>, StoreError> {
        let dist_id = self.distribution_id(name)?;
        let notes_read = self.notes_reads(name)?;
        // Notes read for a distribution never indexed are still its notes.
        if dist_id.is_none() && notes_read.is_empty() {
            return Ok(None);
        }
        let rows = match dist_id {
            Some(id) => self.releases(id)?,
            None => Vec::new(),
        };
        let indexed = indexed(&rows);
        let mut report = MovesReport {
            distribution: name.clone(),
            display_name: match dist_id {
                Some(id) => self.display_name(id)?,
                None => None,
            },
            indexed_releases: indexed.len(),
            latest_indexed: indexed.last().map(|r| r.version.clone()),
            moves: Vec::new(),
            unproven: Vec::new(),
            shims: Vec::new(),
            renamed_keywords: Vec::new(),
            mirrors: Vec::new(),
            change_notes: self.change_notes(name)?,
            notes_read,
        };
        let (Some(dist_id), Some(latest)) = (dist_id, indexed.last().map(|r| r.slot)) else {
            return Ok(Some(report));
        };
        let indexed_set = super::query::slots(indexed.iter().copied());

        let err = self.err();
        let mut apis: HashMap<i64, (ApiKind, ReleaseSet, ReleaseSet)> = HashMap::new();
        self.check_apis_index(dist_id)?;
        self.each_sealed(
            &APIS,
            select_sealed!(apis, "WHERE dist_id = ?1"),
            [dist_id],
            |r| {
                let presence = self.set_at(r, 3)?.union(&self.set_at(r, 4)?);
                apis.insert(
                    r.get(0).map_err(&err)?,
                    (
                        ApiKind::from_code(r.get(2).map_err(&err)?),
                        presence.intersection(&indexed_set),
                        self.set_at(r, 6)?,
                    ),
                );
                Ok(())
            },
        )?;
        let dictionary = self.path_dictionary(dist_id)?;
        let mut named: Vec<Named> = Vec::new();
        for (path, id) in dictionary.iter() {
            let Some((kind, presence, external)) = apis.get(&id) else {
                continue;
            };
            // Public functions and classes, each in a module; names bound to another
            // distribution's objects are that distribution's.
            if !matches!(kind, ApiKind::Function | ApiKind::Class)
                || presence.is_empty()
                || !external.intersection(&indexed_set).is_empty()
                || path.split('.').any(is_private)
            {
                continue;
            }
            let Some((owner, _)) = path.rsplit_once('.') else {
                continue;
            };
            let module_level = dictionary
                .get(owner)
                .and_then(|o| apis.get(&o))
                .is_some_and(|(k, _, _)| *k == ApiKind::Module);
            if module_level {
                named.push(Named {
                    path: path.to_string(),
                    kind: *kind,
                    presence: presence.clone(),
                });
            }
        }
        // Names in the newest release, by final name: the possible successors.
        let mut current: HashMap<&str, Vec<&Named>> = HashMap::new();
        for n in named.iter().filter(|n| n.presence.contains(latest)) {
            current.entry(last_name(&n.path)).or_default().push(n);
        }

        let mut resolver = Resolver::new(self, dist_id);
        for old in named.iter().filter(|n| !n.presence.contains(latest)) {
            let Some(candidates) = current.get(last_name(&old.path)) else {
                continue;
            };
            let old_history = self.history(&mut resolver, &old.path, &indexed)?;
            let Some(removal) = pairing::removal(&old_history) else {
                continue;
            };
            let mut histories = Vec::new();
            for new in candidates.iter().filter(|n| n.kind == old.kind) {
                histories.push((new, self.history(&mut resolver, &new.path, &indexed)?));
            }
            let ranked = pairing::rank(
                histories
                    .iter()
                    .map(|(new, history)| Ranked {
                        path: &new.path,
                        pairing: pairing::pair(&old_history, history, removal),
                        follows: pairing::follows(&old.path, &old_history, history),
                        is_old_definition: old_history[removal.last_present].definition()
                            == Some(new.path.as_str()),
                        overlap: pairing::overlap(&old_history, history).len(),
                        defined_here: history
                            .last()
                            .and_then(Seen::definition)
                            .is_some_and(|d| d == new.path),
                    })
                    .collect(),
            );
            let mut successors = Vec::new();
            for r in &ranked {
                let history = &histories
                    .iter()
                    .find(|(n, _)| n.path == r.path)
                    .expect("ranked from these")
                    .1;
                let Some(s) = successor(&old_history, history, removal, r, &indexed) else {
                    continue;
                };
                // Every path to the same definition is the same object: one successor.
                match successors
                    .iter_mut()
                    .find(|x: &&mut Successor| x.kind == MoveKind::SameDefinition)
                {
                    Some(first) if s.kind == MoveKind::SameDefinition => first.also_as.push(s.path),
                    _ => successors.push(s),
                }
            }
            if successors.is_empty() {
                continue;
            }
            let Ok(old_path) = ApiPath::new(&old.path) else {
                continue;
            };
            let proven = successors.iter().any(|s| s.kind != MoveKind::NoSignature);
            if proven {
                successors.retain(|s| s.kind != MoveKind::NoSignature);
            }
            let removed_in = indexed[removal.removed_in];
            let unknown_after: ReleaseSet = old_history
                .iter()
                .enumerate()
                .skip(removal.removed_in)
                .filter(|(_, s)| **s == Seen::Unknown)
                .map(|(i, _)| indexed[i].slot)
                .collect();
            let found = Move {
                old: old_path,
                kind: old.kind,
                last: indexed[removal.last_present].version.clone(),
                removed_in: removed_in.version.clone(),
                unknown_after: runs(&indexed, &unknown_after),
                raising_module: self.raising_module(
                    &mut resolver,
                    &old.path,
                    removed_in.slot,
                    &indexed,
                )?,
                successors,
            };
            if proven {
                report.moves.push(found);
            } else {
                report.unproven.push(found);
            }
        }
        report.moves.sort_by(|a, b| a.old.cmp(&b.old));
        report.unproven.sort_by(|a, b| a.old.cmp(&b.old));
        let facts = self.deprecations(dist_id)?;
        (report.shims, report.renamed_keywords) =
            self.shim_moves(dist_id, &facts, &mut resolver, &indexed)?;
        report.mirrors = super::shim_moves::mirrors(&facts, &indexed);
        Ok(Some(report))
    }

    /// What the bank says of `path` in each indexed release. A module on its path that raises
    /// when imported (a shim) provides nothing there.
    pub(super) fn history(
        &self,
        resolver: &mut Resolver<'_>,
        path: &str,
        indexed: &[&ReleaseRow],
    ) -> Result<Vec<Seen>, StoreError> {
        let resolved = resolver.resolve(path)?;
        // Where only introspection found it, with no link to follow, its definition is not
        // recorded (the path stands for itself there).
        let runtime_only = resolved.runtime_set.difference(&resolved.static_set);
        let raises = super::presence::raising_modules(resolver, path)?;
        let present = resolved.presence().difference(&raises);
        let unknown = resolved.unknown().difference(&raises);
        let signatures = self.definition_signatures(&resolved)?;
        Ok(indexed
            .iter()
            .map(|r| {
                if present.contains(r.slot) {
                    Seen::Present {
                        definitions: resolved
                            .definitions
                            .iter()
                            .filter(|(_, def, set)| {
                                set.contains(r.slot)
                                    && !(def == path && runtime_only.contains(r.slot))
                            })
                            .map(|(_, def, _)| def.clone())
                            .collect(),
                        signatures: signatures
                            .iter()
                            .filter(|(_, set)| set.contains(r.slot))
                            .map(|(text, _)| text.clone())
                            .collect(),
                    }
                } else if unknown.contains(r.slot) {
                    Seen::Unknown
                } else {
                    Seen::Absent
                }
            })
            .collect())
    }

    /// The module on `path` nearest to it that raises when imported in release `slot`.
    fn raising_module(
        &self,
        resolver: &mut Resolver<'_>,
        path: &str,
        slot: super::Slot,
        indexed: &[&ReleaseRow],
    ) -> Result<Option<RaisingModule>, StoreError> {
        let mut prefix = path;
        while let Some((head, _)) = prefix.rsplit_once('.') {
            prefix = head;
            let facts = resolver.module_facts(prefix)?;
            if facts.raises.contains(slot) {
                return Ok(Some(RaisingModule {
                    module: prefix.to_string(),
                    message: facts.raises_message,
                    releases: runs(indexed, &facts.raises),
                }));
            }
        }
        Ok(None)
    }
}

fn last_name(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// The successor `ranked` describes, with its evidence; `None` for a pairing that proves
/// nothing.
fn successor(
    old: &[Seen],
    new: &[Seen],
    removal: pairing::Removal,
    ranked: &Ranked<'_>,
    indexed: &[&ReleaseRow],
) -> Option<Successor> {
    let (kind, signature_match) = match ranked.pairing {
        Pairing::SameDefinition => (MoveKind::SameDefinition, None),
        Pairing::Twin(m) => (MoveKind::Twin, Some(m)),
        Pairing::NoSignature => (MoveKind::NoSignature, None),
        Pairing::Unrelated => return None,
    };
    let first = new.iter().position(|s| matches!(s, Seen::Present { .. }))?;
    let (old_last, new_first) = (&old[removal.last_present], &new[first]);
    let signature_match = signature_match
        .or_else(|| pairing::signature_match(old_last.signature()?, new_first.signature()?));
    let both: ReleaseSet = pairing::overlap(old, new)
        .into_iter()
        .map(|i| indexed[i].slot)
        .collect();
    let unrecorded: ReleaseSet = pairing::unrecorded(old, new, &ranked.pairing)
        .into_iter()
        .map(|i| indexed[i].slot)
        .collect();
    let path = |p: Option<&str>| p.and_then(|p| ApiPath::new(p).ok());
    Some(Successor {
        path: ApiPath::new(ranked.path).ok()?,
        kind,
        signature_match,
        overlap: runs(indexed, &both),
        unrecorded: runs(indexed, &unrecorded),
        first: indexed[first].version.clone(),
        old_definition: path(old_last.definition()),
        new_definition: path(new_first.definition()),
        old_signature: old_last.signature().map(str::to_string),
        new_signature: new_first.signature().map(str::to_string),
        also_as: Vec::new(),
    })
}

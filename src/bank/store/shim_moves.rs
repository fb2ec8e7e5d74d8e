//! The moves a removed API's last bodies tell: a shim that warns and returns one expression
//! over its parameters (the rewrite template), or a warning that names the successor; and
//! keywords renamed with a warning. Read from the `deprecations` rows (see
//! [`super::deprecations`]) and set beside the releases that removed the API.

use std::collections::HashMap;

use pep440_rs::Version;
use serde::Serialize;

use super::deprecations::{DeprecationFact, StoredFact};
use super::pairing::{self, Seen};
use super::query::{indexed, runs, VersionRun};
use super::registry::ReleaseRow;
use super::release_set::ReleaseSet;
use super::resolve::Resolver;
use super::seal::{ALIASES, CLASS_BASES};
use super::{DistId, Store, StoreError};
use crate::bank::extract::{is_private, named_successor, Signature};
use crate::names::{ApiPath, DistName};

/// What a removed API's last body says its successor is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ShimEvidence {
    /// It warns, then returns `template`, an expression over its parameters `params` (and
    /// the names `globals`, which a call site must have as well): a call whose arguments
    /// map onto those parameters can be rewritten to it.
    Shim {
        template: String,
        params: Vec<String>,
        globals: Vec<String>,
        /// What the warning names as well, if anything.
        candidate: Option<String>,
    },
    /// Its warning names a successor, and nothing else proves it: a candidate, kept only if
    /// a run with it passes.
    NamedInWarning { candidate: String },
}

/// A removed function or method whose last releases deprecated it in its body.
#[derive(Debug, Clone, Serialize)]
pub struct Shimmed {
    /// The definition the body belongs to.
    pub old: ApiPath,
    /// The public paths that reached it in its last release and that the newest release
    /// lacks (`numpy.asscalar` for `numpy.lib.type_check.asscalar`), shortest first.
    pub also_as: Vec<ApiPath>,
    pub evidence: ShimEvidence,
    /// The warning's category as written; `None` when none was given (a `UserWarning`).
    pub category: Option<String>,
    pub message: String,
    /// The indexed releases whose source has this body.
    pub releases: Vec<VersionRun>,
    /// Its last indexed release, and the next indexed one, which lacks it.
    pub last: Version,
    pub removed_in: Version,
    /// Releases from the removal on where the bank cannot tell whether the name is served
    /// some other way (a class's `__getattr__`): no evidence either way.
    pub unknown_after: Vec<VersionRun>,
}

/// A module some releases put in place of itself with one that forwards every name to
/// another module, perhaps another distribution's: what was under `module` there is what is
/// under `mirror` (IPython 4.0-7.34's `IPython.html.widgets`, forwarded to `ipywidgets`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mirrored {
    pub module: ApiPath,
    pub mirror: ApiPath,
    /// The module whose code does it (`IPython.html`), as its newest such release has it.
    pub by: ApiPath,
    /// The indexed releases that do it.
    pub releases: Vec<VersionRun>,
    /// The newest of them.
    pub last: Version,
}

impl Store {
    /// The modules the releases of distribution `name` forward to others, read from its
    /// `deprecations` rows alone (no moves computed); none when the bank lacks it.
    pub fn mirrors(&self, name: &DistName) -> Result<Vec<Mirrored>, StoreError> {
        let Some(dist_id) = self.distribution_id(name)? else {
            return Ok(Vec::new());
        };
        let rows = self.releases(dist_id)?;
        Ok(mirrors(&self.deprecations(dist_id)?, &indexed(&rows)))
    }
}

/// The modules the releases of `facts` forward to others, by module path.
pub(super) fn mirrors(facts: &[StoredFact], indexed: &[&ReleaseRow]) -> Vec<Mirrored> {
    let newest = |set: &ReleaseSet| indexed.iter().rev().find(|r| set.contains(r.slot));
    let mut out: Vec<Mirrored> = Vec::new();
    for f in facts {
        let DeprecationFact::Mirror { mirror, by } = &f.fact else {
            continue;
        };
        let (Ok(module), Ok(mirror), Ok(by), Some(last)) = (
            ApiPath::new(&f.path),
            ApiPath::new(mirror),
            ApiPath::new(by),
            newest(&f.releases),
        ) else {
            continue;
        };
        let found = Mirrored {
            module,
            mirror,
            by,
            releases: runs(indexed, &f.releases),
            last: last.version.clone(),
        };
        // One module forwarded to two places over time: the newest word.
        match out.iter_mut().find(|m| m.module == found.module) {
            Some(seen) if seen.last < found.last => *seen = found,
            Some(_) => {}
            None => out.push(found),
        }
    }
    out.sort_by(|a, b| a.module.cmp(&b.module));
    out
}

/// A keyword a function accepted under an old name, warning when it was used.
#[derive(Debug, Clone, Serialize)]
pub struct RenamedKeyword {
    /// The function or method's definition.
    pub path: ApiPath,
    pub old: String,
    pub new: String,
    pub message: String,
    /// The indexed releases that accepted both names and warned.
    pub releases: Vec<VersionRun>,
    /// The first indexed release after those whose recorded signature has no `old` any more.
    pub old_removed_in: Option<Version>,
}

impl Store {
    /// The removed APIs whose bodies were shims, and the renamed keywords, of distribution
    /// `dist_id`.
    pub(super) fn shim_moves(
        &self,
        dist_id: DistId,
        facts: &[StoredFact],
        resolver: &mut Resolver<'_>,
        indexed: &[&ReleaseRow],
    ) -> Result<(Vec<Shimmed>, Vec<RenamedKeyword>), StoreError> {
        if facts.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let slot_index: HashMap<_, usize> = indexed
            .iter()
            .enumerate()
            .map(|(i, r)| (r.slot, i))
            .collect();
        let mut by_path: Vec<(&str, Vec<&StoredFact>)> = Vec::new();
        for fact in facts {
            match by_path.last_mut() {
                Some((path, list)) if *path == fact.path => list.push(fact),
                _ => by_path.push((&fact.path, vec![fact])),
            }
        }
        let mut shims = Vec::new();
        let mut renames = Vec::new();
        let mut aliases_wanted: Vec<(usize, String)> = Vec::new();
        for (path, list) in by_path {
            let history = self.history(resolver, path, indexed)?;
            for fact in &list {
                if let DeprecationFact::KeywordRename(r) = &fact.fact {
                    renames.extend(renamed(path, r, &fact.releases, &history, indexed));
                }
            }
            let Some(removal) = definition_removal(&history) else {
                continue;
            };
            let last_slot = indexed[removal.last_present].slot;
            // The shim its last release has, else the latest one.
            let shim = list
                .iter()
                .filter_map(|f| match &f.fact {
                    DeprecationFact::Shim(s) => Some((s, &f.releases)),
                    _ => None,
                })
                .max_by_key(|(_, releases)| {
                    (
                        releases.contains(last_slot),
                        releases
                            .iter()
                            .filter_map(|s| slot_index.get(&s).copied())
                            .max(),
                    )
                });
            let Some((shim, releases)) = shim else {
                continue;
            };
            let candidate = named_successor(&shim.message);
            let evidence = match (&shim.template, candidate) {
                (Some(t), candidate) => ShimEvidence::Shim {
                    template: t.expr.clone(),
                    params: t.params.clone(),
                    globals: t.globals.clone(),
                    candidate,
                },
                (None, Some(candidate)) => ShimEvidence::NamedInWarning { candidate },
                (None, None) => continue,
            };
            let Ok(old) = ApiPath::new(path) else {
                continue;
            };
            aliases_wanted.push((shims.len(), path.to_string()));
            shims.push(Shimmed {
                old,
                also_as: Vec::new(),
                evidence,
                category: shim.category.clone(),
                message: shim.message.clone(),
                releases: runs(indexed, releases),
                last: indexed[removal.last_present].version.clone(),
                removed_in: indexed[removal.removed_in].version.clone(),
                unknown_after: runs(
                    indexed,
                    &history
                        .iter()
                        .enumerate()
                        .skip(removal.removed_in)
                        .filter(|(_, s)| **s == Seen::Unknown)
                        .map(|(i, _)| indexed[i].slot)
                        .collect(),
                ),
            });
        }
        let last_slots: Vec<_> = shims
            .iter()
            .map(|s| indexed.iter().find(|r| r.version == s.last).map(|r| r.slot))
            .collect();
        let public = self.public_aliases(
            dist_id,
            aliases_wanted
                .iter()
                .zip(&last_slots)
                .filter_map(|((_, path), slot)| Some((path.as_str(), (*slot)?))),
        )?;
        // Paths the newest release still has are not removed, whatever they reached once
        // (`numpy.load`, which reached `numpy.core.numeric.load` in 1.16 and is numpy's own
        // `load` since).
        let latest = indexed.last().map(|r| r.slot);
        for (i, path) in &aliases_wanted {
            let Some(found) = public.get(path.as_str()) else {
                continue;
            };
            for alias in found {
                let present = resolver.resolve(alias.as_str())?.presence();
                if !latest.is_some_and(|l| present.contains(l)) {
                    shims[*i].also_as.push(alias.clone());
                }
            }
        }
        shims.sort_by(|a, b| a.old.cmp(&b.old));
        renames.sort_by(|a, b| (&a.path, &a.old).cmp(&(&b.path, &b.old)));
        Ok((shims, renames))
    }

    /// For each (definition path, release): the public paths that reach it there through
    /// an alias of itself or, for a member, of its class or a direct subclass
    /// (`pandas.DataFrame.as_matrix` for `pandas.core.generic.NDFrame.as_matrix`).
    fn public_aliases<'p>(
        &self,
        dist_id: DistId,
        wanted: impl Iterator<Item = (&'p str, super::Slot)>,
    ) -> Result<HashMap<&'p str, Vec<ApiPath>>, StoreError> {
        let dictionary = self.path_dictionary(dist_id)?;
        // The id of each path or owner asked about, with the member name to add.
        let mut asked: HashMap<i64, Vec<Asked<'p>>> = HashMap::new();
        for (path, slot) in wanted {
            if let Some(id) = dictionary.get(path) {
                asked.entry(id).or_default().push((path, slot, None));
            }
            if let Some((owner, member)) = path.rsplit_once('.') {
                if let Some(id) = dictionary.get(owner) {
                    asked
                        .entry(id)
                        .or_default()
                        .push((path, slot, Some(member)));
                }
            }
        }
        let mut out: HashMap<&'p str, Vec<ApiPath>> = HashMap::new();
        if asked.is_empty() {
            return Ok(out);
        }
        let err = self.err();
        let add = |out: &mut HashMap<&'p str, Vec<ApiPath>>, path: &'p str, full: String| {
            if full.split('.').any(is_private) {
                return;
            }
            if let Ok(p) = ApiPath::new(&full) {
                let list = out.entry(path).or_default();
                if !list.contains(&p) {
                    list.push(p);
                }
            }
        };
        // A member is inherited: its direct subclasses of the release reach it too
        // (`DataFrame.as_matrix` for `NDFrame.as_matrix`), as do their aliases.
        let mut subclasses: Vec<(i64, &'p str, super::Slot, &'p str)> = Vec::new();
        self.each_sealed(&CLASS_BASES, BASES_OF_DISTRIBUTION, [dist_id], |r| {
            let base: i64 = r.get(1).map_err(&err)?;
            let Some(targets) = asked.get(&base) else {
                return Ok(());
            };
            let class: i64 = r.get(0).map_err(&err)?;
            let sets: ReleaseSet = self.set_at(r, 2)?.union(&self.set_at(r, 3)?);
            for &(path, slot, member) in targets {
                if let (Some(m), true) = (member, sets.contains(slot)) {
                    subclasses.push((class, path, slot, m));
                }
            }
            Ok(())
        })?;
        for (class, path, slot, member) in subclasses {
            if let Some(class_path) = dictionary.path(class) {
                add(&mut out, path, format!("{class_path}.{member}"));
            }
            asked
                .entry(class)
                .or_default()
                .push((path, slot, Some(member)));
        }
        self.each_sealed(&ALIASES, ALIASES_OF_DISTRIBUTION, [dist_id], |r| {
            let canonical: i64 = r.get(1).map_err(&err)?;
            let Some(targets) = asked.get(&canonical) else {
                return Ok(());
            };
            let api: i64 = r.get(0).map_err(&err)?;
            let sets: ReleaseSet = self.set_at(r, 2)?.union(&self.set_at(r, 3)?);
            let Some(alias) = dictionary.path(api) else {
                return Ok(());
            };
            for &(path, slot, member) in targets {
                if !sets.contains(slot) {
                    continue;
                }
                let full = match member {
                    Some(m) => format!("{alias}.{m}"),
                    None => alias.to_string(),
                };
                add(&mut out, path, full);
            }
            Ok(())
        })?;
        for list in out.values_mut() {
            // Shortest first: the path users write.
            list.sort_by(|a, b| {
                (a.as_str().matches('.').count(), a.as_str())
                    .cmp(&(b.as_str().matches('.').count(), b.as_str()))
            });
        }
        Ok(out)
    }
}

/// A definition path asked about, the release, and the member name to add to a path that
/// reaches its owner (`None`: the path reaches the definition itself).
type Asked<'p> = (&'p str, super::Slot, Option<&'p str>);

/// The bases of one distribution's classes, sealed columns first.
const BASES_OF_DISTRIBUTION: &str = "SELECT t.class_id, t.base_id, t.releases, t.runtime, t.seal \
     FROM class_bases t JOIN apis a ON a.id = t.class_id WHERE a.dist_id = ?1";

/// The aliases of one distribution's APIs, sealed columns first.
const ALIASES_OF_DISTRIBUTION: &str =
    "SELECT t.api_id, t.canonical_id, t.releases, t.runtime, t.seal \
     FROM aliases t JOIN apis a ON a.id = t.api_id WHERE a.dist_id = ?1";

/// Where a shim's definition left: its last release, and the next indexed one, where it is
/// not defined (absent, or unknown when something else may serve the name: pandas'
/// `NDFrame.__getattr__` after `as_matrix` went); none when the newest release has it.
fn definition_removal(history: &[Seen]) -> Option<pairing::Removal> {
    let last_present = history
        .iter()
        .rposition(|s| matches!(s, Seen::Present { .. }))?;
    let removed_in = last_present + 1;
    (removed_in < history.len()).then_some(pairing::Removal {
        last_present,
        removed_in,
    })
}

fn renamed(
    path: &str,
    rename: &crate::bank::extract::KeywordRename,
    releases: &ReleaseSet,
    history: &[Seen],
    indexed: &[&ReleaseRow],
) -> Option<RenamedKeyword> {
    let last = indexed.iter().rposition(|r| releases.contains(r.slot));
    let old_removed_in = last.and_then(|last| {
        history
            .iter()
            .enumerate()
            .skip(last + 1)
            .find_map(|(i, seen)| {
                let signature: Signature = seen.signature()?.parse().ok()?;
                let has_old = signature.names().any(|n| n == rename.old);
                (!has_old).then_some(i)
            })
            .map(|i| indexed[i].version.clone())
    });
    Some(RenamedKeyword {
        path: ApiPath::new(path).ok()?,
        old: rename.old.clone(),
        new: rename.new.clone(),
        message: rename.message.clone(),
        releases: runs(indexed, releases),
        old_removed_in,
    })
}

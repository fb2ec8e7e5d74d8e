//! Which releases of one distribution have an API, a class member or a keyword parameter, as
//! four disjoint release sets: present, unknown, absent and not indexed.
//!
//! These are the answers `query_api` prints, kept as [`ReleaseSet`]s for the resolver to
//! intersect. "Unknown" (static reading cannot rule the name out, introspection has not
//! settled it) and "not indexed" (the bank has not read the release) never count as absent.

use std::str::FromStr;

use std::collections::HashMap;
use std::rc::Rc;

use super::path_index::PathIndex;
use super::resolve::{ApiRowInfo, Resolved, Resolver};
use super::seal::{sealed_row, select_sealed, APIS};
use super::{DistId, ReleaseSet, ReleaseStatus, Store, StoreError};
use crate::bank::extract::{ParamKind, Signature};
use crate::bank::flow::ApiKind;

/// How the registered releases of a distribution answer one question. The four sets are
/// disjoint and together make up the registered releases.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Presence {
    pub present: ReleaseSet,
    /// Indexed releases where it was not found but may exist.
    pub unknown: ReleaseSet,
    /// Indexed releases that lack it.
    pub absent: ReleaseSet,
    /// Registered releases the bank has not indexed: nothing is known of them.
    pub not_indexed: ReleaseSet,
}

impl Presence {
    /// Splits `registered` given what was found: `present` and `unknown` are cut to the
    /// indexed releases (and `unknown` to those without `present`), the rest of the indexed
    /// releases are absent.
    pub fn split(
        registered: &ReleaseSet,
        indexed: &ReleaseSet,
        present: &ReleaseSet,
        unknown: &ReleaseSet,
    ) -> Self {
        let present = present.intersection(indexed);
        let unknown = unknown.intersection(indexed).difference(&present);
        Self {
            absent: indexed.difference(&present).difference(&unknown),
            not_indexed: registered.difference(indexed),
            present,
            unknown,
        }
    }

    /// The answer once `out` (indexed releases a run showed lacking it) is known absent.
    pub fn rule_out(&mut self, out: &ReleaseSet) {
        let out = out.difference(&self.not_indexed);
        self.present = self.present.difference(&out);
        self.unknown = self.unknown.difference(&out);
        self.absent = self.absent.union(&out);
    }

    /// The answer once a run showed `out` lacking it: absent there, indexed or not (a run is
    /// stronger than anything the bank read).
    pub fn seen_lacking(&mut self, out: &ReleaseSet) {
        self.present = self.present.difference(out);
        self.unknown = self.unknown.difference(out);
        self.not_indexed = self.not_indexed.difference(out);
        self.absent = self.absent.union(out);
    }

    /// The answer once another reading of the same question could not tell for `open`:
    /// those of its absent releases are unknown again.
    pub fn keep_unknown(&mut self, open: &ReleaseSet) {
        let reopened = self.absent.intersection(open);
        self.absent = self.absent.difference(&reopened);
        self.unknown = self.unknown.union(&reopened);
    }

    /// The releases this answer cannot rule out: present, unknown or not indexed.
    pub fn possible(&self) -> ReleaseSet {
        self.present.union(&self.unknown).union(&self.not_indexed)
    }

    /// Whether some indexed release has it or may have it. When none does, the bank does not
    /// know the name for this distribution at all.
    pub fn known(&self) -> bool {
        !self.present.is_empty() || !self.unknown.is_empty()
    }
}

/// What presence queries read of a whole distribution, once per store (until a writer
/// changes the bank): a notebook asks about dozens of names of the same distribution.
#[derive(Debug)]
pub(crate) struct DistFacts {
    releases: Releases,
    /// Releases where some class is open to static reading, read on first need (a scan of
    /// the distribution's classes).
    open_classes: std::cell::OnceCell<ReleaseSet>,
}

/// The registered and the indexed releases of a distribution, and which were introspected.
#[derive(Debug)]
struct Releases {
    registered: ReleaseSet,
    indexed: ReleaseSet,
    introspected: ReleaseSet,
}

/// The most ids one batched read names (SQLite allows thousands of parameters; this keeps
/// each statement small).
const BATCH: usize = 256;

/// The sizes batched reads are padded to.
const BATCH_SIZES: [usize; 4] = [4, 16, 64, BATCH];

impl Store {
    fn dist_facts(&self, dist_id: DistId) -> Result<Rc<DistFacts>, StoreError> {
        if let Some(found) = self.dist_facts.borrow().get(&dist_id) {
            return Ok(found.clone());
        }
        let rows = self.release_facts(dist_id)?;
        let indexed = || rows.iter().filter(|r| r.status == ReleaseStatus::Indexed);
        let facts = Rc::new(DistFacts {
            releases: Releases {
                registered: rows.iter().map(|r| r.slot).collect(),
                indexed: indexed().map(|r| r.slot).collect(),
                introspected: indexed()
                    .filter(|r| r.introspected)
                    .map(|r| r.slot)
                    .collect(),
            },
            open_classes: std::cell::OnceCell::new(),
        });
        self.dist_facts.borrow_mut().insert(dist_id, facts.clone());
        Ok(facts)
    }

    /// The `apis` rows of `ids` (those that exist), read in batches.
    pub(super) fn api_rows(&self, ids: &[i64]) -> Result<HashMap<i64, ApiRowInfo>, StoreError> {
        let err = self.err();
        let mut out = HashMap::with_capacity(ids.len());
        for batch in ids.chunks(BATCH) {
            // A few statement sizes, each prepared once and kept: the batch is padded with its
            // last id (`IN` reads a row once however often it is named).
            let size = BATCH_SIZES
                .into_iter()
                .find(|&n| n >= batch.len())
                .unwrap_or(BATCH);
            let batch: Vec<i64> = batch
                .iter()
                .copied()
                .chain(std::iter::repeat(
                    *batch.last().expect("chunks are not empty"),
                ))
                .take(size)
                .collect();
            let marks = vec!["?"; batch.len()].join(",");
            let sql = format!(
                "SELECT {} FROM apis WHERE id IN ({marks})",
                sealed_row!(apis)
            );
            // Release sets decoded where SQLite holds them, not copied out first.
            self.each_sealed(&APIS, &sql, rusqlite::params_from_iter(batch), |r| {
                let id: i64 = r.get(0).map_err(&err)?;
                let kind: i64 = r.get(2).map_err(&err)?;
                out.insert(
                    id,
                    ApiRowInfo {
                        id,
                        kind: ApiKind::from_code(kind),
                        static_set: self.set_at(r, 3)?,
                        runtime_set: self.set_at(r, 4)?,
                        open_set: self.set_at(r, 5)?,
                    },
                );
                Ok(())
            })?;
        }
        Ok(out)
    }

    /// Where each of `paths` is found in the distribution, through aliases and base classes
    /// as Python finds an attribute. A module on the path that raises on import (a shim)
    /// provides nothing where it raises.
    pub fn api_presence(
        &self,
        dist_id: DistId,
        paths: &[&str],
    ) -> Result<Vec<Presence>, StoreError> {
        let facts = self.dist_facts(dist_id)?;
        let releases = &facts.releases;
        let mut resolver = Resolver::new(self, dist_id);
        paths
            .iter()
            .map(|path| {
                let resolved = resolver.resolve(path)?;
                let raises = raising_modules(&mut resolver, path)?;
                Ok(Presence::split(
                    &releases.registered,
                    &releases.indexed,
                    &resolved.presence().difference(&raises),
                    &resolved.unknown().difference(&raises),
                ))
            })
            .collect()
    }

    /// The public paths of the members named `member` of `dist`'s classes
    /// (`pandas.DataFrame.as_matrix`, ...), shortest first, at most `limit`: what a method
    /// called on a value the distribution returned may be.
    pub fn class_members_named(
        &self,
        dist: &crate::names::DistName,
        member: &str,
        limit: usize,
    ) -> Result<Vec<crate::names::ApiPath>, StoreError> {
        let Some(dist_id) = self.distribution_id(dist)? else {
            return Ok(Vec::new());
        };
        let pairs = self.path_index(dist_id)?.members_named(self, member)?;
        let owner_ids: Vec<i64> = pairs.iter().map(|&(owner, _)| owner).collect();
        let owners = self.api_rows(&owner_ids)?;
        let dictionary = self.path_dictionary(dist_id)?;
        let mut out: Vec<crate::names::ApiPath> = pairs
            .iter()
            .filter(|(owner, _)| owners.get(owner).is_some_and(|o| o.kind == ApiKind::Class))
            .filter_map(|(_, id)| dictionary.path(*id))
            .filter(|p| !p.split('.').any(crate::bank::extract::is_private))
            .filter_map(|p| crate::names::ApiPath::new(p).ok())
            .collect();
        out.sort_by(|a, b| {
            (a.as_str().matches('.').count(), a.as_str())
                .cmp(&(b.as_str().matches('.').count(), b.as_str()))
        });
        out.dedup();
        out.truncate(limit);
        Ok(out)
    }

    /// Where some class of the distribution has a member named `member` (`ix`): for a value
    /// whose type is unknown but comes from this distribution. It is unknown where a class
    /// static reading cannot list (members set by computed `setattr`, bases outside the
    /// release) and introspection, which lists every public class's members, did not run.
    pub fn member_presence(&self, dist_id: DistId, member: &str) -> Result<Presence, StoreError> {
        let facts = self.dist_facts(dist_id)?;
        let releases = &facts.releases;
        // Every `Owner.member` API whose owner is an API too (from the member index, without
        // reading paths), then the owners' rows and the members' rows each in a few batched
        // reads (a common member such as `shape` has thousands of owners in a large
        // distribution).
        let index = self.path_index(dist_id)?;
        let pairs = index.members_named(self, member)?;
        let owner_ids: Vec<i64> = pairs.iter().map(|&(owner, _)| owner).collect();
        let owners = self.api_rows(&owner_ids)?;
        let pairs: Vec<(&ApiRowInfo, i64)> = pairs
            .iter()
            .filter_map(|(owner, id)| {
                let class = owners.get(owner)?;
                (class.kind == ApiKind::Class).then_some((class, *id))
            })
            .collect();
        let member_ids: Vec<i64> = pairs.iter().map(|&(_, id)| id).collect();
        let members = self.api_rows(&member_ids)?;
        let mut present = ReleaseSet::new();
        for (class, id) in pairs {
            if let Some(row) = members.get(&id) {
                present = present.union(&row.presence().intersection(&class.presence()));
            }
        }
        // Open classes can only make unknown the indexed releases that lack the member and
        // were not introspected: when there are none, they need not be read.
        let undecided = releases
            .indexed
            .difference(&present)
            .difference(&releases.introspected);
        let open = if undecided.is_empty() {
            ReleaseSet::new()
        } else {
            self.open_classes(dist_id, &facts, &index)?
                .difference(&releases.introspected)
        };
        Ok(Presence::split(
            &releases.registered,
            &releases.indexed,
            &present,
            &open,
        ))
    }

    /// Where API `path` accepts keyword argument `keyword`: its definition's signature there
    /// names it (positional-or-keyword or keyword-only). A signature with `**kwargs`, a
    /// definition without a recorded signature (a class inheriting `__init__`), or an API
    /// that is itself unknown leave the keyword unknown.
    pub fn keyword_presence(
        &self,
        dist_id: DistId,
        path: &str,
        keyword: &str,
    ) -> Result<Presence, StoreError> {
        let facts = self.dist_facts(dist_id)?;
        let releases = &facts.releases;
        let mut resolver = Resolver::new(self, dist_id);
        let resolved = resolver.resolve(path)?;
        let api_present = resolved.presence();
        let mut accepts = ReleaseSet::new();
        let mut open = ReleaseSet::new();
        let mut with_signature = ReleaseSet::new();
        for (text, set) in self.definition_signatures(&resolved)? {
            with_signature = with_signature.union(&set);
            match Signature::from_str(&text) {
                Ok(signature) if names_keyword(&signature, keyword) => {
                    accepts = accepts.union(&set);
                }
                Ok(signature)
                    if !signature
                        .params
                        .iter()
                        .any(|p| p.kind == ParamKind::VarKeyword) => {}
                _ => open = open.union(&set),
            }
        }
        let present = accepts.intersection(&api_present);
        let unknown = resolved
            .unknown()
            .union(&api_present.difference(&with_signature))
            .union(&open.intersection(&api_present));
        Ok(Presence::split(
            &releases.registered,
            &releases.indexed,
            &present,
            &unknown,
        ))
    }

    /// The releases where some class of the distribution is open to static reading (and
    /// introspection did not list it): as writers stored it, else from a scan.
    fn open_classes(
        &self,
        dist_id: DistId,
        facts: &DistFacts,
        index: &PathIndex,
    ) -> Result<ReleaseSet, StoreError> {
        if let Some(found) = facts.open_classes.get() {
            return Ok(found.clone());
        }
        let found = match self.stored_open_classes(dist_id)? {
            Some(stored) => stored,
            None => self.read_open_classes(dist_id, index)?,
        };
        Ok(facts.open_classes.get_or_init(|| found).clone())
    }

    /// A scan of the distribution's APIs. Its rows were mostly added together, so when its ids
    /// (the dictionary's) lie close, the table is read in id order over that range, about
    /// twice as fast as following the distribution's index to each row; otherwise through the
    /// index.
    pub(super) fn read_open_classes(
        &self,
        dist_id: DistId,
        index: &PathIndex,
    ) -> Result<ReleaseSet, StoreError> {
        let close = index
            .id_range()
            .filter(|(first, last)| last.abs_diff(*first) / 2 <= index.len() as u64);
        let kind = ApiKind::Class.code();
        let mut out = ReleaseSet::new();
        let mut each = |r: &rusqlite::Row<'_>| {
            out = out.union(&self.set_at(r, 5)?.difference(&self.set_at(r, 4)?));
            Ok(())
        };
        match close {
            // `+dist_id` keeps SQLite from taking the index for this term.
            Some((first, last)) => self.each_sealed(
                &APIS,
                select_sealed!(
                    apis,
                    "WHERE id BETWEEN ?3 AND ?4 AND +dist_id = ?1
                     AND kind = ?2 AND open != x''"
                ),
                rusqlite::params![dist_id, kind, first, last],
                &mut each,
            )?,
            None => {
                self.check_apis_index(dist_id)?;
                self.each_sealed(
                    &APIS,
                    select_sealed!(apis, "WHERE dist_id = ?1 AND kind = ?2 AND open != x''"),
                    rusqlite::params![dist_id, kind],
                    &mut each,
                )?
            }
        }
        Ok(out)
    }

    /// Each signature text of the definitions of a resolved API, with the releases in which it
    /// is that definition's.
    pub(super) fn definition_signatures(
        &self,
        resolved: &Resolved,
    ) -> Result<Vec<(String, ReleaseSet)>, StoreError> {
        let mut out = Vec::new();
        for (def_id, _, def_set) in &resolved.definitions {
            for (text, releases) in self.signatures_of_api(*def_id)? {
                let set = releases.intersection(def_set);
                if !set.is_empty() {
                    out.push((text, set));
                }
            }
        }
        Ok(out)
    }
}

/// Whether a call may pass `keyword` by name to a function of this signature.
fn names_keyword(signature: &Signature, keyword: &str) -> bool {
    signature.params.iter().any(|p| {
        p.name == keyword && matches!(p.kind, ParamKind::Positional | ParamKind::KeywordOnly)
    })
}

/// The releases where a module on `path` (itself included) raises when imported.
pub(super) fn raising_modules(
    resolver: &mut Resolver<'_>,
    path: &str,
) -> Result<ReleaseSet, StoreError> {
    let mut raises = ReleaseSet::new();
    let mut prefix = path;
    loop {
        raises = raises.union(&resolver.module_facts(prefix)?.raises);
        match prefix.rsplit_once('.') {
            Some((head, _)) => prefix = head,
            None => return Ok(raises),
        }
    }
}

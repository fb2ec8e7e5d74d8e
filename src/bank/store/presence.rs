//! Which releases of one distribution have an API, a class member or a keyword parameter, as
//! four disjoint release sets: present, unknown, absent and not indexed.
//!
//! These are the answers `query_api` prints, kept as [`ReleaseSet`]s for the resolver to
//! intersect. "Unknown" (static reading cannot rule the name out, introspection has not
//! settled it) and "not indexed" (the bank has not read the release) never count as absent.

use std::str::FromStr;

use super::resolve::{Resolved, Resolver};
use super::{DistId, ReleaseSet, Store, StoreError};
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

/// The registered and the indexed releases of a distribution, and which were introspected.
struct Releases {
    registered: ReleaseSet,
    indexed: ReleaseSet,
    introspected: ReleaseSet,
}

impl Store {
    fn release_sets(&self, dist_id: DistId) -> Result<Releases, StoreError> {
        let rows = self.releases(dist_id)?;
        let indexed = super::query::indexed(&rows);
        Ok(Releases {
            registered: super::query::slots(&rows),
            indexed: super::query::slots(indexed.iter().copied()),
            introspected: super::query::slots(indexed.into_iter().filter(|r| r.is_introspected())),
        })
    }

    /// Where each of `paths` is found in the distribution, through aliases and base classes
    /// as Python finds an attribute. A module on the path that raises on import (a shim)
    /// provides nothing where it raises.
    pub fn api_presence(
        &self,
        dist_id: DistId,
        paths: &[&str],
    ) -> Result<Vec<Presence>, StoreError> {
        let releases = self.release_sets(dist_id)?;
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

    /// Where some class of the distribution has a member named `member` (`ix`): for a value
    /// whose type is unknown but comes from this distribution. It is unknown where a class
    /// static reading cannot list (members set by computed `setattr`, bases outside the
    /// release) and introspection, which lists every public class's members, did not run.
    pub fn member_presence(&self, dist_id: DistId, member: &str) -> Result<Presence, StoreError> {
        let releases = self.release_sets(dist_id)?;
        let suffix = format!(".{member}");
        let candidates: Vec<String> = self
            .path_dictionary(dist_id)?
            .iter()
            .filter(|(path, _)| path.ends_with(&suffix))
            .map(|(path, _)| path.to_string())
            .collect();
        let mut resolver = Resolver::new(self, dist_id);
        let mut present = ReleaseSet::new();
        for path in &candidates {
            let owner = &path[..path.len() - suffix.len()];
            let (Some(class), Some(row)) = (resolver.row(owner)?, resolver.row(path)?) else {
                continue;
            };
            if class.kind == ApiKind::Class {
                present = present.union(&row.presence().intersection(&class.presence()));
            }
        }
        let open = self
            .open_classes(dist_id)?
            .difference(&releases.introspected);
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
        let releases = self.release_sets(dist_id)?;
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

    /// The releases where some class of the distribution is open to static reading.
    fn open_classes(&self, dist_id: DistId) -> Result<ReleaseSet, StoreError> {
        let err = self.err();
        let rows: Vec<(Vec<u8>, Vec<u8>)> = self
            .conn()
            .prepare_cached(
                "SELECT open, runtime FROM apis WHERE dist_id = ?1 AND kind = ?2 AND open != x''",
            )
            .map_err(&err)?
            .query_map(rusqlite::params![dist_id, ApiKind::Class.code()], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .map_err(&err)?
            .collect::<Result<_, _>>()
            .map_err(&err)?;
        let mut out = ReleaseSet::new();
        for (open, runtime) in rows {
            out = out.union(
                &self
                    .decode_set(&open)?
                    .difference(&self.decode_set(&runtime)?),
            );
        }
        Ok(out)
    }

    /// Each signature text of the definitions of a resolved API, with the releases in which it
    /// is that definition's.
    pub(super) fn definition_signatures(
        &self,
        resolved: &Resolved,
    ) -> Result<Vec<(String, ReleaseSet)>, StoreError> {
        let err = self.err();
        let mut stmt = self
            .conn()
            .prepare_cached(
                "SELECT s.text, l.releases FROM api_signatures l JOIN signatures s ON s.id = l.signature_id
                 WHERE l.api_id = ?1",
            )
            .map_err(&err)?;
        let mut out = Vec::new();
        for (def_id, _, def_set) in &resolved.definitions {
            let rows: Vec<(String, Vec<u8>)> = stmt
                .query_map([def_id], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(&err)?
                .collect::<Result<_, _>>()
                .map_err(&err)?;
            for (text, blob) in rows {
                let set = self.decode_set(&blob)?.intersection(def_set);
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
fn raising_modules(resolver: &mut Resolver<'_>, path: &str) -> Result<ReleaseSet, StoreError> {
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

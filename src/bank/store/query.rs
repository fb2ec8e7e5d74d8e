//! Reading the bank: which releases have an API or a module, and which do not.
//!
//! For every API and release the answer is one of three: present (static reading or
//! introspection found it), absent (not found, and nothing on its path hides names), or
//! unknown (not found, but its path passes through a name static reading cannot see through,
//! and introspection has not settled it). Releases registered but not indexed are a fourth
//! case, kept apart: nothing is known of them.

use std::collections::{BTreeMap, HashMap};

use pep440_rs::Version;
use serde::Serialize;

use super::registry::{NoSources, ReleaseRow, ReleaseStatus};
use super::release_set::ReleaseSet;
use super::resolve::Resolver;
use super::seal::{select_sealed, IMPORT_NAMES, MODULES};
use super::{DistId, ReleaseId, Slot, Store, StoreError};
use crate::bank::flow::ApiKind;
use crate::names::DistName;

/// An unbroken stretch of indexed releases, oldest and newest inclusive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionRun {
    pub first: Version,
    pub last: Version,
}

impl VersionRun {
    /// Whether `v` is one of the run's releases (or between them).
    pub fn contains(&self, v: &Version) -> bool {
        self.first <= *v && *v <= self.last
    }

    /// Whether `v` is in one of `runs`.
    pub fn any_contains(runs: &[VersionRun], v: &Version) -> bool {
        runs.iter().any(|r| r.contains(v))
    }
}

/// Where an API's definition lives, and in which releases.
#[derive(Debug, Clone, Serialize)]
pub struct CanonicalSpan {
    pub path: String,
    pub releases: Vec<VersionRun>,
}

/// The first release with a new signature.
#[derive(Debug, Clone, Serialize)]
pub struct SignatureChange {
    pub version: Version,
    pub signature: String,
}

/// A name on an API's path that static reading cannot see through, and the releases where it
/// leaves the API unknown.
#[derive(Debug, Clone, Serialize)]
pub struct OpenSpan {
    pub through: String,
    pub releases: Vec<VersionRun>,
}

/// A module on an API's path that raises when imported (a shim), where it does.
#[derive(Debug, Clone, Serialize)]
pub struct RaisingModule {
    pub module: String,
    pub message: Option<String>,
    pub releases: Vec<VersionRun>,
}

/// What the bank knows about one API of one distribution.
#[derive(Debug, Clone, Serialize)]
pub struct ApiReport {
    pub distribution: DistName,
    /// The name as the index spells it (`Pillow`), where the bank knows it.
    pub display_name: Option<String>,
    pub path: String,
    pub kind: ApiKind,
    /// Indexed releases of the distribution (the releases the answer is about).
    pub indexed_releases: usize,
    /// Releases that have the API, by static reading or at run time.
    pub present: Vec<VersionRun>,
    /// Indexed releases where it was not found but may exist: static reading cannot see
    /// through a name on its path there (see `unknown_through`), and introspection has not
    /// settled it.
    pub unknown: Vec<VersionRun>,
    /// Indexed releases that lack it.
    pub absent: Vec<VersionRun>,
    /// Releases registered but not indexed (pending or failed): nothing is known of them.
    pub not_indexed: Vec<Version>,
    pub first: Option<Version>,
    pub last: Option<Version>,
    /// The newest indexed release, for telling "removed" from "still there".
    pub latest_indexed: Option<Version>,
    pub static_present: Vec<VersionRun>,
    pub runtime_present: Vec<VersionRun>,
    pub unknown_through: Vec<OpenSpan>,
    pub raising_modules: Vec<RaisingModule>,
    /// The definition each alias resolves to; empty when the API is itself the definition.
    pub canonical: Vec<CanonicalSpan>,
    pub signature_changes: Vec<SignatureChange>,
}

/// Which releases of a distribution provide a module or import name.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleReport {
    pub distribution: DistName,
    /// The name as the index spells it (`Pillow`), where the bank knows it.
    pub display_name: Option<String>,
    pub module: String,
    pub indexed_releases: usize,
    pub present: Vec<VersionRun>,
    pub first: Option<Version>,
    pub last: Option<Version>,
    /// Releases where the module is compiled with no stub: its names are unknown statically.
    pub opaque: Vec<VersionRun>,
    /// Releases where importing it raises, and what.
    pub raises: Vec<VersionRun>,
    pub raises_message: Option<String>,
    /// Releases where introspection found it in `sys.modules` (made at run time or not).
    pub runtime: Vec<VersionRun>,
    /// Releases that are metapackages: no code of their own, only requirements on the
    /// distributions named in `metapackage_of`, which provide the module (qiskit 0.x requires
    /// qiskit-terra).
    pub metapackage: Vec<VersionRun>,
    pub metapackage_of: Vec<String>,
}

/// The releases a set covers, grouped into runs of consecutive indexed releases.
pub(crate) fn runs(indexed: &[&ReleaseRow], set: &ReleaseSet) -> Vec<VersionRun> {
    let mut out: Vec<VersionRun> = Vec::new();
    let mut open = false;
    for r in indexed {
        if set.contains(r.slot) {
            match out.last_mut() {
                Some(run) if open => run.last = r.version.clone(),
                _ => out.push(VersionRun {
                    first: r.version.clone(),
                    last: r.version.clone(),
                }),
            }
            open = true;
        } else {
            open = false;
        }
    }
    out
}

pub(crate) fn indexed(rows: &[ReleaseRow]) -> Vec<&ReleaseRow> {
    rows.iter()
        .filter(|r| r.status == ReleaseStatus::Indexed)
        .collect()
}

/// The slots of `rows`.
pub(crate) fn slots<'r>(rows: impl IntoIterator<Item = &'r ReleaseRow>) -> ReleaseSet {
    let mut set = ReleaseSet::new();
    for r in rows {
        set.insert(r.slot);
    }
    set
}

fn first_last(runs: &[VersionRun]) -> (Option<Version>, Option<Version>) {
    (
        runs.first().map(|r| r.first.clone()),
        runs.last().map(|r| r.last.clone()),
    )
}

impl Store {
    pub(crate) fn dist_names(&self) -> Result<HashMap<DistId, DistName>, StoreError> {
        Ok(self.distributions()?.into_iter().collect())
    }

    /// Every distribution's record of API `path` (several distributions can ship the same
    /// module, e.g. `opencv-python` and `opencv-contrib-python`), found through aliases and
    /// base classes where the path is not stored as such. A distribution is reported when
    /// some indexed release has the API or may have it.
    pub fn query_api(&self, path: &str) -> Result<Vec<ApiReport>, StoreError> {
        let names = self.dist_names()?;
        let mut reports = Vec::new();
        for dist_id in self.candidate_distributions(path)? {
            let mut resolver = Resolver::new(self, dist_id);
            let resolved = resolver.resolve(path)?;
            let rows = self.releases(dist_id)?;
            let indexed = indexed(&rows);
            let indexed_set = slots(indexed.iter().copied());
            let presence = resolved.presence().intersection(&indexed_set);
            let unknown = resolved.unknown().intersection(&indexed_set);
            if presence.is_empty() && unknown.is_empty() {
                continue;
            }
            let absent = indexed_set.difference(&presence).difference(&unknown);
            let present = runs(&indexed, &presence);
            let (first, last) = first_last(&present);

            let kind = match resolver.row(path)? {
                Some(row) if row.kind != ApiKind::Unknown => row.kind,
                other => {
                    let mut kind = other.map_or(ApiKind::Unknown, |r| r.kind);
                    for (_, def, _) in &resolved.definitions {
                        if let Some(row) = resolver.row(def)? {
                            if row.kind != ApiKind::Unknown {
                                kind = row.kind;
                                break;
                            }
                        }
                    }
                    kind
                }
            };

            let mut canonical: Vec<CanonicalSpan> = resolved
                .definitions
                .iter()
                .filter(|(_, def, _)| def != path)
                .map(|(_, def, set)| CanonicalSpan {
                    path: def.clone(),
                    releases: runs(&indexed, set),
                })
                .filter(|c| !c.releases.is_empty())
                .collect();
            canonical.sort_by(|a, b| a.releases[0].first.cmp(&b.releases[0].first));

            let unknown_through: Vec<OpenSpan> = resolved
                .open
                .iter()
                .map(|(through, set)| OpenSpan {
                    through: through.clone(),
                    releases: runs(&indexed, &set.intersection(&unknown)),
                })
                .filter(|o| !o.releases.is_empty())
                .collect();

            // Modules on the path that raise on import, where the API is absent.
            let mut raising_modules = Vec::new();
            let mut prefix = path;
            while let Some((head, _)) = prefix.rsplit_once('.') {
                prefix = head;
                let facts = resolver.module_facts(prefix)?;
                let set = facts.raises.intersection(&absent);
                if !set.is_empty() {
                    raising_modules.push(RaisingModule {
                        module: prefix.to_string(),
                        message: facts.raises_message.clone(),
                        releases: runs(&indexed, &set),
                    });
                }
            }

            // Signatures live on definitions: each release takes its definition's.
            let signature_of = self.definition_signatures(&resolved)?;
            let mut signature_changes = Vec::new();
            let mut current: Option<&str> = None;
            for r in &indexed {
                let here = signature_of
                    .iter()
                    .find(|(_, set)| set.contains(r.slot))
                    .map(|(t, _)| t.as_str());
                if let Some(text) = here {
                    if current != Some(text) {
                        signature_changes.push(SignatureChange {
                            version: r.version.clone(),
                            signature: text.to_string(),
                        });
                    }
                    current = Some(text);
                }
            }

            reports.push(ApiReport {
                distribution: names
                    .get(&dist_id)
                    .cloned()
                    .ok_or_else(|| self.corrupt("API of an unknown distribution"))?,
                display_name: self.display_name(dist_id)?,
                path: path.to_string(),
                kind,
                indexed_releases: indexed.len(),
                present,
                unknown: runs(&indexed, &unknown),
                absent: runs(&indexed, &absent),
                not_indexed: rows
                    .iter()
                    .filter(|r| r.status != ReleaseStatus::Indexed)
                    .map(|r| r.version.clone())
                    .collect(),
                first,
                last,
                latest_indexed: indexed.last().map(|r| r.version.clone()),
                static_present: runs(&indexed, &resolved.static_set),
                runtime_present: runs(&indexed, &resolved.runtime_set),
                unknown_through,
                raising_modules,
                canonical,
                signature_changes,
            });
        }
        reports.sort_by(|a, b| a.distribution.cmp(&b.distribution));
        Ok(reports)
    }

    /// The distributions that provide module (or import name) `module`, and in which releases.
    pub fn query_module(&self, module: &str) -> Result<Vec<ModuleReport>, StoreError> {
        let names = self.dist_names()?;
        let conn = self.conn();
        let err = self.err();
        #[derive(Default)]
        struct Found {
            releases: ReleaseSet,
            opaque: ReleaseSet,
            raises: ReleaseSet,
            raises_message: Option<String>,
            runtime: ReleaseSet,
        }
        let mut found: BTreeMap<DistId, Found> = BTreeMap::new();
        self.check_name_indexes()?;
        self.each_sealed(
            &MODULES,
            select_sealed!(modules, "WHERE path = ?1"),
            [module],
            |r| {
                found.insert(
                    r.get(0).map_err(&err)?,
                    Found {
                        releases: self.set_at(r, 2)?,
                        opaque: self.set_at(r, 3)?,
                        raises: self.set_at(r, 5)?,
                        raises_message: r.get(6).map_err(&err)?,
                        runtime: self.set_at(r, 8)?,
                    },
                );
                Ok(())
            },
        )?;
        self.each_sealed(
            &IMPORT_NAMES,
            select_sealed!(import_names, "WHERE name = ?1"),
            [module],
            |r| {
                let set = self.set_at(r, 2)?;
                let entry = found.entry(r.get(0).map_err(&err)?).or_default();
                entry.releases = entry.releases.union(&set);
                Ok(())
            },
        )?;
        // Metapackages that require a provider lead to it: their releases are listed too.
        let providers: Vec<String> = found
            .keys()
            .filter_map(|id| names.get(id).map(|n| n.as_str().to_string()))
            .collect();
        let mut metapackages: BTreeMap<DistId, (ReleaseSet, Vec<String>)> = BTreeMap::new();
        let mut stmt = conn
            .prepare_cached(
                "SELECT dist_id, slot, no_sources_detail FROM releases WHERE no_sources = ?1",
            )
            .map_err(&err)?;
        let rows: Vec<(DistId, Slot, Option<String>)> = stmt
            .query_map([NoSources::Metapackage.as_str()], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .map_err(&err)?
            .collect::<Result<_, _>>()
            .map_err(&err)?;
        for (dist_id, slot, detail) in rows {
            let required: Vec<String> = detail
                .unwrap_or_default()
                .split(", ")
                .filter(|n| providers.iter().any(|p| p == n))
                .map(str::to_string)
                .collect();
            if required.is_empty() {
                continue;
            }
            let entry = metapackages.entry(dist_id).or_default();
            entry.0.insert(slot);
            for name in required {
                if !entry.1.contains(&name) {
                    entry.1.push(name);
                }
            }
            found.entry(dist_id).or_default();
        }
        let mut reports = Vec::new();
        for (dist_id, f) in found {
            let rows = self.releases(dist_id)?;
            let indexed = indexed(&rows);
            // A module that raises on import is not provided there.
            let provided = f.releases.union(&f.runtime).difference(&f.raises);
            let present = runs(&indexed, &provided);
            let (first, last) = first_last(&present);
            reports.push(ModuleReport {
                distribution: names
                    .get(&dist_id)
                    .cloned()
                    .ok_or_else(|| self.corrupt("module of an unknown distribution"))?,
                display_name: self.display_name(dist_id)?,
                module: module.to_string(),
                indexed_releases: indexed.len(),
                present,
                first,
                last,
                opaque: runs(&indexed, &f.opaque),
                raises: runs(&indexed, &f.raises),
                raises_message: f.raises_message,
                runtime: runs(&indexed, &f.runtime.difference(&f.releases)),
                metapackage: metapackages
                    .get(&dist_id)
                    .map(|(set, _)| runs(&indexed, set))
                    .unwrap_or_default(),
                metapackage_of: metapackages
                    .get(&dist_id)
                    .map(|(_, of)| of.clone())
                    .unwrap_or_default(),
            });
        }
        Ok(reports)
    }

    /// The distribution's name as its metadata spells it, when an indexed release said.
    pub fn display_name(&self, dist_id: DistId) -> Result<Option<String>, StoreError> {
        self.conn()
            .query_row(
                "SELECT display_name FROM distributions WHERE id = ?1",
                [dist_id],
                |r| r.get(0),
            )
            .map_err(self.err())
    }
}

/// A module of one release, as introspection needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseModule {
    pub path: String,
    pub opaque: bool,
    /// Static reading cannot list all its names.
    pub dynamic: bool,
}

impl Store {
    /// The modules release `slot` of the distribution has, sorted.
    pub fn release_modules(
        &self,
        dist_id: DistId,
        slot: Slot,
    ) -> Result<Vec<ReleaseModule>, StoreError> {
        let err = self.err();
        let mut out = Vec::new();
        self.each_sealed(
            &MODULES,
            select_sealed!(modules, "WHERE dist_id = ?1 ORDER BY path"),
            [dist_id],
            |r| {
                if !self.set_at(r, 2)?.contains(slot) || self.set_at(r, 5)?.contains(slot) {
                    return Ok(());
                }
                out.push(ReleaseModule {
                    path: r.get(1).map_err(&err)?,
                    opaque: self.set_at(r, 3)?.contains(slot),
                    dynamic: self.set_at(r, 4)?.contains(slot),
                });
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// The Requires-Dist lines of a release, as its metadata wrote them.
    pub fn requires_dist(&self, release_id: ReleaseId) -> Result<Vec<String>, StoreError> {
        let err = self.err();
        let mut stmt = self
            .conn()
            .prepare_cached(
                "SELECT requirement FROM requires_dist WHERE release_id = ?1 ORDER BY requirement",
            )
            .map_err(&err)?;
        let rows = stmt
            .query_map([release_id], |r| r.get(0))
            .map_err(&err)?
            .collect::<Result<Vec<String>, _>>()
            .map_err(&err)?;
        Ok(rows)
    }

    /// The import names release `slot` provides.
    pub fn release_import_names(
        &self,
        dist_id: DistId,
        slot: Slot,
    ) -> Result<Vec<String>, StoreError> {
        let err = self.err();
        let mut out = Vec::new();
        self.each_sealed(
            &IMPORT_NAMES,
            select_sealed!(import_names, "WHERE dist_id = ?1 ORDER BY name"),
            [dist_id],
            |r| {
                if self.set_at(r, 2)?.contains(slot) {
                    out.push(r.get(1).map_err(&err)?);
                }
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// The releases where some of the distribution's answers are unknown and introspection
    /// could settle them: those with a module static reading cannot list (a `__getattr__`, a
    /// lazy or compiled module) that introspection has not imported and listed.
    pub fn releases_with_unknowns(&self, dist_id: DistId) -> Result<ReleaseSet, StoreError> {
        let err = self.err();
        let mut out = ReleaseSet::new();
        self.each_sealed(
            &MODULES,
            select_sealed!(modules, "WHERE dist_id = ?1"),
            [dist_id],
            |r| {
                // Introspection imports the public modules; a private one is seen through them.
                let path: String = r.get(1).map_err(&err)?;
                if path.split('.').any(crate::bank::extract::is_private) {
                    return Ok(());
                }
                let open = self.set_at(r, 3)?.union(&self.set_at(r, 4)?);
                out = out.union(&open.difference(&self.set_at(r, 9)?));
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// Names directly under `module` (one more segment) that any release of the distribution
    /// has: candidates to look for at run time where static reading cannot see.
    pub fn names_ever_under(
        &self,
        dist_id: DistId,
        module: &str,
    ) -> Result<Vec<String>, StoreError> {
        let prefix = format!("{module}.");
        Ok(self
            .path_dictionary(dist_id)?
            .with_prefix(&prefix)
            .filter_map(|(p, _)| {
                let rest = &p[prefix.len()..];
                (!rest.contains('.')).then(|| rest.to_string())
            })
            .collect())
    }
}

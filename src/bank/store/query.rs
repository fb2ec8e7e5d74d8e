//! Reading the bank: which releases have an API or a module, what changed between two
//! releases, and how big the bank is.

use std::collections::{BTreeMap, HashMap};

use pep440_rs::Version;
use serde::Serialize;

use super::registry::{ReleaseRow, ReleaseStatus};
use super::release_set::ReleaseSet;
use super::resolve::Resolver;
use super::writer::kind_from_code;
use super::{Store, StoreError};
use crate::bank::extract::is_private;
use crate::bank::flow::ApiKind;
use crate::names::DistName;

/// An unbroken stretch of indexed releases, oldest and newest inclusive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionRun {
    pub first: Version,
    pub last: Version,
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

/// What the bank knows about one API of one distribution.
#[derive(Debug, Clone, Serialize)]
pub struct ApiReport {
    pub distribution: DistName,
    pub path: String,
    pub kind: ApiKind,
    /// Indexed releases of the distribution (the releases the answer is about).
    pub indexed_releases: usize,
    /// Releases that have the API, by static reading or at run time.
    pub present: Vec<VersionRun>,
    pub first: Option<Version>,
    pub last: Option<Version>,
    /// The newest indexed release, for telling "removed" from "still there".
    pub latest_indexed: Option<Version>,
    pub static_present: Vec<VersionRun>,
    pub runtime_present: Vec<VersionRun>,
    /// The definition each alias resolves to; empty when the API is itself the definition.
    pub canonical: Vec<CanonicalSpan>,
    pub signature_changes: Vec<SignatureChange>,
}

/// Which releases of a distribution provide a module or import name.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleReport {
    pub distribution: DistName,
    pub module: String,
    pub indexed_releases: usize,
    pub present: Vec<VersionRun>,
    pub first: Option<Version>,
    pub last: Option<Version>,
    /// Releases where the module is compiled with no stub: its names are unknown statically.
    pub opaque: Vec<VersionRun>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffEntry {
    pub path: String,
    pub kind: ApiKind,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// APIs added, removed or changed in signature between two releases.
#[derive(Debug, Clone, Serialize)]
pub struct DiffReport {
    pub distribution: DistName,
    pub from: Version,
    pub to: Version,
    pub added: Vec<DiffEntry>,
    pub removed: Vec<DiffEntry>,
    pub changed: Vec<DiffEntry>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct BankStats {
    pub schema_version: u32,
    pub distributions: u64,
    pub releases: u64,
    pub indexed_releases: u64,
    pub failed_releases: u64,
    pub introspected_releases: u64,
    pub modules: u64,
    pub apis: u64,
    pub alias_links: u64,
    pub signatures: u64,
    /// Rows a naive bank with one row per (API, release) would hold.
    pub naive_rows: u64,
    pub bytes_on_disk: u64,
}

/// One `apis` row as read: id, kind, and both release sets.
struct RawApi {
    id: i64,
    kind: i64,
    static_blob: Vec<u8>,
    runtime_blob: Vec<u8>,
}

impl RawApi {
    fn read(r: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: r.get(0)?,
            kind: r.get(1)?,
            static_blob: r.get(2)?,
            runtime_blob: r.get(3)?,
        })
    }
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

fn indexed(rows: &[ReleaseRow]) -> Vec<&ReleaseRow> {
    rows.iter()
        .filter(|r| r.status == ReleaseStatus::Indexed)
        .collect()
}

fn first_last(runs: &[VersionRun]) -> (Option<Version>, Option<Version>) {
    (
        runs.first().map(|r| r.first.clone()),
        runs.last().map(|r| r.last.clone()),
    )
}

impl Store {
    fn dist_names(&self) -> Result<HashMap<i64, DistName>, StoreError> {
        Ok(self.distributions()?.into_iter().collect())
    }

    /// Every distribution's record of API `path` (several distributions can ship the same
    /// module, e.g. `opencv-python` and `opencv-contrib-python`), found through aliases and
    /// base classes where the path is not stored as such.
    pub fn query_api(&self, path: &str) -> Result<Vec<ApiReport>, StoreError> {
        let names = self.dist_names()?;
        let err = self.err();
        let mut reports = Vec::new();
        for dist_id in self.candidate_distributions(path)? {
            let mut resolver = Resolver::new(self, dist_id);
            let resolved = resolver.resolve(path)?;
            let presence = resolved.presence();
            if presence.is_empty() {
                continue;
            }
            let rows = self.releases(dist_id)?;
            let indexed = indexed(&rows);
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

            // Signatures live on definitions: each release takes its definition's.
            let mut signature_of: Vec<(String, ReleaseSet)> = Vec::new();
            let mut stmt = self
                .conn()
                .prepare_cached(
                    "SELECT s.text, l.releases FROM api_signatures l JOIN signatures s ON s.id = l.signature_id
                     WHERE l.api_id = ?1",
                )
                .map_err(&err)?;
            for (def_id, _, def_set) in &resolved.definitions {
                let sigs: Vec<(String, Vec<u8>)> = stmt
                    .query_map([def_id], |r| Ok((r.get(0)?, r.get(1)?)))
                    .map_err(&err)?
                    .collect::<Result<_, _>>()
                    .map_err(&err)?;
                for (text, blob) in sigs {
                    let set = self.decode_set(&blob)?.intersection(def_set);
                    if !set.is_empty() {
                        signature_of.push((text, set));
                    }
                }
            }
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
                path: path.to_string(),
                kind,
                indexed_releases: indexed.len(),
                present,
                first,
                last,
                latest_indexed: indexed.last().map(|r| r.version.clone()),
                static_present: runs(&indexed, &resolved.static_set),
                runtime_present: runs(&indexed, &resolved.runtime_set),
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
        let mut found: BTreeMap<i64, (ReleaseSet, ReleaseSet)> = BTreeMap::new();
        let mut stmt = conn
            .prepare_cached("SELECT dist_id, releases, opaque FROM modules WHERE path = ?1")
            .map_err(&err)?;
        let rows: Vec<(i64, Vec<u8>, Vec<u8>)> = stmt
            .query_map([module], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(&err)?
            .collect::<Result<_, _>>()
            .map_err(&err)?;
        for (dist_id, releases, opaque) in rows {
            found.insert(
                dist_id,
                (self.decode_set(&releases)?, self.decode_set(&opaque)?),
            );
        }
        let mut stmt = conn
            .prepare_cached("SELECT dist_id, releases FROM import_names WHERE name = ?1")
            .map_err(&err)?;
        let rows: Vec<(i64, Vec<u8>)> = stmt
            .query_map([module], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(&err)?
            .collect::<Result<_, _>>()
            .map_err(&err)?;
        for (dist_id, releases) in rows {
            let set = self.decode_set(&releases)?;
            let entry = found.entry(dist_id).or_default();
            entry.0 = entry.0.union(&set);
        }
        let mut reports = Vec::new();
        for (dist_id, (releases, opaque)) in found {
            let rows = self.releases(dist_id)?;
            let indexed = indexed(&rows);
            let present = runs(&indexed, &releases);
            let (first, last) = first_last(&present);
            reports.push(ModuleReport {
                distribution: names
                    .get(&dist_id)
                    .cloned()
                    .ok_or_else(|| self.corrupt("module of an unknown distribution"))?,
                module: module.to_string(),
                indexed_releases: indexed.len(),
                present,
                first,
                last,
                opaque: runs(&indexed, &opaque),
            });
        }
        Ok(reports)
    }

    /// What changed between two indexed releases of `name`. Private names (a segment with a
    /// leading underscore) are left out unless `include_private`.
    pub fn diff(
        &self,
        name: &DistName,
        from: &Version,
        to: &Version,
        include_private: bool,
    ) -> Result<Option<DiffReport>, StoreError> {
        let Some(dist_id) = self.distribution_id(name)? else {
            return Ok(None);
        };
        let rows = self.releases(dist_id)?;
        let find = |v: &Version| {
            rows.iter()
                .find(|r| &r.version == v && r.status == ReleaseStatus::Indexed)
                .map(|r| r.slot)
        };
        let (Some(a), Some(b)) = (find(from), find(to)) else {
            return Ok(None);
        };
        let conn = self.conn();
        let err = self.err();
        let mut stmt = conn
            .prepare_cached("SELECT id, kind, static, runtime FROM apis WHERE dist_id = ?1")
            .map_err(&err)?;
        let apis: Vec<RawApi> = stmt
            .query_map([dist_id], RawApi::read)
            .map_err(&err)?
            .collect::<Result<_, _>>()
            .map_err(&err)?;
        let mut signature_at = conn
            .prepare_cached(
                "SELECT s.text, l.releases FROM api_signatures l JOIN signatures s ON s.id = l.signature_id
                 WHERE l.api_id = ?1",
            )
            .map_err(&err)?;
        let mut report = DiffReport {
            distribution: name.clone(),
            from: from.clone(),
            to: to.clone(),
            added: Vec::new(),
            removed: Vec::new(),
            changed: Vec::new(),
        };
        let dictionary = self.path_dictionary(dist_id)?;
        for RawApi {
            id,
            kind,
            static_blob,
            runtime_blob,
        } in apis
        {
            let path = dictionary
                .path(id)
                .ok_or_else(|| self.corrupt(format!("API {id} has no path")))?
                .to_string();
            if !include_private && path.split('.').any(is_private) {
                continue;
            }
            let set = self
                .decode_set(&static_blob)?
                .union(&self.decode_set(&runtime_blob)?);
            let (in_a, in_b) = (set.contains(a), set.contains(b));
            if !in_a && !in_b {
                continue;
            }
            let sigs: Vec<(String, ReleaseSet)> = signature_at
                .query_map([id], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
                })
                .map_err(&err)?
                .map(|row| {
                    let (text, blob) = row.map_err(&err)?;
                    Ok((text, self.decode_set(&blob)?))
                })
                .collect::<Result<_, StoreError>>()?;
            let sig = |slot: u32| {
                sigs.iter()
                    .find(|(_, s)| s.contains(slot))
                    .map(|(t, _)| t.clone())
            };
            let entry = DiffEntry {
                path,
                kind: kind_from_code(kind),
                before: if in_a { sig(a) } else { None },
                after: if in_b { sig(b) } else { None },
            };
            match (in_a, in_b) {
                (true, false) => report.removed.push(entry),
                (false, true) => report.added.push(entry),
                _ if entry.before != entry.after
                    && entry.before.is_some()
                    && entry.after.is_some() =>
                {
                    report.changed.push(entry)
                }
                _ => {}
            }
        }
        for list in [&mut report.added, &mut report.removed, &mut report.changed] {
            list.sort_by(|x, y| x.path.cmp(&y.path));
        }
        Ok(Some(report))
    }

    pub fn stats(&self) -> Result<BankStats, StoreError> {
        let conn = self.conn();
        let err = self.err();
        let count = |sql: &str| -> Result<u64, StoreError> {
            conn.query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
                .map_err(&err)
        };
        let mut stats = BankStats {
            schema_version: super::schema::version(conn).map_err(&err)?,
            distributions: count("SELECT COUNT(*) FROM distributions")?,
            releases: count("SELECT COUNT(*) FROM releases")?,
            indexed_releases: count("SELECT COUNT(*) FROM releases WHERE status = 'indexed'")?,
            failed_releases: count("SELECT COUNT(*) FROM releases WHERE status = 'failed'")?,
            introspected_releases: count(
                "SELECT COUNT(*) FROM releases WHERE runtime_status = 'ok'",
            )?,
            modules: count("SELECT COUNT(*) FROM modules")?,
            apis: count("SELECT COUNT(*) FROM apis")?,
            alias_links: count("SELECT COUNT(*) FROM aliases")?,
            signatures: count("SELECT COUNT(*) FROM signatures")?,
            ..BankStats::default()
        };
        let mut stmt = conn
            .prepare("SELECT static, runtime FROM apis")
            .map_err(&err)?;
        let mut rows = stmt.query([]).map_err(&err)?;
        while let Some(r) = rows.next().map_err(&err)? {
            let a: Vec<u8> = r.get(0).map_err(&err)?;
            let b: Vec<u8> = r.get(1).map_err(&err)?;
            stats.naive_rows += self.decode_set(&a)?.union(&self.decode_set(&b)?).len() as u64;
        }
        for suffix in ["", "-wal", "-shm"] {
            let mut p = self.path().as_os_str().to_owned();
            p.push(suffix);
            stats.bytes_on_disk += std::fs::metadata(&p).map_or(0, |m| m.len());
        }
        Ok(stats)
    }
}

/// A module of one release, as introspection needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseModule {
    pub path: String,
    pub opaque: bool,
    pub dynamic: bool,
}

impl Store {
    /// The modules release `slot` of the distribution has, sorted.
    pub fn release_modules(
        &self,
        dist_id: i64,
        slot: u32,
    ) -> Result<Vec<ReleaseModule>, StoreError> {
        let err = self.err();
        let mut stmt = self
            .conn()
            .prepare_cached(
                "SELECT path, releases, opaque, dynamic FROM modules WHERE dist_id = ?1 ORDER BY path",
            )
            .map_err(&err)?;
        let mut rows = stmt.query([dist_id]).map_err(&err)?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(&err)? {
            let releases: Vec<u8> = r.get(1).map_err(&err)?;
            if !self.decode_set(&releases)?.contains(slot) {
                continue;
            }
            let opaque: Vec<u8> = r.get(2).map_err(&err)?;
            let dynamic: Vec<u8> = r.get(3).map_err(&err)?;
            out.push(ReleaseModule {
                path: r.get(0).map_err(&err)?,
                opaque: self.decode_set(&opaque)?.contains(slot),
                dynamic: self.decode_set(&dynamic)?.contains(slot),
            });
        }
        Ok(out)
    }

    /// The import names release `slot` provides.
    pub fn release_import_names(&self, dist_id: i64, slot: u32) -> Result<Vec<String>, StoreError> {
        let err = self.err();
        let mut stmt = self
            .conn()
            .prepare_cached(
                "SELECT name, releases FROM import_names WHERE dist_id = ?1 ORDER BY name",
            )
            .map_err(&err)?;
        let rows: Vec<(String, Vec<u8>)> = stmt
            .query_map([dist_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(&err)?
            .collect::<Result<_, _>>()
            .map_err(&err)?;
        let mut out = Vec::new();
        for (name, releases) in rows {
            if self.decode_set(&releases)?.contains(slot) {
                out.push(name);
            }
        }
        Ok(out)
    }

    /// Names directly under `module` (one more segment) that any release of the distribution
    /// has: candidates to look for at run time where static reading cannot see.
    pub fn names_ever_under(&self, dist_id: i64, module: &str) -> Result<Vec<String>, StoreError> {
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

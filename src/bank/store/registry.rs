//! Distributions and their releases: registration from the index, slots, index status.

use std::str::FromStr;

use jiff::Timestamp;
use pep440_rs::Version;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::{DistId, ReleaseId, Slot, Store, StoreError};
use crate::names::DistName;

/// A release as the index lists it, to be registered.
#[derive(Debug, Clone)]
pub struct ReleaseInfo {
    pub version: Version,
    pub upload_time: Option<Timestamp>,
    pub requires_python: Option<String>,
    pub yanked: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReleaseStatus {
    /// Registered, not indexed yet.
    Pending,
    Indexed,
    /// Indexing failed; `detail` says why. Retried by the next build.
    Failed,
}

impl ReleaseStatus {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ReleaseStatus::Pending => "pending",
            ReleaseStatus::Indexed => "indexed",
            ReleaseStatus::Failed => "failed",
        }
    }

    pub(super) fn parse(s: &str) -> Self {
        match s {
            "indexed" => ReleaseStatus::Indexed,
            "failed" => ReleaseStatus::Failed,
            _ => ReleaseStatus::Pending,
        }
    }
}

/// What runtime introspection made of a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuntimeStatus {
    /// Installed, imported and recorded.
    Ok,
    /// Could not be introspected here; `runtime_detail` says why.
    Gap,
}

impl RuntimeStatus {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RuntimeStatus::Ok => "ok",
            RuntimeStatus::Gap => "gap",
        }
    }

    pub(super) fn parse(s: &str) -> Option<Self> {
        match s {
            "ok" => Some(RuntimeStatus::Ok),
            "gap" => Some(RuntimeStatus::Gap),
            _ => None,
        }
    }
}

/// Why an indexed release has no Python sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoSources {
    /// Only compiled extension modules (orjson, ujson, pyodbc): legitimate; its names need
    /// introspection.
    CompiledOnly,
    /// Every file holds no module and requires sibling distributions, which have the code
    /// (qiskit 0.x requires qiskit-terra; python-Levenshtein requires Levenshtein).
    Metapackage,
    /// The archive has Python files, but none in a layout recognized as importable modules.
    UnrecognizedLayout,
    /// The archive has no Python files and no requirements.
    Empty,
}

impl NoSources {
    pub fn as_str(self) -> &'static str {
        match self {
            NoSources::CompiledOnly => "compiled-only",
            NoSources::Metapackage => "metapackage",
            NoSources::UnrecognizedLayout => "unrecognized-layout",
            NoSources::Empty => "empty",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        [
            NoSources::CompiledOnly,
            NoSources::Metapackage,
            NoSources::UnrecognizedLayout,
            NoSources::Empty,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// A registered release.
#[derive(Debug, Clone, Serialize)]
pub struct ReleaseRow {
    pub id: ReleaseId,
    pub slot: Slot,
    pub version: Version,
    pub upload_time: Option<Timestamp>,
    pub requires_python: Option<String>,
    pub yanked: bool,
    pub status: ReleaseStatus,
    pub detail: Option<String>,
    pub file_name: Option<String>,
    pub extractor: Option<u32>,
    pub runtime_status: Option<RuntimeStatus>,
    pub runtime_detail: Option<String>,
    /// Why the indexed file had no Python sources, and what it says (the sibling
    /// distributions of a metapackage).
    pub no_sources: Option<NoSources>,
    pub no_sources_detail: Option<String>,
    /// Whether the import flow reached its fixed point (`None` before schema 2).
    pub converged: Option<bool>,
}

impl ReleaseRow {
    pub fn is_introspected(&self) -> bool {
        self.runtime_status == Some(RuntimeStatus::Ok)
    }
}

impl Store {
    pub fn distribution_id(&self, name: &DistName) -> Result<Option<DistId>, StoreError> {
        // Kept: a resolution asks for dozens of distributions.
        self.conn()
            .prepare_cached("SELECT id FROM distributions WHERE name = ?1")
            .and_then(|mut stmt| stmt.query_row([name.as_str()], |r| r.get(0)).optional())
            .map_err(self.err())
    }

    /// Every distribution in the bank, by name.
    pub fn distributions(&self) -> Result<Vec<(DistId, DistName)>, StoreError> {
        let mut stmt = self
            .conn()
            .prepare("SELECT id, name FROM distributions ORDER BY name")
            .map_err(self.err())?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, DistId>(0)?, r.get::<_, String>(1)?)))
            .map_err(self.err())?;
        let mut out = Vec::new();
        for row in rows {
            let (id, name) = row.map_err(self.err())?;
            let name = DistName::new(&name)
                .map_err(|_| self.corrupt(format!("distribution name `{name}`")))?;
            out.push((id, name));
        }
        Ok(out)
    }

    /// Registers `name` and its `releases` in one transaction. New releases get the next
    /// slots in PEP 440 order; known ones have their index facts (yanked, upload time)
    /// refreshed. Returns the distribution's id and all its releases, oldest first.
    pub fn register(
        &mut self,
        name: &DistName,
        index_url: &str,
        releases: &[ReleaseInfo],
    ) -> Result<(DistId, Vec<ReleaseRow>), StoreError> {
        let dist_id = self.write(|tx| {
            tx.execute(
                "INSERT INTO distributions (name, index_url, listed_at) VALUES (?1, ?2, strftime('%s','now'))
                 ON CONFLICT(name) DO UPDATE SET index_url = excluded.index_url, listed_at = excluded.listed_at",
                params![name.as_str(), index_url],
            )
            ?;
            let dist_id: DistId = tx
                .query_row(
                    "SELECT id FROM distributions WHERE name = ?1",
                    [name.as_str()],
                    |r| r.get(0),
                )
                ?;
            let mut next_slot: Slot = tx
                .query_row(
                    "SELECT COALESCE(MAX(slot) + 1, 0) FROM releases WHERE dist_id = ?1",
                    [dist_id],
                    |r| r.get(0),
                )
                ?;
            let mut sorted: Vec<&ReleaseInfo> = releases.iter().collect();
            sorted.sort_by(|a, b| a.version.cmp(&b.version));
            {
                let mut exists = tx
                    .prepare_cached("SELECT id FROM releases WHERE dist_id = ?1 AND version = ?2")
                    ?;
                let mut update = tx
                    .prepare_cached(
                        "UPDATE releases SET upload_time = ?2, requires_python = ?3, yanked = ?4, yanked_reason = ?5
                         WHERE id = ?1",
                    )
                    ?;
                let mut insert = tx
                    .prepare_cached(
                        "INSERT INTO releases (dist_id, slot, version, upload_time, requires_python, yanked, yanked_reason)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    )
                    ?;
                for r in sorted {
                    let version = r.version.to_string();
                    let id: Option<ReleaseId> = exists
                        .query_row(params![dist_id, version], |row| row.get(0))
                        .optional()
                        ?;
                    match id {
                        Some(id) => {
                            update
                                .execute(params![
                                    id,
                                    r.upload_time.map(|t| t.to_string()),
                                    r.requires_python,
                                    r.yanked.is_some(),
                                    r.yanked
                                ])
                                ?;
                        }
                        None => {
                            insert
                                .execute(params![
                                    dist_id,
                                    next_slot,
                                    version,
                                    r.upload_time.map(|t| t.to_string()),
                                    r.requires_python,
                                    r.yanked.is_some(),
                                    r.yanked
                                ])
                                ?;
                            next_slot.0 += 1;
                        }
                    }
                }
            }
            Ok(dist_id)
        })?;
        let rows = self.releases(dist_id)?;
        Ok((dist_id, rows))
    }

    /// The distribution's releases, oldest first (PEP 440 order).
    pub fn releases(&self, dist_id: DistId) -> Result<Vec<ReleaseRow>, StoreError> {
        let mut stmt = self
            .conn()
            .prepare_cached(
                "SELECT id, slot, version, upload_time, requires_python, yanked, status, detail, file_name,
                        extractor, runtime_status, runtime_detail, no_sources, no_sources_detail, converged
                 FROM releases WHERE dist_id = ?1",
            )
            .map_err(self.err())?;
        let rows = stmt
            .query_map([dist_id], |r| {
                Ok((
                    r.get::<_, ReleaseId>(0)?,
                    r.get::<_, Slot>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, bool>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, Option<String>>(7)?,
                    r.get::<_, Option<String>>(8)?,
                    r.get::<_, Option<u32>>(9)?,
                    r.get::<_, Option<String>>(10)?,
                    r.get::<_, Option<String>>(11)?,
                    r.get::<_, Option<String>>(12)?,
                    r.get::<_, Option<String>>(13)?,
                    r.get::<_, Option<bool>>(14)?,
                ))
            })
            .map_err(self.err())?;
        let mut out = Vec::new();
        for row in rows {
            let (
                id,
                slot,
                version,
                upload_time,
                requires_python,
                yanked,
                status,
                detail,
                file_name,
                extractor,
                runtime_status,
                runtime_detail,
                no_sources,
                no_sources_detail,
                converged,
            ) = row.map_err(self.err())?;
            let version = Version::from_str(&version)
                .map_err(|_| self.corrupt(format!("release version `{version}`")))?;
            out.push(ReleaseRow {
                id,
                slot,
                version,
                // Stored as RFC 3339 text; one that does not read is not worth failing on.
                upload_time: upload_time.and_then(|t| t.parse().ok()),
                requires_python,
                yanked,
                status: ReleaseStatus::parse(&status),
                detail,
                file_name,
                extractor,
                runtime_status: runtime_status.as_deref().and_then(RuntimeStatus::parse),
                runtime_detail,
                no_sources: no_sources.as_deref().and_then(NoSources::parse),
                no_sources_detail,
                converged,
            });
        }
        out.sort_by(|a, b| a.version.cmp(&b.version));
        Ok(out)
    }

    /// Records that indexing a release failed, and why; it stays eligible for the next build.
    pub fn mark_failed(&mut self, release_id: ReleaseId, detail: &str) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.execute(
                "UPDATE releases SET status = ?2, detail = ?3 WHERE id = ?1 AND status != 'indexed'",
                params![release_id, ReleaseStatus::Failed.as_str(), detail],
            )
        })?;
        Ok(())
    }

    /// Records that a release could not be introspected, and why. What an earlier run
    /// recorded for it is kept.
    pub fn mark_runtime_gap(
        &mut self,
        release_id: ReleaseId,
        reason: &str,
    ) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.execute(
                "UPDATE releases SET runtime_status = ?2, runtime_detail = ?3
                 WHERE id = ?1 AND (runtime_status IS NULL OR runtime_status != ?4)",
                params![
                    release_id,
                    RuntimeStatus::Gap.as_str(),
                    reason,
                    RuntimeStatus::Ok.as_str()
                ],
            )
        })?;
        Ok(())
    }

    /// Records the distribution's name as the index spells it (`Pillow`, from its metadata).
    pub fn set_display_name(&mut self, dist_id: DistId, name: &str) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.execute(
                "UPDATE distributions SET display_name = ?2 WHERE id = ?1",
                params![dist_id, name],
            )
        })?;
        Ok(())
    }
}

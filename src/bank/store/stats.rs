//! How big the bank is, and how much of what it says is unknown.

use std::collections::HashMap;

use pep440_rs::Version;
use serde::Serialize;

use super::query::indexed;
use super::registry::{NoSources, RuntimeStatus};
use super::release_set::ReleaseSet;
use super::seal::{select_sealed, APIS, MODULES};
use super::{DistId, Store, StoreError};
use crate::names::DistName;

/// The share of one distribution's answers that are unknown.
#[derive(Debug, Clone, Serialize)]
pub struct UnknownShare {
    pub distribution: DistName,
    /// (API, release) pairs where the API is present.
    pub present_pairs: u64,
    /// Pairs where it is not found but may exist (static reading cannot see through its
    /// enclosing name there, and introspection has not settled it).
    pub unknown_pairs: u64,
}

impl UnknownShare {
    /// Unknown pairs over present and unknown ones.
    pub fn share(&self) -> f64 {
        self.unknown_pairs as f64 / (self.present_pairs + self.unknown_pairs).max(1) as f64
    }
}

/// An indexed release whose file had no Python sources.
#[derive(Debug, Clone, Serialize)]
pub struct SourcelessRelease {
    pub distribution: DistName,
    pub version: Version,
    pub reason: NoSources,
    pub detail: Option<String>,
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
    /// Rows a naive bank with one row per (API, release) would hold: the present pairs.
    pub naive_rows: u64,
    /// Unknown (API, release) pairs over the whole bank.
    pub unknown_pairs: u64,
    /// Per distribution with any unknown pair, highest share first.
    pub unknown_by_distribution: Vec<UnknownShare>,
    pub sourceless_releases: Vec<SourcelessRelease>,
    /// Releases whose import flow stopped at its visit limit before a fixed point: their
    /// answers may miss names.
    pub not_converged: Vec<(DistName, Version)>,
    pub bytes_on_disk: u64,
}

impl Store {
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
            introspected_releases: conn
                .query_row(
                    "SELECT COUNT(*) FROM releases WHERE runtime_status = ?1",
                    [RuntimeStatus::Ok.as_str()],
                    |r| r.get::<_, i64>(0),
                )
                .map_err(&err)? as u64,
            modules: count("SELECT COUNT(*) FROM modules")?,
            apis: count("SELECT COUNT(*) FROM apis")?,
            alias_links: count("SELECT COUNT(*) FROM aliases")?,
            signatures: count("SELECT COUNT(*) FROM signatures")?,
            ..BankStats::default()
        };
        for (dist_id, name) in self.distributions()? {
            let share = self.unknown_share(dist_id, &name)?;
            stats.naive_rows += share.present_pairs;
            stats.unknown_pairs += share.unknown_pairs;
            if share.unknown_pairs > 0 {
                stats.unknown_by_distribution.push(share);
            }
            for r in self.releases(dist_id)? {
                if let Some(reason) = r.no_sources {
                    stats.sourceless_releases.push(SourcelessRelease {
                        distribution: name.clone(),
                        version: r.version.clone(),
                        reason,
                        detail: r.no_sources_detail.clone(),
                    });
                }
                if r.converged == Some(false) {
                    stats.not_converged.push((name.clone(), r.version.clone()));
                }
            }
        }
        stats
            .unknown_by_distribution
            .sort_by(|a, b| b.share().total_cmp(&a.share()));
        for suffix in ["", "-wal", "-shm"] {
            let mut p = self.path().as_os_str().to_owned();
            p.push(suffix);
            stats.bytes_on_disk += std::fs::metadata(&p).map_or(0, |m| m.len());
        }
        Ok(stats)
    }

    /// Present and unknown (API, release) pairs of one distribution. An API's unknown releases
    /// are counted through its enclosing name alone (the longest prefix the bank has): where
    /// that name is open and the API not found. Queries also follow aliases and bases; this
    /// count is the cheap, bank-wide view of the same rule.
    fn unknown_share(&self, dist_id: DistId, name: &DistName) -> Result<UnknownShare, StoreError> {
        let err = self.err();
        let rows = self.releases(dist_id)?;
        let indexed_set = super::query::slots(indexed(&rows));
        let dictionary = self.path_dictionary(dist_id)?;
        struct Row {
            presence: ReleaseSet,
            open: ReleaseSet,
        }
        let mut by_id: HashMap<i64, Row> = HashMap::new();
        self.check_apis_index(dist_id)?;
        self.each_sealed(
            &APIS,
            select_sealed!(apis, "WHERE dist_id = ?1"),
            [dist_id],
            |r| {
                by_id.insert(
                    r.get(0).map_err(&err)?,
                    Row {
                        presence: self.set_at(r, 3)?.union(&self.set_at(r, 4)?),
                        open: self.set_at(r, 5)?,
                    },
                );
                Ok(())
            },
        )?;
        // Modules introspection imported and listed: nothing is unknown under them there.
        let mut listed: HashMap<String, ReleaseSet> = HashMap::new();
        self.each_sealed(
            &MODULES,
            select_sealed!(modules, "WHERE dist_id = ?1 AND listed != x''"),
            [dist_id],
            |r| {
                listed.insert(r.get(1).map_err(&err)?, self.set_at(r, 9)?);
                Ok(())
            },
        )?;
        let mut share = UnknownShare {
            distribution: name.clone(),
            present_pairs: 0,
            unknown_pairs: 0,
        };
        for (path, id) in dictionary.iter() {
            let Some(row) = by_id.get(&id) else {
                continue;
            };
            share.present_pairs += row.presence.intersection(&indexed_set).len() as u64;
            let mut prefix = path;
            let parent = loop {
                let Some((head, _)) = prefix.rsplit_once('.') else {
                    break None;
                };
                prefix = head;
                if let Some(p) = dictionary.get(prefix).and_then(|pid| by_id.get(&pid)) {
                    break Some((prefix, p));
                }
            };
            if let Some((prefix, parent)) = parent {
                let mut unknown = parent
                    .open
                    .intersection(&parent.presence)
                    .intersection(&indexed_set)
                    .difference(&row.presence);
                if let Some(l) = listed.get(prefix) {
                    unknown = unknown.difference(l);
                }
                share.unknown_pairs += unknown.len() as u64;
            }
        }
        Ok(share)
    }
}

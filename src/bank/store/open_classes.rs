//! Per distribution, the releases where some class is open to static reading (members set by
//! computed `setattr`, bases outside the release) and introspection did not list its
//! members: there a member not found is unknown rather than absent.
//!
//! A member query needs this union over every class of the distribution; scanning the
//! distribution's API rows for it took 37 ms for TensorFlow, per run. Writers keep it in
//! `open_classes`, recomputed from their cached rows in the same transaction as the rows;
//! a distribution without a row (a bank written before schema 5 and not migrated, or a
//! damaged row the migration skipped) is scanned as before.

use rusqlite::{params, Transaction};

use super::release_set::ReleaseSet;
use super::seal::{select_sealed, OPEN_CLASSES};
use super::{DistId, Store, StoreError};
use crate::bank::flow::ApiKind;

/// The union, over `(kind, open, runtime)` of each API, of a class's open releases that
/// introspection did not list.
pub(crate) fn union<'r>(
    rows: impl IntoIterator<Item = (ApiKind, &'r ReleaseSet, &'r ReleaseSet)>,
) -> ReleaseSet {
    rows.into_iter()
        .filter(|(kind, open, _)| *kind == ApiKind::Class && !open.is_empty())
        .fold(ReleaseSet::new(), |acc, (_, open, runtime)| {
            acc.union(&open.difference(runtime))
        })
}

/// Stores the distribution's union.
pub(crate) fn save(
    tx: &Transaction<'_>,
    dist_id: DistId,
    set: &ReleaseSet,
) -> rusqlite::Result<()> {
    super::seal::execute_sealed(
        &mut tx.prepare_cached(
            "INSERT OR REPLACE INTO open_classes (dist_id, releases, seal) VALUES (?1, ?2, ?3)",
        )?,
        params![dist_id, set.encode()],
    )?;
    Ok(())
}

/// Computes every distribution's union from its rows (the migration to schema 5). A
/// distribution with a row that does not decode gets none: readers then scan it and report
/// the damage.
pub(crate) fn fill(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let dists: Vec<DistId> = tx
        .prepare("SELECT id FROM distributions")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut rows = tx.prepare(
        "SELECT open, runtime FROM apis WHERE dist_id = ?1 AND kind = ?2 AND open != x''",
    )?;
    for dist in dists {
        let blobs: Vec<(Vec<u8>, Vec<u8>)> = rows
            .query_map(params![dist, ApiKind::Class.code()], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<Result<_, _>>()?;
        let sets: Option<Vec<(ReleaseSet, ReleaseSet)>> = blobs
            .iter()
            .map(|(o, r)| Some((ReleaseSet::decode(o).ok()?, ReleaseSet::decode(r).ok()?)))
            .collect();
        if let Some(sets) = sets {
            let set = union(sets.iter().map(|(o, r)| (ApiKind::Class, o, r)));
            // Schema 5 has no seals yet: the migration to 7 seals the row.
            tx.prepare_cached(
                "INSERT OR REPLACE INTO open_classes (dist_id, releases) VALUES (?1, ?2)",
            )?
            .execute(params![dist, set.encode()])?;
        }
    }
    Ok(())
}

impl Store {
    /// The distribution's stored union, if it has one.
    pub(crate) fn stored_open_classes(
        &self,
        dist_id: DistId,
    ) -> Result<Option<ReleaseSet>, StoreError> {
        let mut stmt = self
            .conn()
            .prepare_cached(select_sealed!(open_classes, "WHERE dist_id = ?1"))
            .map_err(self.err())?;
        let mut rows = stmt.query([dist_id]).map_err(self.err())?;
        let Some(row) = rows.next().map_err(self.err())? else {
            return Ok(None);
        };
        self.check_seal(&OPEN_CLASSES, row, 0)?;
        self.set_at(row, 1).map(Some)
    }
}

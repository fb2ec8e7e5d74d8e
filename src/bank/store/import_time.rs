//! What each release imports from other distributions when it is imported (see
//! `bank::flow::import_time`): table `import_time`, one row per distribution and dotted path,
//! with the releases that import it. `releases.import_time` tells a release whose imports
//! were read (and may be none) from one indexed before schema 6, of which nothing is known.

use std::collections::HashMap;

use rusqlite::{params, Transaction};

use super::release_set::ReleaseSet;
use super::seal::{select_sealed, IMPORT_TIME};
use super::{DistId, ReleaseId, Slot, Store, StoreError};

impl Store {
    /// The paths release `slot` of the distribution imports from other distributions when
    /// imported, sorted; `None` when the bank has not read them (the release is not indexed,
    /// was indexed before the bank kept them, or has no source to read).
    pub fn import_time(
        &self,
        dist_id: DistId,
        slot: Slot,
    ) -> Result<Option<Vec<String>>, StoreError> {
        let err = self.err();
        let read: Option<Option<i64>> = {
            use rusqlite::OptionalExtension;
            self.conn()
                .prepare_cached(
                    "SELECT import_time FROM releases WHERE dist_id = ?1 AND slot = ?2 AND status = 'indexed'",
                )
                .map_err(&err)?
                .query_row(params![dist_id, slot], |r| r.get(0))
                .optional()
                .map_err(&err)?
        };
        if read.flatten().is_none() {
            return Ok(None);
        }
        let mut out = Vec::new();
        self.each_sealed(
            &IMPORT_TIME,
            select_sealed!(import_time, "WHERE dist_id = ?1 ORDER BY path"),
            [dist_id],
            |r| {
                if self.set_at(r, 2)?.contains(slot) {
                    out.push(r.get(1).map_err(&err)?);
                }
                Ok(())
            },
        )?;
        Ok(Some(out))
    }

    /// Every row of the distribution, for the writer's cache.
    pub(super) fn import_time_rows(
        &self,
        dist_id: DistId,
    ) -> Result<HashMap<String, ReleaseSet>, StoreError> {
        let err = self.err();
        let mut out = HashMap::new();
        self.each_sealed(
            &IMPORT_TIME,
            select_sealed!(import_time, "WHERE dist_id = ?1"),
            [dist_id],
            |r| {
                out.insert(r.get(1).map_err(&err)?, self.set_at(r, 2)?);
                Ok(())
            },
        )?;
        Ok(out)
    }
}

/// Records what release `slot` imports (`None`: not read), updating the cached sets. Called
/// after the slot was cleared from every set, when the release was indexed before.
pub(super) fn write(
    tx: &Transaction<'_>,
    cache: &mut HashMap<String, ReleaseSet>,
    dist_id: DistId,
    release_id: ReleaseId,
    slot: Slot,
    paths: Option<&[String]>,
) -> rusqlite::Result<()> {
    for path in paths.unwrap_or_default() {
        let set = cache.entry(path.clone()).or_default();
        set.insert(slot);
        super::seal::execute_sealed(
            &mut tx.prepare_cached(
                "INSERT OR REPLACE INTO import_time (dist_id, path, releases, seal) VALUES (?1, ?2, ?3, ?4)",
            )?,
            params![dist_id, path, set.encode()],
        )?;
    }
    tx.execute(
        "UPDATE releases SET import_time = ?2 WHERE id = ?1",
        params![release_id, paths.map(|_| 1)],
    )?;
    Ok(())
}

/// Removes `slot` from every row, as a release indexed again must not keep what was read of
/// it before.
pub(super) fn clear(
    tx: &Transaction<'_>,
    cache: &mut HashMap<String, ReleaseSet>,
    dist_id: DistId,
    slot: Slot,
) -> rusqlite::Result<()> {
    for (path, set) in cache.iter_mut() {
        if set.contains(slot) {
            set.remove(slot);
            super::seal::execute_sealed(
                &mut tx.prepare_cached(
                    "UPDATE import_time SET releases = ?3, seal = ?4 WHERE dist_id = ?1 AND path = ?2",
                )?,
                params![dist_id, path, set.encode()],
            )?;
        }
    }
    Ok(())
}

//! Secondary indexes checked against what the seals cover.
//!
//! A seal covers a row's values, not the entries SQLite keeps of them in a secondary index.
//! A flipped byte in `apis_by_dist` makes a read through it miss one of a distribution's APIs,
//! or yield another distribution's, and no seal fails: `bank stats` and `bank diff` answered
//! otherwise with exit 0. Every API row has its path, with its id, in the distribution's
//! sealed path dictionary; so before a reader goes through the index for a whole
//! distribution, the ids the index yields are compared with the ids the dictionary lists,
//! once per distribution for an open store. The comparison reads the index alone (it holds
//! the ids), which costs less than the read it guards.
//!
//! The indexes by name (`modules_by_path`, `import_names_by_name`) answer which distributions
//! provide a module: a flipped key there hides a provider. Nothing sealed lists a name's
//! providers, so the whole index is compared with its table instead, by the sum of a seal over
//! each entry's key, once for an open store before its first lookup by name. An index changes
//! only with its table, in the same transaction, so what this process writes afterwards
//! needs no second look; damage lies in what was already on disk.

use super::ids::DistId;
use super::path_dictionary::stored_chunk_ids;
use super::{seal, Store, StoreError};

impl Store {
    /// Whether `apis_by_dist` yields exactly the ids of `dist_id`'s path dictionary; a
    /// mismatch is a corrupt bank, named as such (`bank check` finds it, a rebuild of the index
    /// mends it).
    pub(crate) fn check_apis_index(&self, dist_id: DistId) -> Result<(), StoreError> {
        if self.indexes_checked.borrow().contains(&dist_id) {
            return Ok(());
        }
        self.on_one_snapshot(|| self.compare_apis_index(dist_id))?;
        self.indexes_checked.borrow_mut().insert(dist_id);
        Ok(())
    }

    /// Reads `bank` and its index on one snapshot: another process committing between the
    /// two reads (a batch's other worker indexing) would make them disagree for a moment,
    /// and that is no damage.
    fn on_one_snapshot<T>(
        &self,
        f: impl FnOnce() -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        // Inside a transaction already: its reads see one snapshot.
        if !self.conn().is_autocommit() {
            return f();
        }
        self.conn().execute_batch("BEGIN").map_err(self.err())?;
        let out = f();
        // A read transaction: ending it loses nothing.
        let ended = self.conn().execute_batch("COMMIT").map_err(self.err());
        let out = out?;
        ended?;
        Ok(out)
    }

    fn compare_apis_index(&self, dist_id: DistId) -> Result<(), StoreError> {
        let mut listed: Vec<i64> = Vec::new();
        for (_, blob) in self.chunk_rows(dist_id)? {
            let ids = stored_chunk_ids(&blob).map_err(|_| self.corrupt("API path dictionary"))?;
            listed.extend(ids);
        }
        listed.sort_unstable();
        let indexed: Vec<i64> = self
            .conn()
            .prepare_cached(
                "SELECT id FROM apis INDEXED BY apis_by_dist WHERE dist_id = ?1 ORDER BY id",
            )
            .and_then(|mut stmt| {
                stmt.query_map([dist_id], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()
            })
            .map_err(self.err())?;
        if indexed != listed {
            let name = self
                .distributions()?
                .into_iter()
                .find(|(id, _)| *id == dist_id)
                .map_or_else(|| format!("#{}", dist_id.0), |(_, n)| n.to_string());
            return Err(self.corrupt(format!(
                "index apis_by_dist: it yields {} APIs for {name}, whose path \
                 dictionary lists {}{} (`nbenv bank check` reports it; SQLite's REINDEX rebuilds \
                 the index)",
                indexed.len(),
                listed.len(),
                if indexed.len() == listed.len() {
                    ", with other ids"
                } else {
                    ""
                }
            )));
        }
        Ok(())
    }

    /// Whether `modules_by_path` and `import_names_by_name` hold exactly the keys of their
    /// tables' rows; a mismatch is a corrupt bank.
    pub(crate) fn check_name_indexes(&self) -> Result<(), StoreError> {
        if self.name_indexes_checked.get() {
            return Ok(());
        }
        seal::register(self.conn()).map_err(self.err())?;
        self.on_one_snapshot(|| self.compare_name_indexes())?;
        self.name_indexes_checked.set(true);
        Ok(())
    }

    fn compare_name_indexes(&self) -> Result<(), StoreError> {
        for (table, index, key) in [
            ("modules", "modules_by_path", "dist_id, path"),
            ("import_names", "import_names_by_name", "dist_id, name"),
        ] {
            // A whole-table scan would still take the covering index; a range over the primary
            // key (ids are positive) reads the table itself.
            let digest = |from: &str| -> Result<(i64, i64), StoreError> {
                self.conn()
                    .prepare_cached(&format!(
                        "SELECT count(*), coalesce(sum(nbenv_seal({key})), 0) FROM {table} {from}"
                    ))
                    .and_then(|mut stmt| stmt.query_row([], |r| Ok((r.get(0)?, r.get(1)?))))
                    .map_err(self.err())
            };
            let (indexed, stored) = (
                digest(&format!("INDEXED BY {index}"))?,
                digest("NOT INDEXED WHERE dist_id >= 0")?,
            );
            if indexed != stored {
                let what = if indexed.0 == stored.0 {
                    format!("holds keys that no row of {table} has")
                } else {
                    format!(
                        "holds {} entries for {} rows of {table}",
                        indexed.0, stored.0
                    )
                };
                return Err(self.corrupt(format!(
                    "index {index}: it {what} (`nbenv bank check` reports it; SQLite's REINDEX \
                     rebuilds the index)"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch's other worker commits modules while a reader compares `modules_by_path` with
    /// its table: the two reads were two snapshots, and a commit between them made a sound
    /// bank "corrupt" (28041 entries for 28043 rows, on realnb). One snapshot sees none.
    #[test]
    fn a_commit_between_the_index_and_its_table_is_no_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bank.sqlite3");
        drop(Store::open(&path).unwrap());
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                let conn = rusqlite::Connection::open(&path).unwrap();
                conn.busy_timeout(std::time::Duration::from_secs(30))
                    .unwrap();
                conn.execute("INSERT INTO distributions (id, name) VALUES (1, 'lib')", [])
                    .unwrap();
                for i in 0..3000 {
                    conn.execute(
                        "INSERT INTO modules (dist_id, path, releases, opaque, dynamic)
                         VALUES (1, ?1, x'', x'', x'')",
                        [format!("lib.m{i}")],
                    )
                    .unwrap();
                }
            })
        };
        let mut checks = 0;
        while !writer.is_finished() {
            let store = Store::open_read_only(&path).unwrap();
            store.check_name_indexes().unwrap();
            checks += 1;
        }
        writer.join().unwrap();
        assert!(checks > 0);
    }
}

//! The bank's SQLite store: distributions, releases, modules, import names, APIs with their
//! release sets, alias links, signatures, Requires-Dist, and the per-file summary cache.
//!
//! Written in WAL mode, one transaction per release: readers (queries, `infer`) keep working
//! while a build writes, and an interrupted build loses only the release in flight.

mod api_history;
mod bloom;
mod catalog;
mod change_notes;
mod check;
mod claim;
mod deprecations;
mod diff;
mod error;
mod identity;
mod ids;
mod import_providers;
mod import_time;
mod index_guard;
mod lock;
mod member_index;
mod moves;
mod open_classes;
mod pairing;
mod path_blocks;
mod path_dictionary;
mod path_index;
mod presence;
mod query;
mod registry;
mod release_facts;
mod release_set;
mod resolve;
mod runs;
mod schema;
mod seal;
mod shim_moves;
mod stats;
mod summaries;
mod writer;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use rusqlite::{Connection, OpenFlags};

use crate::disk_full::Written;
use crate::timings::{self, Stage};

pub use api_history::SignatureHistory;
pub use catalog::{Catalog, CatalogRelease, IndexStatus};
pub use change_notes::{NotesOutcome, NotesReadRow, StoredNote};
pub use check::{CheckFailure, CheckReport, Checked};
pub use claim::{Claim, ClaimError, DistClaims};
pub use deprecations::DeprecationFact;
pub use diff::{DiffEntry, DiffMiss, DiffReport, DiffSource};
pub(crate) use error::full_disk as sqlite_full_disk;
pub use error::StoreError;
pub use identity::{identify, Identity, APPLICATION_ID};
pub use ids::{DistId, ReleaseId, Slot};
pub use import_providers::ImportProvider;
pub(crate) use lock::WriterLock;
pub use lock::{LockPolicy, WaitNotice};
pub use moves::{Move, MoveKind, MovesReport, Successor};
pub use pairing::{dropped_parameters, SignatureMatch};
pub use path_blocks::EncodedChunk;
pub use path_dictionary::{CorruptDictionary, PathDictionary, StoredChunk};
pub use presence::Presence;
pub use query::{
    ApiReport, CanonicalSpan, ModuleReport, OpenSpan, RaisingModule, ReleaseModule,
    SignatureChange, VersionRun,
};
pub use registry::{NoSources, ReleaseInfo, ReleaseRow, ReleaseStatus, RuntimeStatus};
pub use release_set::{CorruptReleaseSet, ReleaseSet};
pub use runs::{
    Bound, FailedRelease, FailedStep, Refutation, ReleaseFailure, RunOutcome, RunRecord,
};
pub use schema::{missing_from_schema, EXTRACTOR_VERSION, SCHEMA_VERSION};
pub use shim_moves::{Mirrored, RenamedKeyword, ShimEvidence, Shimmed};
pub use stats::{BankStats, SourcelessRelease, UnknownShare};
pub use summaries::SummaryStore;
pub use writer::{BankWriter, IndexedRelease, RuntimeFinding, RuntimeLinks, SourceCounts};

/// How much of a bank a read-only store maps into memory (the full-list bank is about 400
/// MB; address space is cheap).
const READ_MAP_BYTES: i64 = 1 << 32;

/// Prepared statements a store keeps: a query uses a few dozen (batched reads differ by their
/// batch size), more than rusqlite's default of 16, which made it prepare them again and again.
const STATEMENT_CACHE: usize = 128;

/// An open bank.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// Decoded path dictionaries, kept for the next query of the same distribution.
    dictionaries: RefCell<HashMap<DistId, Rc<PathDictionary>>>,
    /// Path dictionaries read block by block, likewise.
    path_indexes: RefCell<HashMap<DistId, Rc<path_index::PathIndex>>>,
    /// What presence queries read of a whole distribution, kept likewise.
    dist_facts: RefCell<HashMap<DistId, Rc<presence::DistFacts>>>,
    /// Distributions' catalogs, kept likewise.
    catalogs: RefCell<HashMap<DistId, Catalog>>,
    /// What resolvers looked up of each distribution, kept likewise.
    lookups: RefCell<HashMap<DistId, Rc<RefCell<resolve::Lookups>>>>,
    /// Distributions' releases as answers read them, kept likewise.
    release_facts: RefCell<HashMap<DistId, Rc<Vec<release_facts::ReleaseFacts>>>>,
    /// Distributions whose `apis_by_dist` entries were checked against their dictionary.
    indexes_checked: RefCell<std::collections::HashSet<DistId>>,
    /// Whether the indexes by module path and import name were checked against their tables.
    name_indexes_checked: Cell<bool>,
    /// The writer lock, for a bank opened for writing.
    lock: Option<lock::WriterLock>,
    /// SQLite's `data_version` when this connection last looked: it changes when another
    /// connection commits, which makes what writers cached stale.
    seen_version: Cell<i64>,
}

impl Store {
    /// Opens the bank at `path` for writing, creating it (and its directory) if needed, and
    /// migrating an older schema; another writer is waited for.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::open_with(path, LockPolicy::default())
    }

    /// Opens the bank for writing, with what to do when another writer holds it. Only a
    /// missing or empty file becomes a new bank: any other file that is not an nbenv bank is
    /// refused and left as it was.
    pub fn open_with(path: &Path, policy: LockPolicy) -> Result<Self, StoreError> {
        refuse_directory(path)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::NotABank {
                path: path.to_path_buf(),
                detail: format!("cannot create its directory: {e}"),
            })?;
        }
        let lock = lock::WriterLock::new(path, policy);
        // Creating, configuring and migrating are writes like any other.
        let guard = lock.acquire()?;
        refuse_foreign(path)?;
        let created = !path.exists();
        let store = Self::set_up(path, lock);
        if store.is_err() && created {
            // A bank that could not be made (its disk is full) is left as it was: none.
            for suffix in ["", "-wal", "-shm"] {
                let mut file = path.as_os_str().to_owned();
                file.push(suffix);
                let _ = std::fs::remove_file(file);
            }
        }
        drop(guard);
        let store = store?;
        store.others_wrote()?;
        Ok(store)
    }

    /// Opens the bank at `path` for writing under `lock` (held), configured and migrated.
    fn set_up(path: &Path, lock: lock::WriterLock) -> Result<Self, StoreError> {
        let conn = Connection::open(path).map_err(sqlite_err(path))?;
        let mut store = Self {
            conn,
            path: path.to_path_buf(),
            dictionaries: RefCell::default(),
            indexes_checked: RefCell::default(),
            name_indexes_checked: Cell::new(false),
            path_indexes: RefCell::default(),
            dist_facts: RefCell::default(),
            catalogs: RefCell::default(),
            lookups: RefCell::default(),
            release_facts: RefCell::default(),
            lock: Some(lock),
            seen_version: Cell::new(0),
        };
        store.configure()?;
        store
            .conn
            .set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        store.check_version()?;
        schema::migrate(&mut store.conn).map_err(store.err())?;
        // A new bank, or one an earlier nbenv made, is marked as nbenv's.
        let identity = identify(&store.conn).map_err(store.err())?;
        if matches!(identity, Identity::Bank { stamped: false, .. }) {
            identity::stamp(&store.conn).map_err(store.err())?;
        }
        Ok(store)
    }

    /// Takes the writer lock, for one transaction.
    pub(crate) fn write_lock(&self) -> Result<Option<lock::LockGuard>, StoreError> {
        let _clock = timings::start(Stage::LockWait);
        self.lock
            .as_ref()
            .map(lock::WriterLock::acquire)
            .transpose()
    }

    /// Whether another connection committed since this one last asked: then whatever was
    /// cached from the bank must be read again.
    pub(crate) fn others_wrote(&self) -> Result<bool, StoreError> {
        let version: i64 = self
            .conn
            .pragma_query_value(None, "data_version", |r| r.get(0))
            .map_err(self.err())?;
        let changed = version != self.seen_version.replace(version);
        if changed {
            self.forget_dictionaries();
        }
        Ok(changed)
    }

    /// Runs `read` in one read transaction, when none is open: its statements then read one
    /// snapshot, and SQLite takes the WAL's read lock once instead of once per statement (a
    /// lock and an unlock through `fcntl` each time, a fifth of what a warm `infer` spent
    /// reading the bank).
    pub fn read_snapshot<T>(
        &self,
        read: impl FnOnce(&Self) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if !self.conn.is_autocommit() {
            return read(self);
        }
        // Kept statements: a notebook asks dozens of questions, and preparing these two each
        // time cost more than some of the questions.
        let run = |sql: &str| -> Result<(), StoreError> {
            self.conn
                .prepare_cached(sql)
                .and_then(|mut stmt| stmt.execute([]))
                .map(drop)
                .map_err(self.err())
        };
        run("BEGIN")?;
        let out = read(self);
        // Nothing was written: ending the transaction only lets the snapshot go.
        let ended = run("COMMIT");
        let out = out?;
        ended?;
        Ok(out)
    }

    /// Runs `write` in an immediate transaction under the writer lock.
    pub(crate) fn write<T>(
        &mut self,
        write: impl FnOnce(&rusqlite::Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        let _guard = self.write_lock()?;
        let _clock = timings::start(Stage::BankWrites);
        let written = (|| {
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let value = write(&tx)?;
            tx.commit()?;
            Ok(value)
        })();
        let value = written.map_err(self.err())?;
        // What was read of the bank before may have changed.
        self.forget_dictionaries();
        Ok(value)
    }

    /// Opens an existing bank read-only, for queries: never creates a file.
    pub fn open_read_only(path: &Path) -> Result<Self, StoreError> {
        Self::read_only(path, true, true)
    }

    /// Opens an existing bank read-only as it is, even of an older schema (which is not
    /// upgraded): for `bank check`, which writes nothing.
    pub fn open_read_only_as_is(path: &Path) -> Result<Self, StoreError> {
        Self::read_only(path, false, true)
    }

    /// `wait_for_creation`: whether an empty file may be a bank another process is creating
    /// (it holds the writer lock from before the file exists until the schema is in), to be
    /// waited for and read again once.
    fn read_only(path: &Path, upgrade: bool, wait_for_creation: bool) -> Result<Self, StoreError> {
        refuse_directory(path)?;
        if !path.exists() {
            return Err(StoreError::Missing {
                path: path.to_path_buf(),
            });
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sqlite_err(path))?;
        let store = Self {
            conn,
            path: path.to_path_buf(),
            dictionaries: RefCell::default(),
            indexes_checked: RefCell::default(),
            name_indexes_checked: Cell::new(false),
            path_indexes: RefCell::default(),
            dist_facts: RefCell::default(),
            catalogs: RefCell::default(),
            lookups: RefCell::default(),
            release_facts: RefCell::default(),
            lock: None,
            seen_version: Cell::new(0),
        };
        let version = match store.check_version()? {
            Identity::Bank { version, .. } => version,
            Identity::Empty if wait_for_creation => {
                drop(store);
                drop(lock::WriterLock::new(path, LockPolicy::Wait).acquire()?);
                return Self::read_only(path, upgrade, false);
            }
            Identity::Empty | Identity::Foreign { .. } => {
                return Err(StoreError::NotABank {
                    path: path.to_path_buf(),
                    detail: "it has no nbenv schema".into(),
                })
            }
        };
        if version < SCHEMA_VERSION && upgrade {
            // A bank of an older nbenv: upgrade it once (a writer's job), then read.
            drop(store);
            drop(Self::open(path)?);
            return Self::open_read_only(path);
        }
        // Queries read scattered pages of the file (API rows, blocks of paths); mapped, they
        // are read in place rather than copied into SQLite's cache one `pread` at a time.
        // Writers never shrink the file (no VACUUM), which mapping would not survive.
        store
            .conn
            .pragma_update(None, "mmap_size", READ_MAP_BYTES)
            .map_err(store.err())?;
        store
            .conn
            .set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        // Plans that do not depend on the values bound: with the range over import names
        // (`name >= ?2 AND name < ?3`), SQLite prepared that statement again for nearly every
        // question, as its statistics support (which a bank never collects) may change a plan
        // with the values.
        store
            .conn
            .set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
                true,
            )
            .map_err(store.err())?;
        Ok(store)
    }

    fn configure(&mut self) -> Result<(), StoreError> {
        let path = self.path.clone();
        self.conn
            .busy_timeout(std::time::Duration::from_secs(30))
            .map_err(self.err())?;
        let mode: String = self
            .conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
            .map_err(|e| match e {
                rusqlite::Error::SqliteFailure(f, _)
                    if f.code == rusqlite::ErrorCode::NotADatabase =>
                {
                    StoreError::NotABank {
                        path: path.clone(),
                        detail: "the file is not an SQLite database".into(),
                    }
                }
                e => StoreError::sqlite(&path, Written::Bank, Some(&self.conn), e),
            })?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::NotABank {
                path,
                detail: format!("could not switch to WAL mode (got {mode})"),
            });
        }
        self.conn
            .execute_batch(
                "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA busy_timeout=30000;",
            )
            .map_err(self.err())?;
        Ok(())
    }

    /// What the file is: another program's file is refused, and so is a bank of a newer
    /// schema than this nbenv knows.
    fn check_version(&self) -> Result<Identity, StoreError> {
        let identity = identify(&self.conn).map_err(|e| match e {
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::NotADatabase => {
                StoreError::NotABank {
                    path: self.path.clone(),
                    detail: "the file is not an SQLite database".into(),
                }
            }
            e => self.err()(e),
        })?;
        match identity {
            Identity::Foreign { detail } => Err(StoreError::NotABank {
                path: self.path.clone(),
                detail,
            }),
            Identity::Bank { version, .. } if version > SCHEMA_VERSION => Err(StoreError::TooNew {
                path: self.path.clone(),
                found: version,
                supported: SCHEMA_VERSION,
            }),
            identity => Ok(identity),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    /// SQLite's errors on this bank; the connection tells a full disk behind an I/O error.
    pub(crate) fn err(&self) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        |source| StoreError::sqlite(&self.path, Written::Bank, Some(&self.conn), source)
    }

    pub(crate) fn corrupt(&self, what: impl Into<String>) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            what: what.into(),
        }
    }
}

impl Store {
    /// The API paths of a distribution (empty when it has none yet), decoded once per `Store`.
    pub fn path_dictionary(&self, dist_id: DistId) -> Result<Rc<PathDictionary>, StoreError> {
        if let Some(d) = self.dictionaries.borrow().get(&dist_id) {
            return Ok(d.clone());
        }
        let chunks = self.chunk_rows(dist_id)?;
        let blocks: Vec<(i64, i64, Vec<u8>)> = self
            .conn()
            .prepare_cached(
                "SELECT chunk, block, paths FROM api_path_blocks WHERE dist_id = ?1 ORDER BY chunk, block",
            )
            .and_then(|mut stmt| {
                stmt.query_map([dist_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect::<rusqlite::Result<_>>()
            })
            .map_err(self.err())?;
        let corrupt = |_| self.corrupt("API path dictionary");
        let stored = chunks
            .iter()
            .map(|(chunk, blob)| {
                if !path_blocks::is_directory(blob) {
                    return Ok(StoredChunk::Whole(blob));
                }
                // Every block the directory counts, numbered from 0, and no other.
                let count = path_blocks::Directory::decode(blob)
                    .map_err(corrupt)?
                    .blocks();
                let first = blocks.partition_point(|(c, _, _)| c < chunk);
                let mine =
                    &blocks[first..first + blocks[first..].partition_point(|(c, _, _)| c == chunk)];
                if mine.len() != count
                    || mine.iter().enumerate().any(|(i, (_, b, _))| *b != i as i64)
                {
                    return Err(self.corrupt("API path dictionary"));
                }
                Ok(StoredChunk::Blocks(
                    mine.iter().map(|(_, _, b)| b.as_slice()).collect(),
                ))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let dictionary = Rc::new(PathDictionary::from_chunks(stored).map_err(corrupt)?);
        self.dictionaries
            .borrow_mut()
            .insert(dist_id, dictionary.clone());
        Ok(dictionary)
    }

    /// The API paths of a distribution, read block by block as lookups need them (kept for
    /// the next query of the same distribution).
    pub(crate) fn path_index(
        &self,
        dist_id: DistId,
    ) -> Result<Rc<path_index::PathIndex>, StoreError> {
        if let Some(found) = self.path_indexes.borrow().get(&dist_id) {
            return Ok(found.clone());
        }
        let index = Rc::new(path_index::PathIndex::load(self, dist_id)?);
        self.path_indexes
            .borrow_mut()
            .insert(dist_id, index.clone());
        Ok(index)
    }

    /// What resolvers looked up of a distribution so far.
    pub(crate) fn lookups(&self, dist_id: DistId) -> Rc<RefCell<resolve::Lookups>> {
        self.lookups
            .borrow_mut()
            .entry(dist_id)
            .or_default()
            .clone()
    }

    /// Checks the seal of `row`, whose `table` columns are read from column `at` on (see
    /// [`seal`]): a row that fails is a damaged bank, named by table and key.
    pub(crate) fn check_seal(
        &self,
        table: &seal::SealedTable,
        row: &rusqlite::Row<'_>,
        at: usize,
    ) -> Result<(), StoreError> {
        seal::check(table, row, at).map_err(|failure| self.corrupt(failure.to_string()))
    }

    /// Runs `sql` (cached), which selects `table`'s sealed row first, and gives `each` every
    /// row whose seal holds; the first that fails is the error.
    pub(crate) fn each_sealed(
        &self,
        table: &seal::SealedTable,
        sql: &str,
        params: impl rusqlite::Params,
        mut each: impl FnMut(&rusqlite::Row<'_>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(self.err())?;
        let mut rows = stmt.query(params).map_err(self.err())?;
        while let Some(row) = rows.next().map_err(self.err())? {
            self.check_seal(table, row, 0)?;
            each(row)?;
        }
        Ok(())
    }

    /// Each signature text an API has, with the releases where it has it; both rows' seals
    /// checked (a signature row that is missing is a damaged bank too).
    pub(crate) fn signatures_of_api(
        &self,
        api_id: i64,
    ) -> Result<Vec<(String, ReleaseSet)>, StoreError> {
        let mut out = Vec::new();
        self.each_sealed(
            &seal::API_SIGNATURES,
            "SELECT l.api_id, l.signature_id, l.releases, l.seal, s.id, s.hash, s.text, s.seal
             FROM api_signatures l LEFT JOIN signatures s ON s.id = l.signature_id
             WHERE l.api_id = ?1",
            [api_id],
            |r| {
                self.check_seal(&seal::SIGNATURES, r, 4)?;
                out.push((r.get(6).map_err(self.err())?, self.set_at(r, 2)?));
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// Decodes a stored release set; a bad one means the bank file is damaged.
    pub(crate) fn decode_set(&self, blob: &[u8]) -> Result<ReleaseSet, StoreError> {
        ReleaseSet::decode(blob).map_err(|_| self.corrupt("release set"))
    }

    /// Decodes the release set in column `i` of `row` where SQLite holds it, without copying
    /// it out first (queries read thousands).
    pub(crate) fn set_at(
        &self,
        row: &rusqlite::Row<'_>,
        i: usize,
    ) -> Result<ReleaseSet, StoreError> {
        let blob = row
            .get_ref(i)
            .map_err(self.err())?
            .as_blob()
            .map_err(|_| self.corrupt("release set"))?;
        self.decode_set(blob)
    }

    /// A distribution's path chunk rows (number, stored directory or chunk), oldest first.
    pub(crate) fn chunk_rows(&self, dist_id: DistId) -> Result<Vec<(i64, Vec<u8>)>, StoreError> {
        self.conn()
            .prepare_cached(
                "SELECT chunk, paths FROM api_path_chunks WHERE dist_id = ?1 ORDER BY chunk",
            )
            .and_then(|mut stmt| {
                stmt.query_map([dist_id], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()
            })
            .map_err(self.err())
    }

    /// The numbers of a distribution's path chunks, oldest first, each with its APIs' ids.
    pub(crate) fn path_chunks(&self, dist_id: DistId) -> Result<Vec<(i64, Vec<i64>)>, StoreError> {
        self.chunk_rows(dist_id)?
            .into_iter()
            .map(|(chunk, blob)| {
                let ids = path_dictionary::stored_chunk_ids(&blob)
                    .map_err(|_| self.corrupt("API path dictionary"))?;
                Ok((chunk, ids))
            })
            .collect()
    }

    /// Forgets decoded dictionaries and what was read of whole distributions: a writer is
    /// changing them.
    pub(crate) fn forget_dictionaries(&self) {
        self.dictionaries.borrow_mut().clear();
        self.path_indexes.borrow_mut().clear();
        self.catalogs.borrow_mut().clear();
        self.lookups.borrow_mut().clear();
        self.release_facts.borrow_mut().clear();
        self.dist_facts.borrow_mut().clear();
        self.indexes_checked.borrow_mut().clear();
    }
}

/// A file that exists and is not empty must already be a bank (see [`identify`]): anything
/// else (another program's SQLite file, whatever its `user_version`, a text file) is refused
/// before anything is written to it.
fn refuse_foreign(path: &Path) -> Result<(), StoreError> {
    let len = match std::fs::metadata(path) {
        Ok(m) => m.len(),
        Err(_) => return Ok(()),
    };
    if len == 0 {
        return Ok(());
    }
    let refused = |detail: &str| StoreError::NotABank {
        path: path.to_path_buf(),
        detail: detail.to_string(),
    };
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|_| refused("the file is not an SQLite database"))?;
    match identify(&conn).map_err(|_| refused("the file is not an SQLite database"))? {
        Identity::Foreign { detail } => Err(refused(&detail)),
        Identity::Empty | Identity::Bank { .. } => Ok(()),
    }
}

/// SQLite answers a directory with "disk I/O error"; say what is wrong instead.
fn refuse_directory(path: &Path) -> Result<(), StoreError> {
    if path.is_dir() {
        return Err(StoreError::NotABank {
            path: path.to_path_buf(),
            detail: "it is a directory; a bank is one file, such as bank.sqlite3 inside it".into(),
        });
    }
    Ok(())
}

/// SQLite's errors on the bank at `path`, with no connection to ask (opening one failed).
pub(crate) fn sqlite_err(path: &Path) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |source| StoreError::sqlite(path, Written::Bank, None, source)
}

#[cfg(test)]
mod index_tests;
#[cfg(test)]
mod tests;

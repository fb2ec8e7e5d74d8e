//! The bank's tables, and the migrations between schema versions.
//!
//! Layout, in brief (see `apibank/README.md` for the full notes):
//! - `distributions`, `releases` (each with a `slot`: a small integer assigned when the
//!   release is first registered, in PEP 440 order within one registration, never reused);
//! - every set of releases (which releases have an API, a module, an import name, an alias
//!   link, a signature) is a [`super::ReleaseSet`] blob of runs over slots;
//! - `apis` holds each API once per distribution, with the releases where static reading
//!   found it and, separately, where runtime introspection did; its path is in the
//!   distribution's [`super::PathDictionary`] (`api_path_chunks`), a few chunks, each cut
//!   into compressed blocks (`api_path_blocks`) that lookups read one at a time;
//! - `open_classes` holds, per distribution, what a scan of its classes' `open` sets would
//!   say, kept by writers;
//! - each class member is stored once, under the class that defines it; `class_bases` (a
//!   class's bases, and the class an attribute is an instance of) and `aliases`, both with
//!   release sets, let queries reach it through any alias, subclass or instance;
//! - static reading and runtime introspection are kept apart everywhere: an API's `static` and
//!   `runtime` sets, a link's `releases` (static) and `runtime` sets, a module's static sets and
//!   its `runtime` (found in `sys.modules`) and `listed` (imported and listed) sets, so that
//!   indexing a release again never erases what introspection found, and the other way round;
//! - `apis.open` holds the releases where names under an API may exist that static reading
//!   cannot list: there a name not found is unknown, not absent; `apis.external` those where
//!   the name is bound to another distribution's object (`pandas.np`);
//! - `import_time` holds, per distribution, the other distributions' modules and names its
//!   releases import whenever they are imported, each path with its release set;
//!   `releases.import_time` says whether a release's were read at all;
//! - `deprecations` holds what functions' bodies say of their own deprecation (a shim's
//!   warning and template, renamed keywords), per definition path, with its release set;
//! - `change_notes` holds what libraries' own change notes say replaced an old API, read
//!   from their sdists, and `change_note_reads` which releases' sdists were read;
//! - what verifications saw (`run_notebooks`, `run_releases`: releases that failed to install
//!   or import on an interpreter) is kept apart in `run_*` tables ([`super::RunRecord`]);
//! - the per-file summary cache lives apart, in the cache directory ([`super::SummaryStore`]).

use rusqlite::{params, Connection, Transaction};

use super::ids::{DistId, Slot};
use super::release_set::ReleaseSet;

/// The schema this build writes. Older banks are migrated on open; newer ones are refused.
pub const SCHEMA_VERSION: u32 = 12;

/// Bumped when extraction or flow changes what a release's APIs are (or what is read of its
/// metadata), so that stale releases can be told apart from fresh ones (and indexed again by
/// the next build). 9: a metadata line of spaces continues a header, so Requires-Dist after
/// a multi-line License (matplotlib 3.x) is read. 10: modules a release forwards to another
/// module (`ShimModule(src=..., mirror=...)`) are read, and a module `__getattr__` handing
/// every name to an imported module serves that module's names. 11: a private module a
/// public name leads to is recorded (TensorFlow 2.6+'s `tensorflow._api.v2.compat.v1`, which
/// `tensorflow.compat.v1` names).
pub const EXTRACTOR_VERSION: u32 = 11;

const V1: &str = r#"
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE distributions (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    index_url TEXT,
    listed_at INTEGER
);

CREATE TABLE releases (
    id INTEGER PRIMARY KEY,
    dist_id INTEGER NOT NULL REFERENCES distributions(id),
    slot INTEGER NOT NULL,
    version TEXT NOT NULL,
    upload_time TEXT,
    requires_python TEXT,
    yanked INTEGER NOT NULL DEFAULT 0,
    yanked_reason TEXT,
    file_name TEXT,
    file_sha256 TEXT,
    status TEXT NOT NULL DEFAULT 'pending',
    detail TEXT,
    indexed_at INTEGER,
    extractor INTEGER,
    source_files INTEGER,
    parsed_files INTEGER,
    error_files INTEGER,
    runtime_status TEXT,
    runtime_detail TEXT,
    UNIQUE (dist_id, version),
    UNIQUE (dist_id, slot)
);

CREATE TABLE requires_dist (
    release_id INTEGER NOT NULL REFERENCES releases(id),
    requirement TEXT NOT NULL,
    PRIMARY KEY (release_id, requirement)
) WITHOUT ROWID;

CREATE TABLE import_names (
    dist_id INTEGER NOT NULL REFERENCES distributions(id),
    name TEXT NOT NULL,
    releases BLOB NOT NULL,
    PRIMARY KEY (dist_id, name)
) WITHOUT ROWID;
CREATE INDEX import_names_by_name ON import_names(name);

CREATE TABLE modules (
    dist_id INTEGER NOT NULL REFERENCES distributions(id),
    path TEXT NOT NULL,
    releases BLOB NOT NULL,
    opaque BLOB NOT NULL,
    dynamic BLOB NOT NULL,
    PRIMARY KEY (dist_id, path)
) WITHOUT ROWID;
CREATE INDEX modules_by_path ON modules(path);

CREATE TABLE apis (
    id INTEGER PRIMARY KEY,
    dist_id INTEGER NOT NULL REFERENCES distributions(id),
    kind INTEGER NOT NULL,
    static BLOB NOT NULL,
    runtime BLOB NOT NULL
);
CREATE INDEX apis_by_dist ON apis(dist_id);

CREATE TABLE api_paths (
    dist_id INTEGER PRIMARY KEY REFERENCES distributions(id),
    paths BLOB NOT NULL
);

CREATE TABLE aliases (
    api_id INTEGER NOT NULL REFERENCES apis(id),
    canonical_id INTEGER NOT NULL REFERENCES apis(id),
    releases BLOB NOT NULL,
    PRIMARY KEY (api_id, canonical_id)
) WITHOUT ROWID;

CREATE TABLE class_bases (
    class_id INTEGER NOT NULL REFERENCES apis(id),
    base_id INTEGER NOT NULL REFERENCES apis(id),
    releases BLOB NOT NULL,
    PRIMARY KEY (class_id, base_id)
) WITHOUT ROWID;

CREATE TABLE signatures (
    id INTEGER PRIMARY KEY,
    hash INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX signatures_by_hash ON signatures(hash);

CREATE TABLE api_signatures (
    api_id INTEGER NOT NULL REFERENCES apis(id),
    signature_id INTEGER NOT NULL REFERENCES signatures(id),
    releases BLOB NOT NULL,
    PRIMARY KEY (api_id, signature_id)
) WITHOUT ROWID;
"#;

/// Version 2: unknown apart from absent (`apis.open`), static and runtime links apart, runtime
/// modules, modules that raise on import, why a release has no sources, whether its import
/// flow converged, the index's spelling of names, per-file Requires-Dist.
const V2: &str = r#"
ALTER TABLE apis ADD COLUMN open BLOB NOT NULL DEFAULT x'';
ALTER TABLE apis ADD COLUMN external BLOB NOT NULL DEFAULT x'';
ALTER TABLE aliases ADD COLUMN runtime BLOB NOT NULL DEFAULT x'';
ALTER TABLE class_bases ADD COLUMN runtime BLOB NOT NULL DEFAULT x'';
ALTER TABLE modules ADD COLUMN raises BLOB NOT NULL DEFAULT x'';
ALTER TABLE modules ADD COLUMN raises_message TEXT;
ALTER TABLE modules ADD COLUMN extends_path BLOB NOT NULL DEFAULT x'';
ALTER TABLE modules ADD COLUMN runtime BLOB NOT NULL DEFAULT x'';
ALTER TABLE modules ADD COLUMN listed BLOB NOT NULL DEFAULT x'';
ALTER TABLE releases ADD COLUMN no_sources TEXT;
ALTER TABLE releases ADD COLUMN no_sources_detail TEXT;
ALTER TABLE releases ADD COLUMN converged INTEGER;
ALTER TABLE distributions ADD COLUMN display_name TEXT;
CREATE TABLE file_requires_dist (
    release_id INTEGER NOT NULL REFERENCES releases(id),
    file_name TEXT NOT NULL,
    requirement TEXT NOT NULL,
    PRIMARY KEY (release_id, file_name, requirement)
) WITHOUT ROWID;
"#;

/// One upgrade step, run inside the migration's transaction.
type Migration = fn(&Transaction<'_>) -> rusqlite::Result<()>;

/// Each entry upgrades the schema from version `i` to `i + 1`.
const MIGRATIONS: &[Migration] = &[
    |tx| tx.execute_batch(V1),
    to_v2,
    to_v3,
    |tx| tx.execute_batch(V4),
    to_v5,
    |tx| tx.execute_batch(V6),
    to_v7,
    |tx| tx.execute_batch(V8),
    |tx| tx.execute_batch(V9),
    |tx| tx.execute_batch(V10),
    to_v11,
    to_v12,
];

/// Version 12: which notes reader read each sdist (`reader`), so that sdists an older one
/// read are read again (see [`super::change_notes::NOTES_READER`]); reads before it were
/// reader 1.
fn to_v12(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    add_column(
        tx,
        "change_note_reads",
        "reader",
        "INTEGER NOT NULL DEFAULT 1",
    )
}

/// Version 11: which side of a refuted release its run ruled out with it (`too_new`,
/// `too_old`, or none), so that a later restoration of the notebook keeps the bounds.
fn to_v11(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    add_column(tx, "run_refutations", "bound", "TEXT")
}

/// Adds `column` to `table` unless it is there already: a bank whose version was set back
/// (tests do) may have it.
fn add_column(
    tx: &Transaction<'_>,
    table: &str,
    column: &str,
    declaration: &str,
) -> rusqlite::Result<()> {
    let has: bool = tx.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info(?1) WHERE name = ?2",
        [table, column],
        |r| r.get(0),
    )?;
    if !has {
        tx.execute_batch(&format!(
            "ALTER TABLE {table} ADD COLUMN {column} {declaration};"
        ))?;
    }
    Ok(())
}

/// Version 10: libraries' change notes read from their sdists (see [`super::change_notes`]),
/// and which releases' sdists were read. Distributions by normalized name, as run records.
const V10: &str = r#"
CREATE TABLE IF NOT EXISTS change_notes (
    dist TEXT NOT NULL,
    old TEXT NOT NULL,
    file TEXT NOT NULL,
    sentence TEXT NOT NULL,
    line INTEGER NOT NULL,
    new TEXT NOT NULL,
    release TEXT,
    read_from TEXT NOT NULL,
    PRIMARY KEY (dist, read_from, old, file, sentence)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS change_note_reads (
    dist TEXT NOT NULL,
    version TEXT NOT NULL,
    sdist TEXT,
    files INTEGER NOT NULL,
    notes INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (dist, version)
) WITHOUT ROWID;
"#;

/// Version 9: the releases a restoration's runs refuted for a notebook (see
/// [`super::runs`]), so that the next restoration of the same notebook does not try them
/// again. Keyed by the notebook's content, not its path.
const V9: &str = r#"
CREATE TABLE IF NOT EXISTS run_refutations (
    notebook_sha256 TEXT NOT NULL,
    dist TEXT NOT NULL,
    version TEXT NOT NULL,
    cell INTEGER NOT NULL,
    python TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (notebook_sha256, dist, version)
) WITHOUT ROWID;
"#;

/// Version 8: what functions' bodies say of their deprecation (see [`super::deprecations`]),
/// one row per definition and fact, with its releases. Releases indexed before have none
/// until they are indexed again (their extractor is older).
const V8: &str = r#"
CREATE TABLE deprecations (
    dist_id INTEGER NOT NULL REFERENCES distributions(id),
    path TEXT NOT NULL,
    fact TEXT NOT NULL,
    releases BLOB NOT NULL,
    seal INTEGER,
    PRIMARY KEY (dist_id, path, fact)
) WITHOUT ROWID;
"#;

/// Version 7 seals every row that holds release sets, and the signatures' texts (see
/// [`super::seal`]): each gets a `seal` column, filled here for the rows the bank has, which
/// are trusted as they are. One `UPDATE` per table; the whole bank is rewritten once.
fn to_v7(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    for table in super::seal::SEALED_TABLES.iter().filter(|t| t.since <= 7) {
        tx.execute_batch(&format!(
            "ALTER TABLE {} ADD COLUMN seal INTEGER;",
            table.name
        ))?;
    }
    super::seal::seal_all(tx)
}

/// Version 6: what each release imports from other distributions when it is imported (see
/// [`super::import_time`]). Releases indexed before have no rows and a NULL
/// `releases.import_time`: nothing is known of them until they are indexed again
/// (`bank build --force`).
const V6: &str = r#"
CREATE TABLE import_time (
    dist_id INTEGER NOT NULL REFERENCES distributions(id),
    path TEXT NOT NULL,
    releases BLOB NOT NULL,
    PRIMARY KEY (dist_id, path)
) WITHOUT ROWID;
ALTER TABLE releases ADD COLUMN import_time INTEGER;
"#;

/// Version 4: what verifications saw. Run records live in their own tables (named `run_*`, so
/// that a snapshot can leave them out) and name distributions by normalized name, not by id:
/// a run may install releases the bank never indexed.
const V4: &str = r#"
CREATE TABLE run_notebooks (
    id INTEGER PRIMARY KEY,
    notebook TEXT NOT NULL,
    notebook_sha256 TEXT NOT NULL,
    command TEXT NOT NULL,
    round INTEGER NOT NULL,
    python TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    seconds REAL NOT NULL,
    requirements TEXT NOT NULL,
    outcome TEXT NOT NULL,
    cells_run INTEGER,
    code_cells INTEGER,
    failure_class TEXT,
    failure_kind TEXT,
    failure_cell INTEGER,
    detail TEXT
);
CREATE TABLE run_releases (
    run_id INTEGER NOT NULL REFERENCES run_notebooks(id),
    dist TEXT NOT NULL,
    version TEXT NOT NULL,
    python TEXT NOT NULL,
    outcome TEXT NOT NULL,
    detail TEXT NOT NULL,
    PRIMARY KEY (run_id, dist, version)
) WITHOUT ROWID;
CREATE INDEX run_releases_by_dist ON run_releases(dist, python);
"#;

/// Version 5 reads a distribution's paths block by block: its chunks become one, stored as a
/// directory (in its row) and blocks (in `api_path_blocks`, a table with rowids: a block of
/// about 1 KB would take an overflow page of its own in a table without), with a member
/// index (see [`super::path_blocks`]); and keeps each distribution's open classes (see
/// [`super::open_classes`]). A dictionary that does not decode is kept as it was, for readers
/// to report.
fn to_v5(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE api_path_blocks (
            id INTEGER PRIMARY KEY,
            dist_id INTEGER NOT NULL REFERENCES distributions(id),
            chunk INTEGER NOT NULL,
            block INTEGER NOT NULL,
            paths BLOB NOT NULL,
            UNIQUE (dist_id, chunk, block)
        );
        CREATE TABLE api_member_blocks (
            id INTEGER PRIMARY KEY,
            dist_id INTEGER NOT NULL REFERENCES distributions(id),
            chunk INTEGER NOT NULL,
            block INTEGER NOT NULL,
            entries BLOB NOT NULL,
            UNIQUE (dist_id, chunk, block)
        );
        ALTER TABLE api_path_chunks ADD COLUMN members BLOB;
        CREATE TABLE open_classes (
            dist_id INTEGER PRIMARY KEY REFERENCES distributions(id),
            releases BLOB NOT NULL
        );",
    )?;
    let dists: Vec<DistId> = tx
        .prepare("SELECT DISTINCT dist_id FROM api_path_chunks")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut read =
        tx.prepare("SELECT paths FROM api_path_chunks WHERE dist_id = ?1 ORDER BY chunk")?;
    // A distribution's chunks become one: the migration reads and writes every path anyway,
    // and one chunk is the quickest to look in (later writes add chunks as before). The
    // member index names each entry's owner, from the whole dictionary.
    for dist in dists {
        let blobs: Vec<Vec<u8>> = read
            .query_map([dist], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let Ok(whole) = super::PathDictionary::from_chunks(
            blobs.iter().map(|blob| super::StoredChunk::Whole(blob)),
        ) else {
            // A chunk that does not decode: left as it was, for readers to report.
            continue;
        };
        let entries: Vec<(&str, i64)> = whole.iter().collect();
        if entries.windows(2).any(|w| w[0].0 >= w[1].0) {
            // The same path twice: a damaged dictionary, likewise.
            continue;
        }
        let encoded = super::path_blocks::encode(&entries, false, |owner| whole.get(owner));
        tx.execute("DELETE FROM api_path_chunks WHERE dist_id = ?1", [dist])?;
        super::writer::insert_chunk(tx, dist, 0, &encoded)?;
    }
    super::open_classes::fill(tx)
}

/// Version 3 keeps a distribution's paths in chunks, so that a release adding paths writes
/// only those (see [`super::PathDictionary`]); each old dictionary becomes its first chunk.
fn to_v3(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE api_path_chunks (
            dist_id INTEGER NOT NULL REFERENCES distributions(id),
            chunk INTEGER NOT NULL,
            paths_count INTEGER NOT NULL,
            paths BLOB NOT NULL,
            PRIMARY KEY (dist_id, chunk)
        ) WITHOUT ROWID;",
    )?;
    let rows: Vec<(DistId, Vec<u8>)> = tx
        .prepare("SELECT dist_id, paths FROM api_paths")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut insert = tx.prepare(
        "INSERT INTO api_path_chunks (dist_id, chunk, paths_count, paths) VALUES (?1, 0, ?2, ?3)",
    )?;
    for (dist, blob) in rows {
        // A dictionary that does not decode is kept as it was, for readers to report.
        let count = super::PathDictionary::decode(&blob).map_or(0, |d| d.len());
        insert.execute(params![dist, count as i64, blob])?;
    }
    tx.execute_batch("DROP TABLE api_paths;")
}

/// Version 1 kept one link set for both readings. For introspected releases, a link there may
/// have been seen at run time only: it is kept as a runtime link too, so that indexing the
/// release again (which version 2 does, its extractor being newer) does not erase it.
fn to_v2(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(V2)?;
    let introspected: Vec<(DistId, Slot)> = tx
        .prepare("SELECT dist_id, slot FROM releases WHERE runtime_status = 'ok'")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    if introspected.is_empty() {
        return Ok(());
    }
    let mut by_dist: std::collections::HashMap<DistId, ReleaseSet> = Default::default();
    for (dist, slot) in introspected {
        by_dist.entry(dist).or_default().insert(slot);
    }
    for (table, owner, other) in [
        ("aliases", "api_id", "canonical_id"),
        ("class_bases", "class_id", "base_id"),
    ] {
        let rows: Vec<(DistId, i64, i64, Vec<u8>)> = tx
            .prepare(&format!(
                "SELECT a.dist_id, t.{owner}, t.{other}, t.releases FROM {table} t JOIN apis a ON a.id = t.{owner}"
            ))?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<Result<_, _>>()?;
        let mut update = tx.prepare(&format!(
            "UPDATE {table} SET runtime = ?3 WHERE {owner} = ?1 AND {other} = ?2"
        ))?;
        for (dist, a, b, blob) in rows {
            let (Some(slots), Ok(set)) = (by_dist.get(&dist), ReleaseSet::decode(&blob)) else {
                continue;
            };
            let runtime = set.intersection(slots);
            if !runtime.is_empty() {
                update.execute(params![a, b, runtime.encode()])?;
            }
        }
    }
    Ok(())
}

/// The schema version recorded in the bank (0 for an empty database).
pub fn version(conn: &Connection) -> rusqlite::Result<u32> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Brings the bank up to [`SCHEMA_VERSION`], one migration per transaction.
pub fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let mut current = version(conn)?;
    while (current as usize) < MIGRATIONS.len() {
        let tx = conn.transaction()?;
        MIGRATIONS[current as usize](&tx)?;
        current += 1;
        tx.pragma_update(None, "user_version", current)?;
        tx.commit()?;
    }
    Ok(())
}

/// Where the database on `conn` departs from the schema an nbenv bank of `version` has: a
/// table or a column of that schema it lacks. `None` when it has them all (tables of its
/// own, such as run records added by a user, are allowed). The schema is made by the
/// migrations themselves, in memory, so it is the one a bank of that version really has.
pub fn missing_from_schema(conn: &Connection, version: u32) -> rusqlite::Result<Option<String>> {
    let mut reference = Connection::open_in_memory()?;
    for step in MIGRATIONS.iter().take(version as usize) {
        let tx = reference.transaction()?;
        step(&tx)?;
        tx.commit()?;
    }
    let tables = |c: &Connection| -> rusqlite::Result<Vec<String>> {
        c.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")?
            .query_map([], |r| r.get(0))?
            .collect()
    };
    let columns = |c: &Connection, table: &str| -> rusqlite::Result<Vec<String>> {
        c.prepare("SELECT name FROM pragma_table_info(?1)")?
            .query_map([table], |r| r.get(0))?
            .collect()
    };
    let found = tables(conn)?;
    for table in tables(&reference)? {
        if !found.contains(&table) {
            return Ok(Some(format!("it has no table {table}")));
        }
        let have = columns(conn, &table)?;
        if let Some(column) = columns(&reference, &table)?
            .into_iter()
            .find(|c| !have.contains(c))
        {
            return Ok(Some(format!("its table {table} has no column {column}")));
        }
    }
    Ok(None)
}

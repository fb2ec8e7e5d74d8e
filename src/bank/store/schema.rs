//! The bank's tables, and the migrations between schema versions.
//!
//! Layout, in brief (see `apibank/README.md` for the full notes):
//! - `distributions`, `releases` (each with a `slot`: a small integer assigned when the
//!   release is first registered, in PEP 440 order within one registration, never reused);
//! - every set of releases (which releases have an API, a module, an import name, an alias
//!   link, a signature) is a [`super::ReleaseSet`] blob of runs over slots;
//! - `apis` holds each API once per distribution, with the releases where static reading
//!   found it and, separately, where runtime introspection did; its path is in the
//!   distribution's [`super::PathDictionary`] (`api_paths`), one compressed blob;
//! - each class member is stored once, under the class that defines it; `class_bases` (a
//!   class's bases, and the class an attribute is an instance of) and `aliases`, both with
//!   release sets, let queries reach it through any alias, subclass or instance;
//! - the per-file summary cache lives apart, in the cache directory ([`super::SummaryStore`]).

use rusqlite::Connection;

/// The schema this build writes. Older banks are migrated on open; newer ones are refused.
pub const SCHEMA_VERSION: u32 = 1;

/// Bumped when extraction or flow changes what a release's APIs are, so that stale releases
/// can be told apart from fresh ones.
pub const EXTRACTOR_VERSION: u32 = 2;

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

/// Each entry upgrades the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[V1];

/// The schema version recorded in the bank (0 for an empty database).
pub fn version(conn: &Connection) -> rusqlite::Result<u32> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Brings the bank up to [`SCHEMA_VERSION`], one migration per transaction.
pub fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let mut current = version(conn)?;
    while (current as usize) < MIGRATIONS.len() {
        let tx = conn.transaction()?;
        tx.execute_batch(MIGRATIONS[current as usize])?;
        current += 1;
        tx.pragma_update(None, "user_version", current)?;
        tx.commit()?;
    }
    Ok(())
}

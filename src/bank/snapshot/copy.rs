//! A consistent copy of a live bank, and what is done to the copy: run records emptied,
//! rows counted, rollback journal mode (a snapshot is one file, with no WAL beside it).

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::container::BankCounts;
use super::error::SnapshotError;
use crate::bank::store::{StoreError, SCHEMA_VERSION};

/// Copies the bank at `bank` into `dest`, a path that must not exist yet, as it was at one
/// commit.
///
/// `VACUUM INTO` reads the bank in one read transaction: in WAL mode that never blocks a
/// writer and is never blocked by one, so a `bank build` running meanwhile goes on, and the
/// copy holds what was committed when it started (a transaction in flight is left out). The
/// bank is opened read-only and never migrated: the snapshot carries its schema as it is.
/// The copy is compact (no free pages), which also suits compression.
pub(crate) fn consistent_copy(bank: &Path, dest: &Path) -> Result<(), SnapshotError> {
    check_exists(bank)?;
    let conn = Connection::open_with_flags(
        bank,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(SnapshotError::sqlite(bank))?;
    // Only WAL recovery after a crashed writer makes a reader wait.
    conn.busy_timeout(std::time::Duration::from_secs(30))
        .map_err(SnapshotError::sqlite(bank))?;
    let version = user_version(&conn).map_err(|e| not_a_bank_or(bank, e))?;
    check_version(bank, version)?;
    let dest_text = dest.to_str().ok_or_else(|| SnapshotError::Io {
        path: dest.to_path_buf(),
        action: "writing the copy",
        source: std::io::Error::other("the path is not UTF-8"),
    })?;
    conn.execute("VACUUM INTO ?1", [dest_text])
        .map_err(|e| not_a_bank_or(bank, e))?;
    Ok(())
}

/// Copying starts only from a file that exists and is not a directory.
pub(crate) fn check_exists(bank: &Path) -> Result<(), SnapshotError> {
    if bank.is_dir() {
        return Err(StoreError::NotABank {
            path: bank.to_path_buf(),
            detail: "it is a directory; a bank is one file, such as bank.sqlite3 inside it".into(),
        }
        .into());
    }
    if !bank.exists() {
        return Err(StoreError::Missing {
            path: bank.to_path_buf(),
        }
        .into());
    }
    Ok(())
}

/// A bank's schema version must be one this build knows, and not 0 (no nbenv schema).
pub(crate) fn check_version(bank: &Path, version: u32) -> Result<(), SnapshotError> {
    if version == 0 {
        return Err(StoreError::NotABank {
            path: bank.to_path_buf(),
            detail: "it has no nbenv schema".into(),
        }
        .into());
    }
    if version > SCHEMA_VERSION {
        return Err(StoreError::TooNew {
            path: bank.to_path_buf(),
            found: version,
            supported: SCHEMA_VERSION,
        }
        .into());
    }
    Ok(())
}

fn not_a_bank_or(bank: &Path, e: rusqlite::Error) -> SnapshotError {
    match e {
        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::NotADatabase => {
            StoreError::NotABank {
                path: bank.to_path_buf(),
                detail: "the file is not an SQLite database".into(),
            }
            .into()
        }
        e => SnapshotError::Sqlite {
            path: bank.to_path_buf(),
            source: e,
        },
    }
}

pub(crate) fn user_version(conn: &Connection) -> rusqlite::Result<u32> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
}

/// The tables of run records: every table whose name starts with `run_`, found in the
/// database itself, so that run tables added by later schemas are covered without a list.
pub(crate) fn run_tables(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    // GLOB is case-sensitive and takes `_` literally, unlike LIKE.
    conn.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'run_*' ORDER BY name",
    )?
    .query_map([], |r| r.get(0))?
    .collect()
}

/// The run tables of a copy and the rows in them: kept, or dropped (the tables stay, their
/// rows go).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunRecords {
    pub tables: Vec<String>,
    pub rows: u64,
}

/// Empties every run table of the copy. When rows went, the copy is vacuumed again: deleted
/// rows stay readable in free pages until then, and a snapshot without runs must not carry
/// them.
///
/// Run tables refer to one another (`run_releases.run_id`), and the bundled SQLite enforces
/// foreign keys by default: they are switched off on this connection, since every run table
/// is emptied whole.
pub(crate) fn drop_runs(conn: &Connection) -> rusqlite::Result<RunRecords> {
    let tables = run_tables(conn)?;
    conn.pragma_update(None, "foreign_keys", false)?;
    let mut rows = 0;
    for table in &tables {
        rows += conn.execute(&format!("DELETE FROM {}", quoted(table)), [])? as u64;
    }
    if rows > 0 {
        conn.execute_batch("VACUUM")?;
    }
    Ok(RunRecords { tables, rows })
}

/// Rows in the run tables.
pub(crate) fn run_rows(conn: &Connection) -> rusqlite::Result<u64> {
    let mut rows = 0;
    for table in run_tables(conn)? {
        rows += conn.query_row(
            &format!("SELECT COUNT(*) FROM {}", quoted(&table)),
            [],
            |r| r.get::<_, i64>(0),
        )? as u64;
    }
    Ok(rows)
}

/// An identifier quoted for SQL: the table names come from the file, not from us.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

pub(crate) fn counts(conn: &Connection) -> rusqlite::Result<BankCounts> {
    let count = |table: &str| {
        conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|n| n as u64)
    };
    Ok(BankCounts {
        distributions: count("distributions")?,
        releases: count("releases")?,
        apis: count("apis")?,
    })
}

/// A snapshot's database is one file in rollback-journal mode; the bank it becomes is put
/// back into WAL mode by the usual open.
pub(crate) fn rollback_journal(conn: &Connection) -> rusqlite::Result<()> {
    let _: String = conn.pragma_update_and_check(None, "journal_mode", "DELETE", |r| r.get(0))?;
    Ok(())
}

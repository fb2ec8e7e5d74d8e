//! Row seals: a crc32 over a row's values, stored in its `seal` column and checked whenever
//! the row is read.
//!
//! SQLite checks its pages' structure, not what values hold: a flipped bit inside a release
//! set is another release set, read without complaint. So every row that holds a release set
//! (and the signature texts) carries a seal over its key and its values, which readers check
//! before they use any of them; a row that fails is reported as corrupt, naming its table and
//! key, never read as empty. Path dictionaries have seals of their own inside their blobs
//! (see [`super::path_dictionary::seal`]).
//!
//! The seal is the crc32 of each sealed column in turn: a type tag, then an integer's 8 bytes
//! (little-endian), or a text's or blob's length (4 bytes) and bytes; stored as a signed
//! 32-bit integer, so that SQLite keeps it in at most 4 bytes. Rows of a bank older than
//! schema 7 were sealed by the migration, as they were; from then on a row without a seal is
//! corrupt too.

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, Row, ToSql};

/// A table whose rows carry a seal.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SealedTable {
    pub name: &'static str,
    /// The sealed columns, in the seal's order; readers select them in this order, then `seal`.
    pub columns: &'static [&'static str],
    /// How many of the first columns name the row (its key).
    pub key: usize,
    /// The schema version that made the table sealed (or made it).
    pub since: u32,
}

pub(crate) const APIS: SealedTable = SealedTable {
    name: "apis",
    columns: &[
        "id", "dist_id", "kind", "static", "runtime", "open", "external",
    ],
    key: 1,
    since: 7,
};
pub(crate) const MODULES: SealedTable = SealedTable {
    name: "modules",
    columns: &[
        "dist_id",
        "path",
        "releases",
        "opaque",
        "dynamic",
        "raises",
        "raises_message",
        "extends_path",
        "runtime",
        "listed",
    ],
    key: 2,
    since: 7,
};
pub(crate) const IMPORT_NAMES: SealedTable = SealedTable {
    name: "import_names",
    columns: &["dist_id", "name", "releases"],
    key: 2,
    since: 7,
};
pub(crate) const ALIASES: SealedTable = SealedTable {
    name: "aliases",
    columns: &["api_id", "canonical_id", "releases", "runtime"],
    key: 2,
    since: 7,
};
pub(crate) const CLASS_BASES: SealedTable = SealedTable {
    name: "class_bases",
    columns: &["class_id", "base_id", "releases", "runtime"],
    key: 2,
    since: 7,
};
pub(crate) const SIGNATURES: SealedTable = SealedTable {
    name: "signatures",
    columns: &["id", "hash", "text"],
    key: 1,
    since: 7,
};
pub(crate) const API_SIGNATURES: SealedTable = SealedTable {
    name: "api_signatures",
    columns: &["api_id", "signature_id", "releases"],
    key: 2,
    since: 7,
};
pub(crate) const OPEN_CLASSES: SealedTable = SealedTable {
    name: "open_classes",
    columns: &["dist_id", "releases"],
    key: 1,
    since: 7,
};
pub(crate) const IMPORT_TIME: SealedTable = SealedTable {
    name: "import_time",
    columns: &["dist_id", "path", "releases"],
    key: 2,
    since: 7,
};

pub(crate) const DEPRECATIONS: SealedTable = SealedTable {
    name: "deprecations",
    columns: &["dist_id", "path", "fact", "releases"],
    key: 3,
    since: 8,
};

/// Every sealed table.
pub(crate) const SEALED_TABLES: [SealedTable; 10] = [
    APIS,
    MODULES,
    IMPORT_NAMES,
    ALIASES,
    CLASS_BASES,
    SIGNATURES,
    API_SIGNATURES,
    OPEN_CLASSES,
    IMPORT_TIME,
    DEPRECATIONS,
];

/// The columns readers select for a sealed table, seal last, as a literal for `concat!`.
macro_rules! sealed_row {
    (apis) => {
        "id, dist_id, kind, static, runtime, open, external, seal"
    };
    (modules) => {
        "dist_id, path, releases, opaque, dynamic, raises, raises_message, extends_path, runtime, listed, seal"
    };
    (import_names) => {
        "dist_id, name, releases, seal"
    };
    (open_classes) => {
        "dist_id, releases, seal"
    };
    (import_time) => {
        "dist_id, path, releases, seal"
    };
    (deprecations) => {
        "dist_id, path, fact, releases, seal"
    };
}
pub(crate) use sealed_row;

/// `SELECT <sealed columns> FROM <table> <rest>`, as a literal: the reading every sealed
/// table's rows start from.
macro_rules! select_sealed {
    ($table:ident, $rest:literal) => {
        concat!(
            "SELECT ",
            $crate::bank::store::seal::sealed_row!($table),
            " FROM ",
            stringify!($table),
            " ",
            $rest
        )
    };
}
pub(crate) use select_sealed;

impl SealedTable {
    /// Its sealed columns then `seal`, each after `prefix` (a table alias and a dot, or "").
    pub fn select(&self, prefix: &str) -> String {
        self.columns
            .iter()
            .chain(["seal"].iter())
            .map(|c| format!("{prefix}{c}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Why a row fails its seal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealFailure {
    pub table: &'static str,
    /// The row's key, as `column value` pairs.
    pub row: String,
    pub what: String,
}

impl std::fmt::Display for SealFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} row ({}): {}", self.table, self.row, self.what)
    }
}

/// The seal of `values`, in a sealed table's column order. The values are laid out in one
/// buffer first: one crc32 over a row's few dozen bytes costs less than one per value.
pub(crate) fn seal_of<'a>(values: impl IntoIterator<Item = ValueRef<'a>>) -> i64 {
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|buffer| {
        buffer.clear();
        for value in values {
            match value {
                ValueRef::Null => buffer.push(0),
                ValueRef::Integer(i) => {
                    buffer.push(1);
                    buffer.extend_from_slice(&i.to_le_bytes());
                }
                ValueRef::Real(r) => {
                    buffer.push(2);
                    buffer.extend_from_slice(&r.to_le_bytes());
                }
                ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
                    buffer.push(if matches!(value, ValueRef::Text(_)) {
                        3
                    } else {
                        4
                    });
                    buffer.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
                    buffer.extend_from_slice(bytes);
                }
            }
        }
        i64::from(crc32fast::hash(buffer) as i32)
    })
}

/// The seal of parameters about to be written, in the table's column order.
pub(crate) fn seal_params(values: &[&dyn ToSql]) -> rusqlite::Result<i64> {
    let outputs: Vec<ToSqlOutput<'_>> = values
        .iter()
        .map(|v| v.to_sql())
        .collect::<rusqlite::Result<_>>()?;
    Ok(seal_of(outputs.iter().map(|o| match o {
        ToSqlOutput::Borrowed(v) => *v,
        ToSqlOutput::Owned(v) => ValueRef::from(v),
        // Only the types a bank writes (integers, text, blobs, NULL) reach here.
        _ => ValueRef::Null,
    })))
}

/// Executes `stmt` with `values` (a sealed table's columns, in order) and their seal as the
/// last parameter.
pub(crate) fn execute_sealed(
    stmt: &mut rusqlite::CachedStatement<'_>,
    values: &[&dyn ToSql],
) -> rusqlite::Result<usize> {
    let seal = seal_params(values)?;
    stmt.execute(rusqlite::params_from_iter(
        values
            .iter()
            .copied()
            .chain(std::iter::once(&seal as &dyn ToSql)),
    ))
}

/// Whether the row holds its seal: `table`'s sealed columns from column `at` on, then its
/// seal. A value of a type SQLite cannot give back fails as a mismatch.
pub(crate) fn check(table: &SealedTable, row: &Row<'_>, at: usize) -> Result<(), SealFailure> {
    let n = table.columns.len();
    // A column past the row's end, the only error `get_ref` gives, would be the query's bug.
    let value = |i: usize| row.get_ref(i).unwrap_or(ValueRef::Null);
    let what = match row.get_ref(at + n).ok() {
        Some(ValueRef::Integer(seal)) if seal == seal_of((at..at + n).map(value)) => return Ok(()),
        Some(ValueRef::Integer(_)) => "its values do not match its seal",
        Some(ValueRef::Null) => "it has no seal",
        _ => "its seal is not an integer",
    };
    let values: Vec<ValueRef<'_>> = (at..at + n).map(value).collect();
    Err(failure(table, &values, what.to_string()))
}

fn failure(table: &SealedTable, values: &[ValueRef<'_>], what: String) -> SealFailure {
    let row = table
        .columns
        .iter()
        .take(table.key)
        .zip(values)
        .map(|(column, value)| match value {
            ValueRef::Integer(i) => format!("{column} {i}"),
            ValueRef::Text(t) => format!("{column} {:?}", String::from_utf8_lossy(t)),
            other => format!("{column} {:?}", other.data_type()),
        })
        .collect::<Vec<_>>()
        .join(", ");
    SealFailure {
        table: table.name,
        row,
        what,
    }
}

/// Registers `nbenv_seal(...)`, the seal as an SQL function, on `conn`: the migration seals
/// whole tables with it in one statement each.
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        "nbenv_seal",
        -1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx: &Context<'_>| Ok(seal_of((0..ctx.len()).map(|i| ctx.get_raw(i)))),
    )
}

/// Seals every row of every table sealed at schema 7 as it is (the migration to schema 7).
pub(crate) fn seal_all(conn: &Connection) -> rusqlite::Result<()> {
    register(conn)?;
    for table in SEALED_TABLES.iter().filter(|t| t.since <= 7) {
        conn.execute(
            &format!(
                "UPDATE {} SET seal = nbenv_seal({})",
                table.name,
                table.columns.join(", ")
            ),
            [],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_literal_rows_are_the_tables_columns() {
        assert_eq!(sealed_row!(apis), APIS.select(""));
        assert_eq!(sealed_row!(modules), MODULES.select(""));
        assert_eq!(sealed_row!(import_names), IMPORT_NAMES.select(""));
        assert_eq!(sealed_row!(open_classes), OPEN_CLASSES.select(""));
        assert_eq!(sealed_row!(import_time), IMPORT_TIME.select(""));
        assert_eq!(sealed_row!(deprecations), DEPRECATIONS.select(""));
    }

    #[test]
    fn a_seal_tells_types_lengths_and_values_apart() {
        let seal = |v: &[ValueRef<'_>]| seal_of(v.iter().copied());
        let base = seal(&[ValueRef::Integer(1), ValueRef::Blob(b"ab")]);
        for other in [
            seal(&[ValueRef::Integer(2), ValueRef::Blob(b"ab")]),
            seal(&[ValueRef::Integer(1), ValueRef::Blob(b"ac")]),
            seal(&[ValueRef::Integer(1), ValueRef::Text(b"ab")]),
            seal(&[
                ValueRef::Integer(1),
                ValueRef::Blob(b"a"),
                ValueRef::Blob(b"b"),
            ]),
            seal(&[ValueRef::Integer(1), ValueRef::Null]),
        ] {
            assert_ne!(base, other);
        }
        assert!(i32::try_from(base).is_ok());
    }

    #[test]
    fn sql_and_rust_seals_agree_and_reads_check_them() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        conn.execute_batch(
            "CREATE TABLE import_names (dist_id INTEGER, name TEXT, releases BLOB, seal INTEGER);",
        )
        .unwrap();
        let mut insert = conn
            .prepare_cached(
                "INSERT INTO import_names (dist_id, name, releases, seal) VALUES (?1, ?2, ?3, ?4)",
            )
            .unwrap();
        execute_sealed(&mut insert, rusqlite::params![7, "np", vec![0u8, 3]]).unwrap();
        drop(insert);
        let sql: i64 = conn
            .query_row(
                "SELECT nbenv_seal(dist_id, name, releases) = seal FROM import_names",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(sql, 1);
        let read = |conn: &Connection| {
            conn.query_row(
                concat!("SELECT ", sealed_row!(import_names), " FROM import_names"),
                [],
                |r| Ok(check(&IMPORT_NAMES, r, 0)),
            )
            .unwrap()
        };
        assert_eq!(read(&conn), Ok(()));
        conn.execute("UPDATE import_names SET releases = x'0004'", [])
            .unwrap();
        let failure = read(&conn).unwrap_err();
        assert_eq!(
            failure.to_string(),
            "import_names row (dist_id 7, name \"np\"): its values do not match its seal"
        );
        conn.execute("UPDATE import_names SET seal = NULL", [])
            .unwrap();
        assert_eq!(read(&conn).unwrap_err().what, "it has no seal");
    }
}

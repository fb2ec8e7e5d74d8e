//! `bank check`: everything that can tell a damaged bank, over the whole file.
//!
//! SQLite's `integrity_check` reads every page, index and record (and `foreign_key_check` every
//! link between rows), but not what values mean; the seals do that (see [`super::seal`] for
//! rows, [`super::path_dictionary::seal`] for path dictionaries), and readers check them only
//! on the rows a question reads. The check reads every row, writes nothing, and reports every
//! failure rather than stopping at the first.

use rusqlite::types::ValueRef;
use serde::Serialize;

use super::member_index::MemberDirectory;
use super::path_dictionary::{stored_chunk_ids, unseal};
use super::seal::{self, SEALED_TABLES};
use super::{schema, Store, StoreError};

/// What a check read and what failed.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// The bank's schema (an older one is checked as it is, not upgraded).
    pub schema: u32,
    pub checked: Vec<Checked>,
    pub failures: Vec<CheckFailure>,
}

/// One thing checked.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Checked {
    /// `integrity_check`, `foreign_key_check`, `schema`, `row seals`, `path seals`.
    pub check: &'static str,
    /// The table, for a check of one table's rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// Rows read, for a check of one table's rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// Why it was not done, for a check the bank's schema predates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// One failure: which check, where (when known), and what.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CheckFailure {
    pub check: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// The row's key, as `column value` pairs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
    pub what: String,
}

impl std::fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: ", self.check)?;
        match (&self.table, &self.row) {
            (Some(table), Some(row)) => write!(f, "{table} row ({row}): ")?,
            (Some(table), None) => write!(f, "{table}: ")?,
            _ => {}
        }
        f.write_str(&self.what)
    }
}

impl CheckReport {
    pub fn is_clean(&self) -> bool {
        self.failures.is_empty()
    }
}

const ROW_SEALS: &str = "row seals";
const TEXT: &str = "text";
const PATH_SEALS: &str = "path seals";

impl Store {
    /// Checks the whole bank: SQLite's structure and links, then every seal of every row.
    /// Errors only when the bank cannot be read at all; damage is in the report.
    pub fn check(&self) -> Result<CheckReport, StoreError> {
        let conn = self.conn();
        let schema = schema::version(conn).map_err(self.err())?;
        let mut report = CheckReport {
            schema,
            checked: Vec::new(),
            failures: Vec::new(),
        };
        self.sqlite_checks(&mut report)?;
        // The schema's text is a value too: a flip there renames a column.
        report.checked.push(Checked {
            check: "schema",
            table: None,
            rows: None,
            skipped: None,
        });
        match schema::missing_from_schema(conn, schema) {
            Ok(None) => {}
            Ok(Some(detail)) => report.failures.push(CheckFailure {
                check: "schema",
                table: None,
                row: None,
                what: format!("not the schema of version {schema}: {detail}"),
            }),
            Err(e) => report.failures.push(CheckFailure {
                check: "schema",
                table: None,
                row: None,
                what: format!("cannot be read: {e}"),
            }),
        }
        if schema >= 7 {
            for table in SEALED_TABLES.iter().filter(|t| t.since <= schema) {
                self.check_row_seals(table, &mut report);
            }
        } else {
            report.checked.push(Checked {
                check: ROW_SEALS,
                table: None,
                rows: None,
                skipped: Some(format!(
                    "schema {schema} predates them; nbenv seals the rows when it next opens the \
                     bank to write or query it"
                )),
            });
        }
        self.check_path_seals(&mut report);
        self.check_text(&mut report);
        Ok(report)
    }

    /// Every text value of every table decodes as UTF-8, as the readers decode it: a flip
    /// there (in a column no seal covers) made `stats`, `query` and `diff` refuse a bank the
    /// check had passed. Reported by the row's key (its primary key columns).
    fn check_text(&self, report: &mut CheckReport) {
        let conn = self.conn();
        let tables: Vec<String> = conn
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'table' \
                 AND name NOT LIKE 'sqlite_%' ORDER BY name",
            )
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .unwrap_or_default();
        for table in tables {
            // (name, declared type, position in the primary key)
            let columns: Vec<(String, String, i64)> = conn
                .prepare(&format!("PRAGMA table_info(\"{table}\")"))
                .and_then(|mut s| {
                    s.query_map([], |r| Ok((r.get(1)?, r.get(2)?, r.get(5)?)))?
                        .collect()
                })
                .unwrap_or_default();
            let mut key: Vec<&(String, String, i64)> = columns.iter().filter(|c| c.2 > 0).collect();
            key.sort_by_key(|c| c.2);
            let texts: Vec<&String> = columns
                .iter()
                .filter(|c| c.1.to_ascii_uppercase().contains("TEXT"))
                .map(|c| &c.0)
                .collect();
            if texts.is_empty() {
                continue;
            }
            let selected: Vec<String> = key
                .iter()
                .map(|c| &c.0)
                .chain(texts.iter().copied())
                .map(|c| format!("\"{c}\""))
                .collect();
            let sql = format!("SELECT {} FROM \"{table}\"", selected.join(", "));
            let mut rows = 0u64;
            let read = conn.prepare(&sql).and_then(|mut stmt| {
                let mut cursor = stmt.query([])?;
                while let Some(row) = cursor.next()? {
                    rows += 1;
                    for (i, column) in texts.iter().enumerate() {
                        let value = row.get_ref(key.len() + i)?;
                        let ValueRef::Text(bytes) = value else {
                            continue;
                        };
                        if std::str::from_utf8(bytes).is_err() {
                            let names: Vec<&str> = key.iter().map(|c| c.0.as_str()).collect();
                            report.failures.push(CheckFailure {
                                check: TEXT,
                                table: Some(table.clone()),
                                row: (!names.is_empty()).then(|| row_key(row, &names)),
                                what: format!("`{column}` is not UTF-8 text"),
                            });
                        }
                    }
                }
                Ok(())
            });
            if let Err(e) = read {
                report.failures.push(unreadable(TEXT, &table, &e));
            }
            report.checked.push(Checked {
                check: TEXT,
                table: Some(table),
                rows: Some(rows),
                skipped: None,
            });
        }
    }

    fn sqlite_checks(&self, report: &mut CheckReport) -> Result<(), StoreError> {
        let conn = self.conn();
        let lines: Vec<String> = conn
            .prepare("PRAGMA integrity_check")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .map_err(self.err())?;
        report.checked.push(Checked {
            check: "integrity_check",
            table: None,
            rows: None,
            skipped: None,
        });
        for line in lines.into_iter().filter(|l| l != "ok") {
            report.failures.push(CheckFailure {
                check: "integrity_check",
                table: None,
                row: None,
                what: line,
            });
        }
        type Dangling = (String, Option<i64>, String);
        let dangling: Vec<Dangling> = conn
            .prepare("PRAGMA foreign_key_check")
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect()
            })
            .map_err(self.err())?;
        report.checked.push(Checked {
            check: "foreign_key_check",
            table: None,
            rows: None,
            skipped: None,
        });
        for (table, rowid, parent) in dangling {
            report.failures.push(CheckFailure {
                check: "foreign_key_check",
                table: Some(table),
                row: rowid.map(|id| format!("rowid {id}")),
                what: format!("refers to a {parent} row that does not exist"),
            });
        }
        Ok(())
    }

    fn check_row_seals(&self, table: &seal::SealedTable, report: &mut CheckReport) {
        let sql = format!("SELECT {} FROM {}", table.select(""), table.name);
        let mut rows = 0u64;
        let read = self.conn().prepare(&sql).and_then(|mut stmt| {
            let mut cursor = stmt.query([])?;
            while let Some(row) = cursor.next()? {
                rows += 1;
                if let Err(f) = seal::check(table, row, 0) {
                    report.failures.push(CheckFailure {
                        check: ROW_SEALS,
                        table: Some(f.table.to_string()),
                        row: Some(f.row),
                        what: f.what,
                    });
                }
            }
            Ok(())
        });
        if let Err(e) = read {
            report.failures.push(unreadable(ROW_SEALS, table.name, &e));
        }
        report.checked.push(Checked {
            check: ROW_SEALS,
            table: Some(table.name.to_string()),
            rows: Some(rows),
            skipped: None,
        });
    }

    /// The seals inside path dictionaries: each chunk's directory (or, before schema 5, the
    /// whole chunk), its member directory, and every block of either.
    fn check_path_seals(&self, report: &mut CheckReport) {
        let has = |table: &str| -> bool {
            self.conn()
                .query_row(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                    [table],
                    |_| Ok(()),
                )
                .is_ok()
        };
        let members = has("api_member_blocks");
        let chunk_sql = if members {
            "SELECT dist_id, chunk, paths, members FROM api_path_chunks"
        } else {
            "SELECT dist_id, chunk, paths, NULL FROM api_path_chunks"
        };
        if has("api_path_chunks") {
            let mut rows = 0u64;
            let read = self.conn().prepare(chunk_sql).and_then(|mut stmt| {
                let mut cursor = stmt.query([])?;
                while let Some(r) = cursor.next()? {
                    rows += 1;
                    let key = || -> rusqlite::Result<String> {
                        Ok(format!(
                            "dist_id {}, chunk {}",
                            r.get::<_, i64>(0)?,
                            r.get::<_, i64>(1)?
                        ))
                    };
                    let paths = r.get_ref(2)?.as_blob().ok();
                    if paths.is_none_or(|b| stored_chunk_ids(b).is_err()) {
                        report.failures.push(path_failure(
                            "api_path_chunks",
                            key()?,
                            "paths: the directory fails its seal or does not decode",
                        ));
                    }
                    match r.get_ref(3)? {
                        rusqlite::types::ValueRef::Null => {}
                        value => {
                            if value
                                .as_blob()
                                .ok()
                                .is_none_or(|b| MemberDirectory::decode(b).is_err())
                            {
                                report.failures.push(path_failure(
                                    "api_path_chunks",
                                    key()?,
                                    "members: the member directory fails its seal or does not \
                                     decode",
                                ));
                            }
                        }
                    }
                }
                Ok(())
            });
            if let Err(e) = read {
                report
                    .failures
                    .push(unreadable(PATH_SEALS, "api_path_chunks", &e));
            }
            report.checked.push(Checked {
                check: PATH_SEALS,
                table: Some("api_path_chunks".into()),
                rows: Some(rows),
                skipped: None,
            });
        }
        for (table, column) in [
            ("api_path_blocks", "paths"),
            ("api_member_blocks", "entries"),
        ] {
            if !has(table) {
                continue;
            }
            let mut rows = 0u64;
            let sql = format!("SELECT id, dist_id, chunk, block, {column} FROM {table}");
            let read = self.conn().prepare(&sql).and_then(|mut stmt| {
                let mut cursor = stmt.query([])?;
                while let Some(r) = cursor.next()? {
                    rows += 1;
                    let blob = r.get_ref(4)?.as_blob().ok();
                    if blob.is_none_or(|b| unseal(b).is_err()) {
                        report.failures.push(path_failure(
                            table,
                            format!(
                                "id {}, dist_id {}, chunk {}, block {}",
                                r.get::<_, i64>(0)?,
                                r.get::<_, i64>(1)?,
                                r.get::<_, i64>(2)?,
                                r.get::<_, i64>(3)?
                            ),
                            &format!("{column}: the block fails its seal"),
                        ));
                    }
                }
                Ok(())
            });
            if let Err(e) = read {
                report.failures.push(unreadable(PATH_SEALS, table, &e));
            }
            report.checked.push(Checked {
                check: PATH_SEALS,
                table: Some(table.into()),
                rows: Some(rows),
                skipped: None,
            });
        }
    }
}

fn path_failure(table: &str, row: String, what: &str) -> CheckFailure {
    CheckFailure {
        check: PATH_SEALS,
        table: Some(table.into()),
        row: Some(row),
        what: what.into(),
    }
}

/// A row's key as `column value` pairs, from its first `names.len()` columns.
fn row_key(row: &rusqlite::Row<'_>, names: &[&str]) -> String {
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let value = match row.get_ref(i) {
                Ok(ValueRef::Integer(n)) => n.to_string(),
                Ok(ValueRef::Text(t)) => String::from_utf8_lossy(t).into_owned(),
                _ => "?".to_string(),
            };
            format!("{name} {value}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn unreadable(check: &'static str, table: &str, e: &rusqlite::Error) -> CheckFailure {
    CheckFailure {
        check,
        table: Some(table.into()),
        row: None,
        what: format!("cannot be read to the end: {e}"),
    }
}

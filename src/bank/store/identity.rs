//! Telling an nbenv bank from another program's SQLite file. `user_version` is any program's
//! to set, so it proves nothing: a bank carries nbenv's `application_id` in its header, and a
//! bank made before nbenv set one (id 0) is known by nbenv's own tables.

use rusqlite::Connection;

/// nbenv's `PRAGMA application_id`: ASCII "nbEn".
pub const APPLICATION_ID: i32 = i32::from_be_bytes(*b"nbEn");

/// Tables every bank has had since its first schema: with `user_version` > 0 and no
/// application id, these make a file a bank of an earlier nbenv.
const BANK_TABLES: [&str; 5] = ["meta", "distributions", "releases", "modules", "apis"];

/// What an SQLite file is, to nbenv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// No tables and no ids: a new bank may be made in it.
    Empty,
    /// An nbenv bank of schema `version`; `stamped` when it carries nbenv's application id
    /// (one of an earlier nbenv gets it at its first write).
    Bank { version: u32, stamped: bool },
    /// Another program's file, and why it is not a bank.
    Foreign { detail: String },
}

/// Reads what the database on `conn` is, without writing anything.
pub fn identify(conn: &Connection) -> rusqlite::Result<Identity> {
    let id: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if id == APPLICATION_ID {
        return Ok(Identity::Bank {
            version,
            stamped: true,
        });
    }
    if id != 0 {
        return Ok(Identity::Foreign {
            detail: format!(
                "it is an SQLite database of another program (application id {id:#010x})"
            ),
        });
    }
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    if version == 0 && tables.is_empty() {
        return Ok(Identity::Empty);
    }
    let ours = BANK_TABLES
        .iter()
        .all(|t| tables.iter().any(|have| have == t));
    if version > 0 && ours {
        return Ok(Identity::Bank {
            version,
            stamped: false,
        });
    }
    Ok(Identity::Foreign {
        detail: "it is an SQLite database of another program (it has tables and no nbenv schema)"
            .into(),
    })
}

/// Marks a bank as nbenv's; done in every write open, so that a bank of an earlier nbenv gets
/// the id once.
pub fn stamp(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "application_id", APPLICATION_ID)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(sql: &str) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(sql).unwrap();
        conn
    }

    #[test]
    fn a_bank_is_known_by_its_id_or_its_tables_never_by_user_version_alone() {
        assert_eq!(identify(&db("")).unwrap(), Identity::Empty);
        let legacy = "CREATE TABLE meta (k); CREATE TABLE distributions (i); \
                      CREATE TABLE releases (i); CREATE TABLE modules (i); CREATE TABLE apis (i); \
                      PRAGMA user_version = 6;";
        assert_eq!(
            identify(&db(legacy)).unwrap(),
            Identity::Bank {
                version: 6,
                stamped: false
            }
        );
        let stamped = db(legacy);
        stamp(&stamped).unwrap();
        assert_eq!(
            identify(&stamped).unwrap(),
            Identity::Bank {
                version: 6,
                stamped: true
            }
        );
        for foreign in [
            "CREATE TABLE notes (t); PRAGMA user_version = 5;",
            "CREATE TABLE notes (t);",
            "PRAGMA application_id = 1234; PRAGMA user_version = 6;",
            &format!("{legacy} PRAGMA application_id = 7;"),
        ] {
            assert!(
                matches!(identify(&db(foreign)).unwrap(), Identity::Foreign { .. }),
                "{foreign}"
            );
        }
    }
}

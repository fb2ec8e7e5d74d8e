//! Putting a checked database in the bank's place.
//!
//! The new file is renamed over the bank, in the bank's directory, under the writer lock. A
//! bank is in WAL mode: its `-wal` may hold committed pages not yet in the file, and SQLite
//! applies whatever `-wal` lies beside a database when it opens it. The new database must
//! never meet the old WAL. So, before the rename, the old bank is switched to rollback
//! journal mode: SQLite then copies the WAL's pages into the old file and deletes `-wal` and
//! `-shm`. That switch needs an exclusive lock, which SQLite grants only when no other
//! connection has the bank open (WAL connections hold a shared lock for as long as they are
//! open): so it also proves that no running nbenv would go on reading or writing the old
//! file, now unlinked, after the rename. If one does, the import is refused and the bank left
//! as it was. Leftover `-wal`, `-shm` or `-journal` files (of a bank deleted by hand, or a
//! crash) are removed before the rename too. Nothing can make new ones meanwhile: every
//! nbenv write and journal-mode change takes the writer lock, which the import holds, and a
//! reader of a rollback-mode file creates none.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use tempfile::NamedTempFile;

use super::error::SnapshotError;
use super::export::sync_dir;
use crate::bank::store::{sqlite_full_disk, Identity};
use crate::disk_full::{DiskFull, Written};

/// What the bank's path holds before an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExistingBank {
    /// No file.
    Missing,
    /// An empty file, or a bank without releases.
    Empty,
    /// A bank with releases (`None`: a bank too damaged to count them).
    Bank { releases: Option<u64> },
    /// A file that is not an nbenv bank: never replaced.
    Foreign { detail: String },
}

impl ExistingBank {
    /// Looks at the bank's path, read-only. A bank whose disk is too full to read it (SQLite
    /// makes its WAL index to read it) is an error, not another program's file.
    pub fn inspect(bank: &Path) -> Result<Self, SnapshotError> {
        let len = match std::fs::metadata(bank) {
            Ok(m) => m.len(),
            Err(_) => return Ok(ExistingBank::Missing),
        };
        if len == 0 {
            return Ok(ExistingBank::Empty);
        }
        let foreign = |detail: &str| ExistingBank::Foreign {
            detail: detail.to_string(),
        };
        let Ok(conn) = Connection::open_with_flags(
            bank,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        ) else {
            return Ok(foreign("the file is not an SQLite database"));
        };
        let _ = conn.busy_timeout(Duration::from_secs(5));
        Ok(match crate::bank::store::identify(&conn) {
            Err(e) => match sqlite_full_disk(Some(&conn), &e) {
                Some(limit) => {
                    return Err(DiskFull {
                        path: bank.to_path_buf(),
                        written: Written::Bank,
                        limit,
                    }
                    .into())
                }
                None => foreign("the file is not an SQLite database"),
            },
            // Not nbenv's to replace, even when forced: whatever its `user_version`.
            Ok(Identity::Foreign { detail }) => ExistingBank::Foreign { detail },
            Ok(Identity::Empty) => ExistingBank::Empty,
            Ok(Identity::Bank { .. }) => {
                match conn.query_row("SELECT COUNT(*) FROM releases", [], |r| r.get::<_, i64>(0)) {
                    Ok(0) => ExistingBank::Empty,
                    Ok(n) => ExistingBank::Bank {
                        releases: Some(n as u64),
                    },
                    Err(_) => ExistingBank::Bank { releases: None },
                }
            }
        })
    }
}

/// Whether an import may replace what is there: a missing or empty bank always, a bank with
/// releases only when forced, another program's file never.
pub fn may_replace(bank: &Path, existing: &ExistingBank, force: bool) -> Result<(), SnapshotError> {
    match existing {
        ExistingBank::Missing | ExistingBank::Empty => Ok(()),
        ExistingBank::Bank { .. } if force => Ok(()),
        ExistingBank::Bank { releases } => Err(SnapshotError::BankNotEmpty {
            bank: bank.to_path_buf(),
            releases: *releases,
        }),
        ExistingBank::Foreign { detail } => Err(crate::bank::store::StoreError::NotABank {
            path: bank.to_path_buf(),
            detail: format!(
                "{detail}; it is left as it is, even with --force (not nbenv's to replace: \
                 remove it by hand to import there)"
            ),
        }
        .into()),
    }
}

/// Renames `database` over `bank` (the caller holds the writer lock), after the old bank's
/// WAL is folded in and its side files are gone.
pub(crate) fn replace(
    database: NamedTempFile,
    bank: &Path,
    existing: &ExistingBank,
) -> Result<(), SnapshotError> {
    if matches!(existing, ExistingBank::Bank { .. } | ExistingBank::Empty) && bank_len(bank) > 0 {
        settle_old_bank(bank)?;
    }
    for suffix in ["-wal", "-shm", "-journal"] {
        let side = side_file(bank, suffix);
        match std::fs::remove_file(&side) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(SnapshotError::Io {
                    path: side,
                    action: "removing the old bank's side file",
                    source: e,
                })
            }
        }
    }
    if let Ok(old) = std::fs::metadata(bank) {
        // Best effort: a bank shared through group permissions stays shared.
        let _ = std::fs::set_permissions(database.path(), old.permissions());
    }
    database.persist(bank).map_err(|e| SnapshotError::Io {
        path: bank.to_path_buf(),
        action: "renaming the imported bank into place",
        source: e.error,
    })?;
    if let Some(dir) = bank.parent().filter(|d| !d.as_os_str().is_empty()) {
        sync_dir(dir);
    }
    Ok(())
}

fn bank_len(bank: &Path) -> u64 {
    std::fs::metadata(bank).map_or(0, |m| m.len())
}

pub(crate) fn side_file(bank: &Path, suffix: &str) -> PathBuf {
    let mut p = bank.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// Switches the old bank to rollback-journal mode: its WAL is checkpointed into it and
/// deleted, which SQLite does only when no other connection has it open.
fn settle_old_bank(bank: &Path) -> Result<(), SnapshotError> {
    let in_use = || SnapshotError::BankInUse {
        bank: bank.to_path_buf(),
    };
    let conn = Connection::open(bank).map_err(SnapshotError::sqlite(bank))?;
    // A short read that is just ending may finish; a long-running reader will not.
    conn.busy_timeout(Duration::from_secs(2))
        .map_err(SnapshotError::sqlite(bank))?;
    match conn.pragma_update_and_check(None, "journal_mode", "DELETE", |r| r.get::<_, String>(0)) {
        Ok(mode) if mode.eq_ignore_ascii_case("delete") => Ok(()),
        Ok(_) => Err(in_use()),
        Err(rusqlite::Error::SqliteFailure(f, _))
            if matches!(
                f.code,
                rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
            ) =>
        {
            Err(in_use())
        }
        // A damaged bank (replaced with --force) cannot be checkpointed; its side files are
        // removed all the same, as they belong to what is being thrown away.
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_may_be_replaced() {
        let bank = Path::new("b.sqlite3");
        let full = ExistingBank::Bank { releases: Some(3) };
        for (existing, force, ok) in [
            (ExistingBank::Missing, false, true),
            (ExistingBank::Empty, false, true),
            (full.clone(), false, false),
            (full, true, true),
            (ExistingBank::Bank { releases: None }, true, true),
            (ExistingBank::Foreign { detail: "x".into() }, true, false),
        ] {
            assert_eq!(
                may_replace(bank, &existing, force).is_ok(),
                ok,
                "{existing:?} force={force}"
            );
        }
    }
}

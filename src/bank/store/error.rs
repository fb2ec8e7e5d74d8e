use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::disk_full::{DiskFull, Limit, Written};

/// Errors of the bank's SQLite store. Each names the bank file, because users keep several.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("bank {}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    /// The disk (or quota) is full: the transaction in flight was rolled back, and what was
    /// committed before is all there.
    #[error("{0}")]
    DiskFull(#[from] DiskFull),
    #[error("bank {} has schema version {found}, newer than this nbenv understands ({supported}); upgrade nbenv", path.display())]
    TooNew {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error("bank {} is not an nbenv bank: {detail}", path.display())]
    NotABank { path: PathBuf, detail: String },
    #[error("bank {}: corrupt {what}", path.display())]
    Corrupt { path: PathBuf, what: String },
    #[error("bank {} does not exist (build one with `nbenv bank add` or `nbenv bank build`)", path.display())]
    Missing { path: PathBuf },
    /// Another process holds the writer lock, and waiting was not wanted.
    #[error("bank {}: another nbenv is writing it; try again, or leave out --no-wait to wait for it", path.display())]
    Busy { path: PathBuf },
}

impl StoreError {
    /// The error `source` of SQLite on the database at `path` (the bank, or the summary
    /// cache: `written` says which), through `conn` when there is one to ask.
    pub(crate) fn sqlite(
        path: &Path,
        written: Written,
        conn: Option<&Connection>,
        source: rusqlite::Error,
    ) -> Self {
        match full_disk(conn, &source) {
            Some(limit) => StoreError::DiskFull(DiskFull {
                path: path.to_path_buf(),
                written,
                limit,
            }),
            None => StoreError::Sqlite {
                path: path.to_path_buf(),
                source,
            },
        }
    }

    /// Whether the error is a full disk (or quota).
    pub fn is_disk_full(&self) -> bool {
        matches!(self, StoreError::DiskFull(_))
    }
}

/// Whether SQLite's error means a full disk: its own code for it (`SQLITE_FULL`, which it
/// gives when a write to the database or its journal runs out of space), or an I/O error whose
/// system call failed with `ENOSPC` or `EDQUOT` (growing the WAL index, `-shm`, is reported as
/// `SQLITE_IOERR_SHMSIZE`; the errno is the connection's to tell).
pub(crate) fn full_disk(conn: Option<&Connection>, e: &rusqlite::Error) -> Option<Limit> {
    let rusqlite::Error::SqliteFailure(failure, _) = e else {
        return None;
    };
    match failure.code {
        rusqlite::ErrorCode::DiskFull => Some(Limit::Device),
        rusqlite::ErrorCode::SystemIoFailure | rusqlite::ErrorCode::CannotOpen => {
            // SAFETY: the handle is the live connection's own, and `sqlite3_system_errno`
            // only reads the errno it recorded with its last I/O error (this one: SQLite sets
            // it with every SQLITE_IOERR and SQLITE_CANTOPEN it returns).
            let errno = unsafe { rusqlite::ffi::sqlite3_system_errno(conn?.handle()) };
            Limit::of_errno(errno)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_full_is_a_full_disk_naming_the_database() {
        let full = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            None,
        );
        let e = StoreError::sqlite(Path::new("/b/bank.sqlite3"), Written::Bank, None, full);
        assert!(e.is_disk_full(), "{e:?}");
        assert_eq!(
            e.to_string(),
            "no space left on the device writing /b/bank.sqlite3: free some space or point \
             --bank (NBENV_BANK) elsewhere"
        );
        // An I/O error with no connection to ask stays what SQLite said.
        let io = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_IOERR_SHMSIZE),
            None,
        );
        let e = StoreError::sqlite(Path::new("/b/bank.sqlite3"), Written::Bank, None, io);
        assert!(matches!(e, StoreError::Sqlite { .. }), "{e:?}");
        let busy = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            None,
        );
        let conn = Connection::open_in_memory().unwrap();
        let e = StoreError::sqlite(Path::new("b"), Written::Bank, Some(&conn), busy);
        assert!(!e.is_disk_full());
    }
}

//! The per-file summary cache: extraction results keyed by (source sha256, stub, extraction
//! version), so a file shipped unchanged by many releases is downloaded and parsed once.
//!
//! It lives in the cache directory, not in the bank: it only speeds up building, it is most
//! of a bank's bytes if kept there, and losing it only costs parsing again.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::StoreError;
use crate::bank::extract::{FileSummary, Sha256};
use crate::disk_full::Written;

/// Compressed JSON: summaries are repetitive text.
pub fn encode_summary(summary: &FileSummary) -> Vec<u8> {
    let json = serde_json::to_vec(summary).expect("summaries serialize");
    let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&json).expect("writing to memory");
    enc.finish().expect("writing to memory")
}

pub fn decode_summary(blob: &[u8]) -> Option<FileSummary> {
    let mut json = Vec::new();
    flate2::read::ZlibDecoder::new(blob)
        .take(64 << 20)
        .read_to_end(&mut json)
        .ok()?;
    serde_json::from_slice(&json).ok()
}

/// The summary cache file, shared by the workers of a build: reads go through a pool of
/// read-only connections (WAL lets them run beside the writer), writes through one.
pub struct SummaryStore {
    path: PathBuf,
    pool: Mutex<Vec<Connection>>,
    writer: Mutex<Connection>,
}

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS file_summaries (
    key BLOB PRIMARY KEY,
    summary BLOB NOT NULL
) WITHOUT ROWID;";

/// SQLite's errors on the summary cache at `path`, through `conn` when there is one: it is in
/// the cache directory, and a full disk there is the cache's.
fn cache_err<'a>(
    path: &'a Path,
    conn: Option<&'a Connection>,
) -> impl Fn(rusqlite::Error) -> StoreError + 'a {
    move |source| StoreError::sqlite(path, Written::Cache, conn, source)
}

fn open_writer(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path).map_err(cache_err(path, None))?;
    let set_up = (|| {
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))?;
        conn.execute_batch("PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=30000;")?;
        conn.execute_batch(SCHEMA)
    })();
    set_up.map_err(cache_err(path, Some(&conn)))?;
    Ok(conn)
}

impl SummaryStore {
    /// Opens (or creates) the cache at `path`. A file that is not a usable cache is replaced:
    /// its contents can always be made again. A full disk is said as it is: replacing the file
    /// would not make room.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let writer = match open_writer(path) {
            Ok(c) => c,
            Err(e) if e.is_disk_full() => return Err(e),
            Err(_) => {
                for suffix in ["", "-wal", "-shm"] {
                    let mut p = path.as_os_str().to_owned();
                    p.push(suffix);
                    let _ = std::fs::remove_file(p);
                }
                open_writer(path)?
            }
        };
        Ok(Self {
            path: path.to_path_buf(),
            pool: Mutex::new(Vec::new()),
            writer: Mutex::new(writer),
        })
    }

    /// The cached summaries among `keys`. An undecodable entry counts as absent (it is then
    /// made again and overwritten).
    pub fn get(&self, keys: &[Sha256]) -> Result<HashMap<Sha256, FileSummary>, StoreError> {
        let pooled = self.pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let conn = match pooled {
            Some(c) => c,
            None => Connection::open_with_flags(
                &self.path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(cache_err(&self.path, None))?,
        };
        let result = (|| {
            let mut stmt =
                conn.prepare_cached("SELECT summary FROM file_summaries WHERE key = ?1")?;
            let mut out = HashMap::with_capacity(keys.len());
            for key in keys {
                let blob: Option<Vec<u8>> =
                    stmt.query_row([&key.0[..]], |r| r.get(0)).optional()?;
                if let Some(summary) = blob.as_deref().and_then(decode_summary) {
                    out.insert(*key, summary);
                }
            }
            Ok(out)
        })()
        .map_err(cache_err(&self.path, Some(&conn)));
        self.pool
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(conn);
        result
    }

    /// Stores summaries, in one transaction.
    pub fn put<S: std::borrow::Borrow<FileSummary>>(
        &self,
        items: &[(Sha256, S)],
    ) -> Result<(), StoreError> {
        if items.is_empty() {
            return Ok(());
        }
        let mut conn = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let written = (|| {
            let tx = conn.transaction()?;
            {
                let mut stmt = tx.prepare_cached(
                    "INSERT OR REPLACE INTO file_summaries (key, summary) VALUES (?1, ?2)",
                )?;
                for (key, summary) in items {
                    stmt.execute(rusqlite::params![
                        &key.0[..],
                        encode_summary(summary.borrow())
                    ])?;
                }
            }
            tx.commit()
        })();
        written.map_err(cache_err(&self.path, Some(&conn)))
    }
}

//! The per-file summary cache: extraction results keyed by the source file's sha256, so a
//! file shipped unchanged by many releases is downloaded and parsed once.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::{sqlite_err, StoreError};
use crate::bank::extract::{FileSummary, Sha256};

/// Compressed JSON: summaries are repetitive text, and a full-history bank holds millions.
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

/// Read-only connections for worker threads that look summaries up while the writer writes
/// (WAL lets them run side by side).
pub struct SummaryReader {
    path: PathBuf,
    pool: Mutex<Vec<Connection>>,
}

impl SummaryReader {
    pub fn new(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            pool: Mutex::new(Vec::new()),
        }
    }

    fn with_conn<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let conn = self.pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let conn = match conn {
            Some(c) => c,
            None => Connection::open_with_flags(
                &self.path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(sqlite_err(&self.path))?,
        };
        let result = f(&conn);
        self.pool
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(conn);
        result
    }

    /// The cached summaries among `hashes`. An undecodable entry counts as absent (it is then
    /// re-extracted and overwritten).
    pub fn get(&self, hashes: &[Sha256]) -> Result<HashMap<Sha256, FileSummary>, StoreError> {
        self.with_conn(|conn| {
            let mut stmt = conn
                .prepare_cached("SELECT summary FROM file_summaries WHERE sha256 = ?1")
                .map_err(sqlite_err(&self.path))?;
            let mut out = HashMap::with_capacity(hashes.len());
            for hash in hashes {
                let blob: Option<Vec<u8>> = stmt
                    .query_row([&hash.0[..]], |r| r.get(0))
                    .optional()
                    .map_err(sqlite_err(&self.path))?;
                if let Some(summary) = blob.as_deref().and_then(decode_summary) {
                    out.insert(*hash, summary);
                }
            }
            Ok(out)
        })
    }
}

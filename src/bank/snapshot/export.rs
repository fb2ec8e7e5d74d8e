//! `bank export`: the bank, copied consistently, run records dropped unless wanted, hashed and
//! compressed into one snapshot file written atomically.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use sha2::{Digest, Sha256};

use super::container::{Compression, SnapshotHeader};
use super::copy::{self, RunRecords};
use super::error::SnapshotError;
use super::index_section;
use crate::bank::store::EXTRACTOR_VERSION;
use crate::disk_full::Written;
use crate::pypi::Cache;

/// zstd's default level: on the full bank it compresses at about 200 MB/s on one core to
/// 31% of the database; level 9 makes it 7% smaller for several times the time (README,
/// Benchmarks).
pub const DEFAULT_LEVEL: i32 = 3;

#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// Keep the rows of the run tables.
    pub with_runs: bool,
    /// zstd level, 1 to 19.
    pub level: i32,
    /// Carry this cache's index pages and core metadata after the bank.
    pub index_cache: Option<Cache>,
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self {
            with_runs: false,
            level: DEFAULT_LEVEL,
            index_cache: None,
        }
    }
}

/// What an export wrote.
#[derive(Debug, Clone)]
pub struct ExportReport {
    pub snapshot: PathBuf,
    pub header: SnapshotHeader,
    /// Bytes of the snapshot file.
    pub snapshot_len: u64,
    /// Run tables found, and rows in them: kept with `with_runs`, else dropped.
    pub runs: RunRecords,
}

/// Writes a snapshot of the bank at `bank` to `out`, replacing `out` atomically: a reader of
/// `out` sees the old file or the whole new one. The bank itself is only read.
pub fn export(
    bank: &Path,
    out: &Path,
    options: &ExportOptions,
) -> Result<ExportReport, SnapshotError> {
    // Everything written is written beside `out`: a full disk there is the snapshot's.
    export_beside(bank, out, options).map_err(|e| e.on_full_disk(out, Written::Output))
}

fn export_beside(
    bank: &Path,
    out: &Path,
    options: &ExportOptions,
) -> Result<ExportReport, SnapshotError> {
    copy::check_exists(bank)?;
    refuse_overwriting_the_bank(bank, out)?;
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).map_err(SnapshotError::io(&dir, "creating the directory"))?;
    // Scratch files live beside the output: same file system for the final rename, and the
    // place the user chose to have room for a snapshot.
    // What killed exports left there goes first.
    crate::leftover::remove_abandoned_in(&dir);
    let scratch = tempfile::Builder::new()
        .prefix(&crate::leftover::prefix(crate::leftover::Kind::Export))
        .tempdir_in(&dir)
        .map_err(SnapshotError::io(&dir, "creating a scratch directory"))?;
    let db = scratch.path().join("bank.sqlite3");
    copy::consistent_copy(bank, &db)?;

    let (schema_version, runs, counts) = {
        let conn = Connection::open(&db).map_err(SnapshotError::sqlite(&db))?;
        let at = |e| SnapshotError::Sqlite {
            path: db.clone(),
            source: e,
        };
        let version = copy::user_version(&conn).map_err(at)?;
        copy::check_version(bank, version)?;
        let runs = if options.with_runs {
            RunRecords {
                tables: copy::run_tables(&conn).map_err(at)?,
                rows: copy::run_rows(&conn).map_err(at)?,
            }
        } else {
            copy::drop_runs(&conn).map_err(at)?
        };
        let counts = copy::counts(&conn).map_err(at)?;
        copy::rollback_journal(&conn).map_err(at)?;
        (version, runs, counts)
    };

    let payload = scratch.path().join("bank.sqlite3.zst");
    let (db_len, db_sha256) = compress(&db, &payload, options.level)?;
    let payload_len = std::fs::metadata(&payload)
        .map_err(SnapshotError::io(&payload, "reading"))?
        .len();
    let index_payload = scratch.path().join("index-cache.zst");
    let index_cache = match &options.index_cache {
        Some(cache) => Some(index_section::write_section(
            cache,
            &index_payload,
            options.level,
        )?),
        None => None,
    };
    let header = SnapshotHeader {
        schema_version,
        extractor_version: EXTRACTOR_VERSION,
        with_runs: options.with_runs,
        compression: Compression::Zstd,
        db_len,
        db_sha256,
        payload_len,
        created: jiff::Timestamp::now(),
        nbenv_version: env!("CARGO_PKG_VERSION").to_string(),
        counts,
        index_cache,
    };
    let payloads = [payload.as_path(), index_payload.as_path()];
    let payloads = &payloads[..if header.index_cache.is_some() { 2 } else { 1 }];
    let snapshot_len = write_snapshot(&header, payloads, out, &dir)?;
    Ok(ExportReport {
        snapshot: out.to_path_buf(),
        header,
        snapshot_len,
        runs,
    })
}

/// `bank export` onto the bank's own path would replace the bank with a snapshot.
fn refuse_overwriting_the_bank(bank: &Path, out: &Path) -> Result<(), SnapshotError> {
    let same = match (bank.canonicalize(), out.canonicalize()) {
        (Ok(b), Ok(o)) => b == o,
        _ => false,
    };
    if same {
        return Err(SnapshotError::Io {
            path: out.to_path_buf(),
            action: "writing the snapshot",
            source: std::io::Error::other("it is the bank itself; name another file"),
        });
    }
    Ok(())
}

/// Compresses `db` into `payload`, returning the database's length and sha256, both taken
/// from the same pass.
fn compress(db: &Path, payload: &Path, level: i32) -> Result<(u64, String), SnapshotError> {
    let write_err = SnapshotError::io(payload, "compressing the bank");
    let mut input = File::open(db).map_err(SnapshotError::io(db, "reading the copy"))?;
    let file = File::create(payload).map_err(SnapshotError::io(payload, "creating"))?;
    let result = (|| {
        let mut encoder = zstd::Encoder::new(BufWriter::with_capacity(1 << 20, file), level)?;
        encoder.include_checksum(true)?;
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut len = 0u64;
        loop {
            let n = match input.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            hasher.update(&buf[..n]);
            encoder.write_all(&buf[..n])?;
            len += n as u64;
        }
        encoder.finish()?.flush()?;
        Ok((len, hex(&hasher.finalize())))
    })();
    result.map_err(write_err)
}

/// Writes header and payloads to a temporary file beside `out`, syncs it and renames it onto
/// `out`; returns the snapshot's length.
fn write_snapshot(
    header: &SnapshotHeader,
    payloads: &[&Path],
    out: &Path,
    dir: &Path,
) -> Result<u64, SnapshotError> {
    let err = |action| SnapshotError::io(out, action);
    // As any file the user writes: readable by others unless the umask says otherwise
    // (tempfile's default, 0600, would keep a web server from serving it).
    let tmp = tempfile::Builder::new()
        .prefix(&crate::leftover::prefix(crate::leftover::Kind::Snapshot))
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(err("creating a temporary file"))?;
    let mut writer = BufWriter::with_capacity(1 << 20, tmp.as_file());
    header.write_to(&mut writer).map_err(err("writing"))?;
    for payload in payloads {
        let mut input = File::open(payload).map_err(SnapshotError::io(*payload, "reading"))?;
        std::io::copy(&mut input, &mut writer).map_err(err("writing"))?;
    }
    writer.flush().map_err(err("writing"))?;
    drop(writer);
    tmp.as_file().sync_all().map_err(err("syncing"))?;
    let len = header.total_len();
    tmp.persist(out).map_err(|e| SnapshotError::Io {
        path: out.to_path_buf(),
        action: "renaming the finished snapshot into place",
        source: e.error,
    })?;
    sync_dir(dir);
    Ok(len)
}

/// Makes a rename in `dir` durable. Best effort: not every file system syncs directories.
pub(crate) fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

//! A snapshot read, decompressed into a temporary file beside the bank and checked, before
//! anything of the bank is touched: header, length, the database's sha256, SQLite's
//! integrity check, and the schema the header claims.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use reqwest::Url;
use rusqlite::Connection;
use sha2::{Digest, Sha256};
use tempfile::NamedTempFile;

use super::container::{Defect, HeaderError, Part, SnapshotHeader};
use super::copy::{self, RunRecords};
use super::error::SnapshotError;
use super::export::hex;
use super::index_section;
use super::source::SnapshotSource;
use crate::bank::store::{missing_from_schema, SCHEMA_VERSION};
use crate::pypi::{Budget, HttpClient, PypiError};

/// A snapshot's database, checked, in a temporary file that goes away unless installed.
pub(crate) struct Unpacked {
    pub header: SnapshotHeader,
    pub file: NamedTempFile,
    /// Bytes of the snapshot read.
    pub snapshot_len: u64,
    /// Run tables and their rows: kept when the snapshot was exported with them, else
    /// emptied (an exporter without runs already left them empty).
    pub runs: RunRecords,
    /// Whether run rows were kept.
    pub runs_kept: bool,
    /// The index cache's entry stream, decompressed and checked, when the snapshot has one.
    pub index_cache: Option<NamedTempFile>,
}

/// Reads and checks the snapshot at `source` into a temporary file in `dir`.
pub(crate) fn unpack(
    source: &SnapshotSource,
    dir: &Path,
    http: &HttpClient,
    max_size: u64,
) -> Result<Unpacked, SnapshotError> {
    let name = source.name();
    let Sections {
        header,
        db: file,
        index: index_cache,
        len: snapshot_len,
    } = match source {
        SnapshotSource::File(path) => unpack_file(path, dir, max_size)?,
        SnapshotSource::Url(url) => unpack_url(url, dir, http, max_size)?,
    };
    let (runs, runs_kept) =
        check_database(file.path(), &header).map_err(|defect| refused(&name, defect))?;
    if let (Some(section), Some(stream)) = (&header.index_cache, &index_cache) {
        index_section::check_stream(stream.path(), section)
            .map_err(|defect| refused(&name, defect))?;
    }
    Ok(Unpacked {
        header,
        file,
        snapshot_len,
        runs,
        runs_kept,
        index_cache,
    })
}

/// What was read of a snapshot: its header, its database and index cache decompressed into
/// temporary files, and its length.
struct Sections {
    header: SnapshotHeader,
    db: NamedTempFile,
    index: Option<NamedTempFile>,
    len: u64,
}

/// One compressed section, as the header describes it.
struct Expected<'h> {
    part: Part,
    payload_len: u64,
    len: u64,
    sha256: &'h str,
}

impl<'h> Expected<'h> {
    fn sections(header: &'h SnapshotHeader) -> Vec<Self> {
        let mut out = vec![Expected {
            part: Part::Payload,
            payload_len: header.payload_len,
            len: header.db_len,
            sha256: &header.db_sha256,
        }];
        if let Some(i) = &header.index_cache {
            out.push(Expected {
                part: Part::IndexCache,
                payload_len: i.payload_len,
                len: i.len,
                sha256: &i.sha256,
            });
        }
        out
    }
}

fn refused(snapshot: &str, defect: Defect) -> SnapshotError {
    SnapshotError::Refused {
        snapshot: snapshot.to_string(),
        defect,
    }
}

/// The header's schema must be one this nbenv reads (an older one is migrated once
/// installed), and what it says the sections decompress to must be within `max_size`: the
/// sizes it declares then bound every byte written, as they are written.
fn check_header(header: &SnapshotHeader, max_size: u64) -> Result<(), Defect> {
    let declared = header.decompressed_len();
    if declared > max_size {
        return Err(Defect::TooLarge {
            declared,
            limit: max_size,
        });
    }
    if header.schema_version > SCHEMA_VERSION {
        return Err(Defect::NewerSchema {
            found: header.schema_version,
            supported: SCHEMA_VERSION,
        });
    }
    if header.schema_version == 0 {
        return Err(Defect::Corrupt("its header names no schema version".into()));
    }
    Ok(())
}

/// Where a snapshot of `total` bytes (header and payloads) disagrees with the length found.
fn length_defect(header: &SnapshotHeader, found_total: u64) -> Option<Defect> {
    let mut start = header.encoded_len();
    let sections = Expected::sections(header);
    for section in &sections {
        if found_total < start + section.payload_len {
            return Some(Defect::Truncated {
                part: section.part,
                expected: section.payload_len,
                found: found_total.saturating_sub(start),
            });
        }
        start += section.payload_len;
    }
    let last = sections.last().expect("a bank section").part;
    (found_total > start).then(|| {
        Defect::Corrupt(format!(
            "{} bytes follow the end of its {last}",
            found_total - start
        ))
    })
}

fn temp_beside(dir: &Path) -> Result<NamedTempFile, SnapshotError> {
    // What killed imports left beside the bank goes first.
    crate::leftover::remove_abandoned_in(dir);
    // The mode SQLite gives a new database (an old bank's own mode is kept on replacing).
    tempfile::Builder::new()
        .prefix(&crate::leftover::prefix(crate::leftover::Kind::Import))
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .tempfile_in(dir)
        .map_err(SnapshotError::io(dir, "creating a temporary file"))
}

fn unpack_file(path: &Path, dir: &Path, max_size: u64) -> Result<Sections, SnapshotError> {
    let name = path.display().to_string();
    let mut input = File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => SnapshotError::Missing {
            path: path.to_path_buf(),
        },
        _ => SnapshotError::Io {
            path: path.to_path_buf(),
            action: "opening the snapshot",
            source: e,
        },
    })?;
    let len = input
        .metadata()
        .map_err(SnapshotError::io(path, "reading the snapshot"))?
        .len();
    let header = match SnapshotHeader::read_from(&mut std::io::BufReader::new(&mut input)) {
        Ok(h) => h,
        Err(HeaderError::Defect(d)) => return Err(refused(&name, d)),
        Err(HeaderError::Io(e)) => {
            return Err(SnapshotError::Io {
                path: path.to_path_buf(),
                action: "reading the snapshot",
                source: e,
            })
        }
    };
    check_header(&header, max_size).map_err(|d| refused(&name, d))?;
    if let Some(defect) = length_defect(&header, len) {
        return Err(refused(&name, defect));
    }
    // The buffered reader above may have read past the header: start the payload afresh.
    use std::io::Seek;
    input
        .seek(std::io::SeekFrom::Start(header.encoded_len()))
        .map_err(SnapshotError::io(path, "reading the snapshot"))?;
    let mut outs = Vec::new();
    for section in Expected::sections(&header) {
        let mut out = temp_beside(dir)?;
        match decompress(&mut input, &section, out.as_file_mut()) {
            Ok(()) => outs.push(out),
            Err(Failure::Defect(d)) => return Err(refused(&name, d)),
            Err(Failure::Source(e)) => {
                return Err(SnapshotError::Io {
                    path: path.to_path_buf(),
                    action: "reading the snapshot",
                    source: e,
                })
            }
            Err(Failure::Write(e)) => return Err(write_failed(&out, section.part, e)),
        }
    }
    Ok(read_whole(header, outs, len))
}

/// The decompressed sections as [`Sections`]: the bank first, then the index cache if any.
fn read_whole(header: SnapshotHeader, outs: Vec<NamedTempFile>, len: u64) -> Sections {
    let mut outs = outs.into_iter();
    let db = outs.next().expect("the bank's section");
    Sections {
        header,
        db,
        index: outs.next(),
        len,
    }
}

fn write_failed(out: &NamedTempFile, part: Part, e: std::io::Error) -> SnapshotError {
    SnapshotError::Io {
        path: out.path().to_path_buf(),
        action: match part {
            Part::IndexCache => "writing the decompressed index cache",
            _ => "writing the decompressed bank",
        },
        source: e,
    }
}

/// One try at a download: a broken connection is tried again from the start, as the HTTP
/// client does for any request.
enum Attempt {
    Transient(String),
    Fatal(SnapshotError),
}

impl From<SnapshotError> for Attempt {
    fn from(e: SnapshotError) -> Self {
        Attempt::Fatal(e)
    }
}

/// Streams the snapshot at `url` through the decompressor into a temporary file: nothing
/// but the database lands on disk, and the header is checked before the payload is read.
fn unpack_url(
    url: &Url,
    dir: &Path,
    http: &HttpClient,
    max_size: u64,
) -> Result<Sections, SnapshotError> {
    let mut attempt = 0;
    loop {
        match try_url(url, dir, http, max_size) {
            Ok(done) => return Ok(done),
            Err(Attempt::Fatal(e)) => return Err(e),
            Err(Attempt::Transient(cause)) if attempt < http.retries() => {
                attempt += 1;
                http.back_off(url, attempt, &cause);
            }
            Err(Attempt::Transient(cause)) => {
                return Err(SnapshotError::Fetch {
                    url: url.to_string(),
                    source: PypiError::Network {
                        url: url.to_string(),
                        attempts: attempt + 1,
                        cause,
                    },
                })
            }
        }
    }
}

fn try_url(url: &Url, dir: &Path, http: &HttpClient, max_size: u64) -> Result<Sections, Attempt> {
    let name = url.to_string();
    let fetch = |source| SnapshotError::Fetch {
        url: name.clone(),
        source,
    };
    let too_large = || SnapshotError::TooLarge {
        url: name.clone(),
        limit: max_size,
    };
    let mut response = http
        .get_stream(url, &[], Budget::File)
        .map_err(|e| Attempt::Fatal(fetch(e)))?;
    if !(200..300).contains(&response.status) {
        return Err(Attempt::Fatal(fetch(PypiError::Status {
            url: name.clone(),
            status: response.status,
            detail: None,
        })));
    }
    let declared = response.content_length();
    if declared.is_some_and(|n| n > max_size) {
        return Err(too_large().into());
    }
    let header = match SnapshotHeader::read_from(&mut response) {
        Ok(h) => h,
        Err(HeaderError::Defect(d)) => return Err(refused(&name, d).into()),
        Err(HeaderError::Io(e)) => {
            return Err(Attempt::Transient(format!("reading the body: {e}")))
        }
    };
    check_header(&header, max_size).map_err(|d| refused(&name, d))?;
    let total = header.total_len();
    if total > max_size {
        return Err(too_large().into());
    }
    if let Some(defect) = declared.and_then(|n| length_defect(&header, n)) {
        return Err(refused(&name, defect).into());
    }
    let mut outs = Vec::new();
    for section in Expected::sections(&header) {
        let mut out = temp_beside(dir)?;
        match decompress(&mut response, &section, out.as_file_mut()) {
            Ok(()) => outs.push(out),
            Err(Failure::Defect(d)) => return Err(refused(&name, d).into()),
            Err(Failure::Source(e)) => {
                return Err(Attempt::Transient(format!("reading the body: {e}")))
            }
            Err(Failure::Write(e)) => return Err(write_failed(&out, section.part, e).into()),
        }
    }
    // A server that sends more than the snapshot holds is sending something else.
    let mut extra = [0u8; 1];
    match response.read(&mut extra) {
        Ok(0) => {}
        Ok(_) => {
            let last = Expected::sections(&header).last().expect("a bank").part;
            return Err(refused(
                &name,
                Defect::Corrupt(format!("more bytes follow the end of its {last}")),
            )
            .into());
        }
        Err(e) => return Err(Attempt::Transient(format!("reading the body: {e}"))),
    }
    Ok(read_whole(header, outs, total))
}

/// Why decompressing stopped: the snapshot's bytes are wrong, reading them failed, or
/// writing the database failed.
enum Failure {
    Defect(Defect),
    Source(std::io::Error),
    Write(std::io::Error),
}

/// Counts what is read, and keeps the reader's own error apart from the decompressor's.
struct Counted<R> {
    inner: R,
    count: u64,
    error: Option<std::io::Error>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.count += n as u64;
                Ok(n)
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => Err(e),
            Err(e) => {
                let told = std::io::Error::new(e.kind(), e.to_string());
                self.error = Some(e);
                Err(told)
            }
        }
    }
}

/// Decompresses exactly the section's `payload_len` bytes of `input` into `out`, checking
/// the length and sha256 of what comes out against the header.
fn decompress(input: impl Read, expected: &Expected, out: &mut File) -> Result<(), Failure> {
    let part = expected.part;
    let mut counted = Counted {
        inner: input.take(expected.payload_len),
        count: 0,
        error: None,
    };
    let truncated = |found| {
        Failure::Defect(Defect::Truncated {
            part,
            expected: expected.payload_len,
            found,
        })
    };
    let mut writer = BufWriter::with_capacity(1 << 20, out);
    let mut hasher = Sha256::new();
    let mut written = 0u64;
    let mut head = Head::default();
    {
        let mut decoder = zstd::Decoder::new(&mut counted).map_err(Failure::Write)?;
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = match decoder.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    drop(decoder);
                    if let Some(source) = counted.error.take() {
                        return Err(Failure::Source(source));
                    }
                    if counted.count < expected.payload_len {
                        return Err(truncated(counted.count));
                    }
                    return Err(Failure::Defect(Defect::Corrupt(format!(
                        "its {part} does not decompress ({e})"
                    ))));
                }
            };
            if let Some(defect) = head.take(&buf[..n], expected) {
                return Err(Failure::Defect(defect));
            }
            written += n as u64;
            if written > expected.len {
                return Err(Failure::Defect(Defect::Corrupt(format!(
                    "its {part} decompresses to more than the {} bytes its header says",
                    expected.len
                ))));
            }
            hasher.update(&buf[..n]);
            writer.write_all(&buf[..n]).map_err(Failure::Write)?;
        }
    }
    if counted.count < expected.payload_len {
        return Err(truncated(counted.count));
    }
    writer.flush().map_err(Failure::Write)?;
    let out = writer
        .into_inner()
        .map_err(|e| Failure::Write(e.into_error()))?;
    if written != expected.len {
        return Err(Failure::Defect(Defect::Corrupt(format!(
            "its {part} decompresses to {written} bytes, its header says {}",
            expected.len
        ))));
    }
    let sha = hex(&hasher.finalize());
    if sha != expected.sha256.to_ascii_lowercase() {
        return Err(Failure::Defect(Defect::Corrupt(format!(
            "its {part} decompresses to data with sha256 {sha}; its header says {}",
            expected.sha256
        ))));
    }
    out.sync_all().map_err(Failure::Write)?;
    Ok(())
}

/// The first bytes a section decompresses to, checked as soon as they are there: what does
/// not start as its part must (an SQLite file, the index cache's marker) is refused after a
/// buffer's worth, not after the gigabytes its header may claim.
#[derive(Default)]
struct Head {
    bytes: Vec<u8>,
    checked: bool,
}

/// Bytes of an SQLite file's header that say what it is and how long.
const SQLITE_HEADER: usize = 100;

impl Head {
    /// Adds `chunk`; once the section's head is whole, says what is wrong with it, once.
    fn take(&mut self, chunk: &[u8], expected: &Expected) -> Option<Defect> {
        let needed = match expected.part {
            Part::IndexCache => index_section::MAGIC.len(),
            _ => SQLITE_HEADER,
        };
        if self.checked {
            return None;
        }
        let wanted = needed.saturating_sub(self.bytes.len()).min(chunk.len());
        self.bytes.extend_from_slice(&chunk[..wanted]);
        if self.bytes.len() < needed {
            return None;
        }
        self.checked = true;
        match expected.part {
            Part::IndexCache => (self.bytes != index_section::MAGIC).then(|| {
                Defect::Corrupt("its index cache does not start with the index cache marker".into())
            }),
            _ => sqlite_header_defect(&self.bytes, expected.len),
        }
    }
}

/// What is wrong with a database whose header is `head` and whose length is said to be
/// `len`: not an SQLite file, or one whose own header gives another length.
fn sqlite_header_defect(head: &[u8], len: u64) -> Option<Defect> {
    if !head.starts_with(b"SQLite format 3\0") {
        return Some(Defect::Corrupt(
            "its database is not an SQLite file (it does not start with SQLite's header)".into(),
        ));
    }
    let be32 = |at: usize| u32::from_be_bytes(head[at..at + 4].try_into().expect("four bytes"));
    let page_size = match u16::from_be_bytes([head[16], head[17]]) {
        1 => 65536,
        n => u64::from(n),
    };
    // SQLite trusts its page count only when the change counter matches the count's own.
    let pages = u64::from(be32(28));
    let counted = pages > 0 && be32(24) == be32(92);
    let fits = if counted {
        pages * page_size == len
    } else {
        page_size >= 512 && len.is_multiple_of(page_size)
    };
    (!fits).then(|| {
        Defect::Corrupt(format!(
            "its database's own header does not give the {len} bytes the snapshot's header says"
        ))
    })
}

/// The decompressed database must be a whole SQLite file of the schema the header claims.
/// Run rows are emptied unless the snapshot says it carries them. Returns the run tables
/// and their rows (kept or emptied), and whether they were kept.
fn check_database(path: &Path, header: &SnapshotHeader) -> Result<(RunRecords, bool), Defect> {
    let corrupt = |what: &str, e: rusqlite::Error| Defect::Corrupt(format!("{what}: {e}"));
    let conn = Connection::open(path).map_err(|e| corrupt("its database does not open", e))?;
    let problems: Vec<String> = conn
        .prepare("PRAGMA integrity_check")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(|e| corrupt("its database fails SQLite's integrity check", e))?;
    if problems != ["ok"] {
        let first: Vec<&str> = problems.iter().take(3).map(String::as_str).collect();
        return Err(Defect::Corrupt(format!(
            "its database fails SQLite's integrity check: {}",
            first.join("; ")
        )));
    }
    let version = copy::user_version(&conn).map_err(|e| corrupt("its database", e))?;
    if version != header.schema_version {
        return Err(Defect::Corrupt(format!(
            "its header says schema version {}, its database has {version}",
            header.schema_version
        )));
    }
    if let Some(detail) = missing_from_schema(&conn, version)
        .map_err(|e| corrupt("its database's tables do not read", e))?
    {
        return Err(Defect::NotABank {
            schema: version,
            detail,
        });
    }
    let runs = if header.with_runs {
        RunRecords {
            tables: copy::run_tables(&conn).map_err(|e| corrupt("its database", e))?,
            rows: copy::run_rows(&conn).map_err(|e| corrupt("its database", e))?,
        }
    } else {
        copy::drop_runs(&conn).map_err(|e| corrupt("its database", e))?
    };
    copy::rollback_journal(&conn).map_err(|e| corrupt("its database", e))?;
    Ok((runs, header.with_runs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::snapshot::container::{BankCounts, Compression};

    fn header_for(db: &[u8], payload: &[u8]) -> SnapshotHeader {
        SnapshotHeader {
            schema_version: SCHEMA_VERSION,
            extractor_version: 1,
            with_runs: false,
            compression: Compression::Zstd,
            db_len: db.len() as u64,
            db_sha256: hex(&Sha256::digest(db)),
            payload_len: payload.len() as u64,
            created: jiff::Timestamp::UNIX_EPOCH,
            nbenv_version: "0".into(),
            counts: BankCounts::default(),
            index_cache: None,
        }
    }

    fn run(payload: &[u8], header: &SnapshotHeader) -> Result<Vec<u8>, Defect> {
        let mut out = tempfile::tempfile().unwrap();
        let section = &Expected::sections(header)[0];
        match decompress(payload, section, &mut out) {
            Ok(()) => {
                use std::io::Seek;
                out.seek(std::io::SeekFrom::Start(0)).unwrap();
                let mut v = Vec::new();
                out.read_to_end(&mut v).unwrap();
                Ok(v)
            }
            Err(Failure::Defect(d)) => Err(d),
            Err(_) => panic!("I/O failure"),
        }
    }

    #[test]
    fn the_payload_is_checked_against_the_header() {
        let db = sqlite_file();
        let payload = zstd::encode_all(&db[..], 3).unwrap();
        let header = header_for(&db, &payload);
        assert_eq!(run(&payload, &header).unwrap(), db);

        let cut = &payload[..payload.len() / 2];
        assert_eq!(
            run(cut, &header),
            Err(Defect::Truncated {
                part: Part::Payload,
                expected: payload.len() as u64,
                found: cut.len() as u64
            })
        );

        let mut flipped = payload.clone();
        let at = flipped.len() / 2;
        flipped[at] ^= 0x55;
        assert!(matches!(run(&flipped, &header), Err(Defect::Corrupt(_))));

        let mut wrong_sha = header.clone();
        wrong_sha.db_sha256 = "0".repeat(64);
        assert!(matches!(run(&payload, &wrong_sha), Err(Defect::Corrupt(_))));

        let mut shorter = header.clone();
        shorter.db_len -= 1;
        assert!(matches!(run(&payload, &shorter), Err(Defect::Corrupt(_))));
    }

    /// A real SQLite file of a few hundred KiB.
    fn sqlite_file() -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite3");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE t (x INTEGER);
             WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 50000)
             INSERT INTO t SELECT i * 7919 % 10007 FROM n;",
        )
        .unwrap();
        drop(conn);
        std::fs::read(&path).unwrap()
    }

    #[test]
    fn what_does_not_start_as_its_part_is_refused_after_one_buffer() {
        // A self-consistent bomb: a header telling the truth about 64 MiB of zeros.
        let zeros = vec![0u8; 64 << 20];
        let payload = zstd::encode_all(&zeros[..], 3).unwrap();
        let header = header_for(&zeros, &payload);
        let mut out = tempfile::tempfile().unwrap();
        let section = &Expected::sections(&header)[0];
        match decompress(&payload[..], section, &mut out) {
            Err(Failure::Defect(Defect::Corrupt(m))) => assert!(m.contains("not an SQLite"), "{m}"),
            _ => panic!("zeros accepted as a database"),
        }
        assert!(out.metadata().unwrap().len() <= 1 << 20, "stopped early");

        let db = sqlite_file();
        assert_eq!(
            sqlite_header_defect(&db[..SQLITE_HEADER], db.len() as u64),
            None
        );
        assert!(sqlite_header_defect(&db[..SQLITE_HEADER], db.len() as u64 * 1000).is_some());
    }

    #[test]
    fn lengths_tell_truncation_from_trailing_bytes() {
        let header = header_for(b"db", b"payload");
        let whole = header.encoded_len() + header.payload_len;
        assert_eq!(length_defect(&header, whole), None);
        assert_eq!(
            length_defect(&header, whole - 3),
            Some(Defect::Truncated {
                part: Part::Payload,
                expected: 7,
                found: 4
            })
        );
        assert!(matches!(
            length_defect(&header, whole + 1),
            Some(Defect::Corrupt(_))
        ));
    }
}

//! The index cache a snapshot may carry after its bank (`bank export --with-index-cache`):
//! the pages, compact copies and core metadata a resolution reads, so that a worker started
//! from the snapshot resolves with `--no-index` and no index at all.
//!
//! ```text
//! "nbenv-index-cache-v1\n" | entries: kind (u8: p, c, m) | key length (u8) | key
//!                                   | length (u64 LE) | bytes
//! ```
//!
//! The stream is compressed like the bank and checked by its own sha256 in the header. On
//! import every entry is read and its key checked before the first is written.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::container::Defect;
use super::error::SnapshotError;
use super::export::hex;
use crate::pypi::{carried_entry_reads, read_carried, valid_key, Cache, EntryKind, Installed};

pub(crate) const MAGIC: &[u8] = b"nbenv-index-cache-v1\n";

/// What the header says of the index cache that follows the bank.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexSection {
    /// Index pages, their compact copies, and core metadata files carried.
    pub pages: u64,
    pub compact: u64,
    pub metadata: u64,
    /// Length of the entry stream once decompressed.
    pub len: u64,
    /// sha256 of the decompressed stream, lowercase hex.
    pub sha256: String,
    /// Length of its compressed payload, after the bank's.
    pub payload_len: u64,
}

/// What an import did with the entries it was offered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CacheInstall {
    pub written: u64,
    /// Pages this machine fetched no earlier than the snapshot's (and their copies): kept.
    pub kept_local: u64,
    /// Metadata this cache already held.
    pub already_held: u64,
    /// Entries larger than the cache's budget admits.
    pub over_budget: u64,
}

fn tag(kind: EntryKind) -> u8 {
    match kind {
        EntryKind::Pages => b'p',
        EntryKind::Compact => b'c',
        _ => b'm',
    }
}

/// Where a kind is counted: pages, compact copies, metadata.
fn slot(kind: EntryKind) -> usize {
    match kind {
        EntryKind::Pages => 0,
        EntryKind::Compact => 1,
        _ => 2,
    }
}

fn kind_of(tag: u8) -> Option<EntryKind> {
    match tag {
        b'p' => Some(EntryKind::Pages),
        b'c' => Some(EntryKind::Compact),
        b'm' => Some(EntryKind::Metadata),
        _ => None,
    }
}

/// A writer that hashes and counts what passes through it.
struct Hashing<W> {
    inner: W,
    hasher: Sha256,
    len: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes the carried entries of `cache`, compressed at `level`, to `payload`.
pub(crate) fn write_section(
    cache: &Cache,
    payload: &Path,
    level: i32,
) -> Result<IndexSection, SnapshotError> {
    let file = File::create(payload).map_err(SnapshotError::io(payload, "creating"))?;
    let mut encoder = zstd::Encoder::new(BufWriter::with_capacity(1 << 20, file), level)
        .and_then(|mut e| e.include_checksum(true).map(|()| e))
        .map_err(SnapshotError::io(payload, "compressing the index cache"))?;
    let mut out = Hashing {
        inner: &mut encoder,
        hasher: Sha256::new(),
        len: 0,
    };
    let write_err = |e| SnapshotError::io(payload, "compressing the index cache")(e);
    let mut counts = [0u64; 3];
    out.write_all(MAGIC).map_err(write_err)?;
    for entry in cache.carried_entries() {
        // An entry evicted since it was listed is simply not carried.
        let Some(bytes) = read_carried(&entry.path).map_err(|e| SnapshotError::Cache {
            cache: cache.root().to_path_buf(),
            source: e,
        })?
        else {
            continue;
        };
        let key = entry.key.as_bytes();
        out.write_all(&[tag(entry.kind), key.len() as u8])
            .and_then(|()| out.write_all(key))
            .and_then(|()| out.write_all(&(bytes.len() as u64).to_le_bytes()))
            .and_then(|()| out.write_all(&bytes))
            .map_err(write_err)?;
        counts[slot(entry.kind)] += 1;
    }
    let (len, sha) = (out.len, hex(&out.hasher.finalize()));
    encoder
        .finish()
        .and_then(|mut w| w.flush())
        .map_err(SnapshotError::io(payload, "compressing the index cache"))?;
    let payload_len = std::fs::metadata(payload)
        .map_err(SnapshotError::io(payload, "reading"))?
        .len();
    Ok(IndexSection {
        pages: counts[0],
        compact: counts[1],
        metadata: counts[2],
        len,
        sha256: sha,
        payload_len,
    })
}

/// One entry of a decompressed stream.
struct Entry {
    kind: EntryKind,
    key: String,
    bytes: Vec<u8>,
}

/// Reads the next entry; `None` at the end of the stream.
fn next_entry(input: &mut impl Read, left: &mut u64) -> Result<Option<Entry>, Defect> {
    let corrupt = |what: &str| Defect::Corrupt(format!("its index cache is damaged: {what}"));
    if *left == 0 {
        return Ok(None);
    }
    let mut head = [0u8; 2];
    read_exact(input, &mut head, left).map_err(|()| corrupt("an entry is cut short"))?;
    let kind = kind_of(head[0]).ok_or_else(|| corrupt("an entry of an unknown kind"))?;
    let mut key = vec![0u8; head[1] as usize];
    read_exact(input, &mut key, left).map_err(|()| corrupt("an entry is cut short"))?;
    let key = String::from_utf8(key)
        .ok()
        .filter(|k| valid_key(kind, k))
        .ok_or_else(|| corrupt("an entry's name is not one the cache uses"))?;
    let mut len = [0u8; 8];
    read_exact(input, &mut len, left).map_err(|()| corrupt("an entry is cut short"))?;
    let len = u64::from_le_bytes(len);
    if len > *left {
        return Err(corrupt("an entry is longer than the stream"));
    }
    let mut bytes = vec![0u8; len as usize];
    read_exact(input, &mut bytes, left).map_err(|()| corrupt("an entry is cut short"))?;
    if !carried_entry_reads(kind, &bytes) {
        return Err(corrupt(&format!(
            "the entry {}/{key} does not read",
            kind.dir_name()
        )));
    }
    Ok(Some(Entry { kind, key, bytes }))
}

fn read_exact(input: &mut impl Read, buf: &mut [u8], left: &mut u64) -> Result<(), ()> {
    if (buf.len() as u64) > *left {
        return Err(());
    }
    input.read_exact(buf).map_err(|_| ())?;
    *left -= buf.len() as u64;
    Ok(())
}

fn open_stream(path: &Path) -> Result<(BufReader<File>, u64), Defect> {
    let unreadable = |e: std::io::Error| Defect::Corrupt(format!("its index cache: {e}"));
    let file = File::open(path).map_err(unreadable)?;
    let len = file.metadata().map_err(unreadable)?.len();
    let mut input = BufReader::with_capacity(1 << 20, file);
    let mut magic = [0u8; MAGIC.len()];
    if len < MAGIC.len() as u64 || input.read_exact(&mut magic).is_err() || magic != MAGIC {
        return Err(Defect::Corrupt(
            "its index cache does not start with the index cache marker".into(),
        ));
    }
    Ok((input, len - MAGIC.len() as u64))
}

/// Checks every entry of a decompressed stream (kinds, keys, lengths) and that the counts
/// are the header's, writing nothing.
pub(crate) fn check_stream(path: &Path, section: &IndexSection) -> Result<(), Defect> {
    let (mut input, mut left) = open_stream(path)?;
    let mut counts = [0u64; 3];
    while let Some(e) = next_entry(&mut input, &mut left)? {
        counts[slot(e.kind)] += 1;
    }
    if counts != [section.pages, section.compact, section.metadata] {
        return Err(Defect::Corrupt(format!(
            "its index cache holds {} pages, {} compact copies and {} metadata files; its header says {}, {} and {}",
            counts[0], counts[1], counts[2], section.pages, section.compact, section.metadata
        )));
    }
    Ok(())
}

/// Offers every entry of a checked stream to `cache`.
pub(crate) fn install_stream(path: &Path, cache: &Cache) -> Result<CacheInstall, SnapshotError> {
    let cache_err = |source| SnapshotError::Cache {
        cache: cache.root().to_path_buf(),
        source,
    };
    let refused = |defect| SnapshotError::Refused {
        snapshot: path.display().to_string(),
        defect,
    };
    let (mut input, mut left) = open_stream(path).map_err(refused)?;
    let mut done = CacheInstall::default();
    // Pages come before compact copies: a copy goes with a page written here.
    let mut pages_written = std::collections::HashSet::new();
    loop {
        let Some(e) = next_entry(&mut input, &mut left).map_err(refused)? else {
            break;
        };
        let got = cache
            .install_carried(e.kind, &e.key, &e.bytes, pages_written.contains(&e.key))
            .map_err(cache_err)?;
        if e.kind == EntryKind::Pages && got == Installed::Written {
            pages_written.insert(e.key);
        }
        *match got {
            Installed::Written => &mut done.written,
            Installed::KeptLocal => &mut done.kept_local,
            Installed::AlreadyHeld => &mut done.already_held,
            Installed::OverBudget => &mut done.over_budget,
        } += 1;
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(out: &mut Vec<u8>, tag: u8, key: &str, bytes: &[u8]) {
        out.extend_from_slice(&[tag, key.len() as u8]);
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(bytes);
    }

    fn section(pages: u64, compact: u64, metadata: u64) -> IndexSection {
        IndexSection {
            pages,
            compact,
            metadata,
            len: 0,
            sha256: "0".repeat(64),
            payload_len: 0,
        }
    }

    fn check(bytes: &[u8], counts: (u64, u64, u64)) -> Result<(), Defect> {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), bytes).unwrap();
        check_stream(file.path(), &section(counts.0, counts.1, counts.2))
    }

    #[test]
    fn a_stream_is_checked_whole_before_anything_is_written() {
        let key = "ab".repeat(32);
        let mut good = MAGIC.to_vec();
        record(&mut good, b'm', &format!("{key}.metadata"), b"Name: x\n");
        assert_eq!(check(&good, (0, 0, 1)), Ok(()));
        // The header's counts must be the stream's.
        assert!(matches!(check(&good, (1, 0, 1)), Err(Defect::Corrupt(_))));

        let refused = |bytes: Vec<u8>, says: &str| match check(&bytes, (0, 0, 1)) {
            Err(Defect::Corrupt(m)) => assert!(m.contains(says), "{m}"),
            other => panic!("{says}: {other:?}"),
        };
        // A name that would leave the cache's directory.
        let mut escape = MAGIC.to_vec();
        record(&mut escape, b'm', "../../../etc/passwd", b"x");
        refused(escape, "name is not one the cache uses");
        let mut unknown = MAGIC.to_vec();
        record(&mut unknown, b'f', &key, b"x");
        refused(unknown, "unknown kind");
        refused(good[..MAGIC.len() + 1].to_vec(), "cut short");
        refused(good[..good.len() - 1].to_vec(), "longer than the stream");
        let mut long = good.clone();
        let at = long.len() - 8 - 8;
        long[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        refused(long, "longer than the stream");
        refused(b"not a stream".to_vec(), "marker");
    }

    #[test]
    fn what_is_written_is_what_installs() {
        let from = tempfile::tempdir().unwrap();
        let to = tempfile::tempdir().unwrap();
        let cache = Cache::new(from.path());
        cache
            .put_blob(
                "metadata",
                &format!("{}.from-archive", "cd".repeat(32)),
                b"m",
            )
            .unwrap();
        let payload = from.path().join("section.zst");
        let section = write_section(&cache, &payload, 3).unwrap();
        assert_eq!(
            (section.pages, section.compact, section.metadata),
            (0, 0, 1)
        );
        let raw = zstd::decode_all(&std::fs::read(&payload).unwrap()[..]).unwrap();
        assert_eq!(raw.len() as u64, section.len);
        assert_eq!(hex(&Sha256::digest(&raw)), section.sha256);
        let stream = to.path().join("stream");
        std::fs::write(&stream, &raw).unwrap();
        check_stream(&stream, &section).unwrap();
        let done = install_stream(&stream, &Cache::new(to.path().join("cache"))).unwrap();
        assert_eq!(done.written, 1);
    }
}

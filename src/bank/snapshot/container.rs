//! The snapshot file: a fixed prelude, a JSON header, then the database compressed with zstd.
//!
//! ```text
//! magic "nbenv snapshot\n\0" (16 bytes) | format version (u32 LE) | header length (u32 LE)
//! | header CRC-32 (u32 LE) | header (JSON) | payload (zstd frames, `payload_len` bytes)
//! [| index cache (zstd frames, `index_cache.payload_len` bytes), format 2 only]
//! ```
//!
//! The header comes first so that an importer refuses a newer schema or format before it
//! downloads or decompresses anything; it has its own checksum because it decides what is
//! done with the rest. The payload is checked by the sha256 of the database it decompresses
//! to, which the header carries.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

pub use super::index_section::IndexSection;

/// What every snapshot starts with; readable in `head -c 16`.
pub const MAGIC: [u8; 16] = *b"nbenv snapshot\n\0";

/// The newest container layout this build reads. A newer one is refused. Format 2 adds the
/// index cache after the bank; a snapshot without one is still written as format 1, which
/// older nbenvs read.
pub const FORMAT_VERSION: u32 = 2;

/// A header is a few hundred bytes; anything past this is not one.
const MAX_HEADER: u32 = 64 << 10;

/// Bytes before the header: magic, format version, header length, header CRC.
const PRELUDE: usize = MAGIC.len() + 12;

/// How the database is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// zstd frames with their content checksums.
    Zstd,
}

/// What the bank holds, counted when it was exported, for a reader who has only the file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BankCounts {
    pub distributions: u64,
    pub releases: u64,
    pub apis: u64,
}

/// The snapshot's description of itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotHeader {
    /// The bank's `user_version`: the schema it was written in.
    pub schema_version: u32,
    /// The extractor of the nbenv that exported it (releases indexed by older ones are marked
    /// in the bank itself; this says what the exporter would have written).
    pub extractor_version: u32,
    /// Whether run records (`run_*` tables) were kept; without it they are empty.
    pub with_runs: bool,
    pub compression: Compression,
    /// Length of the database once decompressed.
    pub db_len: u64,
    /// sha256 of the decompressed database, lowercase hex.
    pub db_sha256: String,
    /// Length of the compressed payload after the header.
    pub payload_len: u64,
    pub created: jiff::Timestamp,
    pub nbenv_version: String,
    pub counts: BankCounts,
    /// The index cache carried after the bank (`--with-index-cache`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_cache: Option<IndexSection>,
}

/// Why a file is not a snapshot this nbenv installs. Decided on the bytes, before the bank is
/// touched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Defect {
    #[error("it is not an nbenv bank snapshot (it does not start with the snapshot marker)")]
    NotASnapshot,
    #[error("its container format is version {found}, newer than this nbenv reads ({supported}); upgrade nbenv")]
    NewerFormat { found: u32, supported: u32 },
    #[error("its bank has schema version {found}, newer than this nbenv understands ({supported}); upgrade nbenv")]
    NewerSchema { found: u32, supported: u32 },
    #[error("it is truncated: {found} of {expected} bytes of its {part}")]
    Truncated {
        part: Part,
        expected: u64,
        found: u64,
    },
    #[error("it is corrupt: {0}")]
    Corrupt(String),
    /// What it says it decompresses to is more than the importer allows (`--max-size`).
    #[error("it decompresses to {declared} bytes, more than the {limit} byte limit (--max-size)")]
    TooLarge { declared: u64, limit: u64 },
    /// Its database is an SQLite file, but not an nbenv bank of the schema it claims: another
    /// program's database would replace a good bank and leave every command refused.
    #[error("its database is not an nbenv bank of schema version {schema}: {detail}")]
    NotABank { schema: u32, detail: String },
}

/// Which part of the file a truncation cut into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Header,
    Payload,
    IndexCache,
}

impl std::fmt::Display for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Part::Header => "header",
            Part::Payload => "compressed database",
            Part::IndexCache => "compressed index cache",
        })
    }
}

/// A header that could not be read: a defect of the file, or the reader failing (a network
/// stream broken in the middle, a disk error).
#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    #[error(transparent)]
    Defect(#[from] Defect),
    #[error(transparent)]
    Io(std::io::Error),
}

impl SnapshotHeader {
    /// Bytes the prelude and this header take at the start of the file.
    pub fn encoded_len(&self) -> u64 {
        (PRELUDE + self.json().len()) as u64
    }

    /// Bytes of the whole file: prelude, header and payloads.
    pub fn total_len(&self) -> u64 {
        self.encoded_len()
            + self.payload_len
            + self.index_cache.as_ref().map_or(0, |i| i.payload_len)
    }

    /// Bytes of the bank and the index cache once decompressed.
    pub fn decompressed_len(&self) -> u64 {
        self.db_len + self.index_cache.as_ref().map_or(0, |i| i.len)
    }

    /// The layout this header is written in: the oldest that holds it.
    fn format(&self) -> u32 {
        if self.index_cache.is_some() {
            2
        } else {
            1
        }
    }

    fn json(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a header serializes")
    }

    /// Writes the prelude and the header; the payload follows.
    pub fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        let json = self.json();
        out.write_all(&MAGIC)?;
        out.write_all(&self.format().to_le_bytes())?;
        out.write_all(&(json.len() as u32).to_le_bytes())?;
        out.write_all(&crc32fast::hash(&json).to_le_bytes())?;
        out.write_all(&json)
    }

    /// Reads the prelude and the header, leaving `input` at the payload's first byte. Checks
    /// only what the header alone shows: the schema is compared by the caller.
    pub fn read_from(input: &mut impl Read) -> Result<Self, HeaderError> {
        let mut prelude = [0u8; PRELUDE];
        let got = read_up_to(input, &mut prelude).map_err(HeaderError::Io)?;
        if got < MAGIC.len() || prelude[..MAGIC.len()] != MAGIC {
            return Err(Defect::NotASnapshot.into());
        }
        if got < PRELUDE {
            return Err(truncated_header(PRELUDE as u64, got as u64));
        }
        let word = |i: usize| {
            let at = MAGIC.len() + 4 * i;
            u32::from_le_bytes(prelude[at..at + 4].try_into().expect("four bytes"))
        };
        let (format, len, crc) = (word(0), word(1), word(2));
        if format > FORMAT_VERSION {
            return Err(Defect::NewerFormat {
                found: format,
                supported: FORMAT_VERSION,
            }
            .into());
        }
        if format == 0 || len == 0 || len > MAX_HEADER {
            return Err(corrupt(
                "its prelude is damaged (format or header length out of range)",
            ));
        }
        let mut json = vec![0u8; len as usize];
        let got = read_up_to(input, &mut json).map_err(HeaderError::Io)?;
        if got < json.len() {
            return Err(truncated_header(
                (PRELUDE + json.len()) as u64,
                (PRELUDE + got) as u64,
            ));
        }
        if crc32fast::hash(&json) != crc {
            return Err(corrupt("its header does not match the header's checksum"));
        }
        let header: SnapshotHeader = serde_json::from_slice(&json)
            .map_err(|e| corrupt(&format!("its header does not read: {e}")))?;
        let hex = |s: &str| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit());
        if !hex(&header.db_sha256) {
            return Err(corrupt("its header's sha256 is not 64 hex digits"));
        }
        if let Some(index) = &header.index_cache {
            if format < 2 {
                return Err(corrupt(
                    "its header names an index cache, which its format does not hold",
                ));
            }
            if !hex(&index.sha256) {
                return Err(corrupt("its index cache's sha256 is not 64 hex digits"));
            }
        }
        Ok(header)
    }
}

fn corrupt(detail: &str) -> HeaderError {
    Defect::Corrupt(detail.to_string()).into()
}

fn truncated_header(expected: u64, found: u64) -> HeaderError {
    Defect::Truncated {
        part: Part::Header,
        expected,
        found,
    }
    .into()
}

/// Fills `buf` as far as `input` goes; fewer bytes than asked means the end was reached.
fn read_up_to(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> SnapshotHeader {
        SnapshotHeader {
            schema_version: 3,
            extractor_version: 5,
            with_runs: false,
            compression: Compression::Zstd,
            db_len: 4096,
            db_sha256: "ab".repeat(32),
            payload_len: 100,
            created: "2026-01-02T03:04:05Z".parse().unwrap(),
            nbenv_version: "0.1.0".into(),
            counts: BankCounts {
                distributions: 1,
                releases: 2,
                apis: 3,
            },
            index_cache: None,
        }
    }

    fn encoded() -> Vec<u8> {
        let mut out = Vec::new();
        header().write_to(&mut out).unwrap();
        assert_eq!(out.len() as u64, header().encoded_len());
        out
    }

    fn read(bytes: &[u8]) -> Result<SnapshotHeader, Defect> {
        SnapshotHeader::read_from(&mut &bytes[..]).map_err(|e| match e {
            HeaderError::Defect(d) => d,
            HeaderError::Io(e) => panic!("{e}"),
        })
    }

    #[test]
    fn a_header_reads_back_as_written_and_leaves_the_payload() {
        let mut bytes = encoded();
        bytes.extend_from_slice(b"payload");
        let mut input = &bytes[..];
        assert_eq!(SnapshotHeader::read_from(&mut input).unwrap(), header());
        assert_eq!(input, b"payload");
    }

    #[test]
    fn the_format_is_the_oldest_that_holds_the_snapshot() {
        assert_eq!(encoded()[MAGIC.len()..MAGIC.len() + 4], 1u32.to_le_bytes());
        let mut with_cache = header();
        with_cache.index_cache = Some(IndexSection {
            pages: 1,
            compact: 1,
            metadata: 0,
            len: 10,
            sha256: "cd".repeat(32),
            payload_len: 5,
        });
        let mut bytes = Vec::new();
        with_cache.write_to(&mut bytes).unwrap();
        assert_eq!(bytes[MAGIC.len()..MAGIC.len() + 4], 2u32.to_le_bytes());
        assert_eq!(read(&bytes), Ok(with_cache.clone()));
        assert_eq!(with_cache.total_len(), with_cache.encoded_len() + 100 + 5);
        // Format 1 has no room for an index cache: a header that names one is damaged.
        bytes[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&1u32.to_le_bytes());
        assert!(matches!(read(&bytes), Err(Defect::Corrupt(_))));
    }

    #[test]
    fn each_defect_of_the_header_is_told_apart() {
        assert_eq!(read(b"SQLite format 3\0rest"), Err(Defect::NotASnapshot));
        assert_eq!(read(b""), Err(Defect::NotASnapshot));

        let bytes = encoded();
        for cut in [MAGIC.len() + 2, bytes.len() - 1] {
            assert!(
                matches!(
                    read(&bytes[..cut]),
                    Err(Defect::Truncated {
                        part: Part::Header,
                        ..
                    })
                ),
                "cut at {cut}"
            );
        }

        let mut newer = bytes.clone();
        newer[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        assert_eq!(
            read(&newer),
            Err(Defect::NewerFormat {
                found: FORMAT_VERSION + 1,
                supported: FORMAT_VERSION
            })
        );

        // A flipped byte in the JSON (the schema version's digit) fails the header's CRC.
        let mut flipped = bytes.clone();
        let at = bytes
            .windows(17)
            .position(|w| w == b"\"schema_version\":")
            .unwrap()
            + 17;
        flipped[at] = b'9';
        assert!(matches!(read(&flipped), Err(Defect::Corrupt(_))));

        let mut long = bytes;
        long[MAGIC.len() + 4..MAGIC.len() + 8].copy_from_slice(&(MAX_HEADER + 1).to_le_bytes());
        assert!(matches!(read(&long), Err(Defect::Corrupt(_))));
    }
}

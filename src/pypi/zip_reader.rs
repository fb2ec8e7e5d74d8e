use std::io::Read;

use super::archive::{ArchiveLimits, EntryInfo, Member};
use super::byte_source::ByteSource;
use super::error::PypiError;
use super::zip_directory::{self, DirectoryError, ZipEntry, TAIL_LEN, ZIP64_RECORD_LEN};

/// A zip archive's central directory, read once and used for any number of member reads.
pub struct ZipIndex {
    entries: Vec<ZipEntry>,
    cd_start: u64,
}

impl ZipIndex {
    /// Reads the end records and the central directory: the tail and, when it does not already
    /// hold it, one more range.
    pub fn open(source: &mut dyn ByteSource, limits: &ArchiveLimits) -> Result<Self, PypiError> {
        let name = source.name().to_string();
        let bad = |message: String| PypiError::BadArchive {
            file: name.clone(),
            message,
        };
        let len = source.len();
        let tail_start = len.saturating_sub(TAIL_LEN);
        let tail = source.read(tail_start..len)?.into_owned();
        let mut end = zip_directory::find_end(&tail, len).map_err(|e| bad(e.to_string()))?;
        if let Some(record) = end.zip64_record {
            if record + ZIP64_RECORD_LEN > len {
                return Err(bad("ZIP64 end record lies past the end of the file".into()));
            }
            let bytes = source.read(record..record + ZIP64_RECORD_LEN)?.into_owned();
            end = zip_directory::apply_zip64(&end, &bytes).map_err(|e| bad(e.to_string()))?;
        }
        if end.cd_start + end.cd_size > len {
            return Err(bad("central directory lies past the end of the file".into()));
        }
        let cd = source
            .read(end.cd_start..end.cd_start + end.cd_size)?
            .into_owned();
        let entries = zip_directory::parse_central_directory(&cd, &end, limits.max_members)
            .map_err(|e| match e {
                DirectoryError::TooManyMembers(message) => PypiError::Refused {
                    file: name.clone(),
                    message,
                },
                DirectoryError::Corrupt(message) => bad(message),
            })?;
        Ok(Self {
            entries,
            cd_start: end.cd_start,
        })
    }

    /// Every member the archive lists.
    pub fn listing(&self) -> Vec<EntryInfo> {
        self.entries
            .iter()
            .map(|e| EntryInfo {
                name: e.name.clone(),
                size: e.uncompressed_size,
            })
            .collect()
    }

    /// Reads the members `select` picks, fetching their ranges together first.
    pub fn read(
        &self,
        source: &mut dyn ByteSource,
        select: &dyn Fn(&str) -> bool,
        limits: &ArchiveLimits,
    ) -> Result<Vec<Member>, PypiError> {
        let name = source.name().to_string();
        let bad = |message: String| PypiError::BadArchive {
            file: name.clone(),
            message,
        };
        let len = source.len();
        let entries = &self.entries;
        let chosen: Vec<usize> = (0..entries.len())
            .filter(|&i| !entries[i].name.ends_with('/') && select(&entries[i].name))
            .collect();
        let mut total = 0u64;
        for &i in &chosen {
            let e = &entries[i];
            if e.uncompressed_size > limits.max_member_size {
                return Err(PypiError::Refused {
                    file: name.clone(),
                    message: format!(
                        "member `{}` claims {} bytes uncompressed, more than the {} byte limit",
                        e.name, e.uncompressed_size, limits.max_member_size
                    ),
                });
            }
            total = total.saturating_add(e.uncompressed_size);
            if e.header_offset >= self.cd_start {
                return Err(bad(format!(
                    "member `{}` starts past the central directory",
                    e.name
                )));
            }
        }
        if total > limits.max_total_size {
            return Err(PypiError::Refused {
                file: name.clone(),
                message: format!(
                    "the selected members claim {total} bytes uncompressed, more than the {} byte limit",
                    limits.max_total_size
                ),
            });
        }

        let extents = zip_directory::entry_extents(entries, self.cd_start);
        let wanted: Vec<_> = chosen.iter().map(|&i| extents[i].clone()).collect();
        source.prefetch(&wanted)?;

        let mut members = Vec::with_capacity(chosen.len());
        for &i in &chosen {
            let entry = &entries[i];
            let header_end = (entry.header_offset + 30).min(len);
            let header = source.read(entry.header_offset..header_end)?.into_owned();
            let data_range =
                zip_directory::data_range(entry, &header).map_err(|e| bad(e.to_string()))?;
            if data_range.end > len {
                return Err(bad(format!(
                    "member `{}` runs past the end of the file",
                    entry.name
                )));
            }
            let compressed = source.read(data_range)?;
            let data = inflate(entry, &compressed, limits).map_err(|e| bad(e.to_string()))?;
            members.push(Member {
                name: entry.name.clone(),
                data,
            });
        }
        Ok(members)
    }
}

/// Lists a zip archive and reads the members `select` picks (tests read fixtures with it;
/// the client goes through [`ZipIndex`] to keep the central directory between reads).
#[cfg(test)]
pub fn read_zip(
    source: &mut dyn ByteSource,
    select: &dyn Fn(&str) -> bool,
    limits: &ArchiveLimits,
) -> Result<(Vec<EntryInfo>, Vec<Member>), PypiError> {
    let index = ZipIndex::open(source, limits)?;
    let members = index.read(source, select, limits)?;
    Ok((index.listing(), members))
}

/// Why a member's bytes could not be had.
#[derive(Debug, thiserror::Error)]
enum InflateError {
    #[error("member `{member}` is encrypted")]
    Encrypted { member: String },
    #[error("member `{member}`: corrupt deflate data: {source}")]
    CorruptDeflate {
        member: String,
        #[source]
        source: std::io::Error,
    },
    #[error("member `{member}` uses compression method {method}, which nbenv does not read")]
    UnknownMethod { member: String, method: u16 },
    #[error("member `{member}` inflates to {}{got} bytes, but declares {declared}", if *.more { "more than " } else { "" })]
    WrongSize {
        member: String,
        got: u64,
        more: bool,
        declared: u64,
    },
    #[error("member `{member}` fails its CRC-32 check")]
    Crc { member: String },
}

/// Decompresses one member, refusing to produce more than it declared and checking its CRC.
fn inflate(
    entry: &ZipEntry,
    compressed: &[u8],
    limits: &ArchiveLimits,
) -> Result<Vec<u8>, InflateError> {
    let member = || entry.name.clone();
    if entry.flags & 1 != 0 {
        return Err(InflateError::Encrypted { member: member() });
    }
    let declared = entry.uncompressed_size;
    let cap = declared.min(limits.max_member_size);
    let mut out = Vec::with_capacity(cap.min(16 << 20) as usize);
    match entry.method {
        0 => out.extend_from_slice(compressed),
        8 => {
            let decoder = flate2::read::DeflateDecoder::new(compressed);
            decoder
                .take(cap + 1)
                .read_to_end(&mut out)
                .map_err(|source| InflateError::CorruptDeflate {
                    member: member(),
                    source,
                })?;
        }
        other => {
            return Err(InflateError::UnknownMethod {
                member: member(),
                method: other,
            })
        }
    }
    if out.len() as u64 != declared {
        return Err(InflateError::WrongSize {
            member: member(),
            got: (out.len() as u64).min(cap),
            more: out.len() as u64 > cap,
            declared,
        });
    }
    let mut crc = flate2::Crc::new();
    crc.update(&out);
    if crc.sum() != entry.crc32 {
        return Err(InflateError::Crc { member: member() });
    }
    Ok(out)
}

/// The hand reader against the `zip` crate, on archives the crate writes: the same listing
/// and the same member bytes, ZIP64 included.
#[cfg(test)]
mod differential {
    use std::io::{Cursor, Read, Write};

    use proptest::prelude::*;
    use zip::write::{SimpleFileOptions, ZipWriter};
    use zip::CompressionMethod;

    use super::*;
    use crate::pypi::byte_source::LocalBytes;

    #[derive(Debug, Clone)]
    struct Entry {
        name: String,
        data: Vec<u8>,
        deflate: bool,
        large_file: bool,
    }

    #[derive(Debug, Clone)]
    struct Shape {
        entries: Vec<Entry>,
        directories: Vec<String>,
        comment: String,
        /// Bytes before the archive, as a self-extractor has.
        prefix: usize,
        /// ZIP64 end records although the archive is small.
        zip64_end: bool,
    }

    fn write(shape: &Shape) -> Vec<u8> {
        let mut w = ZipWriter::new(Cursor::new(Vec::new()));
        for dir in &shape.directories {
            w.add_directory(dir.as_str(), SimpleFileOptions::default())
                .unwrap();
        }
        for e in &shape.entries {
            let method = if e.deflate {
                CompressionMethod::Deflated
            } else {
                CompressionMethod::Stored
            };
            let options = SimpleFileOptions::default()
                .compression_method(method)
                .large_file(e.large_file);
            w.start_file(e.name.as_str(), options).unwrap();
            w.write_all(&e.data).unwrap();
        }
        if shape.zip64_end {
            w.set_raw_zip64_extensible_data_sector(Box::new([]));
        }
        w.set_comment(shape.comment.clone()).unwrap();
        let archive = w.finish().unwrap().into_inner();
        let mut bytes = vec![0x5a; shape.prefix];
        bytes.extend_from_slice(&archive);
        bytes
    }

    /// (name, size) of every entry, and (name, bytes) of every file, as the zip crate reads them.
    type Read2 = (Vec<(String, u64)>, Vec<(String, Vec<u8>)>);

    fn read_with_crate(bytes: &[u8]) -> Read2 {
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
        let mut listing = Vec::new();
        let mut files = Vec::new();
        for i in 0..archive.len() {
            let mut f = archive.by_index(i).unwrap();
            let name = f.name().unwrap().into_owned();
            listing.push((name.clone(), f.size()));
            if !f.is_dir() {
                let mut data = Vec::new();
                f.read_to_end(&mut data).unwrap();
                files.push((name, data));
            }
        }
        (listing, files)
    }

    fn read_by_hand(bytes: &[u8]) -> Read2 {
        let mut source = LocalBytes {
            name: "test.zip",
            bytes,
        };
        let (listing, members) =
            read_zip(&mut source, &|_: &str| true, &ArchiveLimits::default()).unwrap();
        (
            listing.into_iter().map(|e| (e.name, e.size)).collect(),
            members.into_iter().map(|m| (m.name, m.data)).collect(),
        )
    }

    fn assert_same(shape: &Shape) {
        let bytes = write(shape);
        assert_eq!(read_by_hand(&bytes), read_with_crate(&bytes), "{shape:?}");
    }

    fn entry(name: &str, data: &[u8]) -> Entry {
        Entry {
            name: name.into(),
            data: data.into(),
            deflate: true,
            large_file: false,
        }
    }

    fn plain(entries: Vec<Entry>) -> Shape {
        Shape {
            entries,
            directories: vec!["pkg/".into()],
            comment: String::new(),
            prefix: 0,
            zip64_end: false,
        }
    }

    #[test]
    fn wheel_like_archive() {
        let source = "def f():\n    return 1\n".repeat(200);
        assert_same(&plain(vec![
            entry("pkg/__init__.py", source.as_bytes()),
            Entry {
                deflate: false,
                ..entry("pkg/data.bin", &[0, 1, 2, 255])
            },
            entry("pkg/empty.py", b""),
            entry("pkg/naïve_ünïcode.py", b"x = 1\n"),
            entry("pkg-1.0.dist-info/RECORD", b"pkg/__init__.py,,\n"),
        ]));
    }

    #[test]
    fn zip64_extra_fields_and_end_records() {
        let mut shape = plain(vec![
            Entry {
                large_file: true,
                ..entry("pkg/big.py", &b"y = 2\n".repeat(1000))
            },
            Entry {
                large_file: true,
                deflate: false,
                ..entry("pkg/stored.py", b"z = 3\n")
            },
            entry("pkg/small.py", b"x = 1\n"),
        ]);
        assert_same(&shape);
        shape.zip64_end = true;
        let bytes = write(&shape);
        // The ZIP64 end-of-central-directory locator is there, 20 bytes before the EOCD.
        let eocd = bytes.len() - 22;
        assert_eq!(&bytes[eocd - 20..eocd - 16], &[0x50, 0x4b, 0x06, 0x07]);
        assert_same(&shape);
        shape.prefix = 1000;
        shape.comment = "self-extracting".into();
        assert_same(&shape);
    }

    /// More than 65,535 members: the count lives only in the ZIP64 end record.
    #[test]
    fn zip64_member_count() {
        let entries = (0..65_600)
            .map(|i| Entry {
                deflate: false,
                ..entry(&format!("m/{i}"), b"")
            })
            .collect();
        let shape = Shape {
            directories: Vec::new(),
            ..plain(entries)
        };
        let bytes = write(&shape);
        let eocd = bytes.len() - 22;
        assert_eq!(&bytes[eocd + 10..eocd + 12], &[0xff, 0xff]);
        let (listing, members) = read_by_hand(&bytes);
        assert_eq!(listing.len(), 65_600);
        assert_eq!(members.len(), 65_600);
        assert_eq!(listing, read_with_crate(&bytes).0);
    }

    fn shapes() -> impl Strategy<Value = Shape> {
        let name = "[a-z_]{1,8}(/[a-zA-Z0-9_.é]{1,12}){0,3}";
        let data = prop_oneof![
            prop::collection::vec(any::<u8>(), 0..300),
            "(def [a-z]+\\(\\): pass\n){0,40}".prop_map(String::into_bytes),
        ];
        let entry = (name, data, any::<bool>(), any::<bool>()).prop_map(
            |(name, data, deflate, large_file)| Entry {
                name,
                data,
                deflate,
                large_file,
            },
        );
        (
            prop::collection::vec(entry, 0..12),
            prop::collection::vec("[a-z]{1,6}/", 0..3),
            "[ -~]{0,40}",
            prop_oneof![Just(0usize), 1usize..5000],
            any::<bool>(),
        )
            .prop_map(
                |(mut entries, mut directories, comment, prefix, zip64_end)| {
                    // The writer refuses duplicate names.
                    let mut seen = std::collections::HashSet::new();
                    entries.retain(|e| seen.insert(e.name.clone()) && !e.name.ends_with('/'));
                    directories.retain(|d| seen.insert(d.clone()));
                    Shape {
                        entries,
                        directories,
                        comment,
                        prefix,
                        zip64_end,
                    }
                },
            )
    }

    proptest! {
        #[test]
        fn same_as_the_zip_crate(shape in shapes()) {
            assert_same(&shape);
        }
    }
}

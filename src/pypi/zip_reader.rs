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
        let mut end = zip_directory::find_end(&tail, len).map_err(&bad)?;
        if let Some(record) = end.zip64_record {
            if record + ZIP64_RECORD_LEN > len {
                return Err(bad("ZIP64 end record lies past the end of the file".into()));
            }
            let bytes = source.read(record..record + ZIP64_RECORD_LEN)?.into_owned();
            end = zip_directory::apply_zip64(&end, &bytes).map_err(&bad)?;
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
            let data_range = zip_directory::data_range(entry, &header).map_err(&bad)?;
            if data_range.end > len {
                return Err(bad(format!(
                    "member `{}` runs past the end of the file",
                    entry.name
                )));
            }
            let compressed = source.read(data_range)?;
            let data = inflate(entry, &compressed, limits).map_err(&bad)?;
            members.push(Member {
                name: entry.name.clone(),
                data,
            });
        }
        Ok(members)
    }
}

/// Lists a zip archive and reads the members `select` picks, touching only the bytes needed:
/// the tail, the central directory and the chosen members.
pub fn read_zip(
    source: &mut dyn ByteSource,
    select: &dyn Fn(&str) -> bool,
    limits: &ArchiveLimits,
) -> Result<(Vec<EntryInfo>, Vec<Member>), PypiError> {
    let index = ZipIndex::open(source, limits)?;
    let members = index.read(source, select, limits)?;
    Ok((index.listing(), members))
}

/// Decompresses one member, refusing to produce more than it declared and checking its CRC.
fn inflate(entry: &ZipEntry, compressed: &[u8], limits: &ArchiveLimits) -> Result<Vec<u8>, String> {
    if entry.flags & 1 != 0 {
        return Err(format!("member `{}` is encrypted", entry.name));
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
                .map_err(|e| format!("member `{}`: corrupt deflate data: {e}", entry.name))?;
        }
        other => {
            return Err(format!(
                "member `{}` uses compression method {other}, which nbenv does not read",
                entry.name
            ))
        }
    }
    if out.len() as u64 != declared {
        return Err(format!(
            "member `{}` inflates to {}{} bytes, but declares {declared}",
            entry.name,
            if out.len() as u64 > cap {
                "more than "
            } else {
                ""
            },
            out.len().min(cap as usize),
        ));
    }
    let mut crc = flate2::Crc::new();
    crc.update(&out);
    if crc.sum() != entry.crc32 {
        return Err(format!("member `{}` fails its CRC-32 check", entry.name));
    }
    Ok(out)
}

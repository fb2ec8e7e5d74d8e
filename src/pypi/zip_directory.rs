//! The ZIP central directory, read from byte ranges.
//!
//! Hand-rolled rather than through a zip crate because nbenv needs to know, before fetching a
//! single member, exactly which byte ranges each member occupies and what sizes it claims, so
//! it can fetch only those ranges and refuse oversized members up front. The `zip` crate over a
//! seekable reader on the same cached ranges was measured as no faster, and needs more requests
//! for a central directory beyond the tail (torch: 14 against 10); tests check this reader
//! against it.

use std::ops::Range;

const EOCD_SIG: u32 = 0x0605_4b50;
const ZIP64_LOCATOR_SIG: u32 = 0x0706_4b50;
const ZIP64_EOCD_SIG: u32 = 0x0606_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
pub(crate) const LOCAL_SIG: u32 = 0x0403_4b50;
const EOCD_LEN: usize = 22;
/// The EOCD record ends the file, after a comment of at most 64 KiB.
pub(crate) const TAIL_LEN: u64 = EOCD_LEN as u64 + 0xFFFF + 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZipEntry {
    pub name: String,
    pub method: u16,
    pub flags: u16,
    pub crc32: u32,
    pub compressed_size: u64,
    pub uncompressed_size: u64,
    pub header_offset: u64,
}

/// Where the central directory is, as the end records say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndRecord {
    pub entries: u64,
    pub cd_offset: u64,
    pub cd_size: u64,
    /// Where the central directory actually starts, counting bytes prepended to the archive.
    pub cd_start: u64,
    /// Offset of the ZIP64 end record, when one is needed and must still be read.
    pub zip64_record: Option<u64>,
}

fn u16_at(b: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(i..i + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(i..i + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?))
}

/// Finds the end-of-central-directory record in the last bytes of a file of `file_len` bytes.
/// Why the end records, or a member's local header, cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("too short to be a zip archive")]
    TooShort,
    #[error("no end-of-central-directory record: not a zip archive, or truncated")]
    NoEndRecord,
    #[error("truncated ZIP64 locator")]
    TruncatedZip64Locator,
    #[error("ZIP64 values without a ZIP64 locator")]
    Zip64WithoutLocator,
    #[error("central directory larger than the file")]
    DirectoryLargerThanFile,
    #[error("bad ZIP64 end-of-central-directory record")]
    BadZip64Record,
    #[error("truncated ZIP64 record")]
    TruncatedZip64Record,
    #[error("member `{member}`: bad local header")]
    BadLocalHeader { member: String },
}

pub fn find_end(tail: &[u8], file_len: u64) -> Result<EndRecord, LayoutError> {
    let tail_offset = file_len - tail.len() as u64;
    let mut pos = tail
        .len()
        .checked_sub(EOCD_LEN)
        .ok_or(LayoutError::TooShort)?;
    loop {
        if u32_at(tail, pos) == Some(EOCD_SIG) {
            let comment_len = usize::from(u16_at(tail, pos + 20).unwrap_or(0));
            if pos + EOCD_LEN + comment_len <= tail.len() {
                break;
            }
        }
        if pos == 0 {
            return Err(LayoutError::NoEndRecord);
        }
        pos -= 1;
    }
    let entries = u64::from(u16_at(tail, pos + 10).unwrap_or(0));
    let cd_size = u64::from(u32_at(tail, pos + 12).unwrap_or(0));
    let cd_offset = u64::from(u32_at(tail, pos + 16).unwrap_or(0));
    let eocd_offset = tail_offset + pos as u64;
    let needs_zip64 = entries == 0xFFFF || cd_size == 0xFFFF_FFFF || cd_offset == 0xFFFF_FFFF;
    let locator = pos
        .checked_sub(20)
        .filter(|&l| u32_at(tail, l) == Some(ZIP64_LOCATOR_SIG));
    if let Some(l) = locator {
        let declared = u64_at(tail, l + 8).ok_or(LayoutError::TruncatedZip64Locator)?;
        let has_record = |at: u64| {
            at.checked_sub(tail_offset)
                .and_then(|i| usize::try_from(i).ok())
                .is_some_and(|i| u32_at(tail, i) == Some(ZIP64_EOCD_SIG))
        };
        // The locator gives the record's offset from the archive's start; bytes prepended to
        // the archive (self-extractors) move it. A record without extensible data sits just
        // before the locator, so look there when the declared place holds none.
        let adjacent = (tail_offset + l as u64).checked_sub(ZIP64_RECORD_LEN);
        let record = match adjacent {
            Some(at) if !has_record(declared) && has_record(at) => at,
            _ => declared,
        };
        return Ok(EndRecord {
            entries,
            cd_offset,
            cd_size,
            cd_start: 0,
            zip64_record: Some(record),
        });
    }
    if needs_zip64 {
        return Err(LayoutError::Zip64WithoutLocator);
    }
    let cd_start = eocd_offset
        .checked_sub(cd_size)
        .ok_or(LayoutError::DirectoryLargerThanFile)?;
    Ok(EndRecord {
        entries,
        cd_offset,
        cd_size,
        cd_start,
        zip64_record: None,
    })
}

/// Completes `end` from the ZIP64 end record read at `end.zip64_record`.
pub fn apply_zip64(end: &EndRecord, record: &[u8]) -> Result<EndRecord, LayoutError> {
    if u32_at(record, 0) != Some(ZIP64_EOCD_SIG) {
        return Err(LayoutError::BadZip64Record);
    }
    let entries = u64_at(record, 32).ok_or(LayoutError::TruncatedZip64Record)?;
    let cd_size = u64_at(record, 40).ok_or(LayoutError::TruncatedZip64Record)?;
    let cd_offset = u64_at(record, 48).ok_or(LayoutError::TruncatedZip64Record)?;
    let record_offset = end.zip64_record.unwrap_or(0);
    let cd_start = record_offset
        .checked_sub(cd_size)
        .ok_or(LayoutError::DirectoryLargerThanFile)?;
    Ok(EndRecord {
        entries,
        cd_offset,
        cd_size,
        cd_start,
        zip64_record: None,
    })
}

/// Bytes the ZIP64 end record occupies (its fixed part).
pub const ZIP64_RECORD_LEN: u64 = 56;

/// Why a central directory was not read. The kinds differ for the user: a refused archive
/// may be fine but too big for nbenv's limits, a corrupt one is not a zip archive at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectoryError {
    /// More members than the limit allows.
    TooManyMembers(String),
    /// Not a valid central directory.
    Corrupt(String),
}

/// Reads every entry of the central directory `cd` (bytes starting at `end.cd_start`).
pub fn parse_central_directory(
    cd: &[u8],
    end: &EndRecord,
    max_members: usize,
) -> Result<Vec<ZipEntry>, DirectoryError> {
    let corrupt = |m: String| DirectoryError::Corrupt(m);
    if end.entries as usize > max_members {
        return Err(DirectoryError::TooManyMembers(format!(
            "the archive lists {} members, more than the limit of {max_members}",
            end.entries
        )));
    }
    // Bytes prepended to the archive (self-extractors) shift every offset it records.
    let shift = end.cd_start.wrapping_sub(end.cd_offset);
    let mut entries = Vec::with_capacity(end.entries as usize);
    let mut pos = 0usize;
    while pos + 46 <= cd.len() {
        if u32_at(cd, pos) != Some(CENTRAL_SIG) {
            return Err(corrupt(format!(
                "bad central directory entry at offset {}",
                end.cd_start + pos as u64
            )));
        }
        if entries.len() >= max_members {
            return Err(DirectoryError::TooManyMembers(format!(
                "the archive has more than {max_members} members"
            )));
        }
        let flags = u16_at(cd, pos + 8).unwrap_or(0);
        let method = u16_at(cd, pos + 10).unwrap_or(0);
        let crc32 = u32_at(cd, pos + 16).unwrap_or(0);
        let mut compressed_size = u64::from(u32_at(cd, pos + 20).unwrap_or(0));
        let mut uncompressed_size = u64::from(u32_at(cd, pos + 24).unwrap_or(0));
        let name_len = usize::from(u16_at(cd, pos + 28).unwrap_or(0));
        let extra_len = usize::from(u16_at(cd, pos + 30).unwrap_or(0));
        let comment_len = usize::from(u16_at(cd, pos + 32).unwrap_or(0));
        let mut header_offset = u64::from(u32_at(cd, pos + 42).unwrap_or(0));
        let name_start = pos + 46;
        let extra_start = name_start + name_len;
        let next = extra_start + extra_len + comment_len;
        if next > cd.len() {
            return Err(corrupt(
                "central directory entry runs past the directory's end".into(),
            ));
        }
        let name = String::from_utf8_lossy(&cd[name_start..extra_start]).into_owned();
        // ZIP64 extended information: only the fields whose 32-bit value is saturated.
        let mut extra = &cd[extra_start..extra_start + extra_len];
        while extra.len() >= 4 {
            let id = u16_at(extra, 0).unwrap_or(0);
            let size = usize::from(u16_at(extra, 2).unwrap_or(0));
            let body = extra.get(4..4 + size).unwrap_or(&[]);
            if id == 0x0001 {
                let mut at = 0;
                let mut take = |field: &mut u64| {
                    if *field == 0xFFFF_FFFF {
                        if let Some(v) = u64_at(body, at) {
                            *field = v;
                            at += 8;
                        }
                    }
                };
                take(&mut uncompressed_size);
                take(&mut compressed_size);
                take(&mut header_offset);
            }
            extra = extra.get(4 + size..).unwrap_or(&[]);
        }
        entries.push(ZipEntry {
            name,
            method,
            flags,
            crc32,
            compressed_size,
            uncompressed_size,
            header_offset: header_offset.wrapping_add(shift),
        });
        pos = next;
    }
    Ok(entries)
}

/// The byte range each entry's local header and data may occupy: up to the next entry's
/// header (or the central directory), but never more than its header and data can need.
pub fn entry_extents(entries: &[ZipEntry], cd_start: u64) -> Vec<Range<u64>> {
    let mut offsets: Vec<u64> = entries.iter().map(|e| e.header_offset).collect();
    offsets.sort_unstable();
    entries
        .iter()
        .map(|e| {
            let i = offsets.partition_point(|&o| o <= e.header_offset);
            let next = offsets.get(i).copied().unwrap_or(cd_start).min(cd_start);
            // Local header (30) + name and extra (≤ 2 × 64 KiB) + data + data descriptor (≤ 24).
            let most = e.header_offset + 30 + 2 * 0xFFFF + e.compressed_size + 24;
            e.header_offset..next.min(most).max(e.header_offset)
        })
        .collect()
}

/// Where the member's compressed data lies, given the bytes of its local header.
pub fn data_range(entry: &ZipEntry, local_header: &[u8]) -> Result<Range<u64>, LayoutError> {
    if u32_at(local_header, 0) != Some(LOCAL_SIG) {
        return Err(LayoutError::BadLocalHeader {
            member: entry.name.clone(),
        });
    }
    let name_len = u64::from(u16_at(local_header, 26).unwrap_or(0));
    let extra_len = u64::from(u16_at(local_header, 28).unwrap_or(0));
    let start = entry.header_offset + 30 + name_len + extra_len;
    Ok(start..start + entry.compressed_size)
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Write};

    use zip::write::{SimpleFileOptions, ZipWriter};

    use super::*;

    fn entry(name: &str) -> Vec<u8> {
        let mut e = Vec::new();
        e.extend_from_slice(&CENTRAL_SIG.to_le_bytes());
        e.extend_from_slice(&[0; 24]);
        e.extend_from_slice(&(name.len() as u16).to_le_bytes());
        e.extend_from_slice(&[0; 16]);
        e.extend_from_slice(name.as_bytes());
        e
    }

    fn end(entries: u64, cd_size: usize) -> EndRecord {
        EndRecord {
            entries,
            cd_offset: 0,
            cd_size: cd_size as u64,
            cd_start: 0,
            zip64_record: None,
        }
    }

    /// The kind of failure is a type, not a phrase in the message: a corrupt directory whose
    /// member names say "limit" or "more than" is still corrupt.
    #[test]
    fn limits_and_corruption_are_told_apart_by_kind() {
        let mut cd = [entry("limit.py"), entry("more than.py")].concat();
        let ok = parse_central_directory(&cd, &end(2, cd.len()), 10).unwrap();
        assert_eq!(ok.len(), 2);
        assert!(matches!(
            parse_central_directory(&cd, &end(2, cd.len()), 1),
            Err(DirectoryError::TooManyMembers(_))
        ));
        assert!(matches!(
            parse_central_directory(&cd, &end(0, cd.len()), 1),
            Err(DirectoryError::TooManyMembers(_))
        ));
        cd.truncate(cd.len() - 3);
        assert!(matches!(
            parse_central_directory(&cd, &end(2, cd.len()), 10),
            Err(DirectoryError::Corrupt(m)) if m.contains("runs past")
        ));
    }

    fn archive(names: &[&str], zip64_end: bool) -> Vec<u8> {
        let mut w = ZipWriter::new(Cursor::new(Vec::new()));
        for name in names {
            let stored =
                SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
            w.start_file(*name, stored).unwrap();
            w.write_all(name.as_bytes()).unwrap();
        }
        if zip64_end {
            w.set_raw_zip64_extensible_data_sector(Box::new([]));
        }
        w.finish().unwrap().into_inner()
    }

    fn end_of(bytes: &[u8]) -> EndRecord {
        let end = find_end(bytes, bytes.len() as u64).unwrap();
        match end.zip64_record {
            Some(at) => {
                apply_zip64(&end, &bytes[at as usize..][..ZIP64_RECORD_LEN as usize]).unwrap()
            }
            None => end,
        }
    }

    #[test]
    fn end_records() {
        let bytes = archive(&["a.py", "b/c.py"], false);
        let end = end_of(&bytes);
        assert_eq!(end.entries, 2);
        assert_eq!(end.cd_start, end.cd_offset);
        assert_eq!(end.cd_start + end.cd_size, bytes.len() as u64 - 22);

        let zip64 = archive(&["a.py", "b/c.py"], true);
        let first = find_end(&zip64, zip64.len() as u64).unwrap();
        assert!(first.zip64_record.is_some());
        let end = end_of(&zip64);
        assert_eq!((end.entries, end.zip64_record), (2, None));
        assert_eq!(end.cd_start, end.cd_offset);

        // Only the last bytes of a long file: offsets are taken relative to the file.
        let mut long = vec![0u8; 100_000];
        long.extend_from_slice(&bytes);
        let tail = &long[long.len() - 1000..];
        let end = find_end(tail, long.len() as u64).unwrap();
        assert_eq!(end.cd_start, 100_000 + end.cd_offset);
    }

    #[test]
    fn end_record_errors() {
        assert_eq!(find_end(b"PK", 2), Err(LayoutError::TooShort));
        assert_eq!(find_end(&[0u8; 100], 100), Err(LayoutError::NoEndRecord));
        let mut bytes = archive(&["a.py"], false);
        // An entry count that needs ZIP64, without its locator.
        let eocd = bytes.len() - 22;
        bytes[eocd + 10..eocd + 12].copy_from_slice(&[0xff, 0xff]);
        assert_eq!(
            find_end(&bytes, bytes.len() as u64),
            Err(LayoutError::Zip64WithoutLocator)
        );
        // A central directory claimed larger than the file.
        let mut bytes = archive(&["a.py"], false);
        let eocd = bytes.len() - 22;
        bytes[eocd + 12..eocd + 16].copy_from_slice(&0xFFFF_FFFEu32.to_le_bytes());
        assert_eq!(
            find_end(&bytes, bytes.len() as u64),
            Err(LayoutError::DirectoryLargerThanFile)
        );
        let end = EndRecord {
            entries: 1,
            cd_offset: 0,
            cd_size: 0,
            cd_start: 0,
            zip64_record: Some(0),
        };
        assert!(apply_zip64(&end, &[0u8; 56]).is_err());
        assert!(apply_zip64(&end, &ZIP64_EOCD_SIG.to_le_bytes()).is_err());
    }

    #[test]
    fn central_directory_entries_and_limits() {
        let bytes = archive(&["a.py", "b/c.py", "d.txt"], false);
        let end = end_of(&bytes);
        let cd = &bytes[end.cd_start as usize..(end.cd_start + end.cd_size) as usize];
        let entries = parse_central_directory(cd, &end, 10).unwrap();
        let names: Vec<_> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["a.py", "b/c.py", "d.txt"]);
        assert_eq!(entries[1].uncompressed_size, 6);
        assert!(matches!(
            parse_central_directory(cd, &end, 2),
            Err(DirectoryError::TooManyMembers(m)) if m == "the archive lists 3 members, more than the limit of 2"
        ));
        // A directory that lists fewer entries than it holds is still bounded.
        let fewer = EndRecord { entries: 1, ..end };
        assert!(parse_central_directory(cd, &fewer, 2).is_err());
        // A broken signature, and an entry whose name runs past the directory.
        let mut broken = cd.to_vec();
        broken[0] = b'X';
        assert!(parse_central_directory(&broken, &end, 10).is_err());
        let mut long_name = cd.to_vec();
        long_name[28..30].copy_from_slice(&u16::MAX.to_le_bytes());
        assert!(parse_central_directory(&long_name, &end, 10).is_err());

        // Each member's extent ends where the next begins; the last at the directory.
        let extents = entry_extents(&entries, end.cd_start);
        assert_eq!(extents[0].end, extents[1].start);
        assert_eq!(extents[2].end, end.cd_start);
        let local = &bytes[entries[1].header_offset as usize..];
        let data = data_range(&entries[1], local).unwrap();
        assert_eq!(&bytes[data.start as usize..data.end as usize], b"b/c.py");
        assert!(data_range(&entries[1], b"PK\x01\x02").is_err());
    }
}

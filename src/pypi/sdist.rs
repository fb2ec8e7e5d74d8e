use std::cell::Cell;
use std::io::Read;

use super::archive::{ArchiveLimits, EntryInfo, Member};
use super::error::PypiError;
use super::filename::SdistFormat;

/// Lists a tarball sdist and keeps the members `select` picks, reading `compressed` once,
/// front to back.
///
/// A tarball has no index, so every member is decompressed on the way (the total is bounded by
/// the limits), but only the selected ones are held: an sdist that bundles a 400 MB jar costs
/// a buffer's worth of memory, not the jar. `compressed` is anything that yields the file's
/// bytes in order: the cache, or the response as it arrives.
pub fn read_tar_stream(
    compressed: &mut dyn Read,
    format: SdistFormat,
    filename: &str,
    select: &dyn Fn(&str) -> bool,
    limits: &ArchiveLimits,
) -> Result<(Vec<EntryInfo>, Vec<Member>), PypiError> {
    let exceeded = Cell::new(false);
    let max = limits.max_total_size;
    let counted = |inner| CountingReader::new(inner, max, &exceeded);
    let buffered = std::io::BufReader::with_capacity(64 << 10, compressed);
    let result = match format {
        SdistFormat::TarGz => read_tar(
            counted(Box::new(flate2::read::MultiGzDecoder::new(buffered))),
            filename,
            select,
            limits,
        ),
        SdistFormat::TarBz2 => read_tar(
            counted(Box::new(bzip2::read::MultiBzDecoder::new(buffered))),
            filename,
            select,
            limits,
        ),
        SdistFormat::Tar => read_tar(counted(Box::new(buffered)), filename, select, limits),
        SdistFormat::Zip | SdistFormat::TarXz => return Err(unsupported(filename, format)),
    };
    if exceeded.get() {
        return Err(PypiError::Refused {
            file: filename.to_string(),
            message: format!(
                "decompresses to more than the {} byte limit",
                limits.max_total_size
            ),
        });
    }
    result
}

/// Lists a whole sdist held in memory and reads the members `select` picks (tests and
/// property tests; the client streams tarballs and reads zips by range).
#[cfg(test)]
pub fn read_sdist(
    bytes: &[u8],
    format: SdistFormat,
    filename: &str,
    select: &dyn Fn(&str) -> bool,
    limits: &ArchiveLimits,
) -> Result<(Vec<EntryInfo>, Vec<Member>), PypiError> {
    match format {
        SdistFormat::Zip => {
            let mut source = super::byte_source::LocalBytes {
                name: filename,
                bytes,
            };
            super::zip_reader::read_zip(&mut source, select, limits)
        }
        _ => read_tar_stream(&mut &bytes[..], format, filename, select, limits),
    }
}

/// Whether nbenv reads this sdist format as a stream (zip sdists are read by range instead).
pub fn is_streamed(format: SdistFormat) -> bool {
    matches!(
        format,
        SdistFormat::TarGz | SdistFormat::TarBz2 | SdistFormat::Tar
    )
}

pub fn unsupported(filename: &str, format: SdistFormat) -> PypiError {
    PypiError::BadArchive {
        file: filename.to_string(),
        message: match format {
            SdistFormat::TarXz => "xz-compressed sdists are not supported".into(),
            other => format!("{other:?} sdists are not read as a stream"),
        },
    }
}

fn read_tar(
    reader: CountingReader<'_>,
    filename: &str,
    select: &dyn Fn(&str) -> bool,
    limits: &ArchiveLimits,
) -> Result<(Vec<EntryInfo>, Vec<Member>), PypiError> {
    let bad = |message: String| PypiError::BadArchive {
        file: filename.to_string(),
        message,
    };
    let mut archive = tar::Archive::new(reader);
    let mut listing = Vec::new();
    let mut members = Vec::new();
    let entries = archive
        .entries()
        .map_err(|e| bad(format!("not a readable tar archive: {e}")))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| bad(format!("corrupt tar archive: {e}")))?;
        if listing.len() >= limits.max_members {
            return Err(PypiError::Refused {
                file: filename.to_string(),
                message: format!("more than {} members", limits.max_members),
            });
        }
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let size = entry.header().size().unwrap_or(0);
        if select(&path) {
            if size > limits.max_member_size {
                return Err(PypiError::Refused {
                    file: filename.to_string(),
                    message: format!(
                        "member `{path}` claims {size} bytes, more than the {} byte limit",
                        limits.max_member_size
                    ),
                });
            }
            let mut data = Vec::with_capacity(size as usize);
            (&mut entry)
                .take(size)
                .read_to_end(&mut data)
                .map_err(|e| bad(format!("member `{path}`: {e}")))?;
            if (data.len() as u64) < size {
                return Err(bad(format!("member `{path}` is truncated")));
            }
            members.push(Member {
                name: path.clone(),
                data,
            });
        }
        listing.push(EntryInfo { name: path, size });
    }
    Ok((listing, members))
}

/// Stops a decompressor once it has produced more than `max` bytes: a gzip bomb inside a
/// tarball is otherwise only noticed after it has filled memory or the disk.
struct CountingReader<'a> {
    inner: Box<dyn Read + 'a>,
    read: u64,
    max: u64,
    exceeded: &'a Cell<bool>,
}

impl<'a> CountingReader<'a> {
    fn new(inner: Box<dyn Read + 'a>, max: u64, exceeded: &'a Cell<bool>) -> Self {
        Self {
            inner,
            read: 0,
            max,
            exceeded,
        }
    }
}

impl Read for CountingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.max {
            self.exceeded.set(true);
            return Err(std::io::Error::other("decompressed size limit exceeded"));
        }
        Ok(n)
    }
}

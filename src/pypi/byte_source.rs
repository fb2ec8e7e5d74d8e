use std::borrow::Cow;
use std::ops::Range;

use super::error::PypiError;

/// Random access to an archive's bytes, wherever they are.
///
/// `prefetch` announces every range about to be read, so a remote source can merge nearby
/// ranges into few requests; `read` then serves from what was fetched.
pub trait ByteSource {
    fn len(&self) -> u64;
    fn prefetch(&mut self, ranges: &[Range<u64>]) -> Result<(), PypiError>;
    fn read(&mut self, range: Range<u64>) -> Result<Cow<'_, [u8]>, PypiError>;
    /// Names the archive in error messages.
    fn name(&self) -> &str;
}

/// A whole archive in memory (tests and property tests read fixtures through it).
#[cfg(test)]
pub struct LocalBytes<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

#[cfg(test)]
impl ByteSource for LocalBytes<'_> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn prefetch(&mut self, _ranges: &[Range<u64>]) -> Result<(), PypiError> {
        Ok(())
    }

    fn read(&mut self, range: Range<u64>) -> Result<Cow<'_, [u8]>, PypiError> {
        let (start, end) = (range.start as usize, range.end as usize);
        self.bytes
            .get(start..end)
            .map(Cow::Borrowed)
            .ok_or_else(|| PypiError::BadArchive {
                file: self.name.to_string(),
                message: format!("offset {start}..{end} is past the end of the file"),
            })
    }

    fn name(&self) -> &str {
        self.name
    }
}

/// Fetched pieces of a file, sorted by offset; pieces may overlap or abut.
#[derive(Debug, Default, Clone)]
pub struct Chunks {
    pieces: Vec<(u64, Vec<u8>)>,
}

impl Chunks {
    pub fn insert(&mut self, start: u64, bytes: Vec<u8>) {
        let at = self.pieces.partition_point(|(s, _)| *s < start);
        self.pieces.insert(at, (start, bytes));
    }

    /// The parts of `range` no piece covers.
    pub fn missing(&self, range: Range<u64>) -> Vec<Range<u64>> {
        let mut out = Vec::new();
        let mut cursor = range.start;
        for (start, bytes) in &self.pieces {
            let end = start + bytes.len() as u64;
            if end <= cursor {
                continue;
            }
            if *start >= range.end {
                break;
            }
            if *start > cursor {
                out.push(cursor..*start);
            }
            cursor = cursor.max(end);
            if cursor >= range.end {
                break;
            }
        }
        if cursor < range.end {
            out.push(cursor..range.end);
        }
        out
    }

    /// The bytes of `range`, borrowed from one piece or assembled from adjacent ones.
    pub fn get(&self, range: Range<u64>) -> Option<Cow<'_, [u8]>> {
        let len = usize::try_from(range.end - range.start).ok()?;
        for (start, bytes) in &self.pieces {
            let end = start + bytes.len() as u64;
            if *start <= range.start && range.end <= end {
                let from = (range.start - start) as usize;
                return Some(Cow::Borrowed(&bytes[from..from + len]));
            }
        }
        if !self.missing(range.clone()).is_empty() {
            return None;
        }
        let mut out = Vec::with_capacity(len);
        let mut cursor = range.start;
        for (start, bytes) in &self.pieces {
            let end = start + bytes.len() as u64;
            if *start <= cursor && cursor < end {
                let upto = end.min(range.end);
                out.extend_from_slice(&bytes[(cursor - start) as usize..(upto - start) as usize]);
                cursor = upto;
                if cursor == range.end {
                    break;
                }
            }
        }
        Some(Cow::Owned(out))
    }
}

/// Sorts ranges and joins those closer than `gap` bytes: one request for two members
/// separated by a few KiB is cheaper than two round trips.
pub fn merge_ranges(mut ranges: Vec<Range<u64>>, gap: u64) -> Vec<Range<u64>> {
    ranges.retain(|r| r.start < r.end);
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end.saturating_add(gap) => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging() {
        assert_eq!(
            merge_ranges(vec![10..20, 0..5, 25..30, 100..110], 4),
            vec![0..5, 10..20, 25..30, 100..110]
        );
        assert_eq!(
            merge_ranges(vec![10..20, 0..5, 25..30, 100..110], 5),
            vec![0..30, 100..110]
        );
        assert_eq!(merge_ranges(vec![0..10, 2..4], 0), vec![0..10]);
    }

    #[test]
    fn chunks_cover_and_assemble() {
        let mut c = Chunks::default();
        c.insert(10, vec![1; 10]);
        c.insert(20, vec![2; 5]);
        assert_eq!(c.missing(0..30), vec![0..10, 25..30]);
        assert!(c.missing(12..24).is_empty());
        assert_eq!(c.get(12..14).unwrap().as_ref(), &[1, 1]);
        assert_eq!(c.get(18..22).unwrap().as_ref(), &[1, 1, 2, 2]);
        assert!(c.get(18..26).is_none());
    }
}

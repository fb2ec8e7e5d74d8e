//! The API paths of one distribution, stored as a few compressed, front-coded chunks.
//!
//! Paths are most of a bank's bytes when kept as rows (each twice: in the table and in its
//! index). Sorted, they share long prefixes (`pandas.core.frame.DataFrame.`...), so
//! front-coding then zlib keeps a tenth of that; the whole dictionary of a distribution is
//! small enough to load at once when a query or a build needs it.
//!
//! A release that adds paths writes them as a new chunk rather than rewriting the whole
//! dictionary (which made each release's write cost grow with the distribution's history);
//! the writer merges small chunks into their elders as a binary counter does, so a
//! distribution has O(log n) chunks and each path is rewritten O(log n) times.
//!
//! Format of a chunk (inside zlib): for each path in sorted order, `shared` (bytes in common
//! with the previous path), `len` (of the rest), the rest, and the API's id, all LEB128
//! varints.

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::sync::Arc;

/// Each path is allocated once and shared by both maps.
#[derive(Debug, Clone, Default)]
pub struct PathDictionary {
    by_path: BTreeMap<Arc<str>, i64>,
    by_id: HashMap<i64, Arc<str>>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("corrupt path dictionary")]
pub struct CorruptDictionary;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn take_varint(bytes: &[u8], at: &mut usize) -> Result<u64, CorruptDictionary> {
    let mut value: u64 = 0;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at).ok_or(CorruptDictionary)?;
        *at += 1;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(CorruptDictionary)
}

impl PathDictionary {
    pub fn get(&self, path: &str) -> Option<i64> {
        self.by_path.get(path).copied()
    }

    pub fn path(&self, id: i64) -> Option<&str> {
        self.by_id.get(&id).map(|p| &**p)
    }

    pub fn insert(&mut self, path: &str, id: i64) {
        let shared: Arc<str> = Arc::from(path);
        self.by_path.insert(shared.clone(), id);
        self.by_id.insert(id, shared);
    }

    pub fn len(&self) -> usize {
        self.by_path.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }

    /// (path, id), sorted by path.
    pub fn iter(&self) -> impl Iterator<Item = (&str, i64)> {
        self.by_path.iter().map(|(p, id)| (&**p, *id))
    }

    /// The paths starting with `prefix`, sorted.
    pub fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a str, i64)> + 'a {
        self.by_path
            .range::<str, _>((
                std::ops::Bound::Included(prefix),
                std::ops::Bound::Unbounded,
            ))
            .take_while(move |(p, _)| p.starts_with(prefix))
            .map(|(p, id)| (&**p, *id))
    }

    /// The whole dictionary as one chunk.
    pub fn encode(&self) -> Vec<u8> {
        encode_chunk(self.iter())
    }

    /// The chunk holding just the APIs `ids` (those the dictionary knows).
    pub fn encode_ids(&self, ids: &[i64]) -> Vec<u8> {
        let mut entries: Vec<(&str, i64)> = ids
            .iter()
            .filter_map(|&id| Some((self.path(id)?, id)))
            .collect();
        entries.sort_unstable();
        encode_chunk(entries.into_iter())
    }

    /// A dictionary of one chunk.
    pub fn decode(blob: &[u8]) -> Result<Self, CorruptDictionary> {
        Self::from_chunks([blob])
    }

    /// The dictionary made of all of a distribution's chunks.
    pub fn from_chunks<'b>(
        blobs: impl IntoIterator<Item = &'b [u8]>,
    ) -> Result<Self, CorruptDictionary> {
        let mut entries = Vec::new();
        for blob in blobs {
            decode_chunk(blob, &mut entries)?;
        }
        let by_id = entries.iter().map(|(p, id)| (*id, p.clone())).collect();
        Ok(Self {
            by_path: entries.into_iter().collect(),
            by_id,
        })
    }
}

/// Where a new chunk of `new` paths starts merging into the chunks before it (`sizes`, oldest
/// first): it absorbs each elder no larger than what it has gathered so far, so sizes fall
/// geometrically from the oldest and a path is rewritten once per doubling.
pub fn merge_from(sizes: &[usize], new: usize) -> usize {
    let mut from = sizes.len();
    let mut gathered = new;
    while from > 0 && sizes[from - 1] <= gathered {
        from -= 1;
        gathered += sizes[from];
    }
    from
}

/// Front-codes then compresses `entries`, which come sorted by path.
fn encode_chunk<'p>(entries: impl Iterator<Item = (&'p str, i64)>) -> Vec<u8> {
    let mut raw = Vec::new();
    let mut previous: &[u8] = b"";
    for (path, id) in entries {
        let bytes = path.as_bytes();
        let shared = bytes
            .iter()
            .zip(previous)
            .take_while(|(a, b)| a == b)
            .count();
        put_varint(&mut raw, shared as u64);
        put_varint(&mut raw, (bytes.len() - shared) as u64);
        raw.extend_from_slice(&bytes[shared..]);
        put_varint(&mut raw, id as u64);
        previous = bytes;
    }
    let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&raw).expect("writing to memory");
    enc.finish().expect("writing to memory")
}

/// The ids of the APIs in one chunk.
pub fn chunk_ids(blob: &[u8]) -> Result<Vec<i64>, CorruptDictionary> {
    let mut entries = Vec::new();
    decode_chunk(blob, &mut entries)?;
    Ok(entries.into_iter().map(|(_, id)| id).collect())
}

/// Appends a chunk's (path, id) entries to `entries`.
fn decode_chunk(blob: &[u8], entries: &mut Vec<(Arc<str>, i64)>) -> Result<(), CorruptDictionary> {
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(blob)
        .take(1 << 30)
        .read_to_end(&mut raw)
        .map_err(|_| CorruptDictionary)?;
    let mut at = 0;
    let mut previous: Vec<u8> = Vec::new();
    while at < raw.len() {
        let shared = take_varint(&raw, &mut at)? as usize;
        let len = take_varint(&raw, &mut at)? as usize;
        let rest = raw.get(at..at + len).ok_or(CorruptDictionary)?;
        at += len;
        let id = take_varint(&raw, &mut at)? as i64;
        if shared > previous.len() {
            return Err(CorruptDictionary);
        }
        previous.truncate(shared);
        previous.extend_from_slice(rest);
        let path = std::str::from_utf8(&previous).map_err(|_| CorruptDictionary)?;
        entries.push((Arc::from(path), id));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_compresses() {
        let mut d = PathDictionary::default();
        let mut raw = 0;
        for (i, p) in [
            "pandas.core.frame.DataFrame.head",
            "pandas.core.frame.DataFrame",
            "pandas.read_excel",
            "pandas.core.frame.DataFrame.tail",
            "pandas",
        ]
        .iter()
        .enumerate()
        {
            d.insert(p, 1000 + i as i64);
            raw += p.len();
        }
        let blob = d.encode();
        let back = PathDictionary::decode(&blob).unwrap();
        assert_eq!(back.get("pandas.core.frame.DataFrame.tail"), Some(1003));
        assert_eq!(back.path(1004), Some("pandas"));
        let under: Vec<&str> = back
            .with_prefix("pandas.core.frame.DataFrame.")
            .map(|(p, _)| p)
            .collect();
        assert_eq!(
            under,
            [
                "pandas.core.frame.DataFrame.head",
                "pandas.core.frame.DataFrame.tail"
            ]
        );
        assert!(PathDictionary::decode(b"not zlib").is_err());
        let _ = raw;
    }

    #[test]
    fn chunks_make_one_dictionary() {
        let mut d = PathDictionary::default();
        for (i, p) in ["a.b", "a", "c.d", "a.c"].iter().enumerate() {
            d.insert(p, i as i64);
        }
        let first = d.encode_ids(&[0, 1]);
        let second = d.encode_ids(&[3, 2, 99]);
        let back = PathDictionary::from_chunks([&first[..], &second[..]]).unwrap();
        let all: Vec<(&str, i64)> = back.iter().collect();
        assert_eq!(all, [("a", 1), ("a.b", 0), ("a.c", 3), ("c.d", 2)]);
        assert_eq!(back.path(3), Some("a.c"));
    }

    /// Chunk sizes fall by at least half from the oldest, so a dictionary of n paths has at
    /// most log2(n) + 1 chunks, and writing n paths one release at a time rewrites each path
    /// about log2(n) times, not n times.
    #[test]
    fn merging_keeps_chunks_few_and_rewrites_bounded() {
        for added in [1usize, 7, 100] {
            let mut sizes: Vec<usize> = vec![50_000];
            let mut written = 50_000usize;
            for _ in 0..2_000 {
                let from = merge_from(&sizes, added);
                let merged: usize = sizes[from..].iter().sum::<usize>() + added;
                written += merged;
                sizes.truncate(from);
                sizes.push(merged);
                assert!(sizes.windows(2).all(|w| w[0] > w[1]), "{sizes:?}");
            }
            let total: usize = sizes.iter().sum();
            assert_eq!(total, 50_000 + 2_000 * added);
            let log = (total as f64).log2() as usize + 1;
            assert!(sizes.len() <= log, "{} chunks for {total}", sizes.len());
            assert!(
                written <= total * (log + 1),
                "{written} written for {total}"
            );
        }
    }
}

//! The API paths of one distribution, stored as one compressed, front-coded blob.
//!
//! Paths are most of a bank's bytes when kept as rows (each twice: in the table and in its
//! index). Sorted, they share long prefixes (`pandas.core.frame.DataFrame.`...), so
//! front-coding then zlib keeps a tenth of that; the whole dictionary of a distribution is
//! small enough to load at once when a query or a build needs it.
//!
//! Format (inside zlib): for each path in sorted order, `shared` (bytes in common with the
//! previous path), `len` (of the rest), the rest, and the API's id, all LEB128 varints.

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

    pub fn encode(&self) -> Vec<u8> {
        let mut raw = Vec::with_capacity(self.by_path.len() * 12);
        let mut previous: &[u8] = b"";
        for (path, id) in &self.by_path {
            let bytes = path.as_bytes();
            let shared = bytes
                .iter()
                .zip(previous)
                .take_while(|(a, b)| a == b)
                .count();
            put_varint(&mut raw, shared as u64);
            put_varint(&mut raw, (bytes.len() - shared) as u64);
            raw.extend_from_slice(&bytes[shared..]);
            put_varint(&mut raw, *id as u64);
            previous = bytes;
        }
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&raw).expect("writing to memory");
        enc.finish().expect("writing to memory")
    }

    pub fn decode(blob: &[u8]) -> Result<Self, CorruptDictionary> {
        let mut raw = Vec::new();
        flate2::read::ZlibDecoder::new(blob)
            .take(1 << 30)
            .read_to_end(&mut raw)
            .map_err(|_| CorruptDictionary)?;
        let mut entries: Vec<(Arc<str>, i64)> = Vec::new();
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
        // Sorted already: the map is built in bulk.
        let by_id = entries.iter().map(|(p, id)| (*id, p.clone())).collect();
        Ok(Self {
            by_path: entries.into_iter().collect(),
            by_id,
        })
    }
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
}

//! Decoded path dictionaries kept in nbenv's cache, so that a query in a new process does
//! not inflate and decode a distribution's dictionary again (tens of thousands of paths: most
//! of a warm `infer`'s reading of the bank).
//!
//! An entry is named by the sha256 of the chunks it was decoded from, as the bank holds them
//! now: a bank that changed has other chunks, so an entry can never speak for another
//! dictionary, and old ones age out with the cache's other evictable entries. An entry that
//! fails its checks is decoded again from the bank.
//!
//! Format: `MAGIC`, crc32 of the rest (4 bytes LE), then little-endian `u32` run count, the end
//! of each run, `u32` entry count, each entry (`u32` start, `u32` length, `i64` id), the text.

use sha2::{Digest, Sha256};

use super::path_dictionary::{CorruptDictionary, DecodedParts, PathDictionary};
use crate::pypi::Cache;

const MAGIC: &[u8] = b"nbenv-dictionary-v1\n";
/// The cache's kind (directory) for these entries.
pub(crate) const KIND: &str = "dictionaries";

/// The entry name for a dictionary made of `chunks`, in order.
pub(crate) fn key(chunks: &[Vec<u8>]) -> String {
    let mut hash = Sha256::new();
    for chunk in chunks {
        hash.update((chunk.len() as u64).to_le_bytes());
        hash.update(chunk);
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The dictionary the cache holds for `chunks`, if any that passes its checks.
pub(crate) fn load(cache: &Cache, chunks: &[Vec<u8>]) -> Option<PathDictionary> {
    decode(&cache.get_blob(KIND, &key(chunks))?).ok()
}

/// Keeps `dictionary`, decoded from `chunks` (if the cache's budget admits it).
pub(crate) fn store(cache: &Cache, chunks: &[Vec<u8>], dictionary: &PathDictionary) {
    // A dictionary that fails to be kept is decoded again next time.
    let _ = cache.put_blob(KIND, &key(chunks), &encode(dictionary));
}

pub(crate) fn encode(dictionary: &PathDictionary) -> Vec<u8> {
    let parts = dictionary.decoded_parts();
    let mut body =
        Vec::with_capacity(8 + parts.runs.len() * 4 + parts.entries.len() * 16 + parts.text.len());
    body.extend_from_slice(&(parts.runs.len() as u32).to_le_bytes());
    for end in &parts.runs {
        body.extend_from_slice(&(*end as u32).to_le_bytes());
    }
    body.extend_from_slice(&(parts.entries.len() as u32).to_le_bytes());
    for &(start, len, id) in &parts.entries {
        body.extend_from_slice(&start.to_le_bytes());
        body.extend_from_slice(&len.to_le_bytes());
        body.extend_from_slice(&id.to_le_bytes());
    }
    body.extend_from_slice(parts.text.as_bytes());
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

pub(crate) fn decode(bytes: &[u8]) -> Result<PathDictionary, CorruptDictionary> {
    let rest = bytes.strip_prefix(MAGIC).ok_or(CorruptDictionary)?;
    let (sum, body) = rest.split_at_checked(4).ok_or(CorruptDictionary)?;
    if crc32fast::hash(body) != u32::from_le_bytes(sum.try_into().map_err(|_| CorruptDictionary)?) {
        return Err(CorruptDictionary);
    }
    let mut at = 0;
    let u32_at = |at: &mut usize| -> Result<u32, CorruptDictionary> {
        let b = body.get(*at..*at + 4).ok_or(CorruptDictionary)?;
        *at += 4;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")))
    };
    let n_runs = u32_at(&mut at)? as usize;
    if n_runs > body.len() / 4 {
        return Err(CorruptDictionary);
    }
    let mut runs = Vec::with_capacity(n_runs);
    for _ in 0..n_runs {
        runs.push(u32_at(&mut at)? as usize);
    }
    let n_entries = u32_at(&mut at)? as usize;
    let table = body
        .get(at..at + n_entries.checked_mul(16).ok_or(CorruptDictionary)?)
        .ok_or(CorruptDictionary)?;
    let entries = table
        .chunks_exact(16)
        .map(|e| {
            (
                u32::from_le_bytes(e[0..4].try_into().expect("4 bytes")),
                u32::from_le_bytes(e[4..8].try_into().expect("4 bytes")),
                i64::from_le_bytes(e[8..16].try_into().expect("8 bytes")),
            )
        })
        .collect();
    let text =
        String::from_utf8(body[at + table.len()..].to_vec()).map_err(|_| CorruptDictionary)?;
    PathDictionary::from_decoded_parts(DecodedParts {
        text,
        entries,
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PathDictionary {
        let mut d = PathDictionary::default();
        for (i, p) in ["pkg.b", "pkg", "pkg.a.é", "pkg.c"].iter().enumerate() {
            d.insert(p, 10 + i as i64);
        }
        let first = d.encode_ids(&[10, 11]);
        let second = d.encode_ids(&[12, 13]);
        PathDictionary::from_chunks([&first[..], &second[..]]).unwrap()
    }

    #[test]
    fn round_trips_with_the_same_answers() {
        let d = sample();
        let back = decode(&encode(&d)).unwrap();
        let all = |d: &PathDictionary| -> Vec<(String, i64)> {
            d.iter().map(|(p, i)| (p.to_string(), i)).collect()
        };
        assert_eq!(all(&back), all(&d));
        assert_eq!(back.get("pkg.a.é"), Some(12));
        assert_eq!(back.path(13), Some("pkg.c"));
        assert_eq!(back.decoded_parts(), d.decoded_parts());
    }

    #[test]
    fn damage_is_refused() {
        let bytes = encode(&sample());
        for len in 0..bytes.len() {
            assert!(decode(&bytes[..len]).is_err(), "{len}");
        }
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x01;
            assert!(decode(&damaged).is_err(), "{at}");
        }
        // Parts that would make lookups go wrong are refused even with a good checksum.
        let mut parts = sample().decoded_parts();
        parts.runs = vec![3, 1, 4];
        assert!(PathDictionary::from_decoded_parts(parts).is_err());
        let mut parts = sample().decoded_parts();
        parts.entries[0].1 = 1_000;
        assert!(PathDictionary::from_decoded_parts(parts).is_err());
        let mut parts = sample().decoded_parts();
        let at = parts.text.find('é').unwrap() as u32;
        parts.entries.push((at + 1, 1, 99));
        parts.runs = vec![parts.entries.len()];
        assert!(PathDictionary::from_decoded_parts(parts).is_err());
    }
}

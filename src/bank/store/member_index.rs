//! Per chunk of a path dictionary, its APIs by last name, each with its owner's id: the
//! answer to "every `X.ix` whose `X` is an API" without reading the paths.
//!
//! A member on a value of unknown type (`df.ix`) asks which classes of the distribution have
//! a member of that name. Common names (`plot`, `mean`, `legend`) are members of a hundred
//! classes spread over the whole dictionary, so finding them through the path blocks read
//! one block per owner. Here the entries are sorted by name, so one or two blocks hold every
//! entry of a name.
//!
//! An owner is the API whose path is the entry's without its last name, as the writer's
//! dictionary had it when the chunk was written; an owner added later (a newer chunk) is not
//! known to the entry (id 0), and readers look it up by path then. Paths without a dot have
//! no owner and are left out.
//!
//! Storage: the chunk's row (`api_path_chunks.members`) holds the directory: [`MAGIC`], then
//! sealed (a crc32, then the bytes as they are, as path blocks are) the block count and, per
//! block, its first name front-coded against the previous block's and its entry count. Each
//! block (`api_member_blocks`) is sealed likewise, over its entries in (name, id) order: the
//! name front-coded against the previous entry's, the API's id as its distance from the
//! previous entry's (zigzag), and the owner as 0 when unknown, else one more than its distance
//! from the API's id (zigzag: owners are mostly written just before their members), all
//! LEB128 varints.

use super::path_blocks::{last_name, unzigzag, zigzag};
use super::path_dictionary::{put_varint, seal, take_varint, unseal, CorruptDictionary};

/// Entries per block.
pub const BLOCK_ENTRIES: usize = 256;

const MAGIC: &[u8] = b"\0nbenv-members-2\n";

/// One entry: an API of the chunk, under its last name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    pub id: i64,
    /// The owner's id, when the writer knew it.
    pub owner: Option<i64>,
}

/// A chunk's member index, ready to be stored.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EncodedMembers {
    pub directory: Vec<u8>,
    pub blocks: Vec<Vec<u8>>,
}

fn put_front_coded(out: &mut Vec<u8>, text: &[u8], previous: &[u8]) {
    let shared = text
        .iter()
        .zip(previous)
        .take_while(|(a, b)| a == b)
        .count();
    put_varint(out, shared as u64);
    put_varint(out, (text.len() - shared) as u64);
    out.extend_from_slice(&text[shared..]);
}

/// Reads a name front-coded against `previous` (a range of `text`), appending it to `text`;
/// its range.
fn take_front_coded(
    raw: &[u8],
    at: &mut usize,
    text: &mut Vec<u8>,
    previous: std::ops::Range<usize>,
) -> Result<std::ops::Range<usize>, CorruptDictionary> {
    let shared = take_varint(raw, at)? as usize;
    let len = take_varint(raw, at)? as usize;
    let rest = raw
        .get(*at..at.checked_add(len).ok_or(CorruptDictionary)?)
        .ok_or(CorruptDictionary)?;
    *at += len;
    if shared > previous.len() {
        return Err(CorruptDictionary);
    }
    let start = text.len();
    text.extend_from_within(previous.start..previous.start + shared);
    text.extend_from_slice(rest);
    Ok(start..text.len())
}

/// The index of a chunk's `entries` (path, id), each dotted path under its last name with
/// `owner(path without its last name)`.
pub fn encode(entries: &[(&str, i64)], owner: impl Fn(&str) -> Option<i64>) -> EncodedMembers {
    let mut named: Vec<(&str, i64, Option<i64>)> = entries
        .iter()
        .filter_map(|&(path, id)| {
            let (prefix, name) = path.rsplit_once('.')?;
            Some((name, id, owner(prefix)))
        })
        .collect();
    named.sort_unstable();
    let mut directory = Vec::new();
    let blocks: Vec<&[(&str, i64, Option<i64>)]> = named.chunks(BLOCK_ENTRIES).collect();
    put_varint(&mut directory, blocks.len() as u64);
    let mut previous_first: &[u8] = b"";
    let mut out_blocks = Vec::with_capacity(blocks.len());
    for block in blocks {
        let first = block[0].0.as_bytes();
        put_front_coded(&mut directory, first, previous_first);
        put_varint(&mut directory, block.len() as u64);
        previous_first = first;
        let mut raw = Vec::new();
        let mut previous: &[u8] = b"";
        let mut previous_id: i64 = 0;
        for &(name, id, owner) in block {
            put_front_coded(&mut raw, name.as_bytes(), previous);
            put_varint(&mut raw, zigzag(id.wrapping_sub(previous_id)));
            put_varint(
                &mut raw,
                owner.map_or(0, |o| zigzag(id.wrapping_sub(o)).wrapping_add(1)),
            );
            previous = name.as_bytes();
            previous_id = id;
        }
        out_blocks.push(seal(&raw));
    }
    let mut sealed = MAGIC.to_vec();
    sealed.extend_from_slice(&seal(&directory));
    EncodedMembers {
        directory: sealed,
        blocks: out_blocks,
    }
}

/// A chunk's member directory: each block's first name and entry count.
#[derive(Debug, Clone)]
pub struct MemberDirectory {
    text: String,
    blocks: Vec<(std::ops::Range<usize>, u32)>,
}

impl MemberDirectory {
    pub fn decode(blob: &[u8]) -> Result<Self, CorruptDictionary> {
        let raw = unseal(blob.strip_prefix(MAGIC).ok_or(CorruptDictionary)?)?;
        let mut at = 0;
        let count = usize::try_from(take_varint(raw, &mut at)?).map_err(|_| CorruptDictionary)?;
        if count > raw.len() {
            return Err(CorruptDictionary);
        }
        let mut text = Vec::new();
        let mut blocks: Vec<(std::ops::Range<usize>, u32)> = Vec::with_capacity(count);
        for _ in 0..count {
            let previous = blocks.last().map_or(0..0, |(r, _)| r.clone());
            let range = take_front_coded(raw, &mut at, &mut text, previous.clone())?;
            let entries =
                u32::try_from(take_varint(raw, &mut at)?).map_err(|_| CorruptDictionary)?;
            // In order, so that a name's blocks are found by bisection.
            if entries == 0 || (!blocks.is_empty() && text[range.clone()] < text[previous]) {
                return Err(CorruptDictionary);
            }
            blocks.push((range, entries));
        }
        if at != raw.len() {
            return Err(CorruptDictionary);
        }
        let text = String::from_utf8(text).map_err(|_| CorruptDictionary)?;
        if blocks
            .iter()
            .any(|(r, _)| !text.is_char_boundary(r.start) || !text.is_char_boundary(r.end))
        {
            return Err(CorruptDictionary);
        }
        Ok(Self { text, blocks })
    }

    #[cfg(test)]
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    fn first(&self, block: usize) -> &str {
        &self.text[self.blocks[block].0.clone()]
    }

    /// The blocks that may hold entries named `name`: from the last block starting before
    /// it to the last starting at or before it.
    pub fn blocks_for(&self, name: &str) -> std::ops::Range<usize> {
        let through = self
            .blocks
            .partition_point(|(r, _)| &self.text[r.clone()] <= name);
        let from = self
            .blocks
            .partition_point(|(r, _)| &self.text[r.clone()] < name)
            .saturating_sub(1);
        from..through.max(from)
    }

    /// The entries named `name` in block `block`, whose stored bytes are `blob`; the block is
    /// checked against the directory (its size and first name).
    pub fn named(
        &self,
        blob: &[u8],
        block: usize,
        name: &str,
    ) -> Result<Vec<Member>, CorruptDictionary> {
        let (_, count) = self.blocks.get(block).ok_or(CorruptDictionary)?;
        let raw = unseal(blob)?;
        let mut at = 0;
        let mut text = Vec::new();
        let mut previous = 0..0;
        let mut id: i64 = 0;
        let mut out = Vec::new();
        for i in 0..*count {
            let range = take_front_coded(raw, &mut at, &mut text, previous.clone())?;
            id = id.wrapping_add(unzigzag(take_varint(raw, &mut at)?));
            let owner = match take_varint(raw, &mut at)? {
                0 => None,
                code => Some(id.wrapping_sub(unzigzag(code - 1))),
            };
            if i == 0 && text[range.clone()] != *self.first(block).as_bytes() {
                return Err(CorruptDictionary);
            }
            if text[range.clone()] == *name.as_bytes() {
                out.push(Member { id, owner });
            }
            previous = range;
        }
        if at != raw.len() {
            return Err(CorruptDictionary);
        }
        Ok(out)
    }
}

/// Whether a member query for `member` can be answered by the index: names with a dot are
/// not keys of it.
pub fn indexable(member: &str) -> bool {
    !member.is_empty() && last_name(member) == member
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn every_entry_of_a_name_is_found_with_its_owner() {
        let mut owned: Vec<(String, i64)> = Vec::new();
        let mut id = 0;
        for module in 0..40 {
            owned.push((format!("pkg.m{module}"), id));
            id += 1;
            for class in 0..10 {
                owned.push((format!("pkg.m{module}.C{class}"), id));
                id += 1;
                for member in ["plot", "mean", &format!("own_{module}_{class}")] {
                    owned.push((format!("pkg.m{module}.C{class}.{member}"), id));
                    id += 1;
                }
            }
        }
        // A member whose owner is not an API (yet).
        owned.push(("pkg.orphan.Thing.plot".into(), id));
        owned.sort();
        let ids: HashMap<&str, i64> = owned.iter().map(|(p, i)| (p.as_str(), *i)).collect();
        let entries: Vec<(&str, i64)> = owned.iter().map(|(p, i)| (p.as_str(), *i)).collect();
        let encoded = encode(&entries, |p| ids.get(p).copied());
        let dir = MemberDirectory::decode(&encoded.directory).unwrap();
        assert!(dir.blocks() > 3);
        let find = |name: &str| -> Vec<Member> {
            let mut out: Vec<Member> = dir
                .blocks_for(name)
                .flat_map(|b| dir.named(&encoded.blocks[b], b, name).unwrap())
                .collect();
            out.sort_by_key(|m| m.id);
            out
        };
        for name in ["plot", "mean", "own_3_4", "C7", "m39", "absent", "a", "zzz"] {
            let mut want: Vec<Member> = owned
                .iter()
                .filter(|(p, _)| p.rsplit_once('.').is_some_and(|(_, n)| n == name))
                .map(|(p, i)| Member {
                    id: *i,
                    owner: ids.get(p.rsplit_once('.').unwrap().0).copied(),
                })
                .collect();
            want.sort_by_key(|m| m.id);
            assert_eq!(find(name), want, "{name}");
        }
        assert_eq!(find("plot").len(), 401);
        assert!(find("plot").iter().any(|m| m.owner.is_none()));
        // Fewer blocks than entries are read for a common name.
        assert!(dir.blocks_for("plot").len() <= 3);
    }

    #[test]
    fn damaged_indexes_are_refused() {
        let entries = [("a.b", 1), ("a.c", 2), ("a", 3)];
        let encoded = encode(&entries, |p| (p == "a").then_some(3));
        let dir = MemberDirectory::decode(&encoded.directory).unwrap();
        assert_eq!(
            dir.named(&encoded.blocks[0], 0, "b").unwrap(),
            [Member {
                id: 1,
                owner: Some(3)
            }]
        );
        assert!(
            MemberDirectory::decode(&encoded.directory[..encoded.directory.len() - 2]).is_err()
        );
        assert!(MemberDirectory::decode(b"\0nbenv-members-2\nxx").is_err());
        // A changed byte anywhere is seen.
        for at in 0..encoded.blocks[0].len() {
            let mut damaged = encoded.blocks[0].clone();
            damaged[at] ^= 0x10;
            assert!(dir.named(&damaged, 0, "b").is_err(), "{at}");
        }
        for at in 0..encoded.directory.len() {
            let mut damaged = encoded.directory.clone();
            damaged[at] ^= 0x10;
            assert!(MemberDirectory::decode(&damaged).is_err(), "{at}");
        }
        assert!(dir.named(&encoded.blocks[0][..5], 0, "b").is_err());
        assert!(dir.named(&encoded.blocks[0], 1, "b").is_err());
        assert!(indexable("ix") && !indexable("a.b") && !indexable(""));
        let empty = encode(&[("top", 1)], |_| None);
        let dir = MemberDirectory::decode(&empty.directory).unwrap();
        assert_eq!(dir.blocks(), 0);
        assert!(dir.blocks_for("x").is_empty());
    }
}

//! A chunk of a path dictionary cut into blocks, so that a lookup reads one block instead of
//! decoding the whole dictionary.
//!
//! A warm `infer` asks a few hundred paths of a distribution whose dictionary holds tens of
//! thousands (TensorFlow: 213,000 paths, 1.6 MB compressed); decoding it whole was most of the
//! run. Each chunk is now stored as:
//! - blocks of [`BLOCK_ENTRIES`] consecutive paths (`api_path_blocks`), each front-coded as a
//!   whole chunk was but sealed with a checksum, not compressed (see
//!   [`super::path_dictionary`]), read by key when needed;
//! - a small directory in the chunk's row (`api_path_chunks.paths`): each block's first path
//!   and size, the chunk's ids as runs of consecutive ids in one block (ids are given out in
//!   path order as a release is written, so a few thousand runs cover TensorFlow), and, but
//!   for a distribution's oldest chunk, a Bloom filter of the chunk's paths, so that a path
//!   is looked for only in the chunk that holds it (the oldest holds most paths and is looked
//!   in anyway: its filter spared few reads for most of the filters' bytes);
//! - the chunk's APIs by last name, with their owners (see [`super::member_index`]), for
//!   "every `X.ix`".
//!
//! Directory format: [`DIRECTORY_MAGIC`] (its first byte, 0, never starts a zlib stream, which
//! is how a whole chunk of schema 3 and 4 is told apart), then sealed (a crc32, then the bytes
//! as they are: zlib saved half of a directory's bytes, and inflating TensorFlow's cost a
//! millisecond): the path filter's probes and length (0: none) and its bytes; entry count,
//! block count; per block, its first path front-coded against the previous block's (`shared`,
//! `len`, the rest) and its entry count; the run count, then per run the distance from the
//! previous run's end (zigzag), its length and its block. Integers are LEB128 varints.

use super::bloom;
use super::member_index::{self, EncodedMembers};
use super::path_dictionary::{
    decode_block, encode_block, put_varint, seal, take_varint, unseal, CorruptDictionary, Entry,
};

/// Paths per block: about 1.8 KB, a few microseconds to fetch and decode.
pub const BLOCK_ENTRIES: usize = 128;

pub(crate) const DIRECTORY_MAGIC: &[u8] = b"\0nbenv-path-blocks-2\n";

/// A chunk in blocked form, ready to be stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedChunk {
    pub count: usize,
    /// For `api_path_chunks.paths`.
    pub directory: Vec<u8>,
    /// For `api_path_blocks`, numbered from 0.
    pub blocks: Vec<Vec<u8>>,
    /// For `api_path_chunks.members` and `api_member_blocks`.
    pub members: EncodedMembers,
}

/// Whether a stored chunk is a directory (else it is a whole chunk of an older schema).
pub fn is_directory(blob: &[u8]) -> bool {
    blob.starts_with(DIRECTORY_MAGIC)
}

/// The name a member query looks for: what follows the last dot.
pub(crate) fn last_name(path: &str) -> &str {
    path.rsplit_once('.').map_or(path, |(_, name)| name)
}

pub(super) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub(super) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Cuts `entries` (sorted by path, each path once) into blocks, with their directory (with a
/// path filter if `filtered`) and their member index (`owner` gives the id of a path's owner,
/// if it is an API).
pub fn encode(
    entries: &[(&str, i64)],
    filtered: bool,
    owner: impl Fn(&str) -> Option<i64>,
) -> EncodedChunk {
    let blocks: Vec<&[(&str, i64)]> = entries.chunks(BLOCK_ENTRIES).collect();
    let filter = if filtered {
        bloom::build(
            entries.iter().map(|(p, _)| p.as_bytes()),
            bloom::bytes_for(entries.len()),
        )
    } else {
        Vec::new()
    };
    let mut body = Vec::new();
    put_varint(&mut body, u64::from(bloom::PROBES));
    put_varint(&mut body, filter.len() as u64);
    body.extend_from_slice(&filter);
    put_varint(&mut body, entries.len() as u64);
    put_varint(&mut body, blocks.len() as u64);
    let mut previous: &[u8] = b"";
    for block in &blocks {
        let first = block[0].0.as_bytes();
        let shared = first
            .iter()
            .zip(previous)
            .take_while(|(a, b)| a == b)
            .count();
        put_varint(&mut body, shared as u64);
        put_varint(&mut body, (first.len() - shared) as u64);
        body.extend_from_slice(&first[shared..]);
        put_varint(&mut body, block.len() as u64);
        previous = first;
    }
    let mut by_id: Vec<(i64, u32)> = blocks
        .iter()
        .enumerate()
        .flat_map(|(b, block)| block.iter().map(move |&(_, id)| (id, b as u32)))
        .collect();
    by_id.sort_unstable();
    let mut runs: Vec<(i64, u64, u32)> = Vec::new();
    for (id, block) in by_id {
        match runs.last_mut() {
            Some((start, len, b)) if *b == block && start.wrapping_add(*len as i64) == id => {
                *len += 1;
            }
            _ => runs.push((id, 1, block)),
        }
    }
    put_varint(&mut body, runs.len() as u64);
    let mut end: i64 = 0;
    for (start, len, block) in runs {
        put_varint(&mut body, zigzag(start.wrapping_sub(end)));
        put_varint(&mut body, len);
        put_varint(&mut body, u64::from(block));
        end = start.wrapping_add(len as i64);
    }

    let mut directory = DIRECTORY_MAGIC.to_vec();
    directory.extend_from_slice(&seal(&body));
    EncodedChunk {
        count: entries.len(),
        directory,
        blocks: blocks
            .iter()
            .map(|block| encode_block(block.iter().copied()))
            .collect(),
        members: member_index::encode(entries, owner),
    }
}

/// Ids `start..start + len`, all in one block.
#[derive(Debug, Clone, Copy)]
struct IdRun {
    start: i64,
    len: u64,
    block: u32,
}

/// What a chunk's row says of its blocks.
#[derive(Debug, Clone)]
pub struct Directory {
    count: usize,
    probes: u32,
    filter: Vec<u8>,
    /// The blocks' first paths, one after another.
    firsts_text: String,
    /// Where each block's first path is in `firsts_text`, and its entry count.
    blocks: Vec<(u32, u32, u32)>,
    /// Sorted by id, not overlapping.
    runs: Vec<IdRun>,
}

impl Directory {
    pub fn decode(blob: &[u8]) -> Result<Self, CorruptDictionary> {
        let raw = unseal(
            blob.strip_prefix(DIRECTORY_MAGIC)
                .ok_or(CorruptDictionary)?,
        )?;
        let mut at = 0;
        let probes = u32::try_from(take_varint(raw, &mut at)?).map_err(|_| CorruptDictionary)?;
        let filter_len =
            usize::try_from(take_varint(raw, &mut at)?).map_err(|_| CorruptDictionary)?;
        let filter = raw
            .get(at..at.checked_add(filter_len).ok_or(CorruptDictionary)?)
            .ok_or(CorruptDictionary)?
            .to_vec();
        at += filter_len;
        if probes == 0 || probes > 64 {
            return Err(CorruptDictionary);
        }
        let mut next = || take_varint(raw, &mut at);
        let count = usize::try_from(next()?).map_err(|_| CorruptDictionary)?;
        let block_count = usize::try_from(next()?).map_err(|_| CorruptDictionary)?;
        if block_count > count {
            return Err(CorruptDictionary);
        }
        let mut firsts_text = Vec::new();
        let mut blocks = Vec::with_capacity(block_count);
        let mut total = 0usize;
        let mut previous: Option<(usize, usize)> = None;
        for _ in 0..block_count {
            let shared = take_varint(raw, &mut at)? as usize;
            let len = take_varint(raw, &mut at)? as usize;
            let rest = raw
                .get(at..at.checked_add(len).ok_or(CorruptDictionary)?)
                .ok_or(CorruptDictionary)?;
            at += len;
            let entries = take_varint(raw, &mut at)?;
            let start = firsts_text.len();
            match previous {
                Some((p_start, p_len)) if shared <= p_len => {
                    firsts_text.extend_from_within(p_start..p_start + shared);
                }
                None if shared == 0 => {}
                _ => return Err(CorruptDictionary),
            }
            firsts_text.extend_from_slice(rest);
            let first_len = firsts_text.len() - start;
            // Strictly increasing, so that the block of a path is found by bisection.
            if let Some((p_start, p_len)) = previous {
                if firsts_text[start..] <= firsts_text[p_start..p_start + p_len] {
                    return Err(CorruptDictionary);
                }
            }
            if entries == 0 || entries > BLOCK_ENTRIES as u64 * 64 {
                return Err(CorruptDictionary);
            }
            total += entries as usize;
            let fits = |v: usize| u32::try_from(v).map_err(|_| CorruptDictionary);
            blocks.push((fits(start)?, fits(first_len)?, entries as u32));
            previous = Some((start, first_len));
        }
        if total != count {
            return Err(CorruptDictionary);
        }
        let firsts_text = String::from_utf8(firsts_text).map_err(|_| CorruptDictionary)?;
        if blocks.iter().any(|&(start, len, _)| {
            !firsts_text.is_char_boundary(start as usize)
                || !firsts_text.is_char_boundary((start + len) as usize)
        }) {
            return Err(CorruptDictionary);
        }
        let run_count =
            usize::try_from(take_varint(raw, &mut at)?).map_err(|_| CorruptDictionary)?;
        if run_count > count {
            return Err(CorruptDictionary);
        }
        let mut runs = Vec::with_capacity(run_count);
        let mut end: i64 = 0;
        let mut covered: u64 = 0;
        for i in 0..run_count {
            let start = end.wrapping_add(unzigzag(take_varint(raw, &mut at)?));
            let len = take_varint(raw, &mut at)?;
            let block = u32::try_from(take_varint(raw, &mut at)?).map_err(|_| CorruptDictionary)?;
            if len == 0 || block as usize >= block_count || (i > 0 && start < end) {
                return Err(CorruptDictionary);
            }
            covered = covered.checked_add(len).ok_or(CorruptDictionary)?;
            end = start
                .checked_add(i64::try_from(len).map_err(|_| CorruptDictionary)?)
                .ok_or(CorruptDictionary)?;
            runs.push(IdRun { start, len, block });
        }
        if covered != count as u64 || at != raw.len() {
            return Err(CorruptDictionary);
        }
        Ok(Self {
            count,
            probes,
            filter,
            firsts_text,
            blocks,
            runs,
        })
    }

    pub fn count(&self) -> usize {
        self.count
    }

    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    fn first(&self, block: usize) -> &str {
        let (start, len, _) = self.blocks[block];
        &self.firsts_text[start as usize..(start + len) as usize]
    }

    /// The block that would hold `path`, when the chunk may hold it at all.
    pub fn block_for_path(&self, path: &str) -> Option<usize> {
        if !bloom::may_contain(&self.filter, self.probes, path.as_bytes()) {
            return None;
        }
        let after = self.blocks.partition_point(|&(start, len, _)| {
            &self.firsts_text[start as usize..(start + len) as usize] <= path
        });
        after.checked_sub(1)
    }

    /// The block holding the API `id`, if the chunk has it.
    pub fn block_for_id(&self, id: i64) -> Option<usize> {
        let after = self.runs.partition_point(|r| r.start <= id);
        let run = self.runs.get(after.checked_sub(1)?)?;
        ((id - run.start) < run.len as i64).then_some(run.block as usize)
    }

    /// The chunk's ids, in increasing order.
    pub fn ids(&self) -> impl Iterator<Item = i64> + '_ {
        self.runs
            .iter()
            .flat_map(|r| (0..r.len as i64).map(move |i| r.start + i))
    }

    /// The smallest and largest id.
    pub fn id_range(&self) -> Option<(i64, i64)> {
        let first = self.runs.first()?;
        let last = self.runs.last()?;
        Some((first.start, last.start + last.len as i64 - 1))
    }
}

/// One decoded block: its paths sorted, each with its id.
#[derive(Debug)]
pub struct Block {
    text: String,
    entries: Vec<Entry>,
}

impl Block {
    /// Decodes block `block` of the chunk `directory` describes, checking it against the
    /// directory: its size, its first path, and that it ends before the next block begins
    /// (else lookups by bisection could miss a path).
    pub fn decode(
        blob: &[u8],
        directory: &Directory,
        block: usize,
    ) -> Result<Self, CorruptDictionary> {
        let &(_, _, count) = directory.blocks.get(block).ok_or(CorruptDictionary)?;
        let mut text = Vec::new();
        let mut entries = Vec::new();
        let in_order = decode_block(blob, &mut text, &mut entries)?;
        if !in_order {
            return Err(CorruptDictionary);
        }
        text.shrink_to_fit();
        entries.shrink_to_fit();
        let text = String::from_utf8(text).map_err(|_| CorruptDictionary)?;
        if entries.iter().any(|e| {
            !text.is_char_boundary(e.start as usize)
                || !text.is_char_boundary((e.start + e.len) as usize)
        }) {
            return Err(CorruptDictionary);
        }
        let out = Self { text, entries };
        let (Some(first), Some(last)) = (out.entries.first(), out.entries.last()) else {
            return Err(CorruptDictionary);
        };
        if out.entries.len() != count as usize
            || out.text_of(first) != directory.first(block)
            || (block + 1 < directory.blocks.len()
                && out.text_of(last) >= directory.first(block + 1))
        {
            return Err(CorruptDictionary);
        }
        Ok(out)
    }

    fn text_of(&self, e: &Entry) -> &str {
        &self.text[e.start as usize..(e.start + e.len) as usize]
    }

    pub fn get(&self, path: &str) -> Option<i64> {
        let at = self.entries.partition_point(|e| self.text_of(e) < path);
        self.entries
            .get(at)
            .filter(|e| self.text_of(e) == path)
            .map(|e| e.id)
    }

    pub fn path(&self, id: i64) -> Option<&str> {
        // The last of equal ids, as a whole dictionary answers.
        self.entries
            .iter()
            .rev()
            .find(|e| e.id == id)
            .map(|e| self.text_of(e))
    }

    /// (path, id), sorted by path.
    pub fn iter(&self) -> impl Iterator<Item = (&str, i64)> {
        self.entries.iter().map(|e| (self.text_of(e), e.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize) -> Vec<(String, i64)> {
        let mut v: Vec<(String, i64)> = (0..n)
            .map(|i| {
                (
                    format!("pkg.mod_{:03}.Klass_{}.member_{}", i % 37, i % 11, i),
                    1000 + i as i64,
                )
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn blocks_answer_as_the_whole_chunk() {
        let owned = sample(1_000);
        let entries: Vec<(&str, i64)> = owned.iter().map(|(p, i)| (p.as_str(), *i)).collect();
        let chunk = encode(&entries, true, |_| None);
        assert_eq!(chunk.count, 1_000);
        assert_eq!(chunk.blocks.len(), 1_000usize.div_ceil(BLOCK_ENTRIES));
        let dir = Directory::decode(&chunk.directory).unwrap();
        assert!(is_directory(&chunk.directory));
        let blocks: Vec<Block> = (0..dir.blocks())
            .map(|b| Block::decode(&chunk.blocks[b], &dir, b).unwrap())
            .collect();
        for (path, id) in &owned {
            let b = dir.block_for_path(path).unwrap();
            assert_eq!(blocks[b].get(path), Some(*id), "{path}");
            let b = dir.block_for_id(*id).unwrap();
            assert_eq!(blocks[b].path(*id), Some(path.as_str()));
        }
        let all: Vec<(&str, i64)> = blocks.iter().flat_map(|b| b.iter()).collect();
        assert_eq!(all, entries);
        let mut ids: Vec<i64> = owned.iter().map(|(_, i)| *i).collect();
        ids.sort();
        assert_eq!(dir.ids().collect::<Vec<_>>(), ids);
        assert_eq!(dir.id_range(), Some((1000, 1999)));
        assert_eq!(dir.block_for_id(999), None);
        assert_eq!(dir.block_for_id(2000), None);
        // Absent paths are mostly ruled out before any block is read.
        let passed = (0..1_000)
            .filter(|i| dir.block_for_path(&format!("other.{i}")).is_some())
            .count();
        assert!(passed < 50, "{passed}");
    }

    #[test]
    fn damaged_directories_and_blocks_are_refused() {
        let owned = sample(300);
        let entries: Vec<(&str, i64)> = owned.iter().map(|(p, i)| (p.as_str(), *i)).collect();
        let chunk = encode(&entries, true, |_| None);
        for cut in [chunk.directory.len() - 1, DIRECTORY_MAGIC.len() + 3, 2] {
            assert!(Directory::decode(&chunk.directory[..cut]).is_err(), "{cut}");
        }
        // A changed byte anywhere: in the filter, a first path, a run, the checksum.
        for at in 0..chunk.directory.len() {
            let mut flipped = chunk.directory.clone();
            flipped[at] ^= 0x10;
            assert!(Directory::decode(&flipped).is_err(), "{at}");
        }
        let dir = Directory::decode(&chunk.directory).unwrap();
        // A block in another block's place, or cut short.
        assert!(Block::decode(&chunk.blocks[1], &dir, 0).is_err());
        assert!(Block::decode(&chunk.blocks[0][..10], &dir, 0).is_err());
        assert!(Block::decode(&chunk.blocks[0], &dir, 7).is_err());
        // A block's bytes are not compressed: a changed byte (a path's letter, an id) is seen
        // by its checksum.
        for at in 0..chunk.blocks[2].len() {
            let mut flipped = chunk.blocks[2].clone();
            flipped[at] ^= 0x10;
            assert!(Block::decode(&flipped, &dir, 2).is_err(), "{at}");
        }
    }

    #[test]
    fn ids_far_apart_and_out_of_order() {
        let entries = [("a", 9_000_000_000), ("b", 3), ("c", 4), ("d", 2), ("e", 7)];
        let chunk = encode(&entries, true, |_| None);
        let dir = Directory::decode(&chunk.directory).unwrap();
        assert_eq!(dir.ids().collect::<Vec<_>>(), [2, 3, 4, 7, 9_000_000_000]);
        assert_eq!(dir.id_range(), Some((2, 9_000_000_000)));
        let block = Block::decode(&chunk.blocks[0], &dir, 0).unwrap();
        for (p, id) in entries {
            assert_eq!(dir.block_for_id(id), Some(0));
            assert_eq!(block.path(id), Some(p));
        }
        assert_eq!(dir.block_for_id(5), None);
    }

    /// A chunk without a filter looks in its blocks for every path.
    #[test]
    fn an_unfiltered_chunk_admits_every_path() {
        let owned = sample(300);
        let entries: Vec<(&str, i64)> = owned.iter().map(|(p, i)| (p.as_str(), *i)).collect();
        let chunk = encode(&entries, false, |_| None);
        let dir = Directory::decode(&chunk.directory).unwrap();
        assert!(chunk.directory.len() < encode(&entries, true, |_| None).directory.len());
        for (path, id) in &owned {
            let b = dir.block_for_path(path).unwrap();
            let block = Block::decode(&chunk.blocks[b], &dir, b).unwrap();
            assert_eq!(block.get(path), Some(*id));
        }
        assert!(dir.block_for_path("zzz").is_some());
    }

    #[test]
    fn an_empty_chunk_has_no_blocks() {
        let chunk = encode(&[], true, |_| None);
        let dir = Directory::decode(&chunk.directory).unwrap();
        assert_eq!((dir.count(), dir.blocks()), (0, 0));
        assert_eq!(dir.block_for_path("x"), None);
        assert_eq!(dir.id_range(), None);
    }
}

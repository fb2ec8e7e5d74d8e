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
//! In memory, the decoded paths sit in one string, with a table of (offset, length, id) per
//! chunk, each sorted as its chunk is: a query decodes a distribution's dictionary (tens of
//! thousands of paths) per run, and one allocation per path, in two maps, cost more than the
//! query itself (and as much again to free). A lookup searches each chunk's table (there are
//! O(log n) of them); listing merges them. Paths a writer adds later go to a small map beside.
//!
//! This is the whole dictionary, decoded at once, as writers and reports over a whole
//! distribution need it. Since schema 5 each chunk is stored cut into blocks
//! ([`super::path_blocks`]), and queries about a few paths read only the blocks they need
//! ([`super::path_index`]); a chunk of an older schema is one stream, still read here.
//!
//! Format of a stream: for each path in sorted order, `shared` (bytes in common with the
//! previous path), `len` (of the rest), the rest, and the API's id, all LEB128 varints. A
//! chunk of schemas 3 and 4 is one stream, compressed with zlib. A block is one stream,
//! sealed (see [`seal`]): not compressed, as zlib kept only two thirds of a block's bytes and
//! inflating was most of the cost of a lookup.

use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::Arc;

use super::path_blocks::{self, Directory, EncodedChunk};
pub(super) use crate::varint::put as put_varint;

#[derive(Debug, Clone, Default)]
pub struct PathDictionary {
    /// The decoded paths, one after another.
    text: String,
    /// Where each decoded path is in `text`, chunk after chunk.
    sorted: Vec<Entry>,
    /// The ranges of `sorted` that hold one chunk each, every one sorted by path.
    runs: Vec<std::ops::Range<usize>>,
    /// From ids to positions in `sorted`, made on the first lookup by id.
    by_id: OnceCell<ById>,
    /// Paths inserted after decoding (a writer's new APIs); they win over decoded ones.
    added: BTreeMap<Arc<str>, i64>,
    added_by_id: HashMap<i64, Arc<str>>,
}

/// From an API's id to its entry. A distribution's ids mostly sit in one range (rows are
/// added release by release), so a table over that range, filled in one pass, is the usual
/// form; ids spread far apart fall back to positions sorted by id.
#[derive(Debug, Clone)]
enum ById {
    /// `table[id - first]` is the entry's position plus one (0: no such id).
    Range {
        first: i64,
        table: Vec<u32>,
    },
    Sorted(Vec<u32>),
}

impl ById {
    fn new(sorted: &[Entry]) -> Self {
        let (Some(first), Some(last)) = (
            sorted.iter().map(|e| e.id).min(),
            sorted.iter().map(|e| e.id).max(),
        ) else {
            return ById::Sorted(Vec::new());
        };
        let span = last.abs_diff(first).saturating_add(1);
        if span <= 4 * sorted.len() as u64 + 1024 {
            let mut table = vec![0u32; span as usize];
            for (at, e) in sorted.iter().enumerate() {
                table[(e.id - first) as usize] = at as u32 + 1;
            }
            return ById::Range { first, table };
        }
        let mut order: Vec<u32> = (0..sorted.len() as u32).collect();
        order.sort_unstable_by_key(|&i| sorted[i as usize].id);
        ById::Sorted(order)
    }

    fn position(&self, sorted: &[Entry], id: i64) -> Option<usize> {
        match self {
            ById::Range { first, table } => {
                let at = *table.get(usize::try_from(id.checked_sub(*first)?).ok()?)?;
                at.checked_sub(1).map(|at| at as usize)
            }
            ById::Sorted(order) => {
                let at = order.partition_point(|&i| sorted[i as usize].id < id);
                order.get(at).map(|&i| i as usize)
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub start: u32,
    pub len: u32,
    pub id: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("corrupt path dictionary")]
pub struct CorruptDictionary;

/// A chunk as stored: one zlib stream (schemas 3 and 4), or the blocks of a blocked chunk in
/// order (see [`super::path_blocks`]).
#[derive(Debug, Clone)]
pub enum StoredChunk<'b> {
    Whole(&'b [u8]),
    Blocks(Vec<&'b [u8]>),
}

impl<'b> StoredChunk<'b> {
    /// Its streams, each with whether it is a sealed block (else zlib).
    fn streams(&self) -> impl Iterator<Item = (&'b [u8], bool)> + '_ {
        let (whole, blocks) = match self {
            StoredChunk::Whole(b) => (Some(*b), &[][..]),
            StoredChunk::Blocks(v) => (None, &v[..]),
        };
        whole
            .into_iter()
            .map(|b| (b, false))
            .chain(blocks.iter().map(|b| (*b, true)))
    }
}

/// The ids of the APIs in one stored chunk: a blocked chunk's directory lists them, a whole
/// chunk is decoded.
pub fn stored_chunk_ids(blob: &[u8]) -> Result<Vec<i64>, CorruptDictionary> {
    if path_blocks::is_directory(blob) {
        return Ok(Directory::decode(blob)?.ids().collect());
    }
    chunk_ids(blob)
}

/// [`crate::varint::take`], a damaged value being a damaged dictionary.
#[inline]
pub(super) fn take_varint(bytes: &[u8], at: &mut usize) -> Result<u64, CorruptDictionary> {
    crate::varint::take(bytes, at).ok_or(CorruptDictionary)
}

impl PathDictionary {
    fn text_of(&self, e: &Entry) -> &str {
        &self.text[e.start as usize..(e.start + e.len) as usize]
    }

    /// In each run, the first position whose path is not below `path`.
    fn lower_bounds(&self, path: &str) -> Vec<std::ops::Range<usize>> {
        self.runs
            .iter()
            .map(|run| {
                let at = self.sorted[run.clone()].partition_point(|e| self.text_of(e) < path);
                run.start + at..run.end
            })
            .collect()
    }

    fn by_id(&self) -> &ById {
        self.by_id.get_or_init(|| ById::new(&self.sorted))
    }

    pub fn get(&self, path: &str) -> Option<i64> {
        if let Some(id) = self.added.get(path) {
            return Some(*id);
        }
        self.runs.iter().find_map(|run| {
            let run = &self.sorted[run.clone()];
            let at = run.partition_point(|e| self.text_of(e) < path);
            run.get(at)
                .filter(|e| self.text_of(e) == path)
                .map(|e| e.id)
        })
    }

    pub fn path(&self, id: i64) -> Option<&str> {
        if let Some(p) = self.added_by_id.get(&id) {
            return Some(p);
        }
        let e = &self.sorted[self.by_id().position(&self.sorted, id)?];
        (e.id == id).then(|| self.text_of(e))
    }

    pub fn insert(&mut self, path: &str, id: i64) {
        let shared: Arc<str> = Arc::from(path);
        self.added.insert(shared.clone(), id);
        self.added_by_id.insert(id, shared);
    }

    /// The smallest and largest id among the decoded paths.
    pub fn id_range(&self) -> Option<(i64, i64)> {
        match self.by_id() {
            ById::Range { first, table } => Some((*first, *first + table.len() as i64 - 1)),
            ById::Sorted(order) => Some((
                self.sorted[*order.first()? as usize].id,
                self.sorted[*order.last()? as usize].id,
            )),
        }
    }

    /// How many paths were decoded (a writer's inserts aside).
    pub fn len_decoded(&self) -> usize {
        self.sorted.len()
    }

    pub fn len(&self) -> usize {
        self.iter().count()
    }

    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty() && self.added.is_empty()
    }

    /// (path, id), sorted by path.
    pub fn iter(&self) -> impl Iterator<Item = (&str, i64)> {
        self.merged(self.runs.clone(), "")
    }

    /// The paths ending with `suffix`, in no particular order (cheaper than a sorted walk).
    pub fn ending_with<'a>(&'a self, suffix: &'a str) -> impl Iterator<Item = (&'a str, i64)> + 'a {
        let decoded = self
            .sorted
            .iter()
            .map(|e| (self.text_of(e), e.id))
            .filter(move |(p, _)| p.ends_with(suffix) && !self.added.contains_key(*p));
        let added = self
            .added
            .iter()
            .map(|(p, id)| (&**p, *id))
            .filter(move |(p, _)| p.ends_with(suffix));
        decoded.chain(added)
    }

    /// The paths starting with `prefix`, sorted.
    pub fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a str, i64)> + 'a {
        self.merged(self.lower_bounds(prefix), prefix)
            .take_while(move |(p, _)| p.starts_with(prefix))
    }

    /// The decoded paths left in `cursors` (one range per run) and the added paths from
    /// `first` on, merged in path order; an added path hides a decoded one of the same text.
    fn merged<'a>(
        &'a self,
        mut cursors: Vec<std::ops::Range<usize>>,
        first: &'a str,
    ) -> impl Iterator<Item = (&'a str, i64)> + 'a {
        let mut added = self
            .added
            .range::<str, _>((std::ops::Bound::Included(first), std::ops::Bound::Unbounded))
            .map(|(p, id)| (&**p, *id))
            .peekable();
        std::iter::from_fn(move || {
            let head = |c: &std::ops::Range<usize>| {
                (c.start < c.end).then(|| self.text_of(&self.sorted[c.start]))
            };
            let least = (0..cursors.len())
                .filter_map(|i| Some((head(&cursors[i])?, i)))
                .min();
            match (least, added.peek()) {
                (Some((path, i)), Some(&(a, _))) if a <= path => {
                    if a == path {
                        cursors[i].start += 1;
                    }
                    added.next()
                }
                (Some((path, i)), _) => {
                    let id = self.sorted[cursors[i].start].id;
                    cursors[i].start += 1;
                    Some((path, id))
                }
                (None, _) => added.next(),
            }
        })
    }

    /// The whole dictionary as one stream, the chunk form of schemas 3 and 4.
    pub fn encode(&self) -> Vec<u8> {
        encode_chunk(self.iter())
    }

    /// The chunk holding just the APIs `ids` (those the dictionary knows), in blocked form,
    /// with a path filter if `filtered`.
    pub fn encode_ids(&self, ids: &[i64], filtered: bool) -> EncodedChunk {
        let mut entries: Vec<(&str, i64)> = ids
            .iter()
            .filter_map(|&id| Some((self.path(id)?, id)))
            .collect();
        entries.sort_unstable();
        path_blocks::encode(&entries, filtered, |owner| self.get(owner))
    }

    /// A dictionary of one chunk in the single-stream form of schemas 3 and 4.
    pub fn decode(blob: &[u8]) -> Result<Self, CorruptDictionary> {
        Self::from_chunks([StoredChunk::Whole(blob)])
    }

    /// The dictionary made of all of a distribution's chunks, oldest first.
    pub fn from_chunks<'b>(
        chunks: impl IntoIterator<Item = StoredChunk<'b>>,
    ) -> Result<Self, CorruptDictionary> {
        let chunks: Vec<StoredChunk<'b>> = chunks.into_iter().collect();
        // Sized once for all the chunks (paths run to about five times their compressed
        // size and three times a block's, an entry per five or six compressed bytes and per
        // fourteen of a block's): growing them chunk by chunk copied what was decoded and
        // touched fresh memory each time.
        let (zipped, sealed) = chunks.iter().fold((0usize, 0usize), |(z, b), c| match c {
            StoredChunk::Whole(blob) => (z + blob.len(), b),
            StoredChunk::Blocks(blocks) => (z, b + blocks.iter().map(|b| b.len()).sum::<usize>()),
        });
        let text_len = zipped
            .saturating_mul(6)
            .saturating_add(sealed.saturating_mul(3));
        let mut text = Vec::with_capacity(text_len.min(1 << 30));
        let mut sorted = Vec::with_capacity(zipped / 5 + sealed / 14);
        let mut runs = Vec::with_capacity(chunks.len());
        let mut raw = Vec::new();
        for chunk in &chunks {
            let start = sorted.len();
            let mut in_order = true;
            for (i, (stream, sealed)) in chunk.streams().enumerate() {
                let from = sorted.len();
                in_order &= if sealed {
                    decode_block(stream, &mut text, &mut sorted)?
                } else {
                    decode_chunk(stream, &mut raw, &mut text, &mut sorted)?
                };
                // Blocks follow one another: each begins after the previous one ended.
                if i > 0 && from > start && from < sorted.len() {
                    let at = |e: &Entry| &text[e.start as usize..(e.start + e.len) as usize];
                    in_order &= at(&sorted[from - 1]) < at(&sorted[from]);
                }
            }
            if !in_order {
                // A chunk this nbenv did not write in order: put it in order here.
                sorted[start..].sort_by(|a: &Entry, b: &Entry| {
                    text[a.start as usize..(a.start + a.len) as usize]
                        .cmp(&text[b.start as usize..(b.start + b.len) as usize])
                });
            }
            runs.push(start..sorted.len());
        }
        // Checked once for the whole text, then at each path's start: every path is a whole
        // UTF-8 string.
        let text = String::from_utf8(text).map_err(|_| CorruptDictionary)?;
        if sorted.iter().any(|e| {
            !text.is_char_boundary(e.start as usize)
                || !text.is_char_boundary((e.start + e.len) as usize)
        }) {
            return Err(CorruptDictionary);
        }
        Ok(Self {
            text,
            sorted,
            runs,
            ..Self::default()
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
pub(super) fn encode_chunk<'p>(entries: impl Iterator<Item = (&'p str, i64)>) -> Vec<u8> {
    let raw = front_coded(entries);
    let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&raw).expect("writing to memory");
    enc.finish().expect("writing to memory")
}

/// Front-codes `entries` into a sealed block.
pub(super) fn encode_block<'p>(entries: impl Iterator<Item = (&'p str, i64)>) -> Vec<u8> {
    seal(&front_coded(entries))
}

/// `raw` after its crc32 (4 bytes, little-endian): how blocks, directories and member
/// indexes are stored, so that damage is seen without compressing them.
pub(super) fn seal(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + raw.len());
    out.extend_from_slice(&crc32fast::hash(raw).to_le_bytes());
    out.extend_from_slice(raw);
    out
}

/// The bytes a [`seal`]ed blob holds, if its checksum holds.
pub(super) fn unseal(blob: &[u8]) -> Result<&[u8], CorruptDictionary> {
    let (sum, raw) = blob.split_at_checked(4).ok_or(CorruptDictionary)?;
    if crc32fast::hash(raw).to_le_bytes() != sum {
        return Err(CorruptDictionary);
    }
    Ok(raw)
}

/// `entries` (sorted by path) as one stream.
fn front_coded<'p>(entries: impl Iterator<Item = (&'p str, i64)>) -> Vec<u8> {
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
    raw
}

/// The ids of the APIs in one whole chunk.
fn chunk_ids(blob: &[u8]) -> Result<Vec<i64>, CorruptDictionary> {
    let mut entries = Vec::new();
    decode_chunk(blob, &mut Vec::new(), &mut Vec::new(), &mut entries)?;
    Ok(entries.into_iter().map(|e| e.id).collect())
}

/// Appends a chunk's paths to `text` and their entries to `entries`; whether the chunk's
/// paths came in strictly increasing order (as this nbenv writes them).
pub(super) fn decode_chunk(
    blob: &[u8],
    raw: &mut Vec<u8>,
    text: &mut Vec<u8>,
    entries: &mut Vec<Entry>,
) -> Result<bool, CorruptDictionary> {
    inflate(blob, raw)?;
    decode_entries(raw, text, entries)
}

/// [`decode_chunk`] for a sealed block.
pub(super) fn decode_block(
    blob: &[u8],
    text: &mut Vec<u8>,
    entries: &mut Vec<Entry>,
) -> Result<bool, CorruptDictionary> {
    decode_entries(unseal(blob)?, text, entries)
}

/// Inflates the zlib stream `blob` into `raw` (cleared first), refusing one cut short.
pub(super) fn inflate(blob: &[u8], raw: &mut Vec<u8>) -> Result<(), CorruptDictionary> {
    // Inflated straight into `raw` (a buffer reused across chunks) sized for the usual ratio
    // (front-coded paths compress about fourfold), growing only if the chunk compresses
    // better.
    raw.clear();
    raw.reserve(blob.len().saturating_mul(5).min(1 << 30));
    // One inflater per thread, reset for each stream: a query inflates hundreds of small
    // blocks, and a fresh inflater each time allocated (and the allocator gave back, then
    // faulted in again) its state and window every time.
    INFLATER.with_borrow_mut(|inflate| inflate_with(inflate, blob, raw))
}

thread_local! {
    static INFLATER: std::cell::RefCell<flate2::Decompress> =
        std::cell::RefCell::new(flate2::Decompress::new(true));
}

fn inflate_with(
    inflate: &mut flate2::Decompress,
    blob: &[u8],
    raw: &mut Vec<u8>,
) -> Result<(), CorruptDictionary> {
    inflate.reset(true);
    loop {
        if raw.len() == raw.capacity() {
            if raw.len() >= 1 << 30 {
                return Err(CorruptDictionary);
            }
            raw.reserve(raw.len().max(4096));
        }
        let (consumed, produced) = (inflate.total_in(), inflate.total_out());
        let status = inflate
            .decompress_vec(
                &blob[consumed as usize..],
                raw,
                flate2::FlushDecompress::Finish,
            )
            .map_err(|_| CorruptDictionary)?;
        if status != flate2::Status::StreamEnd
            && (inflate.total_in(), inflate.total_out()) == (consumed, produced)
        {
            // No progress with room to write: the stream is cut short or damaged.
            return Err(CorruptDictionary);
        }
        match status {
            flate2::Status::StreamEnd => break,
            flate2::Status::Ok | flate2::Status::BufError
                if raw.len() < raw.capacity() && inflate.total_in() as usize == blob.len() =>
            {
                // Input used up before the stream's end: truncated.
                return Err(CorruptDictionary);
            }
            flate2::Status::Ok | flate2::Status::BufError => {}
        }
    }
    Ok(())
}

/// Appends the front-coded entries of `raw` to `text` and `entries`; whether they came in
/// strictly increasing order.
fn decode_entries(
    raw: &[u8],
    text: &mut Vec<u8>,
    entries: &mut Vec<Entry>,
) -> Result<bool, CorruptDictionary> {
    // Paths are about twice their front-coded size; one entry per dozen bytes or so (a
    // no-op when the caller sized them for every chunk).
    text.reserve(raw.len() * 2);
    entries.reserve(raw.len() / 12);
    let mut at = 0;
    let mut in_order = true;
    let mut previous: Option<(usize, usize)> = None;
    while at < raw.len() {
        let shared = take_varint(raw, &mut at)? as usize;
        let len = take_varint(raw, &mut at)? as usize;
        let rest = raw.get(at..at + len).ok_or(CorruptDictionary)?;
        at += len;
        let id = take_varint(raw, &mut at)? as i64;
        let start = text.len();
        match previous {
            Some((p_start, p_len)) if shared <= p_len => {
                // Equal up to `shared`: the order is that of the rest, most often decided by
                // its first byte.
                let before = &text[p_start + shared..p_start + p_len];
                in_order &= match (rest.first(), before.first()) {
                    (Some(a), Some(b)) if a != b => a > b,
                    _ => rest > before,
                };
                text.extend_from_within(p_start..p_start + shared);
            }
            None if shared == 0 => {}
            _ => return Err(CorruptDictionary),
        }
        text.extend_from_slice(rest);
        let path_len = text.len() - start;
        if u32::try_from(text.len()).is_err() {
            return Err(CorruptDictionary);
        }
        entries.push(Entry {
            start: start as u32,
            len: path_len as u32,
            id,
        });
        previous = Some((start, path_len));
    }
    Ok(in_order)
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
        let first = d.encode_ids(&[0, 1], true);
        let second = d.encode_ids(&[3, 2, 99], false);
        let back = PathDictionary::from_chunks([stored(&first), stored(&second)]).unwrap();
        let all: Vec<(&str, i64)> = back.iter().collect();
        assert_eq!(all, [("a", 1), ("a.b", 0), ("a.c", 3), ("c.d", 2)]);
        assert_eq!(back.path(3), Some("a.c"));
        // A whole chunk of an older schema among blocked ones.
        let whole = encode_chunk([("a.a", 7), ("z", 8)].into_iter());
        let back = PathDictionary::from_chunks([
            stored(&first),
            StoredChunk::Whole(&whole),
            stored(&second),
        ])
        .unwrap();
        let all: Vec<&str> = back.iter().map(|(p, _)| p).collect();
        assert_eq!(all, ["a", "a.a", "a.b", "a.c", "c.d", "z"]);
        assert_eq!(stored_chunk_ids(&whole).unwrap(), [7, 8]);
        let mut ids = stored_chunk_ids(&second.directory).unwrap();
        ids.sort();
        assert_eq!(ids, [2, 3]);
    }

    fn stored(chunk: &EncodedChunk) -> StoredChunk<'_> {
        StoredChunk::Blocks(chunk.blocks.iter().map(Vec::as_slice).collect())
    }

    /// A chunk of many blocks reads back whole and in order.
    #[test]
    fn blocks_of_a_chunk_make_one_run() {
        let mut d = PathDictionary::default();
        for i in 0..1_000 {
            d.insert(&format!("m.{:04}", (i * 7919) % 1_000), i);
        }
        let ids: Vec<i64> = (0..1_000).collect();
        let chunk = d.encode_ids(&ids, true);
        assert!(chunk.blocks.len() > 4);
        let back = PathDictionary::from_chunks([stored(&chunk)]).unwrap();
        assert_eq!(back.runs.len(), 1);
        let listed: Vec<(String, i64)> = back.iter().map(|(p, i)| (p.to_string(), i)).collect();
        let expected: Vec<(String, i64)> = d.iter().map(|(p, i)| (p.to_string(), i)).collect();
        assert_eq!(listed, expected);
    }

    /// Several chunks and a writer's inserts answer as one map would: lookups both ways,
    /// listing in order, prefixes; an insert of a known path wins over the decoded entry.
    #[test]
    fn chunks_and_inserts_answer_as_one_map() {
        let mut model: BTreeMap<String, i64> = BTreeMap::new();
        let mut ids: HashMap<i64, String> = HashMap::new();
        let mut x: u64 = 7;
        let mut next = || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) as usize
        };
        let words = [
            "np",
            "pd",
            "core",
            "frame",
            "DataFrame",
            "ix",
            "é",
            "loc",
            "_x",
        ];
        let path = |next: &mut dyn FnMut() -> usize| -> String {
            let n = 1 + next() % 4;
            (0..n)
                .map(|_| words[next() % words.len()])
                .collect::<Vec<_>>()
                .join(".")
        };
        let mut d = PathDictionary::default();
        let mut chunks = Vec::new();
        let mut id = 0;
        for _ in 0..4 {
            let mut chunk_ids = Vec::new();
            for _ in 0..40 {
                let p = path(&mut next);
                if model.contains_key(&p) {
                    continue;
                }
                id += 1;
                d.insert(&p, id);
                model.insert(p.clone(), id);
                ids.insert(id, p);
                chunk_ids.push(id);
            }
            chunks.push(d.encode_ids(&chunk_ids, true));
        }
        let mut back = PathDictionary::from_chunks(chunks.iter().map(stored)).unwrap();
        assert_eq!(back.runs.len(), 4);
        // A writer adds paths, one of them already known under another id.
        for _ in 0..30 {
            let p = path(&mut next);
            id += 1;
            back.insert(&p, id);
            model.insert(p.clone(), id);
            ids.insert(id, p);
        }
        let listed: Vec<(String, i64)> = back.iter().map(|(p, i)| (p.to_string(), i)).collect();
        let expected: Vec<(String, i64)> = model.iter().map(|(p, i)| (p.clone(), *i)).collect();
        assert_eq!(listed, expected);
        for (p, i) in &model {
            assert_eq!(back.get(p), Some(*i), "{p}");
        }
        for (i, p) in &ids {
            assert_eq!(back.path(*i), Some(p.as_str()), "{i}");
        }
        assert_eq!(back.get("pd.nothing"), None);
        for prefix in ["pd.", "np.core.", "é", "zzz"] {
            let got: Vec<&str> = back.with_prefix(prefix).map(|(p, _)| p).collect();
            let want: Vec<&str> = model
                .keys()
                .filter(|p| p.starts_with(prefix))
                .map(String::as_str)
                .collect();
            assert_eq!(got, want, "{prefix}");
        }
    }

    /// A chunk whose paths are out of order is still read whole; one whose bytes are not
    /// UTF-8 paths is refused.
    #[test]
    fn odd_chunks_are_ordered_or_refused() {
        let unordered = encode_chunk([("b.x", 1), ("a.y", 2), ("c", 3)].into_iter());
        let d = PathDictionary::decode(&unordered).unwrap();
        assert_eq!(d.get("a.y"), Some(2));
        let all: Vec<&str> = d.iter().map(|(p, _)| p).collect();
        assert_eq!(all, ["a.y", "b.x", "c"]);

        // Ids far apart are found by their sorted order instead of a table over their range.
        let sparse = encode_chunk([("a", 7), ("b", 9_000_000_000), ("c", -3)].into_iter());
        let d = PathDictionary::decode(&sparse).unwrap();
        assert!(matches!(d.by_id(), ById::Sorted(_)));
        assert_eq!(
            [d.path(-3), d.path(7), d.path(9_000_000_000), d.path(8)],
            [Some("c"), Some("a"), Some("b"), None]
        );
        assert!(matches!(
            PathDictionary::decode(&unordered).unwrap().by_id(),
            ById::Range { .. }
        ));

        // A chunk that compresses far better than most still inflates whole; a cut one fails.
        let long: Vec<(String, i64)> = (0..20_000)
            .map(|i| (format!("pkg.mod.Klass.member_{i:06}"), i))
            .collect();
        let blob = encode_chunk(long.iter().map(|(p, i)| (p.as_str(), *i)));
        let d = PathDictionary::decode(&blob).unwrap();
        assert_eq!(d.get("pkg.mod.Klass.member_019999"), Some(19_999));
        for cut in [blob.len() / 2, blob.len() - 1, 3] {
            assert!(PathDictionary::decode(&blob[..cut]).is_err(), "{cut}");
        }

        // "é" is two bytes: split across two paths, each half is invalid on its own.
        let mut raw = Vec::new();
        for (rest, id) in [(&[b'a', 0xC3][..], 1u64), (&[0xA9][..], 2)] {
            put_varint(&mut raw, 0);
            put_varint(&mut raw, rest.len() as u64);
            raw.extend_from_slice(rest);
            put_varint(&mut raw, id);
        }
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&raw).unwrap();
        assert!(PathDictionary::decode(&enc.finish().unwrap()).is_err());
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

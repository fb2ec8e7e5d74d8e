//! A distribution's API paths as queries read them: the chunks' directories at once, then
//! only the blocks that the paths asked about fall in (see [`super::path_blocks`]).
//!
//! A query resolves a few hundred paths of a distribution, their prefixes and the targets of
//! their aliases and bases; decoding the whole dictionary for that was most of a warm `infer`.
//! Here a path is looked for in the one block of each chunk whose range holds it, and only in
//! chunks whose filter admits it; an id in the block its chunk's directory names. Blocks are
//! kept once read, so the many lookups under one class read its block once. A chunk of an
//! older schema (one stream) is decoded whole, as before.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use rusqlite::OptionalExtension;

use super::member_index::{self, MemberDirectory};
use super::path_blocks::{self, Block, Directory};
use super::path_dictionary::{PathDictionary, StoredChunk};
use super::{DistId, Store, StoreError};

/// One chunk of the distribution.
#[derive(Debug)]
enum IndexedChunk {
    Blocked {
        chunk: i64,
        directory: Directory,
        /// Its member index, read on the first member query: `None` when the chunk has
        /// none, and then its paths are read instead.
        members: OnceCell<Option<MemberDirectory>>,
    },
    /// A chunk of schema 3 or 4, decoded whole.
    Whole(PathDictionary),
}

/// The paths of one distribution, read on demand.
#[derive(Debug)]
pub(crate) struct PathIndex {
    dist_id: DistId,
    /// Oldest first.
    chunks: Vec<IndexedChunk>,
    /// Blocks read so far, by chunk position and block number.
    blocks: RefCell<HashMap<(usize, usize), Rc<Block>>>,
}

impl PathIndex {
    /// Reads the directories of the distribution's chunks.
    pub fn load(store: &Store, dist_id: DistId) -> Result<Self, StoreError> {
        let rows = store.chunk_rows(dist_id)?;
        let corrupt = |_| store.corrupt("API path dictionary");
        let chunks = rows
            .into_iter()
            .map(|(chunk, blob)| {
                Ok(if path_blocks::is_directory(&blob) {
                    IndexedChunk::Blocked {
                        chunk,
                        directory: Directory::decode(&blob).map_err(corrupt)?,
                        members: OnceCell::new(),
                    }
                } else {
                    IndexedChunk::Whole(
                        PathDictionary::from_chunks([StoredChunk::Whole(&blob)])
                            .map_err(corrupt)?,
                    )
                })
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(Self {
            dist_id,
            chunks,
            blocks: RefCell::default(),
        })
    }

    /// Block `block` of the chunk at `at`, read once.
    fn block(&self, store: &Store, at: usize, block: usize) -> Result<Rc<Block>, StoreError> {
        if let Some(found) = self.blocks.borrow().get(&(at, block)) {
            return Ok(found.clone());
        }
        let IndexedChunk::Blocked {
            chunk, directory, ..
        } = &self.chunks[at]
        else {
            unreachable!("only blocked chunks have blocks");
        };
        let blob: Option<Vec<u8>> = store
            .conn()
            .prepare_cached(
                "SELECT paths FROM api_path_blocks WHERE dist_id = ?1 AND chunk = ?2 AND block = ?3",
            )
            .and_then(|mut stmt| {
                stmt.query_row(rusqlite::params![self.dist_id, chunk, block as i64], |r| {
                    r.get(0)
                })
                .optional()
            })
            .map_err(store.err())?;
        let corrupt = || store.corrupt("API path dictionary");
        let decoded = Rc::new(
            Block::decode(&blob.ok_or_else(corrupt)?, directory, block).map_err(|_| corrupt())?,
        );
        self.blocks
            .borrow_mut()
            .insert((at, block), decoded.clone());
        Ok(decoded)
    }

    /// The id of API `path`, as [`PathDictionary::get`] answers: the oldest chunk's first.
    pub fn get(&self, store: &Store, path: &str) -> Result<Option<i64>, StoreError> {
        for (at, chunk) in self.chunks.iter().enumerate() {
            let found = match chunk {
                IndexedChunk::Whole(d) => d.get(path),
                IndexedChunk::Blocked { directory, .. } => match directory.block_for_path(path) {
                    Some(b) => self.block(store, at, b)?.get(path),
                    None => None,
                },
            };
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }

    /// The path of API `id`, as [`PathDictionary::path`] answers: the youngest chunk's.
    pub fn path(&self, store: &Store, id: i64) -> Result<Option<String>, StoreError> {
        for (at, chunk) in self.chunks.iter().enumerate().rev() {
            let found = match chunk {
                IndexedChunk::Whole(d) => d.path(id).map(str::to_string),
                IndexedChunk::Blocked { directory, .. } => match directory.block_for_id(id) {
                    Some(b) => Some(
                        self.block(store, at, b)?
                            .path(id)
                            .ok_or_else(|| store.corrupt("API path dictionary"))?
                            .to_string(),
                    ),
                    None => None,
                },
            };
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }

    /// Every `(owner, id)` where API `id`'s path is API `owner`'s then `.{member}`, in no
    /// particular order: from the chunks' member indexes, else from their paths.
    pub fn members_named(
        &self,
        store: &Store,
        member: &str,
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        let suffix = format!(".{member}");
        let mut found: Vec<(Option<i64>, i64)> = Vec::new();
        let mut paths: Vec<(String, i64)> = Vec::new();
        for (at, chunk) in self.chunks.iter().enumerate() {
            match chunk {
                IndexedChunk::Whole(d) => paths.extend(
                    d.ending_with(&suffix)
                        .map(|(path, id)| (path.to_string(), id)),
                ),
                IndexedChunk::Blocked {
                    chunk,
                    directory,
                    members,
                } => {
                    let index = match members.get() {
                        Some(index) => index,
                        None => {
                            let read = self.read_members(store, *chunk)?;
                            members.get_or_init(|| read)
                        }
                    };
                    match index.as_ref().filter(|_| member_index::indexable(member)) {
                        Some(index) => {
                            for b in index.blocks_for(member) {
                                let blob = self.member_block(store, *chunk, b)?;
                                let entries = index
                                    .named(&blob, b, member)
                                    .map_err(|_| store.corrupt("API member index"))?;
                                found.extend(entries.into_iter().map(|m| (m.owner, m.id)));
                            }
                        }
                        None => {
                            for b in 0..directory.blocks() {
                                paths.extend(
                                    self.block(store, at, b)?
                                        .iter()
                                        .filter(|(path, _)| path.ends_with(&suffix))
                                        .map(|(path, id)| (path.to_string(), id)),
                                );
                            }
                        }
                    }
                }
            }
        }
        let mut out = Vec::with_capacity(found.len() + paths.len());
        for (owner, id) in found {
            match owner {
                Some(owner) => out.push((owner, id)),
                // An owner the writer did not know (added later, or none): by its path.
                None => {
                    let path = self
                        .path(store, id)?
                        .ok_or_else(|| store.corrupt(format!("API {id} has no path")))?;
                    if let Some(owner) = self.owner_of(store, &path, &suffix)? {
                        out.push((owner, id));
                    }
                }
            }
        }
        for (path, id) in paths {
            if let Some(owner) = self.owner_of(store, &path, &suffix)? {
                out.push((owner, id));
            }
        }
        Ok(out)
    }

    /// The id of the API whose path is `path` without `suffix`.
    fn owner_of(&self, store: &Store, path: &str, suffix: &str) -> Result<Option<i64>, StoreError> {
        match path.strip_suffix(suffix) {
            Some(owner) => self.get(store, owner),
            None => Ok(None),
        }
    }

    /// A chunk's member index; `None` when it has none (a chunk written before it existed).
    fn read_members(
        &self,
        store: &Store,
        chunk: i64,
    ) -> Result<Option<MemberDirectory>, StoreError> {
        let blob: Option<Vec<u8>> = store
            .conn()
            .prepare_cached("SELECT members FROM api_path_chunks WHERE dist_id = ?1 AND chunk = ?2")
            .and_then(|mut stmt| {
                stmt.query_row(rusqlite::params![self.dist_id, chunk], |r| r.get(0))
            })
            .map_err(store.err())?;
        blob.map(|b| MemberDirectory::decode(&b).map_err(|_| store.corrupt("API member index")))
            .transpose()
    }

    fn member_block(&self, store: &Store, chunk: i64, block: usize) -> Result<Vec<u8>, StoreError> {
        let blob: Option<Vec<u8>> = store
            .conn()
            .prepare_cached(
                "SELECT entries FROM api_member_blocks WHERE dist_id = ?1 AND chunk = ?2 AND block = ?3",
            )
            .and_then(|mut stmt| {
                stmt.query_row(rusqlite::params![self.dist_id, chunk, block as i64], |r| {
                    r.get(0)
                })
                .optional()
            })
            .map_err(store.err())?;
        blob.ok_or_else(|| store.corrupt("API member index"))
    }

    /// The smallest and largest id of the distribution's APIs.
    pub fn id_range(&self) -> Option<(i64, i64)> {
        self.chunks
            .iter()
            .filter_map(|c| match c {
                IndexedChunk::Whole(d) => d.id_range(),
                IndexedChunk::Blocked { directory, .. } => directory.id_range(),
            })
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
    }

    /// How many paths the chunks hold.
    pub fn len(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| match c {
                IndexedChunk::Whole(d) => d.len_decoded(),
                IndexedChunk::Blocked { directory, .. } => directory.count(),
            })
            .sum()
    }

    /// How many blocks have been read (for tests of what a query reads).
    #[cfg(test)]
    pub fn blocks_read(&self) -> usize {
        self.blocks.borrow().len()
    }

    /// Whether every chunk is stored in blocks.
    #[cfg(test)]
    pub fn chunks_blocked(&self) -> bool {
        self.chunks
            .iter()
            .all(|c| matches!(c, IndexedChunk::Blocked { .. }))
    }
}

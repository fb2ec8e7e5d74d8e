//! Writing indexed releases: one transaction per release, each API's release sets updated in
//! place.
//!
//! Static reading and runtime introspection write separate sets (an API's, a link's, a
//! module's): indexing a release again replaces only what static reading said of it, and
//! introspecting it again only what introspection said.
//!
//! The writer keeps the release sets of the distribution it is writing in memory (one read per
//! distribution, not one per API and release), and drops them whenever a transaction fails so
//! memory never disagrees with the file.

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension, Transaction};
use sha2::Digest;

use super::open_classes;
use super::path_blocks::EncodedChunk;
use super::path_dictionary::{merge_from, PathDictionary};
use super::registry::{NoSources, ReleaseStatus, RuntimeStatus};
use super::release_set::ReleaseSet;
use super::schema::EXTRACTOR_VERSION;
use super::seal::{self, execute_sealed, select_sealed};
use super::{DistId, ReleaseId, Slot, Store, StoreError};
use crate::bank::flow::{ApiKind, ModuleKind, ReleaseApis};
use crate::timings::{self, Stage};

/// How many source files a release had and how many had to be parsed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SourceCounts {
    pub source_files: u32,
    /// Files parsed for this release (the rest came from the summary cache).
    pub parsed_files: u32,
    pub error_files: u32,
}

/// Everything indexing one release produced.
pub struct IndexedRelease<'a> {
    pub dist_id: DistId,
    pub release_id: ReleaseId,
    pub slot: Slot,
    pub file_name: &'a str,
    pub file_sha256: Option<&'a str>,
    pub apis: &'a ReleaseApis,
    pub import_names: &'a [String],
    pub requires_dist: &'a [String],
    /// Files of the release whose Requires-Dist differs from `requires_dist` (TensorFlow's
    /// Windows wheels require `tensorflow-intel` instead), with theirs.
    pub file_requires_dist: &'a [(String, Vec<String>)],
    pub requires_python: Option<&'a str>,
    /// Why the file has no Python sources, with what it says (a metapackage's siblings).
    pub no_sources: Option<(NoSources, String)>,
    /// The name as the release's metadata spells it.
    pub display_name: Option<&'a str>,
    pub counts: SourceCounts,
}

/// A name that introspection found in a release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeFinding {
    pub path: String,
    pub kind: ApiKind,
}

/// What introspection saw of a release besides names: links as (path, target path), and
/// modules.
#[derive(Debug, Clone, Copy, Default)]
pub struct RuntimeLinks<'a> {
    pub aliases: &'a [(String, String)],
    pub bases: &'a [(String, String)],
    /// Modules imported and listed completely: there, a name introspection did not find is
    /// absent, whatever static reading could not see.
    pub listed: &'a [String],
    /// Modules found in `sys.modules` under the distribution's import names, made at run time
    /// or not (`six.moves`).
    pub modules: &'a [String],
}

#[derive(Debug, Clone)]
struct ApiRow {
    id: i64,
    kind: ApiKind,
    static_set: ReleaseSet,
    runtime_set: ReleaseSet,
    open_set: ReleaseSet,
    external_set: ReleaseSet,
}

#[derive(Debug, Clone, Default)]
struct ModuleRow {
    releases: ReleaseSet,
    opaque: ReleaseSet,
    /// Static reading cannot list all its names.
    dynamic: ReleaseSet,
    raises: ReleaseSet,
    raises_message: Option<String>,
    extends_path: ReleaseSet,
    runtime: ReleaseSet,
    listed: ReleaseSet,
}

impl ModuleRow {
    fn static_sets(&mut self) -> [&mut ReleaseSet; 5] {
        [
            &mut self.releases,
            &mut self.opaque,
            &mut self.dynamic,
            &mut self.raises,
            &mut self.extends_path,
        ]
    }
}

/// A link's releases by each reading.
#[derive(Debug, Clone, Default)]
struct LinkSets {
    static_set: ReleaseSet,
    runtime: ReleaseSet,
}

#[derive(Default)]
struct DistCache {
    apis: HashMap<String, ApiRow>,
    /// Path ↔ id of every API of the distribution.
    dictionary: PathDictionary,
    /// The stored chunks of the dictionary (number, ids), oldest first.
    chunks: Vec<(i64, Vec<i64>)>,
    /// APIs added since the dictionary was last written.
    new_paths: Vec<i64>,
    /// The distribution's row in `open_classes`, as stored.
    open_classes: Option<ReleaseSet>,
    modules: HashMap<String, ModuleRow>,
    import_names: HashMap<String, ReleaseSet>,
    /// The `import_time` rows: path → releases.
    import_time: HashMap<String, ReleaseSet>,
    /// The `deprecations` rows.
    deprecations: super::deprecations::Rows,
    aliases: HashMap<(i64, i64), LinkSets>,
    bases: HashMap<(i64, i64), LinkSets>,
    signatures: HashMap<(i64, i64), ReleaseSet>,
}

/// A table of links between two APIs.
#[derive(Clone, Copy)]
struct LinkTable {
    table: &'static str,
    owner: &'static str,
    other: &'static str,
    sealed: seal::SealedTable,
}

const ALIASES: LinkTable = LinkTable {
    table: "aliases",
    owner: "api_id",
    other: "canonical_id",
    sealed: seal::ALIASES,
};
const BASES: LinkTable = LinkTable {
    table: "class_bases",
    owner: "class_id",
    other: "base_id",
    sealed: seal::CLASS_BASES,
};

/// Which reading a write is about.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    Static,
    Runtime,
}

/// Distributions whose sets are kept in memory at once. A build writes distribution after
/// distribution (neighbours overlap where workers finish out of order), so a few suffice, and
/// memory stays bounded over the whole package list.
const CACHED_DISTRIBUTIONS: usize = 4;

/// Writes indexed releases into a [`Store`].
pub struct BankWriter<'s> {
    store: &'s mut Store,
    dists: HashMap<DistId, DistCache>,
    /// Cached distributions, least recently written first.
    recent: Vec<DistId>,
    signature_ids: HashMap<String, i64>,
}

impl<'s> BankWriter<'s> {
    pub fn new(store: &'s mut Store) -> Self {
        Self {
            store,
            dists: HashMap::new(),
            recent: Vec::new(),
            signature_ids: HashMap::new(),
        }
    }

    pub fn store(&mut self) -> &mut Store {
        self.store
    }

    fn load(&mut self, dist_id: DistId) -> Result<(), StoreError> {
        self.recent.retain(|&d| d != dist_id);
        self.recent.push(dist_id);
        if self.dists.contains_key(&dist_id) {
            return Ok(());
        }
        while self.recent.len() > CACHED_DISTRIBUTIONS {
            let oldest = self.recent.remove(0);
            self.dists.remove(&oldest);
        }
        let store = &*self.store;
        let err = store.err();
        let mut cache = DistCache {
            dictionary: (*store.path_dictionary(dist_id)?).clone(),
            chunks: store.path_chunks(dist_id)?,
            open_classes: store.stored_open_classes(dist_id)?,
            import_time: store.import_time_rows(dist_id)?,
            deprecations: store.deprecation_rows(dist_id)?,
            ..DistCache::default()
        };
        store.each_sealed(
            &seal::APIS,
            select_sealed!(apis, "WHERE dist_id = ?1"),
            [dist_id],
            |r| {
                let id: i64 = r.get(0).map_err(&err)?;
                let path = cache
                    .dictionary
                    .path(id)
                    .ok_or_else(|| store.corrupt(format!("API {id} has no path")))?
                    .to_string();
                cache.apis.insert(
                    path,
                    ApiRow {
                        id,
                        kind: ApiKind::from_code(r.get(2).map_err(&err)?),
                        static_set: store.set_at(r, 3)?,
                        runtime_set: store.set_at(r, 4)?,
                        open_set: store.set_at(r, 5)?,
                        external_set: store.set_at(r, 6)?,
                    },
                );
                Ok(())
            },
        )?;
        store.each_sealed(
            &seal::MODULES,
            select_sealed!(modules, "WHERE dist_id = ?1"),
            [dist_id],
            |r| {
                let row = ModuleRow {
                    releases: store.set_at(r, 2)?,
                    opaque: store.set_at(r, 3)?,
                    dynamic: store.set_at(r, 4)?,
                    raises: store.set_at(r, 5)?,
                    raises_message: r.get(6).map_err(&err)?,
                    extends_path: store.set_at(r, 7)?,
                    runtime: store.set_at(r, 8)?,
                    listed: store.set_at(r, 9)?,
                };
                cache.modules.insert(r.get(1).map_err(&err)?, row);
                Ok(())
            },
        )?;
        store.each_sealed(
            &seal::IMPORT_NAMES,
            select_sealed!(import_names, "WHERE dist_id = ?1"),
            [dist_id],
            |r| {
                cache
                    .import_names
                    .insert(r.get(1).map_err(&err)?, store.set_at(r, 2)?);
                Ok(())
            },
        )?;
        for (link, target) in [(ALIASES, &mut cache.aliases), (BASES, &mut cache.bases)] {
            let LinkTable {
                table,
                owner,
                sealed,
                ..
            } = link;
            let sql = format!(
                "SELECT {} FROM {table} t JOIN apis a ON a.id = t.{owner} WHERE a.dist_id = ?1",
                sealed.select("t.")
            );
            store.each_sealed(&sealed, &sql, [dist_id], |r| {
                target.insert(
                    (r.get(0).map_err(&err)?, r.get(1).map_err(&err)?),
                    LinkSets {
                        static_set: store.set_at(r, 2)?,
                        runtime: store.set_at(r, 3)?,
                    },
                );
                Ok(())
            })?;
        }
        store.each_sealed(
            &seal::API_SIGNATURES,
            &format!(
                "SELECT {} FROM api_signatures t JOIN apis a ON a.id = t.api_id WHERE a.dist_id = ?1",
                seal::API_SIGNATURES.select("t.")
            ),
            [dist_id],
            |r| {
                cache.signatures.insert(
                    (r.get(0).map_err(&err)?, r.get(1).map_err(&err)?),
                    store.set_at(r, 2)?,
                );
                Ok(())
            },
        )?;
        self.dists.insert(dist_id, cache);
        Ok(())
    }

    /// Runs `write` in one transaction on the distribution's cached sets; on failure,
    /// everything cached is dropped, so that memory never disagrees with the file.
    fn transaction(
        &mut self,
        dist_id: DistId,
        write: impl FnOnce(
            &Transaction<'_>,
            &mut DistCache,
            &mut HashMap<String, i64>,
        ) -> rusqlite::Result<()>,
    ) -> Result<(), StoreError> {
        // One writer at a time, for this transaction; what it cached is read again if another
        // wrote in between.
        let _guard = self.store.write_lock()?;
        let _clock = timings::start(Stage::BankWrites);
        if self.store.others_wrote()? {
            self.dists.clear();
            self.recent.clear();
            self.signature_ids.clear();
        }
        self.load(dist_id)?;
        self.store.forget_dictionaries();
        let cache = self.dists.get_mut(&dist_id).expect("loaded above");
        let result = (|| {
            let tx = self
                .store
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            write(&tx, cache, &mut self.signature_ids)?;
            save_open_classes(&tx, dist_id, cache)?;
            tx.commit()
        })();
        if result.is_err() {
            self.dists.clear();
            self.recent.clear();
            self.signature_ids.clear();
        }
        result.map_err(self.store.err())
    }

    /// Writes one indexed release in one transaction.
    pub fn write_release(&mut self, release: &IndexedRelease<'_>) -> Result<(), StoreError> {
        self.transaction(release.dist_id, |tx, cache, signature_ids| {
            write_release_in(tx, cache, signature_ids, release)
        })
    }

    /// Records what introspection saw in a release, in one transaction, replacing what an
    /// earlier introspection of it recorded.
    pub fn write_runtime(
        &mut self,
        dist_id: DistId,
        release_id: ReleaseId,
        slot: Slot,
        findings: &[RuntimeFinding],
        links: &RuntimeLinks<'_>,
    ) -> Result<(), StoreError> {
        self.transaction(dist_id, |tx, cache, _| {
            write_runtime_in(tx, cache, dist_id, release_id, slot, findings, links)
        })
    }
}

fn write_release_in(
    tx: &Transaction<'_>,
    cache: &mut DistCache,
    signature_ids: &mut HashMap<String, i64>,
    r: &IndexedRelease<'_>,
) -> rusqlite::Result<()> {
    // A release indexed again (a newer extractor) must not keep what static reading said of
    // it before; what introspection found stays.
    let status: String = tx.query_row(
        "SELECT status FROM releases WHERE id = ?1",
        [r.release_id],
        |row| row.get(0),
    )?;
    if status == ReleaseStatus::Indexed.as_str() {
        clear_slot_in(tx, cache, r.dist_id, r.slot, Reading::Static)?;
    }

    for module in &r.apis.modules {
        let row = cache
            .modules
            .entry(module.path.as_str().to_string())
            .or_default();
        row.releases.insert(r.slot);
        if module.kind == ModuleKind::Opaque {
            row.opaque.insert(r.slot);
        }
        if module.open {
            row.dynamic.insert(r.slot);
        }
        if module.extends_path {
            row.extends_path.insert(r.slot);
        }
        if let Some(message) = &module.raises {
            row.raises.insert(r.slot);
            row.raises_message = Some(message.clone());
        }
        write_module(tx, r.dist_id, module.path.as_str(), row)?;
    }

    for api in &r.apis.apis {
        let path = api.path.as_str();
        let row = api_row(tx, cache, r.dist_id, path, api.kind)?;
        let dist_id = r.dist_id;
        row.static_set.insert(r.slot);
        if api.open {
            row.open_set.insert(r.slot);
        }
        if api.external.is_some() {
            row.external_set.insert(r.slot);
        }
        if api.kind != ApiKind::Unknown {
            row.kind = api.kind;
        }
        write_api(tx, dist_id, row)?;
    }

    for api in &r.apis.apis {
        let api_id = cache.apis[api.path.as_str()].id;
        if let Some(canonical) = &api.canonical {
            if let Some(target) = cache.apis.get(canonical.as_str()) {
                let key = (api_id, target.id);
                let sets = cache.aliases.entry(key).or_default();
                sets.static_set.insert(r.slot);
                write_link(tx, ALIASES, key, sets)?;
            }
        }
        // An instance has its class's members, as a subclass has its bases': the same link.
        for base in api.bases.iter().chain(api.instance_of.iter()) {
            if let Some(target) = cache.apis.get(base.as_str()) {
                let key = (api_id, target.id);
                let sets = cache.bases.entry(key).or_default();
                sets.static_set.insert(r.slot);
                write_link(tx, BASES, key, sets)?;
            }
        }
        if let Some(signature) = &api.signature {
            let text = signature.to_string();
            let sig_id = match signature_ids.get(&text) {
                Some(id) => *id,
                None => {
                    let id = signature_id(tx, &text)?;
                    signature_ids.insert(text, id);
                    id
                }
            };
            let key = (api_id, sig_id);
            let set = cache.signatures.entry(key).or_default();
            set.insert(r.slot);
            write_signature(tx, key, set)?;
        }
    }

    for name in r.import_names {
        let set = cache.import_names.entry(name.clone()).or_default();
        set.insert(r.slot);
        execute_sealed(
            &mut tx.prepare_cached(
                "INSERT OR REPLACE INTO import_names (dist_id, name, releases, seal) VALUES (?1, ?2, ?3, ?4)",
            )?,
            params![r.dist_id, name, set.encode()],
        )?;
    }

    super::import_time::write(
        tx,
        &mut cache.import_time,
        r.dist_id,
        r.release_id,
        r.slot,
        r.apis.external_imports.as_deref(),
    )?;
    super::deprecations::write(tx, &mut cache.deprecations, r.dist_id, r.slot, r.apis)?;

    tx.execute(
        "DELETE FROM requires_dist WHERE release_id = ?1",
        [r.release_id],
    )?;
    for req in r.requires_dist {
        tx.prepare_cached(
            "INSERT OR IGNORE INTO requires_dist (release_id, requirement) VALUES (?1, ?2)",
        )?
        .execute(params![r.release_id, req])?;
    }
    tx.execute(
        "DELETE FROM file_requires_dist WHERE release_id = ?1",
        [r.release_id],
    )?;
    for (file, reqs) in r.file_requires_dist {
        for req in reqs {
            tx.prepare_cached(
                "INSERT OR IGNORE INTO file_requires_dist (release_id, file_name, requirement) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![r.release_id, file, req])?;
        }
    }
    if let Some(name) = r.display_name {
        tx.execute(
            "UPDATE distributions SET display_name = ?2 WHERE id = ?1",
            params![r.dist_id, name],
        )?;
    }

    save_dictionary(tx, r.dist_id, cache)?;
    let (no_sources, no_sources_detail) = match &r.no_sources {
        Some((kind, detail)) => (Some(kind.as_str()), Some(detail.as_str())),
        None => (None, None),
    };
    tx.execute(
        "UPDATE releases SET status = ?2, detail = NULL, indexed_at = strftime('%s','now'), extractor = ?3,
             file_name = ?4, file_sha256 = ?5, source_files = ?6, parsed_files = ?7, error_files = ?8,
             requires_python = COALESCE(?9, requires_python), no_sources = ?10, no_sources_detail = ?11,
             converged = ?12
         WHERE id = ?1",
        params![
            r.release_id,
            ReleaseStatus::Indexed.as_str(),
            EXTRACTOR_VERSION,
            r.file_name,
            r.file_sha256,
            r.counts.source_files,
            r.counts.parsed_files,
            r.counts.error_files,
            r.requires_python,
            no_sources,
            no_sources_detail,
            r.apis.stats.converged,
        ],
    )?;
    Ok(())
}

fn write_runtime_in(
    tx: &Transaction<'_>,
    cache: &mut DistCache,
    dist_id: DistId,
    release_id: ReleaseId,
    slot: Slot,
    findings: &[RuntimeFinding],
    links: &RuntimeLinks<'_>,
) -> rusqlite::Result<()> {
    clear_slot_in(tx, cache, dist_id, slot, Reading::Runtime)?;
    for f in findings {
        let row = api_row(tx, cache, dist_id, &f.path, f.kind)?;
        row.runtime_set.insert(slot);
        if row.kind == ApiKind::Unknown && f.kind != ApiKind::Unknown {
            row.kind = f.kind;
        }
        write_api(tx, dist_id, row)?;
    }
    for (link, pairs, sets) in [
        (ALIASES, links.aliases, &mut cache.aliases),
        (BASES, links.bases, &mut cache.bases),
    ] {
        for (from, to) in pairs {
            let (Some(a), Some(b)) = (cache.apis.get(from), cache.apis.get(to)) else {
                continue;
            };
            let key = (a.id, b.id);
            let entry = sets.entry(key).or_default();
            if !entry.runtime.contains(slot) {
                entry.runtime.insert(slot);
                write_link(tx, link, key, entry)?;
            }
        }
    }
    for (paths, listed) in [(links.modules, false), (links.listed, true)] {
        for path in paths {
            let row = cache.modules.entry(path.clone()).or_default();
            let set = if listed {
                &mut row.listed
            } else {
                &mut row.runtime
            };
            set.insert(slot);
            write_module(tx, dist_id, path, row)?;
        }
    }
    save_dictionary(tx, dist_id, cache)?;
    tx.execute(
        "UPDATE releases SET runtime_status = ?2, runtime_detail = ?3 WHERE id = ?1",
        params![
            release_id,
            RuntimeStatus::Ok.as_str(),
            format!("{} names", findings.len())
        ],
    )?;
    Ok(())
}

/// Removes `slot` from every set of the distribution that `reading` wrote, writing the rows
/// that change.
fn clear_slot_in(
    tx: &Transaction<'_>,
    cache: &mut DistCache,
    dist_id: DistId,
    slot: Slot,
    reading: Reading,
) -> rusqlite::Result<()> {
    for row in cache.apis.values_mut() {
        let sets = match reading {
            Reading::Static => vec![
                &mut row.static_set,
                &mut row.open_set,
                &mut row.external_set,
            ],
            Reading::Runtime => vec![&mut row.runtime_set],
        };
        let mut changed = false;
        for set in sets {
            if set.contains(slot) {
                set.remove(slot);
                changed = true;
            }
        }
        if changed {
            write_api(tx, dist_id, row)?;
        }
    }
    for (path, row) in cache.modules.iter_mut() {
        let sets: Vec<&mut ReleaseSet> = match reading {
            Reading::Static => row.static_sets().into_iter().collect(),
            Reading::Runtime => vec![&mut row.runtime, &mut row.listed],
        };
        let mut changed = false;
        for set in sets {
            if set.contains(slot) {
                set.remove(slot);
                changed = true;
            }
        }
        if changed {
            write_module(tx, dist_id, path, row)?;
        }
    }
    for (link, sets) in [(ALIASES, &mut cache.aliases), (BASES, &mut cache.bases)] {
        for (key, entry) in sets.iter_mut() {
            let set = match reading {
                Reading::Static => &mut entry.static_set,
                Reading::Runtime => &mut entry.runtime,
            };
            if set.contains(slot) {
                set.remove(slot);
                write_link(tx, link, *key, entry)?;
            }
        }
    }
    if reading == Reading::Runtime {
        return Ok(());
    }
    for (key, set) in cache.signatures.iter_mut() {
        if set.contains(slot) {
            set.remove(slot);
            write_signature(tx, *key, set)?;
        }
    }
    for (name, set) in cache.import_names.iter_mut() {
        if set.contains(slot) {
            set.remove(slot);
            execute_sealed(
                &mut tx.prepare_cached(
                    "UPDATE import_names SET releases = ?3, seal = ?4 WHERE dist_id = ?1 AND name = ?2",
                )?,
                params![dist_id, name, set.encode()],
            )?;
        }
    }
    super::import_time::clear(tx, &mut cache.import_time, dist_id, slot)?;
    super::deprecations::clear(tx, &mut cache.deprecations, dist_id, slot)
}

/// The cached row of `path`, inserted (with empty release sets) if the bank lacks it.
fn api_row<'c>(
    tx: &Transaction<'_>,
    cache: &'c mut DistCache,
    dist_id: DistId,
    path: &str,
    kind: ApiKind,
) -> rusqlite::Result<&'c mut ApiRow> {
    if !cache.apis.contains_key(path) {
        tx.prepare_cached(
            "INSERT INTO apis (dist_id, kind, static, runtime, open, external) VALUES (?1, ?2, x'', x'', x'', x'')",
        )?
        .execute(params![dist_id, kind.code()])?;
        let id = tx.last_insert_rowid();
        cache.dictionary.insert(path, id);
        cache.new_paths.push(id);
        cache.apis.insert(
            path.to_string(),
            ApiRow {
                id,
                kind,
                static_set: ReleaseSet::new(),
                runtime_set: ReleaseSet::new(),
                open_set: ReleaseSet::new(),
                external_set: ReleaseSet::new(),
            },
        );
    }
    Ok(cache.apis.get_mut(path).expect("inserted above"))
}

/// Writes the paths the distribution gained as a new chunk, merged with the younger chunks
/// no larger than it (see [`super::path_dictionary::merge_from`]).
fn save_dictionary(
    tx: &Transaction<'_>,
    dist_id: DistId,
    cache: &mut DistCache,
) -> rusqlite::Result<()> {
    if cache.new_paths.is_empty() {
        return Ok(());
    }
    let sizes: Vec<usize> = cache.chunks.iter().map(|(_, ids)| ids.len()).collect();
    let from = merge_from(&sizes, cache.new_paths.len());
    let number = match cache.chunks.get(from) {
        Some(&(number, _)) => number,
        None => cache.chunks.last().map_or(0, |(number, _)| number + 1),
    };
    let mut ids = std::mem::take(&mut cache.new_paths);
    for (_, merged) in cache.chunks.drain(from..) {
        ids.extend(merged);
    }
    tx.prepare_cached("DELETE FROM api_path_chunks WHERE dist_id = ?1 AND chunk >= ?2")?
        .execute(params![dist_id, number])?;
    tx.prepare_cached("DELETE FROM api_path_blocks WHERE dist_id = ?1 AND chunk >= ?2")?
        .execute(params![dist_id, number])?;
    tx.prepare_cached("DELETE FROM api_member_blocks WHERE dist_id = ?1 AND chunk >= ?2")?
        .execute(params![dist_id, number])?;
    // The oldest chunk holds most paths: every lookup looks in it, so it has no filter.
    let encoded = cache.dictionary.encode_ids(&ids, from > 0);
    insert_chunk(tx, dist_id, number, &encoded)?;
    cache.chunks.push((number, ids));
    Ok(())
}

/// Stores a chunk in blocked form: its directory and its member index's in its row, their
/// blocks beside (see [`super::path_blocks`] and [`super::member_index`]).
pub(super) fn insert_chunk(
    tx: &Transaction<'_>,
    dist_id: DistId,
    number: i64,
    chunk: &EncodedChunk,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT OR REPLACE INTO api_path_chunks (dist_id, chunk, paths_count, paths, members)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        dist_id,
        number,
        chunk.count as i64,
        chunk.directory,
        chunk.members.directory
    ])?;
    for (table, column, blocks) in [
        ("api_path_blocks", "paths", &chunk.blocks),
        ("api_member_blocks", "entries", &chunk.members.blocks),
    ] {
        let mut insert = tx.prepare_cached(&format!(
            "INSERT OR REPLACE INTO {table} (dist_id, chunk, block, {column}) VALUES (?1, ?2, ?3, ?4)"
        ))?;
        for (i, block) in blocks.iter().enumerate() {
            insert.execute(params![dist_id, number, i as i64, block])?;
        }
    }
    Ok(())
}

/// Stores the distribution's open classes (see [`super::open_classes`]) when the rows the
/// transaction wrote changed them.
fn save_open_classes(
    tx: &Transaction<'_>,
    dist_id: DistId,
    cache: &mut DistCache,
) -> rusqlite::Result<()> {
    let set = open_classes::union(
        cache
            .apis
            .values()
            .map(|row| (row.kind, &row.open_set, &row.runtime_set)),
    );
    if cache.open_classes.as_ref() != Some(&set) {
        open_classes::save(tx, dist_id, &set)?;
        cache.open_classes = Some(set);
    }
    Ok(())
}

/// The id of a signature's text, stored once for the whole bank (found by a hash of it).
fn signature_id(tx: &Transaction<'_>, text: &str) -> rusqlite::Result<i64> {
    let digest = sha2::Sha256::digest(text.as_bytes());
    let hash = i64::from_le_bytes(digest[..8].try_into().expect("8 bytes"));
    let found: Option<i64> = tx
        .prepare_cached("SELECT id FROM signatures WHERE hash = ?1 AND text = ?2")?
        .query_row(params![hash, text], |r| r.get(0))
        .optional()?;
    if let Some(id) = found {
        return Ok(id);
    }
    // The id SQLite will give it (rows are never deleted), so that the seal can cover it.
    let id: i64 = tx
        .prepare_cached("SELECT COALESCE(MAX(id), 0) + 1 FROM signatures")?
        .query_row([], |r| r.get(0))?;
    execute_sealed(
        &mut tx.prepare_cached(
            "INSERT INTO signatures (id, hash, text, seal) VALUES (?1, ?2, ?3, ?4)",
        )?,
        params![id, hash, text],
    )?;
    Ok(id)
}

fn write_api(tx: &Transaction<'_>, dist_id: DistId, row: &ApiRow) -> rusqlite::Result<()> {
    execute_sealed(
        &mut tx.prepare_cached(
            "UPDATE apis SET dist_id = ?2, kind = ?3, static = ?4, runtime = ?5, open = ?6, external = ?7, seal = ?8
             WHERE id = ?1",
        )?,
        params![
        row.id,
        dist_id,
        row.kind.code(),
        row.static_set.encode(),
        row.runtime_set.encode(),
        row.open_set.encode(),
        row.external_set.encode()
        ],
    )?;
    Ok(())
}

fn write_module(
    tx: &Transaction<'_>,
    dist_id: DistId,
    path: &str,
    row: &ModuleRow,
) -> rusqlite::Result<()> {
    execute_sealed(
        &mut tx.prepare_cached(
            "INSERT OR REPLACE INTO modules
             (dist_id, path, releases, opaque, dynamic, raises, raises_message, extends_path, runtime, listed, seal)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?,
        params![
        dist_id,
        path,
        row.releases.encode(),
        row.opaque.encode(),
        row.dynamic.encode(),
        row.raises.encode(),
        row.raises_message,
        row.extends_path.encode(),
        row.runtime.encode(),
        row.listed.encode(),
        ],
    )?;
    Ok(())
}

fn write_link(
    tx: &Transaction<'_>,
    link: LinkTable,
    key: (i64, i64),
    sets: &LinkSets,
) -> rusqlite::Result<()> {
    let LinkTable {
        table,
        owner,
        other,
        ..
    } = link;
    let sql = format!(
        "INSERT OR REPLACE INTO {table} ({owner}, {other}, releases, runtime, seal) VALUES (?1, ?2, ?3, ?4, ?5)"
    );
    execute_sealed(
        &mut tx.prepare_cached(&sql)?,
        params![
            key.0,
            key.1,
            sets.static_set.encode(),
            sets.runtime.encode()
        ],
    )?;
    Ok(())
}

fn write_signature(
    tx: &Transaction<'_>,
    key: (i64, i64),
    set: &ReleaseSet,
) -> rusqlite::Result<()> {
    execute_sealed(
        &mut tx.prepare_cached(
            "INSERT OR REPLACE INTO api_signatures (api_id, signature_id, releases, seal) VALUES (?1, ?2, ?3, ?4)",
        )?,
        params![key.0, key.1, set.encode()],
    )?;
    Ok(())
}

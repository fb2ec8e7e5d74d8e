//! Writing indexed releases: one transaction per release, each API's release set updated in
//! place.
//!
//! The writer keeps the release sets of the distribution it is writing in memory (one read per
//! distribution, not one per API and release), and drops them whenever a transaction fails so
//! memory never disagrees with the file.

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension, Transaction};
use sha2::Digest;

use super::path_dictionary::PathDictionary;
use super::registry::ReleaseStatus;
use super::release_set::ReleaseSet;
use super::schema::EXTRACTOR_VERSION;
use super::{Store, StoreError};
use crate::bank::flow::{ApiKind, ModuleKind, ReleaseApis};

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
    pub dist_id: i64,
    pub release_id: i64,
    pub slot: u32,
    pub file_name: &'a str,
    pub file_sha256: Option<&'a str>,
    pub apis: &'a ReleaseApis,
    pub import_names: &'a [String],
    pub requires_dist: &'a [String],
    pub requires_python: Option<&'a str>,
    pub counts: SourceCounts,
}

/// A name that introspection found in a release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeFinding {
    pub path: String,
    pub kind: ApiKind,
}

/// Links introspection saw: aliases and class bases, as (path, target path).
#[derive(Debug, Clone, Copy, Default)]
pub struct RuntimeLinks<'a> {
    pub aliases: &'a [(String, String)],
    pub bases: &'a [(String, String)],
}

#[derive(Debug, Clone)]
struct ApiRow {
    id: i64,
    kind: ApiKind,
    static_set: ReleaseSet,
    runtime_set: ReleaseSet,
}

#[derive(Debug, Clone, Default)]
struct ModuleRow {
    releases: ReleaseSet,
    opaque: ReleaseSet,
    dynamic: ReleaseSet,
}

#[derive(Default)]
struct DistCache {
    apis: HashMap<String, ApiRow>,
    /// Path ↔ id of every API of the distribution; written back when it grows.
    dictionary: PathDictionary,
    dictionary_grew: bool,
    modules: HashMap<String, ModuleRow>,
    import_names: HashMap<String, ReleaseSet>,
    aliases: HashMap<(i64, i64), ReleaseSet>,
    bases: HashMap<(i64, i64), ReleaseSet>,
    signatures: HashMap<(i64, i64), ReleaseSet>,
}

pub(crate) fn kind_code(kind: ApiKind) -> i64 {
    match kind {
        ApiKind::Module => 0,
        ApiKind::Function => 1,
        ApiKind::Class => 2,
        ApiKind::Method => 3,
        ApiKind::Property => 4,
        ApiKind::Attribute => 5,
        ApiKind::Unknown => 6,
    }
}

pub(crate) fn kind_from_code(code: i64) -> ApiKind {
    match code {
        0 => ApiKind::Module,
        1 => ApiKind::Function,
        2 => ApiKind::Class,
        3 => ApiKind::Method,
        4 => ApiKind::Property,
        5 => ApiKind::Attribute,
        _ => ApiKind::Unknown,
    }
}

/// (table, owner column, other column) of the tables keyed by a pair of ids.
const PAIR_TABLES_LOAD: [(&str, &str, &str); 3] = [
    ("aliases", "api_id", "canonical_id"),
    ("class_bases", "class_id", "base_id"),
    ("api_signatures", "api_id", "signature_id"),
];

/// Writes indexed releases into a [`Store`].
pub struct BankWriter<'s> {
    store: &'s mut Store,
    dists: HashMap<i64, DistCache>,
    signature_ids: HashMap<String, i64>,
}

impl<'s> BankWriter<'s> {
    pub fn new(store: &'s mut Store) -> Self {
        Self {
            store,
            dists: HashMap::new(),
            signature_ids: HashMap::new(),
        }
    }

    pub fn store(&mut self) -> &mut Store {
        self.store
    }

    fn load(&mut self, dist_id: i64) -> Result<(), StoreError> {
        if self.dists.contains_key(&dist_id) {
            return Ok(());
        }
        let store = &*self.store;
        let conn = store.conn();
        let err = store.err();
        let mut cache = DistCache {
            dictionary: (*store.path_dictionary(dist_id)?).clone(),
            ..DistCache::default()
        };
        let mut stmt = conn
            .prepare("SELECT id, kind, static, runtime FROM apis WHERE dist_id = ?1")
            .map_err(&err)?;
        let mut rows = stmt.query([dist_id]).map_err(&err)?;
        while let Some(r) = rows.next().map_err(&err)? {
            let id: i64 = r.get(0).map_err(&err)?;
            let path = cache
                .dictionary
                .path(id)
                .ok_or_else(|| store.corrupt(format!("API {id} has no path")))?
                .to_string();
            let static_blob: Vec<u8> = r.get(2).map_err(&err)?;
            let runtime_blob: Vec<u8> = r.get(3).map_err(&err)?;
            cache.apis.insert(
                path,
                ApiRow {
                    id,
                    kind: kind_from_code(r.get(1).map_err(&err)?),
                    static_set: store.decode_set(&static_blob)?,
                    runtime_set: store.decode_set(&runtime_blob)?,
                },
            );
        }
        let mut stmt = conn
            .prepare("SELECT path, releases, opaque, dynamic FROM modules WHERE dist_id = ?1")
            .map_err(&err)?;
        let mut rows = stmt.query([dist_id]).map_err(&err)?;
        while let Some(r) = rows.next().map_err(&err)? {
            let blobs: [Vec<u8>; 3] = [
                r.get(1).map_err(&err)?,
                r.get(2).map_err(&err)?,
                r.get(3).map_err(&err)?,
            ];
            cache.modules.insert(
                r.get(0).map_err(&err)?,
                ModuleRow {
                    releases: store.decode_set(&blobs[0])?,
                    opaque: store.decode_set(&blobs[1])?,
                    dynamic: store.decode_set(&blobs[2])?,
                },
            );
        }
        let mut stmt = conn
            .prepare("SELECT name, releases FROM import_names WHERE dist_id = ?1")
            .map_err(&err)?;
        let mut rows = stmt.query([dist_id]).map_err(&err)?;
        while let Some(r) = rows.next().map_err(&err)? {
            let blob: Vec<u8> = r.get(1).map_err(&err)?;
            cache
                .import_names
                .insert(r.get(0).map_err(&err)?, store.decode_set(&blob)?);
        }
        for (table, first, second, target) in PAIR_TABLES_LOAD
            .iter()
            .zip([&mut cache.aliases, &mut cache.bases, &mut cache.signatures])
            .map(|((t, f, s), target)| (*t, *f, *s, target))
        {
            let sql = format!(
                "SELECT t.{first}, t.{second}, t.releases FROM {table} t JOIN apis a ON a.id = t.{first} WHERE a.dist_id = ?1"
            );
            let mut stmt = conn.prepare(&sql).map_err(&err)?;
            let mut rows = stmt.query([dist_id]).map_err(&err)?;
            while let Some(r) = rows.next().map_err(&err)? {
                let blob: Vec<u8> = r.get(2).map_err(&err)?;
                target.insert(
                    (r.get(0).map_err(&err)?, r.get(1).map_err(&err)?),
                    store.decode_set(&blob)?,
                );
            }
        }
        self.dists.insert(dist_id, cache);
        Ok(())
    }

    /// Writes one indexed release in one transaction.
    pub fn write_release(&mut self, release: &IndexedRelease<'_>) -> Result<(), StoreError> {
        self.load(release.dist_id)?;
        self.store.forget_dictionaries();
        let result = self.write_release_inner(release);
        if result.is_err() {
            self.dists.remove(&release.dist_id);
        }
        result
    }

    fn write_release_inner(&mut self, r: &IndexedRelease<'_>) -> Result<(), StoreError> {
        let path = self.store.path().to_path_buf();
        let err = super::sqlite_err(&path);
        let cache = self.dists.get_mut(&r.dist_id).expect("loaded above");
        let signature_ids = &mut self.signature_ids;
        let tx = self.store.conn.transaction().map_err(&err)?;
        // A release indexed again (a newer extractor) must not keep what it had before.
        let status: String = tx
            .query_row(
                "SELECT status FROM releases WHERE id = ?1",
                [r.release_id],
                |row| row.get(0),
            )
            .map_err(&err)?;
        if status == ReleaseStatus::Indexed.as_str() {
            clear_slot_in(&tx, cache, r.dist_id, r.slot, false).map_err(&err)?;
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
            write_module(&tx, r.dist_id, module.path.as_str(), row).map_err(&err)?;
        }

        for api in &r.apis.apis {
            let path = api.path.as_str();
            let row = api_row(&tx, cache, r.dist_id, path, api.kind).map_err(&err)?;
            row.static_set.insert(r.slot);
            if api.kind != ApiKind::Unknown {
                row.kind = api.kind;
            }
            write_api(&tx, row).map_err(&err)?;
        }

        for api in &r.apis.apis {
            let api_id = cache.apis[api.path.as_str()].id;
            if let Some(canonical) = &api.canonical {
                if let Some(target) = cache.apis.get(canonical.as_str()) {
                    let key = (api_id, target.id);
                    let set = cache.aliases.entry(key).or_default();
                    set.insert(r.slot);
                    write_pair(&tx, PAIR_TABLES_LOAD[0], key, set).map_err(&err)?;
                }
            }
            // An instance has its class's members, as a subclass has its bases': the same link.
            for base in api.bases.iter().chain(api.instance_of.iter()) {
                if let Some(target) = cache.apis.get(base.as_str()) {
                    let key = (api_id, target.id);
                    let set = cache.bases.entry(key).or_default();
                    set.insert(r.slot);
                    write_pair(&tx, PAIR_TABLES_LOAD[1], key, set).map_err(&err)?;
                }
            }
            if let Some(signature) = &api.signature {
                let text = signature.to_string();
                let sig_id = match signature_ids.get(&text) {
                    Some(id) => *id,
                    None => {
                        let id = signature_id(&tx, &text).map_err(&err)?;
                        signature_ids.insert(text, id);
                        id
                    }
                };
                let key = (api_id, sig_id);
                let set = cache.signatures.entry(key).or_default();
                set.insert(r.slot);
                write_pair(&tx, PAIR_TABLES_LOAD[2], key, set).map_err(&err)?;
            }
        }

        for name in r.import_names {
            let set = cache.import_names.entry(name.clone()).or_default();
            set.insert(r.slot);
            tx.prepare_cached(
                "INSERT OR REPLACE INTO import_names (dist_id, name, releases) VALUES (?1, ?2, ?3)",
            )
            .map_err(&err)?
            .execute(params![r.dist_id, name, set.encode()])
            .map_err(&err)?;
        }

        tx.execute(
            "DELETE FROM requires_dist WHERE release_id = ?1",
            [r.release_id],
        )
        .map_err(&err)?;
        for req in r.requires_dist {
            tx.prepare_cached(
                "INSERT OR IGNORE INTO requires_dist (release_id, requirement) VALUES (?1, ?2)",
            )
            .map_err(&err)?
            .execute(params![r.release_id, req])
            .map_err(&err)?;
        }

        save_dictionary(&tx, r.dist_id, cache).map_err(&err)?;
        tx.execute(
            "UPDATE releases SET status = ?2, detail = NULL, indexed_at = strftime('%s','now'), extractor = ?3,
                 file_name = ?4, file_sha256 = ?5, source_files = ?6, parsed_files = ?7, error_files = ?8,
                 requires_python = COALESCE(?9, requires_python)
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
            ],
        )
        .map_err(&err)?;
        tx.commit().map_err(&err)
    }

    /// Merges what introspection saw in a release into the runtime release sets, in one
    /// transaction. The release's earlier runtime findings are replaced.
    pub fn write_runtime(
        &mut self,
        dist_id: i64,
        release_id: i64,
        slot: u32,
        findings: &[RuntimeFinding],
        links: &RuntimeLinks<'_>,
    ) -> Result<(), StoreError> {
        self.load(dist_id)?;
        self.store.forget_dictionaries();
        let result = self.write_runtime_inner(dist_id, release_id, slot, findings, links);
        if result.is_err() {
            self.dists.remove(&dist_id);
        }
        result
    }

    fn write_runtime_inner(
        &mut self,
        dist_id: i64,
        release_id: i64,
        slot: u32,
        findings: &[RuntimeFinding],
        links: &RuntimeLinks<'_>,
    ) -> Result<(), StoreError> {
        let path = self.store.path().to_path_buf();
        let err = super::sqlite_err(&path);
        let cache = self.dists.get_mut(&dist_id).expect("loaded above");
        let tx = self.store.conn.transaction().map_err(&err)?;
        clear_slot_in(&tx, cache, dist_id, slot, true).map_err(&err)?;
        for f in findings {
            let row = api_row(&tx, cache, dist_id, &f.path, f.kind).map_err(&err)?;
            row.runtime_set.insert(slot);
            if row.kind == ApiKind::Unknown && f.kind != ApiKind::Unknown {
                row.kind = f.kind;
            }
            write_api(&tx, row).map_err(&err)?;
        }
        // Links join the static ones: a link holds in a release if either reading saw it.
        for (table, pairs, sets) in [
            (PAIR_TABLES_LOAD[0], links.aliases, &mut cache.aliases),
            (PAIR_TABLES_LOAD[1], links.bases, &mut cache.bases),
        ] {
            for (from, to) in pairs {
                let (Some(a), Some(b)) = (cache.apis.get(from), cache.apis.get(to)) else {
                    continue;
                };
                let key = (a.id, b.id);
                let set = sets.entry(key).or_default();
                if !set.contains(slot) {
                    set.insert(slot);
                    write_pair(&tx, table, key, set).map_err(&err)?;
                }
            }
        }
        save_dictionary(&tx, dist_id, cache).map_err(&err)?;
        tx.execute(
            "UPDATE releases SET runtime_status = 'ok', runtime_detail = ?2 WHERE id = ?1",
            params![release_id, format!("{} names", findings.len())],
        )
        .map_err(&err)?;
        tx.commit().map_err(&err)
    }
}

/// Removes `slot` from every static set of the distribution (or every runtime set when
/// `runtime`), writing the rows that change.
fn clear_slot_in(
    tx: &Transaction<'_>,
    cache: &mut DistCache,
    dist_id: i64,
    slot: u32,
    runtime: bool,
) -> rusqlite::Result<()> {
    for row in cache.apis.values_mut() {
        let set = if runtime {
            &mut row.runtime_set
        } else {
            &mut row.static_set
        };
        if set.contains(slot) {
            set.remove(slot);
            write_api(tx, row)?;
        }
    }
    if runtime {
        return Ok(());
    }
    for (path, row) in cache.modules.iter_mut() {
        if row.releases.contains(slot) {
            row.releases.remove(slot);
            row.opaque.remove(slot);
            row.dynamic.remove(slot);
            write_module(tx, dist_id, path, row)?;
        }
    }
    for (table, sets) in
        PAIR_TABLES_LOAD
            .iter()
            .zip([&mut cache.aliases, &mut cache.bases, &mut cache.signatures])
    {
        for (key, set) in sets.iter_mut() {
            if set.contains(slot) {
                set.remove(slot);
                write_pair(tx, *table, *key, set)?;
            }
        }
    }
    for (name, set) in cache.import_names.iter_mut() {
        if set.contains(slot) {
            set.remove(slot);
            tx.prepare_cached(
                "UPDATE import_names SET releases = ?3 WHERE dist_id = ?1 AND name = ?2",
            )?
            .execute(params![dist_id, name, set.encode()])?;
        }
    }
    Ok(())
}

/// The cached row of `path`, inserted (with empty release sets) if the bank lacks it.
fn api_row<'c>(
    tx: &Transaction<'_>,
    cache: &'c mut DistCache,
    dist_id: i64,
    path: &str,
    kind: ApiKind,
) -> rusqlite::Result<&'c mut ApiRow> {
    if !cache.apis.contains_key(path) {
        tx.prepare_cached(
            "INSERT INTO apis (dist_id, kind, static, runtime) VALUES (?1, ?2, x'', x'')",
        )?
        .execute(params![dist_id, kind_code(kind)])?;
        let id = tx.last_insert_rowid();
        cache.dictionary.insert(path, id);
        cache.dictionary_grew = true;
        cache.apis.insert(
            path.to_string(),
            ApiRow {
                id,
                kind,
                static_set: ReleaseSet::new(),
                runtime_set: ReleaseSet::new(),
            },
        );
    }
    Ok(cache.apis.get_mut(path).expect("inserted above"))
}

/// Writes the distribution's path dictionary back if it gained paths.
fn save_dictionary(
    tx: &Transaction<'_>,
    dist_id: i64,
    cache: &mut DistCache,
) -> rusqlite::Result<()> {
    if cache.dictionary_grew {
        tx.prepare_cached("INSERT OR REPLACE INTO api_paths (dist_id, paths) VALUES (?1, ?2)")?
            .execute(params![dist_id, cache.dictionary.encode()])?;
        cache.dictionary_grew = false;
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
    tx.prepare_cached("INSERT INTO signatures (hash, text) VALUES (?1, ?2)")?
        .execute(params![hash, text])?;
    Ok(tx.last_insert_rowid())
}

fn write_api(tx: &Transaction<'_>, row: &ApiRow) -> rusqlite::Result<()> {
    tx.prepare_cached("UPDATE apis SET kind = ?2, static = ?3, runtime = ?4 WHERE id = ?1")?
        .execute(params![
            row.id,
            kind_code(row.kind),
            row.static_set.encode(),
            row.runtime_set.encode()
        ])?;
    Ok(())
}

fn write_module(
    tx: &Transaction<'_>,
    dist_id: i64,
    path: &str,
    row: &ModuleRow,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT OR REPLACE INTO modules (dist_id, path, releases, opaque, dynamic) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        dist_id,
        path,
        row.releases.encode(),
        row.opaque.encode(),
        row.dynamic.encode()
    ])?;
    Ok(())
}

fn write_pair(
    tx: &Transaction<'_>,
    (table, first, second): (&str, &str, &str),
    key: (i64, i64),
    set: &ReleaseSet,
) -> rusqlite::Result<()> {
    let sql =
        format!("INSERT OR REPLACE INTO {table} ({first}, {second}, releases) VALUES (?1, ?2, ?3)");
    tx.prepare_cached(&sql)?
        .execute(params![key.0, key.1, set.encode()])?;
    Ok(())
}

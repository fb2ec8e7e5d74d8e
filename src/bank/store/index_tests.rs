//! Schema 5's read paths: dictionaries read block by block, member indexes, stored open
//! classes. Each must answer exactly as reading the whole dictionary and scanning the rows
//! did; a bank of schema 4 migrates with the same answers; what is missing falls back to the
//! old way and what is damaged is reported.

use std::collections::BTreeSet;

use rusqlite::{params, Connection};

use super::tests::Bank;
use super::*;
use crate::bank::flow::ApiKind;

/// Twelve releases of a package with classes, bases, aliases and members of common names,
/// each release adding paths (so the dictionary has several chunks, each of several blocks).
fn grown_bank() -> Bank {
    let versions: Vec<String> = (0..12).map(|i| format!("1.{i}")).collect();
    let names: Vec<&str> = versions.iter().map(String::as_str).collect();
    let mut bank = Bank::new(&names);
    for (i, v) in versions.iter().enumerate() {
        let mut files: Vec<(String, String)> = Vec::new();
        let mut init = String::from("from .m0 import C0_0 as Alias\n");
        for m in 0..=(i / 2) {
            let mut src = format!(
                "class Base{m}:\n    def plot(self): pass\n    def mean(self): pass\n    def v{i}(self): pass\n"
            );
            for k in 0..25 {
                src.push_str(&format!(
                    "class C{m}_{k}(Base{m}):\n    def fit(self, x, y=None): pass\n"
                ));
                if (k + i) % 2 == 0 {
                    src.push_str("    def plot(self): pass\n");
                }
                src.push_str(&format!("    def own_{k}(self): pass\n    attr_{i} = 1\n"));
            }
            // A function's attribute: a member name whose owner is no class.
            src.push_str("def mean(): pass\nmean.plot = 1\n");
            if i % 3 == 0 {
                src.push_str("def __getattr__(name):\n    return _served(name)\n");
            }
            files.push((format!("pkg/m{m}.py"), src));
            init.push_str(&format!("from . import m{m}\n"));
        }
        files.push(("pkg/__init__.py".into(), init));
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, s)| (p.as_str(), s.as_str()))
            .collect();
        bank.write(v, &files);
    }
    bank
}

/// Every answer the resolver asks of `dist`, for `paths`, `members` and keywords.
fn answers(store: &Store, dist: DistId, paths: &[String], members: &[&str]) -> Vec<Presence> {
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let mut out = store.api_presence(dist, &refs).unwrap();
    for m in members {
        out.push(store.member_presence(dist, m).unwrap());
    }
    for p in paths.iter().filter(|p| p.ends_with(".fit")).take(20) {
        out.push(store.keyword_presence(dist, p, "y").unwrap());
        out.push(store.keyword_presence(dist, p, "z").unwrap());
    }
    out
}

const MEMBERS: &[&str] = &[
    "plot", "mean", "fit", "own_3", "attr_5", "v11", "absent", "Ghost",
];

/// The paths of `dist`, plus some it lacks.
fn probe_paths(store: &Store, dist: DistId) -> Vec<String> {
    let mut paths: Vec<String> = store
        .path_dictionary(dist)
        .unwrap()
        .iter()
        .map(|(p, _)| p.to_string())
        .collect();
    paths.extend(
        [
            "pkg.m0.C0_0.ix",
            "pkg.Alias.plot",
            "pkg.Alias.nothing",
            "pkg.zzz",
            "aaa",
            "pkg.m5.C5_24.fit.x",
        ]
        .map(String::from),
    );
    paths
}

#[test]
fn blocks_answer_as_the_whole_dictionary() {
    let mut bank = grown_bank();
    // A member written before its owner is an API (introspection found `Ghost.attr` with
    // 199 other names in one release; static reading found `Ghost` later): its chunk's
    // member index does not know the owner.
    let mut found: Vec<(String, ApiKind)> = (0..199)
        .map(|i| (format!("pkg.extra_{i:03}"), ApiKind::Function))
        .collect();
    found.push(("pkg.Ghost.attr".into(), ApiKind::Attribute));
    let found: Vec<(&str, ApiKind)> = found.iter().map(|(p, k)| (p.as_str(), *k)).collect();
    bank.runtime("1.10", &found, RuntimeLinks::default());
    bank.write(
        "1.11",
        &[("pkg/__init__.py", "class Ghost:\n    attr = 1\n")],
    );

    let store = &bank.store;
    let whole = store.path_dictionary(bank.dist).unwrap();
    let index = store.path_index(bank.dist).unwrap();
    let chunks = store.path_chunks(bank.dist).unwrap();
    assert!(chunks.len() >= 3, "{} chunks", chunks.len());
    assert_eq!(index.len(), whole.len());
    assert_eq!(index.id_range(), whole.id_range());
    for (path, id) in whole.iter() {
        assert_eq!(index.get(store, path).unwrap(), Some(id), "{path}");
        assert_eq!(index.path(store, id).unwrap().as_deref(), Some(path));
    }
    for absent in ["pkg.m0.C0_0.ix", "pkg.zz", "", "pkg.m0.C0_0.fit."] {
        assert_eq!(index.get(store, absent).unwrap(), None);
    }
    assert_eq!(index.path(store, -5).unwrap(), None);
    for member in MEMBERS {
        let suffix = format!(".{member}");
        let want: BTreeSet<(i64, i64)> = whole
            .ending_with(&suffix)
            .filter_map(|(p, id)| Some((whole.get(&p[..p.len() - suffix.len()])?, id)))
            .collect();
        let got: BTreeSet<(i64, i64)> = index
            .members_named(store, member)
            .unwrap()
            .into_iter()
            .collect();
        assert_eq!(got, want, "{member}");
    }
    let ghost = (
        whole.get("pkg.Ghost").unwrap(),
        whole.get("pkg.Ghost.attr").unwrap(),
    );
    assert!(index.members_named(store, "attr").unwrap().contains(&ghost));
}

#[test]
fn a_lookup_reads_few_blocks() {
    let bank = grown_bank();
    let store = &bank.store;
    let index = store.path_index(bank.dist).unwrap();
    index.get(store, "pkg.m3.C3_7.fit").unwrap().unwrap();
    assert!(index.blocks_read() <= 2, "{}", index.blocks_read());
    for k in 0..25 {
        index.get(store, &format!("pkg.m3.C3_{k}.fit")).unwrap();
    }
    let total: usize = store
        .path_chunks(bank.dist)
        .unwrap()
        .iter()
        .map(|(_, ids)| ids.len().div_ceil(path_blocks::BLOCK_ENTRIES))
        .sum();
    assert!(
        index.blocks_read() * 4 < total,
        "{} of {total}",
        index.blocks_read()
    );
    // A member query reads its member blocks, not the paths.
    let before = index.blocks_read();
    index.members_named(store, "own_3").unwrap();
    assert_eq!(index.blocks_read(), before);
}

/// Rewrites the bank at `path` as schema 4 stored it: each chunk one stream, no blocks, no
/// member indexes, no stored open classes.
fn downgrade_to_schema_4(bank: &Bank) {
    let store = &bank.store;
    let whole = store.path_dictionary(bank.dist).unwrap();
    let chunks: Vec<(i64, Vec<u8>)> = store
        .path_chunks(bank.dist)
        .unwrap()
        .into_iter()
        .map(|(chunk, ids)| {
            let mut part = PathDictionary::default();
            for id in ids {
                part.insert(whole.path(id).unwrap(), id);
            }
            (chunk, part.encode())
        })
        .collect();
    let conn = Connection::open(store.path()).unwrap();
    conn.execute_batch(
        "DELETE FROM api_path_chunks;
         DROP TABLE api_path_blocks;
         DROP TABLE api_member_blocks;
         DROP TABLE open_classes;
         ALTER TABLE api_path_chunks DROP COLUMN members;
         DROP TABLE deprecations;
         DROP TABLE import_time;
         ALTER TABLE releases DROP COLUMN import_time;
         ALTER TABLE apis DROP COLUMN seal; ALTER TABLE modules DROP COLUMN seal;
         ALTER TABLE import_names DROP COLUMN seal; ALTER TABLE aliases DROP COLUMN seal;
         ALTER TABLE class_bases DROP COLUMN seal; ALTER TABLE signatures DROP COLUMN seal;
         ALTER TABLE api_signatures DROP COLUMN seal;
         PRAGMA user_version = 4;",
    )
    .unwrap();
    for (chunk, blob) in chunks {
        conn.execute(
            "INSERT INTO api_path_chunks (dist_id, chunk, paths_count, paths) VALUES (?1, ?2, 0, ?3)",
            params![bank.dist, chunk, blob],
        )
        .unwrap();
    }
}

#[test]
fn a_schema_4_bank_migrates_with_the_same_answers() {
    let bank = grown_bank();
    let paths = probe_paths(&bank.store, bank.dist);
    let before = answers(&bank.store, bank.dist, &paths, MEMBERS);
    let path = bank.store.path().to_path_buf();
    downgrade_to_schema_4(&bank);

    // Whole chunks in a bank of schema 5 (none is, unless a chunk failed to migrate) are
    // read whole, and answer alike; without stored open classes, the rows are scanned.
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE api_path_blocks (id INTEGER PRIMARY KEY, dist_id INTEGER, chunk INTEGER, block INTEGER, paths BLOB, UNIQUE (dist_id, chunk, block));
         CREATE TABLE api_member_blocks (id INTEGER PRIMARY KEY, dist_id INTEGER, chunk INTEGER, block INTEGER, entries BLOB, UNIQUE (dist_id, chunk, block));
         CREATE TABLE open_classes (dist_id INTEGER PRIMARY KEY, releases BLOB NOT NULL);
         ALTER TABLE api_path_chunks ADD COLUMN members BLOB;
         PRAGMA user_version = 5;",
    )
    .unwrap();
    let unmigrated = Store::open_read_only(&path).unwrap();
    assert_eq!(answers(&unmigrated, bank.dist, &paths, MEMBERS), before);
    drop(unmigrated);
    conn.execute_batch(
        "DROP TABLE api_path_blocks; DROP TABLE api_member_blocks; DROP TABLE open_classes;
         ALTER TABLE api_path_chunks DROP COLUMN members;
         DROP TABLE deprecations;
         DROP TABLE import_time; ALTER TABLE releases DROP COLUMN import_time;
         ALTER TABLE apis DROP COLUMN seal; ALTER TABLE modules DROP COLUMN seal;
         ALTER TABLE import_names DROP COLUMN seal; ALTER TABLE aliases DROP COLUMN seal;
         ALTER TABLE class_bases DROP COLUMN seal; ALTER TABLE signatures DROP COLUMN seal;
         ALTER TABLE api_signatures DROP COLUMN seal;
         PRAGMA user_version = 4;",
    )
    .unwrap();
    drop(conn);

    // Opened by this nbenv, it is migrated once, then read block by block.
    let store = Store::open_read_only(&path).unwrap();
    assert_eq!(schema::version(store.conn()).unwrap(), SCHEMA_VERSION);
    let blocked: i64 = store
        .conn()
        .query_row("SELECT COUNT(*) FROM api_path_blocks", [], |r| r.get(0))
        .unwrap();
    assert!(blocked > 0);
    assert!(store.stored_open_classes(bank.dist).unwrap().is_some());
    assert_eq!(answers(&store, bank.dist, &paths, MEMBERS), before);
    let index = store.path_index(bank.dist).unwrap();
    assert!(index.chunks_blocked());
    // Its chunks became one.
    assert_eq!(store.path_chunks(bank.dist).unwrap().len(), 1);
}

#[test]
fn missing_indexes_fall_back_and_damaged_ones_are_reported() {
    let bank = grown_bank();
    let paths = probe_paths(&bank.store, bank.dist);
    let before = answers(&bank.store, bank.dist, &paths, MEMBERS);
    let path = bank.store.path().to_path_buf();
    let conn = Connection::open(&path).unwrap();
    let reopen = || Store::open_read_only(&path).unwrap();

    // No member indexes, no stored open classes: paths are read and rows scanned instead.
    conn.execute_batch("UPDATE api_path_chunks SET members = NULL; DELETE FROM open_classes;")
        .unwrap();
    let store = reopen();
    assert!(store.stored_open_classes(bank.dist).unwrap().is_none());
    assert_eq!(answers(&store, bank.dist, &paths, MEMBERS), before);

    // A block gone: the bank is reported damaged, not read as lacking those paths.
    conn.execute("DELETE FROM api_path_blocks WHERE block = 1", [])
        .unwrap();
    let store = reopen();
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    assert!(matches!(
        store.api_presence(bank.dist, &refs),
        Err(StoreError::Corrupt { .. })
    ));

    let bank = grown_bank();
    let conn = Connection::open(bank.store.path()).unwrap();
    conn.execute("DELETE FROM api_member_blocks WHERE block = 0", [])
        .unwrap();
    let store = Store::open_read_only(bank.store.path()).unwrap();
    assert!(matches!(
        store.member_presence(bank.dist, "fit"),
        Err(StoreError::Corrupt { .. })
    ));
    conn.execute_batch(
        "UPDATE open_classes SET releases = x'ff'; UPDATE api_path_chunks SET members = x'00ff' WHERE chunk = 0;",
    )
    .unwrap();
    let store = Store::open_read_only(bank.store.path()).unwrap();
    assert!(matches!(
        store.member_presence(bank.dist, "plot"),
        Err(StoreError::Corrupt { .. })
    ));
    conn.execute(
        "UPDATE api_path_chunks SET paths = x'006e62656e762d706174682d626c6f636b732d310a00'",
        [],
    )
    .unwrap();
    let store = Store::open_read_only(bank.store.path()).unwrap();
    assert!(matches!(
        store.api_presence(bank.dist, &["pkg.m0"]),
        Err(StoreError::Corrupt { .. })
    ));
}

/// What writers store of open classes is what a scan of the rows finds, after static
/// writes, introspection (which settles a class), and a release indexed again.
#[test]
fn writers_keep_open_classes_as_a_scan_finds_them() {
    let mut bank = Bank::new(&["1.0", "2.0", "3.0"]);
    let open = "def _ops(cls):\n    for n in ['add']:\n        setattr(cls, n, None)\n\
                class Frame:\n    def head(self): pass\n_ops(Frame)\n";
    let scan = |bank: &Bank| {
        let index = bank.store.path_index(bank.dist).unwrap();
        bank.store.read_open_classes(bank.dist, &index).unwrap()
    };
    let stored = |bank: &Bank| bank.store.stored_open_classes(bank.dist).unwrap().unwrap();
    bank.write("1.0", &[("pkg/__init__.py", open)]);
    bank.write("2.0", &[("pkg/__init__.py", open)]);
    assert_eq!(stored(&bank).len(), 2);
    assert_eq!(stored(&bank), scan(&bank));
    bank.runtime(
        "1.0",
        &[
            ("pkg.Frame", ApiKind::Class),
            ("pkg.Frame.add", ApiKind::Method),
        ],
        RuntimeLinks::default(),
    );
    assert_eq!(stored(&bank).len(), 1);
    assert_eq!(stored(&bank), scan(&bank));
    bank.write("2.0", &[("pkg/__init__.py", "class Frame:\n    pass\n")]);
    bank.write("3.0", &[("pkg/__init__.py", open)]);
    assert_eq!(stored(&bank), scan(&bank));
}

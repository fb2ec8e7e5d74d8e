//! The store's writer, resolver and queries on small banks made here: releases summarized
//! from inline sources, written, read back.

use std::collections::HashMap;
use std::str::FromStr;

use pep440_rs::Version;

use super::*;
use crate::bank::extract::{summarize_source, ArchiveKind, FileSummary, ReleaseLayout};
use crate::bank::flow::{analyze, ApiKind, ReleaseApis, ReleaseInput};
use crate::names::DistName;

/// The APIs of a release made of `files` (path, source).
pub(super) fn apis_of(files: &[(&str, &str)]) -> ReleaseApis {
    let layout = ReleaseLayout::new(ArchiveKind::Wheel, files.iter().map(|(p, _)| *p));
    let summaries: HashMap<&str, FileSummary> = files
        .iter()
        .map(|(p, src)| (*p, summarize_source(src, p.ends_with(".pyi"))))
        .collect();
    analyze(&ReleaseInput::from_layout(&layout, |p| summaries.get(p)))
}

pub(super) struct Bank {
    pub _dir: tempfile::TempDir,
    pub store: Store,
    pub dist: DistId,
    pub rows: Vec<ReleaseRow>,
}

impl Bank {
    /// A bank with distribution `pkg` registered at `versions`.
    pub fn new(versions: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("bank.sqlite3")).unwrap();
        let infos: Vec<ReleaseInfo> = versions
            .iter()
            .map(|v| ReleaseInfo {
                version: Version::from_str(v).unwrap(),
                upload_time: None,
                requires_python: None,
                yanked: None,
            })
            .collect();
        let (dist, rows) = store
            .register(&DistName::new("pkg").unwrap(), "http://index/", &infos)
            .unwrap();
        Self {
            _dir: dir,
            store,
            dist,
            rows,
        }
    }

    pub fn row(&self, version: &str) -> &ReleaseRow {
        let v = Version::from_str(version).unwrap();
        self.rows.iter().find(|r| r.version == v).unwrap()
    }

    pub fn write(&mut self, version: &str, files: &[(&str, &str)]) {
        let apis = apis_of(files);
        let row = self.row(version).clone();
        BankWriter::new(&mut self.store)
            .write_release(&indexed(self.dist, &row, &apis))
            .unwrap();
    }

    pub fn runtime(&mut self, version: &str, names: &[(&str, ApiKind)], links: RuntimeLinks<'_>) {
        let row = self.row(version).clone();
        let findings: Vec<RuntimeFinding> = names
            .iter()
            .map(|(p, k)| RuntimeFinding {
                path: p.to_string(),
                kind: *k,
            })
            .collect();
        BankWriter::new(&mut self.store)
            .write_runtime(self.dist, row.id, row.slot, &findings, &links)
            .unwrap();
    }

    /// (present, unknown, absent) versions of `api`, as text.
    fn states(&self, api: &str) -> (String, String, String) {
        let reports = self.store.query_api(api).unwrap();
        let show = |runs: &[VersionRun]| {
            runs.iter()
                .map(|r| format!("{}-{}", r.first, r.last))
                .collect::<Vec<_>>()
                .join(",")
        };
        match reports.first() {
            Some(r) => (show(&r.present), show(&r.unknown), show(&r.absent)),
            None => Default::default(),
        }
    }
}

/// What indexing `row` of distribution `dist` produced, as the writer takes it.
fn indexed<'a>(dist: DistId, row: &ReleaseRow, apis: &'a ReleaseApis) -> IndexedRelease<'a> {
    IndexedRelease {
        dist_id: dist,
        release_id: row.id,
        slot: row.slot,
        file_name: "pkg.whl",
        file_sha256: None,
        apis,
        import_names: &[],
        requires_dist: &[],
        file_requires_dist: &[],
        requires_python: None,
        no_sources: None,
        display_name: None,
        counts: SourceCounts::default(),
    }
}

fn s(text: &str) -> String {
    text.to_string()
}

#[test]
fn writer_replaces_what_static_reading_said_and_keeps_what_introspection_found() {
    let mut bank = Bank::new(&["1.0", "2.0"]);
    bank.write(
        "1.0",
        &[("pkg/__init__.py", "def old(): pass\ndef kept(): pass\n")],
    );
    bank.write("2.0", &[("pkg/__init__.py", "def kept(): pass\n")]);
    bank.runtime(
        "1.0",
        &[("pkg.made_at_run_time", ApiKind::Function)],
        RuntimeLinks::default(),
    );
    assert_eq!(bank.states("pkg.old"), (s("1.0-1.0"), s(""), s("2.0-2.0")));

    // 1.0 indexed again without `old`: static reading's word is replaced...
    bank.write("1.0", &[("pkg/__init__.py", "def kept(): pass\n")]);
    assert_eq!(bank.states("pkg.old"), Default::default());
    assert_eq!(bank.states("pkg.kept"), (s("1.0-2.0"), s(""), s("")));
    // ...and introspection's kept.
    assert_eq!(
        bank.states("pkg.made_at_run_time"),
        (s("1.0-1.0"), s(""), s("2.0-2.0"))
    );
}

#[test]
fn a_failed_write_leaves_no_stale_cache_behind() {
    let mut bank = Bank::new(&["1.0", "2.0"]);
    bank.write("1.0", &[("pkg/__init__.py", "def f(): pass\n")]);
    let apis = apis_of(&[("pkg/__init__.py", "def g(): pass\n")]);
    let row = bank.row("2.0").clone();
    let mut writer = BankWriter::new(&mut bank.store);
    // A distribution id the bank lacks: the foreign keys refuse the transaction.
    let failed = writer.write_release(&indexed(DistId(bank.dist.0 + 1000), &row, &apis));
    assert!(failed.is_err());
    // The same writer goes on with what the file says, not with what it had cached.
    writer
        .write_release(&indexed(bank.dist, &row, &apis))
        .unwrap();
    drop(writer);
    assert_eq!(bank.states("pkg.f"), (s("1.0-1.0"), s(""), s("2.0-2.0")));
    assert_eq!(bank.states("pkg.g"), (s("2.0-2.0"), s(""), s("1.0-1.0")));
}

#[test]
fn resolver_follows_aliases_and_bases_release_by_release() {
    let mut bank = Bank::new(&["1.0", "2.0", "3.0"]);
    let core =
        "class Base:\n    def score(self): pass\nclass Model(Base):\n    def fit(self): pass\n";
    bank.write(
        "1.0",
        &[
            ("pkg/__init__.py", "from .core import Model\n"),
            ("pkg/core.py", core),
        ],
    );
    // 2.0 moves `score` into `Model` itself; 3.0 drops it.
    bank.write(
        "2.0",
        &[
            ("pkg/__init__.py", "from .core import Model\n"),
            (
                "pkg/core.py",
                "class Model:\n    def fit(self): pass\n    def score(self): pass\n",
            ),
        ],
    );
    bank.write(
        "3.0",
        &[
            ("pkg/__init__.py", "from .core import Model\n"),
            ("pkg/core.py", "class Model:\n    def fit(self): pass\n"),
        ],
    );
    assert_eq!(
        bank.states("pkg.Model.score"),
        (s("1.0-2.0"), s(""), s("3.0-3.0"))
    );
    let reports = bank.store.query_api("pkg.Model.score").unwrap();
    let defined: Vec<(String, String)> = reports[0]
        .canonical
        .iter()
        .map(|c| {
            (
                c.path.clone(),
                format!("{}-{}", c.releases[0].first, c.releases[0].last),
            )
        })
        .collect();
    assert_eq!(
        defined,
        [
            (s("pkg.core.Base.score"), s("1.0-1.0")),
            (s("pkg.core.Model.score"), s("2.0-2.0"))
        ]
    );
}

#[test]
fn open_names_make_unknown_until_introspection_lists_the_module() {
    let mut bank = Bank::new(&["1.0", "2.0"]);
    bank.write("1.0", &[("pkg/__init__.py", "def f(): pass\n")]);
    bank.write(
        "2.0",
        &[(
            "pkg/__init__.py",
            "def __getattr__(name):\n    return _served(name)\n",
        )],
    );
    assert_eq!(bank.states("pkg.f"), (s("1.0-1.0"), s("2.0-2.0"), s("")));
    // Introspection imported and listed `pkg` in 2.0 without finding `f`: absent there.
    bank.runtime(
        "2.0",
        &[("pkg", ApiKind::Module)],
        RuntimeLinks {
            listed: &[s("pkg")],
            modules: &[s("pkg")],
            ..RuntimeLinks::default()
        },
    );
    assert_eq!(bank.states("pkg.f"), (s("1.0-1.0"), s(""), s("2.0-2.0")));
    assert!(bank
        .store
        .releases_with_unknowns(bank.dist)
        .unwrap()
        .is_empty());
}

/// A module `__getattr__` that serves only the names it tests for keeps the module closed:
/// what it serves is present (`pkg.np` is numpy, another distribution's module), a typo
/// (`pkg.dataframe`) and a name removed since (`pkg.f`) are absent, not unknown.
#[test]
fn a_module_getattr_serving_listed_names_leaves_other_names_absent() {
    let mut bank = Bank::new(&["1.0", "2.0"]);
    bank.write(
        "1.0",
        &[("pkg/__init__.py", "def f(): pass\nclass DataFrame: pass\n")],
    );
    bank.write(
        "2.0",
        &[(
            "pkg/__init__.py",
            "class DataFrame: pass\ndef __getattr__(name):\n    if name == 'np':\n        \
             import numpy as np\n        return np\n    elif name == 'old':\n        return 1\n    \
             raise AttributeError(name)\n",
        )],
    );
    assert_eq!(bank.states("pkg.f"), (s("1.0-1.0"), s(""), s("2.0-2.0")));
    assert_eq!(bank.states("pkg.old"), (s("2.0-2.0"), s(""), s("1.0-1.0")));
    assert!(bank.store.query_api("pkg.dataframe").unwrap().is_empty());
}

/// A submodule served lazily (`importlib.import_module`, as scipy does) is that submodule,
/// with its names, not an opaque value.
#[test]
fn a_submodule_a_module_getattr_imports_keeps_its_names() {
    let mut bank = Bank::new(&["1.0"]);
    bank.write(
        "1.0",
        &[
            (
                "pkg/__init__.py",
                "import importlib\ndef __getattr__(name):\n    if name in ('linalg',):\n        \
                 return importlib.import_module('.' + name, __name__)\n    raise AttributeError(name)\n",
            ),
            ("pkg/linalg.py", "def solve(a, b): pass\n"),
        ],
    );
    assert_eq!(
        bank.states("pkg.linalg.solve"),
        (s("1.0-1.0"), s(""), s(""))
    );
    assert!(bank.store.query_api("pkg.linalg.slove").unwrap().is_empty());
}

#[test]
fn stats_count_unknown_pairs_through_the_enclosing_name() {
    let mut bank = Bank::new(&["1.0", "2.0"]);
    bank.write(
        "1.0",
        &[("pkg/__init__.py", "def f(): pass\ndef g(): pass\n")],
    );
    bank.write(
        "2.0",
        &[(
            "pkg/__init__.py",
            "def f(): pass\ndef __getattr__(name): pass\n",
        )],
    );
    let stats = bank.store.stats().unwrap();
    // `pkg.g` in 2.0 is the one unknown pair; `pkg`, `pkg.f` and `pkg.g` are present 5 times.
    assert_eq!(stats.unknown_pairs, 1);
    assert_eq!(stats.naive_rows, 5);
    assert_eq!(
        stats.unknown_by_distribution[0].distribution.as_str(),
        "pkg"
    );
}

/// pandas 1.0's `DataFrame` is open to static reading (a function gives it members of computed
/// names): `DataFrame.ix` is unknown until introspection lists the class's members, absent
/// after. The README's `pandas.DataFrame.ix` example showed "unknown in 1.0.0" before this.
#[test]
fn open_classes_are_settled_by_introspection_finding_the_class() {
    let mut bank = Bank::new(&["1.0"]);
    let source = "def _ops(cls):\n    for n in ['add']:\n        setattr(cls, n, None)\n\
                  class Frame:\n    def head(self): pass\n_ops(Frame)\n";
    bank.write("1.0", &[("pkg/__init__.py", source)]);
    assert_eq!(bank.states("pkg.Frame.ix"), (s(""), s("1.0-1.0"), s("")));
    // Introspection found the class, with its members, but no `ix`.
    bank.runtime(
        "1.0",
        &[
            ("pkg.Frame", ApiKind::Class),
            ("pkg.Frame.add", ApiKind::Method),
            ("pkg.Frame.head", ApiKind::Method),
        ],
        RuntimeLinks::default(),
    );
    // Absent from every release: the query reports no distribution for it.
    assert!(bank.store.query_api("pkg.Frame.ix").unwrap().is_empty());
    assert_eq!(bank.states("pkg.Frame.add"), (s("1.0-1.0"), s(""), s("")));
}

/// Each release adds paths; they are written as chunks merged like a binary counter, so the
/// dictionary stays whole, with few chunks, whether one writer writes them all or a new
/// writer (a new run) picks up the chunks that are stored.
#[test]
fn path_dictionary_grows_in_few_chunks_and_stays_whole() {
    let versions: Vec<String> = (0..40).map(|i| format!("1.{i}")).collect();
    let names: Vec<&str> = versions.iter().map(String::as_str).collect();
    let mut bank = Bank::new(&names);
    let mut source = String::new();
    for (i, v) in versions.iter().enumerate() {
        // Release i has every function of the ones before, and i + 1 new ones.
        for k in 0..=i {
            source.push_str(&format!("def f{i}_{k}(): pass\n"));
        }
        let apis = apis_of(&[("pkg/__init__.py", &source)]);
        let row = bank.row(v).clone();
        if i % 2 == 0 {
            bank.write(v, &[("pkg/__init__.py", &source)]);
        } else {
            let mut writer = BankWriter::new(&mut bank.store);
            writer
                .write_release(&indexed(bank.dist, &row, &apis))
                .unwrap();
            // The same writer again: nothing new, nothing written.
            writer
                .write_release(&indexed(bank.dist, &row, &apis))
                .unwrap();
        }
    }
    let total: usize = (1..=40).sum::<usize>() + 1;
    let dictionary = bank.store.path_dictionary(bank.dist).unwrap();
    assert_eq!(dictionary.len(), total);
    let chunks = bank.store.path_chunks(bank.dist).unwrap();
    let sizes: Vec<usize> = chunks.iter().map(|(_, ids)| ids.len()).collect();
    assert_eq!(sizes.iter().sum::<usize>(), total);
    assert!(sizes.windows(2).all(|w| w[0] > w[1]), "{sizes:?}");
    assert!(sizes.len() <= 10, "{sizes:?}");
    assert_eq!(bank.states("pkg.f0_0"), (s("1.0-1.39"), s(""), s("")));
    assert_eq!(
        bank.states("pkg.f39_39"),
        (s("1.39-1.39"), s(""), s("1.0-1.38"))
    );
}

/// A member asked of a value whose class is unknown is looked for under every class of the
/// distribution; with hundreds of owners (more than one batch of rows), only classes count,
/// and a later write is seen by the same store.
#[test]
fn member_presence_reads_every_owning_class_and_sees_later_writes() {
    let mut bank = Bank::new(&["1.0", "2.0", "3.0"]);
    let mut source = String::new();
    for i in 0..300 {
        source.push_str(&format!("class C{i}:\n    def shape(self): pass\n"));
    }
    // A function's attribute is no class member.
    source.push_str("def f(): pass\nf.size = 3\n");
    bank.write("1.0", &[("pkg/__init__.py", &source)]);
    bank.write(
        "2.0",
        &[(
            "pkg/__init__.py",
            "class C299:\n    def shape(self): pass\ndef f(): pass\nf.size = 3\n",
        )],
    );
    let rows = bank.rows.clone();
    let versions = |set: &ReleaseSet| -> Vec<String> {
        rows.iter()
            .filter(|r| set.contains(r.slot))
            .map(|r| r.version.to_string())
            .collect()
    };
    let shape = bank.store.member_presence(bank.dist, "shape").unwrap();
    assert_eq!(versions(&shape.present), ["1.0", "2.0"]);
    assert_eq!(versions(&shape.not_indexed), ["3.0"]);
    let size = bank.store.member_presence(bank.dist, "size").unwrap();
    assert!(size.present.is_empty());
    assert_eq!(versions(&size.absent), ["1.0", "2.0"]);

    bank.write("3.0", &[("pkg/__init__.py", "class D:\n    shape = 1\n")]);
    let shape = bank.store.member_presence(bank.dist, "shape").unwrap();
    assert_eq!(versions(&shape.present), ["1.0", "2.0", "3.0"]);
    assert!(shape.not_indexed.is_empty());
}

/// A member no class lists is unknown where some class is open to static reading (read by a
/// range scan of the distribution's rows), and not where every indexed release has it.
#[test]
fn member_presence_is_unknown_only_where_an_open_class_could_have_it() {
    let mut bank = Bank::new(&["1.0", "2.0"]);
    let open = "def _ops(cls):\n    for n in ['add']:\n        setattr(cls, n, None)\n\
                class Frame:\n    def head(self): pass\n_ops(Frame)\n";
    bank.write("1.0", &[("pkg/__init__.py", open)]);
    bank.write(
        "2.0",
        &[(
            "pkg/__init__.py",
            "class Frame:\n    def head(self): pass\n",
        )],
    );
    let rows = bank.rows.clone();
    let versions = |set: &ReleaseSet| -> Vec<String> {
        rows.iter()
            .filter(|r| set.contains(r.slot))
            .map(|r| r.version.to_string())
            .collect()
    };
    let ix = bank.store.member_presence(bank.dist, "ix").unwrap();
    assert_eq!(versions(&ix.unknown), ["1.0"]);
    assert_eq!(versions(&ix.absent), ["2.0"]);
    let head = bank.store.member_presence(bank.dist, "head").unwrap();
    assert_eq!(versions(&head.present), ["1.0", "2.0"]);
    assert!(head.unknown.is_empty() && head.absent.is_empty());
}

#[test]
fn what_a_release_imports_is_kept_per_release_and_replaced_when_indexed_again() {
    let mut bank = Bank::new(&["1.0", "2.0", "3.0"]);
    bank.write(
        "1.0",
        &[
            (
                "pkg/__init__.py",
                "import numpy as np\nfrom . import base\n",
            ),
            (
                "pkg/base.py",
                "from scipy import sparse\ntry:\n    import h5py\nexcept ImportError:\n    pass\n",
            ),
        ],
    );
    bank.write("2.0", &[("pkg/__init__.py", "import numpy\n")]);
    let slot = |bank: &Bank, v: &str| bank.row(v).slot;
    let read = |bank: &Bank, v: &str| bank.store.import_time(bank.dist, slot(bank, v)).unwrap();
    assert_eq!(
        read(&bank, "1.0"),
        Some(vec![s("numpy"), s("scipy.sparse")])
    );
    assert_eq!(read(&bank, "2.0"), Some(vec![s("numpy")]));
    // Not indexed: nothing is known, which is not "imports nothing".
    assert_eq!(read(&bank, "3.0"), None);
    bank.write("3.0", &[("pkg/__init__.py", "x = 1\n")]);
    assert_eq!(read(&bank, "3.0"), Some(vec![]));

    // Indexed again: what was read before goes.
    bank.write("1.0", &[("pkg/__init__.py", "import os\n")]);
    assert_eq!(read(&bank, "1.0"), Some(vec![s("os")]));
    assert_eq!(read(&bank, "2.0"), Some(vec![s("numpy")]));

    // A release indexed before the bank kept imports has no mark: not known.
    bank.store
        .conn()
        .execute(
            "UPDATE releases SET import_time = NULL WHERE id = ?1",
            [bank.row("2.0").id],
        )
        .unwrap();
    assert_eq!(read(&bank, "2.0"), None);
}

/// A shim's warning and template, and a renamed keyword, are kept per definition with the
/// releases whose bodies say them; a release indexed again keeps none of what it said before.
#[test]
fn deprecation_facts_are_kept_per_release_and_replaced_when_indexed_again() {
    let mut bank = Bank::new(&["1.0", "2.0", "3.0"]);
    let shim = "import warnings\ndef old(a):\n    warnings.warn('use a.new()', FutureWarning)\n    return a.new()\n\
                def hist(x, density=None, normed=None):\n    if normed is not None:\n        warnings.warn('normed is deprecated')\n        density = normed\n    return x\n";
    // 2.0 also forwards `pkg.widgets` to another module, as IPython 4 forwards
    // `IPython.html.widgets` to `ipywidgets`.
    let forward = "import sys\nsys.modules['pkg.widgets'] = ShimModule(src='pkg.widgets', mirror='widgetkit')\n";
    bank.write("1.0", &[("pkg/__init__.py", shim)]);
    bank.write(
        "2.0",
        &[("pkg/__init__.py", shim), ("pkg/html.py", forward)],
    );
    bank.write(
        "3.0",
        &[(
            "pkg/__init__.py",
            "def hist(x, density=None):\n    return x\n",
        )],
    );
    let read = |bank: &Bank| -> Vec<(String, String, Vec<String>)> {
        bank.store
            .deprecations(bank.dist)
            .unwrap()
            .into_iter()
            .map(|f| {
                let what = match f.fact {
                    DeprecationFact::Shim(s) => format!("shim {}", s.template.unwrap().expr),
                    DeprecationFact::KeywordRename(r) => format!("{} -> {}", r.old, r.new),
                    DeprecationFact::Mirror { mirror, by } => format!("mirror {mirror} by {by}"),
                };
                let versions = bank
                    .rows
                    .iter()
                    .filter(|r| f.releases.contains(r.slot))
                    .map(|r| r.version.to_string())
                    .collect();
                (f.path, what, versions)
            })
            .collect()
    };
    let both = vec![s("1.0"), s("2.0")];
    let mut found = read(&bank);
    found.sort();
    assert_eq!(
        found,
        [
            (s("pkg.hist"), s("normed -> density"), both.clone()),
            (s("pkg.old"), s("shim a.new()"), both.clone()),
            (
                s("pkg.widgets"),
                s("mirror widgetkit by pkg.html"),
                vec![s("2.0")]
            ),
        ]
    );
    let mirrors = bank
        .store
        .moves(&crate::names::DistName::new("pkg").unwrap())
        .unwrap()
        .unwrap()
        .mirrors;
    assert_eq!(
        mirrors
            .iter()
            .map(|m| format!("{} -> {} by {} in {}", m.module, m.mirror, m.by, m.last))
            .collect::<Vec<_>>(),
        ["pkg.widgets -> widgetkit by pkg.html in 2.0"]
    );
    // 2.0 indexed again, from a body that no longer warns.
    bank.write(
        "2.0",
        &[("pkg/__init__.py", "def old(a):\n    return a.new()\n")],
    );
    let mut found = read(&bank);
    found.sort();
    assert_eq!(
        found,
        [
            (s("pkg.hist"), s("normed -> density"), vec![s("1.0")]),
            (s("pkg.old"), s("shim a.new()"), vec![s("1.0")]),
        ]
    );
}

/// A bank of schema 7 has no `deprecations` table: its check passes without one, and
/// opening it to write adds it, empty.
#[test]
fn a_schema_7_bank_is_checked_as_it_is_and_migrates_to_an_empty_deprecations_table() {
    let mut bank = Bank::new(&["1.0"]);
    bank.write("1.0", &[("pkg/__init__.py", "def f(a):\n    return a\n")]);
    let path = bank.store.path().to_path_buf();
    drop(bank.store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("DROP TABLE deprecations; PRAGMA user_version = 7;")
        .unwrap();
    drop(conn);
    let store = Store::open_read_only_as_is(&path).unwrap();
    let report = store.check().unwrap();
    assert_eq!(report.schema, 7);
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    drop(store);
    let store = Store::open(&path).unwrap();
    assert_eq!(schema::version(store.conn()).unwrap(), SCHEMA_VERSION);
    assert!(store.deprecations(bank.dist).unwrap().is_empty());
}

/// A reader that finds the bank file empty while another process creates it (the file
/// exists from before its schema is in) waits for that writer instead of calling the file
/// "not an nbenv bank": two `infer`s started at once on a new bank both run.
#[test]
fn a_reader_waits_for_the_bank_another_process_is_creating() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bank.sqlite3");
    let made_elsewhere = dir.path().join("other.sqlite3");
    drop(Store::open(&made_elsewhere).unwrap());

    let creating = lock::WriterLock::new(&path, LockPolicy::NoWait)
        .acquire()
        .unwrap();
    drop(Connection::open(&path).unwrap());
    assert!(path.exists());
    let reading = path.clone();
    let reader = std::thread::spawn(move || Store::open_read_only(&reading).map(drop));
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!reader.is_finished(), "the reader waits for the writer");
    std::fs::copy(&made_elsewhere, &path).unwrap();
    drop(creating);
    reader.join().unwrap().unwrap();

    // An empty file nobody is writing is still no bank.
    let empty = dir.path().join("empty.sqlite3");
    std::fs::write(&empty, b"").unwrap();
    assert!(matches!(
        Store::open_read_only(&empty),
        Err(StoreError::NotABank { .. })
    ));
}

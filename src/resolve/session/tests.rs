//! A session driven offline: a bank held in memory, a catalog in memory, indexing off, and a
//! reporter that records what the session said.

use std::path::{Path, PathBuf};

use super::*;
use crate::bank::store::{Catalog as StoreCatalog, ImportProvider, Presence};
use crate::names::{ApiPath, DistName};
use crate::pypi::IndexConfig;
use crate::reporter::{Event, Recorder, Silent};
use crate::resolve::evidence::{BankReadError, MemoryBank};
use crate::resolve::infer::InferError;
use crate::resolve::options::{Indexing, Introspect};
use crate::resolve::solver::{Catalog, MemoryCatalog, MemoryRelease};

/// A bank in memory, as a batch's remembered answers are read.
struct Remembered(MemoryBank);

impl BankView for Remembered {
    fn catalog(&self, dist: &DistName) -> Result<Option<StoreCatalog>, BankReadError> {
        self.0.catalog(dist)
    }
    fn api_presence(
        &self,
        dist: &DistName,
        apis: &[ApiPath],
    ) -> Result<Vec<Presence>, BankReadError> {
        self.0.api_presence(dist, apis)
    }
    fn member_presence(&self, dist: &DistName, member: &str) -> Result<Presence, BankReadError> {
        self.0.member_presence(dist, member)
    }
    fn keyword_presence(
        &self,
        dist: &DistName,
        api: &ApiPath,
        keyword: &str,
    ) -> Result<Presence, BankReadError> {
        self.0.keyword_presence(dist, api, keyword)
    }
    fn import_providers(&self, top_level: &str) -> Result<Vec<ImportProvider>, BankReadError> {
        self.0.import_providers(top_level)
    }
    fn release_imports(
        &self,
        dist: &DistName,
        version: &pep508_rs::pep440_rs::Version,
    ) -> Result<Option<Vec<String>>, BankReadError> {
        self.0.release_imports(dist, version)
    }
}

impl RememberingBank for Remembered {
    fn forget(&self) {}
}

/// One notebook beside an empty bank file and an offline index client.
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new(source: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("nb.py"), source).unwrap();
        Self { dir }
    }

    fn notebook(&self) -> PathBuf {
        self.dir.path().join("nb.py")
    }

    fn options(&self) -> InferOptions {
        InferOptions {
            indexing: Indexing::Never,
            introspect: Introspect::Never,
            declarations: false,
            ..InferOptions::new(self.notebook())
        }
    }

    fn session(&self) -> InferSession {
        let root: &Path = self.dir.path();
        let mut config = IndexConfig::new("http://127.0.0.1:9/simple/", root.join("cache"));
        config.offline = true;
        let client = IndexClient::new(config, None).unwrap();
        let place = SessionPlace {
            bank: root.join("bank.sqlite3"),
            tools_dir: root.join("tools"),
            installer_index: None,
            offline: true,
            installed: Vec::new(),
            lock: LockPolicy::default(),
        };
        InferSession::open(place, client, &self.options()).unwrap()
    }

    /// Reads the notebook and infers it with `bank` and `catalog` standing for the bank and
    /// the index.
    fn infer(
        &self,
        bank: &Remembered,
        catalog: &dyn Catalog,
        reporter: &dyn Reporter,
    ) -> Result<Inferred, SessionError> {
        let options = self.options();
        let usages = read_usages(&options, reporter).unwrap();
        let session = self.session();
        let run = InferRun {
            catalog: Some(catalog),
            bank: Some(bank),
            reach: Reach::Known,
            ..InferRun::default()
        };
        infer_usages_with(&options, &session, &usages, &[], run, reporter)
    }
}

/// `toolkit` 1.0 and 2.0 in the bank, `fit` only in 2.0.
fn bank_with_toolkit() -> Remembered {
    let mut bank = MemoryBank::new();
    bank.releases("toolkit", &["1.0", "2.0"])
        .provides("toolkit", "toolkit", &["1.0", "2.0"])
        .api("toolkit", "toolkit.fit", &["2.0"], &[]);
    Remembered(bank)
}

fn catalog(tags: &str) -> MemoryCatalog {
    catalog_of("toolkit", tags)
}

fn catalog_of(dist: &str, tags: &str) -> MemoryCatalog {
    let mut catalog = MemoryCatalog::new();
    for v in ["1.0", "2.0"] {
        catalog
            .add(MemoryRelease::new(dist, v).wheel(tags))
            .unwrap();
    }
    catalog
}

fn pins(found: &Inferred) -> Vec<String> {
    found
        .inference
        .solution
        .pins
        .iter()
        .map(|p| format!("{}=={}", p.dist, p.version))
        .collect()
}

#[test]
fn a_session_that_finds_everything_in_the_bank_says_nothing_and_pins() {
    let place = Place::new("import toolkit\ntoolkit.fit()\n");
    let recorder = Recorder::default();
    let found = place
        .infer(&bank_with_toolkit(), &catalog("py3-none-any"), &recorder)
        .unwrap();
    assert_eq!(pins(&found), ["toolkit==2.0"]);
    assert!(found.unindexed.is_empty(), "{:?}", found.unindexed);
    assert_eq!(recorder.events(), []);
}

#[test]
fn a_distribution_the_bank_lacks_with_indexing_off_is_a_typed_gap_and_said() {
    // `six` is on the built-in package list: known to provide `six`, not in this bank.
    let place = Place::new("import six\nsix.moves\n");
    let recorder = Recorder::default();
    let found = place
        .infer(
            &Remembered(MemoryBank::new()),
            &catalog_of("six", "py3-none-any"),
            &recorder,
        )
        .unwrap();
    let unindexed: Vec<String> = found.unindexed.iter().map(ToString::to_string).collect();
    assert_eq!(unindexed, ["six"]);
    // Without API evidence, the newest release that installs.
    assert_eq!(pins(&found), ["six==2.0"]);
    assert_eq!(
        recorder.events(),
        [Event::Note(
            "the bank lacks six: resolved without API evidence for it".into(),
            None
        )]
    );
}

/// Reasons per interpreter go to the reporter, which says whether they reach the reader: the
/// error points at them only then. A reporter that shows nothing gets the same error
/// without the pointer, and the reasons stay in the error for the caller to record.
#[test]
fn no_solution_is_typed_and_points_at_the_reasons_only_when_the_reporter_said_them() {
    // An f-string: Python 3.6 or later, where no wheel of toolkit installs.
    let place = Place::new("import toolkit\nprint(f\"{toolkit.fit()}\")\n");
    let bank = bank_with_toolkit();
    let only_py2 = catalog("py2-none-any");

    let recorder = Recorder::default();
    let said = place.infer(&bank, &only_py2, &recorder).unwrap_err();
    let SessionError::NoSolution { listed: true, .. } = &said else {
        panic!("{said:?}");
    };
    assert!(said.to_string().ends_with("(see why above)"), "{said}");
    let Some(InferError::NoSolution { tried }) = said.infer_error() else {
        panic!("{said:?}");
    };
    assert!(tried.len() > 1, "{tried:?}");
    let explained: Vec<_> = recorder
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Explained(lines) => Some(lines),
            _ => None,
        })
        .collect();
    assert_eq!(explained.len(), 1, "{:?}", recorder.events());
    // Each reason once: the interpreters that fail alike share a line.
    assert_eq!(
        explained[0],
        crate::resolve::passed_over::reasons_by_python(tried)
    );
    assert!(explained[0].len() < tried.len(), "{explained:?}");
    assert!(
        explained[0].iter().all(|l| l.starts_with("Python ")),
        "{explained:?}"
    );

    let unsaid = place.infer(&bank, &only_py2, &Silent).unwrap_err();
    let SessionError::NoSolution { listed: false, .. } = &unsaid else {
        panic!("{unsaid:?}");
    };
    assert!(!unsaid.to_string().contains("see why above"), "{unsaid}");
}

#[test]
fn a_folder_without_notebooks_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let options = InferOptions::new(dir.path().to_path_buf());
    let Err(SessionError::NoNotebook(path)) = read_usages(&options, &Silent) else {
        panic!("a folder without notebooks");
    };
    assert_eq!(path, dir.path());
}

//! Property tests: notebooks (JSON of any shape, Python 2 and 3 sources, the bundled fixtures
//! mutated) and bank files (mutated bytes, mutated rows) give a result or an error, never a
//! panic or a hang. `PROPTEST_CASES` sets how many inputs each property gets (README).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::support::archives::WheelBuilder;
use crate::support::server::{FixtureFile, PageMode, TestServer};
use nbenv::notebook::{self, AnalyzeOptions};
use proptest::prelude::*;
use serde_json::{json, Value};

/// `PROPTEST_CASES` when set, else `default`: properties that start processes get fewer.
fn config(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

/// One edit of a valid input; positions are taken modulo its length.
#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Set(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    let one = prop_oneof![
        4 => (any::<usize>(), 1u8..).prop_map(|(at, x)| Mutation::Flip(at, x)),
        3 => (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::Set(at, b)),
        1 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(at, b)| Mutation::Insert(at, b)),
        1 => (any::<usize>(), 1usize..64).prop_map(|(at, n)| Mutation::Delete(at, n)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
    ];
    prop::collection::vec(one, 1..8)
}

fn mutate(mut bytes: Vec<u8>, edits: &[Mutation]) -> Vec<u8> {
    for edit in edits {
        let len = bytes.len().max(1);
        match edit {
            Mutation::Flip(at, x) => {
                if let Some(b) = bytes.get_mut(at % len) {
                    *b ^= x;
                }
            }
            Mutation::Set(at, v) => {
                if let Some(b) = bytes.get_mut(at % len) {
                    *b = *v;
                }
            }
            Mutation::Insert(at, new) => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, new.iter().copied());
            }
            Mutation::Delete(at, n) => {
                let at = at % len;
                let end = (at + n).min(bytes.len());
                if at < end {
                    bytes.drain(at..end);
                }
            }
            Mutation::Truncate(at) => bytes.truncate(at % len),
        }
    }
    bytes
}

// ---- Notebooks ----

fn analyze(name: &str, bytes: &[u8]) {
    if let Ok(nb) = notebook::from_bytes(Path::new(name), bytes) {
        let options = AnalyzeOptions {
            scan_local_modules: false,
            ..AnalyzeOptions::default()
        };
        let usage = notebook::analyze(&nb, &options);
        let _ = serde_json::to_string(&usage).unwrap();
    }
}

/// Lines of Python 2 and 3, IPython escapes and cell magics, as notebooks hold them.
fn python_source() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        Just("import numpy as np".to_string()),
        Just("from sklearn.cross_validation import train_test_split".to_string()),
        Just("from pylab import *".to_string()),
        Just("print \"hello\", x".to_string()),
        Just("exec \"x = 1\"".to_string()),
        Just("y = `x` + ur'a' + 10L".to_string()),
        Just("try:\n    import cPickle as pickle\nexcept ImportError, e:\n    pass".to_string()),
        Just("%matplotlib inline".to_string()),
        Just("%pylab inline".to_string()),
        Just("!pip install -q 'pandas<1.0' keras==2.2.4 a-!".to_string()),
        Just("%time df = pd.read_csv('x.csv', sep=';')".to_string()),
        Just("%%timeit -n1 import torch".to_string()),
        Just("%%writefile requirements.txt\nnumpy==1.16\nbad-[".to_string()),
        Just("%%bash\npip install \\\n  xgboost".to_string()),
        Just("files = !ls".to_string()),
        Just("np.linalg.norm?".to_string()),
        Just("get_ipython().run_cell_magic('writefile', 'm.py', 'import scipy')".to_string()),
        Just(
            "class Net(nn.Module):\n    def forward(self, x):\n        return self.fc(x)"
                .to_string()
        ),
        Just("m = LinearRegression()\nm.fit(X, y).predict(X)".to_string()),
        Just("@decorator(arg)\ndef f(a, *args, b=1, **kw): yield from g()".to_string()),
        Just("async def f():\n    await x".to_string()),
        Just("if (n := len(a)) > 10: pass".to_string()),
        Just("match command:\n    case [x, y]: pass".to_string()),
        Just("s = f'{a!r:>{width}}'".to_string()),
        Just("lambda: (yield)".to_string()),
        "[ -~]{0,40}",
        "[a-z_]{1,6}(\\.[a-z_]{1,6}){0,4}(\\([a-z=0-9, ]{0,12}\\))?",
        (1usize..300).prop_map(|n| format!("x = {}1", "(".repeat(n))),
        (1usize..600).prop_map(|n| format!("x = np.pi{}", " + 1".repeat(n))),
    ];
    let indented = (line, 0usize..3).prop_map(|(l, depth)| {
        l.lines()
            .map(|x| format!("{}{x}", "    ".repeat(depth)))
            .collect::<Vec<_>>()
            .join("\n")
    });
    prop::collection::vec(indented, 0..10).prop_map(|lines| lines.join("\n"))
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[ -~]{0,16}".prop_map(Value::String),
    ]
}

fn json_any() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 20, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A field that should hold source text: a string, a list of lines, or anything.
fn source_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => python_source().prop_map(Value::String),
        3 => python_source().prop_map(|s| {
            Value::Array(s.split_inclusive('\n').map(|l| json!(l)).collect())
        }),
        1 => json_any(),
    ]
}

fn output() -> impl Strategy<Value = Value> {
    let kind = prop::sample::select(vec![
        "stream",
        "error",
        "pyerr",
        "execute_result",
        "display_data",
        "pyout",
        "bogus",
    ]);
    (kind, source_value(), source_value(), json_any()).prop_map(|(kind, text, trace, data)| {
        json!({
            "output_type": kind,
            "name": "stdout",
            "text": text,
            "traceback": trace,
            "ename": "ImportError",
            "evalue": "No module named 'sklearn.cross_validation'",
            "data": {"text/plain": data},
        })
    })
}

fn cell() -> impl Strategy<Value = Value> {
    let kind = prop::sample::select(vec!["code", "markdown", "raw", "heading", "other"]);
    (
        kind,
        source_value(),
        prop::collection::vec(output(), 0..3),
        json_any(),
        any::<bool>(),
    )
        .prop_map(|(kind, source, outputs, metadata, v3)| {
            let key = if v3 { "input" } else { "source" };
            json!({"cell_type": kind, key: source, "outputs": outputs, "metadata": metadata})
        })
}

/// Notebooks in nbformat 4 and 3 (worksheets), with kernelspecs of every kind.
fn notebook_json() -> impl Strategy<Value = Value> {
    let kernel = prop_oneof![
        Just(json!({"name": "python3", "display_name": "Python 3"})),
        Just(json!({"name": "python2", "display_name": "Python 2"})),
        Just(json!({"name": "ir", "display_name": "R", "language": "R"})),
        Just(json!({"name": "conda-env-py36-py"})),
        json_any(),
    ];
    let version = prop_oneof![Just(json!("3.6.8")), Just(json!("2.7.15+")), json_any()];
    (
        prop::collection::vec(cell(), 0..6),
        kernel,
        version,
        prop_oneof![Just(json!(4)), Just(json!(3)), json_any()],
        any::<bool>(),
    )
        .prop_map(|(cells, kernel, version, nbformat, worksheets)| {
            let metadata = json!({"kernelspec": kernel, "language_info": {"name": "python", "version": version}});
            if worksheets {
                json!({"nbformat": nbformat, "nbformat_minor": 0, "metadata": metadata, "worksheets": [{"cells": cells}]})
            } else {
                json!({"nbformat": nbformat, "nbformat_minor": 2, "metadata": metadata, "cells": cells})
            }
        })
}

fn fixtures() -> &'static [(String, Vec<u8>)] {
    static FIXTURES: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/notebooks");
        let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|e| e.path().is_file())
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name, std::fs::read(e.path()).unwrap())
            })
            .collect();
        out.sort();
        out
    })
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn notebooks_of_any_shape(nb in notebook_json()) {
        analyze("nb.ipynb", &serde_json::to_vec(&nb).unwrap());
    }

    #[test]
    fn python_sources(source in python_source(), edits in mutations()) {
        analyze("script.py", source.as_bytes());
        analyze("script.py", format!("# %%\n{source}\n# %%\n{source}").as_bytes());
        analyze("script.py", &mutate(source.into_bytes(), &edits));
    }

    #[test]
    fn mutated_fixture_notebooks(which in any::<prop::sample::Index>(), edits in mutations()) {
        let (name, bytes) = which.get(fixtures());
        analyze(name, &mutate(bytes.clone(), &edits));
    }
}

// ---- Bank files ----

/// A bank with a few releases of a fixture distribution, indexed from a loopback index, and
/// the cache that lets `--offline` commands index it again.
struct BaseBank {
    _server: TestServer,
    dir: tempfile::TempDir,
    bytes: Vec<u8>,
}

impl BaseBank {
    fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }
}

fn base_bank() -> &'static BaseBank {
    static BANK: OnceLock<BaseBank> = OnceLock::new();
    BANK.get_or_init(|| {
        let server = TestServer::start(PageMode::Json);
        let wheel = |version: &str, body: &str| {
            let w = WheelBuilder::new("toolkit", version)
                .file("toolkit/__init__.py", "from .core import helper, Model\n")
                .file("toolkit/core.py", body)
                .requires("numpy (>=1.10)");
            FixtureFile::new(&w.filename(), w.build())
        };
        server.publish(
            "toolkit",
            &[
                wheel("1.0", "def helper(a):\n    pass\nclass Model:\n    def fit(self, X):\n        pass\n"),
                wheel("2.0", "def helper(a, b=1):\n    pass\nclass Model:\n    def fit(self, X, y):\n        pass\n"),
            ],
        );
        // A static is never dropped, so its folder is not removed when the process ends: it
        // goes under the build's own temporary folder, not the system's, and a run removes
        // what earlier runs left there.
        let parent = Path::new(env!("CARGO_TARGET_TMPDIR")).join("properties-base-bank");
        std::fs::create_dir_all(&parent).unwrap();
        let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        for old in std::fs::read_dir(&parent).unwrap().flatten() {
            let stale = old
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t < hour_ago);
            if stale {
                let _ = std::fs::remove_dir_all(old.path());
            }
        }
        let dir = tempfile::tempdir_in(&parent).unwrap();
        let bank = dir.path().join("bank.sqlite3");
        let out = Command::new(env!("CARGO_BIN_EXE_nbenv"))
            .args(["--index-url", &server.index_url(), "--no-progress", "--cache-dir"])
            .arg(dir.path().join("cache"))
            .arg("--bank")
            .arg(&bank)
            .args(["bank", "add", "toolkit", "--all-versions"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        // The writer has closed: its WAL is folded into the file.
        assert!(!dir.path().join("bank.sqlite3-wal").exists());
        let bytes = std::fs::read(&bank).unwrap();
        BaseBank {
            _server: server,
            dir,
            bytes,
        }
    })
}

/// Runs nbenv on `bank` with `args`, offline, and fails on a panic or after 60 s.
fn run_on(bank: &Path, args: &[&str]) {
    let base = base_bank();
    let mut child = Command::new(env!("CARGO_BIN_EXE_nbenv"))
        .args(["--offline", "--no-progress", "--quiet", "--cache-dir"])
        .arg(base.cache())
        .arg("--bank")
        .arg(bank)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("nbenv {args:?} hung on a mutated bank");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(
        status.code().is_some() && status.code() != Some(101) && !stderr.contains("panicked"),
        "nbenv {args:?} on a mutated bank: {status}\n{stderr}"
    );
}

fn exercise(bank: &Path) {
    run_on(bank, &["bank", "stats"]);
    run_on(
        bank,
        &[
            "bank",
            "query",
            "toolkit.core.Model.fit",
            "--format",
            "json",
        ],
    );
    run_on(bank, &["bank", "query", "--module", "toolkit"]);
    run_on(bank, &["bank", "diff", "toolkit", "1.0", "2.0"]);
    run_on(
        bank,
        &["bank", "add", "toolkit", "--all-versions", "--force"],
    );
}

/// A change to one stored value, by table, row and column, in the bank's own terms.
#[derive(Debug, Clone)]
enum RowEdit {
    Set {
        table: prop::sample::Index,
        column: prop::sample::Index,
        row: prop::sample::Index,
        value: SqlValue,
    },
    Delete {
        table: prop::sample::Index,
        row: prop::sample::Index,
    },
    Drop(prop::sample::Index),
    UserVersion(i64),
}

#[derive(Debug, Clone)]
enum SqlValue {
    Null,
    Int(i64),
    Text(String),
    Blob(Vec<u8>),
}

fn row_edits() -> impl Strategy<Value = Vec<RowEdit>> {
    let value = prop_oneof![
        Just(SqlValue::Null),
        prop_oneof![
            Just(-1i64),
            Just(0),
            Just(1),
            Just(u32::MAX as i64),
            any::<i64>()
        ]
        .prop_map(SqlValue::Int),
        "[ -~]{0,12}".prop_map(SqlValue::Text),
        prop::collection::vec(any::<u8>(), 0..24).prop_map(SqlValue::Blob),
    ];
    let edit = prop_oneof![
        8 => (any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<prop::sample::Index>(), value)
            .prop_map(|(table, column, row, value)| RowEdit::Set { table, column, row, value }),
        2 => (any::<prop::sample::Index>(), any::<prop::sample::Index>())
            .prop_map(|(table, row)| RowEdit::Delete { table, row }),
        1 => any::<prop::sample::Index>().prop_map(RowEdit::Drop),
        1 => prop_oneof![Just(0i64), Just(999), any::<i64>()].prop_map(RowEdit::UserVersion),
    ];
    prop::collection::vec(edit, 1..5)
}

fn apply(bank: &Path, edits: &[RowEdit]) {
    let conn = rusqlite::Connection::open(bank).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for edit in edits {
        match edit {
            RowEdit::Set {
                table,
                column,
                row,
                value,
            } => {
                let table = table.get(&tables);
                let columns: Vec<String> = conn
                    .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
                    .unwrap()
                    .query_map([], |r| r.get(0))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                let rowids: Vec<i64> = conn
                    .prepare(&format!("SELECT rowid FROM \"{table}\""))
                    .map(|mut s| {
                        s.query_map([], |r| r.get(0))
                            .unwrap()
                            .map(Result::unwrap)
                            .collect()
                    })
                    .unwrap_or_default();
                if columns.is_empty() || rowids.is_empty() {
                    continue;
                }
                let column = column.get(&columns);
                let rowid = row.get(&rowids);
                let sql =
                    format!("UPDATE OR IGNORE \"{table}\" SET \"{column}\" = ?1 WHERE rowid = ?2");
                let _ = match value {
                    SqlValue::Null => {
                        conn.execute(&sql, rusqlite::params![rusqlite::types::Null, rowid])
                    }
                    SqlValue::Int(v) => conn.execute(&sql, rusqlite::params![v, rowid]),
                    SqlValue::Text(v) => conn.execute(&sql, rusqlite::params![v, rowid]),
                    SqlValue::Blob(v) => conn.execute(&sql, rusqlite::params![v, rowid]),
                };
            }
            RowEdit::Delete { table, row } => {
                let table = table.get(&tables);
                let rowids: Vec<i64> = conn
                    .prepare(&format!("SELECT rowid FROM \"{table}\""))
                    .map(|mut s| {
                        s.query_map([], |r| r.get(0))
                            .unwrap()
                            .map(Result::unwrap)
                            .collect()
                    })
                    .unwrap_or_default();
                if !rowids.is_empty() {
                    let _ = conn.execute(
                        &format!("DELETE FROM \"{table}\" WHERE rowid = ?1"),
                        [row.get(&rowids)],
                    );
                }
            }
            RowEdit::Drop(table) => {
                let _ = conn.execute(&format!("DROP TABLE \"{}\"", table.get(&tables)), []);
            }
            RowEdit::UserVersion(v) => {
                let _ = conn.pragma_update(None, "user_version", v);
            }
        }
    }
}

proptest! {
    #![proptest_config(config(24))]

    #[test]
    fn bank_files_with_mutated_bytes(edits in mutations()) {
        let dir = tempfile::tempdir().unwrap();
        let bank = dir.path().join("bank.sqlite3");
        std::fs::write(&bank, mutate(base_bank().bytes.clone(), &edits)).unwrap();
        exercise(&bank);
    }

    #[test]
    fn bank_files_with_mutated_rows(edits in row_edits()) {
        let dir = tempfile::tempdir().unwrap();
        let bank = dir.path().join("bank.sqlite3");
        std::fs::write(&bank, &base_bank().bytes).unwrap();
        apply(&bank, &edits);
        exercise(&bank);
    }
}

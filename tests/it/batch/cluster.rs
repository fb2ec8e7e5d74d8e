//! The cluster of `deploy/` simulated on one machine, offline: a bank is built against a
//! loopback index and exported once; three "machines" each import the snapshot into a bank of
//! their own and run their shard of a corpus at the same time (`nbenv batch --stage infer
//! --shard K/3`); `nbenv report` merges their outputs. The merged records and report must be
//! those of one unsharded run, each notebook measured exactly once, and no worker may index:
//! the index serves pages and core metadata but refuses every wheel, so a worker that tried to
//! read a release's sources would fail, and each worker's bank must come out as it went in.
//! Then the three shards run again, at once, against one shared imported bank with
//! `--no-index` (readers together), and must give the same as an unsharded `--no-index` run.
//! Last, the index's pages: a plain snapshot does not carry them, and a worker with
//! `--no-index` and an empty cache resolves nothing; one exported `--with-index-cache` by the
//! machine that triaged the corpus does, and three fresh workers resolve their shards with no
//! index at all, merging into the triage's records.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::support::archives::WheelBuilder;
use crate::support::corpus::{ipynb, write};
use crate::support::server::{FixtureFile, PageMode, TestServer};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const SHARDS: usize = 3;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/notebooks")
}

/// Where one machine keeps its bank and cache.
struct Machine {
    bank: PathBuf,
    cache: PathBuf,
}

impl Machine {
    fn new(dir: &Path) -> Self {
        std::fs::create_dir_all(dir).unwrap();
        Self {
            bank: dir.join("bank.sqlite3"),
            cache: dir.join("cache"),
        }
    }

    /// `nbenv ARGS` on this machine, configured as a worker is: through the environment.
    fn command(&self, index: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_nbenv"));
        cmd.args(args)
            .env("NBENV_BANK", &self.bank)
            .env("NBENV_CACHE_DIR", &self.cache)
            .env("NBENV_INDEX_URL", index)
            .env("NBENV_HTTP_RETRIES", "0")
            .env_remove("NBENV_OFFLINE")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    fn ok(&self, index: &str, args: &[&str]) -> String {
        let out = self.command(index, args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        String::from_utf8(out.stdout).unwrap()
    }
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Starts every command before waiting for any: the processes run at the same time.
fn all_at_once(commands: Vec<Command>) -> Vec<Output> {
    let children: Vec<_> = commands
        .into_iter()
        .map(|mut c| c.spawn().unwrap())
        .collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

fn wheel(name: &str, version: &str, files: &[(&str, &str)], requires: &[&str]) -> FixtureFile {
    let mut w = WheelBuilder::new(name, version);
    for (path, source) in files {
        w = w.file(path, source);
    }
    for r in requires {
        w = w.requires(r);
    }
    FixtureFile {
        metadata: Some(w.metadata().into_bytes()),
        ..FixtureFile::new(&w.filename(), w.build())
    }
}

/// An index of three distributions whose releases differ in API: `toolkit` (1.0 has
/// `old_api`; 2.0 adds `new_api` and needs `dep>=1`; 3.0 adds `newest` and needs `dep>=2`),
/// `dep`, and `scikit-toy`, imported as `sktoy` (0.1 has `sktoy.legacy.Imputer`, 0.2 moved it
/// to `sktoy.impute.SimpleImputer`). Every file has its PEP 658 metadata.
fn index() -> (TestServer, Vec<String>) {
    let server = TestServer::start(PageMode::Json);
    let mut projects: Vec<(&str, Vec<FixtureFile>)> = vec![
        (
            "toolkit",
            vec![
                wheel(
                    "toolkit",
                    "1.0",
                    &[("toolkit/__init__.py", "def old_api():\n    pass\ndef kept():\n    pass\n")],
                    &[],
                ),
                wheel(
                    "toolkit",
                    "2.0",
                    &[("toolkit/__init__.py", "def kept():\n    pass\ndef new_api():\n    pass\n")],
                    &["dep>=1"],
                ),
                wheel(
                    "toolkit",
                    "3.0",
                    &[(
                        "toolkit/__init__.py",
                        "def kept():\n    pass\ndef new_api():\n    pass\ndef newest():\n    pass\n",
                    )],
                    &["dep>=2"],
                ),
            ],
        ),
        (
            "dep",
            vec![
                wheel("dep", "1.0", &[("dep/__init__.py", "X = 1\n")], &[]),
                wheel(
                    "dep",
                    "2.0",
                    &[("dep/__init__.py", "X = 2\ndef helper():\n    pass\n")],
                    &[],
                ),
            ],
        ),
        (
            "scikit-toy",
            vec![
                wheel(
                    "scikit-toy",
                    "0.1",
                    &[
                        ("sktoy/__init__.py", ""),
                        ("sktoy/legacy.py", "class Imputer:\n    def fit(self, X):\n        return self\n"),
                    ],
                    &[],
                ),
                wheel(
                    "scikit-toy",
                    "0.2",
                    &[
                        ("sktoy/__init__.py", ""),
                        (
                            "sktoy/impute.py",
                            "class SimpleImputer:\n    def fit(self, X):\n        return self\n",
                        ),
                    ],
                    &["toolkit>=2"],
                ),
            ],
        ),
    ];
    for (i, (_, files)) in projects.iter_mut().enumerate() {
        for (j, f) in files.iter_mut().enumerate() {
            f.upload_time = Some(format!("201{}-0{}-01T00:00:00Z", j + 1, i + 1));
        }
    }
    let mut wheels = Vec::new();
    for (name, files) in &projects {
        server.publish(name, files);
        wheels.extend(files.iter().map(|f| format!("/files/{}", f.filename)));
    }
    (server, wheels)
}

/// A corpus of 30 notebooks over the index's distributions, in nested folders: each calls an
/// API that pins a release (old or new toolkit, old or new scikit-toy), some import what no
/// distribution provides, read a data file shipped beside them or not, use the network; two
/// are broken.
fn corpus(dir: &Path) -> PathBuf {
    let root = dir.join("corpus");
    let apis = [
        "import toolkit\ntoolkit.old_api()",
        "import toolkit\ntoolkit.new_api()",
        "import toolkit as tk\ntk.newest()",
        "from sktoy.legacy import Imputer\nImputer().fit([[1]])",
        "from sktoy.impute import SimpleImputer\nSimpleImputer().fit([[1]])",
        "import dep\ndep.helper()",
    ];
    let extras = [
        "",
        "import nowhere_to_be_found",
        "rows = open('table.csv').readlines()",
        "import urllib.request\nurllib.request.urlopen('https://example.org/data.csv')",
        "import toolkit\ntoolkit.kept()",
    ];
    for i in 0..28 {
        let folder = ["", "a/", "a/b/", "c/"][i % 4];
        let name = format!("{folder}nb-{i:02}.ipynb");
        write(
            &root,
            &name,
            &ipynb(&[
                "import os\nimport json",
                apis[i % apis.len()],
                extras[(i / 2) % extras.len()],
            ]),
        );
    }
    write(&root, "a/table.csv", "x,y\n1,2\n");
    write(&root, "c/broken.ipynb", "{\"cells\": [");
    write(
        &root,
        "c/not-python.ipynb",
        r#"{"nbformat": 4, "nbformat_minor": 2, "cells": [],
        "metadata": {"kernelspec": {"name": "ir", "language": "R", "display_name": "R"}}}"#,
    );
    root
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Records by path, without what two runs of the same measurement legitimately differ in
/// (timings, and the nbenv version field, kept out so that the check is on the measurement);
/// a path recorded twice fails.
fn comparable(records: &[Value]) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for r in records {
        let mut r = r.clone();
        let object = r.as_object_mut().unwrap();
        object.remove("timings");
        object.remove("nbenv");
        let path = object["path"].as_str().unwrap().to_string();
        assert!(
            out.insert(path.clone(), r).is_none(),
            "{path} recorded twice"
        );
    }
    out
}

fn sha256_file(path: &Path) -> String {
    Sha256::digest(std::fs::read(path).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The test's plan of a cluster run: the inputs, and the batch arguments of shard `k` of `n`
/// (or of the whole corpus) writing to `out`.
struct Batch {
    inputs: Vec<PathBuf>,
    extra: Vec<&'static str>,
}

impl Batch {
    fn args(&self, shard: Option<usize>, out: &Path) -> Vec<String> {
        let mut a = vec!["--quiet".to_string(), "batch".into()];
        a.extend(self.inputs.iter().map(|p| p.to_str().unwrap().to_string()));
        a.extend(
            [
                "--stage", "infer", "--python", "3.11", "--jobs", "2", "--out",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        a.push(out.to_str().unwrap().to_string());
        if let Some(k) = shard {
            // 0-based, as array jobs number their workers.
            a.push("--shard-index".into());
            a.push(format!("{k}/{SHARDS}"));
        }
        a.extend(self.extra.iter().map(|s| s.to_string()));
        a
    }
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// `nbenv report --format json` over `files`, on a machine with nothing in it.
fn report(dir: &Path, index: &str, files: &[PathBuf]) -> Value {
    let nobody = Machine::new(&dir.join("reporter"));
    let mut args = vec!["report".to_string(), "--format".into(), "json".into()];
    args.extend(files.iter().map(|f| f.to_str().unwrap().to_string()));
    serde_json::from_str(&nobody.ok(index, &strs(&args))).unwrap()
}

/// The shards' outputs checked against the single run's: every shard measured something, no
/// notebook is in two shards, each notebook is in exactly one record, and the merged records
/// and report are the single run's.
fn check_merge(dir: &Path, index: &str, single: &Path, shards: &[PathBuf], label: &str) {
    let whole = comparable(&records(single));
    let mut merged = BTreeMap::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (k, out) in shards.iter().enumerate() {
        let part = comparable(&records(out));
        assert!(!part.is_empty(), "{label}: shard {k} measured nothing");
        let paths: BTreeSet<String> = part.keys().cloned().collect();
        assert!(
            seen.is_disjoint(&paths),
            "{label}: shard {k} repeats {:?}",
            seen.intersection(&paths).collect::<Vec<_>>()
        );
        seen.extend(paths);
        merged.extend(part);
    }
    assert_eq!(
        merged.keys().collect::<Vec<_>>(),
        whole.keys().collect::<Vec<_>>(),
        "{label}: the shards' notebooks are not the whole corpus"
    );
    for (path, record) in &whole {
        assert_eq!(&merged[path], record, "{label}: {path}");
    }
    // The reports differ only in the files they name, each with its count of records.
    let without_files = |mut r: Value| -> (Value, u64) {
        let files = r.as_object_mut().unwrap().remove("files").unwrap();
        let read = files
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["records"].as_u64().unwrap())
            .sum();
        (r, read)
    };
    let (single_report, single_read) = without_files(report(dir, index, &[single.to_path_buf()]));
    let (merged_report, merged_read) = without_files(report(dir, index, shards));
    assert_eq!(merged_report, single_report, "{label}: the reports differ");
    assert_eq!(merged_read, single_read);
    assert_eq!(merged_report["notebooks"], whole.len());
    assert_eq!(merged_report["records_read"], whole.len());
    assert_eq!(merged_report["records_replaced"], 0);
}

#[test]
fn shards_on_three_machines_at_once_merge_into_the_single_run() {
    let (server, wheels) = index();
    let url = server.index_url();
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();

    // The bank, built once and shipped as a snapshot.
    let builder = Machine::new(&dir.join("builder"));
    builder.ok(
        &url,
        &[
            "bank",
            "add",
            "toolkit",
            "dep",
            "scikit-toy",
            "--all-versions",
        ],
    );
    let snapshot = dir.join("bank.nbsnap");
    builder.ok(&url, &["bank", "export", snapshot.to_str().unwrap()]);

    let corpus = corpus(dir);
    let batch = Batch {
        inputs: vec![fixtures(), corpus.clone()],
        extra: vec![],
    };
    // From here on, the index refuses every wheel: pages and core metadata are all a worker
    // may read, so nothing can be indexed.
    for w in &wheels {
        server.fail_next(w, u32::MAX);
    }

    // One machine, the whole corpus, on a fresh import of the snapshot.
    let single = Machine::new(&dir.join("single"));
    single.ok(&url, &["bank", "import", snapshot.to_str().unwrap()]);
    let single_out = dir.join("single.jsonl");
    single.ok(&url, &strs(&batch.args(None, &single_out)));

    // Three machines, each its own import, all running at once.
    let machines: Vec<Machine> = (0..SHARDS)
        .map(|k| Machine::new(&dir.join(format!("machine-{k}"))))
        .collect();
    let mut imported = Vec::new();
    for m in &machines {
        m.ok(&url, &["bank", "import", snapshot.to_str().unwrap()]);
        imported.push(sha256_file(&m.bank));
    }
    let outs: Vec<PathBuf> = (0..SHARDS)
        .map(|k| dir.join(format!("shard-{k}.jsonl")))
        .collect();
    server.clear_log();
    let ran = all_at_once(
        machines
            .iter()
            .enumerate()
            .map(|(k, m)| m.command(&url, &strs(&batch.args(Some(k), &outs[k]))))
            .collect(),
    );
    for (k, o) in ran.iter().enumerate() {
        assert!(o.status.success(), "shard {k}: {}", text(o));
    }
    let wheel_requests: Vec<String> = server
        .log()
        .into_iter()
        .map(|r| r.path)
        .filter(|p| p.ends_with(".whl"))
        .collect();
    assert_eq!(wheel_requests, Vec::<String>::new(), "a worker indexed");
    for (k, m) in machines.iter().enumerate() {
        assert_eq!(
            sha256_file(&m.bank),
            imported[k],
            "machine {k}'s bank was written"
        );
    }
    check_merge(dir, &url, &single_out, &outs, "three machines");

    // The corpus resolved to what its APIs say, not to errors everywhere.
    let whole = comparable(&records(&single_out));
    let pins = |p: &str| -> Value { whole[p]["environment"]["requirements"].clone() };
    assert_eq!(
        pins("nb-00.ipynb"),
        json!([{"dist": "toolkit", "version": "1.0"}]),
        "{}",
        whole["nb-00.ipynb"]
    );
    assert_eq!(
        pins("a/nb-01.ipynb"),
        json!([{"dist": "toolkit", "version": "3.0"}])
    );
    assert_eq!(
        pins("a/b/nb-02.ipynb"),
        json!([{"dist": "toolkit", "version": "3.0"}])
    );
    assert_eq!(
        pins("c/nb-03.ipynb"),
        json!([{"dist": "scikit-toy", "version": "0.1"}])
    );
    assert_eq!(
        pins("nb-04.ipynb"),
        json!([{"dist": "scikit-toy", "version": "0.2"}])
    );
    assert_eq!(whole["c/broken.ipynb"]["error"]["kind"], "broken_json");
    let ok = whole.values().filter(|r| r["status"] == "ok").count();
    assert!(ok >= 28, "{ok} ok of {}", whole.len());

    // The same three shards at once against ONE imported bank and one cache, offline: readers
    // together give what one offline run gives.
    let shared = Machine::new(&dir.join("shared"));
    shared.ok(&url, &["bank", "import", snapshot.to_str().unwrap()]);
    copy_dir(&single.cache, &shared.cache);
    let offline = Batch {
        extra: vec!["--no-index"],
        ..batch
    };
    let alone = dir.join("offline-single.jsonl");
    server.clear_log();
    shared.ok(&url, &strs(&offline.args(None, &alone)));
    let before = sha256_file(&shared.bank);
    let outs: Vec<PathBuf> = (0..SHARDS)
        .map(|k| dir.join(format!("offline-shard-{k}.jsonl")))
        .collect();
    let ran = all_at_once(
        (0..SHARDS)
            .map(|k| shared.command(&url, &strs(&offline.args(Some(k), &outs[k]))))
            .collect(),
    );
    for (k, o) in ran.iter().enumerate() {
        assert!(o.status.success(), "offline shard {k}: {}", text(o));
    }
    assert!(
        server.log().is_empty(),
        "--no-index asked the index: {:?}",
        server.log()
    );
    assert_eq!(
        sha256_file(&shared.bank),
        before,
        "the shared bank was written"
    );
    check_merge(dir, &url, &alone, &outs, "one shared bank");
    // Offline, with the pages the online run cached, the corpus resolves as it did online.
    let offline_whole = comparable(&records(&alone));
    for (path, record) in whole
        .iter()
        .filter(|(p, _)| p.starts_with("nb-") || p.contains("/nb-"))
    {
        assert_eq!(
            offline_whole[path]["environment"], record["environment"],
            "{path}"
        );
    }

    // A plain snapshot carries the bank, not the index's pages: a worker with `--no-index`
    // and an empty cache cannot resolve what needs a distribution.
    let bare = Machine::new(&dir.join("bare"));
    bare.ok(&url, &["bank", "import", snapshot.to_str().unwrap()]);
    let out = dir.join("bare.jsonl");
    bare.ok(&url, &strs(&offline.args(None, &out)));
    let bare = comparable(&records(&out));
    for path in ["nb-00.ipynb", "a/nb-01.ipynb", "c/nb-03.ipynb"] {
        assert_eq!(bare[path]["status"], "error", "{}", bare[path]);
        assert_eq!(bare[path]["error"]["kind"], "network", "{}", bare[path]);
    }

    // Exported with `--with-index-cache` by the machine that triaged the corpus, it carries
    // the pages and core metadata that triage read: three fresh workers, empty caches, each
    // importing it, run their shards at once with `--no-index` and never ask the index, and
    // together give what the triage gave.
    let triaged = dir.join("triaged.nbsnap");
    single.ok(
        &url,
        &[
            "bank",
            "export",
            triaged.to_str().unwrap(),
            "--with-index-cache",
        ],
    );
    let workers: Vec<Machine> = (0..SHARDS)
        .map(|k| Machine::new(&dir.join(format!("worker-{k}"))))
        .collect();
    for w in &workers {
        assert!(!w.cache.exists());
        let said = w.ok(&url, &["bank", "import", triaged.to_str().unwrap()]);
        assert!(said.contains("index cache: "), "{said}");
    }
    let outs: Vec<PathBuf> = (0..SHARDS)
        .map(|k| dir.join(format!("worker-{k}.jsonl")))
        .collect();
    server.clear_log();
    let ran = all_at_once(
        workers
            .iter()
            .enumerate()
            .map(|(k, w)| w.command(&url, &strs(&offline.args(Some(k), &outs[k]))))
            .collect(),
    );
    for (k, o) in ran.iter().enumerate() {
        assert!(o.status.success(), "worker {k}: {}", text(o));
    }
    assert!(
        server.log().is_empty(),
        "a worker asked the index: {:?}",
        server.log()
    );
    check_merge(
        dir,
        &url,
        &alone,
        &outs,
        "workers from a snapshot with its index cache",
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

//! `nbenv batch` end to end, offline: the fixture notebooks at stage usage, a small corpus at
//! stage infer against a loopback index (lazily indexed, then with `--no-index` and no
//! request at all), shards that cover a corpus exactly once, resumption after a kill (a last
//! line cut short), Ctrl-C, and broken notebooks that become records while the batch goes on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::archives::{sdist_tar_gz, WheelBuilder};
use crate::support::context::{bare_command, Run, TestContext};
use crate::support::corpus::{ipynb, write};
use crate::support::server::{FixtureFile, PageMode, TestServer};
use crate::support::snapshot::{printed, run, RUNS};
use serde_json::{json, Value};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/notebooks")
}

/// A context whose index pages are revalidated at every use: a request not made is one not
/// needed.
fn context() -> TestContext {
    TestContext::new().env("NBENV_INDEX_TTL", "0")
}

/// `nbenv [--index-url INDEX] ARGS` in `ctx`; exit code, stdout, stderr.
fn nbenv_in(ctx: &TestContext, index: Option<&str>, args: &[&str]) -> (i32, String, String) {
    let mut cmd = ctx.command();
    if let Some(url) = index {
        cmd.args(["--index-url", url]);
    }
    Run::from_output(&cmd.args(args).output().unwrap()).parts()
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn by_path(records: &[Value]) -> BTreeMap<String, Value> {
    records
        .iter()
        .map(|r| (r["path"].as_str().unwrap().to_string(), r.clone()))
        .collect()
}

fn fixture_names() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![fixtures()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ipynb") {
                let rel = p.strip_prefix(fixtures()).unwrap();
                out.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out
}

#[test]
fn the_fixtures_at_stage_usage_each_get_a_record() {
    let ctx = context();
    let out = ctx.root().join("r.jsonl");
    let summary = ctx
        .command()
        .arg("batch")
        .arg(fixtures())
        .args(["--stage", "usage", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    // Nothing on stdout; on stderr, the notebooks measured and how each ended; exit 0.
    assert!(summary.stdout.is_empty(), "{}", printed(&summary));
    crate::assert_printed!(RUNS, "batch-fixtures-usage", printed(&summary));
    let all = records(&out);
    let recs = by_path(&all);
    assert_eq!(all.len(), recs.len(), "one record a notebook");
    assert_eq!(
        recs.keys().cloned().collect::<BTreeSet<_>>(),
        fixture_names()
    );

    // Broken notebooks are records, each with why; the batch went on past them.
    let kind = |p: &str| recs[p]["error"]["kind"].as_str().unwrap().to_string();
    assert_eq!(kind("broken.ipynb"), "broken_json");
    assert_eq!(kind("not_a_notebook.ipynb"), "not_a_notebook");
    assert_eq!(kind("empty.ipynb"), "empty");
    assert_eq!(kind("r_kernel.ipynb"), "not_python");
    assert_eq!(recs["broken.ipynb"]["status"], "error");

    // Every record has the schema, the content hash and the stage; stage usage resolves
    // nothing, and says nothing of it.
    for r in &all {
        assert_eq!(r["schema"], 1);
        assert_eq!(r["stage"], "usage");
        assert_eq!(r["sha256"].as_str().unwrap().len(), 64);
        assert!(r.get("environment").is_none(), "{r}");
        assert!(r.get("verdict").is_none(), "{r}");
    }
    let ds = &recs["data_science.ipynb"];
    assert_eq!(ds["status"], "ok");
    assert_eq!(ds["notebook"]["code_cells"], 6);
    assert_eq!(
        ds["triage"]["data_files"],
        json!([{"path": "train.csv", "call": "pandas.read_csv", "at": {"cell": 3, "line": 1}, "state": "missing"}])
    );
    assert!(ds["triage"].get("unresolved_imports").is_none());
    let py2 = &recs["python2.ipynb"]["triage"];
    assert_eq!(py2["python2"], true);
    assert_eq!(py2["parseable"], false);
    let kinds: BTreeSet<&str> = recs["magics_awkward.ipynb"]["triage"]["network"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["download", "fetch", "install", "request"]
            .into_iter()
            .collect()
    );
    let stored: Vec<&str> = recs["nbformat3.ipynb"]["triage"]["stored_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["ename"].as_str().unwrap())
        .collect();
    assert_eq!(stored, ["NameError"]);
}

#[test]
fn a_missing_input_is_refused_with_its_code() {
    let ctx = context();
    let out = ctx.root().join("r.jsonl");
    let (code, _, err) = nbenv_in(
        &ctx,
        None,
        &["batch", "no/such/dir", "--out", out.to_str().unwrap()],
    );
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("no/such/dir"), "{err}");
}

/// An index with `toolkit` (1.0 has `old_api`, 2.0 and 3.0 do not; 3.0 needs `dep>=2`).
fn toolkit_index() -> TestServer {
    let server = TestServer::start(PageMode::Json);
    let publish = |project: &str, wheels: &[WheelBuilder]| {
        let files: Vec<FixtureFile> = wheels
            .iter()
            .enumerate()
            .map(|(i, w)| FixtureFile {
                upload_time: Some(format!("201{i}-01-01T00:00:00Z")),
                ..FixtureFile::new(&w.filename(), w.build())
            })
            .collect();
        server.publish(project, &files);
    };
    publish(
        "toolkit",
        &[
            WheelBuilder::new("toolkit", "1.0").file(
                "toolkit/__init__.py",
                "def old_api():\n    pass\ndef kept():\n    pass\n",
            ),
            WheelBuilder::new("toolkit", "2.0")
                .file("toolkit/__init__.py", "def kept():\n    pass\n")
                .requires("dep>=1"),
            WheelBuilder::new("toolkit", "3.0")
                .file("toolkit/__init__.py", "def kept():\n    pass\n")
                .requires("dep>=2"),
        ],
    );
    server.publish(
        "puresdist",
        &["1.0", "1.1"].map(|v| FixtureFile {
            upload_time: Some("2016-01-01T00:00:00Z".into()),
            ..FixtureFile::new(
                &format!("puresdist-{v}.tar.gz"),
                sdist_tar_gz(
                    "puresdist",
                    v,
                    &[("puresdist.py", "def detect():\n    pass\n")],
                    &format!("Metadata-Version: 1.1\nName: puresdist\nVersion: {v}\n"),
                ),
            )
        }),
    );
    publish(
        "dep",
        &[
            WheelBuilder::new("dep", "1.0").file("dep/__init__.py", "X = 1\n"),
            WheelBuilder::new("dep", "2.0").file("dep/__init__.py", "X = 2\n"),
        ],
    );
    server
}

#[test]
fn stage_infer_resolves_each_notebook_and_no_index_stays_offline() {
    let server = toolkit_index();
    let ctx = context();
    let corpus = ctx.root().join("corpus");
    write(
        &corpus,
        "old.ipynb",
        &ipynb(&["import toolkit", "toolkit.old_api()"]),
    );
    write(
        &corpus,
        "sub/new.ipynb",
        &ipynb(&[
            "import toolkit\nimport nowhere_to_be_found",
            "toolkit.kept()",
        ]),
    );
    write(&corpus, "sub/broken.ipynb", "{\"cells\": [");
    write(
        &corpus,
        "data/reads.ipynb",
        &ipynb(&["import toolkit", "rows = open('here.csv').readlines()"]),
    );
    write(&corpus, "data/here.csv", "a,b\n1,2\n");
    // What a notebook needs through the local module it imports counts, as in `infer`.
    write(
        &corpus,
        "helped/uses.ipynb",
        &ipynb(&["import helper", "helper.go()"]),
    );
    write(
        &corpus,
        "helped/helper.py",
        "import toolkit\n\ndef go():\n    toolkit.old_api()\n",
    );
    // A distribution that never published a wheel: built from its sdist, and the record says.
    write(
        &corpus,
        "sdist/only.ipynb",
        &ipynb(&["import puresdist\nimport toolkit", "toolkit.kept()"]),
    );
    let out = ctx.root().join("infer.jsonl");
    let url = server.index_url();
    let (code, _, err) = nbenv_in(
        &ctx,
        Some(&url),
        &["bank", "add", "puresdist", "--all-versions"],
    );
    assert_eq!(code, 0, "{err}");
    let args = |out: &Path, extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "batch",
            corpus.to_str().unwrap(),
            "--stage",
            "infer",
            "--python",
            "3.11",
            "--jobs",
            "2",
            "--out",
            out.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        nbenv_in(&ctx, Some(&url), &a)
    };
    let (code, _, err) = run(args(&out, &[]));
    assert_eq!(code, 0, "{err}");
    let recs = by_path(&records(&out));
    assert_eq!(
        recs.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "data/reads.ipynb",
            "helped/uses.ipynb",
            "old.ipynb",
            "sdist/only.ipynb",
            "sub/broken.ipynb",
            "sub/new.ipynb"
        ]
    );
    assert_eq!(
        recs["sdist/only.ipynb"]["environment"]["built_from_sdist"],
        json!([{"dist": "puresdist", "version": "1.1"}]),
        "{}",
        recs["sdist/only.ipynb"]
    );
    assert!(recs["old.ipynb"]["environment"]
        .get("built_from_sdist")
        .is_none());
    assert_eq!(
        recs["helped/uses.ipynb"]["environment"]["requirements"],
        json!([{"dist": "toolkit", "version": "1.0"}]),
        "{}",
        recs["helped/uses.ipynb"]
    );
    let env = |p: &str| recs[p]["environment"].clone();
    assert_eq!(recs["old.ipynb"]["status"], "ok", "{}", recs["old.ipynb"]);
    assert_eq!(
        env("old.ipynb"),
        json!({"python": "3.11", "python_installed": env("old.ipynb")["python_installed"],
               "requirements": [{"dist": "toolkit", "version": "1.0"}], "dependencies": []})
    );
    assert_eq!(
        env("sub/new.ipynb")["requirements"],
        json!([{"dist": "toolkit", "version": "3.0"}])
    );
    assert_eq!(
        env("sub/new.ipynb")["dependencies"],
        json!([{"dist": "dep", "version": "2.0"}])
    );
    assert_eq!(
        recs["sub/new.ipynb"]["triage"]["unresolved_imports"],
        json!([{"import": "nowhere_to_be_found", "reason": "no_provider"}])
    );
    assert_eq!(recs["old.ipynb"]["triage"]["unresolved_imports"], json!([]));
    assert_eq!(
        recs["data/reads.ipynb"]["triage"]["data_files"][0]["state"],
        "present"
    );
    assert_eq!(recs["sub/broken.ipynb"]["error"]["kind"], "broken_json");
    for r in recs.values().filter(|r| r["status"] == "ok") {
        assert!(r["timings"]["infer_ms"].as_f64().unwrap() > 0.0, "{r}");
    }

    // The bank now has what the corpus needs: with --no-index, the same answers and not a
    // single request to the index.
    server.clear_log();
    let again = ctx.root().join("again.jsonl");
    let (code, _, err) = run(args(&again, &["--no-index"]));
    assert_eq!(code, 0, "{err}");
    let log = server.log();
    assert!(log.is_empty(), "requests with --no-index: {log:?}");
    let second = by_path(&records(&again));
    for p in ["old.ipynb", "sub/new.ipynb", "helped/uses.ipynb"] {
        assert_eq!(second[p]["environment"], recs[p]["environment"], "{p}");
    }
    // Without it, the same batch asks the index (its pages are stale at once here).
    let (code, _, err) = run(args(&ctx.root().join("control.jsonl"), &[]));
    assert_eq!(code, 0, "{err}");
    assert!(!server.log().is_empty());
}

#[test]
fn shards_cover_the_corpus_once_and_stay_put() {
    let ctx = context();
    let fx = fixtures();
    let run = |shard: Option<(&str, &str)>, name: &str| -> BTreeSet<String> {
        let out = ctx.root().join(name);
        let mut args = vec![
            "batch",
            fx.to_str().unwrap(),
            "--stage",
            "usage",
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some((option, s)) = shard {
            args.extend([option, s]);
        }
        let (code, _, err) = nbenv_in(&ctx, None, &args);
        assert_eq!(code, 0, "{err}");
        if out.exists() {
            by_path(&records(&out)).into_keys().collect()
        } else {
            BTreeSet::new()
        }
    };
    let whole = run(None, "whole.jsonl");
    // `--shard` counts from 1, as nextest's --partition does.
    let shards: Vec<BTreeSet<String>> = (0..3)
        .map(|k| {
            let shard = format!("{}/3", k + 1);
            run(Some(("--shard", &shard)), &format!("shard{k}.jsonl"))
        })
        .collect();
    let mut union = BTreeSet::new();
    for s in &shards {
        assert!(union.is_disjoint(s), "shards overlap: {shards:?}");
        union.extend(s.iter().cloned());
    }
    assert_eq!(union, whole);
    assert!(shards.iter().all(|s| !s.is_empty()), "{shards:?}");
    // The same split on every run; `--shard-index` counts the same shards from 0.
    assert_eq!(run(Some(("--shard", "2/3")), "again.jsonl"), shards[1]);
    assert_eq!(
        run(Some(("--shard-index", "1/3")), "index.jsonl"),
        shards[1]
    );

    // The report merges the shards: every notebook once; with the whole run too, each
    // notebook's later record replaces its earlier one.
    let path = |n: &str| ctx.root().join(n).to_str().unwrap().to_string();
    let report = |files: &[&str]| -> Value {
        let mut args = vec!["report".to_string(), "--format".into(), "json".into()];
        args.extend(files.iter().map(|f| path(f)));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = nbenv_in(&ctx, None, &args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let merged = report(&["shard0.jsonl", "shard1.jsonl", "shard2.jsonl"]);
    assert_eq!(merged["notebooks"], 19);
    assert_eq!(merged["records_replaced"], 0);
    let all = report(&[
        "whole.jsonl",
        "shard0.jsonl",
        "shard1.jsonl",
        "shard2.jsonl",
    ]);
    assert_eq!(all["notebooks"], 19);
    assert_eq!(all["records_read"], 38);
    assert_eq!(all["records_replaced"], 19);

    for (option, shard, says) in [
        ("--shard", "0/3", "use --shard-index"),
        ("--shard", "4/3", "K counts from 1"),
        ("--shard-index", "3/3", "K counts from 0"),
    ] {
        let (code, _, err) = nbenv_in(
            &ctx,
            None,
            &[
                "batch",
                fx.to_str().unwrap(),
                option,
                shard,
                "--out",
                &path("x.jsonl"),
            ],
        );
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(says), "{option} {shard}: {err}");
    }
}

/// A corpus of `n` small notebooks.
fn corpus(dir: &Path, n: usize) -> PathBuf {
    let corpus = dir.join("corpus");
    for i in 0..n {
        write(
            &corpus,
            &format!("d{}/nb{i:05}.ipynb", i % 7),
            &ipynb(&[
                "import numpy as np\nimport pandas as pd",
                &format!("df = pd.read_csv('data{i}.csv')\nx = np.arange({i})"),
            ]),
        );
    }
    corpus
}

#[test]
fn a_killed_batch_resumes_where_it_stopped() {
    let ctx = context();
    let corpus = corpus(ctx.root(), 6);
    let out = ctx.root().join("r.jsonl");
    let args = [
        "batch",
        corpus.to_str().unwrap(),
        "--stage",
        "usage",
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, _, err) = nbenv_in(&ctx, None, &args);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6);

    // As a kill leaves it: three whole records, the fourth cut short.
    let kept = format!("{}\n{}\n{}\n", lines[0], lines[1], lines[2]);
    let cut = &lines[3][..lines[3].len() / 2];
    std::fs::write(&out, format!("{kept}{cut}")).unwrap();

    // The cut line ignored, where it is (line 4), the three left measured and the three
    // recorded skipped; exit 0. The cut line's length follows its durations' digits.
    let filters: Vec<(&str, &str)> = RUNS
        .iter()
        .copied()
        .chain([(r"\(\d+ bytes, left by", "([n] bytes, left by")])
        .collect();
    crate::assert_printed!(
        filters,
        "batch-resume-cut-short",
        run(ctx.command().args(args))
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with(&kept),
        "records already written are kept as they were"
    );
    let all = records(&out);
    assert_eq!(all.len(), 6);
    assert_eq!(by_path(&all).len(), 6, "each notebook once");

    // Nothing left: nothing measured. A notebook whose content changed is measured again.
    let (code, _, err) = nbenv_in(&ctx, None, &args);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("nothing new to measure: 6 notebooks already in"),
        "{err}"
    );
    write(&corpus, "d0/nb00000.ipynb", &ipynb(&["import scipy"]));
    let (code, _, err) = nbenv_in(&ctx, None, &args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("measured 1 notebook "), "{err}");
    assert_eq!(records(&out).len(), 7);
}

#[test]
fn ctrl_c_stops_cleanly_and_the_rest_is_done_next_time() {
    let ctx = context();
    let n = 4000;
    let corpus = corpus(ctx.root(), n);
    let out = ctx.root().join("r.jsonl");
    let args = [
        "batch",
        corpus.to_str().unwrap(),
        "--stage",
        "usage",
        "--jobs",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    let child = bare_command()
        .args(args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once some records are written, Ctrl-C.
    let started = std::time::Instant::now();
    while std::fs::read(&out).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count()) < 20 {
        assert!(
            started.elapsed().as_secs() < 60,
            "no records after a minute"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SAFETY: kill(2) on the child's own pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let end = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&end.stderr);
    let written = records(&out).len();
    assert!(written < n, "the batch ended before Ctrl-C: {err}");
    assert_eq!(end.status.code(), Some(130), "{err}");
    assert!(err.contains("notebooks kept;"), "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.ends_with('\n'), "only whole records");

    let (code, _, err) = nbenv_in(&ctx, None, &args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(&format!("{written} skipped")), "{err}");
    let all = records(&out);
    assert_eq!(all.len(), n);
    assert_eq!(by_path(&all).len(), n);
}

#[test]
fn a_notebook_past_its_time_limit_is_a_timeout_record() {
    let server = toolkit_index();
    // The index takes 3 s to answer about toolkit: past the 1 s limit before indexing starts.
    server.delay_next("/simple/toolkit/", 10, std::time::Duration::from_secs(3));
    let ctx = context();
    let corpus = ctx.root().join("corpus");
    write(
        &corpus,
        "slow.ipynb",
        &ipynb(&["import toolkit", "toolkit.kept()"]),
    );
    write(
        &corpus,
        "quick.ipynb",
        &ipynb(&["import json", "json.dumps({})"]),
    );
    let out = ctx.root().join("r.jsonl");
    let url = server.index_url();
    let (code, _, err) = nbenv_in(
        &ctx,
        Some(&url),
        &[
            "batch",
            corpus.to_str().unwrap(),
            "--python",
            "3.11",
            "--timeout",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let recs = by_path(&records(&out));
    assert_eq!(
        recs["slow.ipynb"]["status"], "timeout",
        "{}",
        recs["slow.ipynb"]
    );
    assert_eq!(recs["slow.ipynb"]["error"]["kind"], "timeout");
    assert!(recs["slow.ipynb"].get("environment").is_none());
    assert_eq!(
        recs["quick.ipynb"]["status"], "ok",
        "{}",
        recs["quick.ipynb"]
    );
    assert!(err.contains("1 ok, 1 timeout"), "{err}");
}

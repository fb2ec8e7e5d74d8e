//! `nbenv bank` end to end against a loopback index: indexing the history of a fixture
//! distribution, querying it, diffing releases, idempotence, failures and resuming.

use std::process::Output;
use std::time::{Duration, Instant};

use crate::support::archives::{sdist_tar_gz, WheelBuilder};
use crate::support::context::TestContext;
use crate::support::server::FixtureFile;

fn json(ctx: &TestContext, args: &[&str]) -> serde_json::Value {
    let out = ctx.output(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

const INIT: &str = "from .core import helper, Model\nfrom . import old\n__version__ = 'x'\n";
const OLD: &str = "def legacy(x):\n    return x\n";

fn core(helper_sig: &str, fit_sig: &str) -> String {
    format!(
        "import os\n\ndef helper({helper_sig}):\n    return a\n\nclass Base:\n    def score(self, X):\n        return 0\n\n    def fit(self, data):\n        return self\n\nclass Model(Base):\n    def fit(self, {fit_sig}):\n        return self\n\ndef _private():\n    pass\n"
    )
}

/// toolkit 0.9 (sdist only), 1.0, 1.1 (helper gains `c`), 1.2 (yanked), 2.0 (`old` removed,
/// `fit` gains `sample_weight`).
fn toolkit_files() -> Vec<FixtureFile> {
    let wheel = |version: &str, helper: &str, fit: &str, with_old: bool| {
        let mut w = WheelBuilder::new("toolkit", version)
            .file("toolkit/core.py", core(helper, fit))
            .file("toolkit/tests/test_core.py", "def test_x():\n    pass\n")
            .requires("numpy>=1.10");
        w = if with_old {
            w.file("toolkit/__init__.py", INIT)
                .file("toolkit/old.py", OLD)
        } else {
            w.file("toolkit/__init__.py", "from .core import helper, Model\n")
        };
        FixtureFile::wheel(&w)
    };
    let sdist = FixtureFile::sdist(
        "toolkit",
        "0.9",
        &[
            ("setup.py", "from setuptools import setup\nsetup()\n"),
            ("toolkit/__init__.py", INIT),
            ("toolkit/core.py", &core("a, b=1", "X, y")),
            ("toolkit/old.py", OLD),
        ],
    );
    vec![
        sdist,
        wheel("1.0", "a, b=1", "X, y", true),
        wheel("1.1", "a, b=1, *, c=None", "X, y", true),
        FixtureFile {
            yanked: Some("oops".into()),
            ..wheel("1.2", "a, b=1, *, c=None", "X, y", true)
        },
        wheel(
            "2.0",
            "a, b=1, *, c=None",
            "X, y=None, sample_weight=None",
            false,
        ),
    ]
}

fn setup() -> TestContext {
    let ctx = TestContext::with_index();
    ctx.server().publish("toolkit", &toolkit_files());
    ctx
}

/// `bank add` of every release of toolkit, reporting in JSON.
const ADD_ALL: &[&str] = &[
    "bank",
    "add",
    "toolkit",
    "--all-versions",
    "--format",
    "json",
];

/// The `results` of `bank query ARGS --format json` (succeeding).
fn query(ctx: &TestContext, args: &[&str]) -> serde_json::Value {
    json(
        ctx,
        &[&["bank", "query"], args, &["--format", "json"]].concat(),
    )["results"]
        .clone()
}

#[test]
fn indexes_a_history_and_answers_queries() {
    let env = setup();
    let report = json(&env, ADD_ALL);
    let r = &report["report"];
    assert_eq!(r["releases_indexed"], 5, "{report}");
    assert_eq!(r["failed"].as_array().unwrap().len(), 0);
    // Unchanged files are parsed once across the history.
    assert!(
        r["parsed_files"].as_u64().unwrap() < r["source_files"].as_u64().unwrap(),
        "{r}"
    );

    let q = query(&env, &["toolkit.helper"]);
    let helper = &q[0];
    assert_eq!(helper["distribution"], "toolkit");
    assert_eq!(helper["kind"], "function");
    assert_eq!(helper["present"][0]["first"], "0.9");
    assert_eq!(helper["present"][0]["last"], "2.0");
    assert_eq!(helper["canonical"][0]["path"], "toolkit.core.helper");
    let changes: Vec<&str> = helper["signature_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["version"].as_str().unwrap())
        .collect();
    assert_eq!(changes, ["0.9", "1.1"]);

    let q = query(&env, &["toolkit.old.legacy"]);
    assert_eq!(q[0]["last"], "1.2");
    assert_eq!(q[0]["latest_indexed"], "2.0");

    // Inherited members are members, and reachable through the alias of the class.
    let q = query(&env, &["toolkit.Model.score"]);
    assert_eq!(q[0]["present"][0]["first"], "0.9");
    assert_eq!(q[0]["canonical"][0]["path"], "toolkit.core.Base.score");
    // A member no class has is not made up.
    assert_eq!(
        env.output(["bank", "query", "toolkit.Model.nothing"])
            .status
            .code(),
        Some(3)
    );
    assert_eq!(q[0]["canonical"][0]["path"], "toolkit.core.Base.score");
    // A member no class has is not made up.
    assert_eq!(
        env.output(["bank", "query", "toolkit.Model.nothing"])
            .status
            .code(),
        Some(3)
    );

    // Test packages and private names are not public APIs.
    assert_eq!(
        env.output(["bank", "query", "toolkit.tests.test_core.test_x"])
            .status
            .code(),
        Some(3)
    );

    let out = env.output(["bank", "query", "toolkit.old.legacy"]);
    assert!(out.status.success());
    let t = text(&out);
    assert!(
        t.contains("present in:  0.9 – 1.2") && t.contains("gone after 1.2"),
        "{t}"
    );

    let diff = json(
        &env,
        &["bank", "diff", "toolkit", "1.1", "2.0", "--format", "json"],
    );
    let names = |k: &str| -> Vec<String> {
        diff[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["path"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(
        names("removed").contains(&"toolkit.old.legacy".to_string()),
        "{diff}"
    );
    assert!(names("added").is_empty(), "{diff}");
    // Members are stored once, under the defining class.
    assert!(
        names("changed").contains(&"toolkit.core.Model.fit".to_string()),
        "{diff}"
    );

    // ... and found through the alias of the class, with their signature history.
    let q = query(&env, &["toolkit.Model.fit"]);
    assert_eq!(q[0]["kind"], "method");
    assert_eq!(q[0]["canonical"][0]["path"], "toolkit.core.Model.fit");
    // The class's own method wins over its base's, as in Python.
    assert_eq!(q[0]["canonical"].as_array().unwrap().len(), 1, "{q}");
    let changes: Vec<&str> = q[0]["signature_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["version"].as_str().unwrap())
        .collect();
    assert_eq!(changes, ["0.9", "2.0"]);

    let m = query(&env, &["--module", "toolkit.old"]);
    assert_eq!(m[0]["last"], "1.2");

    let stats = json(&env, &["bank", "stats", "--format", "json"]);
    assert_eq!(stats["stats"]["indexed_releases"], 5);
    assert!(
        stats["stats"]["naive_rows"].as_u64().unwrap() > stats["stats"]["apis"].as_u64().unwrap()
    );
}

#[test]
fn adding_again_is_idempotent_and_fetches_no_archives() {
    let env = setup();
    json(&env, ADD_ALL);
    let before = json(&env, &["bank", "stats", "--format", "json"])["stats"].clone();
    env.server().clear_log();
    let report = json(&env, ADD_ALL);
    assert_eq!(report["report"]["releases_indexed"], 0);
    assert_eq!(report["report"]["releases_skipped"], 5);
    assert!(
        env.server().requests_for(".whl").is_empty()
            && env.server().requests_for(".tar.gz").is_empty()
    );
    let after = json(&env, &["bank", "stats", "--format", "json"])["stats"].clone();
    assert_eq!(before["apis"], after["apis"]);
    assert_eq!(before["naive_rows"], after["naive_rows"]);

    // The summary cache lives with the HTTP cache, not in the bank: a new bank built with the
    // same cache parses nothing and fetches no source file.
    env.server().clear_log();
    let other = env.root().join("other.sqlite3");
    let out = env
        .command_with(ADD_ALL)
        .arg("--bank")
        .arg(&other)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["report"]["releases_indexed"], 5);
    assert_eq!(report["report"]["parsed_files"], 0, "{report}");

    // --force indexes again and leaves the same bank.
    json(
        &env,
        &[
            "bank",
            "add",
            "toolkit",
            "--all-versions",
            "--force",
            "--format",
            "json",
        ],
    );
    let forced = json(&env, &["bank", "stats", "--format", "json"])["stats"].clone();
    assert_eq!(before["naive_rows"], forced["naive_rows"]);
    assert_eq!(before["apis"], forced["apis"]);
}

#[test]
fn a_broken_release_fails_alone_and_is_retried_later() {
    let env = setup();
    let mut files = toolkit_files();
    let good = files[4].bytes.clone();
    files[4].bytes = b"definitely not a zip".to_vec();
    env.server().publish("toolkit", &files);
    let out = env.output(["bank", "add", "toolkit", "--all-versions"]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out));
    assert!(
        text(&out).contains("toolkit-2.0-py3-none-any.whl"),
        "{}",
        text(&out)
    );
    let stats = json(&env, &["bank", "stats", "--format", "json"]);
    assert_eq!(stats["stats"]["indexed_releases"], 4);
    assert_eq!(stats["stats"]["failed_releases"], 1);

    files[4].bytes = good;
    env.server().publish("toolkit", &files);
    // The index page is cached for a while; a user who knows it changed can ask again.
    let out = env
        .command_with(ADD_ALL)
        .env("NBENV_INDEX_TTL", "0")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["report"]["releases_indexed"], 1,
        "only the failed release is retried"
    );
}

#[test]
fn an_interrupted_build_keeps_finished_releases_and_resumes() {
    let env = setup();
    // The 2.0 wheel answers only after a long pause, so the build is killed while waiting.
    env.server().delay_next(
        "/files/toolkit-2.0-py3-none-any.whl",
        1,
        Duration::from_secs(30),
    );
    let mut child = env
        .command_with(["bank", "add", "toolkit", "--all-versions", "--jobs", "2"])
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let out = env.output(["bank", "stats", "--format", "json"]);
        if out.status.success() {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            // Readers work while the build writes (WAL).
            if v["stats"]["indexed_releases"] == 4 {
                break;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the build never indexed the first four releases"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let q = query(&env, &["toolkit.old.legacy"]);
    assert_eq!(q[0]["last"], "1.2");

    env.server().clear_log();
    let report = json(&env, ADD_ALL);
    assert_eq!(report["report"]["releases_indexed"], 1);
    assert_eq!(report["report"]["releases_skipped"], 4);
    let stats = json(&env, &["bank", "stats", "--format", "json"]);
    assert_eq!(stats["stats"]["indexed_releases"], 5);
}

#[test]
fn bad_banks_and_unknown_names() {
    let env = setup();
    let out = env.output(["bank", "query", "toolkit.helper"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("does not exist"), "{}", text(&out));

    std::fs::write(
        env.bank(),
        "this is not a database, it is a text file with enough bytes to look like one to nobody",
    )
    .unwrap();
    let out = env.output(["bank", "stats"]);
    assert_eq!(out.status.code(), Some(7), "{}", text(&out));
    assert!(
        text(&out).contains(env.bank().to_str().unwrap()),
        "{}",
        text(&out)
    );
    let out = env.output(["bank", "add", "toolkit"]);
    assert_eq!(out.status.code(), Some(7), "{}", text(&out));
    // The file is left as it was.
    assert!(std::fs::read_to_string(env.bank())
        .unwrap()
        .starts_with("this is not a database"));

    // A bank written by a newer nbenv is refused, not rewritten.
    std::fs::remove_file(env.bank()).unwrap();
    assert!(env.output(["bank", "add", "toolkit"]).status.success());
    {
        let conn = rusqlite::Connection::open(env.bank()).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
    }
    let out = env.output(["bank", "add", "toolkit"]);
    assert_eq!(out.status.code(), Some(7), "{}", text(&out));
    assert!(text(&out).contains("schema version 99"), "{}", text(&out));
    let out = env.output(["bank", "query", "toolkit.helper"]);
    assert_eq!(out.status.code(), Some(7), "{}", text(&out));

    std::fs::remove_file(env.bank()).unwrap();
    let out = env.output(["bank", "add", "no-such-dist"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let out = env.output(["bank", "add", "toolkit"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("indexed 1 release of 1 distribution"),
        "{}",
        text(&out)
    );
}

#[test]
fn build_reads_a_package_list() {
    let env = setup();
    let list = env.root().join("packages.txt");
    std::fs::write(&list, "# fixture list\ntoolkit import=toolkit\n").unwrap();
    let report = json(
        &env,
        &[
            "bank",
            "build",
            "--packages",
            list.to_str().unwrap(),
            "--latest",
            "2",
            "--format",
            "json",
        ],
    );
    assert_eq!(report["report"]["releases_indexed"], 2);
    let q = query(&env, &["--module", "toolkit"]);
    assert_eq!(q[0]["first"], "1.2");

    std::fs::write(&list, "toolkit\nbad line here\n").unwrap();
    let out = env.output(["bank", "build", "--packages", list.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(text(&out).contains("packages.txt:2"), "{}", text(&out));
}

#[test]
fn a_release_whose_only_file_is_past_the_size_limit_is_skipped_with_its_reason() {
    let env = setup();
    // 300 KB that do not compress: far more than the Python it carries.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let blob: String = (0..300_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'0' + (x >> 58) as u8)
        })
        .collect();
    let sdist = sdist_tar_gz(
        "bulky",
        "1.0",
        &[("bulky/__init__.py", "x = 1\n"), ("bulky/lib.jar", &blob)],
        "Name: bulky\nVersion: 1.0\n",
    );
    let wheel = WheelBuilder::new("bulky", "2.0").file("bulky/__init__.py", "x = 2\n");
    env.server().publish(
        "bulky",
        &[
            FixtureFile::new("bulky-1.0.tar.gz", sdist),
            FixtureFile::wheel(&wheel),
        ],
    );
    let add = |limit: Option<&str>| {
        let mut cmd = env.command();
        cmd.args(["bank", "add", "bulky", "--all-versions", "--format", "json"]);
        if let Some(limit) = limit {
            cmd.env("NBENV_MAX_SDIST_SIZE", limit);
        }
        cmd.output().unwrap()
    };
    let out = add(Some("100K"));
    assert_eq!(out.status.code(), Some(6), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["report"]["releases_indexed"], 1);
    let failed = &report["report"]["failed"][0];
    assert_eq!(failed["version"], "1.0");
    assert_eq!(failed["kind"], "archive");
    let reason = failed["reason"].as_str().unwrap();
    assert!(
        reason.contains("bulky-1.0.tar.gz") && reason.contains("NBENV_MAX_SDIST_SIZE"),
        "{reason}"
    );
    // Decided from the size the index gives: not a byte of it was downloaded.
    assert!(env.server().requests_for("bulky-1.0.tar.gz").is_empty());

    // With the default limit the next build reads it.
    let out = add(None);
    assert!(out.status.success(), "{}", text(&out));
    let stats = json(&env, &["bank", "stats", "--format", "json"]);
    assert_eq!(stats["stats"]["failed_releases"], 0);
}

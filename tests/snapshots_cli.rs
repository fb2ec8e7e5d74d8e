//! The text people read: every command's help and human output, as reviewed snapshots
//! (`tests/snapshots/`). A change of wording or alignment shows up as a diff to accept with
//! `cargo insta review` (or `INSTA_UPDATE=always cargo nextest run snapshots_cli`), never by
//! accident. The index is the loopback fixture server; ports, temporary paths and timings are
//! replaced by placeholders.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::archives::WheelBuilder;
use support::server::{FixtureFile, PageMode, TestServer};

fn nbenv_command() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nbenv"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("NBENV_") {
            cmd.env_remove(name);
        }
    }
    cmd.env("COLUMNS", "100");
    cmd
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs nbenv and returns what it printed, then the exit code.
fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    format!("{}[exit {}]\n", text(&out), out.status.code().unwrap_or(-1))
}

macro_rules! snapshot {
    ($name:expr, $text:expr) => {
        insta::with_settings!({
            filters => vec![
                (r"http://127\.0\.0\.1:\d+", "http://[index]"),
                (r"/tmp/\.tmp[A-Za-z0-9]+", "[tmp]"),
                (r"in \d+\.\d s", "in [time]"),
                (r"fetched .* of archives", "fetched [sizes] of archives"),
                (r"size on disk:(\s+).*", "size on disk:$1[size]"),
                (r"nbenv \d+\.\d+\.\d+", "nbenv [version]"),
            ],
            prepend_module_to_snapshot => false,
        }, {
            insta::assert_snapshot!($name, $text);
        });
    };
}

#[test]
fn help() {
    let commands: &[&[&str]] = &[
        &[],
        &["infer"],
        &["usage"],
        &["batch"],
        &["report"],
        &["bank"],
        &["bank", "add"],
        &["bank", "build"],
        &["bank", "introspect"],
        &["bank", "query"],
        &["bank", "diff"],
        &["bank", "stats"],
        &["index"],
        &["index", "releases"],
        &["index", "files"],
        &["index", "metadata"],
        &["cache"],
        &["cache", "info"],
        &["cache", "prune"],
        &["completions"],
    ];
    for args in commands {
        let name = if args.is_empty() {
            "help-nbenv".to_string()
        } else {
            format!("help-{}", args.join("-"))
        };
        let out = run(nbenv_command().args(*args).arg("--help"));
        snapshot!(name, out);
    }
    // The short form too, for the top level: what most users see first.
    snapshot!("help-nbenv-short", run(nbenv_command().arg("-h")));
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/notebooks")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn usage_output() {
    for name in [
        "sklearn_old.ipynb",
        "magics_awkward.ipynb",
        "with_helper/analysis.ipynb",
        "python2.ipynb",
        "percent_script.py",
    ] {
        // Relative to the repository, as the README runs it.
        let out = run(nbenv_command()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["usage", &format!("fixtures/notebooks/{name}")]));
        snapshot!(format!("usage-{}", name.replace('/', "-")), out);
    }
    let _ = fixture;
}

fn wheel(name: &str, version: &str, init: &str) -> FixtureFile {
    let w = WheelBuilder::new(name, version)
        .file(&format!("{}/__init__.py", name.replace('-', "_")), init)
        .requires("numpy>=1.10")
        .requires_python(">=3.7");
    FixtureFile {
        upload_time: Some("2020-01-02T03:04:05Z".into()),
        requires_python: Some(">=3.7".into()),
        ..FixtureFile::new(&w.filename(), w.build())
    }
}

#[test]
fn index_and_bank_output() {
    let server = TestServer::start(PageMode::Json);
    server.publish(
        "toolkit",
        &[
            wheel("toolkit", "1.0", "def helper(a):\n    return a\n\ndef gone():\n    pass\n"),
            wheel("toolkit", "2.0", "def helper(a, b=1):\n    return a\n\nclass Model:\n    def fit(self, X):\n        return self\n"),
        ],
    );
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("bank.sqlite3");
    let nbenv = |args: &[&str]| {
        let mut cmd = nbenv_command();
        cmd.args(["--index-url", &server.index_url(), "--cache-dir"])
            .arg(cache.path())
            .arg("--bank")
            .arg(&bank)
            .args(args)
            .env("NBENV_HTTP_RETRIES", "0");
        run(&mut cmd)
    };
    let runs: &[(&str, &[&str])] = &[
        ("index-releases", &["index", "releases", "toolkit"]),
        ("index-files", &["index", "files", "toolkit==1.0"]),
        ("index-files-missing", &["index", "files", "toolkit==9.9"]),
        ("index-metadata", &["index", "metadata", "toolkit==2.0"]),
        ("bank-query-no-bank", &["bank", "query", "toolkit.helper"]),
        ("bank-add", &["bank", "add", "toolkit", "--all-versions"]),
        ("bank-add-again", &["bank", "add", "toolkit==2.0"]),
        ("bank-add-no-match", &["bank", "add", "toolkit>=3"]),
        ("bank-query", &["bank", "query", "toolkit.helper"]),
        ("bank-query-gone", &["bank", "query", "toolkit.gone"]),
        (
            "bank-query-module",
            &["bank", "query", "--module", "toolkit"],
        ),
        ("bank-query-miss", &["bank", "query", "pandas.DataFrame.ix"]),
        ("bank-diff", &["bank", "diff", "toolkit", "1.0", "2.0"]),
        (
            "bank-diff-missing",
            &["bank", "diff", "toolkit", "1.0", "3.0"],
        ),
        ("bank-stats", &["bank", "stats"]),
    ];
    for (name, args) in runs {
        snapshot!(*name, nbenv(args));
    }
}

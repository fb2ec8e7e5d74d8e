//! More whole outputs as reviewed snapshots, beside `human.rs` (whose fixture builders they
//! share): `bank add` and `bank build` in JSON, `bank introspect`, `bank notes`, `bank moves`
//! in JSON, `modernize`, `cache prune`, and `batch` at stage infer with the records it writes.
//! Every command reads the loopback index; nothing touches the network.

use std::process::Command;

use super::human::{added_context, helper_history, notebook, toolkit_context, CACHE_SIZES};
use crate::support::archives::{sdist_tar_gz, WheelBuilder};
use crate::support::context::{TestContext, Uploaded};
use crate::support::server::FixtureFile;
use crate::support::snapshot::run;

/// `bank add` in JSON, on the history `index_and_bank_output` adds as text.
#[test]
fn bank_add_json_output() {
    let ctx = helper_history();
    let out = ctx.printed([
        "bank",
        "add",
        "toolkit",
        "--all-versions",
        "--format",
        "json",
    ]);
    run_snapshot!("bank-add-json", out);
}

/// `bank build` of a package list naming that history, as text and in JSON (each on a bank
/// of its own).
#[test]
fn bank_build_output() {
    let build = |format: &str| {
        let ctx = helper_history();
        let list = ctx.write("packages.txt", "# ==== Fixtures ====\ntoolkit\n");
        run(ctx
            .command()
            .args(["bank", "build", "--packages"])
            .arg(&list)
            .args(["--no-introspect", "--format", format]))
    };
    // The text with `bank add`'s placeholders (as `bank-add`); the JSON with the run
    // placeholders, for its `seconds`.
    snapshot!("bank-build", build("text"));
    run_snapshot!("bank-build-json", build("json"));
}

/// `dynpkg` 1.0, whose `Frame` gains `ix` at import time (in a loop, as pandas 0.x made
/// `DataFrame.ix`): static reading misses it, introspection records it. Scratch venvs go to
/// the context's `tmp/`.
fn dynamic_context() -> TestContext {
    let ctx = TestContext::with_index();
    let init = "class Frame:\n    def head(self, n=5):\n        return n\n\n\
        for _name in ['ix']:\n    setattr(Frame, _name, property(lambda self: self))\n";
    let dynpkg = WheelBuilder::new("dynpkg", "1.0").file("dynpkg/__init__.py", init);
    ctx.publish("dynpkg", &[dynpkg], Uploaded::Yearly(2020));
    let tmp = ctx.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    ctx.env("TMPDIR", tmp)
}

/// The interpreter the `python3` on PATH runs (not a shim in front of it): the one
/// interpreter introspection installs on, whatever else the machine has.
fn python3_executable() -> String {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 on PATH");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `bank introspect` of a release the bank has not indexed: indexed statically, installed
/// with the machine's python3, and what importing it exposes recorded; as text and in JSON
/// (each on a bank of its own). Needs `python3` and uv, as the restore tests do.
#[test]
fn bank_introspect_output() {
    let python = python3_executable();
    for (name, format) in [
        ("bank-introspect", "text"),
        ("bank-introspect-json", "json"),
    ] {
        let ctx = dynamic_context();
        let out = ctx.printed([
            "bank",
            "introspect",
            "dynpkg==1.0",
            "--python",
            &python,
            "--format",
            format,
        ]);
        run_snapshot!(name, out);
    }
}

/// `toolkit.old.helper` (1.0, 1.1) moved to `toolkit.new.helper` (1.1 on); `Frame.sort`
/// (1.0, 1.1) gave way to `Frame.sort_values` (1.1 on), which only 1.2's sdist says, in
/// `doc/whatsnew/v1.1.rst`. Yearly wheels from 2016, and 1.2's sdist.
fn moved_context() -> TestContext {
    let ctx = TestContext::with_index();
    let init = |sort: bool, sort_values: bool| {
        let mut src =
            String::from("class Frame:\n    def __init__(self, x):\n        self.x = x\n");
        if sort {
            src.push_str("    def sort(self, columns=None):\n        return sorted(self.x)\n");
        }
        if sort_values {
            src.push_str("    def sort_values(self, by=None):\n        return sorted(self.x)\n");
        }
        src
    };
    let helper = "def helper(a, b=1):\n    return a + b\n";
    let release = |version: &str, old: bool, new: bool| {
        let mut w =
            WheelBuilder::new("toolkit", version).file("toolkit/__init__.py", init(old, new));
        if old {
            w = w.file("toolkit/old.py", helper);
        }
        if new {
            w = w.file("toolkit/new.py", helper);
        }
        w
    };
    let wheels = [
        release("1.0", true, false),
        release("1.1", true, true),
        release("1.2", false, true),
    ];
    let mut files: Vec<FixtureFile> = wheels
        .iter()
        .zip(["2016-01-01", "2017-01-01", "2018-01-01"])
        .map(|(w, day)| FixtureFile::wheel(w).uploaded(day))
        .collect();
    let whatsnew = "Version 1.1\n===========\n\nDeprecations\n------------\n\n\
        - ``Frame.sort(columns=...)`` is deprecated in favor of ``Frame.sort_values(by=...)``\n";
    let sdist = sdist_tar_gz(
        "toolkit",
        "1.2",
        &[
            ("toolkit/__init__.py", &init(false, true)),
            ("toolkit/new.py", helper),
            ("doc/whatsnew/v1.1.rst", whatsnew),
        ],
        "Metadata-Version: 2.1\nName: toolkit\nVersion: 1.2\n",
    );
    files.push(FixtureFile::new("toolkit-1.2.tar.gz", sdist).uploaded("2018-01-01"));
    ctx.server().publish("toolkit", &files);
    ctx
}

/// [`moved_context`] with every release indexed and 1.2's notes read.
fn moved_bank() -> TestContext {
    let ctx = moved_context();
    for args in [
        &["bank", "add", "toolkit", "--all-versions"][..],
        &["bank", "notes", "toolkit"],
    ] {
        let out = ctx.printed(args);
        assert!(out.ends_with("[exit 0]\n"), "{args:?}: {out}");
    }
    ctx
}

/// `bank notes`: a release's change notes read from its sdist, as text and in JSON (each on a
/// bank of its own), and a release read before.
#[test]
fn bank_notes_output() {
    let ctx = moved_context();
    snapshot!("bank-notes", ctx.printed(["bank", "notes", "toolkit"]));
    snapshot!(
        "bank-notes-again",
        ctx.printed(["bank", "notes", "toolkit", "1.2"])
    );
    let ctx = moved_context();
    snapshot!(
        "bank-notes-json",
        ctx.printed(["bank", "notes", "toolkit", "--format", "json"])
    );
}

/// `bank moves` in JSON: a move proven by the releases, and a change note (the text is
/// `bank::moves`' snapshot).
#[test]
fn bank_moves_json_output() {
    let ctx = moved_bank();
    snapshot!(
        "bank-moves-json",
        ctx.printed(["bank", "moves", "toolkit", "--format", "json"])
    );
}

/// `modernize --no-run`: the diff, the evidence of each change, and the files written, as
/// text and in JSON. Run in the context's directory, so that paths are relative.
#[test]
fn modernize_output() {
    let ctx = moved_bank();
    notebook(
        &ctx,
        "nb.ipynb",
        &[
            "from toolkit.old import helper\nimport toolkit",
            "f = toolkit.Frame([3, 1, 2])\nprint(helper(1), f.sort(columns='x'))",
        ],
    );
    let modernize = |format: &str| {
        run(ctx.command().current_dir(ctx.root()).args([
            "modernize",
            "nb.ipynb",
            "--no-run",
            "--format",
            format,
        ]))
    };
    snapshot!("modernize", modernize("text"));
    snapshot!("modernize-json", modernize("json"));
}

/// `cache prune` (not a dry run) on a cache that holds what a `bank add` fetched, as text and
/// in JSON (each on a cache of its own).
#[test]
fn cache_prune_output() {
    for (name, format) in [("cache-prune", "text"), ("cache-prune-json", "json")] {
        let ctx = added_context();
        let out = ctx.printed(["cache", "prune", "--format", format]);
        filtered_snapshot!(CACHE_SIZES, name, out);
    }
}

/// `batch` at stage infer: its summary, and the records it appends (one JSON document a
/// line, in the order measured).
#[test]
fn batch_infer_output() {
    let ctx = toolkit_context().env("NBENV_INDEX_TTL", "0");
    notebook(
        &ctx,
        "corpus/old.ipynb",
        &["import toolkit", "toolkit.old_api()"],
    );
    notebook(
        &ctx,
        "corpus/sub/new.ipynb",
        &[
            "import toolkit\nimport nowhere_to_be_found",
            "toolkit.kept()",
        ],
    );
    ctx.write("corpus/broken.ipynb", "{\"cells\": [");
    let python = crate::support::cli::python3_version();
    let out = ctx.path("records.jsonl");
    let summary = run(ctx
        .command()
        .arg("batch")
        .arg(ctx.path("corpus"))
        .args([
            "--stage", "infer", "--python", &python, "--jobs", "1", "--out",
        ])
        .arg(&out));
    run_snapshot!("batch-infer", summary);
    let records = std::fs::read_to_string(&out).unwrap();
    assert_eq!(records.lines().count(), 3, "{records}");
    filtered_snapshot!(COMPACT_JSON, "batch-infer-records", records);
}

/// What [`RUNS`] replaces in JSON printed with spaces, in JSON written compactly (a batch
/// record a line): durations, the machine's Python, nbenv's version.
///
/// [`RUNS`]: crate::support::snapshot::RUNS
const COMPACT_JSON: &[(&str, &str)] = &[
    (r#""([a-z_]+_ms)":\d+(\.\d+)?(e-?\d+)?"#, r#""$1":[time]"#),
    (
        r#""python":"3\.\d+(\.\d+)?""#,
        r#""python":"[python-version]""#,
    ),
    (r#""nbenv":"\d+\.\d+\.\d+[^"]*""#, r#""nbenv":"[version]""#),
];

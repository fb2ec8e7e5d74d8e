//! Successors the libraries' own change notes name (issue 37, item 1). The loopback
//! `tabular` 1.0 and 1.1 have `Frame.sort(columns=None)`, 1.1 also `Frame.sort_values(by)`;
//! 1.2 has `sort_values` and `sort_index`, not `sort`; `Series` is a `Frame`, and `load`
//! returns one. No release warns: only 1.2's sdist says, in `doc/whatsnew/v1.1.rst`, what
//! replaced `sort`, and says it three times (`Frame.sort()` by `sort_index()`,
//! `Frame.sort(columns=...)` by `sort_values(by=...)`, `Series.sort()` by `sort_values()`);
//! and, in a warning printed in an example, that the function `rolling_mean` (1.0, 1.1) is
//! replaced by `Frame.rolling(window=2).mean()` (a method chain, 1.1 on).

use serde_json::{json, Value};

use super::{code_notebook, modernize_and_run, run_in, sources};
use crate::support::archives::{sdist_tar_gz, WheelBuilder};
use crate::support::context::TestContext;
use crate::support::server::FixtureFile;

const WHATSNEW_1_1: &str = "Version 1.1\n===========\n\nDeprecations\n------------\n\n\
- ``Frame.sort()`` is deprecated in favor of :meth:`Frame.sort_index`\n\
- ``Frame.sort(columns=...)`` is deprecated in favor of\n  ``Frame.sort_values(by=...)`` (:issue:`12`)\n\
- ``Series.sort()`` is deprecated in favor of ``Series.sort_values()``\n\n\
.. code-block:: ipython\n\n   In [2]: tb.rolling_mean(f, 2)\n\
           FutureWarning: tb.rolling_mean is deprecated for Frame and will be removed in a future version, replace with\n\
                          Frame.rolling(window=2).mean()\n\
- The ``ascending`` keyword of ``Frame.sort_values`` is deprecated, use ``order``\n";

const WHATSNEW_1_2: &str =
    "Version 1.2\n===========\n\n- Removed ``Frame.sort`` (deprecated since 1.1).\n";

/// `tabular` 1.0–1.2 as wheels, and 1.2's sdist with its notes.
fn publish(ctx: &TestContext) {
    let frame = |sort: bool, sort_values: bool, sort_index: bool| {
        let mut src =
            String::from("class Frame:\n    def __init__(self, x):\n        self.x = list(x)\n");
        if sort {
            src.push_str("    def sort(self, columns=None):\n        return sorted(self.x)\n");
        }
        if sort_values {
            src.push_str("    def sort_values(self, by=None):\n        return sorted(self.x)\n");
            src.push_str(
                "    def rolling(self, window):\n        return Rolling(self.x, window)\n",
            );
        }
        if sort_index {
            src.push_str("    def sort_index(self):\n        return list(self.x)\n");
        }
        // A `Series` whose `sort` goes with the `Frame`'s, and a function returning a `Frame`.
        src.push_str("\nclass Series(Frame):\n    pass\n\ndef load(x):\n    return Frame(x)\n");
        // Rolling means: a function while `sort` is there, a method chain from `sort_values` on.
        src.push_str("\ndef _means(x, w):\n    return [sum(x[i - w + 1:i + 1]) / w for i in range(w - 1, len(x))]\n");
        if sort {
            src.push_str(
                "\ndef rolling_mean(frame, window):\n    return _means(frame.x, window)\n",
            );
        }
        if sort_values {
            src.push_str("\nclass Rolling:\n    def __init__(self, x, w):\n        self.x, self.w = x, w\n    def mean(self):\n        return _means(self.x, self.w)\n");
        }
        src
    };
    let wheel = |v: &str, year: u32, src: String| {
        let w = WheelBuilder::new("tabular", v).file("tabular/__init__.py", src);
        FixtureFile {
            upload_time: Some(format!("{year}-01-01T00:00:00Z")),
            ..FixtureFile::new(&w.filename(), w.build())
        }
    };
    let sdist = FixtureFile {
        upload_time: Some("2022-01-01T00:00:00Z".into()),
        ..FixtureFile::new(
            "tabular-1.2.tar.gz",
            sdist_tar_gz(
                "tabular",
                "1.2",
                &[
                    ("tabular/__init__.py", &frame(false, true, true)),
                    ("doc/whatsnew/v1.1.rst", WHATSNEW_1_1),
                    ("doc/whatsnew/v1.2.rst", WHATSNEW_1_2),
                    (
                        "doc/whatsnew/index.rst",
                        "Release notes\n\n- ``a`` is replaced by ``b``\n",
                    ),
                ],
                "Metadata-Version: 2.1\nName: tabular\nVersion: 1.2\n",
            ),
        )
    };
    ctx.server().publish(
        "tabular",
        &[
            wheel("1.0", 2020, frame(true, false, false)),
            wheel("1.1", 2021, frame(true, true, false)),
            wheel("1.2", 2022, frame(false, true, true)),
            sdist,
        ],
    );
}

fn context() -> TestContext {
    let ctx = TestContext::with_index();
    publish(&ctx);
    let run = ctx.run(["bank", "add", "tabular", "--all-versions"]);
    assert_eq!(run.code, 0, "{}", run.text());
    ctx
}

/// A notebook sorting a `Frame` it makes, as `call` says.
fn notebook(call: &str) -> String {
    code_notebook(&[
        "import tabular as tb".to_string(),
        "f = tb.Frame([3, 1, 2])".to_string(),
        format!("print({call})"),
    ])
}

#[test]
fn a_releases_notes_are_read_once_from_its_sdist_and_listed_by_bank_moves() {
    let ctx = context();
    let run = ctx.run(["bank", "notes", "tabular"]);
    assert_eq!(run.code, 0, "{}", run.text());
    assert_eq!(
        run.stdout,
        "tabular 1.2: read: tabular-1.2.tar.gz: 2 notes files, 4 old APIs named with a replacement\n  `nbenv bank moves tabular` lists them\n"
    );
    let again = ctx.run(["bank", "notes", "tabular", "1.2"]);
    assert!(
        again
            .stdout
            .contains("read before (--force reads it again)"),
        "{}",
        again.text()
    );
    let json = ctx.run(["bank", "notes", "tabular", "--force", "--format", "json"]);
    let kept: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(kept["already"], false, "{kept}");
    assert_eq!(kept["notes"], 4);

    let moves = ctx.run(["bank", "moves", "tabular"]);
    assert_eq!(moves.code, 0, "{}", moves.text());
    insta::with_settings!({ prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("bank-moves-change-notes", moves.stdout);
    });

    // A release with no sdist has no notes to read: said, exit 3, and kept as such.
    let none = ctx.run(["bank", "notes", "tabular", "1.0"]);
    assert_eq!(none.code, 3, "{}", none.text());
    assert!(
        none.stderr.contains("tabular 1.0 has no sdist nbenv reads"),
        "{}",
        none.stderr
    );
    let missing = ctx.run(["bank", "notes", "tabular", "9.9"]);
    assert_eq!(missing.code, 3, "{}", missing.text());
    assert!(
        missing.stderr.contains("no release 9.9"),
        "{}",
        missing.stderr
    );
}

/// Notes need no indexed release: `bank moves` lists them for a distribution the bank has
/// only read the notes of, and says how to index its releases.
#[test]
fn notes_of_a_distribution_never_indexed_are_listed() {
    let ctx = TestContext::with_index();
    publish(&ctx);
    let before = ctx.run(["bank", "moves", "tabular"]);
    assert_eq!(before.code, 3, "{}", before.text());
    let run = ctx.run(["bank", "notes", "tabular"]);
    assert_eq!(run.code, 0, "{}", run.text());
    let moves = ctx.run(["bank", "moves", "tabular"]);
    assert_eq!(moves.code, 0, "{}", moves.text());
    let lines: Vec<&str> = moves.stdout.lines().take(3).collect();
    assert_eq!(
        lines,
        [
            "tabular: 0 APIs moved (of 0 indexed releases)",
            "  a removal shows only between indexed releases: `nbenv bank add tabular --all-versions` indexes them",
            "change notes (4 old APIs, read from the sdist of 1.2; candidates, kept only when a run passes):",
        ]
    );
}

#[test]
fn modernize_reads_the_notes_of_the_removal_and_proposes_their_successor() {
    let ctx = context();
    std::fs::write(ctx.path("nb.ipynb"), notebook("f.sort(columns='x')")).unwrap();
    let run = run_in(
        &ctx,
        &["modernize", "nb.ipynb", "--no-run", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.text());
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    let change = &json["changes"][0];
    assert_eq!(change["old"], "tabular.Frame.sort", "{json}");
    assert_eq!(change["new"], ".sort_values(…)");
    let evidence = &change["evidence"];
    assert_eq!(evidence["kind"], "change-note");
    assert_eq!(evidence["file"], "doc/whatsnew/v1.1.rst");
    assert_eq!(evidence["line"], 8);
    assert_eq!(evidence["read_from"], "1.2");
    assert_eq!(evidence["keywords"], json!([["columns", "by"]]));
    assert_eq!(
        evidence["sentence"],
        "``Frame.sort(columns=...)`` is deprecated in favor of ``Frame.sort_values(by=...)`` (:issue:`12`)"
    );
    assert_eq!(change["trial"], "untried");

    // On what a call returned: of the two classes whose `sort` the notes name, the one
    // whose note is written with the keyword the call passes.
    std::fs::write(
        ctx.path("loaded.ipynb"),
        notebook("tb.load([3, 1, 2]).sort(columns='x')"),
    )
    .unwrap();
    let run = run_in(
        &ctx,
        &["modernize", "loaded.ipynb", "--no-run", "--format", "json"],
    );
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["changes"][0]["old"], "tabular.Frame.sort", "{json}");
    assert_eq!(json["changes"][0]["new"], ".sort_values(…)", "{json}");

    // The text report cites the file, the line and the sentence.
    let text = run_in(&ctx, &["modernize", "nb.ipynb", "--no-run"]);
    assert!(
        text.stdout.contains("change note: tabular 1.2's sdist, doc/whatsnew/v1.1.rst:8 (on 1.1): \"``Frame.sort(columns=...)`` is deprecated in favor of ``Frame.sort_values(by=...)`` (:issue:`12`)\", naming Frame.sort_values(by=...) (tabular.Frame.sort_values in the newest release); keywords columns= -> by="),
        "{}",
        text.stdout
    );
}

/// Needs `python3` and uv, as the restore tests do.
#[test]
fn a_change_note_successor_is_kept_when_the_modernized_run_passes() {
    let ctx = context();
    for (name, call, written) in [
        (
            "values",
            "f.sort(columns='x')",
            "print(f.sort_values(by='x'))",
        ),
        ("index", "f.sort()", "print(f.sort_index())"),
        (
            "chain",
            "tb.rolling_mean(f, 2)",
            "print(f.rolling(2).mean())",
        ),
    ] {
        std::fs::write(ctx.path(&format!("{name}.ipynb")), notebook(call)).unwrap();
        let run = modernize_and_run(&ctx, name);
        assert_eq!(run.code, 0, "{}", run.text());
        assert_eq!(
            sources(&ctx.path(&format!("{name}.modern.ipynb")))[2],
            written
        );
        let pins = std::fs::read_to_string(ctx.path(&format!("{name}.txt"))).unwrap();
        assert!(pins.contains("tabular==1.2"), "{pins}");
        let report: Value =
            serde_json::from_slice(&std::fs::read(ctx.path(&format!("{name}.json"))).unwrap())
                .unwrap();
        assert_eq!(report["changes"][0]["trial"], "kept", "{report}");
        assert_eq!(report["changes"][0]["evidence"]["kind"], "change-note");
    }
}

/// A notebook whose code the analysis cannot place: `frame` is a parameter, so nothing says
/// its `sort` is `Frame.sort`. Only the run does.
fn notebook_in_a_function(call: &str) -> String {
    let cells: Vec<Value> = [
        "import tabular as tb",
        &format!("def ordered(frame):\n    return {call}"),
        "print(ordered(tb.Frame([3, 1, 2])))",
    ]
    .iter()
    .map(|src| {
        json!({"cell_type": "code", "execution_count": null, "metadata": {},
               "outputs": [], "source": [src]})
    })
    .collect();
    json!({"cells": cells,
           "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
           "nbformat": 4, "nbformat_minor": 2})
    .to_string()
}

/// A run that repairs forward (issue 37, item 3): statically nothing moves (the receiver is a
/// parameter); the modernized run on tabular 1.2 stops at `'Frame' object has no attribute
/// 'sort'`; the notes of 1.2 name `sort_values(by=...)` for `sort(columns=...)`, so the code
/// moves there and runs again on the same release, to the end. The report says what the run
/// met and cites the note. Needs `python3` and uv, as the restore tests do.
#[test]
fn a_run_that_meets_a_removed_method_moves_the_code_past_it() {
    let ctx = context();
    std::fs::write(
        ctx.path("param.ipynb"),
        notebook_in_a_function("frame.sort(columns='x')"),
    )
    .unwrap();
    let still = run_in(
        &ctx,
        &["modernize", "param.ipynb", "--no-run", "--format", "json"],
    );
    let json: Value = serde_json::from_str(&still.stdout).unwrap();
    assert_eq!(json["changes"], json!([]), "{json}");

    let run = modernize_and_run(&ctx, "param");
    assert_eq!(run.code, 0, "{}", run.text());
    assert_eq!(
        sources(&ctx.path("param.modern.ipynb"))[1],
        "def ordered(frame):\n    return frame.sort_values(by='x')"
    );
    let pins = std::fs::read_to_string(ctx.path("param.txt")).unwrap();
    assert!(pins.contains("tabular==1.2"), "{pins}");
    let report: Value =
        serde_json::from_slice(&std::fs::read(ctx.path("param.json")).unwrap()).unwrap();
    assert_eq!(
        report["met"],
        json!([{"api": "tabular.Frame.sort", "distribution": "tabular", "version": "1.2",
                "cell": 2, "round": 1, "moved": true}]),
        "{report}"
    );
    let change = &report["changes"][0];
    assert_eq!(change["old"], "tabular.Frame.sort", "{report}");
    assert_eq!(change["evidence"]["kind"], "change-note");
    assert_eq!(change["written"], true);
    assert!(change.get("trial").is_none(), "{report}");
    assert!(
        run.stderr
            .contains("moved the code forward past what the run met: `tabular.Frame.sort` -> `.sort_values(…)` (change-note); running it again"),
        "{}",
        run.stderr
    );
}

/// `restore --prefer modern` and `batch --prefer modern` move forward as `modernize` does:
/// the modernized notebook written beside the input is the code that ran, the mode line
/// counts the moves its runs made, and the batch record counts what the runs met and the
/// evidence kinds of the changes kept.
#[test]
fn restore_and_batch_preferring_modern_move_forward_too() {
    let ctx = context();
    std::fs::create_dir(ctx.path("nb")).unwrap();
    std::fs::write(
        ctx.path("nb/param.ipynb"),
        notebook_in_a_function("frame.sort(columns='x')"),
    )
    .unwrap();
    let run = super::prefer::restore_modern(&ctx, "nb/param.ipynb", &[]);
    assert_eq!(run.code, 0, "{}", run.text());
    assert!(
        run.stderr.contains(
            "mode: modern: the modernized notebook (1 change, 1 moved forward by its runs) ran to the end (written to nb/param.modern.ipynb)"
        ),
        "{}",
        run.text()
    );
    assert_eq!(
        sources(&ctx.path("nb/param.modern.ipynb"))[1],
        "def ordered(frame):\n    return frame.sort_values(by='x')"
    );
    std::fs::remove_file(ctx.path("nb/param.modern.ipynb")).unwrap();

    let out = ctx.path("restore.jsonl");
    let python = crate::support::cli::python3_version();
    let run = run_in(
        &ctx,
        &[
            "batch",
            "nb",
            "--stage",
            "restore",
            "--prefer",
            "modern",
            "--python",
            &python,
            "--no-kernel-runtime",
            "--before",
            "none",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.text());
    let text = std::fs::read_to_string(&out).unwrap();
    let record: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(record["mode"], "modern", "{record}");
    assert_eq!(
        record["modern"],
        json!({"changes": 1, "unmoved": 0, "ran": true, "kinds": {"change-note": 1},
               "met": 1, "moved_by_runs": 1}),
        "{record}"
    );
}

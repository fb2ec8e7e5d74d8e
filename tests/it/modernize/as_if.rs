//! Calls that do nothing now, by the library's own change notes (issue 37): the loopback
//! `plotkit` 1.0 and 2.0 have `hold(b=None)`, 3.0 not; 3.0's sdist says, as matplotlib
//! 3.0's `doc/api/api_changes.rst` does, "Matplotlib now always behaves as if
//! ``hold=True``". A call passing just `True` goes (its statement, or `pass` where it is its
//! block's only one), and so does `hold` from the import once every call went.

use serde_json::{json, Value};

use super::{code_notebook, modernize_and_run, run_in, sources};
use crate::support::archives::{sdist_tar_gz, WheelBuilder};
use crate::support::context::TestContext;
use crate::support::server::FixtureFile;

/// matplotlib 3.0.0's paragraph, whole.
const API_CHANGES: &str = "API Changes for 3.0.0\n=====================\n\nRemovals\n--------\n\n\
Hold machinery\n``````````````\n\nSetting or unsetting ``hold`` (deprecated in version 2.1) has now\n\
been completely removed. Plotkit now always behaves as if ``hold=True``.\n\
To clear an axes you can manually use :meth:`~.axes.Axes.cla()`,\n\
or to clear an entire figure use :meth:`~.figure.Figure.clf()`.\n";

fn publish(ctx: &TestContext) {
    let source = |hold: bool| {
        let mut src = String::from("_held = [True]\n\ndef plot(xs):\n    return list(xs)\n");
        if hold {
            src.push_str("\ndef hold(b=None):\n    _held[0] = not _held[0] if b is None else b\n");
        }
        src
    };
    let wheel = |v: &str, year: u32, hold: bool| {
        let w = WheelBuilder::new("plotkit", v).file("plotkit/__init__.py", source(hold));
        FixtureFile {
            upload_time: Some(format!("{year}-01-01T00:00:00Z")),
            ..FixtureFile::new(&w.filename(), w.build())
        }
    };
    let sdist = FixtureFile {
        upload_time: Some("2022-01-01T00:00:00Z".into()),
        ..FixtureFile::new(
            "plotkit-3.0.tar.gz",
            sdist_tar_gz(
                "plotkit",
                "3.0",
                &[
                    ("plotkit/__init__.py", &source(false)),
                    ("doc/api/api_changes.rst", API_CHANGES),
                ],
                "Metadata-Version: 2.1\nName: plotkit\nVersion: 3.0\n",
            ),
        )
    };
    ctx.server().publish(
        "plotkit",
        &[
            wheel("1.0", 2020, true),
            wheel("2.0", 2021, true),
            wheel("3.0", 2022, false),
            sdist,
        ],
    );
}

fn context() -> TestContext {
    let ctx = TestContext::with_index();
    publish(&ctx);
    let run = ctx.run(["bank", "add", "plotkit", "--all-versions"]);
    assert_eq!(run.code, 0, "{}", run.text());
    ctx
}

/// `hold(True)` on a line of its own, alone in a loop's block, and (in `toggled`) a call
/// passing something else.
fn notebook(last: &str) -> String {
    code_notebook(&[
        "from plotkit import plot, hold",
        "hold(True)\nprint(plot([1, 2]))",
        &format!("for i in range(2):\n    {last}"),
    ])
}

#[test]
fn the_notes_saying_the_library_always_behaves_as_if_given_a_value_are_listed() {
    let ctx = context();
    let run = ctx.run(["bank", "notes", "plotkit"]);
    assert_eq!(run.code, 0, "{}", run.text());
    let moves = ctx.run(["bank", "moves", "plotkit"]);
    assert_eq!(moves.code, 0, "{}", moves.text());
    let notes: Vec<&str> = moves
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("change notes"))
        .collect();
    assert_eq!(
        notes,
        [
            "change notes (1 old API, read from the sdist of 3.0; candidates, kept only when a run passes):",
            "hold -> nothing (always as if True)  (doc/api/api_changes.rst:10)",
            "    \"Plotkit now always behaves as if ``hold=True``.\"",
        ],
        "{}",
        moves.stdout
    );
}

#[test]
fn a_call_the_library_now_always_behaves_as_if_made_is_proposed_for_removal() {
    let ctx = context();
    std::fs::write(ctx.path("nb.ipynb"), notebook("hold(True)")).unwrap();
    let run = run_in(
        &ctx,
        &["modernize", "nb.ipynb", "--no-run", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.text());
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    let change = &json["changes"][0];
    assert_eq!(change["old"], "plotkit.hold", "{json}");
    assert_eq!(change["new"], "nothing (its calls passing True go)");
    assert_eq!(
        change["evidence"],
        json!({"kind": "change-note", "as_if": "True", "file": "doc/api/api_changes.rst",
               "line": 10, "read_from": "3.0",
               "sentence": "Plotkit now always behaves as if ``hold=True``."}),
        "{json}"
    );
    assert_eq!(change["trial"], "untried");
    assert_eq!(json["unmoved"], json!([]));
}

/// Needs `python3` and uv, as the restore tests do.
#[test]
fn a_call_the_library_now_always_behaves_as_if_made_goes_and_the_notebook_runs() {
    let ctx = context();
    std::fs::write(ctx.path("nb.ipynb"), notebook("hold(True)")).unwrap();
    let run = modernize_and_run(&ctx, "nb");
    assert_eq!(run.code, 0, "{}", run.text());
    assert_eq!(
        sources(&ctx.path("nb.modern.ipynb")),
        [
            "from plotkit import plot",
            "print(plot([1, 2]))",
            "for i in range(2):\n    pass"
        ]
    );
    let pins = std::fs::read_to_string(ctx.path("nb.txt")).unwrap();
    assert!(pins.contains("plotkit==3.0"), "{pins}");
    let report: Value =
        serde_json::from_slice(&std::fs::read(ctx.path("nb.json")).unwrap()).unwrap();
    assert_eq!(report["changes"][0]["trial"], "kept", "{report}");

    // `hold(False)` is no call the notes say does nothing: it is left, with the reason, so
    // `hold` is still imported and the notebook runs on the last release with it.
    std::fs::write(ctx.path("toggled.ipynb"), notebook("hold(False)")).unwrap();
    let run = modernize_and_run(&ctx, "toggled");
    assert_eq!(run.code, 0, "{}", run.text());
    assert_eq!(
        sources(&ctx.path("toggled.modern.ipynb"))[..2],
        ["from plotkit import plot, hold", "print(plot([1, 2]))"]
    );
    let pins = std::fs::read_to_string(ctx.path("toggled.txt")).unwrap();
    assert!(pins.contains("plotkit==2.0"), "{pins}");
    let report: Value =
        serde_json::from_slice(&std::fs::read(ctx.path("toggled.json")).unwrap()).unwrap();
    assert!(
        report["left"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["why"]["detail"]
                == "the notes say only a call passing just `True` does nothing now"),
        "{report}\n{}",
        run.text()
    );
}

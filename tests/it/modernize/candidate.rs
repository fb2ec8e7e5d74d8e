//! Successors only a deprecation warning names. The loopback numpy 1.22's `ndarray.as_list`
//! warns "Use .values instead" and `ndarray.head_values` "Use .first instead"; 1.23 has
//! neither, only the properties. `.values` runs and is kept; `.first` makes the notebook
//! fail (`len` of a float) and is dropped: the notebook is restored without it, and the
//! rounds pin numpy 1.22, which still has the old method.

use serde_json::{json, Value};

use super::prefer::restore_modern;
use super::{code_notebook, context, modernize_and_run, rewritten_json, run_in, sources};

/// A notebook printing `len(<call>)` of an `ndarray` the code makes.
fn notebook(call: &str) -> String {
    notebook_of("x = np.ndarray([1.5, 2.5])", call)
}

fn notebook_of(made: &str, call: &str) -> String {
    code_notebook(&[
        "import numpy as np".to_string(),
        made.to_string(),
        format!("print(len({call}))"),
    ])
}

fn report(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Without a run nothing confirms a candidate: it is reported, not written.
#[test]
fn a_candidate_is_not_written_without_a_run() {
    let ctx = context();
    std::fs::write(ctx.path("c.ipynb"), notebook("x.as_list()")).unwrap();
    let json = rewritten_json(&ctx, &["c.ipynb", "-o", "out.ipynb"]);
    let change = &json["changes"][0];
    assert_eq!(change["old"], "numpy.ndarray.as_list", "{json}");
    assert_eq!(change["new"], ".values");
    assert_eq!(change["evidence"]["kind"], "named-in-warning");
    assert_eq!(change["evidence"]["candidate"], ".values");
    assert_eq!(change["evidence"]["successor"], "numpy.ndarray.values");
    assert_eq!(change["evidence"]["form"]["form"], "attribute");
    assert_eq!(change["trial"], "untried");
    assert_eq!(change["written"], false);
    assert_eq!(json["diff"], "");
    assert_eq!(
        sources(&ctx.path("out.ipynb"))[2],
        "print(len(x.as_list()))"
    );
    // Issue 37 item 5: the report lists it apart from what was changed, and says why.
    let text = run_in(
        &ctx,
        &["modernize", "c.ipynb", "-o", "out.ipynb", "--no-run"],
    );
    assert_eq!(text.code, 0, "{}", text.text());
    assert!(!text.text().contains("Changed ("), "{}", text.text());
    assert!(
        text.text().contains("Proposed, not written (1):"),
        "{}",
        text.text()
    );
    assert!(
        text.text()
            .contains("    not written: no run confirmed it (--no-run)"),
        "{}",
        text.text()
    );

    // On what a function returned, the one deprecated method of that name in its
    // distribution: `np.array(...)`'s `as_list` is `ndarray.as_list`.
    std::fs::write(
        ctx.path("f.ipynb"),
        notebook_of("x = np.array([1.5, 2.5])", "x.as_list()"),
    )
    .unwrap();
    let json = rewritten_json(&ctx, &["f.ipynb"]);
    assert_eq!(json["changes"][0]["old"], "numpy.ndarray.as_list", "{json}");

    // Both ways in one notebook: one change, at both places.
    std::fs::write(
        ctx.path("b.ipynb"),
        notebook_of(
            "x = np.ndarray([1.5, 2.5])\ny = np.array([1.5])\nprint(y.as_list())",
            "x.as_list()",
        ),
    )
    .unwrap();
    let json = rewritten_json(&ctx, &["b.ipynb"]);
    let changes = json["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{json}");
    assert_eq!(
        changes[0]["at"],
        json!([{"cell": 2, "line": 3}, {"cell": 3, "line": 1}]),
        "{json}"
    );
    assert_eq!(changes[0]["trial"], "untried");
}

/// Needs `python3` and uv, as the restore tests do.
#[test]
fn a_candidate_is_kept_only_when_the_run_passes_with_it() {
    let ctx = context();
    let modernize = |name: &str| modernize_and_run(&ctx, name);

    std::fs::write(ctx.path("kept.ipynb"), notebook("x.as_list()")).unwrap();
    let run = modernize("kept");
    assert_eq!(run.code, 0, "{}", run.text());
    assert!(run.stderr.contains("they are kept"), "{}", run.stderr);
    assert_eq!(
        sources(&ctx.path("kept.modern.ipynb"))[2],
        "print(len(x.values))"
    );
    let pins = std::fs::read_to_string(ctx.path("kept.txt")).unwrap();
    assert!(pins.contains("numpy==1.23"), "{pins}");
    let kept = report(&ctx.path("kept.json"));
    assert_eq!(kept["changes"][0]["trial"], "kept", "{kept}");
    assert_eq!(kept["changes"][0]["written"], true);

    std::fs::write(ctx.path("dropped.ipynb"), notebook("x.head_values()")).unwrap();
    let run = modernize("dropped");
    assert_eq!(run.code, 0, "{}", run.text());
    assert!(run.stderr.contains("they are dropped"), "{}", run.stderr);
    // Written without it, and restored where the old method still is.
    assert_eq!(
        sources(&ctx.path("dropped.modern.ipynb"))[2],
        "print(len(x.head_values()))"
    );
    let pins = std::fs::read_to_string(ctx.path("dropped.txt")).unwrap();
    assert!(pins.contains("numpy==1.22"), "{pins}");
    let dropped = report(&ctx.path("dropped.json"));
    assert_eq!(dropped["changes"][0]["trial"], "dropped", "{dropped}");
    assert_eq!(dropped["changes"][0]["written"], false);
    assert_eq!(dropped["diff"], "");
}

/// `restore --prefer modern`: the candidates first, without them when they do no better, the
/// era last. Needs `python3` and uv, as the restore tests do.
#[test]
fn restore_prefers_the_modernized_notebook_with_its_candidates_when_they_run() {
    let ctx = context();
    let restore = |nb: &str| restore_modern(&ctx, nb, &["--format", "json"]);
    std::fs::write(ctx.path("kept.ipynb"), notebook("x.as_list()")).unwrap();
    let run = restore("kept.ipynb");
    assert_eq!(run.code, 0, "{}", run.text());
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(out["mode"], "modern", "{out}");
    assert_eq!(out["modern"]["candidates"], "kept", "{out}");
    assert_eq!(out["modern"]["changes"], 1, "{out}");
    assert_eq!(
        sources(&ctx.path("kept.modern.ipynb"))[2],
        "print(len(x.values))"
    );

    // Without its candidate the modernized notebook runs (its rounds pin numpy 1.22): that
    // is the modern attempt kept, with no change written.
    std::fs::write(ctx.path("dropped.ipynb"), notebook("x.head_values()")).unwrap();
    let run = restore("dropped.ipynb");
    assert_eq!(run.code, 0, "{}", run.text());
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(out["mode"], "modern", "{out}");
    assert_eq!(out["modern"]["candidates"], "dropped", "{out}");
    assert_eq!(out["modern"]["changes"], 0, "{out}");
    assert_eq!(
        sources(&ctx.path("dropped.modern.ipynb"))[2],
        "print(len(x.head_values()))"
    );
}

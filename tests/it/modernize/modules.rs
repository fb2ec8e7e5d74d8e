//! A notebook's local modules move with it (issue 37): the notebook imports `helper.py`,
//! whose `from sklearn.cross_validation import train_test_split` holds the notebook to
//! scikit-learn 0.18 as surely as its own cells would. The module is moved as the cells are,
//! with its own report; the runs read the moved text in their copy of the folder, the user's
//! file is never written, and `modernize` writes the moved module under `nb.modern.modules/`.

use serde_json::{json, Value};

use super::{code_notebook, context, modernize_and_run, rewritten_json, run_in, sources};
use crate::support::context::TestContext;

const HELPER: &str = "from sklearn.cross_validation import train_test_split\n\n\ndef halves(x):\n    return train_test_split(x)\n";

/// `helper.py` and the notebook `mod.ipynb` calling it.
fn with_helper(ctx: &TestContext) {
    std::fs::write(ctx.path("helper.py"), HELPER).unwrap();
    std::fs::write(
        ctx.path("mod.ipynb"),
        code_notebook(&["import helper", "print(helper.halves(list(range(10)))[1])"]),
    )
    .unwrap();
}

/// The moved module is written under `mod.modern.modules/`; the user's is as it was.
#[track_caller]
fn assert_moved_beside(ctx: &TestContext) {
    assert_eq!(
        std::fs::read_to_string(ctx.path("mod.modern.modules/helper.py")).unwrap(),
        HELPER.replace("cross_validation", "model_selection")
    );
    assert_eq!(
        std::fs::read_to_string(ctx.path("helper.py")).unwrap(),
        HELPER
    );
}

#[test]
fn a_local_modules_removed_apis_are_moved_with_its_own_report() {
    let ctx = context();
    with_helper(&ctx);
    let json = rewritten_json(&ctx, &["mod.ipynb"]);
    assert_eq!(json["changes"], json!([]), "{json}");
    let module = &json["modules"][0];
    assert_eq!(module["notebook"], "helper.py", "{json}");
    assert_eq!(
        module["changes"][0]["old"],
        "sklearn.cross_validation.train_test_split"
    );
    assert_eq!(
        module["changes"][0]["new"],
        "sklearn.model_selection.train_test_split"
    );
    assert_eq!(
        module["changes"][0]["at"],
        json!([{"cell": 1, "line": 1}, {"cell": 1, "line": 5}])
    );
    assert_eq!(json["modules_written"], "mod.modern.modules", "{json}");
    assert_eq!(
        json["diff"],
        "--- helper.py\n+++ helper.py (modernized)\n@@ -1,4 +1,4 @@\n-from sklearn.cross_validation import train_test_split\n+from sklearn.model_selection import train_test_split\n \n \n def halves(x):\n"
    );
    assert_moved_beside(&ctx);

    // The text report places the module's changes on its lines.
    let text = run_in(&ctx, &["modernize", "mod.ipynb", "--no-run"]);
    assert!(
        text.stdout.contains("In the local module helper.py:\n  Changed (1):\n    sklearn.cross_validation.train_test_split -> sklearn.model_selection.train_test_split  (at line 1, line 5)\n"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("Wrote the moved local modules under mod.modern.modules: the modernized runs read them in place of the originals"),
        "{}",
        text.stdout
    );
}

/// Needs `python3` and uv, as the restore tests do.
#[test]
fn the_modernized_notebook_runs_with_its_moved_module_on_todays_releases() {
    let ctx = context();
    with_helper(&ctx);
    let run = modernize_and_run(&ctx, "mod");
    assert_eq!(run.code, 0, "{}", run.text());
    let pins = std::fs::read_to_string(ctx.path("mod.txt")).unwrap();
    assert!(pins.contains("scikit-learn==0.20"), "{pins}");
    let printed: Value = serde_json::from_str(&run.stdout).unwrap();
    let round = &printed["run"]["rounds"][0];
    assert_eq!(
        round["executability"],
        json!({"cells_before_first_error": 2, "code_cells": 2}),
        "{printed}"
    );
    // Inferred from the moved module, not from the file.
    assert!(
        round["requirements"]
            .as_str()
            .unwrap()
            .contains("scikit-learn==0.20  # helper.py line 1 imports sklearn.model_selection"),
        "{printed}"
    );
    assert_eq!(
        sources(&ctx.path("mod.modern.ipynb")),
        ["import helper", "print(helper.halves(list(range(10)))[1])"]
    );
    let report: Value =
        serde_json::from_slice(&std::fs::read(ctx.path("mod.json")).unwrap()).unwrap();
    assert_eq!(
        report["modules"][0]["changes"][0]["written"], true,
        "{report}"
    );
    assert_moved_beside(&ctx);
}

/// `restore --prefer modern` moves the module too, and writes it beside the modernized
/// notebook it keeps. Needs `python3` and uv, as the restore tests do.
#[test]
fn restore_preferring_modern_keeps_the_moved_module_beside_the_notebook() {
    let ctx = context();
    with_helper(&ctx);
    let run = super::prefer::restore_modern(&ctx, "mod.ipynb", &[]);
    assert_eq!(run.code, 0, "{}", run.text());
    assert!(
        run.stderr.contains(
            "ran to the end (written to mod.modern.ipynb, its moved local modules under mod.modern.modules)"
        ),
        "{}",
        run.text()
    );
    assert_moved_beside(&ctx);
}

//! `restore --prefer modern` and `batch --stage restore --prefer modern`, offline: `oldlib`
//! 1.0 has `oldlib.legacy.value`, 1.1 also its twin `oldlib.modern.value`, 2.0 only the
//! twin, which there returns another value. The modernized notebook moves to the twin, runs
//! on 2.0 and stops at the notebook's own assertion; the notebook is then restored in its
//! era (1.1) and that is kept. The fixture of `nbenv modernize` (whose modernized notebook
//! runs) is kept modern. Needs `python3` and uv, as the restore tests do.

use std::path::Path;

use serde_json::{json, Value};

use super::{context as sklearn_context, fixture, rewritten_json, run_in};
use crate::support::archives::WheelBuilder;
use crate::support::cli::python3_version;
use crate::support::context::{TestContext, Uploaded};

const NOTEBOOK_CELLS: [&str; 2] = [
    "from oldlib.legacy import value",
    "assert value() == 1, 'oldlib changed value()'\nprint(value())",
];

fn notebook() -> String {
    let cells: Vec<Value> = NOTEBOOK_CELLS
        .iter()
        .map(|src| {
            json!({"cell_type": "code", "execution_count": null, "metadata": {},
                   "outputs": [], "source": src})
        })
        .collect();
    json!({"cells": cells,
           "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
           "nbformat": 4, "nbformat_minor": 2})
    .to_string()
}

/// A context with `oldlib` in the bank and the notebook as `nb/nb.ipynb`.
fn context() -> TestContext {
    let ctx = unbanked();
    let run = ctx.run(["bank", "add", "oldlib", "--all-versions"]);
    assert_eq!(run.code, 0, "{}", run.text());
    ctx
}

/// `oldlib` on the index, the notebook as `nb/nb.ipynb`, and no bank yet.
fn unbanked() -> TestContext {
    let ctx = TestContext::with_index();
    let value = |v: u32| format!("def value():\n    return {v}\n");
    ctx.publish(
        "oldlib",
        &[
            WheelBuilder::new("oldlib", "1.0")
                .file("oldlib/__init__.py", "")
                .file("oldlib/legacy.py", value(1)),
            WheelBuilder::new("oldlib", "1.1")
                .file("oldlib/__init__.py", "")
                .file("oldlib/legacy.py", value(1))
                .file("oldlib/modern.py", value(1)),
            WheelBuilder::new("oldlib", "2.0")
                .file("oldlib/__init__.py", "")
                .file("oldlib/modern.py", value(2)),
        ],
        Uploaded::Yearly(2016),
    );
    std::fs::create_dir_all(ctx.path("nb")).unwrap();
    std::fs::write(ctx.path("nb/nb.ipynb"), notebook()).unwrap();
    ctx
}

/// Nothing of nbenv's temporary files left beside the notebook, and no modernized notebook
/// written when the era is kept.
fn only(dir: &Path, names: &[&str]) {
    let mut left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, names);
}

/// `restore NB --prefer modern` on this machine's python3, plain and without a kernel spec,
/// with `extra` arguments.
pub(super) fn restore_modern(
    ctx: &TestContext,
    nb: &str,
    extra: &[&str],
) -> crate::support::context::Run {
    let python = python3_version();
    let mut args = vec![
        "restore",
        nb,
        "--prefer",
        "modern",
        "--python",
        &python,
        "--no-kernel-runtime",
        "--no-kernel-spec",
    ];
    args.extend_from_slice(extra);
    run_in(ctx, &args)
}

#[test]
fn a_modernized_notebook_that_stops_is_restored_in_its_era() {
    let ctx = context();
    let run = restore_modern(
        &ctx,
        "nb/nb.ipynb",
        &["--format", "json", "-o", "requirements.txt"],
    );
    assert_eq!(run.code, 0, "{}", run.text());
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(out["mode"], "era", "{out}");
    assert_eq!(out["stopped"], "ran", "{out}");
    let modern = &out["modern"];
    assert_eq!(modern["why"], "modern_stopped", "{modern}");
    assert_eq!(modern["changes"], 1, "{modern}");
    assert_eq!(modern["ran"], false);
    assert_eq!(modern["cell"], 2, "{modern}");
    assert_eq!(modern["ename"], "AssertionError", "{modern}");
    assert!(modern.get("written").is_none(), "{modern}");
    let pins = std::fs::read_to_string(ctx.path("requirements.txt")).unwrap();
    assert!(pins.contains("oldlib==1.1"), "{pins}");
    assert!(
        run.stderr.contains("restoring the notebook in its era"),
        "{}",
        run.stderr
    );
    only(&ctx.path("nb"), &["nb.ipynb"]);

    // In text, the line that says which mode was kept and why.
    let run = restore_modern(&ctx, "nb/nb.ipynb", &[]);
    assert_eq!(run.code, 0, "{}", run.text());
    assert!(
        run.stderr.contains(
            "mode: era: the modernized notebook (1 change) stopped at cell 2 (AssertionError): restored in its era instead"
        ),
        "{}",
        run.stderr
    );
    only(&ctx.path("nb"), &["nb.ipynb"]);
}

#[test]
fn a_modernized_notebook_that_runs_is_kept_and_written_beside_the_input() {
    let ctx = sklearn_context();
    let run = restore_modern(&ctx, "nb.ipynb", &["--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.text());
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(out["mode"], "modern", "{out}");
    assert_eq!(out["modern"]["why"], "modern_ran");
    // As many changes as `nbenv modernize` makes.
    let alone = rewritten_json(&ctx, &["nb.ipynb", "-o", "alone.ipynb"]);
    let changes = alone["changes"].as_array().unwrap().len();
    assert!(changes > 0, "{alone}");
    assert_eq!(out["modern"]["changes"], changes, "{out}");
    assert_eq!(out["modern"]["written"], "nb.modern.ipynb");
    assert_eq!(out["notebook"], "nb.modern.ipynb");
    // Its requirements name it, not the temporary copy the rounds ran.
    let requirements = out["rounds"][0]["requirements"].as_str().unwrap();
    assert!(
        requirements.starts_with(&format!(
            "# Generated by nbenv {} from nb.modern.ipynb\n",
            env!("CARGO_PKG_VERSION")
        )),
        "{requirements}"
    );
    let written = std::fs::read_to_string(ctx.path("nb.modern.ipynb")).unwrap();
    assert!(written.contains("sklearn.model_selection"), "{written}");
    assert_eq!(std::fs::read(ctx.path("nb.ipynb")).unwrap(), fixture());
    assert!(nbenv::leftover::temporaries_in(ctx.root()).is_empty());
    std::fs::remove_file(ctx.path("alone.ipynb")).unwrap();
}

/// Without a bank, the evidence of the moves is indexed first, as `nbenv modernize` indexes
/// it: the notebook is moved (and then stops, and is restored in its era).
#[test]
fn without_a_bank_the_moves_are_indexed_first() {
    let ctx = unbanked();
    assert!(!ctx.bank().exists());
    let run = restore_modern(&ctx, "nb/nb.ipynb", &["--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.text());
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(out["modern"]["changes"], 1, "{out}");
    assert_eq!(out["modern"]["why"], "modern_stopped", "{out}");
    assert_eq!(out["mode"], "era", "{out}");
    only(&ctx.path("nb"), &["nb.ipynb"]);
}

#[test]
fn the_batch_records_the_mode_and_the_modern_attempt() {
    let ctx = context();
    let python = python3_version();
    let out = ctx.path("restore.jsonl");
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
    assert_eq!(record["status"], "ok", "{record}");
    assert_eq!(record["mode"], "era", "{record}");
    assert_eq!(
        record["modern"],
        json!({"changes": 1, "unmoved": 0, "ran": false, "stop": "code",
               "failure": "cell 2: code: AssertionError in notebook code",
               "kinds": {"moved": 1}}),
        "{record}"
    );
    assert_eq!(
        record["executability_after"],
        json!({"cells_ran": 2, "code_cells": 2}),
        "{record}"
    );
    only(&ctx.path("nb"), &["nb.ipynb"]);

    // The report counts it as restored in its era after a modern try.
    let run = run_in(&ctx, &["report", "--format", "json", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.text());
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        report["modes"]["era_after_modern"],
        json!({"notebooks": 1, "ran": 1}),
        "{report}"
    );
}

//! `nbenv modernize`: the fixture notebook (scikit-learn 0.17 and numpy 1.x era) moved to the
//! successors a loopback index's releases prove, with what cannot move named with its era pin.

use std::path::Path;

mod as_if;
mod candidate;
mod mirror;
mod modules;
mod notes;
mod prefer;
mod python3;

use crate::support::archives::WheelBuilder;
use crate::support::cli::python3_version;
use crate::support::context::{Run, TestContext, Uploaded};

const SPLIT: &str = "def train_test_split(*arrays, **options):\n    out = []\n    for a in arrays:\n        out += [a[:6], a[6:]]\n    return out\n";
const SEARCH_METHODS: &str = "        pass\n    def fit(self, X, y):\n        return self\n    def score(self, X, y):\n        return 1.0\n";
const OLD_SEARCH: &str =
    "class GridSearchCV:\n    def __init__(self, estimator, param_grid, cv=None):\n";
const NEW_SEARCH: &str =
    "class GridSearchCV:\n    def __init__(self, estimator, param_grid, cv=None, return_train_score=True):\n";
const IRIS: &str = "class Bunch:\n    def __init__(self, data, target):\n        self.data = data\n        self.target = target\n\n\
def load_iris():\n    return Bunch([[i, i] for i in range(8)], [i % 2 for i in range(8)])\n";

/// `ndarray`'s properties in every numpy release.
const MEMBERS: &str = "    @property\n    def values(self):\n        return list(self.x)\n    @property\n    def first(self):\n        return self.x[0]\n";
/// Methods of numpy 1.21 and 1.22 that warn, naming a successor, and do more than return
/// one expression: no shim, only the warning's word.
const NAMED_IN_WARNING: &str = "    def as_list(self):\n        warnings.warn(\"Method .as_list will be removed in a future version. Use .values instead.\", FutureWarning)\n        out = list(self.x)\n        return out\n    def head_values(self):\n        warnings.warn(\"head_values is deprecated. Use .first instead.\", FutureWarning)\n        out = list(self.x)\n        return out\n";

/// scikit-learn 0.17 (`cross_validation`, `grid_search`), 0.18 (also `model_selection`) and
/// 0.20 (only `model_selection`); numpy 1.21 and 1.22 with `asscalar` (1.22's a shim that
/// warns and returns `a.item()`), `alen` (no shim) and `ndarray.as_list` and
/// `ndarray.head_values` (whose warnings name `.values` and `.first`), 1.23 without them.
fn publish(ctx: &TestContext) {
    let sklearn = |version: &str, old: bool, new: bool| {
        let mut w = WheelBuilder::new("scikit-learn", version)
            .file("sklearn/__init__.py", "")
            .file("sklearn/datasets.py", IRIS)
            .file(
                "sklearn/svm.py",
                "class SVC:\n    def __init__(self, C=1.0):\n        pass\n",
            );
        if old {
            w = w.file("sklearn/cross_validation.py", SPLIT).file(
                "sklearn/grid_search.py",
                format!("{OLD_SEARCH}{SEARCH_METHODS}"),
            );
        }
        if new {
            w = w
                .file(
                    "sklearn/model_selection/__init__.py",
                    "from ._split import train_test_split\nfrom ._search import GridSearchCV\n",
                )
                .file("sklearn/model_selection/_split.py", SPLIT)
                .file(
                    "sklearn/model_selection/_search.py",
                    format!("{NEW_SEARCH}{SEARCH_METHODS}"),
                );
        }
        w
    };
    ctx.publish(
        "scikit-learn",
        &[
            sklearn("0.17", true, false),
            sklearn("0.18", true, true),
            sklearn("0.20", false, true),
        ],
        Uploaded::Yearly(2015),
    );
    // Some(shim): asscalar (and alen) are there, asscalar a shim or not.
    let numpy = |version: &str, asscalar: Option<bool>| {
        let mut init = format!(
            "import warnings\n\nclass ndarray:\n    def __init__(self, x):\n        self.x = x\n    def item(self):\n        return self.x[0]\n{MEMBERS}{}\n\
def array(x):\n    return ndarray(x)\n",
            if asscalar.is_some() { NAMED_IN_WARNING } else { "" }
        );
        match asscalar {
            Some(false) => {
                init.push_str("\ndef asscalar(a):\n    return a.item()\n");
            }
            Some(true) => init.push_str(
                "\ndef asscalar(a):\n    warnings.warn(\"np.asscalar(a) is deprecated since NumPy v1.16, use a.item() instead\", DeprecationWarning, stacklevel=1)\n    return a.item()\n",
            ),
            None => {}
        }
        if asscalar.is_some() {
            init.push_str("\ndef alen(a):\n    return len(a)\n");
        }
        WheelBuilder::new("numpy", version).file("numpy/__init__.py", init)
    };
    ctx.publish(
        "numpy",
        &[
            numpy("1.21", Some(false)),
            numpy("1.22", Some(true)),
            numpy("1.23", None),
        ],
        Uploaded::Yearly(2020),
    );
}

fn fixture() -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/notebooks/modernize_sklearn.ipynb"),
    )
    .unwrap()
}

/// `nbenv ARGS` run in the context's directory, so paths in what it prints are relative.
fn run_in(ctx: &TestContext, args: &[&str]) -> Run {
    let out = ctx
        .command()
        .current_dir(ctx.root())
        .args(args)
        .output()
        .unwrap();
    Run::from_output(&out)
}

/// `nbenv modernize NAME.ipynb` run for real on the current Python as plain Python (no
/// kernel), writing `NAME.txt` (requirements) and `NAME.json` (the report). Needs `python3`
/// and uv, as the restore tests do.
fn modernize_and_run(ctx: &TestContext, name: &str) -> Run {
    run_in(
        ctx,
        &[
            "modernize",
            &format!("{name}.ipynb"),
            "--python",
            &python3_version(),
            "--no-kernel-runtime",
            "--no-kernel-spec",
            "--requirements",
            &format!("{name}.txt"),
            "--report",
            &format!("{name}.json"),
            "--format",
            "json",
        ],
    )
}

/// `nbenv modernize ARGS --no-run --format json` in the context's directory: its JSON, after
/// checking it succeeded.
fn rewritten_json(ctx: &TestContext, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["modernize"];
    all.extend_from_slice(args);
    all.extend(["--no-run", "--format", "json"]);
    let run = run_in(ctx, &all);
    assert_eq!(run.code, 0, "{}", run.text());
    serde_json::from_str(&run.stdout).unwrap()
}

/// A Python 3 notebook of these code cells, one source line list each, never run.
fn code_notebook<S: AsRef<str>>(cells: &[S]) -> String {
    let cells: Vec<serde_json::Value> = cells
        .iter()
        .map(|src| {
            serde_json::json!({"cell_type": "code", "execution_count": null, "metadata": {},
                               "outputs": [], "source": [src.as_ref()]})
        })
        .collect();
    serde_json::json!({"cells": cells,
           "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
           "nbformat": 4, "nbformat_minor": 2})
    .to_string()
}

/// The fixture with one more cell, which calls `numpy.alen` (removed, with no successor).
fn with_alen() -> Vec<u8> {
    let mut nb: serde_json::Value = serde_json::from_slice(&fixture()).unwrap();
    nb["cells"].as_array_mut().unwrap().push(serde_json::json!({
        "cell_type": "code",
        "execution_count": null,
        "metadata": {},
        "outputs": [],
        "source": ["print(np.alen([1, 2]))"]
    }));
    serde_json::to_vec_pretty(&nb).unwrap()
}

/// A context with both distributions in its bank and the fixture as `nb.ipynb` (and, with
/// the `alen` cell, as `alen.ipynb`).
fn context() -> TestContext {
    let ctx = TestContext::with_index();
    publish(&ctx);
    for dist in ["scikit-learn", "numpy"] {
        let run = ctx.run(["bank", "add", dist, "--all-versions"]);
        assert_eq!(run.code, 0, "{}", run.text());
    }
    std::fs::write(ctx.path("nb.ipynb"), fixture()).unwrap();
    std::fs::write(ctx.path("alen.ipynb"), with_alen()).unwrap();
    ctx
}

fn sources(path: &Path) -> Vec<String> {
    let nb: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    nb["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            c["source"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn moves_the_imports_and_names_what_cannot_move() {
    let ctx = context();
    let run = run_in(
        &ctx,
        &["modernize", "alen.ipynb", "-o", "out.ipynb", "--no-run"],
    );
    assert_eq!(run.code, 0, "{}", run.text());

    // The input is only read.
    assert_eq!(std::fs::read(ctx.path("alen.ipynb")).unwrap(), with_alen());
    let cells = sources(&ctx.path("out.ipynb"));
    assert_eq!(
        cells[1],
        "import numpy as np\n\
         from sklearn.model_selection import train_test_split\n\
         from sklearn.model_selection import GridSearchCV\n\
         from sklearn.datasets import load_iris\nfrom sklearn.svm import SVC"
    );
    // The shim's template at the call, over its argument.
    assert_eq!(cells[3], "print(np.array([1.5]).item())");
    // Everything else as it was.
    let before = sources(&ctx.path("alen.ipynb"));
    assert_eq!(cells[2], before[2]);
    assert_eq!(cells[4], before[4]);
    assert!(run.stdout.contains("pin numpy<1.23"), "{}", run.stdout);

    insta::with_settings!({ prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("modernize-report", run.stdout);
    });
}

#[test]
fn the_json_report_cites_each_change() {
    let ctx = context();
    let run = run_in(
        &ctx,
        &[
            "modernize",
            "alen.ipynb",
            "--format",
            "json",
            "--diff",
            "d.patch",
            "--no-run",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.text());
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // Written beside the input by default.
    assert_eq!(json["output"], "alen.modern.ipynb");
    assert!(ctx.path("alen.modern.ipynb").is_file());
    let changes = json["changes"].as_array().unwrap();
    let olds: Vec<&str> = changes.iter().map(|c| c["old"].as_str().unwrap()).collect();
    assert_eq!(
        olds,
        [
            "numpy.asscalar",
            "sklearn.cross_validation.train_test_split",
            "sklearn.grid_search.GridSearchCV"
        ]
    );
    // Each change says what it rests on.
    let asscalar = &changes[0];
    assert_eq!(asscalar["new"], "a.item()");
    assert_eq!(asscalar["evidence"]["kind"], "shim");
    assert_eq!(asscalar["evidence"]["definition"], "numpy.asscalar");
    assert_eq!(
        asscalar["evidence"]["releases"],
        serde_json::json!([{"first": "1.22", "last": "1.22"}])
    );
    assert_eq!(asscalar["removed_in"], "1.23");
    assert_eq!(asscalar["written"], true);
    let split = &changes[1];
    assert_eq!(split["new"], "sklearn.model_selection.train_test_split");
    assert_eq!(split["evidence"]["kind"], "moved");
    assert_eq!(split["evidence"]["proof"], "twin");
    assert_eq!(split["removed_in"], "0.20");
    assert_eq!(
        split["evidence"]["both_in"],
        serde_json::json!([{"first": "0.18", "last": "0.18"}])
    );
    assert_eq!(split["written"], true);
    assert_eq!(changes[2]["evidence"]["signature_match"], "extended");
    // What cannot move is named with the pin that runs it as it was.
    let unmoved = json["unmoved"].as_array().unwrap();
    assert_eq!(unmoved.len(), 1, "{unmoved:?}");
    assert_eq!(unmoved[0]["api"], "numpy.alen");
    assert_eq!(unmoved[0]["era_pin"], "numpy<1.23");
    assert_eq!(unmoved[0]["why"]["kind"], "no_successor");
    let diff = std::fs::read_to_string(ctx.path("d.patch")).unwrap();
    assert_eq!(diff, json["diff"].as_str().unwrap());
    assert!(
        diff.contains("+from sklearn.model_selection import GridSearchCV\n"),
        "{diff}"
    );
}

/// On an empty bank, modernize indexes its own evidence (the notebook's inference, then the
/// releases around each used API's disappearance its pins did not need; the bisection is
/// tested alone in `modernize::prepare`).
#[test]
fn an_empty_bank_is_indexed_for_the_evidence() {
    let ctx = TestContext::with_index();
    publish(&ctx);
    std::fs::write(ctx.path("nb.ipynb"), fixture()).unwrap();
    let run = run_in(
        &ctx,
        &["modernize", "nb.ipynb", "--no-run", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.text());
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let olds: Vec<&str> = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["old"].as_str().unwrap())
        .collect();
    assert_eq!(
        olds,
        [
            "numpy.asscalar",
            "sklearn.cross_validation.train_test_split",
            "sklearn.grid_search.GridSearchCV"
        ],
        "{}",
        run.stderr
    );
    // With --no-index the bank is read as it is: a second run finds the same.
    let again = run_in(
        &ctx,
        &[
            "modernize",
            "nb.ipynb",
            "--no-run",
            "--no-index",
            "-o",
            "b.ipynb",
        ],
    );
    assert_eq!(again.code, 0, "{}", again.text());
    assert!(
        again.stdout.contains("numpy.asscalar(a) -> a.item()"),
        "{}",
        again.stdout
    );
}

/// On an empty bank, a removal the era does not need is found to the release. `shifty`
/// 1.0–1.12: `shifty.legacy.g` (no successor) goes in 1.3, so the notebook's era is 1.2
/// whatever else it uses; `shifty.old.f` goes in 1.9, its twin `shifty.new.f` is there from
/// 1.5. (Here the notebook's own inference indexes around both changes; the bisection that
/// follows it, for what the inference left, is tested with a fake index in
/// `modernize::prepare`.)
#[test]
fn a_removal_the_era_does_not_need_is_found_to_the_release() {
    let ctx = TestContext::with_index();
    let f = "def f(x, y=1):\n    return x + y\n";
    let releases: Vec<WheelBuilder> = (0..=12)
        .map(|minor| {
            let mut w =
                WheelBuilder::new("shifty", &format!("1.{minor}")).file("shifty/__init__.py", "");
            if minor <= 2 {
                w = w.file("shifty/legacy.py", "def g():\n    return 2\n");
            }
            if minor <= 8 {
                w = w.file("shifty/old.py", f);
            }
            if minor >= 5 {
                w = w.file("shifty/new.py", f);
            }
            w
        })
        .collect();
    ctx.publish("shifty", &releases, Uploaded::Yearly(2008));
    let nb = serde_json::json!({
        "cells": [
            {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
             "source": ["from shifty.old import f\n", "from shifty.legacy import g\n", "print(f(g()))"]}
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4, "nbformat_minor": 2
    });
    std::fs::write(ctx.path("s.ipynb"), nb.to_string()).unwrap();
    let run = run_in(
        &ctx,
        &["modernize", "s.ipynb", "--no-run", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.text());
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let change = &json["changes"][0];
    assert_eq!(change["old"], "shifty.old.f", "{json}");
    assert_eq!(change["new"], "shifty.new.f");
    assert_eq!(change["last"], "1.8", "{json}");
    assert_eq!(change["removed_in"], "1.9", "{json}");
    // What cannot move pins the era.
    assert_eq!(json["unmoved"][0]["era_pin"], "shifty<1.3", "{json}");
}

#[test]
fn the_input_is_never_the_output() {
    let ctx = context();
    for flag in ["-o", "--diff", "--report"] {
        let run = run_in(
            &ctx,
            &["modernize", "nb.ipynb", flag, "./nb.ipynb", "--no-run"],
        );
        assert_eq!(run.code, 2, "{flag}: {}", run.text());
        assert!(run.stderr.contains("never writes"), "{}", run.stderr);
        assert_eq!(std::fs::read(ctx.path("nb.ipynb")).unwrap(), fixture());
    }
}

/// The modernized notebook through `restore`'s rounds, offline: it runs to the end on the
/// newest releases, numpy 1.23 (which lacks `asscalar`: the call is now the shim's
/// template) and scikit-learn 0.20 (where only the moved imports work). The notebook with
/// `alen` too stops at it on 1.23, the failure rules 1.23 out, and the next round runs it on
/// 1.22. Needs `python3` and uv, as the restore tests do.
#[test]
fn the_modernized_notebook_is_restored_on_todays_releases() {
    let ctx = context();
    let python = python3_version();
    let run = run_in(
        &ctx,
        &[
            "modernize",
            "nb.ipynb",
            "--python",
            &python,
            "--no-kernel-runtime",
            "--no-kernel-spec",
            "--requirements",
            "requirements.txt",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.text());
    assert!(
        run.stderr.contains("restored: the notebook ran to the end"),
        "{}",
        run.stderr
    );
    let pins = std::fs::read_to_string(ctx.path("requirements.txt")).unwrap();
    assert!(pins.contains("scikit-learn==0.20"), "{pins}");
    assert!(pins.contains("numpy==1.23"), "{pins}");
    assert!(pins.contains("asked for with --python"), "{pins}");
    assert_eq!(std::fs::read(ctx.path("nb.ipynb")).unwrap(), fixture());

    // Without --python, the header says why this Python: none was asked for.
    let run = run_in(
        &ctx,
        &[
            "modernize",
            "nb.ipynb",
            "--no-kernel-runtime",
            "--no-kernel-spec",
            "--requirements",
            "newest.txt",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.text());
    let pins = std::fs::read_to_string(ctx.path("newest.txt")).unwrap();
    assert!(
        pins.contains("the newest installed here where the modernized notebook has a resolution (--python chooses another)"),
        "{pins}"
    );
    assert!(!pins.contains("asked for"), "{pins}");

    let run = run_in(
        &ctx,
        &[
            "modernize",
            "alen.ipynb",
            "--python",
            &python,
            "--no-kernel-runtime",
            "--no-kernel-spec",
            "--requirements",
            "alen.txt",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.text());
    let pins = std::fs::read_to_string(ctx.path("alen.txt")).unwrap();
    assert!(pins.contains("numpy==1.22"), "{pins}");
}

/// The command as library functions: `rewrite` returns the report the command line prints,
/// and writes the same notebook; the input is only read.
#[test]
fn rewrite_is_a_library_function_that_returns_what_the_command_prints() {
    use nbenv::commands::modernize::{rewrite, ModernizeSettings};

    let ctx = context();
    let run = run_in(
        &ctx,
        &["modernize", "alen.ipynb", "-o", "cli.ipynb", "--no-run"],
    );
    assert_eq!(run.code, 0, "{}", run.text());
    let settings = ModernizeSettings {
        output: ctx.path("lib.ipynb"),
        ..ModernizeSettings::new(ctx.path("alen.ipynb"))
    };
    let done = rewrite(&ctx.settings(), &settings, &nbenv::reporter::Silent).unwrap();
    // The command line named the files as given, relative to where it ran.
    let relative = done.text.replace(&format!("{}/", ctx.root().display()), "");
    assert_eq!(
        relative.replace("lib.ipynb", "OUT"),
        run.stdout.replace("cli.ipynb", "OUT")
    );
    assert_eq!(
        sources(&ctx.path("lib.ipynb")),
        sources(&ctx.path("cli.ipynb"))
    );
    assert_eq!(std::fs::read(ctx.path("alen.ipynb")).unwrap(), with_alen());
    // Only rewriting: no candidate waits for a run.
    assert!(settings.restore.is_none());

    // The input is never written, whatever the output is called.
    let over = ModernizeSettings {
        output: ctx.path("alen.ipynb"),
        ..settings
    };
    let refused = rewrite(&ctx.settings(), &over, &nbenv::reporter::Silent).err();
    assert!(
        matches!(
            &refused,
            Some(nbenv::commands::CommandError::WritesInput {
                flag: "--output",
                ..
            })
        ),
        "{refused:?}"
    );
}

//! `nbenv modernize`: the fixture notebook (scikit-learn 0.17 and numpy 1.x era) moved to the
//! successors a loopback index's releases prove, with what cannot move named with its era pin.

use std::path::Path;

mod prefer;

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

/// scikit-learn 0.17 (`cross_validation`, `grid_search`), 0.18 (also `model_selection`) and
/// 0.20 (only `model_selection`); numpy 1.21 and 1.22 with `asscalar`, 1.23 without.
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
    let numpy = |version: &str, asscalar: bool| {
        let mut init = "class ndarray:\n    def __init__(self, x):\n        self.x = x\n    def item(self):\n        return self.x[0]\n\n\
def array(x):\n    return ndarray(x)\n"
            .to_string();
        if asscalar {
            init.push_str("\ndef asscalar(a):\n    return a.item()\n");
        }
        WheelBuilder::new("numpy", version).file("numpy/__init__.py", init)
    };
    ctx.publish(
        "numpy",
        &[
            numpy("1.21", true),
            numpy("1.22", true),
            numpy("1.23", false),
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

/// A context with both distributions in its bank and the fixture as `nb.ipynb`.
fn context() -> TestContext {
    let ctx = TestContext::with_index();
    publish(&ctx);
    for dist in ["scikit-learn", "numpy"] {
        let run = ctx.run(["bank", "add", dist, "--all-versions"]);
        assert_eq!(run.code, 0, "{}", run.text());
    }
    std::fs::write(ctx.path("nb.ipynb"), fixture()).unwrap();
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
        &["modernize", "nb.ipynb", "-o", "out.ipynb", "--no-run"],
    );
    assert_eq!(run.code, 0, "{}", run.text());

    // The input is only read.
    assert_eq!(std::fs::read(ctx.path("nb.ipynb")).unwrap(), fixture());
    let cells = sources(&ctx.path("out.ipynb"));
    assert_eq!(
        cells[1],
        "import numpy as np\n\
         from sklearn.model_selection import train_test_split\n\
         from sklearn.model_selection import GridSearchCV\n\
         from sklearn.datasets import load_iris\nfrom sklearn.svm import SVC"
    );
    // Everything else as it was.
    let before = sources(&ctx.path("nb.ipynb"));
    assert_eq!(cells[2..], before[2..]);
    assert!(run.stdout.contains("numpy<1.23"), "{}", run.stdout);

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
            "nb.ipynb",
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
    assert_eq!(json["output"], "nb.modern.ipynb");
    assert!(ctx.path("nb.modern.ipynb").is_file());
    let changes = json["changes"].as_array().unwrap();
    let olds: Vec<&str> = changes.iter().map(|c| c["old"].as_str().unwrap()).collect();
    assert_eq!(
        olds,
        [
            "sklearn.cross_validation.train_test_split",
            "sklearn.grid_search.GridSearchCV"
        ]
    );
    let split = &changes[0];
    assert_eq!(split["new"], "sklearn.model_selection.train_test_split");
    assert_eq!(split["kind"], "twin");
    assert_eq!(split["removed_in"], "0.20");
    assert_eq!(
        split["both_in"],
        serde_json::json!([{"first": "0.18", "last": "0.18"}])
    );
    assert_eq!(split["written"], true);
    assert_eq!(changes[1]["signature_match"], "extended");
    let unmoved = &json["unmoved"][0];
    assert_eq!(unmoved["api"], "numpy.asscalar");
    assert_eq!(unmoved["era_pin"], "numpy<1.23");
    assert_eq!(unmoved["why"]["kind"], "no_successor");
    let diff = std::fs::read_to_string(ctx.path("d.patch")).unwrap();
    assert_eq!(diff, json["diff"].as_str().unwrap());
    assert!(
        diff.contains("+from sklearn.model_selection import GridSearchCV\n"),
        "{diff}"
    );
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

/// The modernized notebook through `restore`'s rounds, offline: on the newest releases it
/// stops at `numpy.asscalar` (numpy 1.23 lacks it), the failure rules 1.23 out, and the
/// next round runs it to the end with numpy 1.22 and scikit-learn 0.20, where only the moved
/// imports work. Needs `python3` and uv, as the restore tests do.
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
    assert!(pins.contains("numpy==1.22"), "{pins}");
    assert_eq!(std::fs::read(ctx.path("nb.ipynb")).unwrap(), fixture());
}

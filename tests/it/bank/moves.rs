//! `nbenv bank moves`: removed APIs and the paths that took their place, proven from the
//! releases of a loopback index (a scikit-learn in miniature: `cross_validation` and
//! `grid_search` give way to `model_selection`).

use crate::support::archives::WheelBuilder;
use crate::support::context::{TestContext, Uploaded};

const SPLIT: &str = "def train_test_split(X, y, test_size=0.25):\n    return X, y\n\n\
class KFold:\n    def __init__(self, n_splits=3):\n        pass\n\n\
def shuffle(x):\n    return x\n\n\
def cross_val_score(estimator, X, y=None, groups=None, scoring=None):\n    pass\n";

const OLD_FOLDS: &str = "def train_test_split(X, y, test_size=0.25):\n    return X, y\n\n\
class KFold:\n    def __init__(self, n, n_folds=3):\n        pass\n\n\
def cross_val_score(estimator, X, y=None, scoring=None):\n    pass\n";

const OLD_SEARCH: &str =
    "class GridSearchCV:\n    def __init__(self, estimator, param_grid, cv=None):\n        pass\n";

const NEW_SEARCH: &str = "class GridSearchCV:\n    def __init__(self, estimator, param_grid, cv=None, return_train_score=True):\n        pass\n";

/// `toolkit.utils` in 1.0: `asscalar` plain, `Frame.as_matrix` and `hist(density)`.
const UTILS_1_0: &str = "import warnings\n\n\
def asscalar(a):\n    return a.item()\n\n\
class Frame:\n    def as_matrix(self, columns=None):\n        return self._values(columns)\n\n\
class DataFrame(Frame):\n    pass\n\n\
def hist(x, density=None):\n    return x\n";

/// In 1.1 `asscalar` is a shim (it warns, then returns a template over its parameter),
/// `as_matrix` warns naming `.values` but does more than return, and `hist` takes both
/// `density` and the old `normed`, warning on `normed`.
const UTILS_1_1: &str = "import warnings\n\n\
def asscalar(a):\n    \"\"\"Deprecated.\"\"\"\n    warnings.warn('toolkit.asscalar(a) is deprecated, '\n                  'use a.item() instead', DeprecationWarning, stacklevel=2)\n    return a.item()\n\n\
class Frame:\n    def as_matrix(self, columns=None):\n        warnings.warn(\"Method .as_matrix will be removed in a future version. \"\n                      \"Use .values instead.\", FutureWarning, stacklevel=2)\n        self._consolidate()\n        return self._values(columns)\n\n\
class DataFrame(Frame):\n    pass\n\n\
def hist(x, density=None, normed=None):\n    if normed is not None:\n        warnings.warn(\"The 'normed' kwarg is deprecated; use 'density' instead.\")\n        density = normed\n    return x\n";

/// In 1.2 `asscalar` and `as_matrix` are gone, and `hist` takes `density` only. `Frame`
/// has a base from outside the release (as pandas 1.0's `DataFrame` cannot be seen through
/// by static reading either): whether it has `as_matrix` is unknown.
const UTILS_1_2: &str = "from collections import OrderedDict\n\n\
class Frame(OrderedDict):\n    def values(self):\n        pass\n\n\
class DataFrame(Frame):\n    pass\n\n\
def hist(x, density=None):\n    return x\n";

/// 1.0: `cross_validation`, `grid_search`, `old` (an alias of `_impl.helper`) and `misc`.
/// 1.1: also `model_selection` (its names defined in `_split` and `_search`), `new` and
/// `extra` (two more aliases of `_impl.helper`). 1.2: without `cross_validation`, `grid_search` and
/// `old`; `misc` serves its names through `__getattr__`, so its `shuffle` is unknown there,
/// not absent. `toolkit.utils` deprecates as [`UTILS_1_1`] says.
fn toolkit(ctx: &TestContext) {
    let release = |version: &str| {
        let minor: u32 = version[2..].parse().unwrap();
        let (init, utils) = match minor {
            0 => ("from .utils import asscalar, Frame, DataFrame\n", UTILS_1_0),
            1 => ("from .utils import asscalar, Frame, DataFrame\n", UTILS_1_1),
            _ => ("from .utils import Frame, DataFrame\n", UTILS_1_2),
        };
        let mut w = WheelBuilder::new("toolkit", version)
            .file("toolkit/__init__.py", init)
            .file("toolkit/utils.py", utils)
            .file("toolkit/_impl.py", "def helper(a):\n    return a\n");
        if minor <= 1 {
            w = w
                .file("toolkit/cross_validation.py", OLD_FOLDS)
                .file("toolkit/grid_search.py", OLD_SEARCH)
                .file("toolkit/old.py", "from ._impl import helper\n")
                .file("toolkit/misc.py", "def shuffle(x):\n    return x\n");
        } else {
            w = w.file(
                "toolkit/misc.py",
                "def __getattr__(name):\n    return _served(name)\n",
            );
        }
        if minor >= 1 {
            w = w
                .file(
                    "toolkit/model_selection/__init__.py",
                    "from ._split import train_test_split, KFold, shuffle, cross_val_score\n\
                     from ._search import GridSearchCV\n",
                )
                .file("toolkit/model_selection/_split.py", SPLIT)
                .file("toolkit/model_selection/_search.py", NEW_SEARCH)
                .file("toolkit/new.py", "from ._impl import helper\n")
                .file("toolkit/extra.py", "from ._impl import helper\n");
        }
        w
    };
    ctx.publish(
        "toolkit",
        &[release("1.0"), release("1.1"), release("1.2")],
        Uploaded::Yearly(2016),
    );
}

fn ok(ctx: &TestContext, args: &[&str]) -> String {
    let run = ctx.run(args);
    assert_eq!(run.code, 0, "{args:?}: {}", run.text());
    run.stdout
}

#[test]
fn moved_apis_are_listed_with_their_evidence() {
    let ctx = TestContext::with_index();
    toolkit(&ctx);
    ok(&ctx, &["bank", "add", "toolkit", "--all-versions"]);

    let json: serde_json::Value =
        serde_json::from_str(&ok(&ctx, &["bank", "moves", "toolkit", "--format", "json"])).unwrap();
    let moves = json["moves"].as_array().unwrap();
    let olds: Vec<&str> = moves.iter().map(|m| m["old"].as_str().unwrap()).collect();
    // KFold changed its signature: no twin. `misc.shuffle` is unknown in 1.2: no removal.
    assert_eq!(
        olds,
        [
            "toolkit.cross_validation.cross_val_score",
            "toolkit.cross_validation.train_test_split",
            "toolkit.grid_search.GridSearchCV",
            "toolkit.old.helper",
        ],
        "{json:#}"
    );
    // `groups` put before `scoring`: the same calls work when they pass it by keyword.
    let score = &moves[0]["successors"][0];
    assert_eq!(score["path"], "toolkit.model_selection.cross_val_score");
    assert_eq!(score["signature_match"], "by-keyword");

    let split = &moves[1];
    assert_eq!(split["last"], "1.1");
    assert_eq!(split["removed_in"], "1.2");
    let s = &split["successors"][0];
    assert_eq!(s["path"], "toolkit.model_selection.train_test_split");
    assert_eq!(s["kind"], "twin");
    assert_eq!(s["signature_match"], "same");
    assert_eq!(
        s["overlap"],
        serde_json::json!([{"first": "1.1", "last": "1.1"}])
    );
    assert_eq!(
        s["old_definition"],
        "toolkit.cross_validation.train_test_split"
    );
    assert_eq!(
        s["new_definition"],
        "toolkit.model_selection._split.train_test_split"
    );
    assert_eq!(s["old_signature"], "(X, y, test_size=...)");

    let search = &moves[2]["successors"][0];
    assert_eq!(search["path"], "toolkit.model_selection.GridSearchCV");
    assert_eq!(search["kind"], "twin");
    assert_eq!(search["signature_match"], "extended");

    // Two paths to the one definition: one successor, reachable both ways.
    let helper = &moves[3]["successors"];
    assert_eq!(helper.as_array().unwrap().len(), 1, "{helper:#}");
    assert_eq!(helper[0]["path"], "toolkit.extra.helper");
    assert_eq!(helper[0]["kind"], "same-definition");
    assert_eq!(helper[0]["new_definition"], "toolkit._impl.helper");
    assert_eq!(
        helper[0]["also_as"],
        serde_json::json!(["toolkit.new.helper"])
    );

    // The shim's template, from its last release; the method's warning names `.values`.
    let shims = json["shims"].as_array().unwrap();
    assert_eq!(shims.len(), 2, "{json:#}");
    let asscalar = &shims[1];
    assert_eq!(asscalar["old"], "toolkit.utils.asscalar");
    assert_eq!(asscalar["also_as"], serde_json::json!(["toolkit.asscalar"]));
    assert_eq!(asscalar["evidence"]["kind"], "shim");
    assert_eq!(asscalar["evidence"]["template"], "a.item()");
    assert_eq!(asscalar["evidence"]["params"], serde_json::json!(["a"]));
    assert_eq!(asscalar["category"], "DeprecationWarning");
    assert_eq!(
        asscalar["releases"],
        serde_json::json!([{"first": "1.1", "last": "1.1"}])
    );
    assert_eq!(asscalar["removed_in"], "1.2");
    let as_matrix = &shims[0];
    assert_eq!(as_matrix["old"], "toolkit.utils.Frame.as_matrix");
    assert_eq!(
        as_matrix["also_as"],
        serde_json::json!([
            "toolkit.DataFrame.as_matrix",
            "toolkit.Frame.as_matrix",
            "toolkit.utils.DataFrame.as_matrix"
        ])
    );
    assert_eq!(
        as_matrix["evidence"],
        serde_json::json!({"kind": "named-in-warning", "candidate": ".values"})
    );
    assert_eq!(
        as_matrix["unknown_after"],
        serde_json::json!([{"first": "1.2", "last": "1.2"}])
    );
    // Both names accepted in 1.1 only; the old one is gone from the signature in 1.2.
    let renamed = json["renamed_keywords"].as_array().unwrap();
    assert_eq!(renamed.len(), 1, "{json:#}");
    assert_eq!(renamed[0]["path"], "toolkit.utils.hist");
    assert_eq!(
        (&renamed[0]["old"], &renamed[0]["new"]),
        (&"normed".into(), &"density".into())
    );
    assert_eq!(
        renamed[0]["releases"],
        serde_json::json!([{"first": "1.1", "last": "1.1"}])
    );
    assert_eq!(renamed[0]["old_removed_in"], "1.2");

    insta::with_settings!({ prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("bank-moves", ok(&ctx, &["bank", "moves", "toolkit"]));
    });
}

#[test]
fn a_distribution_the_bank_lacks_is_not_found() {
    let ctx = TestContext::with_index();
    toolkit(&ctx);
    ok(&ctx, &["bank", "add", "toolkit==1.2"]);
    let run = ctx.run(["bank", "moves", "other"]);
    assert_eq!(run.code, 3, "{}", run.text());
    assert!(
        run.stderr.contains("has no release of other"),
        "{}",
        run.stderr
    );
}

//! Object tracing and usage rules on small inline notebooks (percent scripts: `# %%` starts a
//! cell).

use crate::support::usage::*;
use nbenv::notebook::{HintReason, Receiver, UseKind};
use nbenv::python::{PythonRange, PythonVersion};

#[test]
fn rebinding_ends_a_trace() {
    let u = usage_of_source(
        "# %%\nfrom sklearn.svm import SVC\nfrom sklearn.tree import DecisionTreeClassifier as DT\nclf = SVC(C=1.0)\n\
         # %%\nclf.fit(X, y)\nclf = DT()\nclf.fit(X, y)\nclf = load()\nclf.fit(X, y)\n",
    );
    assert_eq!(api(&u, "sklearn.svm.SVC.fit").locations, [at(2, 1)]);
    assert_eq!(
        api(&u, "sklearn.tree.DecisionTreeClassifier.fit").locations,
        [at(2, 3)]
    );
    // after `clf = load()` (unknown) the member is evidence on an unknown receiver
    let fit = member(&u, "fit");
    assert_eq!(fit.receiver, Receiver::Unknown);
    assert_eq!(fit.locations, [at(2, 5)]);
}

#[test]
fn assignment_unpacking_with_and_for() {
    let u = usage_of_source(
        "# %%\nimport tensorflow as tf\nfrom sklearn.linear_model import Lasso\n\
         a = Lasso()\nb = a\nb.fit(X, y)\n\
         m1, m2 = Lasso(), tf.Session()\nm2.close()\nm1.predict(X)\n\
         with tf.Session() as s:\n    s.run(op)\n\
         for est in [Lasso()]:\n    pass\n\
         (p, q) = tf.Graph(), 3\np.finalize()\nq.bit_length()\n",
    );
    assert_eq!(
        api(&u, "sklearn.linear_model.Lasso.fit").locations,
        [at(1, 5)]
    );
    assert_eq!(api(&u, "tensorflow.Session.close").locations, [at(1, 7)]);
    assert_eq!(
        api(&u, "sklearn.linear_model.Lasso.predict").locations,
        [at(1, 8)]
    );
    assert_eq!(api(&u, "tensorflow.Session.run").locations, [at(1, 10)]);
    assert_eq!(api(&u, "tensorflow.Graph.finalize").locations, [at(1, 14)]);
    assert!(!u.members.iter().any(|m| m.member == "bit_length"));
}

#[test]
fn for_targets_and_comprehensions() {
    let u = usage_of_source(
        "# %%\nimport pandas as pd\ndf = pd.read_csv('a.csv')\n\
         for i, row in df.iterrows():\n    row.get_value('x')\n\
         names = [c.upper() for c in df.columns]\n\
         c.strip()\n",
    );
    assert_eq!(
        member(&u, "iterrows").receiver,
        Receiver::DerivedFrom("pandas.read_csv".parse().unwrap())
    );
    assert_eq!(
        member(&u, "get_value").receiver,
        Receiver::DerivedFrom("pandas.read_csv".parse().unwrap())
    );
    assert_eq!(
        member(&u, "upper").receiver,
        Receiver::DerivedFrom("pandas.read_csv".parse().unwrap())
    );
    // the comprehension variable does not leak
    assert_eq!(member(&u, "strip").receiver, Receiver::Unknown);
}

#[test]
fn function_scopes_and_globals() {
    let u = usage_of_source(
        "# %%\ndef setup():\n    global model\n    import xgboost as xgb\n    model = xgb.XGBClassifier()\n\
         def local_only():\n    import lightgbm as lgb\n    booster = lgb.Booster()\n\
         # %%\nsetup()\nmodel.fit(X, y)\nlgb.train(params)\nbooster.predict(X)\n",
    );
    // `global model` makes the binding visible outside
    assert_eq!(api(&u, "xgboost.XGBClassifier.fit").locations, [at(2, 2)]);
    // a function's imports and locals do not leak
    assert!(!has_api(&u, "lightgbm.train"));
    assert!(!has_api(&u, "lightgbm.Booster.predict"));
    assert_eq!(member(&u, "train").receiver, Receiver::Unknown);
}

/// scipy-cookbook's ParticleFilter: cell 1 star-imports numpy and numpy.random, then defines
/// a function using `np`; cell 2's `from pylab import *` binds `np` before the function runs.
/// The body's `np` is pylab's, the notebook's last star import, not `numpy.random.np`
/// (which numpy stopped exposing in 1.17).
#[test]
fn a_function_bodys_unbound_name_is_the_last_star_imports() {
    let u = usage_of_source(
        "# %%\nfrom numpy import *\nfrom numpy.random import *\n\
         def step(x):\n    np.add(x, uniform(-1, 1, x.shape), out=x)\n    return ones(3)\n\
         # %%\nif __name__ == '__main__':\n  from pylab import *\n  step(zeros(3))\n  np.array([1])\n",
    );
    assert!(has_api(&u, "pylab.np.add"), "{:#?}", u.apis);
    assert!(!has_api(&u, "numpy.random.np.add"));
    assert!(!has_api(&u, "numpy.random.np"));
    // The names before the `def` stay candidates beside the later module's.
    assert!(has_api(&u, "numpy.random.uniform"));
    assert!(has_api(&u, "pylab.uniform"));
    // At the top level, what was star-imported so far, as before.
    assert!(has_api(&u, "pylab.np.array"));
    assert!(has_api(&u, "numpy.random.zeros") || has_api(&u, "pylab.zeros"));
}

#[test]
fn optional_and_conditional_imports() {
    let u = usage_of_source(
        "# %%\ntry:\n    import ujson as json\nexcept ImportError:\n    import json\n\
         import sys\nif sys.version_info[0] < 3:\n    import cPickle as pickle\nelse:\n    import pickle\n\
         try:\n    import torch\nfinally:\n    pass\nimport numpy\n",
    );
    let optional = |m: &str| {
        u.imports
            .iter()
            .find(|i| i.module.as_str() == m)
            .unwrap_or_else(|| panic!("{m}"))
            .optional
    };
    assert!(optional("ujson") && optional("json") && optional("cPickle") && optional("pickle"));
    assert!(!optional("torch") && !optional("numpy") && !optional("sys"));
    assert_eq!(
        u.third_party
            .iter()
            .map(|t| (t.name.as_str(), t.optional))
            .collect::<Vec<_>>(),
        [("numpy", false), ("torch", false), ("ujson", true)]
    );
    // an optional Python 2 import is only weak evidence
    let cpickle = u
        .python
        .hints
        .iter()
        .find(|h| h.detail == "cPickle")
        .unwrap();
    assert!(cpickle.weak);
    assert_eq!(u.python.range, PythonRange::default());
}

#[test]
fn attribute_chains_and_module_aliases() {
    let u = usage_of_source(
        "# %%\nimport numpy as np\nimport os.path\nimport matplotlib.pyplot as plt\n\
         rng = np.random.RandomState(42)\nx = rng.randn(3) * np.pi\nos.path.join('a', 'b')\n\
         plt.style.use('ggplot')\npd_opts = None\n",
    );
    // one record per chain, at its full length
    assert!(has_api(&u, "numpy.random.RandomState"));
    assert!(!has_api(&u, "numpy.random"));
    assert_eq!(
        api(&u, "numpy.random.RandomState.randn").locations,
        [at(1, 5)]
    );
    assert!(api(&u, "numpy.pi").kinds.contains(&UseKind::Attribute));
    assert!(has_api(&u, "os.path.join"));
    assert_eq!(api(&u, "matplotlib.pyplot.style.use").count, 1);
}

#[test]
fn keywords_and_attribute_assignment() {
    let u = usage_of_source(
        "# %%\nimport pandas as pd\npd.options.display.max_columns = 50\n\
         df = pd.DataFrame(data, columns=['a'])\ndf.to_csv('x', index=False, encoding='utf-8')\n",
    );
    assert!(has_api(&u, "pandas.options.display.max_columns"));
    assert_eq!(
        api(&u, "pandas.DataFrame.to_csv").keywords,
        ["encoding", "index"]
    );
}

#[test]
fn python_version_features() {
    let u = usage_of_source(
        "# %%\nif (n := len(x)) > 3:\n    pass\nmatch n:\n    case 1:\n        pass\n\
         print(f'{n}', end='')\nasync def f():\n    await g()\n",
    );
    let hint = |d: &str| {
        u.python
            .hints
            .iter()
            .find(|h| h.detail == d)
            .unwrap_or_else(|| panic!("{d}: {:?}", u.python.hints))
    };
    assert_eq!(
        hint("assignment expression `:=`").range,
        PythonRange::at_least(PythonVersion::new(3, 8))
    );
    assert_eq!(
        hint("match statement").range,
        PythonRange::at_least(PythonVersion::new(3, 10))
    );
    assert_eq!(
        hint("f-string").range,
        PythonRange::at_least(PythonVersion::new(3, 6))
    );
    assert_eq!(
        hint("print() with keyword arguments").reason,
        HintReason::SyntaxFeature
    );
    assert_eq!(
        hint("async def").range,
        PythonRange::at_least(PythonVersion::new(3, 5))
    );
    assert_eq!(
        u.python.range,
        PythonRange::at_least(PythonVersion::new(3, 10))
    );
    assert!(!u.python.conflict);
}

/// A `__future__` feature a later Python added is refused by an older one, before any
/// library runs: `annotations` needs 3.7 (a wild notebook stopped at it on 3.6, classed as
/// its own syntax error).
#[test]
fn future_features_need_the_python_that_added_them() {
    let u = usage_of_source("from __future__ import annotations, division\nx = 1\n");
    let hint = u
        .python
        .hints
        .iter()
        .find(|h| h.detail == "`from __future__ import annotations`")
        .unwrap_or_else(|| panic!("{:?}", u.python.hints));
    assert_eq!(hint.range, PythonRange::at_least(PythonVersion::new(3, 7)));
    assert_eq!(hint.reason, HintReason::SyntaxFeature);
    assert_eq!(
        u.python.range,
        PythonRange::at_least(PythonVersion::new(3, 7))
    );
}

#[test]
fn contradicting_evidence_is_a_conflict() {
    let u = usage_of_source("# %%\nprint 'x'\ny = f'{x}'\n");
    assert!(u.python.conflict);
    assert!(u.python.range.is_empty());
}

#[test]
fn nbconvert_calls_and_written_requirements() {
    let u = usage_of_source(
        "# %%\nget_ipython().system('pip install -q pyLDAvis==2.1.2')\n\
         get_ipython().run_line_magic('load_ext', 'rpy2.ipython')\n\
         get_ipython().run_cell_magic('writefile', 'requirements.txt', 'gensim==3.8.0\\nnltk\\n')\n\
         # %%\n%%writefile requirements-dev.txt\npytest>=5  # tests\n",
    );
    assert_eq!(
        requirements(&u),
        ["pyldavis==2.1.2", "gensim==3.8.0", "nltk", "pytest>=5"]
    );
    assert_eq!(u.requirements[0].name.as_str(), "pyldavis");
    assert!(u
        .imports
        .iter()
        .any(|i| i.module.as_str() == "rpy2.ipython"));
    assert_eq!(u.requirements[3].at, at(2, 2));
}

#[test]
fn unknown_cell_magic_is_a_note_not_an_error() {
    let u = usage_of_source("# %%\n%%sparkql\nSELECT * FROM t\n# %%\nimport numpy\n");
    assert!(u.warnings.is_empty());
    assert_eq!(u.notes.len(), 1);
    assert_eq!(u.notes[0].at, at(1, 1));
    assert_eq!(third_party(&u), ["numpy"]);
}

#[test]
fn stdlib_depends_on_candidate_versions() {
    use nbenv::notebook::{self, AnalyzeOptions};
    let nb = nbenv::notebook::from_bytes(
        std::path::Path::new("x.py"),
        b"import asynchat\nimport tomllib\nimport imp\n",
    )
    .unwrap();
    let all = notebook::analyze(&nb, &AnalyzeOptions::default());
    assert!(all.third_party.is_empty());
    let py312 = notebook::analyze(
        &nb,
        &AnalyzeOptions {
            python_versions: vec![PythonVersion::new(3, 12)],
            scan_local_modules: false,
        },
    );
    // on 3.12 only, asynchat and imp are no longer standard library
    assert_eq!(third_party(&py312), ["asynchat", "imp"]);
}

#[test]
fn deeply_nested_generated_code_does_not_overflow() {
    // 100k-term sums and 100k-deep attribute chains occur in generated cells
    let sum: Vec<String> = (0..100_000).map(|i| format!("a{i}")).collect();
    let chain = "x".to_string() + &".b".repeat(100_000);
    let source = format!(
        "# %%\nimport numpy as np\ntotal = {}\ny = {chain}\nnp.zeros(3)\n",
        sum.join(" + ")
    );
    let u = usage_of_source(&source);
    assert_eq!(api(&u, "numpy.zeros").locations, [at(1, 4)]);
}

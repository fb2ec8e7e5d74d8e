//! Each fixture notebook with the facts its usage analysis must find.

use crate::support::usage::*;
use nbenv::notebook::{
    self, HintReason, ImportVia, Installer, LocalSource, NoteKind, NotebookError, Origin,
    OutputEvidence, Receiver, SourceFormat, UseKind,
};
use nbenv::python::{PythonRange, PythonVersion};

/// Where the notebook's metadata says it last ran.
fn recorded(u: &nbenv::notebook::Usage) -> PythonRange {
    u.python.recorded().expect("a recorded Python").range
}

fn derived_from(api: &str) -> Receiver {
    Receiver::DerivedFrom(api.parse().unwrap())
}

#[test]
fn old_scikit_learn() {
    let u = usage_of("sklearn_old.ipynb");
    assert_eq!(
        third_party(&u),
        ["matplotlib", "numpy", "pandas", "sklearn"]
    );

    let fit = api(&u, "sklearn.linear_model.LinearRegression.fit");
    assert_eq!(fit.locations, [at(6, 2)]);
    assert!(fit.kinds.contains(&UseKind::Traced) && fit.kinds.contains(&UseKind::Call));
    // the constructor call, with the keyword that scikit-learn 1.2 removed
    let ctor = api(&u, "sklearn.linear_model.LinearRegression");
    assert_eq!(ctor.keywords, ["normalize"]);
    // traced across cells
    assert_eq!(
        api(&u, "sklearn.linear_model.LinearRegression.predict").locations,
        [at(8, 1)]
    );
    // order-aware: after `m = Ridge(...)` the same name traces to Ridge
    assert_eq!(
        api(&u, "sklearn.linear_model.Ridge.fit").locations,
        [at(9, 2)]
    );
    // and after `m = 5` to nothing
    assert!(!u.apis.iter().any(|a| a.api.as_str().ends_with(".real")));
    assert_eq!(
        api(&u, "sklearn.linear_model.LinearRegression.fit").count,
        1
    );

    assert_eq!(
        api(&u, "sklearn.cross_validation.train_test_split").keywords,
        ["random_state", "test_size"]
    );
    assert!(api(&u, "sklearn.grid_search.GridSearchCV.grid_scores_")
        .kinds
        .contains(&UseKind::Traced));
    assert_eq!(
        api(&u, "sklearn.preprocessing.Imputer").keywords,
        ["axis", "missing_values", "strategy"]
    );

    let ix = member(&u, "ix");
    assert_eq!(ix.receiver, derived_from("pandas.read_csv"));
    assert_eq!(ix.example, "df.ix");
    assert_eq!(ix.locations, [at(4, 2)]);
    let as_matrix = member(&u, "as_matrix");
    assert!(as_matrix.called);

    // Where it ran is a preference; its code needs nothing of one version.
    assert_eq!(recorded(&u), PythonRange::exactly(PythonVersion::new(3, 6)));
    assert_eq!(u.python.range, PythonRange::default());
    assert!(u.outputs.iter().any(|o| matches!(o,
        OutputEvidence::Version { module, version, cell: 3 } if module.as_str() == "sklearn" && version == "0.19.1")));
    assert!(u.outputs.iter().any(|o| matches!(o,
        OutputEvidence::Warning { category, module: Some(m), .. } if category == "DeprecationWarning" && m.as_str() == "sklearn.cross_validation")));
    assert!(u.warnings.is_empty(), "{:?}", u.warnings);
}

#[test]
fn old_pandas() {
    let u = usage_of("pandas_old.ipynb");
    // `frame = pd.DataFrame(...)` traces `frame.ix` and `frame.sort` to the class
    assert_eq!(api(&u, "pandas.DataFrame.ix").locations, [at(2, 2)]);
    assert_eq!(api(&u, "pandas.DataFrame.sort").keywords, ["ascending"]);
    for removed in ["pandas.rolling_mean", "pandas.Panel", "pandas.TimeGrouper"] {
        assert!(api(&u, removed).kinds.contains(&UseKind::Call), "{removed}");
    }
    assert!(api(&u, "pandas.tools.plotting.scatter_matrix")
        .kinds
        .contains(&UseKind::Import));
    // `df = pd.read_csv(...)` has no known class: its members are evidence with a receiver
    let ix = u
        .members
        .iter()
        .find(|m| m.member == "ix" && m.receiver == derived_from("pandas.read_csv"))
        .expect("df.ix on a read_csv result");
    assert_eq!(ix.locations, [at(4, 4)]);
    assert_eq!(
        member(&u, "as_matrix").receiver,
        derived_from("pandas.read_csv")
    );

    // imp and distutils are standard library (of Python <= 3.11), not PyPI packages
    assert_eq!(third_party(&u), ["numpy", "pandas"]);
    let imp = u
        .imports
        .iter()
        .find(|i| i.module.as_str() == "imp")
        .unwrap();
    assert_eq!(imp.origin, Origin::Stdlib);
    let imp_hint = u.python.hints.iter().find(|h| h.detail == "imp").unwrap();
    assert_eq!(imp_hint.reason, HintReason::StdlibModule);
    assert_eq!(
        imp_hint.range,
        PythonRange::at_most(PythonVersion::new(3, 11))
    );
    assert!(!imp_hint.weak);
    assert!(u
        .python
        .hints
        .iter()
        .any(|h| h.detail == "distutils" && h.weak));

    assert!(u.outputs.iter().any(|o| matches!(o,
        OutputEvidence::Version { module, version, .. } if module.as_str() == "pandas" && version == "0.20.3")));
    assert!(u.outputs.iter().any(|o| matches!(o,
        OutputEvidence::Error { ename, evalue, cell: 3, .. } if ename == "AttributeError" && evalue.contains("'sort'"))));
    assert!(u.outputs.iter().any(|o| matches!(o,
        OutputEvidence::LibraryPath { module, python: Some(v), .. } if module.as_str() == "pandas.core.generic" && *v == PythonVersion::new(3, 6))));
    assert!(u.outputs.iter().any(|o| matches!(o,
        OutputEvidence::Warning { message, .. } if message.starts_with(".ix is deprecated"))));
    assert_eq!(recorded(&u), PythonRange::exactly(PythonVersion::new(3, 6)));
    // `imp`: the code needs 3.11 or older.
    assert_eq!(
        u.python.range,
        PythonRange::at_most(PythonVersion::new(3, 11))
    );
}

#[test]
fn tensorflow_1() {
    let u = usage_of("tensorflow1.ipynb");
    let tf = &u.requirements[0];
    assert_eq!(tf.requirement.to_string(), "tensorflow==1.15");
    assert_eq!(tf.name.as_str(), "tensorflow");
    assert_eq!(tf.installer, Installer::Pip);
    assert_eq!(tf.at, at(1, 1));
    assert_eq!(requirements(&u), ["tensorflow==1.15", "tensorflow>=1,<2"]);
    assert!(u
        .notes
        .iter()
        .any(|n| n.kind == NoteKind::TensorflowVersion));

    for a in [
        "tensorflow.placeholder",
        "tensorflow.log",
        "tensorflow.global_variables_initializer",
        "tensorflow.train.GradientDescentOptimizer",
    ] {
        api(&u, a);
    }
    assert_eq!(
        api(&u, "tensorflow.reduce_sum").keywords,
        ["reduction_indices"]
    );
    // `GradientDescentOptimizer(0.5).minimize(...)`: traced on the spot
    assert!(
        api(&u, "tensorflow.train.GradientDescentOptimizer.minimize")
            .kinds
            .contains(&UseKind::Traced)
    );
    // `with tf.Session() as sess:` binds sess to a Session
    let run = api(&u, "tensorflow.Session.run");
    assert_eq!(run.count, 3);
    assert_eq!(run.keywords, ["feed_dict"]);
    // `mnist` comes from a function: its members are member evidence
    assert_eq!(
        member(&u, "next_batch").receiver,
        derived_from("tensorflow.examples.tutorials.mnist.input_data.read_data_sets")
    );
    assert!(u.outputs.iter().any(|o| matches!(o,
        OutputEvidence::Installed { name, version, .. } if name.as_str() == "tensorflow" && version == "1.15.0")));
    assert!(u.outputs.iter().any(|o| matches!(o,
        OutputEvidence::Installed { name, version, .. } if name.as_str() == "numpy" && version == "1.18.5")));
}

#[test]
fn standalone_keras() {
    let u = usage_of("keras_standalone.ipynb");
    assert_eq!(third_party(&u), ["keras", "numpy"]);
    let fit = api(&u, "keras.models.Sequential.fit");
    assert_eq!(fit.keywords, ["batch_size", "callbacks", "nb_epoch"]);
    assert_eq!(
        api(&u, "keras.layers.Dense").keywords,
        ["activation", "init", "input_dim"]
    );
    assert_eq!(api(&u, "keras.models.Sequential.add").count, 2);
    assert!(api(&u, "keras.callbacks.Callback")
        .kinds
        .contains(&UseKind::BaseClass));
    // `self.model` in a Callback subclass is inherited from keras
    assert!(api(&u, "keras.callbacks.Callback.model")
        .kinds
        .contains(&UseKind::Inherited));
    assert_eq!(
        api(&u, "keras.backend.set_image_dim_ordering").locations,
        [at(1, 7)]
    );
    assert_eq!(
        member(&u, "history").receiver,
        derived_from("keras.models.Sequential.fit")
    );
    // dunder attributes are no API evidence
    assert!(!has_api(&u, "keras.__version__"));
    // Saved by Python 2.7, in code any Python runs.
    assert_eq!(recorded(&u), PythonRange::exactly(PythonVersion::new(2, 7)));
    assert_eq!(u.python.range, PythonRange::default());
    assert!(u.outputs.iter().any(|o| matches!(o,
        OutputEvidence::Version { module, version, .. } if module.as_str() == "keras" && version == "1.2.2")));
}

#[test]
fn magics_in_awkward_places() {
    let u = usage_of("magics_awkward.ipynb");
    // `%matplotlib inline` inside `try:` is an optional import
    let mpl = u
        .imports
        .iter()
        .find(|i| i.module.as_str() == "matplotlib")
        .unwrap();
    assert_eq!(
        (mpl.via, mpl.optional, mpl.at),
        (ImportVia::Magic, true, at(1, 2))
    );
    // an indented cell is dedented; autoreload is IPython's own extension
    assert!(u
        .imports
        .iter()
        .any(|i| i.module.as_str() == "IPython.extensions.autoreload"
            && i.via == ImportVia::LoadExt
            && i.at == at(2, 1)));
    // indented magics inside a block
    assert!(u
        .imports
        .iter()
        .any(|i| i.module.as_str() == "memory_profiler" && i.optional));
    let seaborn = u
        .requirements
        .iter()
        .find(|r| r.requirement.to_string() == "seaborn==0.9.0")
        .unwrap();
    assert_eq!((seaborn.at, seaborn.optional), (at(3, 2), true));
    // `! wget` with a space, `x = !ls`
    assert!(u
        .notes
        .iter()
        .any(|n| n.kind == NoteKind::DataDownload && n.at == at(4, 1)));
    // `%time df = ...` binds df; `df.ix` is then traced to read_csv
    assert_eq!(api(&u, "pandas.read_csv").locations, [at(5, 1)]);
    assert_eq!(api(&u, "numpy.dot").locations, [at(5, 2)]);
    assert_eq!(member(&u, "ix").receiver, derived_from("pandas.read_csv"));
    // `%%time` body is Python
    assert_eq!(member(&u, "groupby").locations, [at(6, 2)]);
    // `%%bash` with a continuation line installs two packages
    let bash: Vec<_> = u.requirements.iter().filter(|r| r.at == at(7, 2)).collect();
    assert_eq!(bash.len(), 2);
    assert_eq!(bash[0].requirement.to_string(), "xgboost==0.82");
    assert_eq!(bash[1].requirement.to_string(), "lightgbm");
    // `%%writefile utils.py` makes `utils` local, and its import of requests counts
    assert!(u
        .local_modules
        .iter()
        .any(|m| m.name == "utils" && m.source == LocalSource::WriteFile));
    let utils = u
        .imports
        .iter()
        .find(|i| i.module.as_str() == "utils")
        .unwrap();
    assert_eq!(utils.origin, Origin::Local);
    let requests = u
        .imports
        .iter()
        .find(|i| i.module.as_str() == "requests")
        .unwrap();
    assert_eq!(requests.via, ImportVia::WrittenModule);
    assert!(third_party(&u).contains(&"requests"));
    assert!(!third_party(&u).contains(&"utils"));
    // spaCy model download, %pip and %conda installs, `obj?`
    assert!(u
        .notes
        .iter()
        .any(|n| n.kind == NoteKind::ModelDownload && n.at == at(10, 2)));
    assert!(requirements(&u).contains(&"pandas<1.0".to_string()));
    let conda = u
        .requirements
        .iter()
        .find(|r| r.installer == Installer::Conda)
        .unwrap();
    assert_eq!(conda.requirement.to_string(), "lightgbm==2.2.3.*");
    assert_eq!(api(&u, "numpy.linalg.norm").locations, [at(10, 5)]);
    // `%%html` is skipped cleanly: nothing failed to parse
    assert!(u.warnings.is_empty(), "{:?}", u.warnings);
}

#[test]
fn cython_cell() {
    let u = usage_of("cython_cells.ipynb");
    assert_eq!(third_party(&u), ["Cython", "numpy"]);
    assert!(u
        .imports
        .iter()
        .any(|i| i.module.as_str() == "Cython" && i.via == ImportVia::LoadExt));
    assert!(u
        .imports
        .iter()
        .any(|i| i.module.as_str() == "Cython" && i.via == ImportVia::Magic && i.at == at(2, 1)));
    // the Cython body's imports, but not libc
    let cython_imports: Vec<_> = u
        .imports
        .iter()
        .filter(|i| i.via == ImportVia::Cython)
        .map(|i| (i.module.as_str(), i.at))
        .collect();
    assert_eq!(cython_imports, [("numpy", at(2, 2)), ("numpy", at(2, 3))]);
    // the Cython body was not parsed as Python
    assert!(u.warnings.is_empty(), "{:?}", u.warnings);
    assert_eq!(api(&u, "numpy.random.rand").locations, [at(3, 1)]);
}

#[test]
fn python_2() {
    let u = usage_of("python2.ipynb");
    assert_eq!(
        u.python.range,
        PythonRange::at_most(PythonVersion::new(2, 7))
    );
    assert_eq!(recorded(&u), PythonRange::exactly(PythonVersion::new(2, 7)));
    let details: Vec<&str> = u
        .python
        .hints
        .iter()
        .filter(|h| h.reason == HintReason::Python2Syntax)
        .map(|h| h.detail.as_str())
        .collect();
    for expected in [
        "print statement",
        "`except X, e`",
        "`raise E, message`",
        "backtick repr",
        "`ur''` string prefix",
        "octal literal `0777`",
        "long integer literal `10L`",
    ] {
        assert!(details.contains(&expected), "{expected} not in {details:?}");
    }
    let print = u
        .python
        .hints
        .iter()
        .find(|h| h.detail == "print statement")
        .unwrap();
    assert_eq!((print.at, print.count), (Some(at(1, 4)), 2));
    assert!(u
        .python
        .hints
        .iter()
        .any(|h| h.detail == "xrange" && h.reason == HintReason::Python2Name));
    // urllib2 and StringIO are Python 2's standard library
    assert_eq!(third_party(&u), ["numpy"]);
    assert!(u.python.hints.iter().any(
        |h| h.detail == "urllib2" && h.range == PythonRange::at_most(PythonVersion::new(2, 7))
    ));
    // the recovering parser keeps going: the import after `print "..."` and the call after
    // the backticks are still found
    assert!(u
        .imports
        .iter()
        .any(|i| i.module.as_str() == "numpy" && i.at == at(1, 5)));
    assert_eq!(api(&u, "numpy.zeros").locations, [at(3, 8)]);
    // and the cells that did not parse are reported with cell and line
    let cells: Vec<u32> = u.warnings.iter().map(|w| w.at.cell).collect();
    assert_eq!(cells, [1, 2, 3]);
    assert_eq!(u.warnings[0].at, at(1, 4));
    assert!(u.warnings[0].message.contains("Python 2"));
}

#[test]
fn nbformat_3() {
    let nb = notebook::read(fixture("nbformat3.ipynb")).unwrap();
    assert_eq!(
        nb.format,
        SourceFormat::Ipynb {
            nbformat: 3,
            nbformat_minor: 0
        }
    );
    assert_eq!(nb.cells.len(), 5);
    assert_eq!(nb.cells[1].execution_count, Some(1));
    assert!(nb.cells[3].source.starts_with("x = linspace(0, 10, 200)\n"));
    let u = usage_of("nbformat3.ipynb");
    // `%pylab` binds np and plt and star-imports pylab
    assert_eq!(api(&u, "numpy.random.randn").locations, [at(4, 2)]);
    assert_eq!(api(&u, "matplotlib.pyplot.savefig").keywords, ["dpi"]);
    assert!(api(&u, "matplotlib.pylab.plot")
        .kinds
        .contains(&UseKind::Star));
    assert_eq!(api(&u, "pandas.rolling_mean").locations, [at(4, 3)]);
    // `s = pd.Series(...)` traces `s.ix`
    assert_eq!(api(&u, "pandas.Series.ix").locations, [at(5, 2)]);
    assert!(u.outputs.iter().any(|o| matches!(o,
        OutputEvidence::Error { ename, cell: 5, .. } if ename == "NameError")));
    assert_eq!(u.python.range, PythonRange::default());
}

#[test]
fn broken_json() {
    let err = notebook::read(fixture("broken.ipynb")).unwrap_err();
    assert!(
        matches!(err, NotebookError::BrokenJson { line: 14, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("broken.ipynb"));
}

#[test]
fn other_bad_notebooks() {
    assert!(matches!(
        notebook::read(fixture("r_kernel.ipynb")),
        Err(NotebookError::NotPython { .. })
    ));
    assert!(matches!(
        notebook::read(fixture("empty.ipynb")),
        Err(NotebookError::Empty { cells: 3, .. })
    ));
    assert!(matches!(
        notebook::read(fixture("not_a_notebook.ipynb")),
        Err(NotebookError::NotANotebook { .. })
    ));
    assert!(matches!(
        notebook::read(fixture("missing.ipynb")),
        Err(NotebookError::Io { .. })
    ));
}

#[test]
fn local_helper_module() {
    let u = usage_of("with_helper/analysis.ipynb");
    assert_eq!(third_party(&u), ["seaborn"]);
    let locals: Vec<&str> = u.local_modules.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(locals, ["helpers", "mylib"]);
    assert!(u.imports[..3].iter().all(|i| i.origin == Origin::Local));
    assert_eq!(api(&u, "helpers.summarize").origin, Origin::Local);
    assert_eq!(api(&u, "seaborn.set_style").origin, Origin::ThirdParty);
}

#[test]
fn star_import() {
    let u = usage_of("star_import.ipynb");
    assert!(u.imports.iter().all(|i| i.star));
    // an unbound name may come from any star import: both are candidates
    for candidate in ["fastai.vision.sqrt", "math.sqrt"] {
        assert!(
            api(&u, candidate).kinds.contains(&UseKind::Star),
            "{candidate}"
        );
    }
    assert_eq!(api(&u, "math.sqrt").origin, Origin::Stdlib);
    let learner = api(&u, "fastai.vision.cnn_learner");
    assert_eq!(learner.keywords, ["metrics"]);
    assert!(learner.kinds.contains(&UseKind::Call));
    api(&u, "fastai.vision.ImageDataBunch.from_folder");
    assert_eq!(
        member(&u, "fit_one_cycle").receiver,
        derived_from("fastai.vision.cnn_learner")
    );
    assert_eq!(third_party(&u), ["fastai"]);
}

#[test]
fn imports_only_inside_functions() {
    let u = usage_of("imports_in_functions.ipynb");
    assert_eq!(third_party(&u), ["pandas", "seaborn", "sklearn"]);
    assert!(u.imports.iter().all(|i| i.in_function));
    let seaborn = u
        .third_party
        .iter()
        .find(|t| t.name.as_str() == "seaborn")
        .unwrap();
    assert!(seaborn.optional);
    assert!(!u.third_party[0].optional);
    // what a notebook function returns is traced to its call sites
    assert_eq!(member(&u, "ix").receiver, derived_from("pandas.read_csv"));
    assert_eq!(member(&u, "ix").locations, [at(3, 2)]);
    assert_eq!(
        api(
            &u,
            "sklearn.ensemble.RandomForestClassifier.feature_importances_"
        )
        .locations,
        [at(3, 3)]
    );
    assert_eq!(
        api(&u, "sklearn.ensemble.RandomForestClassifier").keywords,
        ["n_estimators", "n_jobs"]
    );
}

#[test]
fn torch_classes_decorators_and_inheritance() {
    let u = usage_of("torch_model.ipynb");
    assert!(api(&u, "torch.nn.Module")
        .kinds
        .contains(&UseKind::BaseClass));
    // members a notebook class inherits from its library base
    assert!(api(&u, "torch.nn.Module.cuda")
        .kinds
        .contains(&UseKind::Inherited));
    assert_eq!(api(&u, "torch.nn.Module.parameters").locations, [at(2, 13)]);
    // `self.fc1 = nn.Linear(...)` in __init__ is traced in forward and outside
    assert!(api(&u, "torch.nn.Linear.weight")
        .kinds
        .contains(&UseKind::Traced));
    assert_eq!(api(&u, "torch.nn.functional.log_softmax").keywords, ["dim"]);
    let no_grad = api(&u, "torch.no_grad");
    assert!(no_grad.kinds.contains(&UseKind::Decorator) && no_grad.kinds.contains(&UseKind::Call));
    assert_eq!(api(&u, "torch.optim.SGD.step").locations, [at(3, 8)]);
    // `for data, target in loader` unpacks what the DataLoader yields
    assert_eq!(
        member(&u, "cuda").receiver,
        derived_from("torch.utils.data.DataLoader")
    );
    assert!(u
        .python
        .hints
        .iter()
        .any(|h| h.detail == "f-string" && h.at == Some(at(3, 9))));
    assert!(!has_api(&u, "torch.nn.Module.forward"));
}

#[test]
fn jupytext_percent_script() {
    let u = usage_of("percent_script.py");
    assert_eq!(u.notebook.format, SourceFormat::PercentScript);
    assert_eq!(u.notebook.cells, 4);
    assert_eq!(requirements(&u), ["plotly==4.14.3"]);
    assert_eq!(u.requirements[0].at, at(2, 1));
    assert!(u
        .imports
        .iter()
        .any(|i| i.module.as_str() == "matplotlib" && i.at == at(2, 2)));
    assert_eq!(api(&u, "plotly.express.bar").keywords, ["color", "x", "y"]);
    // the commented `# %time` magic binds `summary`
    assert_eq!(
        member(&u, "plot").receiver,
        derived_from("pandas.read_excel")
    );
    assert_eq!(
        recorded(&u),
        PythonRange::at_least(PythonVersion::new(3, 0))
    );
    assert_eq!(u.python.range, PythonRange::default());
}

#[test]
fn plain_script() {
    let u = usage_of("plain_script.py");
    assert_eq!(u.notebook.format, SourceFormat::Script);
    assert_eq!(third_party(&u), ["bs4", "lxml", "matplotlib", "requests"]);
    // nbconvert's `get_ipython().run_line_magic('matplotlib', 'inline')`
    assert!(u
        .imports
        .iter()
        .any(|i| i.module.as_str() == "matplotlib" && i.via == ImportVia::Magic));
    // `if __name__ == "__main__":` always runs
    assert!(
        !u.third_party
            .iter()
            .find(|t| t.name.as_str() == "lxml")
            .unwrap()
            .optional
    );
    assert!(api(&u, "bs4.BeautifulSoup.find_all")
        .kinds
        .contains(&UseKind::Traced));
    assert_eq!(api(&u, "requests.get").keywords, ["timeout"]);
}

#[test]
fn ipython_through_magics_belongs_to_the_kernel() {
    let u = usage_of("magics_awkward.ipynb");
    let autoreload = u
        .imports
        .iter()
        .find(|i| i.module.as_str() == "IPython.extensions.autoreload")
        .unwrap();
    assert_eq!(autoreload.origin, Origin::Kernel);
    assert!(
        !third_party(&u).contains(&"IPython"),
        "{:?}",
        third_party(&u)
    );

    // IPython imported by code is still evidence.
    let u = usage_of_source("# %%\n%load_ext autoreload\nfrom IPython.display import display\n");
    assert_eq!(third_party(&u), ["IPython"]);
}

#[test]
fn model_and_data_downloads_are_noted() {
    let u = usage_of_source(
        "# %%\n\
         from transformers import AutoModel\n\
         import torchvision\n\
         from keras.applications import ResNet50\n\
         from keras.datasets import mnist\n\
         from keras.utils import get_file\n\
         import urllib.request\n\
         m = AutoModel.from_pretrained('bert-base-uncased')\n\
         r = torchvision.models.resnet18(pretrained=True)\n\
         k = ResNet50(weights='imagenet')\n\
         n = ResNet50(weights=None)\n\
         (x, y), _ = mnist.load_data()\n\
         d = torchvision.datasets.MNIST('data', download=True)\n\
         f = get_file('a.zip', 'http://x/a.zip')\n\
         urllib.request.urlretrieve('http://x/b.csv', 'b.csv')\n\
         !wget http://x/c.csv\n",
    );
    let notes: Vec<(NoteKind, &str)> = u
        .notes
        .iter()
        .map(|n| (n.kind, n.detail.as_str()))
        .collect();
    let models: Vec<&str> = notes
        .iter()
        .filter(|(k, _)| *k == NoteKind::ModelDownload)
        .map(|(_, d)| *d)
        .collect();
    assert_eq!(
        models,
        [
            "transformers.AutoModel.from_pretrained(\"bert-base-uncased\")",
            "torchvision.models.resnet18(pretrained=True)",
            "keras.applications.ResNet50(weights=\"imagenet\")",
        ]
    );
    let data: Vec<&str> = notes
        .iter()
        .filter(|(k, _)| *k == NoteKind::DataDownload)
        .map(|(_, d)| *d)
        .collect();
    assert_eq!(
        data,
        [
            "keras.datasets.mnist.load_data()",
            "torchvision.datasets.MNIST(download=True)",
            "keras.utils.get_file(\"a.zip\")",
            "urllib.request.urlretrieve(\"http://x/b.csv\")",
            "wget http://x/c.csv",
        ]
    );
}

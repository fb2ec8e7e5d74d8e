//! Hand-labelled crashes, each a minimal reproduction: the notebook's code, the traceback it
//! printed, and a small fake bank. A name the installed release lacks is the environment's
//! only when the bank shows some release has it; a name no release ever had is the code's;
//! without a bank the class is unknown, never a guess.

use std::path::Path;

use crate::support::archives::WheelBuilder;
use crate::support::context::TestContext;
use crate::support::server::{FixtureFile, PageMode, TestServer};
use nbenv::names::{ApiPath, DistName, ModulePath};
use nbenv::notebook::failure::{
    classify, ApiHistory, BankSays, Cause, Failure, FailureClass, FailureContext, Problem, Raised,
};
use nbenv::notebook::{self, AnalyzeOptions, Notebook};
use nbenv::verify::{teach, wanted_lessons, Lesson};
use pep440_rs::Version;
use serde_json::{json, Value};

/// What a few distributions' releases have, as the bank would say: a name is in some release
/// when listed, in none when its distribution is known and it is not listed, unknown when the
/// distribution is not known.
#[derive(Default)]
struct FakeBank {
    /// (top-level module, distribution)
    dists: Vec<(&'static str, &'static str)>,
    /// APIs some release has.
    names: Vec<&'static str>,
    /// (class, member) some release's class of that name has.
    members: Vec<(&'static str, &'static str)>,
    /// (API, keyword) some release's API takes.
    keywords: Vec<(&'static str, &'static str)>,
    /// APIs whose signature changed between releases.
    changed: Vec<&'static str>,
}

impl FakeBank {
    fn says(&self, top: &str, yes: bool) -> BankSays {
        match self.dists.iter().find(|(t, _)| *t == top) {
            None => BankSays::Unknown,
            Some((_, d)) => {
                let distribution = DistName::new(d).unwrap();
                if yes {
                    BankSays::SomeRelease { distribution }
                } else {
                    BankSays::NoRelease { distribution }
                }
            }
        }
    }
}

impl ApiHistory for FakeBank {
    fn api(&self, api: &ApiPath) -> BankSays {
        self.says(api.top_level(), self.names.contains(&api.as_str()))
    }

    fn member(&self, module: &ModulePath, class: &str, member: &str) -> BankSays {
        self.says(module.top_level(), self.members.contains(&(class, member)))
    }

    fn keyword(&self, api: &ApiPath, keyword: &str) -> BankSays {
        self.says(
            api.top_level(),
            self.keywords.contains(&(api.as_str(), keyword)),
        )
    }

    fn changed(&self, api: &ApiPath, _installed: &[(DistName, Version)]) -> BankSays {
        self.says(api.top_level(), self.changed.contains(&api.as_str()))
    }
}

/// pandas, numpy, keras, scikit-learn and matplotlib, with the names their histories have.
fn bank() -> FakeBank {
    FakeBank {
        dists: vec![
            ("pandas", "pandas"),
            ("numpy", "numpy"),
            ("keras", "keras"),
            ("sklearn", "scikit-learn"),
            ("matplotlib", "matplotlib"),
            ("gensim", "gensim"),
        ],
        names: vec![
            "pandas.DataFrame",
            "pandas.DataFrame.ix",
            "numpy.asarray",
            "numpy.float",
            // keras < 2.6
            "keras.models.Sequential.predict_classes",
            // scikit-learn >= 1.0
            "sklearn.metrics.RocCurveDisplay.from_estimator",
            // scikit-learn < 0.20
            "sklearn.cross_validation",
            "sklearn.cross_validation.train_test_split",
        ],
        members: vec![("DataFrame", "ix"), ("Sequential", "predict_classes")],
        keywords: vec![("gensim.models.Word2Vec", "size")],
        changed: vec!["matplotlib.pyplot.hist"],
    }
}

/// A notebook of `cells`, each run once in order (execution count = cell number).
fn notebook_of(cells: &[&str]) -> Notebook {
    let cells: Vec<Value> = cells
        .iter()
        .enumerate()
        .map(|(i, source)| {
            json!({"cell_type": "code", "execution_count": i + 1, "metadata": {},
                   "outputs": [], "source": source})
        })
        .collect();
    let nb = json!({"nbformat": 4, "nbformat_minor": 2, "metadata": {}, "cells": cells});
    notebook::from_bytes(Path::new("crash.ipynb"), &serde_json::to_vec(&nb).unwrap()).unwrap()
}

/// The crash at the end of `traceback` (plain Python's text, cells named `<ipython-input-N-…>`),
/// classified with `bank` when given.
fn crash(cells: &[&str], traceback: &str, bank: Option<&dyn ApiHistory>) -> Failure {
    let nb = notebook_of(cells);
    let options = AnalyzeOptions {
        scan_local_modules: false,
        ..AnalyzeOptions::default()
    };
    let usage = notebook::analyze(&nb, &options);
    let mut cx = FailureContext::new(&nb, &usage);
    if let Some(bank) = bank {
        cx = cx.with_bank(bank);
    }
    let last = traceback.trim_end().lines().last().unwrap();
    let (ename, evalue) = last.split_once(": ").unwrap();
    let raised = Raised::stored(ename, evalue, &[traceback.to_string()], &cx);
    let cell = raised.innermost_cell_frame().and_then(|f| f.cell);
    classify(&Problem::Raised(raised), cell, &cx)
}

fn in_cell(n: u32, line: u32, code: &str) -> String {
    format!("  File \"<ipython-input-{n}-4ee1d4a7b9b2>\", line {line}, in <module>\n    {code}\n")
}

fn in_library(file: &str, function: &str) -> String {
    format!("  File \"/opt/conda/lib/python3.8/site-packages/{file}\", line 10, in {function}\n    raise\n")
}

fn traceback(frames: &[String], last: &str) -> String {
    format!(
        "Traceback (most recent call last):\n{}{last}\n",
        frames.concat()
    )
}

fn dist(name: &str) -> DistName {
    DistName::new(name).unwrap()
}

/// `pandas.dataframe`, `numpy.asarry`, `DataFrame.concat`: typos, or names that never
/// existed. Each with its notebook, traceback and the same crash without a bank.
fn typos() -> Vec<(Vec<&'static str>, String, &'static str)> {
    vec![
        (
            vec!["import pandas as pd\n", "df = pd.dataframe({'a': [1]})\n"],
            traceback(
                &[in_cell(2, 1, "df = pd.dataframe({'a': [1]})")],
                "AttributeError: module 'pandas' has no attribute 'dataframe'",
            ),
            "pandas",
        ),
        (
            vec!["import numpy as np\nx = np.asarry([1, 2])\n"],
            traceback(
                &[in_cell(1, 2, "x = np.asarry([1, 2])")],
                "AttributeError: module 'numpy' has no attribute 'asarry'",
            ),
            "numpy",
        ),
        (
            vec![
                "import pandas as pd\ndf = pd.DataFrame({'a': [1]})\n",
                "both = df.concat(df)\n",
            ],
            traceback(
                &[
                    in_cell(2, 1, "both = df.concat(df)"),
                    in_library("pandas/core/generic.py", "__getattr__"),
                ],
                "AttributeError: 'DataFrame' object has no attribute 'concat'",
            ),
            "pandas",
        ),
    ]
}

#[test]
fn a_name_no_release_ever_had_is_the_codes() {
    let bank = bank();
    for (cells, tb, library) in typos() {
        let f = crash(&cells, &tb, Some(&bank));
        assert_eq!(f.class, FailureClass::Code, "{tb}\n{f:?}");
        let said = match &f.cause {
            Cause::MissingApi { bank, .. } | Cause::MissingMember { bank, .. } => bank,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            said,
            &BankSays::NoRelease {
                distribution: dist(library)
            }
        );
        assert!(!f.may_repair(), "{f}");
    }
}

/// Keras's `predict_classes` (gone in 2.6), scikit-learn's `RocCurveDisplay.from_estimator`
/// (new in 1.0), `sklearn.cross_validation` (gone in 0.20): some release has each.
fn removed_or_added() -> Vec<(Vec<&'static str>, String)> {
    vec![
        (
            vec![
                "from keras.models import Sequential\nmodel = Sequential()\n",
                "labels = model.predict_classes(x)\n",
            ],
            traceback(
                &[in_cell(2, 1, "labels = model.predict_classes(x)")],
                "AttributeError: 'Sequential' object has no attribute 'predict_classes'",
            ),
        ),
        (
            vec!["from sklearn.metrics import RocCurveDisplay\nRocCurveDisplay.from_estimator(clf, X, y)\n"],
            traceback(
                &[in_cell(1, 2, "RocCurveDisplay.from_estimator(clf, X, y)")],
                "AttributeError: type object 'RocCurveDisplay' has no attribute 'from_estimator'",
            ),
        ),
        (
            vec!["from sklearn import cross_validation\n"],
            traceback(
                &[in_cell(1, 1, "from sklearn import cross_validation")],
                "ImportError: cannot import name 'cross_validation' from 'sklearn' (/opt/conda/lib/python3.8/site-packages/sklearn/__init__.py)",
            ),
        ),
        (
            vec!["from sklearn.cross_validation import train_test_split\n"],
            traceback(
                &[in_cell(1, 1, "from sklearn.cross_validation import train_test_split")],
                "ModuleNotFoundError: No module named 'sklearn.cross_validation'",
            ),
        ),
    ]
}

#[test]
fn a_name_some_release_has_is_the_environments() {
    let bank = bank();
    for (cells, tb) in removed_or_added() {
        let f = crash(&cells, &tb, Some(&bank));
        assert_eq!(f.class, FailureClass::Environment, "{tb}\n{f:?}");
        assert!(f.may_repair());
    }
    // The member's path, as the notebook's tracing knows it.
    let (cells, tb) = &removed_or_added()[0];
    let f = crash(cells, tb, Some(&bank));
    assert!(
        matches!(&f.cause, Cause::MissingMember { api: Some(api), bank: BankSays::SomeRelease { distribution }, .. }
            if api.as_str() == "keras.models.Sequential.predict_classes" && distribution.as_str() == "keras"),
        "{f:?}"
    );
    assert_eq!(
        f.to_string(),
        "environment: `Sequential` has no member `predict_classes` (keras.models.Sequential.predict_classes): other releases of keras have it"
    );
}

/// A value a helper module built, so the notebook's reading lost its type: a class of that
/// name in a library the notebook imports had the member in some release.
#[test]
fn a_member_of_a_value_a_helper_built_is_asked_of_the_imported_libraries() {
    let bank = bank();
    let cells = [
        "import pandas as pd\nimport helpers\nframe = helpers.load()",
        "frame.ix[0]",
    ];
    let tb = format!(
        "Traceback (most recent call last):\n{}AttributeError: 'DataFrame' object has no attribute 'ix'",
        in_cell(2, 1, "frame.ix[0]")
    );
    let f = crash(&cells, &tb, Some(&bank));
    assert_eq!(f.class, FailureClass::Environment, "{f:?}");
    assert!(
        matches!(&f.cause, Cause::MissingMember { bank: BankSays::SomeRelease { distribution }, .. } if distribution.as_str() == "pandas"),
        "{f:?}"
    );
    // A member no class of that name ever had stays the notebook's.
    let tb = tb
        .replace("'ix'", "'colums'")
        .replace("frame.ix[0]", "frame.colums");
    let f = crash(&cells, &tb, Some(&bank));
    assert_ne!(f.class, FailureClass::Environment, "{f:?}");
}

#[test]
fn without_a_bank_a_missing_name_is_unknown() {
    let cases = typos()
        .into_iter()
        .map(|(cells, tb, _)| (cells, tb))
        .chain(removed_or_added());
    for (cells, tb) in cases {
        let f = crash(&cells, &tb, None);
        assert_eq!(f.class, FailureClass::Unknown, "{tb}\n{f:?}");
        // A round may try it; nothing claims it is the environment's.
        assert!(f.may_repair() && !f.is_environmental());
    }
    // Nor can a bank that does not know the library tell.
    let silent = FakeBank::default();
    let (cells, tb, _) = &typos()[0];
    let f = crash(cells, tb, Some(&silent));
    assert_eq!(f.class, FailureClass::Unknown);
    let json = serde_json::to_value(&f).unwrap();
    assert_eq!(json["class"], "unknown");
    assert_eq!(json["cause"], "missing_api");
    assert_eq!(json["bank"], "unknown");
}

#[test]
fn nltk_data_is_data_and_a_package_a_library_asks_for_is_the_environments() {
    let nltk = traceback(
        &[
            in_cell(1, 2, "nltk.word_tokenize('a b')"),
            in_library("nltk/data.py", "find"),
        ],
        "LookupError: \n**********************************************************************\n  Resource \u{1b}[93mpunkt\u{1b}[0m not found.\n  Please use the NLTK Downloader to obtain the resource:",
    );
    let nb = ["import nltk\nnltk.word_tokenize('a b')\n"];
    // The message spans lines: the exception's value is everything after `LookupError: `.
    let f = {
        let nbk = notebook_of(&nb);
        let usage = notebook::analyze(&nbk, &AnalyzeOptions::default());
        let cx = FailureContext::new(&nbk, &usage);
        let (_, evalue) = nltk.split_once("LookupError: ").unwrap();
        let raised = Raised::stored("LookupError", evalue, std::slice::from_ref(&nltk), &cx);
        classify(&Problem::Raised(raised), Some(1), &cx)
    };
    assert_eq!(f.class, FailureClass::DataInput, "{f:?}");
    assert_eq!(
        f.cause,
        Cause::MissingResource {
            resource: "punkt".into()
        }
    );

    let excel = traceback(
        &[
            in_cell(1, 2, "df = pd.read_excel('x.xlsx')"),
            in_library("pandas/io/excel/_base.py", "read_excel"),
            in_library("pandas/compat/_optional.py", "import_optional_dependency"),
        ],
        "ImportError: Missing optional dependency 'openpyxl'.  Use pip or conda to install openpyxl.",
    );
    let f = crash(
        &["import pandas as pd\ndf = pd.read_excel('x.xlsx')\n"],
        &excel,
        None,
    );
    assert_eq!(f.class, FailureClass::Environment, "{f:?}");
    assert!(
        matches!(&f.cause, Cause::PackageAsked { requirement, .. } if requirement == "openpyxl"),
        "{f:?}"
    );
    let plotting = traceback(
        &[
            in_cell(1, 2, "df.plot()"),
            in_library("pandas/plotting/_core.py", "_get_plot_backend"),
        ],
        "ImportError: matplotlib is required for plotting when the default backend \"matplotlib\" is selected.",
    );
    let f = crash(
        &["import pandas as pd\ndf = pd.DataFrame()\ndf.plot()\n"],
        &plotting,
        None,
    );
    assert!(
        matches!(&f.cause, Cause::PackageAsked { requirement, .. } if requirement == "matplotlib"),
        "{f:?}"
    );
    // Issue 38 item 15: a library that would take either of two packages is the
    // environment's, and both are named (the one it prefers is the one to install).
    let hdfs = traceback(
        &[
            in_cell(1, 2, "df = pd.read_parquet('hdfs://x/y.parquet')"),
            in_library("pandas/io/parquet.py", "get_engine"),
        ],
        "ImportError: Please install either `pyarrow` (preferred) or `hdfs3`",
    );
    let f = crash(
        &["import pandas as pd\ndf = pd.read_parquet('hdfs://x/y.parquet')\n"],
        &hdfs,
        None,
    );
    assert_eq!(f.class, FailureClass::Environment, "{f:?}");
    assert!(
        matches!(&f.cause, Cause::PackageAsked { requirement, alternatives }
            if requirement == "pyarrow" && alternatives == &["hdfs3"]),
        "{f:?}"
    );
    assert_eq!(
        f.cause.to_string(),
        "a library asks for the package `pyarrow` (or `hdfs3`)"
    );
    // IPython 3 asks for the package (not a module: pyzmq installs `zmq`), with versions.
    let zmq = traceback(
        &[
            in_cell(1, 1, "from IPython.html import widgets"),
            in_library("IPython/kernel/zmq/__init__.py", "check_for_zmq"),
        ],
        "ImportError: IPython.kernel.zmq requires pyzmq >= 2.1.11",
    );
    let f = crash(&["from IPython.html import widgets\n"], &zmq, None);
    assert_eq!(f.class, FailureClass::Environment, "{f:?}");
    assert!(
        matches!(&f.cause, Cause::PackageAsked { requirement, .. } if requirement == "pyzmq>=2.1.11"),
        "{f:?}"
    );
    // Taught, it is a requirement to resolve, and no import of a module `pyzmq`.
    let nb = notebook_of(&["from IPython.html import widgets\n"]);
    let mut usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let lesson = Lesson::Install {
        requirement: "pyzmq>=2.1.11".into(),
        cell: 1,
    };
    assert!(teach(&mut usage, std::slice::from_ref(&lesson)));
    let asked: Vec<_> = usage
        .requirements
        .iter()
        .map(|r| (r.name.as_str(), r.requirement.to_string()))
        .collect();
    assert_eq!(asked, [("pyzmq", "pyzmq>=2.1.11".to_string())]);
    assert!(!usage.third_party.iter().any(|t| t.name.as_str() == "pyzmq"));
    assert!(!teach(&mut usage, &[lesson]));
}

/// A library that says it found no executable of a program: the program is missing, not the
/// notebook's code (gym's video recorder, under dennybritz's Deep Q notebook).
#[test]
fn a_library_that_finds_no_executable_names_a_missing_program() {
    let gym = traceback(
        &[
            in_cell(9, 3, "env = Monitor(env, directory=monitor_path, video_callable=record)"),
            in_library("gym/wrappers/monitoring/video_recorder.py", "__init__"),
        ],
        "gym.error.DependencyNotInstalled: Found neither the ffmpeg nor avconv executables. On OS X, you can install ffmpeg via `brew install ffmpeg`. On most Ubuntu variants, `sudo apt-get install ffmpeg` should do it. On Ubuntu 14.04, however, you'll need to install avconv with `sudo apt-get install libav-tools`.",
    );
    let f = crash(
        &[
            "from gym.wrappers import Monitor\n",
            "env = Monitor(env, directory=monitor_path, video_callable=record)\n",
        ],
        &gym,
        None,
    );
    assert_eq!(f.class, FailureClass::Environment, "{f:?}");
    assert_eq!(
        f.cause,
        Cause::MissingProgram {
            program: "ffmpeg".into()
        }
    );
}

/// A TypeError raised in matplotlib's own code from the notebook's `plt.hist(...)`.
/// gym's Atari environments say which module is missing, then add pip's words: the module
/// is the quoted name alone, and it is the environment's.
#[test]
fn a_missing_module_a_library_names_with_a_hint_is_the_environments() {
    let gym = traceback(
        &[
            in_cell(2, 1, "env = gym.envs.make(\"Breakout-v0\")"),
            in_library("gym/envs/registration.py", "make"),
            in_library("gym/envs/atari/atari_env.py", "<module>"),
        ],
        "gym.error.DependencyNotInstalled: No module named 'atari_py'. (HINT: you can install Atari dependencies by running 'pip install gym[atari]'.)",
    );
    let f = crash(
        &["import gym\n", "env = gym.envs.make(\"Breakout-v0\")\n"],
        &gym,
        None,
    );
    assert_eq!(f.class, FailureClass::Environment, "{f:?}");
    assert!(
        matches!(&f.cause, Cause::MissingModule { module, .. } if module.as_str() == "atari_py"),
        "{f:?}"
    );
}

fn inside_matplotlib() -> (Vec<&'static str>, String) {
    (
        vec!["import matplotlib.pyplot as plt\nplt.hist([1, 2], 'auto', None, True)\n"],
        traceback(
            &[
                in_cell(1, 2, "plt.hist([1, 2], 'auto', None, True)"),
                in_library("matplotlib/pyplot.py", "hist"),
                in_library("matplotlib/axes/_axes.py", "hist"),
                in_library("matplotlib/axes/_base.py", "_process_unit_info"),
            ],
            "TypeError: 'bool' object is not iterable",
        ),
    )
}

#[test]
fn a_type_error_inside_a_library_is_the_environments_when_the_api_changed() {
    let (cells, tb) = inside_matplotlib();
    let f = crash(&cells, &tb, Some(&bank()));
    assert_eq!(f.class, FailureClass::Environment, "{f:?}");
    assert_eq!(
        f.cause,
        Cause::ChangedApi {
            api: ApiPath::new("matplotlib.pyplot.hist").unwrap(),
            library: ModulePath::new("matplotlib.pyplot").unwrap(),
            ename: "TypeError".into(),
            distribution: dist("matplotlib"),
        }
    );
    // The same call, its signature the same in every release: the code's.
    let stable = FakeBank {
        changed: Vec::new(),
        ..bank()
    };
    let f = crash(&cells, &tb, Some(&stable));
    assert_eq!(f.class, FailureClass::Code, "{f:?}");
    assert_eq!(
        f.cause,
        Cause::Raised {
            ename: "TypeError".into()
        }
    );
}

#[test]
fn a_refused_keyword_is_weighed_by_the_bank_and_taught_as_keyword_evidence() {
    // `size` reaches `Word2Vec` through `**params`: the notebook's evidence lacks it.
    let cells = [
        "from gensim.models import Word2Vec\nparams = {'size': 100}\n",
        "model = Word2Vec(sentences, **params)\n",
    ];
    let tb = traceback(
        &[in_cell(2, 1, "model = Word2Vec(sentences, **params)")],
        "TypeError: __init__() got an unexpected keyword argument 'size'",
    );
    let bank = bank();
    let f = crash(&cells, &tb, Some(&bank));
    assert_eq!(f.class, FailureClass::Environment, "{f:?}");
    let Cause::BadKeyword {
        api: Some(api),
        keyword,
        ..
    } = &f.cause
    else {
        panic!("{f:?}")
    };
    assert_eq!(api.as_str(), "gensim.models.Word2Vec");

    // Taught, the keyword is evidence for the next resolution.
    let nb = notebook_of(&cells);
    let mut usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let before = usage.apis.iter().find(|a| &a.api == api).unwrap();
    assert!(before.keywords.is_empty(), "{before:?}");
    let lesson = Lesson::Keyword {
        api: api.clone(),
        keyword: keyword.clone(),
        cell: 2,
        refused_by: None,
    };
    assert!(teach(&mut usage, std::slice::from_ref(&lesson)));
    let after = usage.apis.iter().find(|a| &a.api == api).unwrap();
    assert_eq!(after.keywords, ["size"]);
    // Taught again, it is nothing new.
    assert!(!teach(&mut usage, std::slice::from_ref(&lesson)));
    // Which release refused it is new: a refusal the resolver applies to the releases whose
    // signature reads alike.
    let gensim_3 = (DistName::new("gensim").unwrap(), "3.8.3".parse().unwrap());
    let refused = Lesson::Keyword {
        api: api.clone(),
        keyword: keyword.clone(),
        cell: 2,
        refused_by: Some(gensim_3.clone()),
    };
    assert!(teach(&mut usage, std::slice::from_ref(&refused)));
    assert_eq!(usage.refusals.len(), 1);
    assert_eq!(
        (&usage.refusals[0].dist, &usage.refusals[0].version),
        (&gensim_3.0, &gensim_3.1)
    );
    assert!(!teach(&mut usage, &[refused]));

    // A keyword no release takes: the code's.
    let f = crash(
        &["from gensim.models import Word2Vec\nmodel = Word2Vec(sentences, sizes=100)\n"],
        &traceback(
            &[in_cell(1, 2, "model = Word2Vec(sentences, sizes=100)")],
            "TypeError: __init__() got an unexpected keyword argument 'sizes'",
        ),
        Some(&bank),
    );
    assert_eq!(f.class, FailureClass::Code, "{f:?}");
}

/// `plt.hist(x, normed=True)` on matplotlib 3.1+: the keyword reached a `Rectangle`, which
/// refused it from inside matplotlib's artist code. The keyword the notebook passed is the
/// evidence (matplotlib < 3.1 took `normed`), not a release to pass over one at a time; a
/// keyword no release took is the code's.
#[test]
fn a_keyword_an_artist_refuses_is_keyword_evidence_for_the_call_that_passed_it() {
    let cells = ["import matplotlib.pyplot as plt
plt.hist([1, 2], 80, normed=True)
"];
    let tb = |keyword: &str, message: &str| {
        traceback(
            &[
                in_cell(1, 2, &format!("plt.hist([1, 2], 80, {keyword}=True)")),
                in_library("matplotlib/pyplot.py", "hist"),
                in_library("matplotlib/axes/_axes.py", "hist"),
                in_library("matplotlib/artist.py", "update"),
            ],
            message,
        )
    };
    let bank = FakeBank {
        keywords: vec![("matplotlib.pyplot.hist", "normed")],
        ..bank()
    };
    for message in [
        "AttributeError: 'Rectangle' object has no property 'normed'",
        "AttributeError: Unknown property normed",
        "TypeError: Rectangle.set() got an unexpected keyword argument 'normed'",
    ] {
        let f = crash(&cells, &tb("normed", message), Some(&bank));
        assert_eq!(f.class, FailureClass::Environment, "{message}: {f:?}");
        let Cause::BadKeyword {
            api: Some(api),
            keyword,
            ..
        } = &f.cause
        else {
            panic!("{message}: {f:?}")
        };
        assert_eq!(api.as_str(), "matplotlib.pyplot.hist");
        assert_eq!(keyword, "normed");
    }
    let typo = ["import matplotlib.pyplot as plt
plt.hist([1, 2], 80, normd=True)
"];
    let f = crash(
        &typo,
        &tb(
            "normd",
            "AttributeError: 'Rectangle' object has no property 'normd'",
        ),
        Some(&bank),
    );
    assert_eq!(f.class, FailureClass::Code, "{f:?}");
}

/// `nbenv usage` and a usage batch, with a bank built from two releases of `tabular`: 1.0's
/// `Table` has `sort`, 2.0's has `sort_values`; neither has `tabel`. The stored errors are
/// told apart: a member of an older release, and a typo.
#[test]
fn stored_errors_are_classified_with_the_bank_at_hand() {
    let server = TestServer::start(PageMode::Json);
    let wheels = [
        WheelBuilder::new("tabular", "1.0").file(
            "tabular/__init__.py",
            "class Table:\n    def sort(self):\n        return self\n",
        ),
        WheelBuilder::new("tabular", "2.0").file(
            "tabular/__init__.py",
            "class Table:\n    def sort_values(self):\n        return self\n",
        ),
    ];
    let files: Vec<FixtureFile> = wheels
        .iter()
        .map(|w| FixtureFile {
            upload_time: Some("2020-01-01T00:00:00Z".into()),
            ..FixtureFile::new(&w.filename(), w.build())
        })
        .collect();
    server.publish("tabular", &files);
    let ctx = TestContext::with_server(server);
    let error = |count: u32, code: &str, ename: &str, evalue: &str| {
        json!({"output_type": "error", "ename": ename, "evalue": evalue,
               "traceback": [traceback(&[in_cell(count, 1, code)], &format!("{ename}: {evalue}"))]})
    };
    let nb = json!({"nbformat": 4, "nbformat_minor": 2, "metadata": {}, "cells": [
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
         "source": "import tabular\nt = tabular.Table()\n"},
        {"cell_type": "code", "execution_count": 2, "metadata": {},
         "outputs": [error(2, "t.sort()", "AttributeError", "'Table' object has no attribute 'sort'")],
         "source": "t.sort()\n"},
        {"cell_type": "code", "execution_count": 3, "metadata": {},
         "outputs": [error(3, "tabular.tabel()", "AttributeError", "module 'tabular' has no attribute 'tabel'")],
         "source": "tabular.tabel()\n"}
    ]});
    let notebooks = ctx.root().join("notebooks");
    std::fs::create_dir(&notebooks).unwrap();
    let path = notebooks.join("stored.ipynb");
    std::fs::write(&path, nb.to_string()).unwrap();
    let path = path.to_str().unwrap();
    let classes = |_dir: &Path| -> Vec<String> {
        let (code, out, err) = ctx.run(["usage", path, "--format", "json"]).parts();
        assert_eq!(code, 0, "{err}");
        let usage: Value = serde_json::from_str(&out).unwrap();
        usage["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| o["kind"] == "error")
            .map(|o| o["failure"]["class"].as_str().unwrap().to_string())
            .collect()
    };
    // No bank yet: unknown, and `usage` creates none.
    assert_eq!(classes(ctx.root()), ["unknown", "unknown"]);
    assert!(!ctx.root().join("bank.sqlite3").exists());

    let (code, _, err) = ctx
        .run(["bank", "add", "tabular", "--all-versions"])
        .parts();
    assert_eq!(code, 0, "{err}");
    assert_eq!(classes(ctx.root()), ["environment", "code"]);
    let (_, text, _) = ctx.run(["usage", path]).parts();
    assert!(
        text.contains("→ environment: `Table` has no member `sort` (tabular.Table.sort): other releases of tabular have it"),
        "{text}"
    );
    assert!(
        text.contains("→ code: `tabular.tabel` is missing from the installed release (no release of tabular has it)"),
        "{text}"
    );

    // A usage batch triages the stored errors the same way.
    let out = ctx.root().join("records.jsonl");
    let (code, _, err) = ctx
        .run([
            "batch",
            notebooks.to_str().unwrap(),
            "--stage",
            "usage",
            "--out",
            out.to_str().unwrap(),
        ])
        .parts();
    assert_eq!(code, 0, "{err}");
    let record: Value = serde_json::from_str(
        std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let stored: Vec<&str> = record["triage"]["stored_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["class"].as_str().unwrap())
        .collect();
    assert_eq!(stored, ["environment", "code"], "{record}");
}

/// bokeh 0.12.2 imports `return_future` from tornado, which tornado 6 removed; Python 3.6
/// says only "cannot import name 'return_future'". The library's own import line names what
/// it wanted: tornado is to be resolved with that API, and bokeh stays.
#[test]
fn what_a_library_imports_from_another_and_lacks_names_the_other() {
    let tb = traceback(
        &[
            in_cell(1, 2, "from bokeh.charts import Bar"),
            "  File \"/opt/conda/lib/python3.6/site-packages/bokeh/server/protocol/receiver.py\", line 8, in <module>\n    from tornado.concurrent import return_future\n".to_string(),
        ],
        "ImportError: cannot import name 'return_future'",
    );
    let cells = ["import bokeh\nfrom bokeh.charts import Bar\n"];
    let f = crash(&cells, &tb, None);
    assert_eq!(f.class, FailureClass::Environment, "{f:?}");
    let Cause::LibraryMismatch {
        library,
        wanted: Some(wanted),
        ..
    } = &f.cause
    else {
        panic!("{f:?}")
    };
    assert_eq!(library.top_level(), "bokeh");
    assert_eq!(wanted.as_str(), "tornado.concurrent.return_future");
    assert_eq!(
        f.cause.to_string(),
        "ImportError inside bokeh.server.protocol.receiver: it imports \
         `tornado.concurrent.return_future`, which the installed release of `tornado` lacks"
    );
    let nb = notebook_of(&cells);
    let mut usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let tornado = DistName::new("tornado").unwrap();
    let lacking: Version = "6.1".parse().unwrap();
    let lessons = wanted_lessons(wanted, 2, Some((tornado.clone(), lacking.clone())));
    // The release the run had is refuted, whatever the bank says of it.
    assert!(lessons.iter().any(|l| matches!(
        l,
        Lesson::Exclude { dist, version } if *dist == tornado && *version == lacking
    )));
    assert!(teach(&mut usage, &lessons));
    assert!(usage
        .third_party
        .iter()
        .any(|t| t.name.as_str() == "tornado.concurrent"));
    assert!(usage.apis.iter().any(|a| a.api == *wanted));
    assert!(usage
        .lacked
        .iter()
        .any(|l| l.dist == tornado && l.version == lacking && l.api == *wanted));
    // Without a pin of nbenv's, nothing is refuted: the API alone is to resolve.
    assert!(!wanted_lessons(wanted, 2, None)
        .iter()
        .any(|l| matches!(l, Lesson::Exclude { .. })));

    // An import of the library's own module names nothing else to resolve.
    let own = traceback(
        &[
            in_cell(1, 2, "from bokeh.charts import Bar"),
            "  File \"/opt/conda/lib/python3.6/site-packages/bokeh/charts/__init__.py\", line 3, in <module>\n    from bokeh.models import Gone\n".to_string(),
        ],
        "ImportError: cannot import name 'Gone'",
    );
    let f = crash(&cells, &own, None);
    assert!(
        matches!(&f.cause, Cause::LibraryMismatch { wanted: None, .. }),
        "{f:?}"
    );
}

/// torch without numpy says so from compiled code, with no frame of its own: the package is
/// asked for all the same (torch of 2017 installed numpy along).
#[test]
fn a_package_compiled_code_says_it_lacks_is_asked_for() {
    let cells = ["import torch\nv = torch.ones(2)\nv.numpy()\n"];
    let tb = traceback(
        &[in_cell(1, 3, "v.numpy()")],
        "RuntimeError: Numpy is not available",
    );
    let f = crash(&cells, &tb, None);
    assert_eq!(f.class, FailureClass::Environment, "{f:?}");
    assert!(
        matches!(&f.cause, Cause::PackageAsked { requirement, .. } if requirement.eq_ignore_ascii_case("numpy")),
        "{f:?}"
    );
    let nb = notebook_of(&cells);
    let mut usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let Cause::PackageAsked { requirement, .. } = &f.cause else {
        unreachable!()
    };
    let lesson = Lesson::Install {
        requirement: requirement.clone(),
        cell: 1,
    };
    assert!(teach(&mut usage, &[lesson]));
    assert!(usage
        .requirements
        .iter()
        .any(|r| r.name.as_str() == "numpy"));
    // The notebook's own RuntimeError says nothing of the kind.
    let own = traceback(
        &[in_cell(1, 3, "v.numpy()")],
        "RuntimeError: shapes do not match",
    );
    assert!(!matches!(
        crash(&cells, &own, None).cause,
        Cause::PackageAsked { .. }
    ));
}

//! Stored errors classified: error outputs saved in notebooks (IPython 7 and 8 tracebacks,
//! Python 2 messages) go through the same classifier as a live run's, with the notebook's
//! own evidence, and `nbenv usage` reports each one's class.

use std::path::Path;

use crate::support::context::bare_command;
use nbenv::notebook::failure::{
    classify, Cause, Definition, Failure, FailureClass, FailureContext, InstallReason, Problem,
    Raised,
};
use nbenv::notebook::{self, AnalyzeOptions, Notebook, OutputEvidence};
use nbenv::python::PythonVersion;
use serde_json::{json, Value};

/// An IPython 7 style traceback: the header, one frame in the cell (execution count
/// `count`, failing line `code` at `line`), library frames, the last line.
fn ipython7(
    count: u32,
    line: u32,
    code: &str,
    library: &[&str],
    ename: &str,
    evalue: &str,
) -> Vec<String> {
    let mut tb = vec![
        "\u{1b}[0;31m-----------------------------------------------------------------\u{1b}[0m".to_string(),
        format!("\u{1b}[0;31m{ename}\u{1b}[0m                            Traceback (most recent call last)"),
        format!("\u{1b}[0;32m<ipython-input-{count}-4ee1d4a7b9b2>\u{1b}[0m in \u{1b}[0;36m<module>\u{1b}[0;34m()\u{1b}[0m\n\u{1b}[0;32m----> {line}\u{1b}[0;31m {code}\u{1b}[0m\n"),
    ];
    for file in library {
        tb.push(format!(
            "\u{1b}[0;32m/usr/local/lib/python3.6/site-packages/{file}\u{1b}[0m in \u{1b}[0;36mf\u{1b}[0;34m(x)\u{1b}[0m\n\u{1b}[0;32m--> 10\u{1b}[0;31m     raise\u{1b}[0m\n"
        ));
    }
    tb.push(format!("\u{1b}[0;31m{ename}\u{1b}[0m: {evalue}"));
    tb
}

struct Cell {
    source: &'static str,
    count: Option<u32>,
    error: Option<(String, String, Vec<String>)>,
}

fn cell(source: &'static str, count: u32) -> Cell {
    Cell {
        source,
        count: Some(count),
        error: None,
    }
}

fn failing(source: &'static str, count: u32, ename: &str, evalue: &str, tb: Vec<String>) -> Cell {
    Cell {
        source,
        count: Some(count),
        error: Some((ename.into(), evalue.into(), tb)),
    }
}

fn notebook_of(cells: Vec<Cell>) -> Notebook {
    let cells: Vec<Value> = cells
        .into_iter()
        .map(|c| {
            let outputs: Vec<Value> = c
                .error
                .into_iter()
                .map(|(ename, evalue, tb)| {
                    json!({"output_type": "error", "ename": ename, "evalue": evalue, "traceback": tb})
                })
                .collect();
            json!({"cell_type": "code", "execution_count": c.count, "metadata": {}, "outputs": outputs, "source": c.source})
        })
        .collect();
    let nb = json!({"nbformat": 4, "nbformat_minor": 2, "metadata": {}, "cells": cells});
    notebook::from_bytes(Path::new("stored.ipynb"), &serde_json::to_vec(&nb).unwrap()).unwrap()
}

/// The classified stored errors of a notebook, in order.
fn stored_failures(cells: Vec<Cell>) -> Vec<Failure> {
    let nb = notebook_of(cells);
    let options = AnalyzeOptions {
        scan_local_modules: false,
        ..AnalyzeOptions::default()
    };
    let usage = notebook::analyze(&nb, &options);
    usage
        .outputs
        .iter()
        .filter_map(|o| match o {
            OutputEvidence::Error { failure, .. } => {
                Some(*failure.clone().expect("every stored error is classified"))
            }
            _ => None,
        })
        .collect()
}

fn one(cells: Vec<Cell>) -> Failure {
    let mut all = stored_failures(cells);
    assert_eq!(all.len(), 1, "{all:#?}");
    all.remove(0)
}

#[test]
fn a_name_imported_in_a_later_cell_is_an_ordering_error() {
    let f = one(vec![
        cell("import pandas as pd\n", 1),
        failing(
            "x = np.arange(10)\n",
            2,
            "NameError",
            "name 'np' is not defined",
            ipython7(
                2,
                1,
                "x = np.arange(10)",
                &[],
                "NameError",
                "name 'np' is not defined",
            ),
        ),
        cell("y = 2\n", 3),
        cell("print(y)\n", 4),
        cell("import numpy as np\n", 5),
    ]);
    assert_eq!(f.class, FailureClass::Code);
    assert_eq!(
        f.cause,
        Cause::Undefined {
            name: "np".into(),
            definition: Definition::Later { cell: 5, line: 1 }
        }
    );
    assert_eq!(f.cell, Some(2));
    let frame = f.frame.unwrap();
    assert_eq!((frame.cell, frame.line), (Some(2), Some(1)));
}

#[test]
fn missing_modules_and_apis() {
    let f = one(vec![failing(
        "import sklearn\n",
        1,
        "ModuleNotFoundError",
        "No module named 'sklearn'",
        vec![],
    )]);
    assert_eq!(f.class, FailureClass::Environment);
    // A submodule the installed release lacks: whether another release has it is the bank's
    // to say, and without a bank it is unknown.
    let f = one(vec![failing(
        "from sklearn.cross_validation import train_test_split\n",
        1,
        "ModuleNotFoundError",
        "No module named 'sklearn.cross_validation'",
        vec![],
    )]);
    assert_eq!(f.class, FailureClass::Unknown);
    assert!(
        matches!(&f.cause, Cause::MissingModule { module, .. } if module.as_str() == "sklearn.cross_validation")
    );

    // Python 2 names only the last part; the import says which module.
    let f = one(vec![failing(
        "import sklearn.cross_validation as cv\n",
        1,
        "ImportError",
        "No module named cross_validation",
        vec![],
    )]);
    assert!(
        matches!(&f.cause, Cause::MissingModule { module, .. } if module.as_str() == "sklearn.cross_validation"),
        "{f:?}"
    );

    let f = one(vec![failing(
        "from sklearn.externals import joblib\n",
        1,
        "ImportError",
        "cannot import name 'joblib' from 'sklearn.externals' (/opt/conda/lib/python3.8/site-packages/sklearn/externals/__init__.py)",
        vec![],
    )]);
    assert!(
        matches!(&f.cause, Cause::MissingApi { api, .. } if api.as_str() == "sklearn.externals.joblib")
    );

    // Python 2: `cannot import name X` without the module.
    let f = one(vec![failing(
        "from sklearn import cross_validation\n",
        1,
        "ImportError",
        "cannot import name cross_validation",
        vec![],
    )]);
    assert!(
        matches!(&f.cause, Cause::MissingApi { api, .. } if api.as_str() == "sklearn.cross_validation"),
        "{f:?}"
    );

    let f = one(vec![failing(
        "import numpy as np\nx = np.float(3)\n",
        1,
        "AttributeError",
        "module 'numpy' has no attribute 'float'.\n`np.float` was a deprecated alias for the builtin `float`.",
        vec![],
    )]);
    assert!(matches!(&f.cause, Cause::MissingApi { api, .. } if api.as_str() == "numpy.float"));

    // Python 2: `'module' object has no attribute`; the cell's API use says which.
    let f = one(vec![
        cell("import pandas as pd\n", 1),
        failing(
            "s = pd.Series([1, 2])\nm = pd.rolling_mean(s, 2)\n",
            2,
            "AttributeError",
            "'module' object has no attribute 'rolling_mean'",
            ipython7(
                2,
                2,
                "m = pd.rolling_mean(s, 2)",
                &[],
                "AttributeError",
                "x",
            ),
        ),
    ]);
    assert!(
        matches!(&f.cause, Cause::MissingApi { api, .. } if api.as_str() == "pandas.rolling_mean"),
        "{f:?}"
    );

    // A private module in the message: the public name the notebook used is the API.
    let f = one(vec![failing(
        "import tensorflow as tf\nopt = tf.train.AdamOptimizer(0.01)\n",
        1,
        "AttributeError",
        "module 'tensorflow._api.v2.train' has no attribute 'AdamOptimizer'",
        vec![],
    )]);
    assert!(
        matches!(&f.cause, Cause::MissingApi { api, .. } if api.as_str() == "tensorflow.train.AdamOptimizer"),
        "{f:?}"
    );

    // Raised inside another library: still the API that library needs.
    let f = one(vec![failing(
        "import pandas as pd\ndf = pd.DataFrame({'a': [1]})\n",
        1,
        "AttributeError",
        "module 'numpy' has no attribute 'bool'",
        ipython7(
            1,
            2,
            "df = pd.DataFrame",
            &["pandas/core/frame.py"],
            "AttributeError",
            "x",
        ),
    )]);
    assert!(matches!(&f.cause, Cause::MissingApi { api, .. } if api.as_str() == "numpy.bool"));
    assert_eq!(
        f.frame.unwrap().library().unwrap().as_str(),
        "pandas.core.frame"
    );
}

#[test]
fn members_and_keywords_of_library_objects() {
    let f = one(vec![
        cell("import pandas as pd\ndf = pd.read_csv('x.csv')\n", 1),
        failing(
            "df.ix[0]\n",
            2,
            "AttributeError",
            "'DataFrame' object has no attribute 'ix'",
            ipython7(
                2,
                1,
                "df.ix[0]",
                &["pandas/core/generic.py"],
                "AttributeError",
                "x",
            ),
        ),
    ]);
    assert_eq!(f.class, FailureClass::Unknown);
    assert!(
        matches!(&f.cause, Cause::MissingMember { type_name, member, receiver: Some(r), .. }
            if type_name == "DataFrame" && member == "ix" && r.as_str() == "pandas.read_csv"),
        "{f:?}"
    );

    let f = one(vec![failing(
        "from sklearn.linear_model import SGDClassifier\nclf = SGDClassifier(n_iter=5)\n",
        1,
        "TypeError",
        "__init__() got an unexpected keyword argument 'n_iter'",
        vec![],
    )]);
    assert!(
        matches!(&f.cause, Cause::BadKeyword { keyword, api: Some(api), .. }
            if keyword == "n_iter" && api.as_str() == "sklearn.linear_model.SGDClassifier"),
        "{f:?}"
    );

    // The notebook's own class and function: code, not environment.
    let f = one(vec![failing(
        "class Model:\n    pass\nModel().fit()\n",
        1,
        "AttributeError",
        "'Model' object has no attribute 'fit'",
        vec![],
    )]);
    assert_eq!(
        f.cause,
        Cause::Raised {
            ename: "AttributeError".into()
        }
    );
    let f = one(vec![failing(
        "def train(x):\n    return x\ntrain(1, epochs=3)\n",
        1,
        "TypeError",
        "train() got an unexpected keyword argument 'epochs'",
        vec![],
    )]);
    assert_eq!(f.class, FailureClass::Code);
    let f = one(vec![failing(
        "x = None\nx.shape\n",
        1,
        "AttributeError",
        "'NoneType' object has no attribute 'shape'",
        vec![],
    )]);
    assert_eq!(f.class, FailureClass::Code);
}

#[test]
fn code_for_another_python() {
    let f = one(vec![failing(
        "print 'hello'\n",
        1,
        "SyntaxError",
        "Missing parentheses in call to 'print'. Did you mean print('hello')?",
        vec![],
    )]);
    assert!(
        matches!(&f.cause, Cause::WrongPython { needs, .. } if !needs.contains(PythonVersion::new(3, 6)))
    );
    let f = one(vec![failing(
        "try:\n    pass\nexcept Exception, e:\n    pass\n",
        1,
        "SyntaxError",
        "invalid syntax",
        vec![],
    )]);
    assert!(matches!(&f.cause, Cause::WrongPython { .. }), "{f:?}");
    let f = one(vec![failing(
        "from itertools import izip\n",
        1,
        "ImportError",
        "cannot import name 'izip'",
        vec![],
    )]);
    assert!(
        matches!(&f.cause, Cause::StdlibApi { api } if api.as_str() == "itertools.izip"),
        "{f:?}"
    );
    let f = one(vec![failing(
        "d = {}\nfor k, v in d.iteritems():\n    pass\n",
        1,
        "AttributeError",
        "'dict' object has no attribute 'iteritems'",
        vec![],
    )]);
    assert!(matches!(&f.cause, Cause::WrongPython { .. }));
    let f = one(vec![failing(
        "import cPickle\n",
        1,
        "ModuleNotFoundError",
        "No module named 'cPickle'",
        vec![],
    )]);
    assert!(
        matches!(&f.cause, Cause::StdlibModule { python, .. } if python == &[PythonVersion::new(2, 7)]),
        "{f:?}"
    );
    // A first line indented alone, under an IPython (9.1+) that no longer dedents it.
    let f = one(vec![failing(
        "    x = 1\ny = 2\n",
        1,
        "IndentationError",
        "unexpected indent",
        vec![],
    )]);
    assert_eq!(f.cause, Cause::KernelIndentation);
}

#[test]
fn data_resource_hardware_and_magics() {
    let class = |ename: &str, evalue: &str| -> Failure {
        one(vec![failing("run()\n", 1, ename, evalue, vec![])])
    };
    let f = class(
        "FileNotFoundError",
        "[Errno 2] File b'train.csv' does not exist: b'train.csv'",
    );
    assert_eq!(
        f.cause,
        Cause::MissingFile {
            path: Some("train.csv".into())
        }
    );
    let f = class(
        "IOError",
        "[Errno 2] No such file or directory: 'data/x.txt'",
    );
    assert_eq!(
        f.cause,
        Cause::MissingFile {
            path: Some("data/x.txt".into())
        }
    );
    let f = class(
        "ConnectionError",
        "HTTPSConnectionPool(host='example.org', port=443): Max retries exceeded with url: /x.csv",
    );
    assert_eq!(f.class, FailureClass::DataInput);
    assert!(matches!(f.cause, Cause::Network { .. }));
    let f = class(
        "StdinNotImplementedError",
        "raw_input was called, but this frontend does not support input requests.",
    );
    assert_eq!(f.cause, Cause::Stdin);
    let f = class(
        "RuntimeError",
        "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU",
    );
    assert_eq!(f.class, FailureClass::Hardware);
    let f = class(
        "RuntimeError",
        "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.93 GiB total capacity)",
    );
    assert_eq!(f.cause, Cause::Memory);
    let f = class("MemoryError", "");
    assert_eq!(f.class, FailureClass::Resource);
    let f = class("UsageError", "Cell magic `%%sql` not found.");
    assert_eq!(
        f.cause,
        Cause::MissingMagic {
            magic: "%%sql".into()
        }
    );
    let f = class("ValueError", "could not convert string to float: 'abc'");
    assert_eq!(
        f.cause,
        Cause::Raised {
            ename: "ValueError".into()
        }
    );
    let f = class("ExecutableNotFound", "failed to execute PosixPath('dot'), make sure the Graphviz executables are on your systems' PATH");
    assert_eq!(
        f.cause,
        Cause::MissingProgram {
            program: "dot".into()
        }
    );
    // matplotlib saving an animation without ffmpeg.
    let f = class(
        "RuntimeError",
        "Requested MovieWriter (ffmpeg) not available",
    );
    assert_eq!(
        f.cause,
        Cause::MissingProgram {
            program: "ffmpeg".into()
        }
    );
    // matplotlib 2.x, where no writer at all is found.
    let f = class(
        "ValueError",
        "Cannot save animation: no writers are available. Please install ffmpeg to save animations.",
    );
    assert_eq!(
        f.cause,
        Cause::MissingProgram {
            program: "ffmpeg".into()
        }
    );
    // A Python package asked for is not a program.
    let f = class(
        "ImportError",
        "Please install pyarrow to read parquet files",
    );
    assert!(!matches!(f.cause, Cause::MissingProgram { .. }), "{f:?}");
    let f = class(
        "ImportError",
        "run pip install git+https://github.com/x/y to get it",
    );
    assert!(!matches!(f.cause, Cause::MissingProgram { .. }), "{f:?}");
}

#[test]
fn processes_and_installs() {
    let nb = notebook_of(vec![cell("x = 1\n", 1)]);
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let cx = FailureContext::new(&nb, &usage).with_python(PythonVersion::new(3, 11));
    let c = |p: Problem| classify(&p, Some(1), &cx);
    assert_eq!(
        c(Problem::Killed { signal: Some(9) }).class,
        FailureClass::Resource
    );
    assert_eq!(
        c(Problem::Killed { signal: Some(4) }).cause,
        Cause::InstructionSet
    );
    assert_eq!(
        c(Problem::Killed { signal: Some(11) }).cause,
        Cause::NativeCrash { signal: 11 }
    );
    assert_eq!(
        c(Problem::TimedOut { whole_run: true }).class,
        FailureClass::Resource
    );
    assert_eq!(
        c(Problem::Exited { code: Some(1) }).class,
        FailureClass::Code
    );
    let install = |detail: &str| match c(Problem::InstallFailed {
        what: "numpy==1.11.0".into(),
        detail: detail.into(),
    })
    .cause
    {
        Cause::Install { reason, .. } => reason,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        install("ERROR: Could not find a version that satisfies the requirement numpy==1.11.0"),
        InstallReason::NoMatchingDistribution
    );
    assert_eq!(
        install("  × Failed to build `numpy==1.11.0`\n  ├─▶ The build backend returned an error"),
        InstallReason::BuildFailed
    );
    // uv building an sdist whose build requirements are not on the index: the build failed,
    // whatever it says of resolving them.
    assert_eq!(
        install("error: Failed to download and build `toolkit==2.0`\n  cause: Failed to resolve requirements from `setup.py` build\n  cause: No solution found when resolving: `setuptools>=40.8.0`\n  cause: Because setuptools was not found in the package registry and you require setuptools>=40.8.0, we can conclude that your requirements are unsatisfiable."),
        InstallReason::BuildFailed
    );
    assert_eq!(
        install("  × No solution found when resolving dependencies:\n  ╰─▶ Because x depends on y<1 and z depends on y>2 ..."),
        InstallReason::Conflict
    );
    // uv's words for metadata it refuses (and pip takes): not a conflict.
    assert_eq!(
        install("error: No solution found when resolving dependencies\n  cause: Because pandas==0.19.2 has invalid metadata and you require pandas==0.19.2, we can conclude that your requirements are unsatisfiable.\n\nhint: Metadata for `pandas` (v0.19.2) could not be parsed:\n  after parsing `2011`, found `k`, which is not part of a valid version"),
        InstallReason::InvalidMetadata
    );
    // On Python 2, `xrange` is no sign of the wrong Python.
    let cx2 = FailureContext::new(&nb, &usage).with_python(PythonVersion::new(2, 7));
    let raised = Raised {
        ename: "NameError".into(),
        evalue: "name 'xrange' is not defined".into(),
        frames: vec![],
    };
    assert!(matches!(
        classify(&Problem::Raised(raised.clone()), Some(1), &cx2).cause,
        Cause::Undefined { .. }
    ));
    assert!(matches!(
        classify(&Problem::Raised(raised), Some(1), &cx).cause,
        Cause::WrongPython { .. }
    ));
    // TensorFlow reading a file that is not there: a missing file, though raised in a library.
    let raised = Raised {
        ename: "NotFoundError".into(),
        evalue:
            "ssd_mobilenet_v1_coco_2017_11_17/frozen_inference_graph.pb; No such file or directory"
                .into(),
        frames: vec![],
    };
    let f = classify(&Problem::Raised(raised), Some(1), &cx);
    assert!(
        matches!(&f.cause, Cause::MissingFile { path: Some(p) } if p == "ssd_mobilenet_v1_coco_2017_11_17/frozen_inference_graph.pb"),
        "{f:?}"
    );
    // A version check asking for an upgrade by name: that release at least.
    let raised = Raised {
        ename: "ImportError".into(),
        evalue: "Please upgrade your tensorflow installation to v1.4.0!".into(),
        frames: vec![],
    };
    let f = classify(&Problem::Raised(raised), Some(1), &cx);
    assert!(
        matches!(&f.cause, Cause::PackageAsked { requirement, .. } if requirement == "tensorflow>=1.4.0"),
        "{f:?}"
    );
    // A spaCy model its author downloaded: data, as NLTK's is.
    let raised = Raised {
        ename: "OSError".into(),
        evalue: "[E050] Can't find model 'en'. It doesn't seem to be a shortcut link, a Python package or a valid path to a data directory.".into(),
        frames: vec![],
    };
    let f = classify(&Problem::Raised(raised), Some(1), &cx);
    assert!(
        matches!(&f.cause, Cause::MissingResource { resource } if resource == "spaCy model en"),
        "{f:?}"
    );
    // sqlite creating a table its database file already has: data saved after a run.
    let raised = Raised {
        ename: "OperationalError".into(),
        evalue: "table ceremonies already exists".into(),
        frames: vec![],
    };
    let f = classify(&Problem::Raised(raised), Some(1), &cx);
    assert_eq!(f.class, FailureClass::DataInput, "{f:?}");
    assert!(
        matches!(&f.cause, Cause::DataAlreadyWritten { .. }),
        "{f:?}"
    );
    // matplotlib without ffmpeg falling back to Pillow, which cannot write a video: ffmpeg.
    let raised = Raised {
        ename: "ValueError".into(),
        evalue: "unknown file extension: .mp4".into(),
        frames: vec![
            frame_in("/env/lib/python3.6/site-packages/matplotlib/animation.py"),
            frame_in("/env/lib/python3.6/site-packages/PIL/Image.py"),
        ],
    };
    let f = classify(&Problem::Raised(raised.clone()), Some(1), &cx);
    assert!(
        matches!(&f.cause, Cause::MissingProgram { program } if program == "ffmpeg"),
        "{f:?}"
    );
    // matplotlib before 3.3 writes TIFF through Pillow and, without it, refuses the format:
    // Pillow is its need, not a change of behaviour.
    let tif = Raised {
        ename: "ValueError".into(),
        evalue: "Format 'tif' is not supported (supported formats: eps, pdf, pgf, png, ps, raw, rgba, svg, svgz)".into(),
        frames: vec![frame_in("/env/lib/python3.6/site-packages/matplotlib/backend_bases.py")],
    };
    let f = classify(&Problem::Raised(tif.clone()), Some(1), &cx);
    assert!(
        matches!(&f.cause, Cause::MissingModule { module, .. } if module.as_str() == "PIL"),
        "{f:?}"
    );
    assert!(f.may_repair(), "{f:?}");
    let png = Raised {
        evalue: "Format 'png' is not supported (supported formats: eps)".into(),
        ..tif
    };
    let f = classify(&Problem::Raised(png), Some(1), &cx);
    assert!(!matches!(&f.cause, Cause::MissingModule { .. }), "{f:?}");
    // Pillow alone refusing an extension is no program's absence.
    let alone = Raised {
        frames: vec![frame_in("/env/lib/python3.6/site-packages/PIL/Image.py")],
        ..raised
    };
    let f = classify(&Problem::Raised(alone), Some(1), &cx);
    assert!(!matches!(&f.cause, Cause::MissingProgram { .. }), "{f:?}");
    // A repository module with relative imports, imported outside its package: its code.
    let raised = Raised {
        ename: "ImportError".into(),
        evalue: "attempted relative import with no known parent package".into(),
        frames: vec![],
    };
    let f = classify(&Problem::Raised(raised), Some(1), &cx);
    assert_eq!(f.class, FailureClass::Code, "{f:?}");
    // Python 2 reading a UTF-8 module of the repository without an encoding line: Python 3
    // reads it as it is.
    let raised = Raised {
        ename: "SyntaxError".into(),
        evalue: "Non-ASCII character '\\xcf' in file nrl/game.py on line 78, but no encoding declared; see http://python.org/dev/peps/pep-0263/ for details (game.py, line 78)".into(),
        frames: vec![],
    };
    let f = classify(&Problem::Raised(raised.clone()), Some(1), &cx2);
    assert!(
        matches!(&f.cause, Cause::WrongPython { needs, detail } if needs.contains(PythonVersion::new(3, 6)) && !needs.contains(PythonVersion::new(2, 7)) && detail.contains("nrl/game.py")),
        "{f:?}"
    );
    assert!(!matches!(
        classify(&Problem::Raised(raised), Some(1), &cx).cause,
        Cause::WrongPython { .. }
    ));
}

#[test]
fn bundled_fixtures_and_the_usage_report() {
    let u = crate::support::usage::usage_of("pandas_old.ipynb");
    let f = u
        .outputs
        .iter()
        .find_map(|o| match o {
            OutputEvidence::Error { failure, .. } => failure.as_deref().cloned(),
            _ => None,
        })
        .unwrap();
    assert!(
        matches!(&f.cause, Cause::MissingMember { member, api: Some(api), .. } if member == "sort" && api.as_str() == "pandas.DataFrame.sort"),
        "{f:?}"
    );
    assert_eq!(
        f.frame.unwrap().library().unwrap().as_str(),
        "pandas.core.generic"
    );

    // No bank: whether another release of pandas has `sort` is unknown.
    let out = bare_command()
        .args(["--bank", "/nonexistent/bank.sqlite3"])
        .args(["usage", "fixtures/notebooks/pandas_old.ipynb"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("→ unknown: `DataFrame` has no member `sort` (pandas.DataFrame.sort): the bank cannot tell whether another release differs"),
        "{text}"
    );
    let out = bare_command()
        .args([
            "usage",
            "--format",
            "json",
            "fixtures/notebooks/nbformat3.ipynb",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = json["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "error")
        .unwrap();
    assert_eq!(error["failure"]["class"], "code");
    assert_eq!(error["failure"]["cause"], "undefined");
    assert_eq!(error["failure"]["name"], "plt");
}

/// The standard tooling old code expects: a module a later Python dropped from its standard
/// library (`distutils` from 3.12, `imp`) points at the Pythons that had it, even where a
/// backport exists; one a later Python added (`enum` on 2.7) stays a missing module, which
/// its backport on PyPI provides.
#[test]
fn a_module_a_later_python_removed_asks_for_an_earlier_one() {
    let nb = notebook_of(vec![cell("import distutils.version\nimport enum\n", 1)]);
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let no_module = |name: &str| Raised {
        ename: "ModuleNotFoundError".into(),
        evalue: format!("No module named '{name}'"),
        frames: vec![],
    };
    let on = |v: PythonVersion, name: &str| {
        let cx = FailureContext::new(&nb, &usage).with_python(v);
        classify(&Problem::Raised(no_module(name)), Some(1), &cx)
    };
    let f = on(PythonVersion::new(3, 13), "distutils");
    assert!(
        matches!(&f.cause, Cause::StdlibModule { module, python }
            if module.as_str() == "distutils" && python.last() == Some(&PythonVersion::new(3, 11))),
        "{f:?}"
    );
    assert_eq!(
        f.cause.to_string(),
        "`distutils` is in the standard library of Python up to 3.11 only"
    );
    assert_eq!(f.class, FailureClass::Environment);
    let f = on(PythonVersion::new(2, 7), "enum");
    assert!(matches!(&f.cause, Cause::MissingModule { .. }), "{f:?}");
}

/// A submodule a later Python added to a package every Python has (`importlib.metadata`,
/// 3.8) points at the Pythons that have it: on 3.6 it is no distribution's, whatever the
/// bank says of `importlib`.
#[test]
fn a_submodule_a_later_python_added_asks_for_that_python() {
    let nb = notebook_of(vec![cell("import importlib.metadata\n", 1)]);
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let raised = Raised {
        ename: "ModuleNotFoundError".into(),
        evalue: "No module named 'importlib.metadata'".into(),
        frames: vec![],
    };
    let cx = FailureContext::new(&nb, &usage).with_python(PythonVersion::new(3, 6));
    let f = classify(&Problem::Raised(raised), Some(1), &cx);
    assert!(
        matches!(&f.cause, Cause::StdlibModule { module, python }
            if module.as_str() == "importlib.metadata"
                && python.first() == Some(&PythonVersion::new(3, 8))),
        "{f:?}"
    );
    assert_eq!(f.class, FailureClass::Environment);
}

/// IPython 3 on Python 3.8 and later fails every cell before its code runs: the standard
/// library's compiler refuses the module IPython builds. No frame is the notebook's, so it
/// is the environment's (it was "TypeError in notebook code"); with a frame of the cell, or
/// one the runner could not place, the other rules decide.
#[test]
fn an_error_before_any_notebook_code_ran_is_the_environments() {
    let nb = notebook_of(vec![cell("import numpy as np\n", 1)]);
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let ipython = "/env/lib/python3.9/site-packages/IPython/core/interactiveshell.py";
    let codeop = "/root/.pyenv/versions/3.9.18/lib/python3.9/codeop.py";
    let raised = |frames: Vec<nbenv::notebook::failure::Frame>| Raised {
        ename: "TypeError".into(),
        evalue: "required field \"type_ignores\" missing from Module".into(),
        frames,
    };
    let cx = FailureContext::new(&nb, &usage).with_python(PythonVersion::new(3, 9));
    let f = classify(
        &Problem::Raised(raised(vec![frame_in(ipython), frame_in(codeop)])),
        Some(1),
        &cx,
    );
    assert!(
        matches!(&f.cause, Cause::LibraryMismatch { library, ename, .. }
            if library.as_str() == "IPython.core.interactiveshell" && ename == "TypeError"),
        "{f:?}"
    );
    assert_eq!(f.class, FailureClass::Environment);
    for first in ["<ipython-input-1-abc>", "<timed exec>"] {
        let f = classify(
            &Problem::Raised(raised(vec![
                frame_in(first),
                frame_in(ipython),
                frame_in(codeop),
            ])),
            Some(1),
            &cx,
        );
        assert!(
            !matches!(f.cause, Cause::LibraryMismatch { .. }),
            "{first}: {f:?}"
        );
    }
}

/// An import of the notebook's own that nothing local has and that no distribution provides
/// (as the run's resolution found) is a module its author never published: data/input, not
/// an environment to search.
#[test]
fn a_module_no_distribution_provides_is_a_missing_local_module() {
    let nb = notebook_of(vec![cell("import mean_tests\n", 1)]);
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let raised = Raised {
        ename: "ModuleNotFoundError".into(),
        evalue: "No module named 'mean_tests'".into(),
        frames: vec![],
    };
    let cx = FailureContext::new(&nb, &usage).with_python(PythonVersion::new(3, 11));
    let f = classify(&Problem::Raised(raised.clone()), Some(1), &cx);
    assert!(matches!(&f.cause, Cause::MissingModule { .. }), "{f:?}");
    let cx = cx.with_unprovided(vec!["mean_tests".into()]);
    let f = classify(&Problem::Raised(raised), Some(1), &cx);
    assert_eq!(
        f.cause,
        Cause::MissingLocalModule {
            module: "mean_tests".parse().unwrap(),
            unprovided: true
        }
    );
    assert_eq!(f.class, FailureClass::DataInput);
    assert!(!f.may_repair());
    assert!(f.cause.to_string().contains("no distribution provides it"));
    // Raised by a library's own import (tflearn's of `core_rnn`), it is the library's need.
    let in_library = Raised {
        frames: vec![nbenv::notebook::failure::Frame {
            file: "/env/lib/python2.7/site-packages/tflearn/layers/recurrent.py".into(),
            line: Some(12),
            function: Some("<module>".into()),
            code: Some("import mean_tests".into()),
            cell: None,
        }],
        ..raised_of("mean_tests")
    };
    let f = classify(&Problem::Raised(in_library), Some(1), &cx);
    assert!(matches!(&f.cause, Cause::MissingModule { .. }), "{f:?}");
    // Python 2 names the last part only; the failing import line names the whole path.
    let py2 = Raised {
        frames: vec![nbenv::notebook::failure::Frame {
            file: "/env/lib/python2.7/site-packages/tflearn/layers/recurrent.py".into(),
            line: Some(14),
            function: Some("<module>".into()),
            code: Some("from tensorflow.contrib.rnn.python.ops.core_rnn import static_rnn".into()),
            cell: None,
        }],
        ..raised_of("core_rnn")
    };
    let f = classify(&Problem::Raised(py2), Some(1), &cx);
    assert!(
        matches!(&f.cause, Cause::MissingModule { module, .. } if module.as_str() == "tensorflow.contrib.rnn.python.ops.core_rnn"),
        "{f:?}"
    );
    // An import only a run taught (a library's, not the notebook's) is no local module.
    let nb = notebook_of(vec![cell("import toolkit\n", 1)]);
    let mut usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    nbenv::verify::teach(
        &mut usage,
        &[nbenv::verify::Lesson::Module {
            module: "mean_tests".parse().unwrap(),
            cell: 1,
        }],
    );
    let cx = FailureContext::new(&nb, &usage).with_unprovided(vec!["mean_tests".into()]);
    let f = classify(&Problem::Raised(raised_of("mean_tests")), Some(1), &cx);
    assert!(matches!(&f.cause, Cause::MissingModule { .. }), "{f:?}");
}

/// A frame at line 1 of `file`, nothing else known of it.
fn frame_in(file: &str) -> nbenv::notebook::failure::Frame {
    nbenv::notebook::failure::Frame {
        file: file.into(),
        line: Some(1),
        function: None,
        code: None,
        cell: None,
    }
}

fn raised_of(module: &str) -> Raised {
    Raised {
        ename: "ModuleNotFoundError".into(),
        evalue: format!("No module named '{module}'"),
        frames: vec![],
    }
}

//! The notebook runner, offline: crafted notebooks run with the `python3` on PATH (and
//! Python 2.7 and IPython when this machine has them, said loudly when it does not), each
//! failure class produced for real, and the runner surviving what notebooks do to a
//! process: time limits (children included), floods of output, `sys.exit`, `fork`, stdin,
//! `chdir`, and bytes written straight to file descriptor 1.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use nbenv::notebook::failure::{Cause, Definition, Failure, FailureClass, FailureContext};
use nbenv::notebook::{self, AnalyzeOptions, Notebook, Output};
use nbenv::verify::{
    run_notebook, CellStatus, KernelMode, NotebookRun, RunEnd, RunOptions, RunnerMode,
};
use serde_json::{json, Value};

/// The interpreter behind `python3` on PATH (pyenv's shim resolved once, so that each run
/// starts one process, not a shell script).
fn python3() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 on PATH");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn python27() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    let p = Path::new(&home).join(".pyenv/versions/2.7.18/bin/python2.7");
    p.exists().then_some(p)
}

fn imports(python: &Path, module: &str) -> bool {
    Command::new(python)
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A cell for [`write_notebook`]: its source, stored outputs and execution count.
struct C {
    source: &'static str,
    outputs: Vec<Value>,
    count: Option<u32>,
}

fn code(source: &'static str) -> C {
    C {
        source,
        outputs: Vec::new(),
        count: None,
    }
}

/// Writes an nbformat 4 notebook with `cells` into `dir` and reads it back.
fn write_notebook(dir: &Path, cells: Vec<C>) -> Notebook {
    let cells: Vec<Value> = cells
        .into_iter()
        .map(|c| {
            json!({
                "cell_type": "code",
                "execution_count": c.count,
                "metadata": {},
                "outputs": c.outputs,
                "source": c.source,
            })
        })
        .collect();
    let nb = json!({
        "nbformat": 4, "nbformat_minor": 2,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "cells": cells,
    });
    let path = dir.join("nb.ipynb");
    std::fs::write(&path, serde_json::to_vec_pretty(&nb).unwrap()).unwrap();
    notebook::read(&path).unwrap()
}

fn opts() -> RunOptions {
    RunOptions {
        cell_timeout: Duration::from_secs(30),
        total_timeout: Duration::from_secs(90),
        kernel: KernelMode::Plain,
        ..RunOptions::default()
    }
}

fn run_with(nb: &Notebook, python: &Path, opts: &RunOptions) -> NotebookRun {
    run_notebook(nb, python, opts).unwrap_or_else(|e| panic!("{e}"))
}

/// The first failure of `run`, classified with the notebook's own evidence.
fn failure_of(nb: &Notebook, run: &NotebookRun) -> Failure {
    let usage = notebook::analyze(nb, &AnalyzeOptions::default());
    let mut cx = FailureContext::new(nb, &usage);
    if let Some(v) = run.python {
        cx = cx.with_python(v);
    }
    run.first_failure(&cx)
        .unwrap_or_else(|| panic!("no failure in {:#?}", run.cells))
}

/// Runs a notebook of `sources` in a fresh directory; `setup` may add files first.
fn failing(sources: &[&'static str], setup: impl FnOnce(&Path, &mut RunOptions)) -> Failure {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts();
    setup(dir.path(), &mut o);
    let nb = write_notebook(dir.path(), sources.iter().map(|s| code(s)).collect());
    let run = run_with(&nb, &python3(), &o);
    failure_of(&nb, &run)
}

fn stdout_of(run: &NotebookRun, cell: usize) -> String {
    run.cells[cell]
        .outputs
        .iter()
        .filter_map(|o| match o {
            Output::Stream { name, text } if *name == notebook::StreamName::Stdout => {
                Some(text.as_str())
            }
            _ => None,
        })
        .collect()
}

fn data_of(run: &NotebookRun, cell: usize) -> Vec<String> {
    run.cells[cell]
        .outputs
        .iter()
        .filter_map(|o| match o {
            Output::Data { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// A fake installed library tree: `…/site-packages/` with the given files, on PYTHONPATH.
fn site_packages(dir: &Path, o: &mut RunOptions, files: &[(&str, &str)]) {
    let site = dir.join("env/lib/python3/site-packages");
    for (name, text) in files {
        let path = site.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    o.env
        .push(("PYTHONPATH".into(), site.to_string_lossy().into_owned()));
    // The library lives outside the notebook's directory, as an installed one does.
    let nbdir = dir.join("nb");
    std::fs::create_dir_all(&nbdir).unwrap();
    o.directory = Some(nbdir);
}

const FAKELIB: &str = "\
def f(new_kw=None):
    return 1

class Frame(object):
    def __init__(self, data=None):
        self.data = data

def check():
    raise RuntimeError('module compiled against API version 0xe but this version of numpy is 0xd')

def summarize(table):
    return table.iteritems()

def legacy():
    from otherlib import gone
";

const OTHERLIB: &str = "class Table(object):\n    pass\n";

#[test]
fn cells_run_in_one_namespace_with_outputs_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![
            code("x = 20\nprint('x is', x)\n"),
            code("def double(v):\n    return 2 * v\ndouble(x) + 2\n"),
            code(""),
            code("import sys\nsys.stderr.write('careful\\n')\nNone\n"),
        ],
    );
    let run = run_with(&nb, &python3(), &opts());
    assert!(
        matches!(run.mode, RunnerMode::Plain { .. }),
        "{:?}",
        run.mode
    );
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(run.cells.len(), 3, "the empty cell is not run");
    assert_eq!(stdout_of(&run, 0), "x is 20\n");
    assert_eq!(data_of(&run, 1), ["42"]);
    assert!(run.cells[2].outputs.contains(&Output::Stream {
        name: notebook::StreamName::Stderr,
        text: "careful\n".into()
    }));
    assert!(data_of(&run, 2).is_empty(), "None is not displayed");
    assert!(run.executability.complete());
    assert_eq!(run.executability.code_cells, 3);
    assert_eq!(run.garbage_lines, 0);
}

#[test]
fn magics_and_shell_commands_run_without_ipython() {
    let dir = tempfile::tempdir().unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![
            code("%load_ext autoreload\n%autoreload 2\n%time y = 6 * 7\nn = 3\n!echo shell says $n\n"),
            code("%%writefile helper.py\ndef answer():\n    return y_default\ny_default = 42\n"),
            code("import helper\nfiles = !ls\nprint(helper.answer(), 'helper.py' in files)\n"),
            code("%%capture out\nprint('hidden')\n"),
            code("print(out.stdout.strip(), y)\n!pip install definitely-not-installed==1.0\n"),
            code("%magic_nobody_has\n"),
        ],
    );
    let run = run_with(&nb, &python3(), &opts());
    assert_eq!(stdout_of(&run, 0), "shell says 3\n");
    assert_eq!(stdout_of(&run, 1), "Writing helper.py\n");
    assert_eq!(stdout_of(&run, 2), "42 True\n");
    assert_eq!(stdout_of(&run, 3), "", "%%capture swallows the output");
    assert_eq!(stdout_of(&run, 4), "hidden 42\n");
    assert_eq!(
        run.cells[4].skipped_installs,
        ["pip install definitely-not-installed==1.0"]
    );
    assert!(
        !dir.path().join("helper.py").exists(),
        "the copy was written, not the notebook's directory"
    );
    let f = failure_of(&nb, &run);
    assert_eq!(
        f.cause,
        Cause::MissingMagic {
            magic: "%magic_nobody_has".into()
        }
    );
    assert_eq!(f.class, FailureClass::Environment);
    assert_eq!(f.cell, Some(6));
}

/// statsmodels' examples open with `%matplotlib inline` and then `from __future__ import
/// print_function`: Jupyter compiles such a cell a statement at a time, so it runs.
#[test]
fn a_future_import_after_a_magic_runs_without_ipython() {
    let dir = tempfile::tempdir().unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![
            code("%load_ext autoreload\n\nfrom __future__ import annotations\nimport os\ndef f(a: Undefined):\n    return 1\nprint(f(0))\n"),
            code("def g(b: AlsoUndefined):\n    return 2\ng(0)\n"),
        ],
    );
    let run = run_with(&nb, &python3(), &opts());
    assert_eq!(stdout_of(&run, 0), "1\n");
    assert_eq!(data_of(&run, 1), ["2"], "the import holds in later cells");
}

#[test]
fn the_ipython_path_runs_magics_when_ipython_is_installed() {
    let python = python3();
    if !imports(&python, "IPython") {
        eprintln!("\n!!! SKIPPED: {} cannot import IPython: the InteractiveShell path is checked by tests/live/verify_ipython.rs only !!!\n", python.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![
            code("%time y = 6 * 7\nn = 3\n!echo shell says $n\n"),
            code("%%writefile helper.py\nanswer = 42\n"),
            code("import helper\nprint(helper.answer)\nhelper.answer + 1\n"),
            code("def f():\n    return undefined_name\n\nf()\n"),
            code("name = input('Your name? ')\n"),
            // What matplotlib's pyplot does on import under IPython 3: a kernel's shell takes
            // it, the base shell raises NotImplementedError.
            code("get_ipython().enable_gui('inline')\nprint('no gui needed')\n"),
        ],
    );
    let o = RunOptions {
        kernel: KernelMode::Ipython,
        keep_going: true,
        ..opts()
    };
    let run = run_with(&nb, &python, &o);
    assert!(
        matches!(run.mode, RunnerMode::Ipython { .. }),
        "{:?}",
        run.mode
    );
    assert!(
        stdout_of(&run, 0).contains("Wall time"),
        "{:?}",
        run.cells[0]
    );
    assert!(stdout_of(&run, 0).contains("shell says 3"));
    assert_eq!(stdout_of(&run, 2), "42\n");
    assert_eq!(data_of(&run, 2), ["43"]);
    assert!(run.cells[5].error.is_none(), "{:?}", run.cells[5]);
    assert_eq!(stdout_of(&run, 5), "no gui needed\n");
    let f = failure_of(&nb, &run);
    assert_eq!(
        f.cause,
        Cause::Undefined {
            name: "undefined_name".into(),
            definition: Definition::Nowhere
        }
    );
    // The frames start in the cell: IPython's own are left out.
    let err = run.cells[3].error.as_ref().unwrap();
    assert_eq!(err.frames[0].cell, Some(4));
    assert_eq!(err.frames.last().unwrap().line, Some(2));
    assert_eq!(
        err.frames.last().unwrap().code.as_deref(),
        Some("return undefined_name")
    );
}

// ---- each class, produced for real -------------------------------------------------

/// Case 11 of the repair issue: what a library raises while it is imported, and a name a
/// library lacks where the notebook's own helper module imports it, are the environment's
/// (Python 2 and 3.6 do not name the module in `cannot import name`: the helper's line does).
#[test]
fn library_failures_under_the_notebooks_own_modules_are_the_environments() {
    let broken = "raise TypeError('__dict__ slot disallowed: we already got one')\n";
    let lib = |d: &Path, o: &mut RunOptions| {
        site_packages(
            d,
            o,
            &[
                ("fakelib/__init__.py", FAKELIB),
                ("brokenlib/__init__.py", broken),
            ],
        );
        std::fs::write(d.join("nb/helper.py"), "from fakelib import gone\n").unwrap();
    };
    let f = failing(&["import brokenlib\n"], lib);
    assert_eq!(f.class, FailureClass::Environment, "{f:?}");
    assert!(
        matches!(&f.cause, Cause::LibraryMismatch { ename, .. } if ename == "TypeError"),
        "{f:?}"
    );
    // A release this Python cannot read (one written for Python 3, imported on 2.7): its own
    // syntax fails as it is imported.
    let other = |d: &Path, o: &mut RunOptions| {
        site_packages(d, o, &[("newlib/__init__.py", "def broken(:\n    pass\n")])
    };
    let f = failing(&["import newlib\n"], other);
    assert!(
        matches!(&f.cause, Cause::LibraryMismatch { library, ename, .. } if ename == "SyntaxError" && library.as_str() == "newlib"),
        "{f:?}"
    );
    let old = [
        "/.pyenv/versions/3.6.15/bin/python3.6",
        "/.pyenv/versions/2.7.18/bin/python2.7",
    ]
    .iter()
    .filter_map(|p| Some(PathBuf::from(std::env::var_os("HOME")?).join(p.trim_start_matches('/'))))
    .find(|p| p.exists());
    let mut pythons = vec![python3()];
    pythons.extend(old.clone());
    if old.is_none() {
        eprintln!("\n!!! no Python 3.6 or 2.7 under ~/.pyenv/versions: the module-less message was not checked !!!\n");
    }
    for python in pythons {
        let dir = tempfile::tempdir().unwrap();
        let mut o = opts();
        lib(dir.path(), &mut o);
        let nb = write_notebook(dir.path(), vec![code("import helper\n")]);
        let run = run_with(&nb, &python, &o);
        let f = failure_of(&nb, &run);
        assert!(
            matches!(&f.cause, Cause::MissingApi { api, .. } if api.as_str() == "fakelib.gone"),
            "{}: {f:?}",
            python.display()
        );
    }
}

/// Case 4 of the repair issue: a program no Python package installs is the environment's
/// (`missing_program`, naming what provides it), whether the subprocess raised it or a
/// library re-raised it under the program's bare name (matplotlib's `text.usetex` without
/// `latex`), and no repair round is spent on it; a missing data file stays data.
#[test]
fn a_missing_program_is_the_environments_and_names_its_packages() {
    let texlib = concat!(
        "import subprocess\n",
        "def render(s):\n",
        "    try:\n",
        "        return subprocess.check_output(['nbenv-latex-missing', s])\n",
        "    except OSError:\n",
        "        raise IOError(2, 'No such file or directory', 'latex')\n",
    );
    let lib = |d: &Path, o: &mut RunOptions| site_packages(d, o, &[("texlib/__init__.py", texlib)]);
    let f = failing(&["import texlib\ntexlib.render('$x$')\n"], lib);
    assert_eq!(f.class, FailureClass::Environment, "{f:?}");
    assert_eq!(
        f.cause,
        Cause::MissingProgram {
            program: "latex".into()
        }
    );
    assert!(!f.may_repair());
    assert!(
        f.to_string().contains(
            "program `latex` is not installed, and no Python package installs it (Debian: apt-get install texlive-latex-base; conda: conda install -c conda-forge texlive-core)"
        ),
        "{f}"
    );
    let f = failing(
        &["import subprocess\nsubprocess.call(['nbenv-no-such-program', '-x'])\n"],
        |_, _| {},
    );
    assert_eq!(
        f.cause,
        Cause::MissingProgram {
            program: "nbenv-no-such-program".into()
        }
    );
    let f = failing(&["open('data.csv')\n"], |_, _| {});
    assert_eq!(f.class, FailureClass::DataInput);
}

#[test]
fn environment_failures() {
    let lib = |d: &Path, o: &mut RunOptions| {
        site_packages(
            d,
            o,
            &[
                ("fakelib/__init__.py", FAKELIB),
                ("otherlib/__init__.py", OTHERLIB),
            ],
        )
    };
    let f = failing(&["import numpy_nbenv_missing.sub\n"], |_, _| {});
    assert_eq!(f.class, FailureClass::Environment);
    assert!(
        matches!(&f.cause, Cause::MissingModule { module, .. } if module.as_str() == "numpy_nbenv_missing"),
        "{f:?}"
    );

    let f = failing(&["import fakelib\n", "from fakelib import gone\n"], lib);
    assert!(
        matches!(&f.cause, Cause::MissingApi { api, .. } if api.as_str() == "fakelib.gone"),
        "{f:?}"
    );
    assert_eq!(f.cell, Some(2));

    let f = failing(&["import fakelib as fl\nfl.removed_function(1)\n"], lib);
    assert!(
        matches!(&f.cause, Cause::MissingApi { api, .. } if api.as_str() == "fakelib.removed_function"),
        "{f:?}"
    );

    let f = failing(
        &["import fakelib\nfr = fakelib.Frame([1])\nfr.ix[0]\n"],
        lib,
    );
    assert!(
        matches!(&f.cause, Cause::MissingMember { type_name, member, api: Some(api), .. }
            if type_name == "Frame" && member == "ix" && api.as_str() == "fakelib.Frame.ix"),
        "{f:?}"
    );

    let f = failing(&["import fakelib\nfakelib.f(old_kw=2)\n"], lib);
    assert!(
        matches!(&f.cause, Cause::BadKeyword { keyword, api: Some(api), .. }
            if keyword == "old_kw" && api.as_str() == "fakelib.f"),
        "{f:?}"
    );

    let f = failing(&["import fakelib\nfakelib.check()\n"], lib);
    assert!(
        matches!(&f.cause, Cause::IncompatibleBuild { library: Some(l), .. } if l.as_str() == "fakelib"),
        "{f:?}"
    );

    // One library using a member another no longer has: raised inside the library.
    let f = failing(
        &["import fakelib, otherlib\nfakelib.summarize(otherlib.Table())\n"],
        lib,
    );
    assert!(
        matches!(&f.cause, Cause::MissingMember { member, .. } if member == "iteritems"),
        "{f:?}"
    );
    assert_eq!(
        f.frame.as_ref().unwrap().library().unwrap().as_str(),
        "fakelib"
    );

    let f = failing(&["import fakelib\nfakelib.legacy()\n"], lib);
    assert!(
        matches!(&f.cause, Cause::MissingApi { api, .. } if api.as_str() == "otherlib.gone"),
        "{f:?}"
    );

    // Python 2 code on Python 3.
    let f = failing(&["print 'hello'\n"], |_, _| {});
    assert!(matches!(&f.cause, Cause::WrongPython { .. }), "{f:?}");
    let f = failing(&["for i in xrange(3):\n    pass\n"], |_, _| {});
    assert!(
        matches!(&f.cause, Cause::WrongPython { detail, .. } if detail.contains("xrange")),
        "{f:?}"
    );
    let f = failing(&["import urllib2\n"], |_, _| {});
    assert!(
        matches!(&f.cause, Cause::StdlibModule { module, .. } if module.as_str() == "urllib2"),
        "{f:?}"
    );
    let f = failing(&["from itertools import izip\n"], |_, _| {});
    assert!(
        matches!(&f.cause, Cause::StdlibApi { api } if api.as_str() == "itertools.izip"),
        "{f:?}"
    );
}

#[test]
fn data_and_input_failures() {
    let f = failing(
        &["import helpers\n", "%%writefile helpers.py\nx = 1\n"],
        |_, _| {},
    );
    assert!(
        matches!(&f.cause, Cause::MissingLocalModule { module, .. } if module.as_str() == "helpers"),
        "{f:?}"
    );
    assert_eq!(f.class, FailureClass::DataInput);

    let f = failing(
        &["with open('data/train.csv') as fh:\n    fh.read()\n"],
        |_, _| {},
    );
    assert_eq!(
        f.cause,
        Cause::MissingFile {
            path: Some("data/train.csv".into())
        }
    );

    let f = failing(
        &["import urllib.request\nurllib.request.urlopen('http://127.0.0.1:9/data.csv', timeout=5)\n"],
        |_, _| {},
    );
    assert!(matches!(&f.cause, Cause::Network { .. }), "{f:?}");
    assert_eq!(f.class, FailureClass::DataInput);

    let f = failing(&["name = input('Your name? ')\n"], |_, _| {});
    assert_eq!(f.cause, Cause::Stdin);
}

/// A glob of the notebook's own (here in its helper module) over a folder its repository
/// never had finds nothing, and what fails after on the nothing it found (an empty sample)
/// is the data's; a library's glob over a folder it merely probes is not the notebook's.
#[test]
fn a_glob_over_a_folder_that_is_not_there_makes_what_fails_after_the_datas() {
    let f = failing(
        &[
            "from helper import reviews\nfiles = reviews('data/train')\n",
            "print(sum(len(f) for f in files) / len(files))\n",
        ],
        |dir, _| {
            std::fs::write(
                dir.join("helper.py"),
                "import os\nfrom glob import glob\n\ndef reviews(path):\n    return glob(os.path.join(path, 'pos', '*.txt'))\n",
            )
            .unwrap();
        },
    );
    assert_eq!(
        f.cause,
        Cause::AbsentFolder {
            folder: "data/train/pos".into(),
            globbed_in: 1
        }
    );
    assert_eq!(f.class, FailureClass::DataInput);
    assert_eq!(f.cell, Some(2));
    assert_eq!(
        f.cause.to_string(),
        "the folder `data/train/pos` is not there: cell 1 globbed it and found nothing"
    );

    let f = failing(&["import probe\nprobe.fonts()\n", "1/0\n"], |dir, o| {
        site_packages(
            dir,
            o,
            &[(
                "probe.py",
                "import glob\n\ndef fonts():\n    return glob.glob('/nonexistent-nbenv-fonts/*.ttf')\n",
            )],
        );
    });
    assert!(matches!(f.cause, Cause::Raised { .. }), "{f:?}");
}

#[test]
fn code_failures_with_the_def_use_diagnosis() {
    // `np` used in cell 1, imported in cell 2: the notebook was written out of order.
    let f = failing(&["x = np.zeros(3)\n", "import numpy as np\n"], |_, _| {});
    assert_eq!(f.class, FailureClass::Code);
    assert_eq!(
        f.cause,
        Cause::Undefined {
            name: "np".into(),
            definition: Definition::Later { cell: 2, line: 1 }
        }
    );
    let f = failing(&["if False:\n    limit = 3\n", "print(limit)\n"], |_, _| {});
    assert_eq!(
        f.cause,
        Cause::Undefined {
            name: "limit".into(),
            definition: Definition::Earlier { cell: 1, line: 2 }
        }
    );
    let f = failing(&["print(never_defined)\n"], |_, _| {});
    assert!(matches!(
        &f.cause,
        Cause::Undefined {
            definition: Definition::Nowhere,
            ..
        }
    ));

    let f = failing(&["def f(:\n    pass\n"], |_, _| {});
    assert!(matches!(&f.cause, Cause::Syntax { .. }), "{f:?}");
    let frame = f.frame.unwrap();
    assert_eq!((frame.cell, frame.line), (Some(1), Some(1)));

    let f = failing(&["x = 1\n", "ratio = x / 0\n"], |_, _| {});
    assert_eq!(
        f.cause,
        Cause::Raised {
            ename: "ZeroDivisionError".into()
        }
    );
    assert_eq!(f.cell, Some(2));
}

#[test]
fn resource_and_hardware_failures() {
    let f = failing(&["buffer = bytearray(1 << 60)\n"], |_, _| {});
    assert_eq!(
        (f.class, &f.cause),
        (FailureClass::Resource, &Cause::Memory)
    );

    let f = failing(
        &["import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"],
        |_, _| {},
    );
    assert_eq!(f.cause, Cause::Killed { signal: Some(9) });

    let f = failing(&["import time\ntime.sleep(30)\n"], |_, o| {
        o.cell_timeout = Duration::from_secs(1);
    });
    assert_eq!(f.cause, Cause::Timeout { whole_run: false });

    // `.cuda()` on a build without CUDA, raised inside `torch.cuda`.
    let torch = "class Tensor(object):\n    def cuda(self):\n        from torch import cuda\n        cuda._lazy_init()\n        return self\n";
    let torch_cuda =
        "def _lazy_init():\n    raise AssertionError('Torch not compiled with CUDA enabled')\n";
    let f = failing(&["import torch\nt = torch.Tensor().cuda()\n"], |d, o| {
        site_packages(
            d,
            o,
            &[
                ("torch/__init__.py", torch),
                ("torch/cuda/__init__.py", torch_cuda),
            ],
        )
    });
    assert_eq!(f.class, FailureClass::Hardware, "{f:?}");
    let f = failing(
        &["raise RuntimeError('No CUDA GPUs are available')\n"],
        |_, _| {},
    );
    assert_eq!(f.class, FailureClass::Hardware);
}

// ---- what notebooks do to a process -------------------------------------------------

fn is_gone(pid: i32) -> bool {
    // A zombie waiting for init counts as gone.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"));
        let gone = match stat {
            Err(_) => true,
            Ok(s) => s
                .rsplit(')')
                .next()
                .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        };
        if gone || Instant::now() > deadline {
            return gone;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_cell_timeout_stops_the_cell_and_its_children_die_with_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![
            code("print('before')\n"),
            code("import os, time\npid = os.fork()\nif pid == 0:\n    time.sleep(120)\n    os._exit(0)\nprint(pid)\ntime.sleep(120)\n"),
            code("print('never')\n"),
        ],
    );
    let o = RunOptions {
        cell_timeout: Duration::from_secs(1),
        ..opts()
    };
    let started = Instant::now();
    let run = run_with(&nb, &python3(), &o);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(run.cells.len(), 2);
    assert_eq!(run.cells[1].status, CellStatus::Timeout);
    assert_eq!(run.end, RunEnd::StoppedAtError);
    assert_eq!(run.executability.cells_before_first_error, 1);
    let child: i32 = stdout_of(&run, 1).trim().parse().unwrap();
    assert!(is_gone(child), "the forked child {child} outlived the run");
}

#[test]
fn a_cell_that_ignores_the_alarm_is_killed_with_its_group() {
    let dir = tempfile::tempdir().unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![code(
            "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nprint('stubborn')\ntime.sleep(120)\n",
        )],
    );
    let o = RunOptions {
        cell_timeout: Duration::from_secs(1),
        ..opts()
    };
    let started = Instant::now();
    let run = run_with(&nb, &python3(), &o);
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(run.cells.len(), 1);
    assert_eq!(run.cells[0].status, CellStatus::Timeout);
    assert_eq!(stdout_of(&run, 0), "stubborn\n");
    assert_eq!(run.end, RunEnd::StoppedAtError);
}

#[test]
fn the_total_limit_kills_the_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("child.pid");
    let nb = write_notebook(
        dir.path(),
        vec![
            code("x = 1\n"),
            code("import os, subprocess, time\np = subprocess.Popen(['sleep', '120'])\nopen(os.environ['PIDFILE'], 'w').write(str(p.pid))\ntime.sleep(120)\n"),
        ],
    );
    let o = RunOptions {
        total_timeout: Duration::from_secs(3),
        env: vec![("PIDFILE".into(), pidfile.to_string_lossy().into_owned())],
        ..opts()
    };
    let run = run_with(&nb, &python3(), &o);
    assert_eq!(run.end, RunEnd::TimedOut);
    assert_eq!(run.cells[1].status, CellStatus::RunTimeout);
    let f = failure_of(&nb, &run);
    assert_eq!(f.cause, Cause::Timeout { whole_run: true });
    assert_eq!(f.class, FailureClass::Resource);
    let child: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(is_gone(child), "the grandchild {child} outlived the run");
}

#[test]
fn output_floods_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![
            code("import sys\nline = 'y' * 99 + '\\n'\nfor i in range(200000):\n    sys.stdout.write(line)\nprint('end')\n"),
            code("print('next')\n"),
        ],
    );
    let o = RunOptions {
        output_cap: 10_000,
        ..opts()
    };
    let run = run_with(&nb, &python3(), &o);
    assert!(run.executability.complete());
    let kept = stdout_of(&run, 0);
    assert_eq!(kept.len(), 10_000);
    assert_eq!(run.cells[0].dropped, 200_000 * 100 + 4 - 10_000);
    assert_eq!(stdout_of(&run, 1), "next\n");
}

#[test]
fn sys_exit_fork_stdin_chdir_and_raw_writes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/data.txt"), "inside sub\n").unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![
            // A forked child that does not exit runs no further cell.
            code("import os\npid = os.fork()\nif pid:\n    os.waitpid(pid, 0)\nprint('forked', pid > 0)\n"),
            code("import sys\nprint(repr(sys.stdin.read()))\nopen(os.environ['LOG'], 'a').write('cell 2 ran\\n')\n"),
            code("os.write(1, b'raw bytes, no newline')\nos.chdir('sub')\n"),
            code("print(open('data.txt').read().strip())\nopen('written.txt', 'w').write('x')\n"),
            code("import sys\nsys.exit(3)\n"),
            code("print('not reached')\n"),
        ],
    );
    let log = dir.path().join("log.txt");
    let o = RunOptions {
        env: vec![("LOG".into(), log.to_string_lossy().into_owned())],
        ..opts()
    };
    let run = run_with(&nb, &python3(), &o);
    let cells: Vec<u32> = run.cells.iter().map(|c| c.cell).collect();
    assert_eq!(cells, [1, 2, 3, 4, 5]);
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "cell 2 ran\n",
        "the forked child ran no further cell"
    );
    assert_eq!(stdout_of(&run, 0), "forked True\n");
    assert_eq!(stdout_of(&run, 1), "''\n", "stdin is empty");
    assert_eq!(stdout_of(&run, 3), "inside sub\n");
    assert_eq!(
        run.garbage_lines, 0,
        "raw writes to fd 1 never reach the protocol"
    );
    assert!(!dir.path().join("sub/written.txt").exists());
    let f = failure_of(&nb, &run);
    assert_eq!(
        f.cause,
        Cause::Exit {
            code: Some("3".into())
        }
    );
    assert_eq!(f.class, FailureClass::Code);
    assert_eq!(run.end, RunEnd::StoppedAtError);

    // `os._exit` in a cell ends the process: that cell is where it stopped.
    let nb = write_notebook(
        dir.path(),
        vec![code("x = 1\n"), code("import os\nos._exit(4)\n")],
    );
    let run = run_with(&nb, &python3(), &opts());
    assert_eq!(run.end, RunEnd::Exited { code: Some(4) });
    assert_eq!(run.cells[1].status, CellStatus::Exited { code: Some(4) });
}

#[test]
fn keep_going_runs_past_errors_but_executability_stops_at_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![code("a = 1\n"), code("1/0\n"), code("print('after')\n")],
    );
    let o = RunOptions {
        keep_going: true,
        ..opts()
    };
    let run = run_with(&nb, &python3(), &o);
    assert_eq!(run.end, RunEnd::Completed);
    assert_eq!(run.cells.len(), 3);
    assert_eq!(stdout_of(&run, 2), "after\n");
    assert_eq!(run.executability.cells_before_first_error, 1);
    assert_eq!(run.executability.first_error_cell, Some(2));
    assert!((run.executability.share() - 1.0 / 3.0).abs() < 1e-9);
}

#[test]
fn reproduction_and_stored_order() {
    let dir = tempfile::tempdir().unwrap();
    let stream = |t: &str| json!({"output_type": "stream", "name": "stdout", "text": t});
    let result = |t: &str| json!({"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": {"text/plain": t}});
    let nb = write_notebook(
        dir.path(),
        vec![
            C {
                source: "class Box(object):\n    pass\nprint(1 / 3.0)\nBox()\n",
                // Another run: another address, the float printed by Python 2.
                outputs: vec![
                    stream("0.333333333333\n"),
                    result("<__main__.Box at 0x7f0a1b2c3d4e>"),
                ],
                count: Some(3),
            },
            C {
                source: "print('total', 41 + 1)\n",
                outputs: vec![stream("total 41\n")],
                count: Some(1),
            },
            C {
                source: "x = 2\n",
                outputs: vec![],
                count: Some(5),
            },
        ],
    );
    let run = run_with(&nb, &python3(), &opts());
    let r = run.reproduction(&nb);
    assert_eq!((r.compared, r.reproduced), (2, 1), "{r:#?}");
    assert!(r.cells[0].reproduced);
    let d = r.cells[1].difference.as_ref().unwrap();
    assert_eq!(
        (d.stored.as_str(), d.produced.as_str()),
        ("total 41", "total 42")
    );
    assert_eq!(r.share(), Some(0.5));

    assert_eq!(run.stored_order.out_of_order, [2]);
    assert_eq!(run.stored_order.skipped_counts, 3);
    assert!(!run.stored_order.in_order());
}

/// Item 9 of the repair issue: the runner says each cell as it starts, so that a person at a
/// terminal sees which one runs (`round 1: running cell 3 (code cell 2 of 3)`) and for how
/// long; the cell that stops the run is the last one said.
#[test]
fn each_cell_is_said_as_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![
            code("x = 1\n"),
            code(""),
            code("y = 2\n"),
            code("1 / 0\n"),
            code("z = 3\n"),
        ],
    );
    let mut started = Vec::new();
    let run = nbenv::verify::run_notebook_watching(&nb, &python3(), &opts(), &mut |cell| {
        started.push(cell)
    })
    .unwrap();
    assert_eq!(
        started,
        [1, 3, 4],
        "the empty cell is not run, and the run stops at 4"
    );
    assert_eq!(run.garbage_lines, 0, "a start is a record, not garbage");
    assert_eq!(nb.cell_label(4), "cell 4 (code cell 3 of 4)");
    assert_eq!(nb.cell_label(2), "cell 2");
}

/// Case 10 of the repair issue: under Jupyter `sys.stdout` is a text stream (ipykernel's
/// OutStream is an `io.TextIOBase`), and code that tests for one (pandas'
/// `to_csv(sys.stdout)` asks for `write` and `__iter__`) takes the runner's too, on
/// Python 3 and 2.
#[test]
fn the_cells_stdout_is_a_text_stream() {
    let cell = "import io, sys\nprint(isinstance(sys.stdout, io.TextIOBase), hasattr(sys.stdout, '__iter__'), sys.stdout.closed)\nsys.stdout.write(u'caf\\xe9\\n')\n";
    let mut pythons = vec![python3()];
    pythons.extend(python27());
    for python in pythons {
        let dir = tempfile::tempdir().unwrap();
        let nb = write_notebook(dir.path(), vec![code(cell)]);
        let run = run_with(&nb, &python, &opts());
        assert!(run.cells[0].status == CellStatus::Ok, "{:?}", run.cells);
        let out = stdout_of(&run, 0);
        assert!(
            out == "True True False\ncafé\n" || out == "(True, True, False)\ncafé\n",
            "{}: {out:?}",
            python.display()
        );
    }
}

#[test]
fn python_2_notebooks_run_on_python_2() {
    let Some(python) = python27() else {
        eprintln!("\n!!! SKIPPED: no Python 2.7 under ~/.pyenv/versions: the runner was not checked on Python 2 !!!\n");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![
            code("from __future__ import division\nprint 'half', 1 / 2\n"),
            code("%time total = sum(xrange(10))\nprint total, 1 / 4\n!echo from the shell\n"),
            code("d = {'a': 1}\nfor k, v in d.iteritems():\n    print k, v\nu'caf\\xe9'\n"),
            code("raw_input('name? ')\n"),
        ],
    );
    let run = run_with(&nb, &python, &opts());
    assert_eq!(run.python.map(|v| v.major), Some(2));
    assert_eq!(stdout_of(&run, 0), "half 0.5\n");
    assert_eq!(
        stdout_of(&run, 1),
        "45 0.25\nfrom the shell\n",
        "a __future__ import holds in later cells"
    );
    assert_eq!(stdout_of(&run, 2), "a 1\n");
    assert_eq!(data_of(&run, 2), ["u'caf\\xe9'"]);
    let f = failure_of(&nb, &run);
    assert_eq!(f.cause, Cause::Stdin);
}

/// A notebook in a repository runs in a copy of the whole repository, from its own folder:
/// what it reaches above that folder (`sys.path.append("../")`, `../data`) is there, and
/// what it writes stays in the copy.
#[test]
fn a_notebook_in_a_repository_reaches_the_folders_above_its_own() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir(repo.path().join(".git")).unwrap();
    std::fs::create_dir_all(repo.path().join("lib")).unwrap();
    std::fs::write(repo.path().join("lib/__init__.py"), "").unwrap();
    std::fs::write(repo.path().join("lib/plotting.py"), "ANSWER = 42\n").unwrap();
    std::fs::write(repo.path().join("data.txt"), "from above\n").unwrap();
    let folder = repo.path().join("DQN");
    std::fs::create_dir(&folder).unwrap();
    let nb = write_notebook(
        &folder,
        vec![
            code("import sys\nif '../' not in sys.path:\n    sys.path.append('../')\nfrom lib import plotting\nprint(plotting.ANSWER)\n"),
            code("print(open('../data.txt').read().strip())\nopen('written.txt', 'w').write('x')\n"),
        ],
    );
    let run = run_with(&nb, &python3(), &opts());
    assert!(
        run.cells.iter().all(|c| c.error.is_none()),
        "{:#?}",
        run.cells
    );
    assert_eq!(stdout_of(&run, 0), "42\n");
    assert_eq!(stdout_of(&run, 1), "from above\n");
    assert!(!folder.join("written.txt").exists());
}

/// Whether this machine lets nbenv mount the run's folder as an overlay: root, and a mount
/// namespace to be had.
fn overlays_here() -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    root && Command::new("unshare")
        .args(["-m", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

/// Whatever the notebook overwrites, appends to, deletes or renames in its folder changes the
/// run's view of it (an overlay where nbenv may mount, else a copy), never the originals.
#[test]
fn a_notebook_writing_its_folders_files_leaves_the_originals() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.txt"), "original\n").unwrap();
    std::fs::write(dir.path().join("keep.txt"), "keep\n").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/inner.txt"), "inner\n").unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![
            code("import os\nopen('data.txt', 'w').write('changed\\n')\nopen('keep.txt', 'a').write('more\\n')\nos.remove('sub/inner.txt')\nos.rename('keep.txt', 'moved.txt')\n"),
            code("print(open('data.txt').read() + open('moved.txt').read() + str(os.path.exists('sub/inner.txt')))\n"),
        ],
    );
    let run = run_with(&nb, &python3(), &opts());
    assert!(
        run.cells.iter().all(|c| c.error.is_none()),
        "{:#?}",
        run.cells
    );
    assert_eq!(stdout_of(&run, 1), "changed\nkeep\nmore\nFalse\n");
    let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
    assert_eq!(read("data.txt"), "original\n");
    assert_eq!(read("keep.txt"), "keep\n");
    assert_eq!(read("sub/inner.txt"), "inner\n");
    assert!(!dir.path().join("moved.txt").exists());
    let expected = if overlays_here() { "overlay" } else { "copy" };
    assert_eq!(
        serde_json::to_value(run.folder).unwrap()["kind"],
        expected,
        "{:?}",
        run.folder
    );
}

/// An overlay copies nothing: a folder over the copy limit runs where nbenv may mount, and is
/// refused only where it must be copied.
#[test]
fn a_folder_over_the_copy_limit_runs_in_an_overlay() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.bin"), vec![7u8; 64 * 1024]).unwrap();
    let nb = write_notebook(
        dir.path(),
        vec![code("print(len(open('big.bin', 'rb').read()))\n")],
    );
    let limited = RunOptions {
        copy_limit: 1024,
        ..opts()
    };
    match run_notebook(&nb, &python3(), &limited) {
        Ok(run) => {
            assert!(overlays_here(), "copied past the limit: {:?}", run.folder);
            assert_eq!(stdout_of(&run, 0), "65536\n");
            assert_eq!(run.folder, nbenv::verify::RunFolder::Overlay);
        }
        Err(e) => {
            assert!(!overlays_here(), "no overlay where one can be had: {e}");
            assert!(
                matches!(e, nbenv::verify::RunError::DirectoryTooLarge { .. }),
                "{e}"
            );
        }
    }
}

/// The repository as its author had it: a notebook in `notebooks/` imports the package at the
/// repository's root (named by its `setup.py`). The analysis finds it above the notebook and
/// the run has the root on `sys.path`; without it the import fails as a missing local module
/// (the notebook's data, not an environment to search).
#[test]
fn a_repository_package_imported_from_a_subfolder_runs() {
    let repo = tempfile::tempdir().unwrap();
    let r = repo.path();
    std::fs::create_dir(r.join(".git")).unwrap();
    std::fs::write(
        r.join("setup.py"),
        "from setuptools import setup, find_packages\nsetup(name='mypkg', packages=find_packages())\n",
    )
    .unwrap();
    std::fs::create_dir(r.join("mypkg")).unwrap();
    std::fs::write(
        r.join("mypkg/__init__.py"),
        "def answer():\n    return 42\n",
    )
    .unwrap();
    let folder = r.join("notebooks");
    std::fs::create_dir(&folder).unwrap();
    let nb = write_notebook(&folder, vec![code("import mypkg\nprint(mypkg.answer())\n")]);
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    assert_eq!(usage.repository_paths(), [PathBuf::from("..")]);
    let local = &usage.local_modules[0];
    assert_eq!(local.source, notebook::LocalSource::Repository);
    assert_eq!(
        local
            .repository
            .as_ref()
            .and_then(|p| p.project.as_ref())
            .map(|p| p.file.clone()),
        Some(PathBuf::from("../setup.py"))
    );

    let o = RunOptions {
        sys_path: usage.repository_paths(),
        ..opts()
    };
    let run = run_with(&nb, &python3(), &o);
    assert_eq!(run.end, RunEnd::Completed, "{:#?}", run.cells);
    assert_eq!(stdout_of(&run, 0), "42\n");

    let run = run_with(&nb, &python3(), &opts());
    let f = failure_of(&nb, &run);
    assert!(
        matches!(&f.cause, Cause::MissingLocalModule { module, .. } if module.as_str() == "mypkg"),
        "{f:?}"
    );
    assert_eq!(f.class, FailureClass::DataInput);
}

/// A data file that is a Git LFS pointer (cloned without `git lfs`) is the data missing,
/// named as such with the command that fetches it, whatever the reader raised on it.
#[test]
fn a_git_lfs_pointer_read_as_data_is_named() {
    let f = failing(
        &["import csv\nrows = list(csv.reader(open('data/train.csv')))\ntotal = float(rows[1][0])\n"],
        |dir, _| {
            std::fs::create_dir(dir.join("data")).unwrap();
            std::fs::write(
                dir.join("data/train.csv"),
                "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n",
            )
            .unwrap();
        },
    );
    assert_eq!(
        f.cause,
        Cause::LfsPointer {
            file: "data/train.csv".into()
        }
    );
    assert_eq!(f.class, FailureClass::DataInput);
    assert!(f
        .cause
        .to_string()
        .contains("git lfs pull --include \"data/train.csv\""));
}

/// A variable the code reads from the environment (`os.environ['client_id']`, an API key its
/// author had in their shell) that is not set here is data/input, named, whether the cell
/// reads it or a helper module does.
#[test]
fn an_unset_environment_variable_is_data_not_code() {
    let f = failing(&["import helper\nhelper.connect()\n"], |dir, _| {
        std::fs::write(
            dir.join("helper.py"),
            "import os\ndef connect():\n    return os.environ['NBENV_TEST_NEVER_SET_CLIENT_ID']\n",
        )
        .unwrap();
    });
    assert_eq!(
        f.cause,
        Cause::MissingEnvVar {
            name: "NBENV_TEST_NEVER_SET_CLIENT_ID".into()
        }
    );
    assert_eq!(f.class, FailureClass::DataInput);
    let f = failing(
        &["import os\nkey = os.environ['NBENV_TEST_NEVER_SET_KEY']\n"],
        |_, _| {},
    );
    assert_eq!(f.class, FailureClass::DataInput, "{f:?}");
    // A KeyError of the notebook's own dict is its code.
    let f = failing(&["d = {}\nd['x']\n"], |_, _| {});
    assert_eq!(f.class, FailureClass::Code, "{f:?}");
}

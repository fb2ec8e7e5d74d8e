//! The runner's IPython path in an environment built the way verification builds them
//! (nbenv's venv builder, uv or pip, from PyPI): magics run as Jupyter runs them, and the
//! kernel's IPython decides what a cell with an indented first line does. Bounded: one install of IPython.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use nbenv::notebook::failure::{Cause, FailureContext};
use nbenv::notebook::{self, AnalyzeOptions, Output, StreamName};
use nbenv::python::{InstallOptions, Interpreter, Tools, Venv};
use nbenv::verify::{run_notebook, KernelMode, RunOptions, RunnerMode};
use serde_json::json;

fn python3() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 on PATH");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// A venv built as verification builds them, with `packages` from PyPI (wheels only).
fn venv_with(dir: &std::path::Path, packages: &[&str]) -> Venv {
    // uv's cache in the test's directory, as nbenv's commands keep it in nbenv's cache: the
    // library builds with whatever the process says, and the machine-wide cache is not the
    // suite's to fill. (Each test runs in a process of its own under nextest.)
    std::env::set_var("UV_CACHE_DIR", dir.join("uv-cache"));
    let interpreter = Interpreter::at(&python3()).unwrap();
    let index = "https://pypi.org/simple/".to_string();
    let tools = Tools::new(
        dir.join("tools"),
        Some(index.clone()),
        std::slice::from_ref(&interpreter),
    );
    let (installer, _) = tools.installer();
    let limit = Duration::from_secs(240);
    let venv = Venv::create(&dir.join("venv"), &interpreter, &installer, &tools, limit)
        .unwrap_or_else(|e| panic!("{e}"));
    let packages: Vec<String> = packages.iter().map(|p| p.to_string()).collect();
    venv.install(
        &packages,
        &InstallOptions {
            only_binary: true,
            index_url: Some(index),
            timeout: limit,
            ..InstallOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    venv
}

/// A notebook of code cells in `dir`, read back.
fn notebook_of(dir: &std::path::Path, cells: &[&str]) -> notebook::Notebook {
    std::fs::create_dir_all(dir).unwrap();
    let nb = json!({
        "nbformat": 4, "nbformat_minor": 2, "metadata": {},
        "cells": cells.iter().map(|s| json!({"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": s})).collect::<Vec<_>>(),
    });
    let path = dir.join("nb.ipynb");
    std::fs::write(&path, serde_json::to_vec(&nb).unwrap()).unwrap();
    notebook::read(&path).unwrap()
}

fn ipython_options() -> RunOptions {
    RunOptions {
        kernel: KernelMode::Ipython,
        cell_timeout: Duration::from_secs(60),
        total_timeout: Duration::from_secs(180),
        ..RunOptions::default()
    }
}

fn stdout_of(run: &nbenv::verify::NotebookRun, i: usize) -> String {
    run.cells[i]
        .outputs
        .iter()
        .filter_map(|o| match o {
            Output::Stream {
                name: StreamName::Stdout,
                text,
            } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn live_ipython_runs_magics_in_a_fresh_environment() {
    let dir = tempfile::tempdir().unwrap();
    let venv = venv_with(dir.path(), &["ipython"]);

    let nb = notebook_of(
        &dir.path().join("nb"),
        &[
            "%time y = 6 * 7\n!echo shell says $y\n",
            "%%writefile helper.py\nanswer = 42\n",
            "import helper\nhelper.answer\n",
            "  z = 1\nprint(z)\n",
        ],
    );
    let run = run_notebook(&nb, &venv.python, &ipython_options()).unwrap_or_else(|e| panic!("{e}"));
    let RunnerMode::Ipython {
        version,
        kernel,
        kernel_reason,
    } = &run.mode
    else {
        panic!("{:?}", run.mode);
    };
    // IPython alone has no kernel: the base shell runs the cells, and says why.
    assert_eq!(kernel, &None);
    assert!(
        kernel_reason
            .as_deref()
            .unwrap_or_default()
            .contains("ipykernel"),
        "{kernel_reason:?}"
    );
    let stdout = |i: usize| stdout_of(&run, i);
    assert!(stdout(0).contains("Wall time"), "{:?}", run.cells[0]);
    assert!(stdout(0).contains("shell says 42"));
    assert_eq!(stdout(1), "Writing helper.py\n");
    assert_eq!(run.cells[2].outputs, [Output::Data { text: "42".into() }]);
    // IPython 9.1 stopped dedenting a cell whose first line alone is indented (8.x and 9.0
    // strip that indentation; checked on this machine).
    let v: Vec<u32> = version
        .split('.')
        .take(2)
        .map(|p| p.parse().unwrap())
        .collect();
    if (v[0], v[1]) >= (9, 1) {
        let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
        let cx = FailureContext::new(&nb, &usage);
        let f = run.first_failure(&cx).expect("the indented cell fails");
        assert_eq!(f.cause, Cause::KernelIndentation);
        assert_eq!(f.cell, Some(4));
    } else {
        assert_eq!(stdout(3), "1\n", "IPython {version} dedents the cell");
    }
}

/// With ipykernel installed the cells run in an in-process kernel's shell, as in Jupyter:
/// widgets open their comms (ipywidgets 7 raise without a kernel; IPython 3's widgets said
/// "Comms cannot be opened without a kernel") and `interact` calls its function once.
#[test]
fn live_widgets_run_in_an_in_process_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let venv = venv_with(dir.path(), &["ipython", "ipykernel", "ipywidgets<8"]);
    let nb = notebook_of(
        &dir.path().join("nb"),
        &[
            "from ipywidgets import interact\ndef f(x):\n    print('x is', x)\n\ninteract(f, x=3);\n",
            "print(type(get_ipython().kernel).__name__)\nprint('to the cell')\n",
            "def g():\n    return undefined_name\n\ng()\n",
        ],
    );
    let opts = RunOptions {
        keep_going: true,
        ..ipython_options()
    };
    let run = run_notebook(&nb, &venv.python, &opts).unwrap_or_else(|e| panic!("{e}"));
    let RunnerMode::Ipython { kernel, .. } = &run.mode else {
        panic!("{:?}", run.mode);
    };
    assert_eq!(kernel.as_deref(), Some("ipykernel"), "{:?}", run.mode);
    assert!(run.cells[0].error.is_none(), "{:?}", run.cells[0]);
    assert!(stdout_of(&run, 0).contains("x is 3"), "{:?}", run.cells[0]);
    assert_eq!(stdout_of(&run, 1), "InProcessKernel\nto the cell\n");
    // Errors are still the cell's, with its frames.
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let cx = FailureContext::new(&nb, &usage);
    let f = run.first_failure(&cx).expect("the third cell fails");
    assert_eq!(f.cell, Some(3));
    assert!(
        matches!(&f.cause, Cause::Undefined { name, .. } if name == "undefined_name"),
        "{:?}",
        f.cause
    );
    // ipykernel 6 names a cell's code after a hash of its source
    // (`/tmp/ipykernel_<pid>/<hash>.py`): its frames are still the cell's. Without them a
    // library's error (matplotlib refusing `hist(normed=True)`) was "code, in notebook code".
    let err = run.cells[2].error.as_ref().unwrap();
    assert_eq!(err.frames.first().and_then(|f| f.cell), Some(3), "{err:?}");
    assert_eq!(
        err.frames.last().and_then(|f| f.code.as_deref()),
        Some("return undefined_name"),
        "{err:?}"
    );
}

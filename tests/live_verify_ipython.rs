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

#[test]
fn live_ipython_runs_magics_in_a_fresh_environment() {
    let dir = tempfile::tempdir().unwrap();
    let interpreter = Interpreter::at(&python3()).unwrap();
    let index = "https://pypi.org/simple/".to_string();
    let tools = Tools::new(
        dir.path().join("tools"),
        Some(index.clone()),
        std::slice::from_ref(&interpreter),
    );
    let (installer, _) = tools.installer();
    let limit = Duration::from_secs(240);
    let venv = Venv::create(
        &dir.path().join("venv"),
        &interpreter,
        &installer,
        &tools,
        limit,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    venv.install(
        &["ipython".to_string()],
        &InstallOptions {
            only_binary: true,
            index_url: Some(index),
            timeout: limit,
            ..InstallOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));

    let nbdir = dir.path().join("nb");
    std::fs::create_dir(&nbdir).unwrap();
    let cells = [
        "%time y = 6 * 7\n!echo shell says $y\n",
        "%%writefile helper.py\nanswer = 42\n",
        "import helper\nhelper.answer\n",
        "  z = 1\nprint(z)\n",
    ];
    let nb = json!({
        "nbformat": 4, "nbformat_minor": 2, "metadata": {},
        "cells": cells.iter().map(|s| json!({"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": s})).collect::<Vec<_>>(),
    });
    let path = nbdir.join("nb.ipynb");
    std::fs::write(&path, serde_json::to_vec(&nb).unwrap()).unwrap();
    let nb = notebook::read(&path).unwrap();
    let opts = RunOptions {
        kernel: KernelMode::Ipython,
        cell_timeout: Duration::from_secs(60),
        total_timeout: Duration::from_secs(180),
        ..RunOptions::default()
    };
    let run = run_notebook(&nb, &venv.python, &opts).unwrap_or_else(|e| panic!("{e}"));
    let RunnerMode::Ipython { version } = &run.mode else {
        panic!("{:?}", run.mode);
    };
    let stdout = |i: usize| -> String {
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
    };
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

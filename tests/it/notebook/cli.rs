//! `nbenv usage` as a user runs it: exit codes, messages and JSON.

use std::process::Output;

use crate::support::context::{bare, bare_command};
use crate::support::snapshot::{printed, STATIC};
use crate::support::usage::fixture;
use serde_json::Value;

fn usage(name: &str, extra: &[&str]) -> Output {
    let path = fixture(name);
    let mut args = vec!["usage", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    bare(&args)
}

fn json(name: &str) -> Value {
    let out = usage(name, &["--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// A Python 3 notebook at `path` of code cells with these sources, each run in order.
fn write_code_cells(path: &std::path::Path, cells: &[impl serde::Serialize]) {
    let notebook = serde_json::json!({
        "cells": cells.iter().enumerate().map(|(i, source)| serde_json::json!({
            "cell_type": "code", "execution_count": i + 1, "metadata": {}, "outputs": [],
            "source": source
        })).collect::<Vec<_>>(),
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4, "nbformat_minor": 2
    });
    std::fs::write(path, notebook.to_string()).unwrap();
}

/// `nbenv usage fixtures/notebooks/NAME ARGS`, run from the repository (as the README runs
/// it), so that the path it prints is the same on every machine.
fn usage_from_the_repository(name: &str, extra: &[&str]) -> Output {
    bare_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("usage")
        .arg(format!("fixtures/notebooks/{name}"))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn bad_notebooks_have_their_own_exit_codes() {
    for (name, code) in [
        ("broken.ipynb", 10),
        ("not_a_notebook.ipynb", 11),
        ("empty.ipynb", 12),
        ("r_kernel.ipynb", 13),
        ("does_not_exist.ipynb", 14),
    ] {
        let out = usage_from_the_repository(name, &[]);
        assert_eq!(out.status.code(), Some(code), "{name}");
        assert!(out.stdout.is_empty());
        // The notebook named, and what is wrong with it.
        crate::assert_printed!(STATIC, format!("usage-{name}"), printed(&out));
    }
}

#[test]
fn json_output_has_apis_with_locations() {
    let v = json("sklearn_old.ipynb");
    let apis = v["apis"].as_array().unwrap();
    let fit = apis
        .iter()
        .find(|a| a["api"] == "sklearn.linear_model.LinearRegression.fit")
        .unwrap();
    assert_eq!(fit["origin"], "third_party");
    assert_eq!(
        fit["locations"],
        serde_json::json!([{"cell": 6, "line": 2}])
    );
    assert_eq!(fit["kinds"], serde_json::json!(["call", "traced"]));
    let ix = v["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["member"] == "ix")
        .unwrap();
    assert_eq!(
        ix["receiver"],
        serde_json::json!({"derived_from": "pandas.read_csv"})
    );
    let third: Vec<&str> = v["third_party"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(third, ["matplotlib", "numpy", "pandas", "sklearn"]);
    // The code needs no particular Python; the notebook last ran on 3.6 (a preference).
    assert_eq!(v["python"]["range"], serde_json::json!({}));
    assert!(v["python"]["hints"]
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h["reason"] == "language_info"
            && h["range"] == serde_json::json!({"min": "3.6", "max": "3.6"})));
    assert_eq!(v["notebook"]["format"]["kind"], "ipynb");
}

#[test]
fn json_requirements_and_warnings() {
    let v = json("tensorflow1.ipynb");
    assert_eq!(v["requirements"][0]["requirement"], "tensorflow==1.15");
    assert_eq!(v["requirements"][0]["name"], "tensorflow");
    assert_eq!(
        v["requirements"][0]["at"],
        serde_json::json!({"cell": 1, "line": 1})
    );
    let v = json("python2.ipynb");
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 3);
    assert_eq!(warnings[0]["at"], serde_json::json!({"cell": 1, "line": 4}));
}

#[test]
fn text_output_is_compact_and_readable() {
    let text = printed(&usage_from_the_repository("sklearn_old.ipynb", &[]));
    assert!(text.lines().count() < 80);
    // The header (path, nbformat, cells), the third-party line, each API with its kinds and
    // locations (`LinearRegression.fit`: a traced call at 6:2), `df.ix` among the members of
    // values of unknown type: the snapshot `cli::human::usage_output` takes.
    crate::assert_printed!(STATIC, "usage-sklearn_old.ipynb", text);
}

#[test]
fn python_versions_narrow_the_standard_library() {
    let v = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["--format", "json"];
        args.extend_from_slice(extra);
        let out = usage("pandas_old.ipynb", &args);
        assert!(out.status.success());
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["third_party"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(v(&[]), ["numpy", "pandas"]);
    assert_eq!(
        v(&["--python", "3.12"]),
        ["distutils", "imp", "numpy", "pandas"]
    );
    let bad = usage("pandas_old.ipynb", &["--python", "three"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// A cell that nests brackets or operators far past what Python accepts (generated, or
/// hostile) is reported
/// as not parsed, by cell, instead of being parsed into gigabytes; the other cells are read.
#[test]
fn a_cell_nested_past_pythons_limit_is_reported_and_the_rest_analysed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.ipynb");
    let cells = [
        "import numpy as np\nnp.zeros(3)".to_string(),
        format!("x = 1\ny = {}", "[".repeat(100_000)),
        format!("z = {}1{}", "f(".repeat(50_000), ")".repeat(50_000)),
        format!("w = {}1", "-".repeat(100_000)),
        format!("v = {}y", "not ".repeat(100_000)),
        // Long, flat: parsed.
        format!("import scipy\ndata = [{}]", "-1.5e-3, ".repeat(100_000)),
        "import pandas as pd\npd.DataFrame()".to_string(),
    ];
    write_code_cells(&path, &cells);
    let out = bare(["usage", path.to_str().unwrap(), "--format", "json"]);
    // A warning at each of cells 2 to 5, saying what is nested too deep (brackets past 200,
    // operators past 6000) and that the cell was not parsed; numpy, scipy and pandas imported
    // from the others; exit 0.
    crate::assert_printed!(STATIC, "usage-nested-past-the-limit-json", printed(&out));
}

/// A cell the Python parser panics on (ruff's `unreachable!`, reached by a `;` quote escape
/// before a `%%` magic) is a warning at that cell, printed once and without a panic's
/// message; the other cells are read.
#[test]
fn a_cell_the_parser_fails_on_is_a_warning_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.ipynb");
    let cells = [
        "import numpy as np",
        "from pylab import[*\n;       %%writefile re",
        "import scipy",
    ];
    write_code_cells(&path, &cells);
    let out = bare(["usage", path.to_str().unwrap(), "--format", "json"]);
    // One warning, at cell 2; numpy and scipy imported from the others; nothing on stderr (no
    // panic's message); exit 0.
    crate::assert_printed!(STATIC, "usage-parser-failure-json", printed(&out));
}

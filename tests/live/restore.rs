//! The README's main job against the real PyPI, on an empty bank: `nbenv restore` on the
//! bundled demo (packaging's `LegacyVersion`, removed in 22.0) infers packaging 21.3, builds
//! it with the kernel runtime, runs the notebook to the end, writes the executed notebook and
//! registers a Jupyter kernel (into a temporary Jupyter data directory) whose interpreter is
//! the kept environment's.

use std::process::Command;

#[test]
fn live_restore_the_demo_on_an_empty_bank_with_a_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let nb = dir.path().join("legacy_version.ipynb");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/notebooks/legacy_version.ipynb"
        ),
        &nb,
    )
    .unwrap();
    let jupyter = dir.path().join("jupyter");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nbenv"))
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .arg("--bank")
        .arg(dir.path().join("bank.sqlite3"))
        .args(["--no-progress", "restore"])
        .arg(&nb)
        .arg("-o")
        .arg(dir.path().join("requirements.txt"))
        .arg("--executed")
        .arg(dir.path().join("executed.ipynb"))
        .arg("--lock")
        .arg(dir.path().join("environment.lock"))
        .args(["--format", "json"])
        .env("JUPYTER_DATA_DIR", &jupyter)
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // ipykernel's `tmp…_kernels` staging folder is not left in the temporary directory.
    let left: Vec<String> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with("_kernels"))
        .collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["stopped"], "ran", "{json}");
    // The kernel runtime is in the environment, beside the requirements and not in them.
    let beyond = json["rounds"][0]["kernel_runtime"].as_array().unwrap();
    assert!(
        beyond
            .iter()
            .any(|p| p.as_str().unwrap().starts_with("ipython==")),
        "{json}"
    );
    // And its kernel, whose inline backend `%matplotlib inline` and `%config InlineBackend`
    // need from the first round.
    assert!(
        beyond
            .iter()
            .any(|p| p.as_str().unwrap().starts_with("ipykernel==")),
        "{json}"
    );
    assert_eq!(json["rounds"][0]["runner"]["kind"], "ipython", "{json}");
    let lock = std::fs::read_to_string(dir.path().join("environment.lock")).unwrap();
    assert!(lock.contains("packaging==21.3  # requirement\n"), "{lock}");
    assert!(
        lock.lines().any(|l| l.starts_with("ipython==")
            && l.ends_with("# kernel runtime (not a requirement of the notebook)")),
        "{lock}"
    );
    let requirements = std::fs::read_to_string(dir.path().join("requirements.txt")).unwrap();
    assert!(requirements.contains("packaging==21.3"), "{requirements}");

    let executed = nbenv::notebook::read(dir.path().join("executed.ipynb")).unwrap();
    assert!(executed
        .cells
        .iter()
        .any(|c| !c.outputs.is_empty() && c.execution_count.is_some()));

    let kernel = json["environment"]["kernel"].as_str().expect("a kernel");
    let spec: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(jupyter.join("kernels").join(kernel).join("kernel.json")).unwrap(),
    )
    .unwrap();
    let root = json["environment"]["root"].as_str().unwrap();
    let argv0 = spec["argv"][0].as_str().unwrap();
    assert!(argv0.starts_with(root), "{argv0} is not in {root}");
    // The kernel's interpreter has ipykernel and the notebook's pin, unmoved.
    let check = Command::new(argv0)
        .args([
            "-c",
            "import ipykernel, packaging; print(packaging.__version__)",
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&check.stdout).trim(), "21.3");
}

/// Python 2 end to end, where this machine has a 2.7 (never required): a notebook in
/// Python 2 syntax is restored on 2.7 (virtualenv and pip, IPython 5 as the kernel runtime,
/// whose sdist-only dependencies may build) and runs to the end.
#[test]
fn live_restore_a_python2_notebook_on_27_when_present() {
    let home = std::env::var_os("HOME").unwrap_or_default();
    let pyenv = std::path::Path::new(&home).join(".pyenv/versions");
    let has_27 = std::fs::read_dir(&pyenv)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("2.7"));
    if !has_27 {
        eprintln!("no Python 2.7 under {}: not tested here", pyenv.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let nb = dir.path().join("py2.ipynb");
    let notebook = serde_json::json!({
        "cells": [
            {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
             "source": "import six\nprint \"python 2:\", six.PY2"},
            {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
             "source": "for i in xrange(2):\n    print i"}
        ],
        "metadata": {"kernelspec": {"name": "python2", "display_name": "Python 2"}},
        "nbformat": 4, "nbformat_minor": 2
    });
    std::fs::write(&nb, notebook.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nbenv"))
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .arg("--bank")
        .arg(dir.path().join("bank.sqlite3"))
        .args(["--no-progress", "restore"])
        .arg(&nb)
        .args(["--no-kernel-spec", "--format", "json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let round = &json["rounds"][0];
    assert_eq!(round["python"], "2.7", "{json}");
    assert_eq!(
        round["executability"]["cells_before_first_error"], 2,
        "{json}"
    );
    assert!(
        round["requirements"].as_str().unwrap().contains("six=="),
        "{json}"
    );
}

/// The kernel runtime of the notebook's era, where a 3.7 is present (never required): the demo
/// committed on 2018-10-01 and run on the 3.7 it was saved with gets the IPython of that day.
#[test]
fn live_restore_runs_a_2018_notebook_under_the_ipython_of_2018() {
    let home = std::env::var_os("HOME").unwrap_or_default();
    let has_37 = std::fs::read_dir(std::path::Path::new(&home).join(".pyenv/versions"))
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("3.7"));
    if !has_37 {
        eprintln!("no Python 3.7 under ~/.pyenv: not tested here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/notebooks/legacy_version.ipynb"
        ),
        repo.join("nb.ipynb"),
    )
    .unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(&repo)
            .env("GIT_AUTHOR_DATE", "2018-10-01T12:00:00Z")
            .env("GIT_COMMITTER_DATE", "2018-10-01T12:00:00Z")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "2018"]);
    let out = Command::new(env!("CARGO_BIN_EXE_nbenv"))
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .arg("--bank")
        .arg(dir.path().join("bank.sqlite3"))
        .args(["--no-progress", "restore"])
        .arg(repo.join("nb.ipynb"))
        .args(["--no-kernel-spec", "--format", "json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("the newest when the notebook was last committed (2018-10-01)"),
        "{err}"
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ran_with = json["rounds"][0]["runner"]["version"].as_str().unwrap();
    assert!(ran_with.starts_with("7.0."), "{json}");
}

//! `nbenv restore` end to end, offline: the bank (static reading) believes `toolkit` 2.0 has
//! `old_api`, which it defines only under Python 2; the run on Python 3 fails there, the
//! failure becomes evidence (2.0 ruled out), and the second round pins 1.0 and runs.
//! Needs `python3` (3.11, as on this image and CI) and uv.

mod support;

use std::process::Command;

use support::archives::WheelBuilder;
use support::cli::nbenv;
use support::server::{FixtureFile, PageMode, TestServer};

fn python3_version() -> String {
    let out = Command::new("python3")
        .args(["-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
        .output()
        .expect("python3 on PATH");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn an_environment_error_becomes_evidence_and_the_next_round_runs() {
    let server = TestServer::start(PageMode::Json);
    let wheels = [
        WheelBuilder::new("toolkit", "1.0")
            .file("toolkit/__init__.py", "def old_api():\n    return 41\n"),
        WheelBuilder::new("toolkit", "2.0").file(
            "toolkit/__init__.py",
            "import sys\nif sys.version_info[0] == 2:\n    def old_api():\n        return 41\n",
        ),
    ];
    let files: Vec<FixtureFile> = wheels
        .iter()
        .map(|w| FixtureFile {
            upload_time: Some("2020-01-01T00:00:00Z".into()),
            ..FixtureFile::new(&w.filename(), w.build())
        })
        .collect();
    server.publish("toolkit", &files);
    let dir = tempfile::tempdir().unwrap();
    let nb = dir.path().join("nb.ipynb");
    let notebook = serde_json::json!({
        "cells": [
            {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
             "source": "import toolkit"},
            {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
             "source": "print(toolkit.old_api() + 1)"}
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4, "nbformat_minor": 2
    });
    std::fs::write(&nb, notebook.to_string()).unwrap();
    let (nb, python, output) = (
        nb.display().to_string(),
        python3_version(),
        dir.path().join("requirements.txt").display().to_string(),
    );
    let args = [
        "restore",
        &nb,
        "--python",
        &python,
        "--no-kernel-runtime",
        "-o",
        &output,
    ];
    let (code, _, err) = nbenv(&server.index_url(), dir.path(), args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("round 1: Python"), "{err}");
    assert!(err.contains("toolkit==2.0"), "{err}");
    assert!(
        err.contains("round 1: stopped at cell 2: environment"),
        "{err}"
    );
    assert!(err.contains("round 2: Python"), "{err}");
    assert!(
        err.contains("restored: the notebook ran to the end"),
        "{err}"
    );
    let written = std::fs::read_to_string(dir.path().join("requirements.txt")).unwrap();
    assert!(written.contains("toolkit==1.0"), "{written}");
}

//! `--sandbox`, offline. Where this system allows a network namespace, a confined run cannot
//! reach a server a plain run reaches, gets a temporary HOME and none of the caller's
//! variables, and stops at its limits. The refusal is tested always: inside a user
//! namespace whose network-namespace limit is set to 0 (where the system allows that), or
//! directly on a system that allows no namespaces at all.

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use nbenv::notebook::failure::{FailureClass, FailureContext};
use nbenv::notebook::{self, AnalyzeOptions, Notebook, Output};
use nbenv::verify::{run_notebook, sandbox, KernelMode, RunOptions};

fn python3() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 on PATH");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn notebook(dir: &Path, cells: &[&str]) -> Notebook {
    let cells: Vec<serde_json::Value> = cells
        .iter()
        .map(|s| {
            serde_json::json!({"cell_type": "code", "execution_count": null, "metadata": {},
                               "outputs": [], "source": s})
        })
        .collect();
    let nb =
        serde_json::json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 2});
    let path = dir.join("nb.ipynb");
    std::fs::write(&path, nb.to_string()).unwrap();
    notebook::read(&path).unwrap()
}

fn printed(run: &nbenv::verify::NotebookRun, cell: u32) -> String {
    run.cells
        .iter()
        .find(|c| c.cell == cell)
        .map(|c| {
            c.outputs
                .iter()
                .filter_map(|o| match o {
                    Output::Stream { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

fn options(sandbox: bool) -> RunOptions {
    RunOptions {
        kernel: KernelMode::Plain,
        cell_timeout: Duration::from_secs(60),
        total_timeout: Duration::from_secs(120),
        env: vec![("NBENV_TEST_SECRET".into(), "hunter2".into())],
        sandbox,
        ..RunOptions::default()
    }
}

#[test]
fn a_sandboxed_run_has_no_network_no_home_and_none_of_the_callers_variables() {
    if let Err(e) = sandbox::check() {
        eprintln!("this system allows no network namespace ({e}): the refusal test covers it");
        return;
    }
    // A server the plain run reaches.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut s = stream;
            let _ = s.write_all(b"hello\n");
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let connect = format!(
        "import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=5)\nprint(s.recv(5).decode())"
    );
    let cells = [
        "import os\nprint(os.environ.get('NBENV_TEST_SECRET'))\nprint(os.path.expanduser('~'))",
        connect.as_str(),
    ];
    let nb = notebook(dir.path(), &cells);
    std::env::set_var("NBENV_TEST_CALLER", "x");

    let plain = run_notebook(&nb, &python3(), &options(false)).unwrap();
    assert!(plain.executability.complete(), "{:?}", plain.cells);
    assert!(printed(&plain, 2).contains("hello"));
    assert!(printed(&plain, 1).contains("hunter2"));

    let confined = run_notebook(&nb, &python3(), &options(true)).unwrap();
    let first = printed(&confined, 1);
    // Variables nbenv sets for the run are there; the caller's HOME is not.
    assert!(first.contains("hunter2"), "{first}");
    let home = first.lines().nth(1).unwrap_or_default().to_string();
    let caller_home = std::env::var("HOME").unwrap_or_default();
    assert_ne!(home, caller_home, "{first}");
    assert!(home.ends_with("/home"), "{first}");
    // The connection fails, and is classified as the network (data/input), not the code.
    assert_eq!(confined.executability.cells_before_first_error, 1);
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let failure = confined
        .first_failure(&FailureContext::new(&nb, &usage))
        .expect("the connection failed");
    assert_eq!(failure.class, FailureClass::DataInput, "{failure:?}");
}

#[test]
fn a_sandboxed_run_has_its_limits_and_stops_at_them() {
    if sandbox::check().is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let nb = notebook(
        dir.path(),
        &[
            "import resource\nfor r in ('AS', 'CPU', 'FSIZE', 'NPROC'):\n    print(r, resource.getrlimit(getattr(resource, 'RLIMIT_' + r))[0])",
            "x = bytearray(20 << 30)",
        ],
    );
    let confined = run_notebook(&nb, &python3(), &options(true)).unwrap();
    let limits = printed(&confined, 1);
    let expected = sandbox::SandboxLimits::for_run(Duration::from_secs(120));
    for (name, value) in [
        ("AS", expected.address_space),
        ("CPU", expected.cpu_seconds),
        ("FSIZE", expected.file_size),
        ("NPROC", expected.processes),
    ] {
        assert!(limits.contains(&format!("{name} {value}\n")), "{limits}");
    }
    // 20 GiB is past the 16 GiB of address space: MemoryError, a resource failure.
    let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
    let failure = confined
        .first_failure(&FailureContext::new(&nb, &usage))
        .expect("the allocation failed");
    assert_eq!(failure.cell, Some(2));
    assert_eq!(failure.class, FailureClass::Resource, "{failure:?}");
}

/// The command `nbenv ARGS` run where no network namespace can be made: inside a user
/// namespace whose limits on new network and user namespaces are 0. `None` when this system
/// cannot set that up (no user namespaces): then it refuses sandboxes by itself.
fn without_namespaces(args: &[&str]) -> Option<std::process::Output> {
    let setup = Command::new("unshare")
        .args([
            "-r",
            "sh",
            "-c",
            "echo 0 > /proc/sys/user/max_net_namespaces",
        ])
        .output()
        .ok()?;
    if !setup.status.success() {
        return None;
    }
    let script = "echo 0 > /proc/sys/user/max_net_namespaces && \
                  echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"";
    Command::new("unshare")
        .args(["-r", "sh", "-c", script, "sh", env!("CARGO_BIN_EXE_nbenv")])
        .args(args)
        .env("NBENV_HTTP_RETRIES", "0")
        .output()
        .ok()
}

#[test]
fn a_sandbox_the_system_does_not_allow_is_refused_before_anything_is_built() {
    let dir = tempfile::tempdir().unwrap();
    notebook(dir.path(), &["print(1)"]);
    std::fs::write(dir.path().join("requirements.txt"), "").unwrap();
    let cache = dir.path().join("cache");
    let (nb, req, cache_arg, bank) = (
        dir.path().join("nb.ipynb").display().to_string(),
        dir.path().join("requirements.txt").display().to_string(),
        cache.display().to_string(),
        dir.path().join("bank.sqlite3").display().to_string(),
    );
    let args = [
        "--cache-dir",
        &cache_arg,
        "--bank",
        &bank,
        "verify",
        &nb,
        "-r",
        &req,
        "--sandbox",
    ];
    let out = match without_namespaces(&args) {
        Some(out) => out,
        None if sandbox::check().is_err() => Command::new(env!("CARGO_BIN_EXE_nbenv"))
            .args(args)
            .output()
            .unwrap(),
        None => panic!("namespaces are allowed here but cannot be restricted to test refusal"),
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(23), "{err}");
    assert!(err.contains("--sandbox needs a network namespace"), "{err}");
    assert!(!cache.join("envs").exists(), "nothing was built");
}

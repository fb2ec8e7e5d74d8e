//! Environments for introspection on what a machine has, against PyPI (bounded: one small
//! release each): uv installed into nbenv's cache when the machine lacks it; Python 2.7
//! through virtualenv<20.22; Python 3.6 with pip upgraded first. Interpreters that this
//! machine lacks are said so loudly, and those checks are skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

fn pyenv(version: &str, exe: &str) -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    let path = Path::new(&home)
        .join(".pyenv/versions")
        .join(version)
        .join("bin")
        .join(exe);
    path.exists().then_some(path)
}

/// `PATH` without any directory that holds a `uv`.
fn path_without_uv() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("uv").exists())
        .collect();
    std::env::join_paths(kept)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn introspect(
    dir: &Path,
    extra_env: &[(&str, &str)],
    args: &[&str],
) -> (bool, serde_json::Value, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nbenv"));
    cmd.arg("--bank")
        .arg(dir.join("bank.sqlite3"))
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .args(["--index-url", "https://pypi.org/simple/"])
        .args(["bank", "introspect", "--format", "json"])
        .args(args)
        .env_remove("NBENV_UV");
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.success(),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn live_uv_is_installed_into_the_cache_when_the_machine_lacks_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = path_without_uv();
    let (ok, report, err) = introspect(dir.path(), &[("PATH", &path)], &["six==1.16.0"]);
    assert!(ok, "{report}{err}");
    assert_eq!(
        report["introspected"][0][2]["outcome"], "recorded",
        "{report}{err}"
    );
    let uv = dir.path().join("cache/tools/bin/uv");
    assert!(uv.exists(), "{err}");
    assert!(
        err.contains("uv was not on PATH: installed it into"),
        "{err}"
    );
    // The next run finds it there and says nothing.
    let (ok, report, err) = introspect(dir.path(), &[("PATH", &path)], &["six==1.15.0"]);
    assert!(ok, "{report}{err}");
    assert!(!err.contains("installed it into"), "{err}");
}

#[test]
fn live_old_interpreters_get_the_tools_they_need() {
    let dir = tempfile::tempdir().unwrap();
    match pyenv("2.7.18", "python2.7") {
        Some(python) => {
            let (ok, report, err) = introspect(
                dir.path(),
                &[],
                &["six==1.16.0", "--python", python.to_str().unwrap()],
            );
            assert!(ok, "{report}{err}");
            let outcome = &report["introspected"][0][2];
            assert_eq!(outcome["outcome"], "recorded", "{report}{err}");
            assert_eq!(outcome["python"], "2.7.18");
            assert!(dir.path().join("cache/tools/virtualenv/bin/python").exists());
        }
        None => eprintln!("\n!!! SKIPPED: no Python 2.7 under ~/.pyenv/versions: the virtualenv<20.22 path was not checked !!!\n"),
    }
    match pyenv("3.6.15", "python3.6") {
        Some(python) => {
            // With pip (uv made unusable): a 3.6 venv's pip 18.1 is upgraded before installing.
            let (ok, report, err) = introspect(
                dir.path(),
                &[("NBENV_UV", "/nonexistent/uv")],
                &["six==1.15.0", "--python", python.to_str().unwrap()],
            );
            assert!(ok, "{report}{err}");
            let outcome = &report["introspected"][0][2];
            assert_eq!(outcome["outcome"], "recorded", "{report}{err}");
            assert_eq!(outcome["python"], "3.6.15");
            assert!(err.contains("installing with pip"), "{err}");
        }
        None => eprintln!("\n!!! SKIPPED: no Python 3.6 under ~/.pyenv/versions: the pip 21.3.1 upgrade was not checked !!!\n"),
    }
}

//! The bank against real releases from PyPI (bounded: a few releases each), checking what the
//! history of these packages is known to hold.

use std::path::Path;
use std::process::Command;

fn nbenv(bank: &Path, cache: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nbenv"))
        .arg("--bank")
        .arg(bank)
        .arg("--cache-dir")
        .arg(cache)
        .args(["--index-url", "https://pypi.org/simple/"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn query(bank: &Path, cache: &Path, api: &str) -> serde_json::Value {
    let (ok, stdout, stderr) = nbenv(bank, cache, &["bank", "query", api, "--format", "json"]);
    assert!(ok, "query {api}: {stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    v["results"][0].clone()
}

fn present_versions(report: &serde_json::Value, key: &str) -> Vec<(String, String)> {
    report[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["first"].as_str().unwrap().to_string(),
                r["last"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn add(bank: &Path, cache: &Path, specs: &[&str]) {
    let mut args = vec!["bank", "add"];
    args.extend_from_slice(specs);
    let (ok, stdout, stderr) = nbenv(bank, cache, &args);
    assert!(ok, "bank add {specs:?}: {stdout}{stderr}");
}

#[test]
fn live_sklearn_cross_validation_moved_to_model_selection() {
    let dir = tempfile::tempdir().unwrap();
    let (bank, cache) = (dir.path().join("bank.sqlite3"), dir.path().join("cache"));
    add(
        &bank,
        &cache,
        &[
            "scikit-learn==0.17.1",
            "scikit-learn==0.18",
            "scikit-learn==0.19.2",
            "scikit-learn==0.20.0",
            "scikit-learn==0.21.3",
        ],
    );
    let old = query(&bank, &cache, "sklearn.cross_validation.train_test_split");
    assert_eq!(
        present_versions(&old, "present"),
        [("0.17.1".into(), "0.19.2".into())]
    );
    let new = query(&bank, &cache, "sklearn.model_selection.train_test_split");
    assert_eq!(
        present_versions(&new, "present"),
        [("0.18".into(), "0.21.3".into())]
    );
    assert_eq!(
        new["canonical"][0]["path"],
        "sklearn.model_selection._split.train_test_split"
    );

    let (ok, stdout, _) = nbenv(
        &bank,
        &cache,
        &[
            "bank",
            "diff",
            "scikit-learn",
            "0.19.2",
            "0.20.0",
            "--format",
            "json",
        ],
    );
    assert!(ok);
    let diff: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(diff["removed"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["path"] == "sklearn.cross_validation.train_test_split"));
}

#[test]
fn live_pandas_read_excel_alias_and_ix() {
    let dir = tempfile::tempdir().unwrap();
    let (bank, cache) = (dir.path().join("bank.sqlite3"), dir.path().join("cache"));
    add(&bank, &cache, &["pandas==0.25.3", "pandas==1.0.0"]);
    let read_excel = query(&bank, &cache, "pandas.read_excel");
    assert_eq!(read_excel["kind"], "function");
    assert_eq!(
        read_excel["canonical"][0]["path"],
        "pandas.io.excel._base.read_excel"
    );

    // `DataFrame.ix` is made with setattr at import time: only introspection sees it.
    let (ok, stdout, stderr) = nbenv(
        &bank,
        &cache,
        &[
            "bank",
            "introspect",
            "pandas==0.25.3",
            "pandas==1.0.0",
            "--format",
            "json",
        ],
    );
    assert!(ok, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let outcome = &report["introspected"][0][2];
    if outcome["outcome"] == "recorded" {
        let ix = query(&bank, &cache, "pandas.DataFrame.ix");
        assert_eq!(
            present_versions(&ix, "present"),
            [("0.25.3".into(), "0.25.3".into())]
        );
        assert!(
            ix["static_present"].as_array().unwrap().is_empty(),
            "static reading cannot see ix"
        );
    } else {
        // No Python 3.5–3.8 here: the gap is recorded with its reason.
        let reason = outcome["reason"].as_str().unwrap();
        assert!(reason.contains("no wheel fits"), "{reason}");
    }
}

#[test]
fn live_scipy_misc_imread_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (bank, cache) = (dir.path().join("bank.sqlite3"), dir.path().join("cache"));
    add(
        &bank,
        &cache,
        &["scipy==1.1.0", "scipy==1.2.3", "scipy==1.3.0"],
    );
    let imread = query(&bank, &cache, "scipy.misc.imread");
    // scipy 1.2 still ships pilutil (imported when Pillow is there); 1.3.0 removed it.
    assert_eq!(
        present_versions(&imread, "present"),
        [("1.1.0".into(), "1.2.3".into())]
    );
    assert_eq!(imread["latest_indexed"], "1.3.0");
}

#[test]
fn live_numpy_float_removed_in_1_24() {
    let dir = tempfile::tempdir().unwrap();
    let (bank, cache) = (dir.path().join("bank.sqlite3"), dir.path().join("cache"));
    add(
        &bank,
        &cache,
        &["numpy==1.19.5", "numpy==1.23.5", "numpy==1.24.0"],
    );
    let float = query(&bank, &cache, "numpy.float");
    // Up to 1.19, `from builtins import float` in numpy/__init__.py.
    assert_eq!(
        present_versions(&float, "static_present"),
        [("1.19.5".into(), "1.19.5".into())]
    );
    assert_eq!(float["latest_indexed"], "1.24.0");

    // 1.20–1.23 serve it from module __getattr__ (deprecated): introspection finds it there.
    let (ok, stdout, stderr) = nbenv(
        &bank,
        &cache,
        &[
            "bank",
            "introspect",
            "numpy==1.23.5",
            "numpy==1.24.0",
            "--format",
            "json",
        ],
    );
    assert!(ok, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        report["introspected"][0][2]["outcome"], "recorded",
        "{report}"
    );
    assert_eq!(
        report["introspected"][1][2]["outcome"], "recorded",
        "{report}"
    );
    let float = query(&bank, &cache, "numpy.float");
    assert_eq!(
        present_versions(&float, "present"),
        [("1.19.5".into(), "1.23.5".into())]
    );
}

//! `nbenv infer` against the real PyPI on an empty bank, bounded: packaging is small and pure
//! Python, and lazy indexing reads a handful of its releases. `LegacyVersion` left packaging
//! in 22.0, so the pin is the last release that has it, with the turn read on both sides.

use std::process::Command;

#[test]
fn live_infer_pins_the_last_release_with_a_removed_api_reading_few_releases() {
    let dir = tempfile::tempdir().unwrap();
    let nb = dir.path().join("nb.py");
    std::fs::write(
        &nb,
        "from packaging.version import LegacyVersion\nLegacyVersion('1.0-x')\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nbenv"))
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .arg("--bank")
        .arg(dir.path().join("bank.sqlite3"))
        .args(["--no-progress", "infer"])
        .arg(&nb)
        .args(["--python", "3.11", "--format", "json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pins = json["solution"]["pins"].as_array().unwrap();
    let packaging = pins
        .iter()
        .find(|p| p["dist"] == "packaging")
        .unwrap_or_else(|| panic!("no packaging pin: {pins:?}"));
    assert_eq!(packaging["version"], "21.3", "{err}");

    let out = Command::new(env!("CARGO_BIN_EXE_nbenv"))
        .arg("--bank")
        .arg(dir.path().join("bank.sqlite3"))
        .args(["bank", "stats", "--format", "json"])
        .output()
        .unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let indexed = stats["stats"]["indexed_releases"].as_u64().unwrap();
    let registered = stats["stats"]["releases"].as_u64().unwrap();
    assert!(
        registered >= 40,
        "packaging has 40-odd releases: {registered}"
    );
    assert!(
        indexed <= 14,
        "lazy indexing read {indexed} of {registered} releases\n{err}"
    );
}

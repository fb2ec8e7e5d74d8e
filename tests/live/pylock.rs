//! The PEP 751 lock that `infer --format pylock` writes, read by uv against PyPI (bounded: one
//! small distribution and its four dependencies, resolved without indexing, and a dry run that
//! installs nothing).

use std::process::Command;

#[test]
fn live_uv_accepts_the_pylock_infer_writes() {
    let dir = tempfile::tempdir().unwrap();
    let python = Command::new("python3")
        .args(["-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
        .output()
        .expect("python3 on PATH");
    let version = String::from_utf8_lossy(&python.stdout).trim().to_string();
    let nb = dir.path().join("nb.py");
    std::fs::write(
        &nb,
        "import requests\nrequests.get('https://example.org')\n",
    )
    .unwrap();
    let lock = dir.path().join("pylock.toml");
    let out = Command::new(env!("CARGO_BIN_EXE_nbenv"))
        .args(["--index-url", "https://pypi.org/simple/"])
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .arg("--bank")
        .arg(dir.path().join("bank.sqlite3"))
        .arg("infer")
        .arg(&nb)
        .args([
            "--no-index",
            "--python",
            &version,
            "--format",
            "pylock",
            "-o",
        ])
        .arg(&lock)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let text = std::fs::read_to_string(&lock).unwrap();
    for dist in [
        "requests",
        "urllib3",
        "idna",
        "certifi",
        "charset-normalizer",
    ] {
        assert!(
            text.contains(&format!("name = \"{dist}\"")),
            "{dist}: {text}"
        );
    }

    let venv = dir.path().join("venv");
    // uv's cache in the test's directory: the machine-wide one is never touched.
    let status = Command::new("uv")
        .args(["venv", "--quiet", "--python", "python3"])
        .arg(&venv)
        .env("UV_CACHE_DIR", dir.path().join("uv-cache"))
        .status()
        .expect("uv on PATH (.ci/run installs it)");
    assert!(status.success());
    let out = Command::new("uv")
        .args(["pip", "install", "--dry-run", "-r"])
        .arg(&lock)
        .arg("--python")
        .arg(venv.join("bin/python"))
        .env("UV_CACHE_DIR", dir.path().join("uv-cache"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "uv refused the lock:\n{err}\n{text}");
    assert!(err.contains("Would install 5 packages"), "{err}");
    assert!(err.contains(" + requests=="), "{err}");
}

//! Running the nbenv binary against a loopback index, with its cache and bank in a test's
//! own directory, and reading back what it said.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// Exit code, stdout and stderr of `nbenv --index-url INDEX --cache-dir DIR/cache --bank
/// DIR/bank.sqlite3 ARGS...`; retries are off, so a failing request fails at once.
pub fn nbenv<I, S>(index_url: &str, dir: &Path, args: I) -> (i32, String, String)
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = Command::new(env!("CARGO_BIN_EXE_nbenv"))
        .args(["--index-url", index_url])
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .arg("--bank")
        .arg(dir.join("bank.sqlite3"))
        .args(args)
        .env("NBENV_HTTP_RETRIES", "0")
        .output()
        .expect("the nbenv binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The pinned lines of a requirements file, without their comments.
pub fn pins(requirements: &str) -> Vec<&str> {
    requirements
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split("  #").next().unwrap_or(l))
        .collect()
}

/// `X.Y` of the `python3` on PATH.
pub fn python3_version() -> String {
    let out = Command::new("python3")
        .args(["-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
        .output()
        .expect("python3 on PATH");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

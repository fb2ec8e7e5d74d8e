//! Reading back what nbenv wrote, and the machine's Python it ran with.

use std::process::Command;

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

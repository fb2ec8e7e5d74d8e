use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

use super::version::PythonVersion;

/// A Python interpreter found on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Interpreter {
    pub path: PathBuf,
    pub version: PythonVersion,
}

impl Interpreter {
    /// The interpreter at `path`, asked for its version.
    pub fn at(path: &Path) -> Result<Self, String> {
        let version = probe(path)
            .ok_or_else(|| format!("{} is not a working Python interpreter", path.display()))?;
        Ok(Self {
            path: path.to_path_buf(),
            version,
        })
    }
}

/// Interpreters from `NBENV_PYTHON` (a `:`-separated list), `PATH` (`python3`, `python3.X`,
/// `python2.7`) and pyenv's versions directory, newest first, one per version; each is run
/// once to ask its version (what environments are built with needs that certainty).
pub fn discover() -> Vec<Interpreter> {
    discover_with(|candidate, _real| probe(candidate))
}

/// As [`discover`], but an interpreter whose real file name says its version
/// (`/usr/bin/python3` links to `python3.11`) is not run: choosing which Python to resolve for
/// needs only the version, and running ten interpreters costs a resolution's whole budget.
/// Only the names that say nothing (`python3` itself) are run.
pub fn discover_by_name() -> Vec<Interpreter> {
    discover_with(|candidate, real| version_in_name(real).or_else(|| probe(candidate)))
}

/// `python3.11` → 3.11, `python2.7` → 2.7; anything else says nothing.
fn version_in_name(path: &Path) -> Option<PythonVersion> {
    let name = path.file_name()?.to_str()?;
    let v = name.strip_prefix("python")?;
    let (major, minor) = v.split_once('.')?;
    if !matches!(major, "2" | "3") || minor.is_empty() || !minor.chars().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    PythonVersion::parse(v)
}

fn discover_with(version_of: impl Fn(&Path, &Path) -> Option<PythonVersion>) -> Vec<Interpreter> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(list) = std::env::var("NBENV_PYTHON") {
        candidates.extend(std::env::split_paths(&list));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            // pyenv's shims dispatch to whatever version is selected: not a fixed interpreter.
            if dir.ends_with("shims") {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let versioned = name.strip_prefix("python").is_some_and(|v| {
                    v == "3"
                        || (v.starts_with(['2', '3'])
                            && v[1..].starts_with('.')
                            && v[2..].chars().all(|c| c.is_ascii_digit()))
                });
                if versioned {
                    candidates.push(entry.path());
                }
            }
        }
    }
    let pyenv_root = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|h| h.join(".pyenv")));
    if let Some(root) = pyenv_root {
        if let Ok(entries) = std::fs::read_dir(root.join("versions")) {
            for entry in entries.flatten() {
                for exe in ["bin/python3", "bin/python"] {
                    let p = entry.path().join(exe);
                    if p.exists() {
                        candidates.push(p);
                        break;
                    }
                }
            }
        }
    }

    let mut seen_paths = HashSet::new();
    let mut by_version: Vec<Interpreter> = Vec::new();
    for candidate in candidates {
        let real = std::fs::canonicalize(&candidate).unwrap_or(candidate.clone());
        if !seen_paths.insert(real.clone()) {
            continue;
        }
        if let Some(version) = version_of(&candidate, &real) {
            if !by_version
                .iter()
                .any(|i| i.version.major == version.major && i.version.minor == version.minor)
            {
                by_version.push(Interpreter {
                    path: candidate,
                    version,
                });
            }
        }
    }
    by_version.sort_by_key(|i| std::cmp::Reverse(i.version));
    by_version
}

fn probe(path: &Path) -> Option<PythonVersion> {
    let out = Command::new(path)
        .args(["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    PythonVersion::parse(&String::from_utf8_lossy(&out.stdout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_from_file_names() {
        let v = |p: &str| version_in_name(Path::new(p)).map(|v| v.to_string());
        assert_eq!(v("/usr/bin/python3.11").as_deref(), Some("3.11"));
        assert_eq!(
            v("/root/.pyenv/versions/2.7.18/bin/python2.7").as_deref(),
            Some("2.7")
        );
        assert_eq!(v("/usr/bin/python3"), None);
        assert_eq!(v("/usr/bin/python3.11-config"), None);
        assert_eq!(v("/usr/bin/python4.0"), None);
    }
}

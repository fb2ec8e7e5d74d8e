use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

use super::child::DieWithNbenv;
use super::version::PythonVersion;

/// A Python interpreter found on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Interpreter {
    pub path: PathBuf,
    pub version: PythonVersion,
}

/// A path that does not run as a Python interpreter (missing, not executable, or not
/// answering its version).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} is not a working Python interpreter", path.display())]
pub struct NotAnInterpreter {
    pub path: PathBuf,
}

impl Interpreter {
    /// The interpreter at `path`, asked for its version.
    pub fn at(path: &Path) -> Result<Self, NotAnInterpreter> {
        let version = probe(path).ok_or_else(|| NotAnInterpreter {
            path: path.to_path_buf(),
        })?;
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

/// [`discover`]'s interpreters, found once per process: every command, every round of a
/// restore and every notebook of a batch reads the same list.
pub fn found() -> &'static [Interpreter] {
    static FOUND: std::sync::OnceLock<Vec<Interpreter>> = std::sync::OnceLock::new();
    FOUND.get_or_init(discover)
}

/// [`discover_by_name`]'s interpreters (as choosing a Python needs them), found once per
/// process.
pub fn found_by_name() -> &'static [Interpreter] {
    static FOUND: std::sync::OnceLock<Vec<Interpreter>> = std::sync::OnceLock::new();
    FOUND.get_or_init(discover_by_name)
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
    let places = Places {
        listed: std::env::var_os("NBENV_PYTHON"),
        path: std::env::var_os("PATH"),
        pyenv_root: std::env::var_os("PYENV_ROOT")
            .map(PathBuf::from)
            .or_else(|| dirs::home_dir().map(|h| h.join(".pyenv"))),
    };
    discover_in(&places, version_of)
}

/// Where interpreters are looked for: what the environment says.
struct Places {
    /// `NBENV_PYTHON`.
    listed: Option<std::ffi::OsString>,
    path: Option<std::ffi::OsString>,
    pyenv_root: Option<PathBuf>,
}

fn discover_in(
    places: &Places,
    version_of: impl Fn(&Path, &Path) -> Option<PythonVersion>,
) -> Vec<Interpreter> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(list) = &places.listed {
        candidates.extend(std::env::split_paths(list));
    }
    if let Some(path) = &places.path {
        for dir in std::env::split_paths(path) {
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
    if let Some(root) = &places.pyenv_root {
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
        .die_with_nbenv()
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

    /// A `python3.5` on PATH and a 3.4 and a 3.3 under pyenv are found like any other (the
    /// pyenv ones by running them: their file name says only `python3`).
    #[cfg(unix)]
    #[test]
    fn old_pythons_on_path_and_under_pyenv_are_found() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let script = |path: &Path, version: &str| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, format!("#!/bin/sh\necho {version}\n")).unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        let bin = dir.path().join("bin");
        script(&bin.join("python3.5"), "3.5.10");
        let pyenv = dir.path().join("pyenv");
        script(&pyenv.join("versions/3.4.10/bin/python3"), "3.4.10");
        script(&pyenv.join("versions/3.3.7/bin/python3"), "3.3.7");
        let places = Places {
            listed: None,
            path: Some(bin.clone().into_os_string()),
            pyenv_root: Some(pyenv),
        };
        let found: Vec<String> = discover_in(&places, |candidate, real| {
            version_in_name(real).or_else(|| probe(candidate))
        })
        .iter()
        .map(|i| i.version.to_string())
        .collect();
        assert_eq!(found, ["3.5", "3.4.10", "3.3.7"]);
    }
}

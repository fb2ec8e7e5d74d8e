//! Modules that belong to the notebook itself: files and packages beside it, modules it writes
//! with `%%writefile`, and directories it puts on `sys.path`. Imports of these are never
//! third-party, whatever PyPI has under the same name.

use std::path::Path;

use crate::names::is_identifier;

use super::location::Location;
use super::repository::{self, Wanted};
use super::usage::{LocalModule, LocalSource};

/// The local modules of `notebook` in `dir` (its directory; `None` skips the file system):
/// beside it, written by it, on the `sys.path` it extends, then above it in its repository
/// ([`repository::modules`], deeper for the `wanted` imports found nowhere else). A name found
/// twice keeps the first.
pub(crate) fn find(
    notebook: &Path,
    dir: Option<&Path>,
    written: &[(String, Location)],
    sys_path: &[(String, Location)],
    wanted: &[Wanted],
) -> Vec<LocalModule> {
    let mut out: Vec<LocalModule> = Vec::new();
    let mut add = |name: String, source, file, at| {
        if !out.iter().any(|m| m.name == name) {
            out.push(LocalModule {
                name,
                source,
                file,
                at,
                repository: None,
            });
        }
    };
    if let Some(dir) = dir {
        for (name, file) in modules_in(dir) {
            add(name, LocalSource::BesideNotebook, Some(file.into()), None);
        }
        for (extra, at) in sys_path {
            let extra_dir = Path::new(extra);
            let extra_dir = if extra_dir.is_absolute() {
                extra_dir.to_path_buf()
            } else {
                dir.join(extra_dir)
            };
            for (name, file) in modules_in(&extra_dir) {
                let file = Path::new(extra).join(file);
                add(name, LocalSource::SysPath, Some(file), Some(*at));
            }
        }
    }
    for (name, at) in written {
        add(name.clone(), LocalSource::WriteFile, None, Some(*at));
    }
    if dir.is_some() {
        let wanted: Vec<Wanted> = wanted
            .iter()
            .filter(|w| !out.iter().any(|m| m.name == w.name))
            .cloned()
            .collect();
        for m in repository::modules(notebook, &wanted) {
            if !out.iter().any(|o| o.name == m.name) {
                out.push(LocalModule {
                    name: m.name,
                    source: LocalSource::Repository,
                    file: Some(m.file),
                    at: None,
                    repository: Some(m.place),
                });
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Importable names in a directory, with the file each comes from: `x.py`, extension modules
/// `x.cpython-36m-….so`, and directories with Python files in them (packages and namespace
/// packages).
fn modules_in(dir: &Path) -> Vec<(String, String)> {
    importable_in(dir, true)
}

/// [`modules_in`], with namespace packages or without (`namespace`): only regular packages
/// (with `__init__.py`) count where a folder of scripts is not something one imports.
pub(super) fn importable_in(dir: &Path, namespace: bool) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(name) = file_name.to_str() else {
            continue;
        };
        if name.starts_with('.') || name == "__pycache__" {
            continue;
        }
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let module = if is_dir {
            let path = entry.path();
            let package = if namespace {
                has_python_files(&path)
            } else {
                path.join("__init__.py").is_file()
            };
            package.then_some(name)
        } else if let Some(stem) = name
            .strip_suffix(".py")
            .or_else(|| name.strip_suffix(".pyw"))
        {
            Some(stem)
        } else if name.ends_with(".so") || name.ends_with(".pyd") {
            name.split('.').next()
        } else {
            None
        };
        if let Some(m) = module.filter(|m| is_identifier(m)) {
            let file = if is_dir {
                format!("{name}/")
            } else {
                name.to_string()
            };
            names.push((m.to_string(), file));
        }
    }
    names
}

/// A package (`__init__.py`) or a namespace package with Python files among its first
/// entries; big data directories are not listed in full.
fn has_python_files(dir: &Path) -> bool {
    if dir.join("__init__.py").is_file() {
        return true;
    }
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().take(256).any(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.ends_with(".py") || n.ends_with(".so"))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_packages_and_written() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("helpers.py"), "def f(): pass\n").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "").unwrap();
        std::fs::write(dir.path().join("my-script.py"), "").unwrap();
        std::fs::create_dir(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("pkg/__init__.py"), "").unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        std::fs::write(dir.path().join("data/x.csv"), "").unwrap();
        std::fs::create_dir(dir.path().join("lib")).unwrap();
        std::fs::write(dir.path().join("lib/tools.py"), "").unwrap();
        let at = Location::new(3, 1);
        let found = find(
            &dir.path().join("nb.ipynb"),
            Some(dir.path()),
            &[("model".into(), at)],
            &[("lib".into(), at)],
            &[],
        );
        let names: Vec<&str> = found.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["helpers", "lib", "model", "pkg", "tools"]);
        assert_eq!(found[4].source, LocalSource::SysPath);
        assert_eq!(found[4].file.as_deref(), Some(Path::new("lib/tools.py")));
        assert_eq!(found[3].file.as_deref(), Some(Path::new("pkg/")));
    }
}

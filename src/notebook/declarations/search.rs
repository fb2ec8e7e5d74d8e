//! Which declaration files belong to a notebook: those in its directory and in each parent up
//! to the repository's root, with Binder's `binder/` and `.binder/` folders at each level.

use std::path::{Path, PathBuf};

/// How many directories above the notebook's own are read when no `.git` marks the root
/// sooner: a notebook sits a few folders deep in a repository, rarely more.
pub const MAX_LEVELS_UP: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FileKind {
    Requirements,
    CondaEnvironment,
    SetupPy,
    Pyproject,
    Runtime,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Found {
    pub path: PathBuf,
    pub kind: FileKind,
}

/// The declaration files for `notebook`, nearest directory first; within a directory,
/// Binder's folder first (Binder reads only it when present), then `requirements.txt`, other
/// `requirements*.txt` by name, `environment.yml`, `setup.py`, `pyproject.toml`,
/// `runtime.txt`.
pub(super) fn declaration_files(notebook: &Path) -> Vec<Found> {
    let mut out = Vec::new();
    for d in folders_up(notebook) {
        for binder in [".binder", "binder"] {
            out.extend(in_directory(&d.join(binder)));
        }
        out.extend(in_directory(&d));
    }
    out
}

/// The folders a repository's files may lie in for `notebook`: its own, then each one up to
/// the nearest with a `.git` (included), at most [`MAX_LEVELS_UP`] levels up; never the home
/// directory or `/`, which hold files of their own, not of a repository.
fn folders_up(notebook: &Path) -> Vec<PathBuf> {
    let start = match notebook.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(start) = start.canonicalize() else {
        return Vec::new();
    };
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .and_then(|h| h.canonicalize().ok());
    let mut out = Vec::new();
    let mut dir = Some(start.as_path());
    for _ in 0..=MAX_LEVELS_UP {
        let Some(d) = dir else { break };
        if d.parent().is_none() || home.as_deref() == Some(d) {
            break;
        }
        out.push(d.to_path_buf());
        if d.join(".git").exists() {
            break;
        }
        dir = d.parent();
    }
    out
}

/// The repository `notebook` sits in: the nearest folder with a `.git`, from the notebook's
/// own up at most [`MAX_LEVELS_UP`] levels, never the home directory or `/`.
pub fn repository_root(notebook: &Path) -> Option<PathBuf> {
    folders_up(notebook)
        .pop()
        .filter(|d| d.join(".git").exists())
}

/// The declaration files directly in `dir`, in reading order.
fn in_directory(dir: &Path) -> Vec<Found> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut requirements: Vec<String> = Vec::new();
    let mut others: Vec<(u8, Found)> = Vec::new();
    for entry in entries.flatten() {
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let lower = name.to_ascii_lowercase();
        let kind = match lower.as_str() {
            "environment.yml" | "environment.yaml" => (1, FileKind::CondaEnvironment),
            "setup.py" => (2, FileKind::SetupPy),
            "pyproject.toml" => (3, FileKind::Pyproject),
            "runtime.txt" => (4, FileKind::Runtime),
            l if l.starts_with("requirements") && l.ends_with(".txt") => {
                requirements.push(name);
                continue;
            }
            _ => continue,
        };
        others.push((
            kind.0,
            Found {
                path: dir.join(&name),
                kind: kind.1,
            },
        ));
    }
    // `requirements.txt` itself first, then the variants by name.
    requirements.sort_by_key(|n| (!n.eq_ignore_ascii_case("requirements.txt"), n.clone()));
    others.sort_by_key(|(rank, _)| *rank);
    requirements
        .into_iter()
        .map(|n| Found {
            path: dir.join(n),
            kind: FileKind::Requirements,
        })
        .chain(others.into_iter().map(|(_, f)| f))
        .collect()
}

/// `path` as the user should see it: relative to the current directory when under it.
pub(super) fn shown(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| cwd.canonicalize().ok())
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(found: &[Found], root: &Path) -> Vec<String> {
        found
            .iter()
            .map(|f| f.path.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn from_the_notebook_up_to_the_repository_root() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let repo = root.join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("notebooks/deep")).unwrap();
        std::fs::create_dir_all(repo.join("binder")).unwrap();
        for f in [
            "requirements.txt",
            "requirements-dev.txt",
            "environment.yml",
            "setup.py",
            "README.md",
            "binder/runtime.txt",
            "notebooks/requirements.txt",
            "notebooks/pyproject.toml",
        ] {
            std::fs::write(repo.join(f), "").unwrap();
        }
        // Above the repository's root: never read.
        std::fs::write(root.join("requirements.txt"), "").unwrap();
        let nb = repo.join("notebooks/deep/nb.ipynb");
        let found = declaration_files(&nb);
        assert_eq!(
            names(&found, &repo),
            [
                "notebooks/requirements.txt",
                "notebooks/pyproject.toml",
                "binder/runtime.txt",
                "requirements.txt",
                "requirements-dev.txt",
                "environment.yml",
                "setup.py",
            ]
        );
        assert_eq!(found[2].kind, FileKind::Runtime);
    }

    #[test]
    fn without_a_repository_a_few_levels_only() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let deep = root.join("a/b/c/d/e");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(root.join("a/b/requirements.txt"), "").unwrap();
        std::fs::write(root.join("a/b/c/requirements.txt"), "").unwrap();
        let found = declaration_files(&deep.join("nb.ipynb"));
        // e, d, c, b are read; a and above are not.
        assert_eq!(
            names(&found, &root),
            ["a/b/c/requirements.txt", "a/b/requirements.txt"]
        );
    }
}

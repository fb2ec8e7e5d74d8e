//! The repository around a notebook, as its author had it. A notebook in `notebooks/` that
//! imports `mypkg` from the repository's root ran because its author had installed the
//! repository (`pip install -e .`), started Jupyter at the root, or put the folder on
//! `PYTHONPATH`. The folders above the notebook, up to the repository's root, and their
//! `src/` folders are where such modules are looked for; a project file there (`setup.py`,
//! `setup.cfg`, `pyproject.toml`) that names the module makes it the repository's own
//! package, installable as a path requirement.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::declarations::{repository_root, MAX_LEVELS_UP};
use super::local_modules::importable_in;

/// The files that make a folder an installable project.
const PROJECT_FILES: [&str; 3] = ["setup.py", "pyproject.toml", "setup.cfg"];

/// Where in the repository a module the notebook imports lies. Paths are relative to the
/// notebook's folder (`..`, `../src`), as a run starting there reaches them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RepositoryPlace {
    /// The folder that must be on `sys.path` for the import to work.
    pub import_root: PathBuf,
    /// The project (its folder and the file naming the module) that installs it, when the
    /// repository is a package its author could install.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<Project>,
    /// A folder without `__init__.py` (a namespace package), which imports only on Python
    /// 3.3 and later.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub namespace: bool,
}

/// An installable project of the repository that names a module the notebook imports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Project {
    /// Its folder, relative to the notebook's.
    pub dir: PathBuf,
    /// The project file that names the module (`../setup.py`).
    pub file: PathBuf,
}

/// A top-level name the notebook imports, with the names it imports from it (`dedist` for
/// `from DeDist import dedist`, `io` for `import mylib.io`), which a folder without
/// `__init__.py` must have to be taken for it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Wanted {
    pub name: String,
    pub parts: Vec<String>,
}

/// One importable name found above the notebook.
#[derive(Debug, Clone)]
pub(crate) struct RepositoryModule {
    pub name: String,
    /// The module's file or package folder, relative to the notebook's folder.
    pub file: PathBuf,
    pub place: RepositoryPlace,
}

/// The modules the repository around `notebook` offers above the notebook's own folder,
/// nearest folder first; a name found twice keeps the nearest. Only regular packages (with
/// `__init__.py`), `.py` files and extension modules count: a folder of scripts or data
/// is not something an author imports from above. Without a `.git` (a copied repository),
/// the nearest folder above with a project file is taken as the root. A name in `wanted`
/// (the notebook's imports) found nowhere there is then looked for deeper in the
/// repository ([`deeper`]).
pub(crate) fn modules(notebook: &Path, wanted: &[Wanted]) -> Vec<RepositoryModule> {
    let Some(own) = own_folder(notebook) else {
        return Vec::new();
    };
    let Some(root) = root_of(notebook, &own) else {
        return Vec::new();
    };
    // The notebook's own `src/` (a notebook at the root of a `src/` layout), then each folder
    // above it up to the root, and its `src/`.
    let mut roots: Vec<(PathBuf, PathBuf, PathBuf)> =
        vec![(own.join("src"), "src".into(), own.clone())];
    let mut up = PathBuf::new();
    let mut dir = own.as_path();
    while dir != root {
        let Some(parent) = dir.parent() else { break };
        dir = parent;
        up.push("..");
        roots.push((dir.to_path_buf(), up.clone(), dir.to_path_buf()));
        roots.push((dir.join("src"), up.join("src"), dir.to_path_buf()));
    }
    let mut out: Vec<RepositoryModule> = Vec::new();
    for (import_root, rel, folder) in roots {
        // The project file is read once for the folder, not once per module in it.
        let project = ProjectFile::read(&import_root, &folder);
        for (name, file) in importable(&import_root) {
            if out.iter().any(|m| m.name == name) {
                continue;
            }
            let project = project
                .as_ref()
                .and_then(|p| p.naming(&own, &name, import_root.join(&file).is_dir()));
            out.push(RepositoryModule {
                file: rel.join(&file),
                name,
                place: RepositoryPlace {
                    import_root: rel.clone(),
                    project,
                    namespace: false,
                },
            });
        }
    }
    let missing: Vec<&Wanted> = wanted
        .iter()
        .filter(|w| !out.iter().any(|m| m.name == w.name))
        .collect();
    out.extend(deeper(&root, &own, &missing));
    out
}

/// How many folder levels below the root [`deeper`] looks into, and how many entries it reads
/// at most: a repository of data is not read in full.
const DEEP_LEVELS: usize = 3;
const DEEP_ENTRIES: usize = 20_000;

/// Folders no author imports from: environments, installed copies, build output.
const NOT_SOURCES: [&str; 7] = [
    "node_modules",
    "site-packages",
    "venv",
    "env",
    "build",
    "dist",
    "__pycache__",
];

/// The `wanted` names as folders or modules anywhere in the repository down to [`DEEP_LEVELS`],
/// nearest level first: a sub-project (`packages/DeDist/`, a copied library) its author had on
/// `PYTHONPATH`. The name must match exactly and be code: a regular package, a `.py` file, or
/// a folder without `__init__.py` holding a name the notebook imports from it (a namespace
/// package, see [`RepositoryPlace::namespace`]; a folder of scripts named like a library is
/// not taken for it).
fn deeper(root: &Path, own: &Path, wanted: &[&Wanted]) -> Vec<RepositoryModule> {
    let mut out: Vec<RepositoryModule> = Vec::new();
    let mut level = vec![root.to_path_buf()];
    let mut read = 0usize;
    for _ in 0..=DEEP_LEVELS {
        if out.len() == wanted.len() || level.is_empty() {
            break;
        }
        let mut next = Vec::new();
        for dir in level {
            for Wanted { name, parts } in wanted.iter().copied() {
                if out.iter().any(|m| m.name == *name) {
                    continue;
                }
                let package = dir.join(name);
                let holds = |part: &String| {
                    package.join(format!("{part}.py")).is_file()
                        || package.join(part).join("__init__.py").is_file()
                };
                let hit = if package.join("__init__.py").is_file() {
                    Some((package, false))
                } else if parts.iter().any(holds) {
                    Some((package, true))
                } else {
                    let file = dir.join(format!("{name}.py"));
                    file.is_file().then_some((file, false))
                };
                if let Some((file, namespace)) = hit {
                    let project = ProjectFile::read(&dir, &dir)
                        .and_then(|p| p.naming(own, name, file.is_dir()));
                    out.push(RepositoryModule {
                        name: name.to_string(),
                        file: relative(own, &file),
                        place: RepositoryPlace {
                            import_root: relative(own, &dir),
                            project,
                            namespace,
                        },
                    });
                }
            }
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                read += 1;
                if read > DEEP_ENTRIES {
                    return out;
                }
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                let path = entry.path();
                if name.starts_with('.')
                    || NOT_SOURCES.contains(&name)
                    || !entry.file_type().is_ok_and(|t| t.is_dir())
                    || path.join("pyvenv.cfg").is_file()
                {
                    continue;
                }
                next.push(path);
            }
        }
        next.sort();
        level = next;
    }
    out
}

fn own_folder(notebook: &Path) -> Option<PathBuf> {
    let dir = match notebook.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    dir.canonicalize().ok()
}

/// The repository's root: its `.git` folder's, else the nearest folder above the notebook's
/// with a project file, at most [`MAX_LEVELS_UP`] levels up.
fn root_of(notebook: &Path, own: &Path) -> Option<PathBuf> {
    if let Some(root) = repository_root(notebook) {
        return Some(root);
    }
    own.ancestors()
        .skip(1)
        .take(MAX_LEVELS_UP)
        .find(|d| d.parent().is_some() && PROJECT_FILES.iter().any(|f| d.join(f).is_file()))
        .map(Path::to_path_buf)
}

/// The project file whose modules lie in an import root, read.
struct ProjectFile {
    dir: PathBuf,
    file: PathBuf,
    text: String,
}

impl ProjectFile {
    /// The project file in `import_root`, or, for a `src/` layout, in `folder` above it.
    fn read(import_root: &Path, folder: &Path) -> Option<Self> {
        PROJECT_FILES.iter().find_map(|f| {
            let file = folder.join(f);
            (file.is_file() && (import_root == folder || import_root.parent() == Some(folder)))
                .then(|| Self {
                    dir: folder.to_path_buf(),
                    text: std::fs::read_to_string(&file).unwrap_or_default(),
                    file,
                })
        })
    }

    /// The project, as seen from the notebook's folder `own`, when it names `module`.
    fn naming(&self, own: &Path, module: &str, package: bool) -> Option<Project> {
        names_module(&self.text, module, package).then(|| Project {
            dir: relative(own, &self.dir),
            file: relative(own, &self.file),
        })
    }
}

/// Whether a project file's `text` names `module`: quoted (`packages=['pkg']`, `name =
/// "pkg"`, `py_modules=["pkg"]`), or, for a package, discovered (`find_packages()`,
/// `packages = find:`, setuptools' `packages.find`).
fn names_module(text: &str, module: &str, package: bool) -> bool {
    let quoted = ['\'', '"']
        .iter()
        .any(|q| text.contains(&format!("{q}{module}{q}")));
    let discovered = package
        && [
            "find_packages",
            "find_namespace_packages",
            "find:",
            "packages.find",
        ]
        .iter()
        .any(|d| text.contains(d));
    quoted || discovered
}

/// `target`, a folder or file at or above the notebook's folder `own` (or below one of those),
/// as a path from `own`: `..`, `../setup.py`, `.`.
fn relative(own: &Path, target: &Path) -> PathBuf {
    let mut up = PathBuf::new();
    for base in own.ancestors() {
        if let Ok(rest) = target.strip_prefix(base) {
            let path = up.join(rest);
            return if path.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                path
            };
        }
        up.push("..");
    }
    target.to_path_buf()
}

/// Importable names directly in `dir` (regular packages only), with the file each comes
/// from; a project's `setup.py` is no module of it.
fn importable(dir: &Path) -> Vec<(String, PathBuf)> {
    importable_in(dir, false)
        .into_iter()
        .filter(|(name, _)| name != "setup")
        .map(|(name, file)| (name, PathBuf::from(file.trim_end_matches('/'))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, file: &str, text: &str) {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_package_at_the_root_named_by_setup_py_is_the_repositorys_own() {
        let repo = tempfile::tempdir().unwrap();
        let r = repo.path();
        std::fs::create_dir(r.join(".git")).unwrap();
        write(r, "setup.py", "from setuptools import setup, find_packages\nsetup(name='x', packages=find_packages())\n");
        write(r, "mypkg/__init__.py", "");
        write(r, "helpers.py", "");
        write(r, "data/readme.py", "");
        write(r, "notebooks/nb.ipynb", "{}");
        let found = modules(&r.join("notebooks/nb.ipynb"), &[]);
        let names: Vec<&str> = found.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["helpers", "mypkg"]);
        let pkg = &found[1];
        assert_eq!(pkg.file, Path::new("../mypkg"));
        assert_eq!(pkg.place.import_root, Path::new(".."));
        let project = pkg.place.project.as_ref().unwrap();
        assert_eq!(project.dir, Path::new(".."));
        assert_eq!(project.file, Path::new("../setup.py"));
        // A module the project file does not name is on the path, not installed.
        assert_eq!(found[0].place.project, None);
    }

    #[test]
    fn a_src_layout_and_a_copied_repository_without_git() {
        let repo = tempfile::tempdir().unwrap();
        let r = repo.path().join("copy");
        write(
            &r,
            "setup.cfg",
            "[options]\npackages = find:\npackage_dir =\n    =src\n",
        );
        write(&r, "src/tool/__init__.py", "");
        write(&r, "src/loose.py", "");
        write(&r, "a/b/nb.ipynb", "{}");
        let found = modules(&r.join("a/b/nb.ipynb"), &[]);
        let tool = found.iter().find(|m| m.name == "tool").unwrap();
        assert_eq!(tool.place.import_root, Path::new("../../src"));
        assert_eq!(
            tool.place.project.as_ref().map(|p| p.dir.clone()),
            Some(PathBuf::from("../.."))
        );
        let loose = found.iter().find(|m| m.name == "loose").unwrap();
        assert_eq!(loose.place.project, None, "a module no project file names");
    }

    #[test]
    fn a_notebook_at_the_root_of_a_src_layout() {
        let repo = tempfile::tempdir().unwrap();
        let r = repo.path();
        std::fs::create_dir(r.join(".git")).unwrap();
        write(r, "pyproject.toml", "[project]\nname = \"tool\"\n");
        write(r, "src/tool/__init__.py", "");
        write(r, "nb.ipynb", "{}");
        let found = modules(&r.join("nb.ipynb"), &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].file, Path::new("src/tool"));
        assert_eq!(found[0].place.import_root, Path::new("src"));
        let project = found[0].place.project.as_ref().unwrap();
        assert_eq!(project.dir, Path::new("."));
        assert_eq!(project.file, Path::new("pyproject.toml"));
    }

    #[test]
    fn a_sub_project_deeper_in_the_repository_when_nothing_nearer_has_the_import() {
        let repo = tempfile::tempdir().unwrap();
        let r = repo.path();
        std::fs::create_dir(r.join(".git")).unwrap();
        // A sub-project's folder without `__init__.py`: a namespace package holding `dedist`.
        write(r, "packages/DeDist/dedist/__init__.py", "");
        write(r, "packages/DeDist/README.md", "");
        // A folder of scripts named like a library the notebook imports.
        write(r, "tutorials/keras/train.py", "");
        // A regular package two levels down, and one inside an environment.
        write(r, "lib/vendor/helper/__init__.py", "");
        write(r, "venv/lib/site-packages/hidden/__init__.py", "");
        write(r, "nb.ipynb", "{}");
        let wanted = |name: &str, parts: &[&str]| Wanted {
            name: name.into(),
            parts: parts.iter().map(|p| p.to_string()).collect(),
        };
        let found = modules(
            &r.join("nb.ipynb"),
            &[
                wanted("DeDist", &["dedist"]),
                wanted("keras", &["layers"]),
                wanted("helper", &[]),
                wanted("hidden", &[]),
            ],
        );
        let names: Vec<&str> = found.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["DeDist", "helper"]);
        assert_eq!(found[0].file, Path::new("packages/DeDist"));
        assert_eq!(found[0].place.import_root, Path::new("packages"));
        assert!(found[0].place.namespace);
        assert_eq!(found[1].place.import_root, Path::new("lib/vendor"));
        assert!(!found[1].place.namespace);
    }

    #[test]
    fn no_repository_no_modules() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "x/nb.ipynb", "{}");
        write(dir.path(), "helpers.py", "");
        assert!(modules(&dir.path().join("x/nb.ipynb"), &[]).is_empty());
    }
}

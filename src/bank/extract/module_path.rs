//! From archive paths to module paths.
//!
//! A wheel holds the installed tree: `pkg/sub.py` is `pkg.sub`, `*.data/purelib/` and
//! `*.data/platlib/` are installed at the root too, and directories without `__init__` are
//! namespace packages (PEP 420). An sdist holds a project: everything sits under one
//! `name-version/` directory, sources may sit under `src/`, `lib/` or `python/`, and next to
//! the packages are `setup.py`, `docs/`, `examples/`... which are not modules. So in an sdist a
//! file counts only inside a regular package (a directory with `__init__`), or as a single-file
//! module at the source root. In both, test suites (`tests/`, a `test/` holding test modules,
//! `conftest.py`) are not part of the public API and are left out; a `test_*.py` elsewhere may
//! be (TensorFlow's `test_util`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::names::{is_identifier, ModulePath};

use super::compiled::extension_module_name;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveKind {
    Wheel,
    Sdist,
}

/// What kind of file provides a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SourceKind {
    /// `.py`
    Python,
    /// `.pyi`
    Stub,
    /// `.so` / `.pyd`
    Extension,
}

/// One archive file that is a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleFile {
    pub archive_path: String,
    pub module: ModulePath,
    pub kind: SourceKind,
    /// The file is a package's `__init__`.
    pub is_package: bool,
}

/// How one module of a release is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutSource {
    /// Summarize this `.py` file (`is_stub == false`) or `.pyi` file (`is_stub == true`), and
    /// the `.pyi` beside a `.py` (`stub`), which describes what compiled parts provide
    /// (numpy's `__init__.pyi`) or lazily loaded names (`lazy_loader.attach_stub`).
    File {
        archive_path: String,
        is_stub: bool,
        stub: Option<String>,
    },
    /// A compiled extension with no stub: its names are unknown.
    Opaque { archive_path: String },
    /// A directory without `__init__` (PEP 420 namespace package).
    Namespace,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutModule {
    pub module: ModulePath,
    pub is_package: bool,
    pub source: LayoutSource,
}

/// The modules of one release, worked out from the full list of its archive paths (namespace
/// packages and source roots can only be seen from the whole list).
#[derive(Debug, Clone, Default)]
pub struct ReleaseLayout {
    files: Vec<ModuleFile>,
    by_path: HashMap<String, usize>,
    modules: Vec<LayoutModule>,
}

/// Whether a file name stem is a test module's (`test_frame`, `frame_test`, `conftest`).
fn is_test_stem(stem: &str) -> bool {
    stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest"
}

/// The directories of `rooted` paths that hold test suites, never API: every `tests`, and a
/// `test` with test modules in it (tornado's). A `test` directory without any is an API
/// package: TensorFlow's generated `tf.test` (`is_gpu_available`), `django.test`.
fn test_suite_dirs(rooted: &[(usize, String)]) -> HashSet<&str> {
    let mut suites = HashSet::new();
    for (_, rel) in rooted {
        let Some((dir, file)) = rel.rsplit_once('/') else {
            continue;
        };
        let test_file = module_stem(file).is_some_and(|(stem, _)| is_test_stem(stem));
        for prefix in dir_prefixes(dir) {
            let last = prefix.rsplit('/').next().unwrap_or(prefix);
            if last == "tests" || (last == "test" && test_file) {
                suites.insert(prefix);
            }
        }
    }
    suites
}

/// `a`, `a/b`, `a/b/c` for `a/b/c`: slices of `dir`, nothing allocated (this runs for every
/// file of every release).
fn dir_prefixes(dir: &str) -> impl Iterator<Item = &str> {
    dir.match_indices('/')
        .map(move |(i, _)| &dir[..i])
        .chain(std::iter::once(dir))
}

/// Top-level names in an sdist that are project tooling, not modules.
const SDIST_NOT_MODULES: &[&str] = &[
    "setup",
    "setupegg",
    "conftest",
    "noxfile",
    "fabfile",
    "tasks",
    "versioneer",
    "ez_setup",
    "distribute_setup",
    "runtests",
    "run_tests",
    "bootstrap",
    "docs",
    "doc",
    "examples",
    "example",
    "benchmarks",
    "bench",
    "asv_bench",
    "scripts",
    "tools",
    "ci",
    "build",
    "dist",
    "tutorials",
];

/// Directories an sdist may keep its import packages under.
const SDIST_SOURCE_ROOTS: &[&str] = &["src", "lib", "python"];

impl ReleaseLayout {
    pub fn new<'a>(kind: ArchiveKind, paths: impl IntoIterator<Item = &'a str>) -> Self {
        let paths: Vec<String> = paths.into_iter().map(normalize).collect();
        let rooted: Vec<(usize, String)> = match kind {
            ArchiveKind::Wheel => paths
                .iter()
                .enumerate()
                .filter_map(|(i, p)| wheel_relative(p).map(|r| (i, r.to_string())))
                .collect(),
            ArchiveKind::Sdist => sdist_relative(&paths),
        };

        // Directories that are regular packages: they hold an `__init__` of any kind.
        let mut package_dirs: HashSet<&str> = HashSet::new();
        for (_, rel) in &rooted {
            if let Some((dir, file)) = rel.rsplit_once('/') {
                if module_stem(file).is_some_and(|(stem, _)| stem == "__init__") {
                    package_dirs.insert(dir);
                }
            }
        }

        let suites = test_suite_dirs(&rooted);
        let mut files = Vec::new();
        for (i, rel) in &rooted {
            let Some((stem, kind_of_file)) = module_stem(rel.rsplit('/').next().unwrap_or(rel))
            else {
                continue;
            };
            let dirs: Vec<&str> = match rel.rsplit_once('/') {
                Some((dir, _)) => dir.split('/').collect(),
                None => Vec::new(),
            };
            let in_suite = rel
                .rsplit_once('/')
                .is_some_and(|(dir, _)| dir_prefixes(dir).any(|p| suites.contains(p)));
            // A `test_*` module inside a package may be API: TensorFlow's `test_util` holds
            // `is_gpu_available`, which `tf.test` re-exports. At the top, it is a test.
            let top_level_test = dirs.is_empty() && stem.starts_with("test_");
            if in_suite || top_level_test || stem == "conftest" {
                continue;
            }
            if kind == ArchiveKind::Sdist {
                let inside_package =
                    (1..=dirs.len()).any(|n| package_dirs.contains(dirs[..n].join("/").as_str()));
                let top = dirs.first().copied().unwrap_or(stem);
                if !inside_package || SDIST_NOT_MODULES.contains(&top) {
                    let single_module = dirs.is_empty() && !SDIST_NOT_MODULES.contains(&stem);
                    if !single_module {
                        continue;
                    }
                }
            }
            let is_package = stem == "__init__";
            let mut segments = dirs.clone();
            if !is_package {
                segments.push(stem);
            }
            if segments.is_empty() {
                continue;
            }
            let Ok(module) = ModulePath::new(&segments.join(".")) else {
                continue;
            };
            files.push(ModuleFile {
                archive_path: paths[*i].clone(),
                module,
                kind: kind_of_file,
                is_package,
            });
        }
        files.sort_by(|a, b| (&a.module, a.kind).cmp(&(&b.module, b.kind)));
        files.dedup_by(|b, a| a.module == b.module && a.kind == b.kind);

        let modules = choose_modules(&files);
        let by_path = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.archive_path.clone(), i))
            .collect();
        Self {
            files,
            by_path,
            modules,
        }
    }

    /// Every archive file that is a module, sorted by module path.
    pub fn files(&self) -> &[ModuleFile] {
        &self.files
    }

    /// The module an archive path provides, if it is one.
    pub fn module_path_for(&self, archive_path: &str) -> Option<&ModuleFile> {
        self.by_path
            .get(&normalize(archive_path))
            .map(|&i| &self.files[i])
    }

    /// One entry per module, sorted: the file to summarize (`.py` before `.pyi`), an opaque
    /// extension, or a namespace package.
    pub fn modules(&self) -> &[LayoutModule] {
        &self.modules
    }

    /// The files worth parsing: the `.py` or else the `.pyi` of each module, and the `.pyi`
    /// beside a `.py`; with whether each is a stub.
    pub fn sources(&self) -> impl Iterator<Item = (&LayoutModule, &str, bool)> {
        self.modules.iter().flat_map(|m| {
            let (main, stub) = match &m.source {
                LayoutSource::File {
                    archive_path,
                    is_stub,
                    stub,
                } => (
                    Some((m, archive_path.as_str(), *is_stub)),
                    stub.as_deref().map(|s| (m, s, true)),
                ),
                _ => (None, None),
            };
            main.into_iter().chain(stub)
        })
    }
}

fn choose_modules(files: &[ModuleFile]) -> Vec<LayoutModule> {
    let mut chosen: BTreeMap<&ModulePath, LayoutModule> = BTreeMap::new();
    // `files` is sorted by (module, kind) and `SourceKind` orders Python < Stub < Extension,
    // so the first file seen for a module is the one to use; a stub after a `.py` goes with it.
    for file in files {
        match chosen.get_mut(&file.module) {
            Some(LayoutModule {
                source:
                    LayoutSource::File {
                        is_stub: false,
                        stub,
                        ..
                    },
                ..
            }) if file.kind == SourceKind::Stub => {
                *stub = Some(file.archive_path.clone());
            }
            Some(_) => {}
            None => {
                chosen.insert(
                    &file.module,
                    LayoutModule {
                        module: file.module.clone(),
                        is_package: file.is_package,
                        source: match file.kind {
                            SourceKind::Python | SourceKind::Stub => LayoutSource::File {
                                archive_path: file.archive_path.clone(),
                                is_stub: file.kind == SourceKind::Stub,
                                stub: None,
                            },
                            SourceKind::Extension => LayoutSource::Opaque {
                                archive_path: file.archive_path.clone(),
                            },
                        },
                    },
                );
            }
        }
    }
    let mut namespaces: BTreeSet<ModulePath> = BTreeSet::new();
    for module in chosen.keys() {
        let mut parent = module.parent();
        while let Some(p) = parent {
            if !chosen.contains_key(&p) {
                namespaces.insert(p.clone());
            }
            parent = p.parent();
        }
    }
    let mut out: Vec<LayoutModule> = chosen.into_values().collect();
    out.extend(namespaces.into_iter().map(|module| LayoutModule {
        module,
        is_package: true,
        source: LayoutSource::Namespace,
    }));
    out.sort_by(|a, b| a.module.cmp(&b.module));
    out
}

fn normalize(path: &str) -> String {
    let path = path.replace('\\', "/");
    path.trim_start_matches("./")
        .trim_start_matches('/')
        .to_string()
}

/// The module stem and kind of a file name, if it is a module file.
fn module_stem(file_name: &str) -> Option<(&str, SourceKind)> {
    if let Some(stem) = file_name.strip_suffix(".py") {
        Some((stem, SourceKind::Python))
    } else if let Some(stem) = file_name.strip_suffix(".pyi") {
        Some((stem, SourceKind::Stub))
    } else {
        extension_module_name(file_name).map(|stem| (stem, SourceKind::Extension))
    }
}

/// A wheel path relative to the install root, or `None` for metadata and non-library data.
fn wheel_relative(path: &str) -> Option<&str> {
    let Some((first, rest)) = path.split_once('/') else {
        return Some(path);
    };
    if first.ends_with(".dist-info") {
        return None;
    }
    if first.ends_with(".data") {
        let (scheme, rest) = rest.split_once('/')?;
        return matches!(scheme, "purelib" | "platlib").then_some(rest);
    }
    Some(path)
}

/// Sdist paths relative to their source root: the `name-version/` prefix is dropped, and so is
/// a `src/`, `lib/` or `python/` directory that holds packages.
fn sdist_relative(paths: &[String]) -> Vec<(usize, String)> {
    let prefix = common_first_segment(paths);
    let stripped: Vec<(usize, &str)> = paths
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match prefix {
            Some(pre) => p
                .strip_prefix(pre)
                .and_then(|r| r.strip_prefix('/'))
                .map(|r| (i, r)),
            None => Some((i, p.as_str())),
        })
        .collect();
    // A source root is used when it holds a package (`src/pkg/__init__.py`) or a module.
    let used_roots: HashSet<&str> = stripped
        .iter()
        .filter_map(|(_, p)| {
            let (root, rest) = p.split_once('/')?;
            if !SDIST_SOURCE_ROOTS.contains(&root) {
                return None;
            }
            let holds_module = match rest.split_once('/') {
                Some((_, file)) => module_stem(file).is_some_and(|(s, _)| s == "__init__"),
                None => module_stem(rest).is_some(),
            };
            holds_module.then_some(root)
        })
        .collect();
    let versioned = versioned_directories(stripped.iter().map(|(_, p)| *p));
    stripped
        .into_iter()
        .filter_map(|(i, p)| {
            let rel = match p.split_once('/') {
                Some((root, rest)) if used_roots.contains(root) => rest.to_string(),
                Some((dir, rest)) => match versioned.get(dir) {
                    Some(Versioned::Root) => rest.to_string(),
                    Some(Versioned::Package(name)) => format!("{name}/{rest}"),
                    Some(Versioned::Other) => return None,
                    None => p.to_string(),
                },
                None => p.to_string(),
            };
            Some((i, rel))
        })
        .collect()
}

/// A top-level directory of an sdist that holds one variant of the sources per Python
/// version, of which the newest is read.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Versioned {
    /// A source root for the newest Python (regex's `Python3/`, beside `Python2/`).
    Root,
    /// The package under another directory name (uncertainties' `uncertainties-py27/`, which
    /// setup.py installs as `uncertainties`).
    Package(String),
    /// An older variant: not read.
    Other,
}

/// Directories named for a Python version: `Python2`, `Python3`, `py3` (no `__init__`: source
/// roots), or `<package>-py27` (with `__init__`: the package itself). Among variants of one
/// name, the highest version is read.
fn versioned_directories<'p>(paths: impl Iterator<Item = &'p str>) -> HashMap<String, Versioned> {
    // dir → (base name, version digits, holds `__init__`)
    let mut found: HashMap<&str, (String, u32, bool)> = HashMap::new();
    for p in paths {
        let Some((dir, rest)) = p.split_once('/') else {
            continue;
        };
        let is_init = module_stem(rest).is_some_and(|(s, _)| s == "__init__");
        if let Some(entry) = found.get_mut(dir) {
            entry.2 |= is_init;
            continue;
        }
        let Some(split) = dir.rfind(|c: char| !c.is_ascii_digit()).map(|i| i + 1) else {
            continue;
        };
        let (head, digits) = dir.split_at(split);
        let Ok(version) = digits.parse::<u32>() else {
            continue;
        };
        let lower = head.to_ascii_lowercase();
        let base = if matches!(lower.as_str(), "python" | "py" | "src" | "lib") {
            String::new()
        } else if let Some(package) = lower
            .strip_suffix("-py")
            .or_else(|| lower.strip_suffix("_py"))
            .map(|_| &head[..head.len() - 3])
            .filter(|name| is_identifier(name))
        {
            package.to_string()
        } else {
            continue;
        };
        found.insert(dir, (base, version, is_init));
    }
    let mut newest: HashMap<&str, u32> = HashMap::new();
    for (base, version, is_init) in found.values() {
        // A root holds modules, not a package; a renamed package holds its `__init__`.
        if base.is_empty() != *is_init {
            let best = newest.entry(base.as_str()).or_insert(*version);
            *best = (*best).max(*version);
        }
    }
    found
        .iter()
        .map(|(dir, (base, version, _))| {
            let kind = match newest.get(base.as_str()) {
                Some(best) if best == version && base.is_empty() => Versioned::Root,
                Some(best) if best == version => Versioned::Package(base.clone()),
                _ => Versioned::Other,
            };
            (dir.to_string(), kind)
        })
        .collect()
}

/// The directory every path starts with (`pandas-0.19.2`), when there is one.
fn common_first_segment(paths: &[String]) -> Option<&str> {
    let mut first: Option<&str> = None;
    for p in paths {
        let (seg, _) = p.split_once('/')?;
        match first {
            None => first = Some(seg),
            Some(f) if f == seg => {}
            Some(_) => return None,
        }
    }
    first
}

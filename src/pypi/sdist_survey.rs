//! What an sdist's file list says without building it: whether building it compiles anything
//! (a pure-Python sdist builds wherever its setup.py runs, so a release with only such an
//! sdist is as installable as one with a pure wheel), and which top-level modules it installs
//! (for projects that never published a wheel, whose modules the index lookup cannot read
//! from one). Each sdist is read once: the survey is kept in the cache beside the core
//! metadata, keyed by the file's sha256.
//!
//! An sdist is pure Python when its file list holds no source that a build compiles (see
//! [`COMPILED_SUFFIXES`] and [`BUILD_FILES`]), its `setup.py` (comments left out) declares no
//! extension ([`SETUP_MARKERS`]), and its `pyproject.toml` names no compiling build backend
//! ([`BACKEND_MARKERS`]). An sdist too large to fetch ([`SURVEY_MAX_BYTES`]) or unreadable is
//! of unknown build, which counts as not pure.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::archive::{ArchiveLimits, EntryInfo, Member};
use super::cache::unless_disk_full;
use super::client::IndexClient;
use super::dist_file::DistFile;
use super::error::PypiError;
use super::filename::FileKind;

/// Sdists larger than this are not fetched to be surveyed (h2o's bundle a 265 MB jar): their
/// build is unknown.
pub const SURVEY_MAX_BYTES: u64 = 50 << 20;

/// Sources a build compiles: C and C++ (headers too), Cython, Fortran, CUDA, Objective-C++,
/// Rust, Go. MATLAB's `.m` files, common in pure packages that drive Octave, are left out:
/// Objective-C is compiled only when an extension names it, which `setup.py` shows.
pub const COMPILED_SUFFIXES: &[&str] = &[
    ".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".pyx", ".pxd", ".pxi", ".f",
    ".f77", ".f90", ".f95", ".f03", ".f08", ".for", ".cu", ".cuh", ".mm", ".rs", ".go",
];

/// Files that only a compiling build reads (Rust crates, CMake and Meson projects).
pub const BUILD_FILES: &[&str] = &["Cargo.toml", "CMakeLists.txt", "meson.build"];

/// What a `setup.py` that builds an extension says (outside comments).
pub const SETUP_MARKERS: &[&str] = &[
    "ext_modules",
    "Extension(",
    "cythonize(",
    "cffi_modules",
    "rust_extensions",
    "add_extension(",
    "add_library(",
];

/// Build backends (and their build requirements) that compile, as `pyproject.toml` names them.
pub const BACKEND_MARKERS: &[&str] = &[
    "maturin",
    "scikit_build",
    "scikit-build",
    "mesonpy",
    "meson-python",
    "setuptools_rust",
    "setuptools-rust",
];

/// Directories of an sdist that hold no installed package.
const NOT_INSTALLED: &[&str] = &[
    "test",
    "tests",
    "doc",
    "docs",
    "example",
    "examples",
    "benchmarks",
];

/// Top-level scripts of an sdist that are not modules it installs.
const NOT_MODULES: &[&str] = &[
    "setup",
    "ez_setup",
    "distribute_setup",
    "conftest",
    "noxfile",
    "fabfile",
];

/// What building the sdist takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SdistBuild {
    /// Nothing to compile.
    PurePython,
    /// Something to compile; `evidence` says what (`pkg/_speedups.c`, `ext_modules in
    /// setup.py`).
    Compiled { evidence: String },
    /// Not known (too large to fetch, unreadable): counts as not pure.
    Unknown { why: String },
}

/// What an sdist's file list says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SdistSurvey {
    pub build: SdistBuild,
    /// The top-level modules it installs: its `*.egg-info/top_level.txt` when it has one, else
    /// the packages (directories with `__init__.py`) and modules at its root, or one directory
    /// down (`src/`, `lib/`).
    pub modules: BTreeSet<String>,
}

impl SdistSurvey {
    pub fn is_pure_python(&self) -> bool {
        self.build == SdistBuild::PurePython
    }

    fn unknown(why: String) -> Self {
        Self {
            build: SdistBuild::Unknown { why },
            modules: BTreeSet::new(),
        }
    }

    /// Surveys an sdist from its listing and the members [`wanted`] picked out of it.
    pub fn of(entries: &[EntryInfo], members: &[Member]) -> Self {
        let root = common_root(entries.iter().map(|e| e.name.as_str()));
        let relative: Vec<&str> = entries
            .iter()
            .filter_map(|e| strip_root(&e.name, root))
            .collect();
        let member = |name: &str| {
            members
                .iter()
                .find(|m| strip_root(&m.name, root) == Some(name))
                .map(|m| String::from_utf8_lossy(&m.data).into_owned())
        };
        let build = judge(
            &relative,
            member("setup.py").as_deref(),
            member("pyproject.toml").as_deref(),
        );
        let listed: BTreeSet<String> = members
            .iter()
            .filter(|m| is_top_level_txt(&m.name))
            .min_by_key(|m| m.name.len())
            .map(|m| {
                String::from_utf8_lossy(&m.data)
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(|l| l.split('/').next().unwrap_or(l).to_string())
                    .collect()
            })
            .unwrap_or_default();
        let modules = if listed.is_empty() {
            modules_in(&relative)
        } else {
            listed
        };
        Self { build, modules }
    }
}

/// The members a survey reads: the root's `setup.py` and `pyproject.toml`, and the
/// egg-info's `top_level.txt`.
pub fn wanted(name: &str) -> bool {
    let depth = name.matches('/').count();
    let base = name.rsplit('/').next().unwrap_or(name);
    (depth <= 1 && (base == "setup.py" || base == "pyproject.toml"))
        || (depth <= 3 && is_top_level_txt(name))
}

fn is_top_level_txt(name: &str) -> bool {
    name.strip_suffix("/top_level.txt")
        .is_some_and(|dir| dir.ends_with(".egg-info"))
}

/// The directory every member lies in (`pkg-1.0`), as sdists have; `None` when they differ.
fn common_root<'a>(mut names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let first = names.next()?.split_once('/')?.0;
    names
        .all(|n| n.split_once('/').is_some_and(|(dir, _)| dir == first))
        .then_some(first)
}

fn strip_root<'a>(name: &'a str, root: Option<&str>) -> Option<&'a str> {
    match root {
        Some(root) => name.strip_prefix(root)?.strip_prefix('/'),
        None => Some(name),
    }
}

/// The build verdict from the paths below the root and the texts of `setup.py` and
/// `pyproject.toml`.
fn judge(paths: &[&str], setup_py: Option<&str>, pyproject: Option<&str>) -> SdistBuild {
    let compiled = |evidence: String| SdistBuild::Compiled { evidence };
    for path in paths {
        let base = path.rsplit('/').next().unwrap_or(path);
        let lower = base.to_ascii_lowercase();
        if COMPILED_SUFFIXES.iter().any(|s| lower.ends_with(s)) || BUILD_FILES.contains(&base) {
            return compiled(path.to_string());
        }
    }
    if let Some(text) = setup_py {
        let code: String = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        if let Some(marker) = SETUP_MARKERS.iter().find(|m| code.contains(*m)) {
            return compiled(format!("{} in setup.py", marker.trim_end_matches('(')));
        }
    }
    if let Some(text) = pyproject {
        if let Some(marker) = BACKEND_MARKERS.iter().find(|m| text.contains(*m)) {
            return compiled(format!("{marker} in pyproject.toml"));
        }
    }
    SdistBuild::PurePython
}

/// Top-level packages and modules from the paths below the root.
fn modules_in(paths: &[&str]) -> BTreeSet<String> {
    let packages: BTreeSet<&str> = paths
        .iter()
        .filter_map(|p| p.strip_suffix("/__init__.py"))
        .collect();
    let installed = |dir: &str| !packages.contains(dir) && !NOT_INSTALLED.contains(&dir);
    let mut out = BTreeSet::new();
    for package in &packages {
        match package.split_once('/') {
            None if !NOT_INSTALLED.contains(package) => {
                out.insert(package.to_string());
            }
            // `src/pkg`, `lib/pkg`: one directory down, below one that is no package.
            Some((dir, name)) if !name.contains('/') && installed(dir) => {
                out.insert(name.to_string());
            }
            _ => {}
        }
    }
    for path in paths {
        let (dir, file) = match path.rsplit_once('/') {
            Some((dir, file)) => (Some(dir), file),
            None => (None, *path),
        };
        if !dir.is_none_or(|d| d == "src" || d == "lib") {
            continue;
        }
        if let Some(stem) = file.strip_suffix(".py") {
            if !NOT_MODULES.contains(&stem) && !stem.contains('.') {
                out.insert(stem.to_string());
            }
        }
    }
    out
}

/// The cache key of a survey: the file's, under a name of its own.
fn cache_key(file: &DistFile) -> String {
    format!("{}.survey-v1", file.cache_key())
}

impl IndexClient {
    /// Surveys an sdist: from the cache when surveyed before, else from its file list (a
    /// tarball fetched once, a zip's directory by range). Too large to fetch or unreadable:
    /// a survey of unknown build, kept like the others. Errors reaching the index (offline
    /// without it cached, the network) are errors, and nothing is kept.
    pub fn survey_sdist(&self, file: &DistFile) -> Result<SdistSurvey, PypiError> {
        let FileKind::Sdist { .. } = file.kind else {
            return Err(PypiError::BadArchive {
                file: file.filename.clone(),
                message: "not an sdist".into(),
            });
        };
        // The lower of nbenv's limit for sdists read whole and the survey's own.
        let max = self.limits().max_streamed_size.min(SURVEY_MAX_BYTES);
        if let Some(size) = file.size.filter(|&s| s > max) {
            return Ok(SdistSurvey::unknown(too_large(size, max)));
        }
        let key = cache_key(file);
        if let Some(found) = self
            .cache()
            .get_blob("metadata", &key)
            .and_then(|bytes| serde_json::from_slice::<SdistSurvey>(&bytes).ok())
        {
            return Ok(found);
        }
        let limits = ArchiveLimits {
            max_streamed_size: max,
            ..self.limits()
        };
        let read = self
            .open_archive_within(file, limits)
            .and_then(|mut archive| {
                let members = archive.read(&wanted)?;
                Ok((archive.entries()?, members))
            });
        let survey = match read {
            Ok((entries, members)) => SdistSurvey::of(&entries, &members),
            Err(PypiError::Refused { message, .. }) => SdistSurvey::unknown(message),
            Err(PypiError::BadArchive { message, .. }) => SdistSurvey::unknown(message),
            Err(e) => return Err(e),
        };
        if let Ok(bytes) = serde_json::to_vec(&survey) {
            // A survey that fails to be kept costs the next run the read.
            unless_disk_full(self.cache().put_blob("metadata", &key, &bytes))?;
        }
        Ok(survey)
    }
}

fn too_large(size: u64, max: u64) -> String {
    format!(
        "{} MiB, more than the {} MiB nbenv fetches to survey an sdist",
        size.div_ceil(1 << 20),
        max.div_ceil(1 << 20)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pypi::filename::SdistFormat;
    use crate::pypi::sdist::read_sdist;
    use std::io::Write;

    fn tar_gz(files: &[(&str, &str)]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (path, data) in files {
            let mut header = tar::Header::new_gnu();
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            builder
                .append_data(&mut header, format!("pkg-1.0/{path}"), data.as_bytes())
                .unwrap();
        }
        let tar = builder.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&tar).unwrap();
        gz.finish().unwrap()
    }

    fn zip(files: &[(&str, &str)]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (path, data) in files {
            writer
                .start_file(
                    format!("pkg-1.0/{path}"),
                    zip::write::SimpleFileOptions::default(),
                )
                .unwrap();
            writer.write_all(data.as_bytes()).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    fn survey(bytes: &[u8], format: SdistFormat) -> SdistSurvey {
        let (entries, members) = read_sdist(
            bytes,
            format,
            "pkg-1.0.sdist",
            &wanted,
            &ArchiveLimits::default(),
        )
        .unwrap();
        SdistSurvey::of(&entries, &members)
    }

    /// Both archive formats give the same survey.
    fn both(files: &[(&str, &str)]) -> SdistSurvey {
        let from_tar = survey(&tar_gz(files), SdistFormat::TarGz);
        let from_zip = survey(&zip(files), SdistFormat::Zip);
        assert_eq!(from_tar, from_zip);
        from_tar
    }

    const SETUP: &str = "from setuptools import setup\nsetup(name='pkg', packages=['pkg'])\n";

    #[test]
    fn a_pure_python_sdist_and_its_modules() {
        let s = both(&[
            ("PKG-INFO", "Name: pkg\n"),
            ("setup.py", SETUP),
            ("pkg/__init__.py", ""),
            ("pkg/sub/__init__.py", ""),
            ("tests/__init__.py", ""),
            ("tests/test_pkg.py", ""),
            ("README.md", "# Extension(s) are described in C"),
            ("pkg/data/table.csv", "a,b\n"),
        ]);
        assert_eq!(s.build, SdistBuild::PurePython);
        assert!(s.is_pure_python());
        assert_eq!(s.modules, BTreeSet::from(["pkg".to_string()]));
    }

    #[test]
    fn compiled_sources_make_it_not_pure() {
        for (path, evidence) in [
            ("pkg/_speedups.c", "pkg/_speedups.c"),
            ("pkg/_fast.pyx", "pkg/_fast.pyx"),
            ("src/lib.rs", "src/lib.rs"),
            ("CMakeLists.txt", "CMakeLists.txt"),
            ("pkg/solver.F90", "pkg/solver.F90"),
        ] {
            let s = both(&[
                ("setup.py", SETUP),
                ("pkg/__init__.py", ""),
                (path, "int x;"),
            ]);
            assert_eq!(
                s.build,
                SdistBuild::Compiled {
                    evidence: evidence.into()
                }
            );
        }
        // MATLAB's `.m` files are data to a pure package.
        let s = both(&[("pkg/__init__.py", ""), ("pkg/octave/solve.m", "x = 1;")]);
        assert!(s.is_pure_python(), "{s:?}");
    }

    #[test]
    fn an_extension_in_setup_py_makes_it_not_pure_unless_only_mentioned_in_a_comment() {
        let setup = "from setuptools import setup, Extension\nsetup(name='pkg', ext_modules=[Extension('pkg._x', ['x.c'])])\n";
        let s = both(&[("setup.py", setup), ("pkg/__init__.py", "")]);
        assert_eq!(
            s.build,
            SdistBuild::Compiled {
                evidence: "ext_modules in setup.py".into()
            }
        );
        let commented = "from setuptools import setup\n# no Extension(...) here: ext_modules went in 2.0\nsetup(name='pkg')\n";
        let s = both(&[("setup.py", commented), ("pkg/__init__.py", "")]);
        assert!(s.is_pure_python(), "{s:?}");
        // A nested setup.py (an example, a vendored project) is not the sdist's.
        let s = both(&[
            ("setup.py", SETUP),
            ("examples/ext/setup.py", setup),
            ("pkg/__init__.py", ""),
        ]);
        assert!(s.is_pure_python(), "{s:?}");
        let s = both(&[
            (
                "pyproject.toml",
                "[build-system]\nbuild-backend = \"maturin\"\n",
            ),
            ("pkg/__init__.py", ""),
        ]);
        assert!(!s.is_pure_python(), "{s:?}");
    }

    #[test]
    fn modules_from_the_egg_info_else_from_the_layout() {
        // pydotplus keeps its package under lib/, and says so in its egg-info.
        let s = both(&[
            ("setup.py", SETUP),
            ("lib/pydotplus/__init__.py", ""),
            ("lib/pydotplus/parser.py", ""),
            ("lib/pydotplus.egg-info/top_level.txt", "pydotplus\n"),
        ]);
        assert_eq!(s.modules, BTreeSet::from(["pydotplus".to_string()]));
        // Without one: packages at the root or one level down, modules at the root or in src/.
        let s = both(&[
            ("setup.py", SETUP),
            ("ez_setup.py", ""),
            ("version_information.py", ""),
            ("src/other/__init__.py", ""),
            ("src/single.py", ""),
            ("docs/conf.py", ""),
        ]);
        assert_eq!(
            s.modules,
            ["other", "single", "version_information"]
                .map(String::from)
                .into()
        );
    }

    #[test]
    fn the_survey_keeps_in_the_cache_as_json() {
        let s = SdistSurvey {
            build: SdistBuild::Compiled {
                evidence: "x.c".into(),
            },
            modules: BTreeSet::from(["x".to_string()]),
        };
        let bytes = serde_json::to_vec(&s).unwrap();
        assert_eq!(serde_json::from_slice::<SdistSurvey>(&bytes).unwrap(), s);
        assert!(too_large(265 << 20, SURVEY_MAX_BYTES).starts_with("265 MiB, more than the 50 MiB"));
    }
}

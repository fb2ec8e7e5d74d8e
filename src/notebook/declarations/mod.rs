//! What the repository around a notebook declares about its environment: requirements
//! files, conda's `environment.yml`, `setup.py`, `pyproject.toml`, and Binder's
//! `runtime.txt`, read from the notebook's directory up to the repository's root.
//!
//! Such files are often a superset of what the notebook needs, or out of date, so they are
//! soft evidence: resolution narrows versions with them only where the notebook's own
//! evidence allows it, and a declared distribution the notebook never imports is not a
//! requirement. Every declaration names its file and line; a file that cannot be read is a
//! [`DeclarationProblem`], never a failure.

mod conda_env;
mod lines;
mod poetry;
mod pyproject;
mod requirements_file;
mod runtime;
mod search;
mod setup_py;

use std::fmt;
use std::path::{Path, PathBuf};

use pep508_rs::Requirement;
use serde::Serialize;

use super::python_version::{HintReason, VersionHint};
use super::usage::Usage;
use crate::names::DistName;
use crate::python::{PythonRange, PythonVersion};

pub use search::MAX_LEVELS_UP;

/// Where a declaration was read: a file (as a path to show the user) and a line from 1.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct DeclaredAt {
    pub file: PathBuf,
    pub line: u32,
}

/// `file:line`, as compilers print it.
impl fmt::Display for DeclaredAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// The kind of file a declaration comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeclarationKind {
    /// `requirements*.txt` and the files it includes with `-r` / `-c`.
    RequirementsFile,
    /// A conda package in `environment.yml`'s `dependencies`, named as on PyPI.
    CondaEnvironment,
    /// The `pip:` list inside `environment.yml`.
    CondaPip,
    /// `install_requires=[...]` in `setup.py`.
    SetupPy,
    /// `[project] dependencies` in `pyproject.toml`.
    Pyproject,
    /// `[tool.poetry.dependencies]` in `pyproject.toml`.
    Poetry,
}

/// One distribution a file declares, with the versions it asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeclaredRequirement {
    /// As PEP 508 (conda's `numpy=1.16` becomes `numpy==1.16.*`, poetry's `^1.2` becomes
    /// `>=1.2,<2`).
    pub requirement: Requirement,
    pub name: DistName,
    /// As written, for messages.
    pub text: String,
    pub kind: DeclarationKind,
    pub at: DeclaredAt,
}

/// Which file declares an interpreter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PythonDeclaration {
    /// Binder's `runtime.txt` (`python-3.6`).
    RuntimeTxt,
    /// `python=3.6` among `environment.yml`'s dependencies.
    CondaEnvironment,
}

/// An interpreter a file declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeclaredPython {
    /// The feature release.
    pub version: PythonVersion,
    pub kind: PythonDeclaration,
    pub at: DeclaredAt,
}

/// A declaration file that could not be read, or a line of it that was not understood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeclarationProblem {
    pub file: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
}

impl fmt::Display for DeclarationProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

/// Everything the repository around one notebook declares, nearest file first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Declarations {
    /// The files read, nearest directory first.
    pub files: Vec<PathBuf>,
    pub requirements: Vec<DeclaredRequirement>,
    pub python: Vec<DeclaredPython>,
    pub problems: Vec<DeclarationProblem>,
}

impl Declarations {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.problems.is_empty()
    }
}

/// Reads the declaration files around `notebook`: its directory and each parent up to the
/// repository's root (the first directory with a `.git`), at most [`MAX_LEVELS_UP`] levels up,
/// never the home directory or the file system's root. Paths are shown relative to the
/// current directory when they lie under it.
pub fn read_declarations(notebook: &Path) -> Declarations {
    let mut out = Declarations::default();
    for file in search::declaration_files(notebook) {
        let shown = search::shown(&file.path);
        let text = match std::fs::read(&file.path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                out.problems.push(DeclarationProblem {
                    file: shown,
                    line: None,
                    message: format!("cannot be read: {e}"),
                });
                continue;
            }
        };
        out.files.push(shown.clone());
        let mut sink = Sink {
            file: &shown,
            out: &mut out,
        };
        match file.kind {
            search::FileKind::Requirements => {
                requirements_file::read(&file.path, &text, &mut sink);
            }
            search::FileKind::CondaEnvironment => conda_env::read(&text, &mut sink),
            search::FileKind::SetupPy => setup_py::read(&text, &mut sink),
            search::FileKind::Pyproject => pyproject::read(&text, &mut sink),
            search::FileKind::Runtime => runtime::read(&text, &mut sink),
        }
    }
    out
}

/// Where the readers of each format put what they find, for one file.
struct Sink<'a> {
    file: &'a Path,
    out: &'a mut Declarations,
}

impl Sink<'_> {
    fn at(&self, line: u32) -> DeclaredAt {
        DeclaredAt {
            file: self.file.to_path_buf(),
            line,
        }
    }

    fn requirement(
        &mut self,
        requirement: Requirement,
        text: &str,
        kind: DeclarationKind,
        line: u32,
    ) {
        let Ok(name) = DistName::new(requirement.name.as_ref()) else {
            return;
        };
        let at = self.at(line);
        self.out.requirements.push(DeclaredRequirement {
            requirement,
            name,
            text: text.trim().to_string(),
            kind,
            at,
        });
    }

    fn python(&mut self, version: PythonVersion, kind: PythonDeclaration, line: u32) {
        let at = self.at(line);
        self.out.python.push(DeclaredPython {
            version: version.feature(),
            kind,
            at,
        });
    }

    fn problem(&mut self, line: Option<u32>, message: impl Into<String>) {
        self.out.problems.push(DeclarationProblem {
            file: self.file.to_path_buf(),
            line,
            message: message.into(),
        });
    }
}

impl Usage {
    /// Adds the repository's declarations to the notebook's evidence. A declared interpreter
    /// becomes a weak Python hint: it steers the choice of interpreter only within what the
    /// notebook's own evidence allows.
    pub fn attach_declarations(&mut self, declarations: Declarations) {
        for p in &declarations.python {
            self.python.hints.push(VersionHint {
                reason: HintReason::Declared,
                detail: p.at.to_string(),
                range: PythonRange::exactly(p.version),
                weak: true,
                count: 1,
                at: None,
            });
        }
        self.declarations = declarations;
    }
}

/// The declarations a notebook in a fresh repository holding only `file` (with `text`) gets.
#[cfg(test)]
pub(super) fn declared_in(file: &str, text: &str) -> Declarations {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join(file), text).unwrap();
    read_declarations(&dir.path().join("nb.ipynb"))
}

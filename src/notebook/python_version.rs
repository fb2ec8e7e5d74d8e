//! Python-version evidence: what a notebook says about the interpreter it ran on.

use serde::Serialize;

use super::location::Location;
use crate::python::{PythonRange, PythonVersion};

/// The versions nbenv knows the standard library of (and can choose an interpreter from).
pub const KNOWN_VERSIONS: [PythonVersion; 13] = [
    PythonVersion::new(2, 7),
    PythonVersion::new(3, 3),
    PythonVersion::new(3, 4),
    PythonVersion::new(3, 5),
    PythonVersion::new(3, 6),
    PythonVersion::new(3, 7),
    PythonVersion::new(3, 8),
    PythonVersion::new(3, 9),
    PythonVersion::new(3, 10),
    PythonVersion::new(3, 11),
    PythonVersion::new(3, 12),
    PythonVersion::new(3, 13),
    PythonVersion::new(3, 14),
];

/// What a piece of Python-version evidence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HintReason {
    /// `metadata.kernelspec` (`python2`, `Python 3.7`).
    Kernelspec,
    /// `metadata.language_info.version`: the interpreter the notebook last ran on.
    LanguageInfo,
    /// Python 2 only syntax: print/exec statements, backticks, `ur''`, `10L`, `except X, e`, ...
    Python2Syntax,
    /// Builtins and methods that Python 3 removed (`xrange`, `raw_input`, `d.has_key`).
    Python2Name,
    /// Syntax added in a Python 3 release (f-strings 3.6, `:=` 3.8, `match` 3.10, ...).
    SyntaxFeature,
    /// A standard-library module that only some versions have (`imp` ≤ 3.11, `tomllib` ≥ 3.11).
    StdlibModule,
    /// An import of a repository folder without `__init__.py`, a namespace package: Python
    /// 3.3 and later.
    NamespacePackage,
    /// An interpreter path in a stored output (`lib/python3.6/site-packages`).
    OutputPath,
    /// A run showed the code needs other Pythons: a Python 2 builtin raised on 3, a source
    /// file without an encoding line failed to read on 2.
    Run,
    /// A file of the repository declares the interpreter (Binder's `runtime.txt`,
    /// `python=3.6` in `environment.yml`): always weak, it steers only within the rest.
    Declared,
}

impl HintReason {
    /// Whether it is the code's own need (syntax, builtins, standard library), which binds,
    /// rather than a record of where the notebook ran or what its repository declares, which
    /// only steers.
    pub fn is_code(self) -> bool {
        matches!(
            self,
            HintReason::Python2Syntax
                | HintReason::Python2Name
                | HintReason::SyntaxFeature
                | HintReason::StdlibModule
                | HintReason::NamespacePackage
                | HintReason::Run
        )
    }
}

/// One piece of evidence about the Python version. Repeated evidence of the same kind and
/// detail is counted, with the first place it was seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionHint {
    pub reason: HintReason,
    /// What was seen: `print statement`, `f-string`, `imp`, `python2`.
    pub detail: String,
    pub range: PythonRange,
    /// Weak evidence may be legitimately contradicted: the code sits in a `try:`/`if` that
    /// tolerates its failure, or a backport package provides the module on other versions.
    pub weak: bool,
    pub count: u32,
    pub at: Option<Location>,
}

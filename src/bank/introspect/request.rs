use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::python::PythonVersion;

/// What the bundled script is asked to do.
#[derive(Debug, Clone, Serialize)]
pub struct RuntimeRequest {
    pub top_level: Vec<String>,
    pub modules: Vec<String>,
    /// Module → names to look up with `getattr` (names other releases had).
    pub probe: BTreeMap<String, Vec<String>>,
    /// Modules static reading left open (a star import of another distribution, dynamic
    /// exports): every name is listed, whoever defines it, since `from numpy import *` in
    /// `matplotlib.pylab` makes `pylab.nanmean` as real as `pylab.figure`. Elsewhere names
    /// bound to other distributions' objects are not the module's own APIs.
    #[serde(default)]
    pub keep_all: Vec<String>,
    pub seconds_per_import: u64,
}

/// What it answers.
#[derive(Debug, Clone, Deserialize)]
pub struct RuntimeResult {
    /// The interpreter the script ran on, as it reports itself (`3.8.18`); an answer without
    /// a readable version is no answer.
    pub python: PythonVersion,
    /// (path, kind) pairs.
    pub names: Vec<(String, String)>,
    /// (path, canonical path): names bound to a class or function defined elsewhere.
    #[serde(default)]
    pub aliases: Vec<(String, String)>,
    /// (class, base) by canonical paths, for bases of the same distribution.
    #[serde(default)]
    pub bases: Vec<(String, String)>,
    #[serde(default)]
    pub failed: BTreeMap<String, String>,
    /// Modules imported and listed completely.
    #[serde(default)]
    pub listed: Vec<String>,
    /// Modules of the import names in `sys.modules`.
    #[serde(default)]
    pub modules: Vec<String>,
    /// Module → the top-level module its import looked for and did not find (from
    /// `ImportError.name`).
    #[serde(default)]
    pub missing: BTreeMap<String, String>,
}

impl RuntimeResult {
    /// The top-level modules imports looked for and did not find.
    pub fn missing_modules(&self) -> Vec<String> {
        let mut out: Vec<String> = self.missing.values().cloned().collect();
        out.sort();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The script's answer carries the interpreter's version as a version, patch level
    /// included; a line whose version cannot be read is not an answer.
    #[test]
    fn an_answer_carries_a_python_version() {
        let answer: RuntimeResult =
            serde_json::from_str(r#"{"python": "3.8.18", "names": [["m.f", "function"]]}"#)
                .unwrap();
        assert_eq!(
            answer.python,
            PythonVersion {
                major: 3,
                minor: 8,
                micro: Some(18)
            }
        );
        assert_eq!(answer.python.feature(), PythonVersion::new(3, 8));
        assert!(
            serde_json::from_str::<RuntimeResult>(r#"{"python": "cpython", "names": []}"#).is_err()
        );
    }
}

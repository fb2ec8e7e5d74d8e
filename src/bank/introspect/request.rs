use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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
    pub python: String,
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

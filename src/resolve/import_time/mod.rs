//! What a release needs at import time beyond what it declares: the distributions whose
//! modules it imports whenever it is imported (scikit-learn 0.19.1 imports scipy, declared
//! only under an extra), each restricted to the releases that have what it imports from them
//! (standalone keras 2.10 imports `tensorflow.compat.v2`, which tensorflow 1.1 lacks).
//!
//! The solver asks an [`ImportTimeDependencies`] about each release it takes: [`BankImportTime`]
//! answers from the bank's reading of the release's code, [`MemoryImportTime`] from what a
//! test told it. A release the bank has not read needs nothing more: unknown, never guessed.

mod bank;

use std::collections::HashMap;

use pep508_rs::pep440_rs::Version;
use serde::Serialize;

pub use bank::BankImportTime;

use crate::names::DistName;
use crate::python::PythonVersion;

/// One release the solver takes, as it asks about it.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    pub dist: &'a DistName,
    pub version: &'a Version,
    /// The target: which imports are of the standard library depends on it.
    pub python: PythonVersion,
    /// Distributions to take as the provider of an imported module before others that provide
    /// it: those the release's own Requires-Dist names (under any extra or marker), then the
    /// notebook's.
    pub preferred: &'a [DistName],
}

/// A distribution a release imports whenever it is imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImportedDist {
    pub dist: DistName,
    /// What the release imports from it (`scipy.sparse`, `scipy.misc.comb`), sorted.
    pub paths: Vec<String>,
    /// Releases of `dist` that the bank shows lack one of `paths`: the release cannot be
    /// imported with them. Releases it has not read, or cannot tell, are not among them.
    pub lacking: Vec<Version>,
}

impl ImportedDist {
    /// The top-level modules imported (`scipy`), each once, for the output.
    pub fn modules(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .paths
            .iter()
            .map(|p| p.split('.').next().unwrap_or(p))
            .collect();
        out.dedup();
        out
    }
}

/// What the solver asks about each release it takes. `Sync`, as the catalog is, so that one
/// answers for worker threads.
pub trait ImportTimeDependencies: Send + Sync {
    /// The distributions `asked` imports whenever it is imported (never its own), with the
    /// releases of each it cannot be imported with; empty when that is not known.
    fn dependencies(&self, asked: &Asked<'_>) -> Vec<ImportedDist>;
}

/// Answers set by hand, for tests: per release, the distributions it imports.
#[derive(Debug, Clone, Default)]
pub struct MemoryImportTime {
    releases: HashMap<(DistName, Version), Vec<ImportedDist>>,
}

impl MemoryImportTime {
    pub fn new() -> Self {
        Self::default()
    }

    /// Release `version` of `dist` imports `paths` of `imported`, which its releases in
    /// `lacking` do not have. Panics on malformed names: a bug in the test.
    pub fn imports(
        &mut self,
        dist: &str,
        version: &str,
        imported: &str,
        paths: &[&str],
        lacking: &[&str],
    ) -> &mut Self {
        let name = |n: &str| DistName::new(n).unwrap_or_else(|e| panic!("{e}"));
        let parse = |v: &str| -> Version { v.parse().unwrap_or_else(|e| panic!("{v}: {e}")) };
        self.releases
            .entry((name(dist), parse(version)))
            .or_default()
            .push(ImportedDist {
                dist: name(imported),
                paths: paths.iter().map(|p| p.to_string()).collect(),
                lacking: lacking.iter().map(|v| parse(v)).collect(),
            });
        self
    }
}

impl ImportTimeDependencies for MemoryImportTime {
    fn dependencies(&self, asked: &Asked<'_>) -> Vec<ImportedDist> {
        self.releases
            .get(&(asked.dist.clone(), asked.version.clone()))
            .cloned()
            .unwrap_or_default()
    }
}

//! The hook for finding providers on the package index when neither the bank nor the lists
//! know an import name: a project of the same or a conventional name (`X`, `python-X`, `pyX`,
//! `X-python`) counts only if its wheel really installs that top-level module (RECORD or
//! `top_level.txt`), or, for a project that never published a wheel, its newest sdist holds
//! it. The lazy-indexing stage implements it; offline, nothing is looked up.

use crate::names::{DistName, ModulePath};

/// Looking providers up failed (network, index errors): the import stays undecided rather
/// than unresolved.
#[derive(Debug, thiserror::Error)]
#[error("looking up providers of `{import}` on the index: {detail}")]
pub struct LookupError {
    pub import: ModulePath,
    pub detail: String,
}

/// Finds, on the index, distributions whose wheels install `import`.
pub trait IndexLookup {
    /// The distributions, among those [`conventional_names`] suggests, whose newest wheel
    /// (or, without any wheel, newest sdist) installs `import`; each was checked, not guessed.
    fn providers_on_index(&self, import: &ModulePath) -> Result<Vec<DistName>, LookupError>;
}

/// Offline: the index is not asked, and nothing is found there.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoIndexLookup;

impl IndexLookup for NoIndexLookup {
    fn providers_on_index(&self, _import: &ModulePath) -> Result<Vec<DistName>, LookupError> {
        Ok(Vec::new())
    }
}

/// The project names an import name is conventionally published under, most likely first:
/// `X`, `python-X`, `pyX`, `X-python` (`serial` → `serial`, `python-serial`, `pyserial`,
/// `serial-python`), normalized, each once; spellings that are no valid name are left out.
pub fn conventional_names(import: &ModulePath) -> Vec<DistName> {
    let top = import.top_level();
    let mut out: Vec<DistName> = Vec::new();
    let spellings = [
        top.to_string(),
        format!("python-{top}"),
        format!("py{top}"),
        format!("{top}-python"),
    ];
    for spelling in spellings {
        if let Ok(name) = DistName::new(&spelling) {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventional_spellings() {
        let names: Vec<String> = conventional_names(&ModulePath::new("serial").unwrap())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            names,
            ["serial", "python-serial", "pyserial", "serial-python"]
        );
        // `_` normalizes to `-`; a name cannot start with one, so `_x` and `_x-python` go.
        let names: Vec<String> = conventional_names(&ModulePath::new("_x").unwrap())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(names, ["python-x", "py-x"]);
    }
}

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

    /// Whether the newest wheel (or, without any, the newest sdist) of `dist` installs
    /// `import`. Offline: never.
    fn installs(&self, _dist: &DistName, _import: &ModulePath) -> Result<bool, LookupError> {
        Ok(false)
    }
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

/// Whether the name of `dist` resembles `import` once the usual `py`/`python` affixes and
/// punctuation are set aside (`python-crfsuite` and `pycrfsuite`, `pyyaml-include` and
/// `yaml_include`): a declared distribution worth checking as the import's provider.
pub fn resembles(import: &ModulePath, dist: &DistName) -> bool {
    fn core(name: &str) -> String {
        let plain: String = name
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        let plain = plain.strip_prefix("python").unwrap_or(&plain);
        let plain = plain.strip_prefix("py").unwrap_or(plain);
        plain.strip_suffix("python").unwrap_or(plain).to_string()
    }
    let (a, b) = (core(import.top_level()), core(dist.as_str()));
    a.len() >= 3 && b.len() >= 3 && (a == b || a.contains(&b) || b.contains(&a))
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

    #[test]
    fn declared_names_that_resemble_an_import() {
        let m = |s: &str| ModulePath::new(s).unwrap();
        let d = |s: &str| DistName::new(s).unwrap();
        assert!(resembles(&m("pycrfsuite"), &d("python-crfsuite")));
        assert!(resembles(&m("yaml_include"), &d("pyyaml-include")));
        assert!(!resembles(&m("pycrfsuite"), &d("numpy")));
        assert!(!resembles(&m("io"), &d("pyio")), "too short to tell");
    }
}

use std::fmt;

use serde::{Deserialize, Serialize};

/// A dotted module path such as `sklearn.model_selection`: what code imports.
///
/// Every segment is a non-empty identifier; relative imports are resolved before a
/// `ModulePath` is made, so it never starts with a dot.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ModulePath(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a dotted module path")]
pub struct InvalidModulePath(pub String);

/// Whether `segment` is a Python identifier: what module, API and binding names are made of.
/// (The parser's error recovery can produce empty or partial names, which are not.)
pub fn is_identifier(segment: &str) -> bool {
    let mut chars = segment.chars();
    match chars.next() {
        Some(c) if c == '_' || c.is_alphabetic() => {}
        _ => return false,
    }
    chars.all(|c| c == '_' || c.is_alphanumeric())
}

impl ModulePath {
    pub fn new(raw: &str) -> Result<Self, InvalidModulePath> {
        if raw.split('.').all(is_identifier) {
            Ok(Self(raw.to_string()))
        } else {
            Err(InvalidModulePath(raw.to_string()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first segment: the import name a distribution provides (`sklearn`).
    pub fn top_level(&self) -> &str {
        self.0.split('.').next().unwrap_or(&self.0)
    }

    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('.')
    }

    pub fn parent(&self) -> Option<ModulePath> {
        self.0
            .rsplit_once('.')
            .map(|(p, _)| ModulePath(p.to_string()))
    }

    /// The last segment (`model_selection` of `sklearn.model_selection`).
    pub fn name(&self) -> &str {
        self.0.rsplit('.').next().unwrap_or(&self.0)
    }

    /// Appends one segment; `segment` must be an identifier.
    pub fn child(&self, segment: &str) -> Result<ModulePath, InvalidModulePath> {
        ModulePath::new(&format!("{}.{segment}", self.0))
    }

    /// Whether `self` is `other` or a submodule of it.
    pub fn starts_with(&self, other: &ModulePath) -> bool {
        self.0 == other.0
            || (self.0.starts_with(other.as_str()) && self.0.as_bytes()[other.0.len()] == b'.')
    }
}

impl fmt::Display for ModulePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for ModulePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ModulePath({})", self.0)
    }
}

impl std::str::FromStr for ModulePath {
    type Err = InvalidModulePath;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::new(s)
    }
}

impl TryFrom<String> for ModulePath {
    type Error = InvalidModulePath;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        if s.split('.').all(is_identifier) {
            Ok(Self(s))
        } else {
            Err(InvalidModulePath(s))
        }
    }
}

impl From<ModulePath> for String {
    fn from(m: ModulePath) -> String {
        m.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts() {
        let m = ModulePath::new("sklearn.model_selection").unwrap();
        assert_eq!(m.top_level(), "sklearn");
        assert_eq!(m.name(), "model_selection");
        assert_eq!(m.parent().unwrap().as_str(), "sklearn");
        assert!(m.starts_with(&ModulePath::new("sklearn").unwrap()));
        assert!(!ModulePath::new("sklearnx")
            .unwrap()
            .starts_with(&ModulePath::new("sklearn").unwrap()));
        assert!(ModulePath::new(".a").is_err());
        assert!(ModulePath::new("a..b").is_err());
        assert!(ModulePath::new("1a").is_err());
    }
}

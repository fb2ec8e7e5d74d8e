use std::fmt;

use serde::{Deserialize, Serialize};

use super::module_path::is_identifier;
use super::ModulePath;

/// A fully qualified API name such as `pandas.read_excel` or `pandas.DataFrame.ix`.
///
/// Where the module part ends is not part of the type: `pandas.DataFrame.ix` is the same API
/// whether one reads it as module `pandas`, class `DataFrame`, member `ix` or otherwise.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ApiPath(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a dotted API path")]
pub struct InvalidApiPath(pub String);

impl ApiPath {
    pub fn new(raw: &str) -> Result<Self, InvalidApiPath> {
        Self::try_from(raw.to_string())
    }

    /// `module.name`, for a name defined in or re-exported by `module`. `name` must be one
    /// identifier: an empty or dotted one would make a path no code can write (`pkg.mod.`).
    pub fn in_module(module: &ModulePath, name: &str) -> Result<Self, InvalidApiPath> {
        Self::checked_join(module.as_str(), name)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The import name the API starts with (`pandas` of `pandas.read_excel`).
    pub fn top_level(&self) -> &str {
        self.0.split('.').next().unwrap_or(&self.0)
    }

    /// Everything before the last segment, and the last segment.
    pub fn split_last(&self) -> Option<(&str, &str)> {
        self.0.rsplit_once('.')
    }

    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('.')
    }

    /// Appends one attribute segment, which must be an identifier.
    pub fn member(&self, name: &str) -> Result<Self, InvalidApiPath> {
        Self::checked_join(&self.0, name)
    }

    /// `prefix.name`, where `prefix` is already a valid path.
    fn checked_join(prefix: &str, name: &str) -> Result<Self, InvalidApiPath> {
        let path = format!("{prefix}.{name}");
        if is_identifier(name) {
            Ok(Self(path))
        } else {
            Err(InvalidApiPath(path))
        }
    }
}

impl fmt::Display for ApiPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for ApiPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiPath({})", self.0)
    }
}

impl std::str::FromStr for ApiPath {
    type Err = InvalidApiPath;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::new(s)
    }
}

impl TryFrom<String> for ApiPath {
    type Error = InvalidApiPath;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        if s.split('.').all(is_identifier) {
            Ok(Self(s))
        } else {
            Err(InvalidApiPath(s))
        }
    }
}

impl From<ApiPath> for String {
    fn from(a: ApiPath) -> String {
        a.0
    }
}

impl From<ModulePath> for ApiPath {
    fn from(m: ModulePath) -> Self {
        Self(m.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_refuse_what_is_not_a_path() {
        let module = ModulePath::new("pkg.mod").unwrap();
        assert_eq!(
            ApiPath::in_module(&module, "f").unwrap().as_str(),
            "pkg.mod.f"
        );
        // Reproduced: the import flow built `pkg.mod.` for a binding without a name.
        assert_eq!(
            ApiPath::in_module(&module, ""),
            Err(InvalidApiPath("pkg.mod.".into()))
        );
        assert!(ApiPath::in_module(&module, "a.b").is_err());
        let class = ApiPath::new("pkg.C").unwrap();
        assert_eq!(class.member("m").unwrap().as_str(), "pkg.C.m");
        for bad in ["", "1x", "a b", "x."] {
            assert!(class.member(bad).is_err(), "{bad:?}");
        }
        for bad in ["", ".a", "a.", "a..b", "a.1"] {
            assert!(ApiPath::new(bad).is_err(), "{bad:?}");
            assert!(serde_json::from_str::<ApiPath>(&format!("{bad:?}")).is_err());
        }
    }
}

//! The packages PubGrub decides: the notebook, the interpreter, distributions, and
//! distributions with an extra.

use std::fmt;

use pep508_rs::ExtraName;

use crate::names::DistName;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Package {
    /// The notebook: depends on every root requirement.
    Root,
    /// The interpreter; its only version is the target's, so Requires-Python is a dependency
    /// on it.
    Python,
    Dist(DistName),
    /// `dist[extra]`: pins `dist` to its own version and adds the extra's requirements.
    Extra(DistName, ExtraName),
}

impl Package {
    /// The distribution this package installs, if any.
    pub fn dist(&self) -> Option<&DistName> {
        match self {
            Package::Dist(d) | Package::Extra(d, _) => Some(d),
            Package::Root | Package::Python => None,
        }
    }
}

impl fmt::Display for Package {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Package::Root => f.write_str("the notebook"),
            Package::Python => f.write_str("Python"),
            Package::Dist(d) => write!(f, "{d}"),
            Package::Extra(d, e) => write!(f, "{d}[{e}]"),
        }
    }
}

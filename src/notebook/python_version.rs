//! Python versions as evidence speaks of them: feature releases (`3.7`) and ranges of them.

use std::fmt;

use serde::{Serialize, Serializer};

use super::location::Location;

/// A Python feature release. Patch levels do not change the standard library, syntax or the
/// wheels that install, so evidence is kept at this granularity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PyVersion {
    pub major: u8,
    pub minor: u8,
}

impl PyVersion {
    pub const fn new(major: u8, minor: u8) -> Self {
        Self { major, minor }
    }

    /// Reads `3`, `3.7` or `3.7.3` (anything after the minor is ignored).
    pub fn parse(s: &str) -> Option<Self> {
        let mut parts = s.trim().split('.');
        let major: u8 = parts.next()?.parse().ok()?;
        let minor = match parts.next() {
            Some(m) => {
                let digits: &str = &m[..m.find(|c: char| !c.is_ascii_digit()).unwrap_or(m.len())];
                digits.parse().ok()?
            }
            None => 0,
        };
        Some(Self { major, minor })
    }
}

impl fmt::Display for PyVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl Serialize for PyVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The versions nbenv knows the standard library of (and can choose an interpreter from).
pub const KNOWN_VERSIONS: [PyVersion; 10] = [
    PyVersion::new(2, 7),
    PyVersion::new(3, 6),
    PyVersion::new(3, 7),
    PyVersion::new(3, 8),
    PyVersion::new(3, 9),
    PyVersion::new(3, 10),
    PyVersion::new(3, 11),
    PyVersion::new(3, 12),
    PyVersion::new(3, 13),
    PyVersion::new(3, 14),
];

/// Inclusive bounds on feature releases; `None` is unbounded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub struct PyRange {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<PyVersion>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<PyVersion>,
}

impl PyRange {
    pub const fn at_least(v: PyVersion) -> Self {
        Self {
            min: Some(v),
            max: None,
        }
    }

    pub const fn at_most(v: PyVersion) -> Self {
        Self {
            min: None,
            max: Some(v),
        }
    }

    pub const fn exactly(v: PyVersion) -> Self {
        Self {
            min: Some(v),
            max: Some(v),
        }
    }

    pub fn contains(&self, v: PyVersion) -> bool {
        self.min.is_none_or(|m| v >= m) && self.max.is_none_or(|m| v <= m)
    }

    /// The versions both ranges allow (possibly none: see [`PyRange::is_empty`]).
    pub fn intersect(&self, other: &PyRange) -> PyRange {
        PyRange {
            min: self.min.max(other.min),
            max: match (self.max, other.max) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    pub fn is_empty(&self) -> bool {
        matches!((self.min, self.max), (Some(lo), Some(hi)) if lo > hi)
    }
}

impl fmt::Display for PyRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.min, self.max) {
            (None, None) => f.write_str("any"),
            (Some(lo), Some(hi)) if lo == hi => write!(f, "{lo}"),
            (Some(lo), Some(hi)) => write!(f, ">={lo},<={hi}"),
            (Some(lo), None) => write!(f, ">={lo}"),
            (None, Some(hi)) => write!(f, "<={hi}"),
        }
    }
}

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
    /// An interpreter path in a stored output (`lib/python3.6/site-packages`).
    OutputPath,
}

/// One piece of evidence about the Python version. Repeated evidence of the same kind and
/// detail is counted, with the first place it was seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionHint {
    pub reason: HintReason,
    /// What was seen: `print statement`, `f-string`, `imp`, `python2`.
    pub detail: String,
    pub range: PyRange,
    /// Weak evidence may be legitimately contradicted: the code sits in a `try:`/`if` that
    /// tolerates its failure, or a backport package provides the module on other versions.
    pub weak: bool,
    pub count: u32,
    pub at: Option<Location>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_ranges() {
        assert_eq!(PyVersion::parse("3.6.8"), Some(PyVersion::new(3, 6)));
        assert_eq!(PyVersion::parse("3.10"), Some(PyVersion::new(3, 10)));
        assert_eq!(PyVersion::parse("2.7.15+"), Some(PyVersion::new(2, 7)));
        assert_eq!(PyVersion::parse("x"), None);
        let r = PyRange::at_least(PyVersion::new(3, 6))
            .intersect(&PyRange::at_most(PyVersion::new(3, 11)));
        assert!(r.contains(PyVersion::new(3, 8)) && !r.contains(PyVersion::new(3, 12)));
        assert_eq!(r.to_string(), ">=3.6,<=3.11");
        assert!(PyRange::at_most(PyVersion::new(2, 7))
            .intersect(&PyRange::at_least(PyVersion::new(3, 6)))
            .is_empty());
        assert!(PyVersion::new(3, 10) > PyVersion::new(3, 9));
    }
}

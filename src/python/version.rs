//! Python versions: what interpreters report, and what notebook evidence speaks of.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::pypi::{Admits, RequiresPython};

/// A CPython version: a feature release (`3.7`), or one patch level of it (`3.7.3`).
///
/// Evidence keeps to feature releases, since patch levels change neither the standard
/// library, the syntax nor which wheels install; an interpreter found on this machine knows
/// its patch level. One type serves both, so that evidence and interpreters compare directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PythonVersion {
    pub major: u8,
    pub minor: u8,
    /// `None` for a feature release.
    pub micro: Option<u8>,
}

impl PythonVersion {
    /// The feature release `major.minor`.
    pub const fn new(major: u8, minor: u8) -> Self {
        Self {
            major,
            minor,
            micro: None,
        }
    }

    /// Reads `3`, `3.7`, `3.7.3` and suffixed forms such as `2.7.15+` or `3.10rc1` (the
    /// suffix is ignored; a missing minor is 0).
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().split('.');
        let major = parts.next()?.parse().ok()?;
        let leading_number = |part: &str| -> Option<u8> {
            let end = part
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(part.len());
            part[..end].parse().ok()
        };
        let minor = match parts.next() {
            Some(part) => leading_number(part)?,
            None => 0,
        };
        Some(Self {
            major,
            minor,
            micro: parts.next().and_then(leading_number),
        })
    }

    /// This version's feature release (`3.7.3` → `3.7`).
    pub const fn feature(self) -> Self {
        Self::new(self.major, self.minor)
    }

    /// Whether this interpreter meets `requires`: a feature release (`3.6`) does when one of
    /// its patch levels does (`>=3.6.1`); see [`RequiresPython::admits`].
    pub fn meets(&self, requires: &RequiresPython) -> Admits {
        let (major, minor) = (u64::from(self.major), u64::from(self.minor));
        let version = match self.micro {
            Some(micro) => pep440_rs::Version::new([major, minor, u64::from(micro)]),
            None => pep440_rs::Version::new([major, minor]),
        };
        requires.admits(&version)
    }

    /// As a PEP 440 version, for evaluating Requires-Python (a feature release as `X.Y.0`).
    pub fn as_pep440(&self) -> pep440_rs::Version {
        pep440_rs::Version::new([
            u64::from(self.major),
            u64::from(self.minor),
            u64::from(self.micro.unwrap_or(0)),
        ])
    }
}

impl fmt::Display for PythonVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.micro {
            Some(micro) => write!(f, "{}.{}.{micro}", self.major, self.minor),
            None => write!(f, "{}.{}", self.major, self.minor),
        }
    }
}

impl Serialize for PythonVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Read back as written: `3.7`, `3.7.3` (records of batch runs keep the Python they chose).
impl<'de> Deserialize<'de> for PythonVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        PythonVersion::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not a Python version")))
    }
}

/// Inclusive bounds on feature releases; `None` is unbounded. Patch levels are ignored on
/// both sides: `3.7.3` lies in `exactly(3.7)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub struct PythonRange {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<PythonVersion>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<PythonVersion>,
}

impl PythonRange {
    pub const fn at_least(v: PythonVersion) -> Self {
        Self {
            min: Some(v.feature()),
            max: None,
        }
    }

    pub const fn at_most(v: PythonVersion) -> Self {
        Self {
            min: None,
            max: Some(v.feature()),
        }
    }

    pub const fn exactly(v: PythonVersion) -> Self {
        Self {
            min: Some(v.feature()),
            max: Some(v.feature()),
        }
    }

    pub fn contains(&self, v: PythonVersion) -> bool {
        let v = v.feature();
        self.min.is_none_or(|m| v >= m.feature()) && self.max.is_none_or(|m| v <= m.feature())
    }

    /// The versions both ranges allow (possibly none: see [`PythonRange::is_empty`]).
    pub fn intersect(&self, other: &PythonRange) -> PythonRange {
        PythonRange {
            min: self.min.max(other.min),
            max: match (self.max, other.max) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    pub fn is_empty(&self) -> bool {
        matches!((self.min, self.max), (Some(lo), Some(hi)) if lo.feature() > hi.feature())
    }
}

impl fmt::Display for PythonRange {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A feature release meets a patch-level bound one of its patch levels meets; an
    /// interpreter with its patch level is judged on it; unreadable text is unknown.
    #[test]
    fn meets_requires_python() {
        let r = |t: &str| RequiresPython::parse(Some(t));
        let v = |t: &str| PythonVersion::parse(t).unwrap();
        assert_eq!(v("3.7").meets(&r(">=3.7.1")), Admits::Yes);
        assert_eq!(v("3.7.0").meets(&r(">=3.7.1")), Admits::No);
        assert_eq!(v("3.7.4").meets(&r(">=3.7.1")), Admits::Yes);
        assert_eq!(v("3.6").meets(&r(">=3.7.1")), Admits::No);
        assert_eq!(v("3.13").meets(&r(">3.13")), Admits::Yes);
        assert_eq!(v("2.7").meets(&r("~=3.x")), Admits::Unknown);
        assert_eq!(v("2.7").meets(&RequiresPython::Any), Admits::Yes);
    }

    fn v(s: &str) -> PythonVersion {
        PythonVersion::parse(s).unwrap()
    }

    #[test]
    fn parse_and_display() {
        assert_eq!(v("3.6.8").to_string(), "3.6.8");
        assert_eq!(v("3.6.8").feature(), PythonVersion::new(3, 6));
        assert_eq!(v("3.10").to_string(), "3.10");
        assert_eq!(v("2.7.15+"), v("2.7.15"));
        assert_eq!(v("3.10rc1"), PythonVersion::new(3, 10));
        assert_eq!(v("3"), PythonVersion::new(3, 0));
        assert_eq!(v(" 3.8.18\n").micro, Some(18));
        for bad in ["x", "", "3.", "3.x", "300.1"] {
            assert_eq!(PythonVersion::parse(bad), None, "{bad:?}");
        }
        assert!(PythonVersion::new(3, 10) > PythonVersion::new(3, 9));
        assert!(v("3.9.1") > PythonVersion::new(3, 9));
        assert_eq!(serde_json::to_string(&v("3.7")).unwrap(), "\"3.7\"");
        assert_eq!(v("3.7").as_pep440().to_string(), "3.7.0");
    }

    #[test]
    fn ranges_compare_feature_releases() {
        let r = PythonRange::at_least(v("3.6")).intersect(&PythonRange::at_most(v("3.11")));
        assert!(r.contains(v("3.8")) && !r.contains(v("3.12")));
        assert!(r.contains(v("3.11.9")) && r.contains(v("3.6.0")));
        assert_eq!(r.to_string(), ">=3.6,<=3.11");
        assert!(PythonRange::exactly(v("3.7.3")).contains(v("3.7.1")));
        assert_eq!(PythonRange::exactly(v("3.7.3")).to_string(), "3.7");
        assert!(PythonRange::at_most(v("2.7"))
            .intersect(&PythonRange::at_least(v("3.6")))
            .is_empty());
        assert!(!PythonRange::default().is_empty());
        assert_eq!(PythonRange::default().to_string(), "any");
    }
}

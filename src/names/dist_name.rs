use std::fmt;

use serde::{Deserialize, Serialize};

/// A distribution name in PEP 503 normal form (`Scikit_Learn` → `scikit-learn`).
///
/// Distribution names are compared normalized everywhere (index URLs, the bank, requirements),
/// so the only way to get one is through normalization.
///
/// The library names distributions with `DistName`, not `pep508_rs::PackageName`, though
/// both hold the same normal form: `DistName` is nbenv's own (serde as a plain string for
/// the bank and JSON, the wheel file-name form, no tie to one crate's version), and most
/// names come from places that are not PEP 508 (index pages, metadata headers, the bank,
/// `pip install` lines in notebooks). `PackageName` lives only inside the
/// `pep508_rs::Requirement`s the library parses; where a requirement's name is taken out,
/// it becomes a `DistName` through `From<&PackageName>`, which cannot fail.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct DistName(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a valid distribution name (letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit)")]
pub struct InvalidDistName(pub String);

impl DistName {
    /// Validates `raw` as a distribution name and normalizes it.
    pub fn new(raw: &str) -> Result<Self, InvalidDistName> {
        let bytes = raw.as_bytes();
        let valid = !bytes.is_empty()
            && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
            && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if !valid {
            return Err(InvalidDistName(raw.to_string()));
        }
        let mut out = String::with_capacity(raw.len());
        let mut in_separator = false;
        for c in raw.chars() {
            if matches!(c, '-' | '_' | '.') {
                if !in_separator {
                    out.push('-');
                }
                in_separator = true;
            } else {
                out.push(c.to_ascii_lowercase());
                in_separator = false;
            }
        }
        Ok(Self(out))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form used in wheel and sdist file names (`scikit-learn` → `scikit_learn`).
    pub fn as_filename_part(&self) -> String {
        self.0.replace('-', "_")
    }
}

impl fmt::Display for DistName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for DistName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DistName({})", self.0)
    }
}

impl std::str::FromStr for DistName {
    type Err = InvalidDistName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::new(s)
    }
}

impl TryFrom<String> for DistName {
    type Error = InvalidDistName;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::new(&s)
    }
}

impl From<DistName> for String {
    fn from(n: DistName) -> String {
        n.0
    }
}

impl From<&pep508_rs::PackageName> for DistName {
    /// A `PackageName` is already valid and in normal form (PEP 503, as here).
    fn from(name: &pep508_rs::PackageName) -> Self {
        Self(name.as_ref().to_string())
    }
}

impl AsRef<str> for DistName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_runs_of_separators_and_case() {
        assert_eq!(
            DistName::new("Scikit_Learn").unwrap().as_str(),
            "scikit-learn"
        );
        assert_eq!(
            DistName::new("zope.interface").unwrap().as_str(),
            "zope-interface"
        );
        assert_eq!(DistName::new("a-_.b").unwrap().as_str(), "a-b");
        assert_eq!(
            DistName::new("Pillow").unwrap().as_filename_part(),
            "pillow"
        );
    }

    #[test]
    fn a_pep508_name_converts_to_the_same_normal_form() {
        for raw in [
            "Scikit_Learn",
            "zope.interface",
            "a-_.b",
            "Pillow",
            "ruamel.yaml.clib",
        ] {
            let pep508 = pep508_rs::PackageName::new(raw.to_string()).unwrap();
            assert_eq!(
                DistName::from(&pep508),
                DistName::new(raw).unwrap(),
                "{raw}"
            );
        }
    }

    #[test]
    fn rejects_bad_names() {
        for bad in ["", "-a", "a-", "a b", "ä", "a/b"] {
            assert!(DistName::new(bad).is_err(), "{bad:?} should be rejected");
        }
    }
}

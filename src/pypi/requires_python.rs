//! A release's Requires-Python, as core metadata (`Requires-Python:`) or the index
//! (`requires-python`, `data-requires-python`) gives it: parsed once where it comes in, kept
//! with its text for messages.

use std::fmt;
use std::str::FromStr;

use pep440_rs::{release_specifiers_to_ranges, Version, VersionSpecifiers};
use pubgrub::Ranges;
use serde::{Deserialize, Serialize};

/// What a release says of the interpreters it supports.
///
/// Three cases, kept apart: nothing said (any interpreter), PEP 440 specifiers, and a value
/// that is not PEP 440 (old uploads have `>=2.7.*`-like typos). The last is *unknown*: it
/// neither admits every Python nor none. Installers ignore such a field, and so does nbenv
/// where it must decide (the resolver and the choice of interpreter let it through, as
/// they always have); [`Self::admits`] says `Unknown` so that no caller mistakes it for a
/// "yes".
///
/// (De)serialized as its text (`null` when absent), the form the index and the bank keep.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(from = "Option<String>", into = "Option<String>")]
pub enum RequiresPython {
    /// None given (absent, or empty): any interpreter.
    #[default]
    Any,
    Specifiers {
        /// As written, for display.
        text: String,
        specifiers: VersionSpecifiers,
    },
    /// Given, but not PEP 440: unknown.
    Unreadable(String),
}

/// Whether a Python version meets a [`RequiresPython`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admits {
    Yes,
    No,
    /// The field is unreadable: nobody can say.
    Unknown,
}

impl RequiresPython {
    /// Reads a Requires-Python value; `None` or blank text says nothing.
    pub fn parse(text: Option<&str>) -> Self {
        let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
            return Self::Any;
        };
        match VersionSpecifiers::from_str(text) {
            Ok(specifiers) => Self::Specifiers {
                text: text.to_string(),
                specifiers,
            },
            Err(_) => Self::Unreadable(text.to_string()),
        }
    }

    /// The text as given; `None` when nothing was.
    pub fn text(&self) -> Option<&str> {
        match self {
            Self::Any => None,
            Self::Specifiers { text, .. } | Self::Unreadable(text) => Some(text),
        }
    }

    /// The specifiers, when the text is PEP 440.
    pub fn specifiers(&self) -> Option<&VersionSpecifiers> {
        match self {
            Self::Specifiers { specifiers, .. } => Some(specifiers),
            _ => None,
        }
    }

    pub fn is_any(&self) -> bool {
        matches!(self, Self::Any)
    }

    /// Whether the interpreter `python` meets it, as installers compare interpreters: on the
    /// release numbers only (`>3.13` admits `3.13.1`). A version of two numbers (`3.7`)
    /// stands for a feature release, whatever its patch level: it is admitted when one of
    /// its patch levels is (`>=3.6.1` admits `3.6`).
    pub fn admits(&self, python: &Version) -> Admits {
        let specifiers = match self {
            Self::Any => return Admits::Yes,
            Self::Unreadable(_) => return Admits::Unknown,
            Self::Specifiers { specifiers, .. } => specifiers,
        };
        let range = release_specifiers_to_ranges(specifiers.clone());
        let met = if python.release().len() == 2 {
            let [major, minor] = [python.release()[0], python.release()[1]];
            let patches = Ranges::from_range_bounds(
                Version::new([major, minor])..Version::new([major, minor + 1]),
            );
            !range.is_disjoint(&patches)
        } else {
            range.contains(python)
        };
        if met {
            Admits::Yes
        } else {
            Admits::No
        }
    }
}

impl fmt::Display for RequiresPython {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text().unwrap_or("any"))
    }
}

impl From<Option<String>> for RequiresPython {
    fn from(text: Option<String>) -> Self {
        Self::parse(text.as_deref())
    }
}

impl From<RequiresPython> for Option<String> {
    fn from(r: RequiresPython) -> Self {
        r.text().map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        text.parse().unwrap()
    }

    #[test]
    fn nothing_said_is_any_and_text_is_kept() {
        assert_eq!(RequiresPython::parse(None), RequiresPython::Any);
        assert_eq!(RequiresPython::parse(Some(" ")), RequiresPython::Any);
        let r = RequiresPython::parse(Some(" >=3.6, <4 "));
        assert_eq!(r.text(), Some(">=3.6, <4"));
        assert!(r.specifiers().is_some());
        assert_eq!(r.to_string(), ">=3.6, <4");
    }

    /// An unreadable value is unknown: neither every Python nor none, and its text stays.
    #[test]
    fn an_unreadable_value_is_unknown() {
        let r = RequiresPython::parse(Some(">=3.6.*, garbage"));
        assert_eq!(r, RequiresPython::Unreadable(">=3.6.*, garbage".into()));
        assert_eq!(r.admits(&v("3.8.1")), Admits::Unknown);
        assert_eq!(r.admits(&v("2.7")), Admits::Unknown);
        assert_eq!(r.text(), Some(">=3.6.*, garbage"));
        assert_eq!(RequiresPython::Any.admits(&v("2.7.18")), Admits::Yes);
    }

    #[test]
    fn patch_levels_and_feature_releases() {
        let r = RequiresPython::parse(Some(">=3.6.1"));
        assert_eq!(r.admits(&v("3.6.0")), Admits::No);
        assert_eq!(r.admits(&v("3.6")), Admits::Yes, "3.6.1 is a 3.6");
        assert_eq!(r.admits(&v("3.5")), Admits::No);
        let r = RequiresPython::parse(Some(">3.13"));
        assert_eq!(r.admits(&v("3.13.1")), Admits::Yes);
        assert_eq!(r.admits(&v("3.13")), Admits::Yes);
        let r = RequiresPython::parse(Some(">=2.7, !=3.0.*, !=3.1.*"));
        assert_eq!(r.admits(&v("3.1")), Admits::No);
        assert_eq!(r.admits(&v("3.1.4")), Admits::No);
        assert_eq!(r.admits(&v("3.2.0")), Admits::Yes);
    }

    #[test]
    fn serializes_as_its_text() {
        let r = RequiresPython::parse(Some(">=3.7"));
        assert_eq!(serde_json::to_string(&r).unwrap(), "\">=3.7\"");
        assert_eq!(serde_json::to_string(&RequiresPython::Any).unwrap(), "null");
        let back: RequiresPython = serde_json::from_str("\"~=3.x\"").unwrap();
        assert_eq!(back, RequiresPython::Unreadable("~=3.x".into()));
    }
}

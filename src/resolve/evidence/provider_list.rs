//! `apibank/providers.txt`: the maintained word on import names several distributions
//! provide. Which to prefer when API evidence cannot tell them apart, which never to pick
//! (placeholders, stubs that only fail to install, lookalikes), and which import names no
//! PyPI distribution provides (conda-only, system packages). Every entry says why, so that
//! the choice can be explained with the list's own words.

use std::str::FromStr;
use std::sync::OnceLock;

use serde::Serialize;

use crate::names::{DistName, ModulePath};

/// Preferred providers of one import name, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preference {
    pub import: ModulePath,
    pub order: Vec<DistName>,
    pub note: String,
    pub line: usize,
}

/// Why a distribution is never chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AvoidKind {
    /// No code of its own: empty, or only a dependency on the real project.
    Placeholder,
    /// Exists only to fail on install and say which project to use.
    Stub,
    /// Installs the same import name with another project's code.
    Lookalike,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Avoided {
    pub dist: DistName,
    pub kind: AvoidKind,
    pub note: String,
    pub line: usize,
}

/// Where an import name comes from when not from PyPI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    Conda,
    /// The operating system's packages (`apt-get`), or software that bundles its Python.
    System,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    pub import: ModulePath,
    pub channel: Channel,
    /// The package to install there, when the list names it.
    pub package: Option<String>,
    pub note: String,
    pub line: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderList {
    pub prefer: Vec<Preference>,
    pub avoid: Vec<Avoided>,
    pub unavailable: Vec<Unavailable>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct ProviderListError {
    pub path: String,
    pub line: usize,
    pub message: String,
}

/// The list built into nbenv.
pub const BUILT_IN: &str = include_str!("../../../apibank/providers.txt");

impl ProviderList {
    /// The built-in list, parsed once (a test checks that it parses).
    pub fn built_in() -> &'static ProviderList {
        static LIST: OnceLock<ProviderList> = OnceLock::new();
        LIST.get_or_init(|| Self::parse(BUILT_IN, "apibank/providers.txt").unwrap_or_default())
    }

    /// Parses a list; `path` only names the file in errors.
    pub fn parse(text: &str, path: &str) -> Result<Self, ProviderListError> {
        let mut list = ProviderList::default();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |message: String| ProviderListError {
                path: path.to_string(),
                line,
                message,
            };
            let raw = raw.trim();
            if raw.is_empty() || raw.starts_with('#') {
                continue;
            }
            let (entry, note) = match raw.split_once('#') {
                Some((entry, note)) if !note.trim().is_empty() => (entry, note.trim()),
                _ => return Err(err("every entry says why: end it with `# reason`".into())),
            };
            let words: Vec<&str> = entry.split_whitespace().collect();
            let dist = |w: &str| DistName::from_str(w).map_err(|e| err(e.to_string()));
            let import = |w: &str| ModulePath::new(w).map_err(|e| err(e.to_string()));
            match words.as_slice() {
                ["prefer", name, dists @ ..] if !dists.is_empty() => {
                    let import = import(name)?;
                    if list.prefer.iter().any(|p| p.import == import) {
                        return Err(err(format!("`{import}` has a `prefer` line already")));
                    }
                    list.prefer.push(Preference {
                        import,
                        order: dists.iter().map(|d| dist(d)).collect::<Result<_, _>>()?,
                        note: note.to_string(),
                        line,
                    });
                }
                ["avoid", name, kind] => list.avoid.push(Avoided {
                    dist: dist(name)?,
                    kind: match *kind {
                        "placeholder" => AvoidKind::Placeholder,
                        "stub" => AvoidKind::Stub,
                        "lookalike" => AvoidKind::Lookalike,
                        other => {
                            return Err(err(format!(
                                "`{other}` is not placeholder, stub or lookalike"
                            )))
                        }
                    },
                    note: note.to_string(),
                    line,
                }),
                ["unavailable", name, channel, package @ ..] if package.len() <= 1 => {
                    list.unavailable.push(Unavailable {
                        import: import(name)?,
                        channel: match *channel {
                            "conda" => Channel::Conda,
                            "system" => Channel::System,
                            other => return Err(err(format!("`{other}` is not conda or system"))),
                        },
                        package: package.first().map(|p| p.to_string()),
                        note: note.to_string(),
                        line,
                    })
                }
                _ => {
                    return Err(err(format!(
                        "expected `prefer IMPORT DIST...`, `avoid DIST KIND` or `unavailable IMPORT CHANNEL [PACKAGE]`, got `{}`",
                        entry.trim()
                    )))
                }
            }
        }
        for p in &list.prefer {
            if let Some(a) = list.avoid.iter().find(|a| p.order.contains(&a.dist)) {
                return Err(ProviderListError {
                    path: path.to_string(),
                    line: p.line,
                    message: format!("prefers `{}`, avoided on line {}", a.dist, a.line),
                });
            }
        }
        Ok(list)
    }

    /// The `prefer` line for exactly this import name.
    pub fn preference(&self, import: &ModulePath) -> Option<&Preference> {
        self.prefer.iter().find(|p| &p.import == import)
    }

    pub fn avoided(&self, dist: &DistName) -> Option<&Avoided> {
        self.avoid.iter().find(|a| &a.dist == dist)
    }

    pub fn unavailable(&self, import: &str) -> Option<&Unavailable> {
        self.unavailable
            .iter()
            .find(|u| u.import.as_str() == import)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_list_parses_and_covers_the_usual_clashes() {
        let list = ProviderList::parse(BUILT_IN, "apibank/providers.txt").unwrap();
        let first = |import: &str| {
            list.preference(&ModulePath::new(import).unwrap())
                .unwrap_or_else(|| panic!("no preference for {import}"))
                .order[0]
                .to_string()
        };
        assert_eq!(first("cv2"), "opencv-python");
        assert_eq!(first("PIL"), "pillow");
        assert_eq!(first("bs4"), "beautifulsoup4");
        assert_eq!(first("sklearn"), "scikit-learn");
        assert_eq!(first("google.protobuf"), "protobuf");
        let sklearn = list.avoided(&DistName::new("sklearn").unwrap()).unwrap();
        assert_eq!(sklearn.kind, AvoidKind::Stub);
        assert_eq!(
            list.unavailable("graph_tool").unwrap().channel,
            Channel::Conda
        );
    }

    #[test]
    fn errors_name_the_line() {
        let err = ProviderList::parse("# ok\nprefer cv2 opencv-python\n", "p.txt").unwrap_err();
        assert_eq!(
            err.to_string(),
            "p.txt:2: every entry says why: end it with `# reason`"
        );
        let err = ProviderList::parse("avoid x odd # why\n", "p.txt").unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.message.contains("`odd`"), "{err}");
        let err =
            ProviderList::parse("prefer a b # one\navoid b stub # two\n", "p.txt").unwrap_err();
        assert_eq!(err.to_string(), "p.txt:1: prefers `b`, avoided on line 2");
        let err = ProviderList::parse("prefer a b # one\nprefer a c # two\n", "p.txt").unwrap_err();
        assert_eq!(err.line, 2);
    }
}

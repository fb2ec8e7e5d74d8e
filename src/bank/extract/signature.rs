//! Function parameters, kept in a compact textual form so that signature changes between releases
//! can be found by comparing two strings.

use std::fmt;
use std::str::FromStr;

use ruff_python_ast::Parameters;
use serde::{Deserialize, Serialize};

/// How a parameter can be passed, in the order Python requires them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ParamKind {
    /// Before `/`.
    PositionalOnly,
    /// Positional or keyword.
    Positional,
    /// `*args`.
    VarPositional,
    /// After `*` or `*args`.
    KeywordOnly,
    /// `**kwargs`.
    VarKeyword,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    /// Whether the parameter has a default value (its value is not recorded).
    pub has_default: bool,
}

/// A parameter list, written and parsed as `(a, b=..., /, c, *args, d, e=..., **kwargs)`.
///
/// The text form is what is serialized: it is short, readable in query output, and two
/// signatures are equal exactly when their texts are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Signature {
    pub params: Vec<Param>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a signature: {reason}")]
pub struct InvalidSignature {
    pub text: String,
    pub reason: &'static str,
}

impl Signature {
    pub fn from_ast(parameters: &Parameters) -> Self {
        let mut params = Vec::with_capacity(
            parameters.posonlyargs.len() + parameters.args.len() + parameters.kwonlyargs.len() + 2,
        );
        let mut push = |name: &str, kind, has_default| {
            params.push(Param {
                name: name.to_string(),
                kind,
                has_default,
            })
        };
        for p in &parameters.posonlyargs {
            push(
                p.name().as_str(),
                ParamKind::PositionalOnly,
                p.default.is_some(),
            );
        }
        for p in &parameters.args {
            push(
                p.name().as_str(),
                ParamKind::Positional,
                p.default.is_some(),
            );
        }
        if let Some(p) = &parameters.vararg {
            push(p.name.as_str(), ParamKind::VarPositional, false);
        }
        for p in &parameters.kwonlyargs {
            push(
                p.name().as_str(),
                ParamKind::KeywordOnly,
                p.default.is_some(),
            );
        }
        if let Some(p) = &parameters.kwarg {
            push(p.name.as_str(), ParamKind::VarKeyword, false);
        }
        Self { params }
    }

    /// The signature as seen through an instance or the class: the first positional parameter
    /// (`self`, `cls`) dropped. Used for a class's constructor, taken from `__init__`.
    pub fn without_first(&self) -> Self {
        let mut params = self.params.clone();
        if params
            .first()
            .is_some_and(|p| matches!(p.kind, ParamKind::PositionalOnly | ParamKind::Positional))
        {
            params.remove(0);
        }
        Self { params }
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.params.iter().map(|p| p.name.as_str())
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        let mut first = true;
        let mut sep = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
            if !std::mem::take(&mut first) {
                f.write_str(", ")?;
            }
            Ok(())
        };
        let mut star_written = false;
        for (i, p) in self.params.iter().enumerate() {
            match p.kind {
                ParamKind::PositionalOnly | ParamKind::Positional => {
                    sep(f)?;
                    f.write_str(&p.name)?;
                }
                ParamKind::VarPositional => {
                    sep(f)?;
                    write!(f, "*{}", p.name)?;
                    star_written = true;
                }
                ParamKind::KeywordOnly => {
                    if !star_written {
                        sep(f)?;
                        f.write_str("*")?;
                        star_written = true;
                    }
                    sep(f)?;
                    f.write_str(&p.name)?;
                }
                ParamKind::VarKeyword => {
                    sep(f)?;
                    write!(f, "**{}", p.name)?;
                }
            }
            if p.has_default {
                f.write_str("=...")?;
            }
            let next_is_posonly = self
                .params
                .get(i + 1)
                .is_some_and(|n| n.kind == ParamKind::PositionalOnly);
            if p.kind == ParamKind::PositionalOnly && !next_is_posonly {
                sep(f)?;
                f.write_str("/")?;
            }
        }
        f.write_str(")")
    }
}

impl FromStr for Signature {
    type Err = InvalidSignature;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = |reason| InvalidSignature {
            text: text.to_string(),
            reason,
        };
        let inner = text
            .strip_prefix('(')
            .and_then(|t| t.strip_suffix(')'))
            .ok_or_else(|| bad("not in parentheses"))?;
        let mut params: Vec<Param> = Vec::new();
        if inner.trim().is_empty() {
            return Ok(Self { params });
        }
        let mut after_star = false;
        for item in inner.split(',').map(str::trim) {
            if item == "/" {
                for p in params.iter_mut() {
                    if p.kind == ParamKind::Positional {
                        p.kind = ParamKind::PositionalOnly;
                    }
                }
                continue;
            }
            if item == "*" {
                after_star = true;
                continue;
            }
            let (item, has_default) = match item.strip_suffix("=...") {
                Some(name) => (name, true),
                None => (item, false),
            };
            let (name, kind) = if let Some(name) = item.strip_prefix("**") {
                (name, ParamKind::VarKeyword)
            } else if let Some(name) = item.strip_prefix('*') {
                after_star = true;
                (name, ParamKind::VarPositional)
            } else if after_star {
                (item, ParamKind::KeywordOnly)
            } else {
                (item, ParamKind::Positional)
            };
            if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c == '=') {
                return Err(bad("a parameter name is empty or malformed"));
            }
            params.push(Param {
                name: name.to_string(),
                kind,
                has_default,
            });
        }
        Ok(Self { params })
    }
}

impl Serialize for Signature {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Signature {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig_of(src: &str) -> Signature {
        let parsed = ruff_python_parser::parse_module(src).unwrap();
        match &parsed.syntax().body[0] {
            ruff_python_ast::Stmt::FunctionDef(f) => Signature::from_ast(&f.parameters),
            _ => unreachable!("test source starts with a def"),
        }
    }

    #[test]
    fn every_kind_round_trips() {
        let cases = [
            ("def f(): pass", "()"),
            ("def f(a, b=1): pass", "(a, b=...)"),
            ("def f(a, /, b): pass", "(a, /, b)"),
            ("def f(a, b=2, /): pass", "(a, b=..., /)"),
            ("def f(*args, **kw): pass", "(*args, **kw)"),
            ("def f(a, *, k, j=3): pass", "(a, *, k, j=...)"),
            (
                "def f(a, /, b, *c, d=1, **e): pass",
                "(a, /, b, *c, d=..., **e)",
            ),
        ];
        for (src, text) in cases {
            let sig = sig_of(src);
            assert_eq!(sig.to_string(), text, "{src}");
            assert_eq!(text.parse::<Signature>().unwrap(), sig, "{text}");
        }
    }

    #[test]
    fn without_first_drops_self() {
        assert_eq!(
            sig_of("def __init__(self, data=None): pass")
                .without_first()
                .to_string(),
            "(data=...)"
        );
        assert_eq!(
            sig_of("def f(*a): pass").without_first().to_string(),
            "(*a)"
        );
    }

    #[test]
    fn rejects_garbage() {
        assert!("a, b".parse::<Signature>().is_err());
        assert!("(a b)".parse::<Signature>().is_err());
    }
}

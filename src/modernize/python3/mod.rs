//! Python 2 to 3: the syntax and the standard-library moves that have one meaning in Python 3,
//! rewritten before the notebook's APIs are moved. A notebook is taken for Python 2 on the
//! evidence `usage` reads (its syntax, its Python 2 builtins, a kernel of Python 2); others
//! are not touched. Each cell is rewritten in two passes: the syntax from its tokens
//! ([`syntax`]), then, once it parses as Python 3, its names on the syntax tree ([`names`]).
//! A cell that still does not parse is left as written, and said so; what may change meaning
//! without a provable rewrite (`/` on integers, `map` kept as a value) is named, not changed.

mod names;
mod rule;
mod syntax;

use std::collections::BTreeMap;

use ruff_python_ast::Mod;
use ruff_python_parser::{Mode, ParseOptions};
use ruff_text_size::TextSize;
use serde::Serialize;

pub use rule::{Caution, Rule};

use crate::notebook::Location;

/// One edit of a cell's source: the bytes `start..end` become `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    start: TextSize,
    end: TextSize,
    text: String,
    rule: Rule,
}

impl Edit {
    fn replace(start: TextSize, end: TextSize, text: &str, rule: Rule) -> Self {
        Self {
            start,
            end,
            text: text.to_string(),
            rule,
        }
    }

    fn insert(at: TextSize, text: &str, rule: Rule) -> Self {
        Self::replace(at, at, text, rule)
    }
}

/// A rewrite written into a cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Converted {
    pub rule: Rule,
    pub at: Location,
}

/// A line left as written that a reader should check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Checked {
    pub caution: Caution,
    pub at: Location,
    /// The code in question, or the first syntax error of a cell not converted.
    pub what: String,
}

/// The notebook's code cells in Python 3, and what was done.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Python3 {
    /// The rewritten cells' sources, by cell number (only cells that changed).
    #[serde(skip)]
    pub cells: BTreeMap<u32, String>,
    pub converted: Vec<Converted>,
    pub check: Vec<Checked>,
}

impl Python3 {
    pub fn is_empty(&self) -> bool {
        self.converted.is_empty() && self.check.is_empty()
    }
}

fn options() -> ParseOptions {
    ParseOptions::from(Mode::Ipython)
}

/// `cells` (number, source) rewritten from Python 2 to Python 3.
pub fn convert(cells: &[(u32, &str)]) -> Python3 {
    let mut out = Python3::default();
    // `from __future__ import print_function`: print is already the function.
    let print_function = cells.iter().any(|(_, source)| {
        source.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("from __future__ import") && l.contains("print_function")
        })
    });
    // The syntax first: names are read on trees that parse.
    let mut after_syntax = Vec::new();
    for &(number, source) in cells {
        let Ok(parsed) = crate::parse::unchecked(source, options()) else {
            continue;
        };
        let (edits, tuples) = syntax::edits(source, parsed.tokens());
        let tuples = if print_function { Vec::new() } else { tuples };
        out.check.extend(tuples.into_iter().map(|offset| {
            Checked {
                caution: Caution::PrintTuple,
                at: location(number, source, offset),
                what: source[offset.to_usize()..]
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_string(),
            }
        }));
        let had_errors = !parsed.errors().is_empty();
        let (new, kept) = apply(source, edits);
        let converted = converted_at(number, source, &kept);
        match crate::parse::unchecked(&new, options()) {
            Ok(p) if p.errors().is_empty() => {
                after_syntax.push((number, source, new, p, converted))
            }
            Ok(p) if had_errors => {
                let first = p
                    .errors()
                    .first()
                    .map(|e| (e.location.start(), e.error.to_string()));
                if let Some((offset, error)) = first {
                    out.check.push(Checked {
                        caution: Caution::NotConverted,
                        at: location(number, &new, offset),
                        what: error,
                    });
                }
            }
            _ => {}
        }
    }
    let mut bound = names::Bound::default();
    for (_, _, _, parsed, _) in &after_syntax {
        if let Mod::Module(m) = parsed.syntax() {
            names::Bound::read(&m.body, &mut bound);
        }
    }
    for (number, original, source, parsed, mut converted) in after_syntax {
        let mut new = source.clone();
        if let Mod::Module(m) = parsed.syntax() {
            let (edits, noted) = names::edits(&source, &m.body, &bound);
            let (renamed, kept) = apply(&source, edits);
            if crate::parse::unchecked(&renamed, options()).is_ok_and(|p| p.errors().is_empty()) {
                converted.extend(converted_at(number, &source, &kept));
                new = renamed;
            }
            out.check.extend(noted.into_iter().map(|n| Checked {
                caution: n.caution,
                at: location(number, &source, n.offset),
                what: n.what,
            }));
        }
        if new != original {
            out.cells.insert(number, new);
        }
        out.converted.extend(converted);
    }
    out.converted
        .sort_by_key(|c| (c.at.cell, c.at.line, c.rule));
    out.converted.dedup();
    out.check.sort_by_key(|c| (c.at.cell, c.at.line));
    out
}

fn converted_at(cell: u32, source: &str, edits: &[Edit]) -> Vec<Converted> {
    edits
        .iter()
        .map(|e| Converted {
            rule: e.rule,
            at: location(cell, source, e.start),
        })
        .collect()
}

fn location(cell: u32, source: &str, offset: TextSize) -> Location {
    let end = offset.to_usize().min(source.len());
    let line = source.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count() as u32
        + 1;
    Location::new(cell, line)
}

/// `source` with `edits` made, and the edits made: one overlapping an edit before it is
/// dropped (a rewrite inside a rewritten expression).
fn apply(source: &str, mut edits: Vec<Edit>) -> (String, Vec<Edit>) {
    edits.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(source.len() + 16 * edits.len());
    let mut kept = Vec::with_capacity(edits.len());
    let mut done = 0usize;
    for e in edits {
        let (start, end) = (e.start.to_usize(), e.end.to_usize());
        if start < done {
            continue;
        }
        out.push_str(&source[done..start]);
        out.push_str(&e.text);
        done = end;
        kept.push(e);
    }
    out.push_str(&source[done..]);
    (out, kept)
}

#[cfg(test)]
mod tests;

//! Which names each cell binds at module level, for the def-use diagnosis of a NameError:
//! `np` used in cell 2 and imported in cell 5 is a notebook run out of order, not a missing
//! package. Function and class bodies bind nothing at module level and are not entered.

use std::collections::HashMap;

use ruff_python_ast::{ExceptHandler, Expr, Mod, Stmt};
use ruff_text_size::{Ranged, TextSize};

use crate::notebook::cell::{self, CellCode};
use crate::notebook::format::{CellKind, Notebook};
use crate::notebook::location::Location;
use crate::notebook::tracing::parse_options;

/// Module-level bindings of a notebook, in notebook order.
#[derive(Debug, Default, Clone)]
pub struct Bindings {
    names: HashMap<String, Vec<Location>>,
    /// Where `from m import *`, `%run` or `%pylab` may bind names nobody can list.
    stars: Vec<Location>,
    /// Names of classes and functions the notebook defines.
    defined: HashMap<String, DefKind>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DefKind {
    Class,
    Function,
}

impl Bindings {
    /// Reads every code cell of `nb`.
    pub fn of(nb: &Notebook) -> Self {
        let mut b = Bindings::default();
        for c in &nb.cells {
            if c.kind != CellKind::Code || c.source.trim().is_empty() {
                continue;
            }
            match cell::split(&c.source) {
                CellCode::Python {
                    source,
                    line_offset,
                } => b.python(c.number, &source, line_offset),
                CellCode::CellMagic {
                    name, args, line, ..
                } => {
                    if name == "capture" {
                        if let Some(var) = args.split_whitespace().find(|a| !a.starts_with('-')) {
                            b.bind(var, Location::new(c.number, line));
                        }
                    }
                }
            }
        }
        b
    }

    /// Where `name` is bound, in notebook order.
    pub fn of_name(&self, name: &str) -> &[Location] {
        self.names.get(name).map_or(&[], Vec::as_slice)
    }

    /// Places that may bind any name (star imports, `%run`, `%pylab`).
    pub fn stars(&self) -> &[Location] {
        &self.stars
    }

    pub(crate) fn def_kind(&self, name: &str) -> Option<DefKind> {
        self.defined.get(name).copied()
    }

    fn bind(&mut self, name: &str, at: Location) {
        let list = self.names.entry(name.to_string()).or_default();
        if !list.contains(&at) {
            list.push(at);
        }
    }

    fn python(&mut self, cell: u32, source: &str, line_offset: u32) {
        // Past CPython's nesting limit the cell never ran; parsing it would take gigabytes.
        if crate::notebook::nesting::too_deep(source).is_some() {
            return;
        }
        let Ok(parsed) = crate::parse::unchecked(source, parse_options()) else {
            return;
        };
        let starts: Vec<u32> = std::iter::once(0)
            .chain(
                source
                    .bytes()
                    .enumerate()
                    .filter(|(_, b)| *b == b'\n')
                    .map(|(i, _)| i as u32 + 1),
            )
            .collect();
        let mut walker = Walker {
            b: self,
            cell,
            line_offset,
            starts: &starts,
        };
        if let Mod::Module(module) = parsed.syntax() {
            walker.body(&module.body);
        }
    }
}

struct Walker<'a> {
    b: &'a mut Bindings,
    cell: u32,
    line_offset: u32,
    starts: &'a [u32],
}

impl Walker<'_> {
    fn at(&self, offset: TextSize) -> Location {
        let line = self.starts.partition_point(|&s| s <= offset.to_u32()) as u32;
        Location::new(self.cell, line + self.line_offset)
    }

    fn body(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn target(&mut self, e: &Expr, at: Location) {
        match e {
            Expr::Name(n) => self.b.bind(n.id.as_str(), at),
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.target(e, at)),
            Expr::List(l) => l.elts.iter().for_each(|e| self.target(e, at)),
            Expr::Starred(s) => self.target(&s.value, at),
            _ => {}
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        let at = self.at(s.start());
        match s {
            Stmt::FunctionDef(f) => {
                self.b.bind(f.name.as_str(), at);
                self.b.defined.insert(f.name.to_string(), DefKind::Function);
            }
            Stmt::ClassDef(c) => {
                self.b.bind(c.name.as_str(), at);
                self.b.defined.insert(c.name.to_string(), DefKind::Class);
            }
            Stmt::Assign(a) => a.targets.iter().for_each(|t| self.target(t, at)),
            Stmt::AugAssign(a) => self.target(&a.target, at),
            Stmt::AnnAssign(a) if a.value.is_some() => self.target(&a.target, at),
            Stmt::For(f) => {
                self.target(&f.target, at);
                self.body(&f.body);
                self.body(&f.orelse);
            }
            Stmt::While(w) => {
                self.body(&w.body);
                self.body(&w.orelse);
            }
            Stmt::If(i) => {
                self.body(&i.body);
                for clause in &i.elif_else_clauses {
                    self.body(&clause.body);
                }
            }
            Stmt::With(w) => {
                for item in &w.items {
                    if let Some(vars) = &item.optional_vars {
                        self.target(vars, at);
                    }
                }
                self.body(&w.body);
            }
            Stmt::Try(t) => {
                self.body(&t.body);
                for handler in &t.handlers {
                    let ExceptHandler::ExceptHandler(h) = handler;
                    if let Some(name) = &h.name {
                        self.b.bind(name.as_str(), at);
                    }
                    self.body(&h.body);
                }
                self.body(&t.orelse);
                self.body(&t.finalbody);
            }
            Stmt::Match(m) => {
                for case in &m.cases {
                    self.body(&case.body);
                }
            }
            Stmt::Import(i) => {
                for alias in &i.names {
                    match &alias.asname {
                        Some(a) => self.b.bind(a.as_str(), at),
                        None => {
                            let full = alias.name.as_str();
                            self.b.bind(full.split('.').next().unwrap_or(full), at);
                        }
                    }
                }
            }
            Stmt::ImportFrom(i) => {
                for alias in &i.names {
                    if alias.name.as_str() == "*" {
                        self.b.stars.push(at);
                    } else {
                        let bound = alias.asname.as_ref().unwrap_or(&alias.name);
                        self.b.bind(bound.as_str(), at);
                    }
                }
            }
            Stmt::IpyEscapeCommand(c) => {
                let value = c.value.trim_start_matches('%');
                let name = value.split_whitespace().next().unwrap_or("");
                if c.kind.is_magic() && matches!(name, "pylab" | "run") {
                    if name == "pylab" {
                        self.b.bind("np", at);
                        self.b.bind("plt", at);
                    }
                    self.b.stars.push(at);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_level_bindings_per_cell() {
        let nb = crate::notebook::from_bytes(
            std::path::Path::new("x.py"),
            b"# %%\nx = np.zeros(3)\n# %%\nfor i, (a, b) in enumerate([]):\n    pass\ndef f():\n    inner = 1\n# %%\nimport numpy as np\nfrom os import path as p, *\nimport a.b\n%pylab inline\n",
        )
        .unwrap();
        let b = Bindings::of(&nb);
        assert_eq!(b.of_name("np"), [Location::new(3, 1), Location::new(3, 4)]);
        assert_eq!(b.of_name("a"), [Location::new(2, 1), Location::new(3, 3)]);
        assert_eq!(b.of_name("p"), [Location::new(3, 2)]);
        assert_eq!(b.of_name("x"), [Location::new(1, 1)]);
        assert!(b.of_name("inner").is_empty());
        assert_eq!(b.def_kind("f"), Some(DefKind::Function));
        assert_eq!(b.stars().len(), 2);
    }
}

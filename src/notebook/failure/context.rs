//! What the classifier knows about the notebook besides the exception: its usage evidence,
//! which cell binds which name, its stored execution counts and the interpreter that ran it.

use std::collections::HashMap;

use super::bindings::Bindings;
use crate::names::ApiPath;
use crate::notebook::format::{CellKind, Notebook};
use crate::notebook::stdlib::{self, VersionSet};
use crate::notebook::usage::{ApiUse, Origin, Usage};
use crate::python::PythonVersion;

/// The notebook around a failure.
#[derive(Debug, Clone)]
pub struct FailureContext<'a> {
    pub(crate) usage: &'a Usage,
    pub(crate) bindings: Bindings,
    /// The interpreter that raised it, when known (a live run); stored errors leave it open.
    pub(crate) python: Option<PythonVersion>,
    counts: HashMap<u32, u32>,
    sources: HashMap<u32, &'a str>,
}

/// Where a top-level module name comes from, as the classifier needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ModuleKind {
    Local,
    /// In the standard library of the interpreter (or, when that is unknown, of a known
    /// Python), with no backport on PyPI.
    Stdlib,
    ThirdParty,
}

impl<'a> FailureContext<'a> {
    pub fn new(nb: &'a Notebook, usage: &'a Usage) -> Self {
        let mut counts = HashMap::new();
        let mut sources = HashMap::new();
        for c in &nb.cells {
            if c.kind == CellKind::Code {
                if let Some(n) = c.execution_count {
                    counts.entry(n).or_insert(c.number);
                }
                sources.insert(c.number, c.source.as_str());
            }
        }
        Self {
            usage,
            bindings: Bindings::of(nb),
            python: None,
            counts,
            sources,
        }
    }

    /// The interpreter the failure happened on.
    pub fn with_python(mut self, python: PythonVersion) -> Self {
        self.python = Some(python.feature());
        self
    }

    pub fn python(&self) -> Option<PythonVersion> {
        self.python
    }

    /// The cell whose stored execution count is `count`.
    pub fn cell_of_count(&self, count: u32) -> Option<u32> {
        self.counts.get(&count).copied()
    }

    pub(crate) fn source(&self, cell: u32) -> Option<&'a str> {
        self.sources.get(&cell).copied()
    }

    fn stdlib_versions(&self) -> VersionSet {
        match self.python {
            Some(v) => VersionSet::of(&[v]),
            None => VersionSet::ALL,
        }
    }

    pub(crate) fn module_kind(&self, top: &str) -> ModuleKind {
        let u = self.usage;
        if u.local_modules.iter().any(|m| m.name == top)
            || u.imports
                .iter()
                .any(|i| i.origin == Origin::Local && i.module.top_level() == top)
        {
            ModuleKind::Local
        } else if stdlib::is_stdlib(top, self.stdlib_versions()) && !stdlib::has_backport(top) {
            ModuleKind::Stdlib
        } else {
            ModuleKind::ThirdParty
        }
    }

    /// The known Pythons whose standard library has `top`, when this one's does not (or,
    /// with the interpreter unknown, when some Pythons lack it).
    pub(crate) fn stdlib_elsewhere(&self, top: &str) -> Option<Vec<PythonVersion>> {
        let having = stdlib::versions_having(top)?;
        let missing_here = match self.python {
            Some(v) => !having.intersects(VersionSet::of(&[v])),
            None => having != VersionSet::ALL,
        };
        (missing_here && !stdlib::has_backport(top)).then(|| having.iter().collect())
    }

    /// Third-party APIs used in `cell` (at `line` first, when given) that satisfy `pred`.
    pub(crate) fn api_in(
        &self,
        cell: Option<u32>,
        line: Option<u32>,
        pred: impl Fn(&ApiUse) -> bool,
    ) -> Option<&'a ApiPath> {
        let candidates: Vec<&ApiUse> = self.usage.third_party_apis().filter(|a| pred(a)).collect();
        let at_line = candidates.iter().find(|a| {
            a.locations
                .iter()
                .any(|l| Some(l.cell) == cell && line.is_none_or(|n| l.line == n))
        });
        let in_cell = || {
            candidates
                .iter()
                .find(|a| a.locations.iter().any(|l| Some(l.cell) == cell))
        };
        at_line
            .or_else(in_cell)
            .or_else(|| candidates.first())
            .map(|a| &a.api)
    }
}

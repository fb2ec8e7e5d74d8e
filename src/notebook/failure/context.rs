//! What the classifier knows about the notebook besides the exception: its usage evidence,
//! which cell binds which name, its stored execution counts, the interpreter that ran it, and,
//! when one is at hand, the bank and the releases installed.

use std::collections::HashMap;
use std::fmt;

use pep440_rs::Version;

use super::bindings::Bindings;
use super::history::{ApiHistory, BankSays};
use crate::names::{ApiPath, DistName, ModulePath};
use crate::notebook::external::FileAccess;
use crate::notebook::format::{CellKind, Notebook, Output};
use crate::notebook::stdlib::{self, VersionSet};
use crate::notebook::usage::{ApiUse, ImportVia, Origin, Usage};
use crate::python::PythonVersion;

/// The notebook around a failure.
#[derive(Clone)]
pub struct FailureContext<'a> {
    pub(crate) usage: &'a Usage,
    pub(crate) bindings: Bindings,
    /// The interpreter that raised it, when known (a live run); stored errors leave it open.
    pub(crate) python: Option<PythonVersion>,
    counts: HashMap<u32, u32>,
    sources: HashMap<u32, &'a str>,
    /// Code cells whose stored record shows they ran for the notebook's author (an execution
    /// count or outputs, and no stored error), with the start of what they showed.
    worked: HashMap<u32, Option<String>>,
    /// The bank, when one is at hand: without it, whether another release would help is
    /// unknown.
    bank: Option<&'a dyn ApiHistory>,
    /// The releases installed where the failure happened (a live run's pins).
    installed: Vec<(DistName, Version)>,
    /// The notebook's folder, where the relative paths it reads start.
    dir: std::path::PathBuf,
    /// Top-level modules the notebook imports that no distribution provides, as the
    /// resolution of the run found them (the bank, the provider lists and the index asked).
    unprovided: Vec<String>,
}

impl fmt::Debug for FailureContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FailureContext")
            .field("python", &self.python)
            .field("bank", &self.bank.is_some())
            .field("installed", &self.installed)
            .finish_non_exhaustive()
    }
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
        let mut worked = HashMap::new();
        for c in &nb.cells {
            if c.kind == CellKind::Code {
                if let Some(n) = c.execution_count {
                    counts.entry(n).or_insert(c.number);
                }
                sources.insert(c.number, c.source.as_str());
                let errored = c.outputs.iter().any(|o| matches!(o, Output::Error { .. }));
                if !errored && (c.execution_count.is_some() || !c.outputs.is_empty()) {
                    worked.insert(c.number, excerpt(&c.outputs));
                }
            }
        }
        Self {
            usage,
            bindings: Bindings::of(nb),
            python: None,
            counts,
            sources,
            worked,
            bank: None,
            installed: Vec::new(),
            unprovided: Vec::new(),
            dir: crate::notebook::analyze::notebook_dir(&nb.path).to_path_buf(),
        }
    }

    /// A file `cell` reads that is a Git LFS pointer (the repository was cloned without
    /// `git lfs`): the path as the cell writes it.
    pub(crate) fn lfs_pointer(&self, cell: Option<u32>) -> Option<&str> {
        let cell = cell?;
        self.usage
            .files
            .iter()
            .filter(|f| f.at.cell == cell && f.access == FileAccess::Read)
            .map(|f| f.path.as_str())
            .find(|path| is_lfs_pointer(&self.dir.join(path)))
    }

    /// The modules the notebook imports that the run's resolution found no distribution for.
    pub fn with_unprovided(mut self, modules: Vec<String>) -> Self {
        self.unprovided = modules;
        self
    }

    /// Whether the resolution found no distribution providing the top-level module `top`,
    /// which the notebook itself imports (not an import a run taught it).
    pub(crate) fn unprovided(&self, top: &str) -> bool {
        self.unprovided.iter().any(|m| m == top)
            && self
                .usage
                .imports
                .iter()
                .any(|i| i.module.top_level() == top && i.via != ImportVia::Run)
    }

    /// The interpreter the failure happened on.
    pub fn with_python(mut self, python: PythonVersion) -> Self {
        self.python = Some(python.feature());
        self
    }

    /// The bank, asked whether another release of a library would not fail the same way.
    pub fn with_bank(mut self, bank: &'a dyn ApiHistory) -> Self {
        self.bank = Some(bank);
        self
    }

    /// The releases installed where the failure happened.
    pub fn with_installed(mut self, installed: Vec<(DistName, Version)>) -> Self {
        self.installed = installed;
        self
    }

    pub(crate) fn api_history(&self, api: &ApiPath) -> BankSays {
        self.bank.map_or(BankSays::Unknown, |b| b.api(api))
    }

    pub(crate) fn member_history(
        &self,
        module: &ModulePath,
        class: &str,
        member: &str,
    ) -> BankSays {
        self.bank
            .map_or(BankSays::Unknown, |b| b.member(module, class, member))
    }

    pub(crate) fn member_path(
        &self,
        module: &ModulePath,
        class: &str,
        member: &str,
    ) -> Option<ApiPath> {
        self.bank.and_then(|b| b.member_path(module, class, member))
    }

    pub(crate) fn keyword_history(&self, api: &ApiPath, keyword: &str) -> BankSays {
        self.bank
            .map_or(BankSays::Unknown, |b| b.keyword(api, keyword))
    }

    pub(crate) fn signature_history(&self, api: &ApiPath) -> BankSays {
        self.bank
            .map_or(BankSays::Unknown, |b| b.changed(api, &self.installed))
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

    /// Whether the stored record of `cell` shows it ran for the notebook's author, and the
    /// start of what it showed then.
    pub(crate) fn worked_for_author(&self, cell: u32) -> Option<Option<&str>> {
        self.worked.get(&cell).map(Option::as_deref)
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

    /// The known Pythons whose standard library has module `top` (or a submodule only some
    /// have: `importlib.metadata`), when this one's does not (or,
    /// with the interpreter unknown, when some Pythons lack it).
    pub(crate) fn stdlib_elsewhere(&self, top: &str) -> Option<Vec<PythonVersion>> {
        let having = stdlib::versions_having(top)?;
        let missing_here = match self.python {
            Some(v) => !having.intersects(VersionSet::of(&[v])),
            None => having != VersionSet::ALL,
        };
        // A backport serves Pythons before the module was added (`enum34` on 2.7); one that
        // a later Python removed (`distutils`, `imp`) points at the Pythons that had it.
        let removed = self.python.is_some_and(|v| having.iter().all(|h| h < v));
        (missing_here && (removed || !stdlib::has_backport(top))).then(|| having.iter().collect())
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

    /// A third-party API used in `cell` that satisfies `pred`: only there.
    pub(crate) fn api_in_cell(
        &self,
        cell: u32,
        pred: impl Fn(&ApiUse) -> bool,
    ) -> Option<&'a ApiPath> {
        self.usage
            .third_party_apis()
            .filter(|a| pred(a))
            .find(|a| a.locations.iter().any(|l| l.cell == cell))
            .map(|a| &a.api)
    }

    /// A third-party API used at `line` of `cell` that satisfies `pred`: only there.
    pub(crate) fn api_at(
        &self,
        cell: u32,
        line: u32,
        pred: impl Fn(&ApiUse) -> bool,
    ) -> Option<&'a ApiPath> {
        self.usage
            .third_party_apis()
            .filter(|a| pred(a))
            .find(|a| a.locations.iter().any(|l| l.cell == cell && l.line == line))
            .map(|a| &a.api)
    }
}

/// The first line of a cell's first stored text output, at most 60 characters.
fn excerpt(outputs: &[Output]) -> Option<String> {
    let text = outputs.iter().find_map(|o| match o {
        Output::Stream { text, .. } | Output::Data { text } => {
            text.lines().find(|l| !l.trim().is_empty())
        }
        Output::Error { .. } => None,
    })?;
    let line = text.trim();
    Some(match line.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    })
}

/// What a Git LFS pointer file starts with (the spec's first line).
const LFS_POINTER: &[u8] = b"version https://git-lfs.github.com/spec/v1";

/// Whether the file at `path` is a Git LFS pointer: a small text file standing in for the
/// data, left where `git lfs` was not installed when the repository was cloned.
pub(crate) fn is_lfs_pointer(path: &std::path::Path) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = [0u8; LFS_POINTER.len()];
    file.take(LFS_POINTER.len() as u64)
        .read_exact(&mut head)
        .is_ok_and(|()| head == LFS_POINTER)
}

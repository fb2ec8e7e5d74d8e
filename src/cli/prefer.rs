//! `nbenv restore NB --prefer modern`: the notebook modernized and restored on the newest
//! installed Python first; in its era when that does not run to the end. The order and the
//! fallback are the library's ([`nbenv::modernize::prefer::prefer`]); this file gives it the
//! command line's steps and prints what was kept and why.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use nbenv::bank::store::Store;
use nbenv::modernize::prefer::{modern_path, prefer, Mode, ModernCopy, PreferSteps, Why};
use nbenv::modernize::trial::CandidatesKept;
use nbenv::modernize::{modernize, Facts, Modernized};
use nbenv::notebook::{self, AnalyzeOptions};
use nbenv::output::write_atomically;
use nbenv::python::PythonVersion;
use nbenv::resolve::options::PythonSource;
use nbenv::restore::Stop;

use super::args::GlobalArgs;
use super::exit::CliError;
use super::restore::{attempt, finish, Attempt, Original, RestoreArgs, Target};

/// How the modern attempt fared, as `restore` prints it (and `--format json` gives it).
#[derive(Debug, Serialize)]
pub struct Tried {
    pub why: Why,
    /// Changes the modernization made (in the notebook it ran last), and APIs it could not
    /// move.
    pub changes: usize,
    pub unmoved: usize,
    /// What became of changes only a warning names, when there were some.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<CandidatesKept>,
    /// The modernized notebook ran to its end.
    pub ran: bool,
    /// Why its rounds stopped, when they ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stop>,
    /// The cell and the exception its last run stopped at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ename: Option<String>,
    /// APIs its runs met missing, and whether its code moved past each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub met: Vec<nbenv::modernize::forward::Met>,
    /// Why it could not be modernized or restored at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The modernized notebook, written beside the input when it is the one kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<PathBuf>,
}

impl Tried {
    /// The line that says which mode was kept and why.
    pub fn said(&self) -> String {
        let mut changes = nbenv::reporter::count(self.changes, "change", "changes");
        match self.candidates {
            Some(CandidatesKept::Kept) => changes.push_str(", its candidates kept"),
            Some(CandidatesKept::Dropped) => {
                changes.push_str(", its candidates dropped: it did not run to the end with them")
            }
            None => {}
        }
        let moved = self.met.iter().filter(|m| m.moved).count();
        if moved > 0 {
            changes.push_str(&format!(", {moved} moved forward by its runs"));
        }
        let written = self
            .written
            .as_ref()
            .map(|p| format!(" (written to {})", p.display()))
            .unwrap_or_default();
        let stopped = match (self.cell, &self.ename, self.stopped) {
            (Some(cell), Some(ename), _) => format!("stopped at cell {cell} ({ename})"),
            (Some(cell), None, _) => format!("stopped at cell {cell}"),
            (None, _, Some(Stop::InstallFailed)) => "could not have its environment built".into(),
            (None, _, Some(Stop::TimeLimit)) => "ran out of time".into(),
            _ => "did not run to the end".into(),
        };
        let error = self.error.as_deref().unwrap_or("an error");
        match self.why {
            Why::ModernRan => format!(
                "mode: modern: the modernized notebook ({changes}) ran to the end{written}\n"
            ),
            Why::ModernStopped => format!(
                "mode: era: the modernized notebook ({changes}) {stopped}: restored in its era instead\n"
            ),
            Why::ModernFailed => format!(
                "mode: era: the modernized notebook ({changes}) could not be restored ({error}): restored in its era instead\n"
            ),
            Why::NotModernized => format!(
                "mode: era: the notebook could not be modernized ({error}): restored in its era instead\n"
            ),
            Why::Asked => "mode: era\n".into(),
        }
    }
}

pub fn run(global: &GlobalArgs, args: &RestoreArgs) -> Result<()> {
    let written = modern_path(&args.notebook);
    if same_file(&written, &args.notebook) {
        return Err(CliError::usage(format!(
            "{}: the modernized notebook would be written over the input, which restore never writes",
            written.display()
        ))
        .into());
    }
    let mut steps = Steps {
        global,
        args,
        python: None,
        original: None,
    };
    let done = prefer(&mut steps, Mode::Modern);
    let mut tried = Tried {
        why: done.why,
        changes: 0,
        unmoved: 0,
        candidates: done.candidates,
        ran: false,
        stopped: None,
        cell: None,
        ename: None,
        met: Vec::new(),
        error: None,
        written: None,
    };
    match &done.modernized {
        Some(Ok(m)) => {
            tried.changes = m.report.kept_changes(done.candidates);
            tried.unmoved = m.report.unmoved.len();
        }
        Some(Err(e)) => tried.error = Some(e.to_string()),
        None => {}
    }
    match &done.modern {
        Some(Ok(a)) => {
            // The code a run moved forward is the code that ran.
            if let Some(f) = &a.restored.forwarded {
                tried.changes = f.modernized.report.kept_changes(done.candidates);
                tried.unmoved = f.modernized.report.unmoved.len();
                tried.met = f.met.clone();
            }
            tried.ran = a.ran();
            tried.stopped = Some(a.restored.stopped);
            if let Some(last) = a.restored.rounds.last() {
                tried.cell = last.first_failure.as_ref().and_then(|f| f.cell);
                tried.ename = last.ename.clone();
            }
        }
        Some(Err(e)) => tried.error = Some(e.to_string()),
        None => {}
    }
    if let Some(Ok(other)) = &done.set_aside {
        other.discard();
    }
    let with_candidates = done.candidates.is_some_and(CandidatesKept::written);
    let (modernized, modern, era) = (done.modernized, done.modern, done.era);
    if tried.why.mode() == Mode::Modern {
        let (Some(Ok(m)), Some(Ok(kept))) = (modernized, modern) else {
            unreachable!("the modern mode is kept only when it ran");
        };
        let m = kept
            .restored
            .forwarded
            .as_ref()
            .map_or(&m, |f| &f.modernized);
        write_atomically(&written, &m.written(with_candidates).notebook)?;
        tried.written = Some(written);
        return finish(global, args, kept, Some(tried), None);
    }
    if let Some(Ok(modern)) = &modern {
        modern.discard();
    }
    let era = era.expect("the era is tried when the modern mode is not kept")?;
    finish(global, args, era, Some(tried), None)
}

/// The command line's steps: the bank read as `nbenv modernize` reads it, the rounds as
/// `restore` runs them.
struct Steps<'a> {
    global: &'a GlobalArgs,
    args: &'a RestoreArgs,
    /// The Python the modern attempt ran on last (the newest installed, or one below it the
    /// rounds moved to), for the note before the era's rounds.
    python: Option<PythonVersion>,
    /// The notebook as read for modernizing, for the rounds to move further forward.
    original: Option<(notebook::Notebook, Vec<u8>)>,
}

impl PreferSteps for Steps<'_> {
    type Modernized = Modernized;
    type Restored = Attempt;
    type Error = anyhow::Error;

    fn modernize(&mut self) -> Result<Modernized> {
        let path = &self.args.notebook;
        let bytes = std::fs::read(path).map_err(|source| notebook::NotebookError::Io {
            path: path.clone(),
            source,
        })?;
        let nb = notebook::from_bytes(path, &bytes)?;
        let usage = notebook::analyze(&nb, &AnalyzeOptions::default());
        // What the moves need to be seen, indexed as `nbenv modernize` indexes it.
        if !self.global.offline {
            super::modernize::index_evidence(self.global, path, self.args.introspect_budget, &nb)?;
        }
        // No bank yet: nothing is known to move, and the notebook still runs on today's Python.
        let bank = super::bank::bank_path(self.global);
        let facts = if bank.exists() {
            Facts::gather(&Store::open_read_only(&bank)?, &usage)?
        } else {
            Facts::default()
        };
        let name = modern_path(path).display().to_string();
        let done = modernize(&nb, &bytes, &usage, &facts, &name)?;
        self.original = Some((nb, bytes));
        Ok(done)
    }

    fn has_candidates(&self, modern: &Modernized) -> bool {
        modern.has_candidates()
    }

    fn restore_modern(&mut self, modern: &Modernized, candidates: bool) -> Result<Attempt> {
        let Some(python) = self
            .args
            .python
            .or_else(|| nbenv::modernize::newest(super::context::interpreters()))
        else {
            return Err(CliError::not_found(
                "no Python interpreter is installed to run the modernized notebook",
            )
            .into());
        };
        self.python = Some(python);
        // Removed when this returns, whatever the rounds gave.
        let copy = ModernCopy::beside(&self.args.notebook, &modern.written(candidates).notebook)?;
        let nb = notebook::read(copy.path())?;
        attempt(
            self.global,
            self.args,
            Target {
                notebook: copy.path().to_path_buf(),
                nb,
                python: Some(python),
                python_source: if self.args.python.is_some() {
                    PythonSource::Asked
                } else {
                    PythonSource::NewestInstalled
                },
                cap: super::infer::date_cap(self.args.exclude_newer),
                // Today's releases: the notebook's date is its era's preference, not this
                // one's.
                era: nbenv::resolve::options::EraChoice::Off,
                original: self.original.clone().map(|(nb, bytes)| Original {
                    nb,
                    bytes,
                    candidates,
                }),
            },
        )
        .inspect(|done| {
            // The rounds may have climbed down to an older Python.
            if let Some((_, interpreter)) = &done.restored.last_env {
                self.python = Some(interpreter.version);
            }
        })
    }

    fn restore_era(&mut self) -> Result<Attempt> {
        if !self.global.quiet {
            let on = self
                .python
                .map(|p| format!(" on Python {p}"))
                .unwrap_or_default();
            super::printer::note(&format!(
                "the modernized notebook{on} did not run to the end: restoring the notebook in its era"
            ));
        }
        let nb = notebook::read(&self.args.notebook)?;
        // Its own Python: `--python` chose the modern attempt's.
        let target = Target {
            python: None,
            ..Target::era(self.args, nb)?
        };
        attempt(self.global, self.args, target)
    }

    fn ran(&self, restored: &Attempt) -> bool {
        restored.ran()
    }
}

/// Whether two paths name one file (the first may not exist yet).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

//! A notebook's local modules moved forward with its cells: a helper module the notebook
//! imports (`fig_code/figures.py` importing `IPython.html.widgets`) holds the modernized
//! notebook to the old releases as surely as its own cells would. Each plain `.py` module the
//! notebook's usages read is moved as a one-cell notebook, by the same plan and rewriter, with
//! its own report. The user's files are never written: the modernized runs read the moved
//! text in their copy of the folder ([`crate::notebook::FileOverride`]), and `modernize`
//! writes the moved modules under a folder of their own beside its output.

use std::path::{Path, PathBuf};

use super::diff::unified_text;
use super::{move_code, Facts, Modernized, Report};
use crate::bank::store::{Store, StoreError};
use crate::notebook::{CellKind, FileOverride, SourceFormat, Usage};

/// A local module moved forward: its path relative to the notebook's folder, its text with
/// every change and with the proven ones only, its original text, and its report.
#[derive(Debug, Clone)]
pub struct ModernModule {
    pub relative: PathBuf,
    pub original: String,
    pub with: String,
    pub proven: String,
    pub report: Report,
}

impl ModernModule {
    /// Whether a candidate was written into it (its two texts differ).
    pub fn has_candidates(&self) -> bool {
        self.with != self.proven
    }

    /// Its text with the candidates or without them.
    pub fn text(&self, candidates: bool) -> &str {
        if candidates {
            &self.with
        } else {
            &self.proven
        }
    }
}

/// The local modules among `usages` (the notebook's first, then its modules', named as
/// [`crate::notebook::local_imports`] names them) moved forward by what the bank proves of
/// each.
pub fn modernize_modules(
    store: &Store,
    usages: &[(String, Usage)],
) -> Result<Vec<ModernModule>, StoreError> {
    let mut out = Vec::new();
    for (name, usage) in &usages[1..] {
        out.extend(modernize_module(name, usage, &Facts::gather(store, usage)?));
    }
    Ok(out)
}

/// The local module `usage` read, named `name` (its path relative to the notebook's folder),
/// moved forward by what `facts` prove; `None` when nothing in it moves or is removed, or
/// when it is no plain module inside the folder (a percent script's cells, a file above it).
pub fn modernize_module(name: &str, usage: &Usage, facts: &Facts) -> Option<ModernModule> {
    let relative = Path::new(name);
    if !FileOverride::inside(relative) {
        return None;
    }
    let path = &usage.notebook.path;
    let original = std::fs::read_to_string(path).ok()?;
    let nb = crate::notebook::from_bytes(path, original.as_bytes()).ok()?;
    // One code cell holding the whole file, as written: what is rewritten is the file.
    let [cell] = &nb.cells[..] else {
        return None;
    };
    let newline = original.ends_with('\n');
    let as_read = if newline {
        format!("{}\n", cell.source)
    } else {
        cell.source.clone()
    };
    if nb.format != SourceFormat::Script || cell.kind != CellKind::Code || as_read != original {
        return None;
    }
    let moved = move_code(&nb, usage, facts);
    if moved.plan.changes.is_empty() && moved.plan.unmoved.is_empty() && moved.python3.is_empty() {
        return None;
    }
    let file = |cells: Option<&String>| match cells {
        Some(text) if newline && !text.ends_with('\n') => format!("{text}\n"),
        Some(text) => text.clone(),
        None => original.clone(),
    };
    let with = file(moved.rewritten.cells.get(&cell.number));
    let proven = match &moved.proven {
        Some(cells) => file(cells.get(&cell.number)),
        None => with.clone(),
    };
    let mut report = moved.report(relative);
    report.module = true;
    Some(ModernModule {
        relative: relative.to_path_buf(),
        original,
        with,
        proven,
        report,
    })
}

/// The texts of `modules` that differ from their files, with the candidates or without:
/// what a run of that variant reads in place of the files.
pub fn moved_texts(modules: &[ModernModule], candidates: bool) -> Vec<FileOverride> {
    modules
        .iter()
        .filter(|m| m.text(candidates) != m.original)
        .filter_map(|m| FileOverride::new(m.relative.clone(), m.text(candidates).to_string()))
        .collect()
}

impl Modernized {
    /// Adds the notebook's moved local modules: their texts to what each written variant
    /// runs with, their diffs after the notebook's, their reports to its report.
    pub fn with_modules(mut self, modules: Vec<ModernModule>) -> Self {
        if modules.iter().any(ModernModule::has_candidates) && self.proven.is_none() {
            self.proven = Some(self.with.clone());
        }
        for (written, candidates) in [(Some(&mut self.with), true), (self.proven.as_mut(), false)] {
            let Some(written) = written else {
                continue;
            };
            // A module that reads the same has no hunk, so no diff.
            for m in &modules {
                let name = m.relative.display().to_string();
                written.diff.push_str(&unified_text(
                    &name,
                    &format!("{name} (modernized)"),
                    &m.original,
                    m.text(candidates),
                ));
            }
            written.modules = moved_texts(&modules, candidates);
        }
        self.report.modules = modules.iter().map(|m| m.report.clone()).collect();
        self.modules = modules;
        self
    }
}

/// Where `modernize` writes the moved modules of the notebook it writes at `output`:
/// `<stem>.modules/` beside it (`nb.modern.ipynb` → `nb.modern.modules/`), each at its path
/// relative to the notebook's folder.
pub fn modules_dir(output: &Path) -> PathBuf {
    super::prefer::beside(output, "modules")
}

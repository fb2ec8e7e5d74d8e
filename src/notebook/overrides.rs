//! A local module's text that stands in for its file: `modernize` moves a notebook's local
//! modules forward as it moves the notebook's cells, and the modernized notebook's runs and
//! inference read the moved text, never the user's files (see
//! [`crate::verify::RunOptions::overrides`]).

use std::path::{Component, Path, PathBuf};

use super::{analyze, from_bytes, AnalyzeOptions, Usage};

/// A file's text in place of what the file holds, by its path relative to the notebook's
/// folder (`fig_code/figures.py`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOverride {
    pub relative: PathBuf,
    pub text: String,
}

impl FileOverride {
    /// `relative` when it stays inside the notebook's folder (no `..`, not absolute): only
    /// those can stand in for a file in a run's copy of the folder.
    pub fn new(relative: PathBuf, text: String) -> Option<Self> {
        Self::inside(&relative).then_some(Self { relative, text })
    }

    /// Whether `relative` stays inside the folder it is relative to.
    pub fn inside(relative: &Path) -> bool {
        relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
    }
}

/// `usages` (the notebook's, then its local modules', each named by its path relative to
/// the notebook's folder, as [`super::local_imports`] names them) with each module that
/// `overrides` replaces analysed from its replacement text. The modules a replacement
/// imports are the ones the file imported: a move changes no local import.
pub fn with_overrides(
    usages: &mut [(String, Usage)],
    overrides: &[FileOverride],
    options: &AnalyzeOptions,
) {
    for (name, usage) in usages.iter_mut().skip(1) {
        let Some(o) = overrides.iter().find(|o| o.relative == Path::new(name)) else {
            continue;
        };
        let Ok(nb) = from_bytes(&usage.notebook.path, o.text.as_bytes()) else {
            continue;
        };
        let imported_as = usage.imported_as.take();
        *usage = analyze(&nb, options);
        usage.imported_as = imported_as;
    }
}

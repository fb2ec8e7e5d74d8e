//! The notebooks an inference reads: the notebook itself, or every `.ipynb` under a folder,
//! with the repository's declarations beside them and the local modules they import.

use std::path::{Path, PathBuf};

use super::SessionError;
use crate::notebook::{self, AnalyzeOptions, Notebook, Usage};
use crate::reporter::Reporter;
use crate::resolve::options::InferOptions;

/// Each notebook (every `.ipynb` of a folder) read and analysed, with the repository's
/// declarations beside it unless asked not to; named as the output names them.
pub fn read_usages(
    args: &InferOptions,
    reporter: &dyn Reporter,
) -> Result<Vec<(String, Usage)>, SessionError> {
    read_usages_of(args, None, reporter)
}

/// [`read_usages`], with the notebook already read by the caller (`restore` runs it too): it
/// is read once.
pub fn read_usages_of(
    args: &InferOptions,
    read: Option<&Notebook>,
    reporter: &dyn Reporter,
) -> Result<Vec<(String, Usage)>, SessionError> {
    let mut options = AnalyzeOptions::default();
    if let Some(v) = args.python {
        options.python_versions = vec![v];
    }
    let mut usages = Vec::new();
    for path in &notebooks_at(&args.notebook)? {
        let owned;
        let nb = match read.filter(|_| path == &args.notebook) {
            Some(nb) => nb,
            None => {
                owned = notebook::read(path)?;
                &owned
            }
        };
        let name = path
            .strip_prefix(&args.notebook)
            .ok()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(path)
            .display()
            .to_string();
        let mut usage = notebook::analyze(nb, &options);
        if args.declarations {
            let declarations = notebook::read_declarations(path);
            for problem in &declarations.problems {
                reporter.warn(&format!("{problem} (ignored)"), None);
            }
            usage.attach_declarations(declarations);
        }
        usages.push((name, usage));
    }
    // The local modules they import, after them: `usages[0]` stays the first notebook.
    let base = if args.notebook.is_dir() {
        args.notebook.as_path()
    } else {
        args.notebook.parent().unwrap_or(Path::new(""))
    };
    let modules = notebook::local_imports(&usages, &options, base);
    usages.extend(modules);
    Ok(usages)
}

/// The notebook itself, or every `.ipynb` under a directory (checkpoints and hidden
/// directories skipped), sorted.
fn notebooks_at(path: &Path) -> Result<Vec<PathBuf>, SessionError> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut found = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| SessionError::ReadDir {
            path: dir.clone(),
            source,
        })?;
        for entry in entries.flatten() {
            let p = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with(".ipynb") {
                found.push(p);
            }
        }
    }
    found.sort();
    if found.is_empty() {
        return Err(SessionError::NoNotebook(path.to_path_buf()));
    }
    Ok(found)
}

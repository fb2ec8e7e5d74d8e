//! The throw-away copy of the notebook's directory a run works in: whatever the notebook
//! writes, deletes or changes stays there. Version-control data, caches and virtual
//! environments are not copied; symbolic links are copied as links.

use std::fs;
use std::path::{Path, PathBuf};

use super::run::RunError;

/// Directories never copied.
const SKIPPED: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".ipynb_checkpoints",
    "__pycache__",
    "node_modules",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
];

/// Copies `from` into `to` (created), skipping `avoid` (the scratch directory itself, when
/// it lies inside `from`). Fails when more than `limit` bytes would be copied.
pub(crate) fn copy_tree(from: &Path, to: &Path, limit: u64, avoid: &Path) -> Result<u64, RunError> {
    let avoid = fs::canonicalize(avoid).unwrap_or_else(|_| avoid.to_path_buf());
    let mut copied = 0u64;
    let mut stack: Vec<(PathBuf, PathBuf)> = vec![(from.to_path_buf(), to.to_path_buf())];
    let copy_err = |path: &Path, source: std::io::Error| RunError::Copy {
        path: path.to_path_buf(),
        source,
    };
    while let Some((src, dst)) = stack.pop() {
        fs::create_dir_all(&dst).map_err(|e| copy_err(&dst, e))?;
        let entries = fs::read_dir(&src).map_err(|e| copy_err(&src, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| copy_err(&src, e))?;
            let path = entry.path();
            let target = dst.join(entry.file_name());
            let kind = entry.file_type().map_err(|e| copy_err(&path, e))?;
            if kind.is_symlink() {
                let link = fs::read_link(&path).map_err(|e| copy_err(&path, e))?;
                std::os::unix::fs::symlink(&link, &target).map_err(|e| copy_err(&target, e))?;
            } else if kind.is_dir() {
                let name = entry.file_name();
                let skipped = SKIPPED.iter().any(|s| name == *s)
                    || path.join("pyvenv.cfg").exists()
                    || fs::canonicalize(&path).is_ok_and(|p| p == avoid);
                if !skipped {
                    stack.push((path, target));
                }
            } else if kind.is_file() {
                let size = entry.metadata().map_err(|e| copy_err(&path, e))?.len();
                copied += size;
                if copied > limit {
                    return Err(RunError::DirectoryTooLarge {
                        dir: from.to_path_buf(),
                        limit,
                    });
                }
                fs::copy(&path, &target).map_err(|e| copy_err(&path, e))?;
            }
        }
    }
    Ok(copied)
}

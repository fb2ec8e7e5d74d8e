//! When the notebook was last committed, if it sits in a git repository: the date an old
//! notebook's environment is best reproduced as of (`nbenv infer --date auto`).

use std::path::Path;
use std::process::Command;

use crate::python::DieWithNbenv;

/// The committer date of the last commit that touched `path`; `None` when git is missing,
/// the file is not in a repository, or was never committed.
pub fn last_commit_date(path: &Path) -> Option<jiff::Timestamp> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name()?;
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["log", "-1", "--format=%cI", "--"])
        .arg(name)
        .die_with_nbenv()
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim().parse::<jiff::Timestamp>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_commit_that_touched_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str], date: &str| {
            let ok = Command::new("git")
                .arg("-C")
                .arg(dir.path())
                .args(args)
                .env("GIT_COMMITTER_DATE", date)
                .env("GIT_AUTHOR_DATE", date)
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@example.org")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@example.org")
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            assert!(ok, "git {args:?}");
        };
        let nb = dir.path().join("nb.ipynb");
        std::fs::write(&nb, "{}").unwrap();
        // Not a repository yet.
        assert_eq!(last_commit_date(&nb), None);
        git(&["init", "-q"], "2017-03-01T10:00:00Z");
        git(&["add", "nb.ipynb"], "2017-03-01T10:00:00Z");
        git(&["commit", "-q", "-m", "nb"], "2017-03-01T10:00:00Z");
        std::fs::write(dir.path().join("other.txt"), "x").unwrap();
        git(&["add", "other.txt"], "2019-01-01T00:00:00Z");
        git(&["commit", "-q", "-m", "other"], "2019-01-01T00:00:00Z");
        // The notebook's own last commit, not the repository's.
        assert_eq!(
            last_commit_date(&nb),
            Some("2017-03-01T10:00:00Z".parse().unwrap())
        );
    }
}

//! A folder made a git repository whose one commit has a given date: nbenv reads a
//! notebook's era from its last commit.

use std::path::Path;
use std::process::Command;

/// `git init` in `dir` (when it is not a repository yet), then `paths` (relative to `dir`)
/// added and committed as of `date` (RFC 3339).
pub fn commit(dir: &Path, paths: &[&str], date: &str) {
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_COMMITTER_DATE", date)
            .env("GIT_AUTHOR_DATE", date)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.org")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.org")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    if !dir.join(".git").exists() {
        git(&["init", "-q"]);
    }
    let mut add = vec!["add", "--"];
    add.extend_from_slice(paths);
    git(&add);
    git(&["commit", "-q", "-m", "nb"]);
}

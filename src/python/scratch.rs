//! Scratch directories for throw-away environments, named so that a later nbenv can tell
//! those of a process still running from those a killed one left behind.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::leftover::{Owner, UNOWNED_AGE};

/// Every scratch directory's name starts with this, then what it is for (`introspect`), the
/// owner (its process id and start time, see [`crate::leftover::Owner`]) and a dash.
pub const SCRATCH_PREFIX: &str = "nbenv-";

/// A new scratch directory for `purpose` (a lowercase word) in the system's temporary
/// directory, removed when dropped. The first one a process makes removes those killed runs
/// left there.
pub fn scratch_dir(purpose: &str) -> std::io::Result<tempfile::TempDir> {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| {
        for dir in scratch_dirs(&std::env::temp_dir()) {
            if !dir.in_use {
                let _ = std::fs::remove_dir_all(&dir.path);
            }
        }
    });
    tempfile::Builder::new()
        .prefix(&format!("{SCRATCH_PREFIX}{purpose}-{}-", Owner::me().tag()))
        .tempdir()
}

/// A scratch directory found on disk.
#[derive(Debug, Clone)]
pub struct ScratchDir {
    pub path: PathBuf,
    /// Its process is still running (or, without an id, it is recent): not to be removed.
    pub in_use: bool,
}

/// The scratch directories under `dir` (the system's temporary directory, normally).
pub fn scratch_dirs(dir: &Path) -> Vec<ScratchDir> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        // `nbenv-<purpose>-<pid>.<start>-<random>`; older nbenvs wrote `<pid>` alone, or no
        // owner at all.
        let Some((purpose, rest)) = name
            .to_str()
            .and_then(|n| n.strip_prefix(SCRATCH_PREFIX))
            .and_then(|n| n.split_once('-'))
        else {
            continue;
        };
        let is_word = !purpose.is_empty() && purpose.bytes().all(|b| b.is_ascii_lowercase());
        if !is_word || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let owner = rest.split_once('-').and_then(|(tag, _)| Owner::parse(tag));
        let in_use = match owner {
            Some(owner) => owner.is_alive(),
            None => entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| SystemTime::now().duration_since(t).ok())
                .is_none_or(|age| age < UNOWNED_AGE),
        };
        out.push(ScratchDir {
            path: entry.path(),
            in_use,
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_of_live_and_dead_processes_are_told_apart() {
        let tmp = tempfile::tempdir().unwrap();
        let mine = tmp
            .path()
            .join(format!("nbenv-introspect-{}-abc", Owner::me().tag()));
        // Process ids above the kernel's pid_max (4194304 at most) never run.
        let dead = tmp.path().join("nbenv-verify-99999999-abc");
        // This process's id, with another start time: a process that had the id before.
        let reused = tmp
            .path()
            .join(format!("nbenv-verify-{}.1-abc", std::process::id()));
        let unowned = tmp.path().join("nbenv-introspect-xyz");
        let other = tmp.path().join("something-else");
        let not_scratch = tmp.path().join("nbenv-cache");
        for d in [&mine, &dead, &reused, &unowned, &other, &not_scratch] {
            std::fs::create_dir(d).unwrap();
        }
        let found = scratch_dirs(tmp.path());
        let state: Vec<(String, bool)> = found
            .iter()
            .map(|s| {
                let name = s.path.file_name().unwrap().to_string_lossy().into_owned();
                (name, s.in_use)
            })
            .collect();
        assert_eq!(state.len(), 4, "{state:?}");
        assert!(state.contains(&(reused.file_name().unwrap().to_string_lossy().into(), false)));
        assert!(state.contains(&(mine.file_name().unwrap().to_string_lossy().into(), true)));
        assert!(state.contains(&(dead.file_name().unwrap().to_string_lossy().into(), false)));
        // Recent and without an owner: left alone.
        assert!(state.contains(&(unowned.file_name().unwrap().to_string_lossy().into(), true)));
        let made = scratch_dir("introspect").unwrap();
        assert!(made
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&format!("nbenv-introspect-{}-", Owner::me().tag())));
    }
}

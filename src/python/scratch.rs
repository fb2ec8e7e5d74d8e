//! Scratch directories for throw-away environments, named so that a later nbenv can tell
//! those of a process still running from those a killed one left behind.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Every scratch directory's name starts with this, then what it is for (`introspect`), the
/// owner's process id and a dash.
pub const SCRATCH_PREFIX: &str = "nbenv-";

/// A scratch directory of a directory left without the owner's id (by an older nbenv) counts
/// as abandoned once this old.
const UNOWNED_AGE: Duration = Duration::from_secs(24 * 3600);

/// A new scratch directory for `purpose` (a lowercase word) in the system's temporary
/// directory, removed when dropped.
pub fn scratch_dir(purpose: &str) -> std::io::Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(&format!(
            "{SCRATCH_PREFIX}{purpose}-{}-",
            std::process::id()
        ))
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
        // `nbenv-<purpose>-<pid>-<random>`, or `nbenv-<purpose>-<random>` from older nbenvs.
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
        let owner = rest
            .split_once('-')
            .and_then(|(pid, _)| pid.parse::<i32>().ok());
        let in_use = match owner {
            Some(pid) => is_running(pid),
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

fn is_running(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    alive || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_of_live_and_dead_processes_are_told_apart() {
        let tmp = tempfile::tempdir().unwrap();
        let mine = tmp
            .path()
            .join(format!("nbenv-introspect-{}-abc", std::process::id()));
        // Process ids above the kernel's pid_max (4194304 at most) never run.
        let dead = tmp.path().join("nbenv-verify-99999999-abc");
        let unowned = tmp.path().join("nbenv-introspect-xyz");
        let other = tmp.path().join("something-else");
        let not_scratch = tmp.path().join("nbenv-cache");
        for d in [&mine, &dead, &unowned, &other, &not_scratch] {
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
        assert_eq!(state.len(), 3, "{state:?}");
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
            .starts_with(&format!("nbenv-introspect-{}-", std::process::id())));
    }
}

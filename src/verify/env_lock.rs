//! Environments shared by runs at once: a batch's workers (threads, or processes on one
//! machine) verify notebooks whose requirements are often the same, so they meet at the same
//! cached environment. Each environment has a lock file (`.locks/<key>`, hidden from the
//! cache's listing; empty, and kept when the environment goes, so that every run locks the
//! same file): building or removing it takes the lock exclusively, using it
//! holds it shared. So two runs never build one environment twice over each other, and the
//! budget never removes an environment a run is using.
//!
//! The locks are std's file locks (`flock(2)` on Linux), as the bank's writer lock: the
//! kernel drops them when the process ends, however it ends. Each open of the file is its
//! own lock holder, so threads of one process exclude each other too.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The lock file of the environment `key` under `cache`.
pub(crate) fn lock_path(cache: &Path, key: &str) -> PathBuf {
    cache.join(".locks").join(key)
}

/// Held while an environment is in use (shared with other users): the budget and the
/// removal of failed rounds' environments pass it over. Dropped with the last clone.
#[derive(Clone)]
pub struct EnvLease {
    _file: Arc<File>,
}

impl std::fmt::Debug for EnvLease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EnvLease")
    }
}

impl EnvLease {
    /// Waits for a shared hold of `path`: only while another run builds or removes the
    /// environment. Using a built environment never waits for its other users, this
    /// process's own included (an earlier attempt of one restoration still holding it).
    pub(crate) fn wait(path: &Path) -> std::io::Result<Self> {
        let file = open(path)?;
        waiting(|| file.lock_shared())?;
        Ok(Self {
            _file: Arc::new(file),
        })
    }
}

/// The environment's lock, held exclusively: waits while another run builds or uses it.
pub(crate) struct Exclusive {
    file: File,
}

fn open(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
}

/// Runs a blocking lock call again when a signal interrupts its wait (std does not).
fn waiting(lock: impl Fn() -> std::io::Result<()>) -> std::io::Result<()> {
    loop {
        match lock() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            done => return done,
        }
    }
}

impl Exclusive {
    /// Waits for the lock of `path`.
    pub(crate) fn wait(path: &Path) -> std::io::Result<Self> {
        let file = open(path)?;
        waiting(|| file.lock())?;
        Ok(Self { file })
    }

    /// The lock of `path` if nobody holds it, else `None`.
    pub(crate) fn try_now(path: &Path) -> Option<Self> {
        let file = open(path).ok()?;
        file.try_lock().ok()?;
        Some(Self { file })
    }

    /// The environment is built: others may use it now, alongside this run.
    ///
    /// The exclusive lock becomes a shared one on the same open file, never released in
    /// between (no other run can take it exclusively and remove the environment meanwhile).
    /// std leaves relocking a held lock platform-defined; on Linux it is `flock(2)`, which
    /// converts the lock in place.
    pub(crate) fn share(self) -> std::io::Result<EnvLease> {
        waiting(|| self.file.lock_shared())?;
        Ok(EnvLease {
            _file: Arc::new(self.file),
        })
    }
}

/// Removes the environment at `root` (in `cache`) unless a run is using it, and the Jupyter
/// kernel specs nbenv registered for it (a kernel left behind would point at nothing);
/// returns whether it is gone.
pub fn remove_unused(cache: &Path, root: &Path) -> bool {
    let Some(key) = root.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let Some(_held) = Exclusive::try_now(&lock_path(cache, key)) else {
        return false;
    };
    super::kernel_spec::remove_kernel_specs(root);
    std::fs::remove_dir_all(root).is_ok() || !root.exists()
}

/// The environment an unfinished build's directory (`.<key>-<owner>`, see
/// [`crate::leftover`]) is being built into: its key.
fn building_key(name: &str) -> Option<&str> {
    let (key, owner) = name.strip_prefix('.')?.rsplit_once('-')?;
    crate::leftover::Owner::parse(owner)?;
    (!key.is_empty()).then_some(key)
}

/// The unfinished builds in `cache`. A build holds its environment's lock, which the kernel
/// drops with the process however it ends: one whose lock is free was left by a killed run.
pub fn unfinished_builds(cache: &Path) -> Vec<crate::leftover::Leftover> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(cache).into_iter().flatten().flatten() {
        let name = entry.file_name();
        let Some(key) = name.to_str().and_then(building_key) else {
            continue;
        };
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        out.push(crate::leftover::Leftover {
            path: entry.path(),
            in_use: Exclusive::try_now(&lock_path(cache, key)).is_none(),
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Removes the unfinished build at `path` in `cache` if its build was abandoned, holding its
/// environment's lock meanwhile; returns whether it is gone.
pub fn remove_unfinished(cache: &Path, path: &Path) -> bool {
    let Some(key) = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(building_key)
    else {
        return false;
    };
    let Some(_held) = Exclusive::try_now(&lock_path(cache, key)) else {
        return false;
    };
    crate::leftover::remove(path)
}

/// Removes every abandoned build in `cache`; returns how many went. One listing of the
/// environments' directory.
pub fn remove_abandoned_builds(cache: &Path) -> usize {
    unfinished_builds(cache)
        .into_iter()
        .filter(|b| !b.in_use && remove_unfinished(cache, &b.path))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_keeps_an_environment_from_removal() {
        let cache = tempfile::tempdir().unwrap();
        let root = cache.path().join("abc");
        std::fs::create_dir_all(root.join("bin")).unwrap();
        let lease = Exclusive::wait(&lock_path(cache.path(), "abc"))
            .unwrap()
            .share()
            .unwrap();
        // Another user shares it; nobody can take it exclusively.
        let other = open(&lock_path(cache.path(), "abc")).unwrap();
        other.try_lock_shared().unwrap();
        assert!(!remove_unused(cache.path(), &root));
        assert!(root.exists());
        drop(other);
        drop(lease.clone());
        assert!(
            !remove_unused(cache.path(), &root),
            "a clone still holds it"
        );
        drop(lease);
        assert!(remove_unused(cache.path(), &root));
        assert!(!root.exists());
    }

    /// A build whose environment's lock is held is its run's; one whose lock is free was
    /// left by a killed run, and goes.
    #[test]
    fn unfinished_builds_of_killed_runs_go_and_live_ones_stay() {
        let cache = tempfile::tempdir().unwrap();
        let live = cache.path().join(".abc-123.456");
        let dead = cache.path().join(".def-99999999.5");
        for build in [&live, &dead] {
            std::fs::create_dir_all(build.join("bin")).unwrap();
        }
        std::fs::create_dir_all(cache.path().join("ghi/bin")).unwrap();
        let held = Exclusive::wait(&lock_path(cache.path(), "abc")).unwrap();
        let found: Vec<(PathBuf, bool)> = unfinished_builds(cache.path())
            .into_iter()
            .map(|b| (b.path, b.in_use))
            .collect();
        assert_eq!(found, vec![(live.clone(), true), (dead.clone(), false)]);
        assert!(!remove_unfinished(cache.path(), &live));
        assert_eq!(remove_abandoned_builds(cache.path()), 1);
        assert!(live.exists() && !dead.exists());
        assert!(cache.path().join("ghi").exists());
        drop(held);
        assert_eq!(remove_abandoned_builds(cache.path()), 1);
        assert!(!live.exists());
    }

    #[test]
    fn a_builder_waits_for_the_one_before() {
        let cache = tempfile::tempdir().unwrap();
        let path = lock_path(cache.path(), "k");
        let first = Exclusive::wait(&path).unwrap();
        assert!(Exclusive::try_now(&path).is_none());
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || {
                let got = Exclusive::wait(&path).unwrap();
                tx.send(()).unwrap();
                drop(got);
            })
        };
        assert!(rx
            .recv_timeout(std::time::Duration::from_millis(200))
            .is_err());
        drop(first);
        rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        waiter.join().unwrap();
    }
}

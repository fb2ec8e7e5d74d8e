//! Claims on a bank's distributions while a run indexes or introspects them.
//!
//! Two runs on one bank (two `infer`s, a batch's workers) that need the same distribution
//! should not both download and index it: the second waits for the first, then reads what it
//! wrote. Two runs that need different distributions should not wait for each other at all.
//! So each distribution has its own lock file in a folder beside the bank
//! (`bank.sqlite3.claims/numpy`), taken for one indexing or introspection round and let go at
//! its end. The writer lock (`lock.rs`) still orders the transactions themselves.
//!
//! A round takes its distributions in name order and takes no more until it lets them all
//! go, so two rounds never wait on each other in a circle. The locks are `flock(2)`s on open
//! files (std's [`File::lock`]): the kernel lets go when a process ends however it ends,
//! and two threads of one process each opening the file exclude each other as two processes
//! do.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::disk_full::{DiskFull, Written};
use crate::names::DistName;

use super::StoreError;

/// How often a waiting claim looks again, and whether it should give up.
const POLL: Duration = Duration::from_millis(50);

/// The claim folder of one bank.
#[derive(Debug, Clone)]
pub struct DistClaims {
    bank: PathBuf,
    dir: PathBuf,
}

/// Distributions claimed, until dropped.
#[derive(Debug)]
pub struct Claim {
    _files: Vec<File>,
    /// How long taking it waited for other runs.
    pub waited: Duration,
    /// The distributions another run held when this one asked.
    pub held_by_others: Vec<DistName>,
}

/// Why a claim was not taken.
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The caller's `give_up` said to stop waiting (Ctrl-C, a deadline).
    #[error("gave up waiting for another run indexing {}", names.join(", "))]
    GaveUp { names: Vec<String> },
}

impl DistClaims {
    pub fn of_bank(bank: &Path) -> Self {
        let mut dir = bank.as_os_str().to_owned();
        dir.push(".claims");
        Self {
            bank: bank.to_path_buf(),
            dir: PathBuf::from(dir),
        }
    }

    /// The folder holding the lock files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Claims `names` (in name order, each once), waiting for any another run holds; asks
    /// `give_up` between looks and stops waiting when it says so.
    pub fn claim(
        &self,
        names: &[DistName],
        give_up: &dyn Fn() -> bool,
    ) -> Result<Claim, ClaimError> {
        let mut names: Vec<&DistName> = names.iter().collect();
        names.sort();
        names.dedup();
        if !names.is_empty() {
            std::fs::create_dir_all(&self.dir).map_err(|e| self.io_error(&self.dir, &e))?;
        }
        let start = Instant::now();
        let mut files = Vec::with_capacity(names.len());
        let mut held_by_others = Vec::new();
        for name in names {
            let path = self.dir.join(name.as_str());
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map_err(|e| self.io_error(&path, &e))?;
            let mut waited = false;
            loop {
                match file.try_lock() {
                    Ok(()) => break,
                    Err(TryLockError::WouldBlock) => {}
                    Err(TryLockError::Error(e)) => return Err(self.io_error(&path, &e).into()),
                }
                if !waited {
                    waited = true;
                    held_by_others.push(name.clone());
                }
                if give_up() {
                    return Err(ClaimError::GaveUp {
                        names: vec![name.to_string()],
                    });
                }
                std::thread::sleep(POLL);
            }
            files.push(file);
        }
        Ok(Claim {
            _files: files,
            waited: if held_by_others.is_empty() {
                Duration::ZERO
            } else {
                start.elapsed()
            },
            held_by_others,
        })
    }

    fn io_error(&self, path: &Path, e: &std::io::Error) -> StoreError {
        match DiskFull::of_io(path, Written::Bank, e) {
            Some(full) => StoreError::DiskFull(full),
            None => StoreError::NotABank {
                path: self.bank.clone(),
                detail: format!("cannot take the claim {}: {e}", path.display()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    fn names(list: &[&str]) -> Vec<DistName> {
        list.iter().map(|n| DistName::new(n).unwrap()).collect()
    }

    /// A run needing numpy waits for the one indexing numpy; a run needing scipy does not.
    #[test]
    fn a_claim_waits_only_for_the_distributions_it_shares() {
        let dir = tempfile::tempdir().unwrap();
        let claims = DistClaims::of_bank(&dir.path().join("bank.sqlite3"));
        let first = claims
            .claim(&names(&["pandas", "numpy"]), &|| false)
            .unwrap();
        assert!(first.held_by_others.is_empty());

        let other = claims.claim(&names(&["scipy"]), &|| false).unwrap();
        assert!(other.held_by_others.is_empty(), "scipy is nobody's");
        drop(other);

        let shared = claims.clone();
        let waiter =
            std::thread::spawn(move || shared.claim(&names(&["numpy", "scipy"]), &|| false));
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            !waiter.is_finished(),
            "numpy is held: the second claim waits"
        );
        drop(first);
        let second = waiter.join().unwrap().unwrap();
        assert_eq!(second.held_by_others, names(&["numpy"]));
        assert!(second.waited >= Duration::from_millis(200));
    }

    /// A waiting claim stops when told to (Ctrl-C, a deadline), holding nothing.
    #[test]
    fn a_waiting_claim_gives_up_when_told_and_holds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let claims = DistClaims::of_bank(&dir.path().join("bank.sqlite3"));
        let held = claims.claim(&names(&["numpy"]), &|| false).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, told) = (claims.clone(), stop.clone());
        let waiter = std::thread::spawn(move || {
            shared.claim(&names(&["aaa", "numpy"]), &|| told.load(Ordering::SeqCst))
        });
        std::thread::sleep(Duration::from_millis(150));
        stop.store(true, Ordering::SeqCst);
        let gave_up = waiter.join().unwrap();
        assert!(matches!(gave_up, Err(ClaimError::GaveUp { ref names }) if names == &["numpy"]));
        drop(held);
        // What it had taken ("aaa") was let go with it.
        let again = claims.claim(&names(&["aaa"]), &|| true).unwrap();
        assert!(again.held_by_others.is_empty());
    }
}

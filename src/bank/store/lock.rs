//! One writer at a time: an exclusive lock on a file beside the bank (`bank.sqlite3.lock`),
//! as uv guards its cache. Writers take it for each transaction (a release, a registration,
//! a migration), never for a whole run, so a long `bank build` delays another writer (an
//! `infer` indexing on demand) by one release at most. Readers never take it: SQLite's WAL
//! lets them read while a writer writes.
//!
//! The lock is std's [`File::lock`] (`flock(2)` on Linux) on an open file: the kernel
//! releases it when the process ends, however it ends, so a crashed writer never leaves the
//! bank locked.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::StoreError;

/// Called once when a writer has to wait for another, with the bank's path: the command
/// line says so.
pub type WaitNotice = Arc<dyn Fn(&Path) + Send + Sync>;

/// What a writer does when another holds the lock.
#[derive(Clone, Default)]
pub enum LockPolicy {
    /// Wait for it, after telling `notice` (if any) once.
    #[default]
    Wait,
    WaitWithNotice(WaitNotice),
    /// Fail at once with [`StoreError::Busy`].
    NoWait,
}

impl std::fmt::Debug for LockPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LockPolicy::Wait => "Wait",
            LockPolicy::WaitWithNotice(_) => "WaitWithNotice",
            LockPolicy::NoWait => "NoWait",
        })
    }
}

/// The lock file of a bank and how to take it.
#[derive(Debug)]
pub(crate) struct WriterLock {
    bank: PathBuf,
    path: PathBuf,
    policy: LockPolicy,
    /// Whether this process has said it is waiting already.
    noticed: std::sync::atomic::AtomicBool,
}

/// The lock, held until dropped.
pub(crate) struct LockGuard {
    _file: File,
}

impl WriterLock {
    pub fn new(bank: &Path, policy: LockPolicy) -> Self {
        let mut path = bank.as_os_str().to_owned();
        path.push(".lock");
        Self {
            bank: bank.to_path_buf(),
            path: PathBuf::from(path),
            policy,
            noticed: Default::default(),
        }
    }

    pub fn acquire(&self) -> Result<LockGuard, StoreError> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.path)
            .map_err(|e| StoreError::NotABank {
                path: self.bank.clone(),
                detail: format!("cannot open its lock file {}: {e}", self.path.display()),
            })?;
        match file.try_lock() {
            Ok(()) => return Ok(LockGuard { _file: file }),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(error)) => {
                return Err(StoreError::NotABank {
                    path: self.bank.clone(),
                    detail: format!("cannot lock {}: {error}", self.path.display()),
                })
            }
        }
        match &self.policy {
            LockPolicy::NoWait => {
                return Err(StoreError::Busy {
                    path: self.bank.clone(),
                })
            }
            LockPolicy::WaitWithNotice(notice) => {
                if !self
                    .noticed
                    .swap(true, std::sync::atomic::Ordering::Relaxed)
                {
                    notice(&self.bank);
                }
            }
            LockPolicy::Wait => {}
        }
        loop {
            // std does not retry a wait a signal interrupts.
            match file.lock() {
                Ok(()) => return Ok(LockGuard { _file: file }),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => {
                    return Err(StoreError::NotABank {
                        path: self.bank.clone(),
                        detail: format!("cannot lock {}: {error}", self.path.display()),
                    })
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// A second writer is refused at once (`NoWait`), or told once and let in when the first
    /// lets go.
    #[test]
    fn a_second_writer_is_refused_or_waits_its_turn() {
        let dir = tempfile::tempdir().unwrap();
        let bank = dir.path().join("bank.sqlite3");
        let first = WriterLock::new(&bank, LockPolicy::NoWait)
            .acquire()
            .unwrap();
        assert!(matches!(
            WriterLock::new(&bank, LockPolicy::NoWait).acquire(),
            Err(StoreError::Busy { .. })
        ));
        let notices = Arc::new(AtomicUsize::new(0));
        let counted = notices.clone();
        let notice: WaitNotice = Arc::new(move |_| {
            counted.fetch_add(1, Ordering::SeqCst);
        });
        let waiter = std::thread::spawn(move || {
            WriterLock::new(&bank, LockPolicy::WaitWithNotice(notice))
                .acquire()
                .map(drop)
        });
        std::thread::sleep(Duration::from_millis(200));
        assert!(!waiter.is_finished(), "the second writer waits");
        drop(first);
        waiter.join().unwrap().unwrap();
        assert_eq!(notices.load(Ordering::SeqCst), 1);
    }
}

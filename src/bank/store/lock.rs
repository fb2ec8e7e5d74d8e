//! One writer at a time: an exclusive lock on a file beside the bank (`bank.sqlite3.lock`),
//! as uv guards its cache. Writers take it for each transaction (a release, a registration,
//! a migration), never for a whole run, so a long `bank build` delays another writer (an
//! `infer` indexing on demand) by one release at most. Readers never take it: SQLite's WAL
//! lets them read while a writer writes.
//!
//! The lock is `flock(2)` on an open file: the kernel releases it when the process ends,
//! however it ends, so a crashed writer never leaves the bank locked.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
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
        let fd = file.as_raw_fd();
        // SAFETY: `fd` is an open descriptor owned by `file` for this call's duration.
        if unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(LockGuard { _file: file });
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::WouldBlock {
            return Err(StoreError::NotABank {
                path: self.bank.clone(),
                detail: format!("cannot lock {}: {error}", self.path.display()),
            });
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
            // SAFETY: as above.
            if unsafe { libc::flock(fd, libc::LOCK_EX) } == 0 {
                return Ok(LockGuard { _file: file });
            }
            let error = std::io::Error::last_os_error();
            if error.kind() != std::io::ErrorKind::Interrupted {
                return Err(StoreError::NotABank {
                    path: self.bank.clone(),
                    detail: format!("cannot lock {}: {error}", self.path.display()),
                });
            }
        }
    }
}

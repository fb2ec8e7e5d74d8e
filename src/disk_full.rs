//! A full disk (or quota) while nbenv writes. It is its own error wherever the write was, so
//! that the user hears which file could not be written and what to do, and the exit code says
//! so, rather than an "unusable bank" or a corrupt archive. It is told from other failures by
//! what the system said (`ENOSPC`, `EDQUOT`), never by the words of a message.

use std::path::{Path, PathBuf};

/// What nbenv was writing: it says where the user can make room, or go instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The cache directory: index pages, archives, byte ranges, metadata, file summaries,
    /// environments.
    Cache,
    /// The API bank.
    Bank,
    /// A file the user asked for (`-o`, `--executed`, a report, a snapshot, batch records).
    Output,
    /// A temporary directory (scratch files, unpacked sources).
    Temporary,
}

impl Written {
    fn elsewhere(self) -> &'static str {
        match self {
            Written::Cache => "point --cache-dir (NBENV_CACHE_DIR) elsewhere",
            Written::Bank => "point --bank (NBENV_BANK) elsewhere",
            Written::Output => "write it elsewhere",
            Written::Temporary => "point TMPDIR elsewhere",
        }
    }
}

/// Which limit the write ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// The file system has no free space left (`ENOSPC`).
    Device,
    /// The user's disk quota is used up (`EDQUOT`).
    Quota,
}

impl Limit {
    /// The limit an I/O error reports reaching, if it is one.
    pub fn of_io(e: &std::io::Error) -> Option<Self> {
        match e.kind() {
            std::io::ErrorKind::StorageFull => Some(Limit::Device),
            std::io::ErrorKind::QuotaExceeded => Some(Limit::Quota),
            _ => None,
        }
    }

    /// The limit an `errno` reports reaching, if it is one (SQLite keeps the errno of its
    /// last failed system call).
    pub fn of_errno(errno: i32) -> Option<Self> {
        Self::of_io(&std::io::Error::from_raw_os_error(errno))
    }

    /// The limit an installer's report says a write ran into: the errno it prints (uv's `os
    /// error 28`, pip's `[Errno 28]`), else the system's own words for it (`strerror`), which
    /// both quote. Another program's stderr is all there is to read; the errno is the system's
    /// code, not the program's wording.
    pub fn in_report(report: &str) -> Option<Self> {
        [Limit::Device, Limit::Quota].into_iter().find(|limit| {
            let errno = match limit {
                Limit::Device => 28,
                Limit::Quota => 122,
            };
            report.contains(&format!("os error {errno})"))
                || report.contains(&format!("[Errno {errno}]"))
                || report.contains(limit.strerror())
        })
    }

    /// The C library's message for the errno (`strerror`), as installers print it.
    fn strerror(self) -> &'static str {
        match self {
            Limit::Device => "No space left on device",
            Limit::Quota => "Disk quota exceeded",
        }
    }

    fn words(self) -> &'static str {
        match self {
            Limit::Device => "no space left on the device",
            Limit::Quota => "disk quota exceeded",
        }
    }
}

/// Writing `path` failed because its disk (or the user's quota) is full.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} writing {}: free some space or {}", limit.words(), path.display(), written.elsewhere())]
pub struct DiskFull {
    pub path: PathBuf,
    pub written: Written,
    pub limit: Limit,
}

impl DiskFull {
    /// The full disk behind `e`, an error writing `path`; `None` for any other failure.
    pub fn of_io(path: &Path, written: Written, e: &std::io::Error) -> Option<Self> {
        Limit::of_io(e).map(|limit| Self {
            path: path.to_path_buf(),
            written,
            limit,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installers_report_of_a_full_disk() {
        let uv = "error: Failed to install: numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.whl (numpy==1.26.4)\n  Caused by: failed to write to file `/c/envs/.k-1/lib/python3.11/site-packages/numpy/core/_multiarray_umath.so`: No space left on device (os error 28)";
        assert_eq!(Limit::in_report(uv), Some(Limit::Device));
        let pip =
            "ERROR: Could not install packages due to an OSError: [Errno 122] Disk quota exceeded";
        assert_eq!(Limit::in_report(pip), Some(Limit::Quota));
        assert_eq!(
            Limit::in_report("error: No solution found when resolving dependencies"),
            None
        );
        // Another errno that ends in the same digits is not one of these.
        assert_eq!(Limit::in_report("(os error 128)"), None);
    }

    #[test]
    fn told_by_the_system_error_not_its_words() {
        let path = Path::new("/c/v1/files/ab/abcd");
        let full = std::io::Error::from_raw_os_error(28);
        let found = DiskFull::of_io(path, Written::Cache, &full).unwrap();
        assert_eq!(found.limit, Limit::Device);
        assert_eq!(
            found.to_string(),
            "no space left on the device writing /c/v1/files/ab/abcd: free some space or point \
             --cache-dir (NBENV_CACHE_DIR) elsewhere"
        );
        let quota = std::io::Error::from_raw_os_error(libc::EDQUOT);
        assert_eq!(
            DiskFull::of_io(path, Written::Output, &quota).map(|d| d.limit),
            Some(Limit::Quota)
        );
        // tempfile wraps the system's error with the path, keeping its kind.
        let wrapped = std::io::Error::new(full.kind(), "No space left on device at path x");
        assert!(DiskFull::of_io(path, Written::Bank, &wrapped).is_some());
        // Words alone decide nothing.
        let words = std::io::Error::other("No space left on device (os error 28)");
        assert!(DiskFull::of_io(path, Written::Bank, &words).is_none());
        let denied = std::io::Error::from_raw_os_error(libc::EACCES);
        assert!(DiskFull::of_io(path, Written::Bank, &denied).is_none());
        assert_eq!(Limit::of_errno(libc::ENOSPC), Some(Limit::Device));
        assert_eq!(Limit::of_errno(0), None);
    }
}

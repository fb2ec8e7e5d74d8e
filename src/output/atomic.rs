use std::io::Write;
use std::path::{Path, PathBuf};

use crate::disk_full::{DiskFull, Written};

/// Why an output file could not be written. Either way, a file already at the path is left as
/// it was, and no temporary file is left beside it.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{0}")]
    DiskFull(#[from] DiskFull),
    #[error("cannot write {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Writes `bytes` to `path` through a temporary file in the same directory, renamed over the
/// target once complete and flushed to disk. A symbolic link is followed to the file it names
/// (renaming over it would cut the link), and a path that is not a regular file (`-o
/// /dev/null`, a FIFO) is written in place: renaming over a device replaces it with a file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let written = match std::fs::metadata(&target) {
        Ok(meta) if !meta.is_file() => write_in_place(&target, bytes),
        _ => write_through_temporary(&target, bytes),
    };
    written.map_err(
        |source| match DiskFull::of_io(path, Written::Output, &source) {
            Some(full) => WriteError::DiskFull(full),
            None => WriteError::Io {
                path: path.to_path_buf(),
                source,
            },
        },
    )
}

fn write_in_place(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    file.write_all(bytes)?;
    file.flush()
}

fn write_through_temporary(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    remove_leftovers_once(dir);
    let mut builder = tempfile::Builder::new();
    let prefix = crate::leftover::prefix(crate::leftover::Kind::Write);
    builder.prefix(&prefix).suffix(".tmp");
    // What nbenv writes for the user (requirements, locks, reports) is made to be shared:
    // the permissions of any new file, the umask applying, not a temporary file's 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Removes the temporary files killed runs left in `dir`, the first time this process writes
/// there: one listing of the folder, not one for every file written.
fn remove_leftovers_once(dir: &Path) {
    static SWEPT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let dir = dir.to_path_buf();
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
        if swept.contains(&dir) {
            return;
        }
        swept.push(dir.clone());
    }
    crate::leftover::remove_abandoned_in(&dir);
}

/// Whether two paths name one file (either may not exist yet: then they do not): a command
/// never writes over its input.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn written_files_are_readable_by_others_as_the_umask_allows() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("requirements.txt");
        write_atomically(&target, b"x\n").unwrap();
        let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        // SAFETY: umask only reads and sets this process's mask; set back at once.
        let mask = unsafe {
            let m = libc::umask(0o022);
            libc::umask(m);
            m
        };
        assert_eq!(mode, 0o666 & !mask, "{mode:o}");
    }

    #[test]
    fn replaces_the_file_whole_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("requirements.txt");
        std::fs::write(&target, "old\n").unwrap();
        write_atomically(&target, b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1);
        // A directory that does not exist: an error, and nothing written.
        assert!(write_atomically(&dir.path().join("no/such/file"), b"x").is_err());
    }

    /// The first write into a folder removes the temporary files killed runs left there
    /// (their owner is gone), and keeps those of a run still writing.
    #[test]
    fn the_first_write_in_a_folder_removes_what_killed_runs_left_there() {
        let dir = tempfile::tempdir().unwrap();
        // Process ids above the kernel's pid_max (4194304 at most) never run.
        let dead = dir.path().join(".nbenv-write-99999999.5-abc.tmp");
        let live = dir.path().join(format!(
            "{}def.tmp",
            crate::leftover::prefix(crate::leftover::Kind::Write)
        ));
        for path in [&dead, &live] {
            std::fs::write(path, "half").unwrap();
        }
        write_atomically(&dir.path().join("requirements.txt"), b"x\n").unwrap();
        assert!(!dead.exists());
        assert!(live.exists());
    }

    /// `-o /dev/null` once replaced the device with a regular file: a path that is not a
    /// regular file is written in place. A FIFO stands in for the device.
    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_a_regular_file_is_written_in_place() {
        use std::io::Read as _;
        use std::os::unix::fs::FileTypeExt as _;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut got = String::new();
                std::fs::File::open(&fifo)
                    .unwrap()
                    .read_to_string(&mut got)
                    .unwrap();
                got
            })
        };
        write_atomically(&fifo, b"through the pipe\n").unwrap();
        // Checked before joining: a FIFO replaced by a file would leave the reader waiting.
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{kind:?}");
        assert_eq!(reader.join().unwrap(), "through the pipe\n");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }

    /// A symbolic link stays a link; the file it names gets the bytes.
    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        std::fs::write(&real, "old\n").unwrap();
        let link = dir.path().join("requirements.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomically(&link, b"new\n").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new\n");
    }
}

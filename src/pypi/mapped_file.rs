//! A cache file mapped read-only into memory, for files read in parts and kept a while.
//!
//! A warm resolution reads the compact copies of 10–60 project pages: a few ranges of each
//! (the head, the details of the files that may install here), whose bytes stay referenced by
//! the releases until the solver is done. Read into buffers, that was three system calls per
//! range (`statx`, `lseek`, `read`), a copy, and fresh pages to fault in; mapped, the page
//! cache's own pages are read in place.
//!
//! Only files that are never written in place may be mapped: cache entries are replaced by
//! renaming a new file over them and removed by unlinking, so a mapping always sees the bytes
//! it was made from.

use std::fs::File;
use std::os::fd::AsRawFd;

/// The whole of a file, mapped; or read into memory where mapping fails.
pub struct MappedFile {
    map: Option<(std::ptr::NonNull<u8>, usize)>,
    read: Vec<u8>,
}

// SAFETY: the mapping is private, read-only and never changed through this handle, so sharing
// it across threads is sharing immutable bytes.
unsafe impl Send for MappedFile {}
unsafe impl Sync for MappedFile {}

impl MappedFile {
    /// Maps `file`, whose bytes must never change in place (see the module's note).
    pub fn open(file: &File) -> std::io::Result<Self> {
        let len = usize::try_from(file.metadata()?.len())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::FileTooLarge))?;
        if len == 0 {
            return Ok(Self {
                map: None,
                read: Vec::new(),
            });
        }
        // SAFETY: a fresh private read-only mapping of a file we hold open; the result is
        // checked before use and unmapped exactly once, in `drop`.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        match std::ptr::NonNull::new(ptr.cast::<u8>()).filter(|_| ptr != libc::MAP_FAILED) {
            Some(ptr) => Ok(Self {
                map: Some((ptr, len)),
                read: Vec::new(),
            }),
            None => {
                use std::io::Read;
                let mut read = Vec::with_capacity(len);
                (&mut &*file).read_to_end(&mut read)?;
                Ok(Self { map: None, read })
            }
        }
    }
}

impl AsRef<[u8]> for MappedFile {
    fn as_ref(&self) -> &[u8] {
        match self.map {
            // SAFETY: `len` bytes from `ptr` are mapped readable for as long as `self` lives.
            Some((ptr, len)) => unsafe { std::slice::from_raw_parts(ptr.as_ptr(), len) },
            None => &self.read,
        }
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        if let Some((ptr, len)) = self.map {
            // SAFETY: the mapping made in `open`, unmapped once.
            unsafe {
                libc::munmap(ptr.as_ptr().cast(), len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn maps_what_the_file_holds_and_outlives_its_removal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("copy");
        let bytes: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
        std::fs::File::create(&path)
            .unwrap()
            .write_all(&bytes)
            .unwrap();
        let mapped = MappedFile::open(&File::open(&path).unwrap()).unwrap();
        // Replaced by a rename, as the cache does: the mapping keeps the old bytes.
        let new = dir.path().join("new");
        std::fs::write(&new, b"other").unwrap();
        std::fs::rename(&new, &path).unwrap();
        assert_eq!(mapped.as_ref(), &bytes[..]);
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert!(MappedFile::open(&File::open(&empty).unwrap())
            .unwrap()
            .as_ref()
            .is_empty());
    }
}

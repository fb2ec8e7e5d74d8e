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
//!
//! A file that shrinks while mapped (truncated in place, which nbenv never does to its cache)
//! cannot be guarded against: reading a mapped page past the new end raises `SIGBUS` and
//! ends the process. The mapping is private and read-only (`MAP_PRIVATE`), as the
//! hand-written `mmap` it replaces was; being private does not shield it from a shorter file.

use std::fs::File;

use memmap2::{Mmap, MmapOptions};

/// The whole of a file, mapped; or read into memory where mapping fails.
pub enum MappedFile {
    Mapped(Mmap),
    Read(Vec<u8>),
}

impl MappedFile {
    /// Maps `file`, whose bytes must never change in place (see the module's note).
    pub fn open(file: &File) -> std::io::Result<Self> {
        let len = usize::try_from(file.metadata()?.len())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::FileTooLarge))?;
        if len == 0 {
            return Ok(Self::Read(Vec::new()));
        }
        // SAFETY: memmap2's contract is that the file is not changed (above all not
        // truncated) while mapped: cache files are replaced by rename and removed by unlink,
        // never written in place (the module's note says what a truncation would do).
        match unsafe { MmapOptions::new().len(len).map_copy_read_only(file) } {
            Ok(map) => Ok(Self::Mapped(map)),
            Err(_) => {
                use std::io::Read;
                let mut read = Vec::with_capacity(len);
                (&mut &*file).read_to_end(&mut read)?;
                Ok(Self::Read(read))
            }
        }
    }
}

impl AsRef<[u8]> for MappedFile {
    fn as_ref(&self) -> &[u8] {
        match self {
            Self::Mapped(map) => map,
            Self::Read(read) => read,
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

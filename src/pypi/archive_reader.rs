use super::archive::{ArchiveLimits, EntryInfo, Member, Transfer};
use super::error::PypiError;
use super::filename::SdistFormat;
use super::remote_file::RemoteFile;
use super::sdist::read_sdist;
use super::zip_reader::ZipIndex;

/// An archive opened for several reads: list it, read some members, decide, read more.
///
/// The API bank reads a wheel's RECORD first and then only the sources whose hashes it has
/// not seen, so the central directory must not be fetched twice.
pub struct ArchiveReader<'a> {
    inner: Inner<'a>,
    limits: ArchiveLimits,
}

enum Inner<'a> {
    Wheel {
        remote: RemoteFile<'a>,
        index: ZipIndex,
    },
    Sdist {
        filename: String,
        bytes: Vec<u8>,
        format: SdistFormat,
        transfer: Transfer,
        entries: Option<Vec<EntryInfo>>,
    },
}

impl<'a> ArchiveReader<'a> {
    pub(crate) fn wheel(
        mut remote: RemoteFile<'a>,
        limits: ArchiveLimits,
    ) -> Result<Self, PypiError> {
        let index = ZipIndex::open(&mut remote, &limits)?;
        Ok(Self {
            inner: Inner::Wheel { remote, index },
            limits,
        })
    }

    pub(crate) fn sdist(
        filename: String,
        bytes: Vec<u8>,
        format: SdistFormat,
        transfer: Transfer,
        limits: ArchiveLimits,
    ) -> Self {
        Self {
            inner: Inner::Sdist {
                filename,
                bytes,
                format,
                transfer,
                entries: None,
            },
            limits,
        }
    }

    /// Every member the archive lists.
    pub fn entries(&mut self) -> Result<Vec<EntryInfo>, PypiError> {
        // A tarball is listed by reading it through; `read` remembers the listing.
        if matches!(self.inner, Inner::Sdist { entries: None, .. }) {
            self.read(&|_: &str| false)?;
        }
        Ok(match &self.inner {
            Inner::Wheel { index, .. } => index.listing(),
            Inner::Sdist { entries, .. } => entries.clone().unwrap_or_default(),
        })
    }

    /// Reads the members `select` picks.
    pub fn read(&mut self, select: &dyn Fn(&str) -> bool) -> Result<Vec<Member>, PypiError> {
        match &mut self.inner {
            Inner::Wheel { remote, index } => index.read(remote, select, &self.limits),
            Inner::Sdist {
                filename,
                bytes,
                format,
                entries,
                ..
            } => {
                let (listing, members) =
                    read_sdist(bytes, *format, filename, select, &self.limits)?;
                entries.get_or_insert(listing);
                Ok(members)
            }
        }
    }

    /// What reading cost so far.
    pub fn transfer(&self) -> Transfer {
        match &self.inner {
            Inner::Wheel { remote, .. } => remote.transfer,
            Inner::Sdist { transfer, .. } => *transfer,
        }
    }
}

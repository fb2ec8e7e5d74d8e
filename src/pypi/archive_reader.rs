use super::archive::{ArchiveLimits, EntryInfo, Member, Transfer};
use super::error::PypiError;
use super::filename::SdistFormat;
use super::remote_file::RemoteFile;
use super::sdist::read_tar_stream;
use super::streamed_file::StreamedFile;
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
    /// Wheels and zip sdists: by range, through the central directory.
    Zip {
        remote: RemoteFile<'a>,
        index: ZipIndex,
    },
    /// Tarball sdists: streamed through once per read.
    Tar {
        source: StreamedFile<'a>,
        format: SdistFormat,
        entries: Option<Vec<EntryInfo>>,
    },
}

impl<'a> ArchiveReader<'a> {
    pub(crate) fn zip(
        mut remote: RemoteFile<'a>,
        limits: ArchiveLimits,
    ) -> Result<Self, PypiError> {
        let index = ZipIndex::open(&mut remote, &limits)?;
        Ok(Self {
            inner: Inner::Zip { remote, index },
            limits,
        })
    }

    pub(crate) fn tar(
        source: StreamedFile<'a>,
        format: SdistFormat,
        limits: ArchiveLimits,
    ) -> Self {
        Self {
            inner: Inner::Tar {
                source,
                format,
                entries: None,
            },
            limits,
        }
    }

    /// Every member the archive lists.
    pub fn entries(&mut self) -> Result<Vec<EntryInfo>, PypiError> {
        // A tarball is listed by reading it through; `read` remembers the listing.
        if matches!(self.inner, Inner::Tar { entries: None, .. }) {
            self.read(&|_: &str| false)?;
        }
        Ok(match &self.inner {
            Inner::Zip { index, .. } => index.listing(),
            Inner::Tar { entries, .. } => entries.clone().unwrap_or_default(),
        })
    }

    /// Reads the members `select` picks. A tarball is streamed through again for each call,
    /// so ask for everything needed at once.
    pub fn read(&mut self, select: &dyn Fn(&str) -> bool) -> Result<Vec<Member>, PypiError> {
        let limits = self.limits;
        match &mut self.inner {
            Inner::Zip { remote, index } => index.read(remote, select, &limits),
            Inner::Tar {
                source,
                format,
                entries,
            } => {
                let filename = source.filename().to_string();
                let format = *format;
                let (listing, members) = source.read_with(&mut |bytes| {
                    read_tar_stream(bytes, format, &filename, select, &limits)
                })?;
                *entries = Some(listing);
                Ok(members)
            }
        }
    }

    /// What reading cost so far.
    pub fn transfer(&self) -> Transfer {
        match &self.inner {
            Inner::Zip { remote, .. } => remote.transfer,
            Inner::Tar { source, .. } => source.transfer,
        }
    }
}

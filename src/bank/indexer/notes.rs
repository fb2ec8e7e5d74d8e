//! Reading a release's change notes from its sdist on the index, into the bank. An sdist is
//! a tarball read whole, so only chosen releases are read (`bank notes`, or the releases
//! around a removal a notebook meets), and each once: the bank keeps what was read, and
//! what could not be (no sdist, too large).

use std::path::Path;

use pep440_rs::Version;
use serde::Serialize;

use crate::bank::notes::{is_note_file, notes_in, NotesRead};
use crate::bank::store::{NotesOutcome, Store, StoreError};
use crate::names::DistName;
use crate::pypi::{DistFile, FileKind, IndexClient, PypiError, SdistFormat};

/// Sdists larger than this are not fetched for their notes (a bundled jar or dataset).
pub const NOTES_MAX_BYTES: u64 = 80 << 20;

#[derive(Debug, thiserror::Error)]
pub enum NotesError {
    #[error(transparent)]
    Index(#[from] PypiError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{dist} has no release {version} on the index")]
    NoRelease { dist: DistName, version: Version },
    #[error("{dist} has no final release on the index")]
    NoReleases { dist: DistName },
}

/// Which release's sdist to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotesAt {
    /// The newest final release with an sdist nbenv reads.
    Newest,
    Release(Version),
}

/// What reading a release's notes came to.
#[derive(Debug, Clone, Serialize)]
pub struct NotesKept {
    pub dist: DistName,
    pub version: Version,
    pub outcome: NotesOutcome,
    pub sdist: Option<String>,
    /// Notes files in the sdist, and old APIs their statements name with a replacement.
    pub files: usize,
    pub notes: usize,
    /// Read before: nothing was fetched.
    pub already: bool,
}

/// The sdist of a release to read notes from: a tarball before a zip (both are read), none
/// of another format, none yanked.
fn sdist_of<'a>(files: &[&'a DistFile]) -> Option<&'a DistFile> {
    let rank = |f: &DistFile| match f.kind {
        FileKind::Sdist {
            format: SdistFormat::TarGz,
        } => Some(0),
        FileKind::Sdist {
            format: SdistFormat::TarBz2 | SdistFormat::Tar,
        } => Some(1),
        FileKind::Sdist {
            format: SdistFormat::Zip,
        } => Some(2),
        _ => None,
    };
    files
        .iter()
        .filter(|f| !f.is_yanked())
        .filter_map(|f| rank(f).map(|r| (r, *f)))
        .min_by_key(|(r, _)| *r)
        .map(|(_, f)| f)
}

/// Reads the change notes of `dist` at `at` into the bank at `bank`, unless that release was
/// read before (`force` reads it again).
pub fn read_notes(
    client: &IndexClient,
    bank: &Path,
    dist: &DistName,
    at: &NotesAt,
    force: bool,
) -> Result<NotesKept, NotesError> {
    // A release read before costs neither the index nor the writer lock.
    if let (NotesAt::Release(v), false) = (at, force) {
        if let Some(kept) = already_read(bank, dist, v)? {
            return Ok(kept);
        }
    }
    let page = client.project(dist)?;
    let releases = page.releases();
    let release = match at {
        NotesAt::Release(v) => releases.iter().find(|r| r.version == v),
        NotesAt::Newest => releases
            .iter()
            .rev()
            .filter(|r| !r.version.any_prerelease())
            .find(|r| sdist_of(&r.files).is_some())
            .or_else(|| releases.iter().rev().find(|r| !r.version.any_prerelease())),
    };
    let Some(release) = release else {
        return Err(match at {
            NotesAt::Release(v) => NotesError::NoRelease {
                dist: dist.clone(),
                version: v.clone(),
            },
            NotesAt::Newest => NotesError::NoReleases { dist: dist.clone() },
        });
    };
    let version = release.version.clone();
    if !force {
        if let Some(kept) = already_read(bank, dist, &version)? {
            return Ok(kept);
        }
    }
    let mut store = Store::open(bank)?;
    let unread = |store: &mut Store, outcome: NotesOutcome, sdist: Option<String>| {
        store.record_notes_unread(dist, &version, outcome, jiff::Timestamp::now())?;
        Ok(NotesKept {
            dist: dist.clone(),
            version: version.clone(),
            outcome,
            sdist,
            files: 0,
            notes: 0,
            already: false,
        })
    };
    let Some(sdist) = sdist_of(&release.files) else {
        return unread(&mut store, NotesOutcome::NoSdist, None);
    };
    if sdist.size.is_some_and(|s| s > NOTES_MAX_BYTES) {
        return unread(
            &mut store,
            NotesOutcome::TooLarge,
            Some(sdist.filename.clone()),
        );
    }
    // The bank's writer lock is not held while the sdist is fetched.
    drop(store);
    let read = read_sdist(client, dist, &version, sdist)?;
    let mut store = Store::open(bank)?;
    store.record_change_notes(&read, jiff::Timestamp::now())?;
    Ok(NotesKept {
        dist: dist.clone(),
        version,
        outcome: NotesOutcome::Read,
        sdist: Some(read.sdist),
        files: read.files,
        notes: read.notes.len(),
        already: false,
    })
}

/// What the bank at `bank` kept of reading `dist` `version`'s notes, if it was read (by this
/// notes reader, or found unreadable).
fn already_read(
    bank: &Path,
    dist: &DistName,
    version: &Version,
) -> Result<Option<NotesKept>, StoreError> {
    if !bank.exists() {
        return Ok(None);
    }
    let store = Store::open_read_only(bank)?;
    let row = store
        .notes_reads(dist)?
        .into_iter()
        .find(|r| r.version == *version && r.is_current());
    Ok(row.map(|row| NotesKept {
        dist: dist.clone(),
        version: version.clone(),
        outcome: row.outcome,
        sdist: row.sdist,
        files: row.files as usize,
        notes: row.notes as usize,
        already: true,
    }))
}

/// The notes in one sdist.
fn read_sdist(
    client: &IndexClient,
    dist: &DistName,
    version: &Version,
    sdist: &DistFile,
) -> Result<NotesRead, PypiError> {
    let contents = client.read_archive(sdist, &is_note_file)?;
    let mut notes = Vec::new();
    for member in &contents.members {
        let below_root = member
            .name
            .split_once('/')
            .map_or(member.name.as_str(), |(_, rest)| rest);
        notes.extend(notes_in(below_root, &String::from_utf8_lossy(&member.data)));
    }
    Ok(NotesRead {
        dist: dist.clone(),
        version: version.clone(),
        sdist: sdist.filename.clone(),
        files: contents.members.len(),
        notes,
    })
}

//! A release's files as the solver reads them: what judging the release needs of each file
//! (its kind and tags, upload time, yanked) at hand, the whole files (names, URLs, hashes)
//! made only when asked for. The solver judges every release of every distribution it meets
//! (thousands of files), and reads whole files only for the few releases it picks.

use std::sync::OnceLock;

use pep508_rs::pep440_rs::Version;

use crate::pypi::{DistFile, ReleaseFile};

#[derive(Debug, Clone)]
pub struct ReleaseFiles {
    version: Version,
    entries: Vec<ReleaseFile>,
    whole: OnceLock<Vec<DistFile>>,
}

impl ReleaseFiles {
    /// Files known whole already.
    pub fn new(version: Version, files: Vec<DistFile>) -> Self {
        Self {
            version,
            entries: files.iter().cloned().map(ReleaseFile::from_file).collect(),
            whole: OnceLock::from(files),
        }
    }

    /// Files of release `version` read whole on first need.
    pub fn lazy(version: Version, entries: Vec<ReleaseFile>) -> Self {
        Self {
            version,
            entries,
            whole: OnceLock::new(),
        }
    }

    /// What judging each file needs, in the same order as [`Self::whole`].
    pub fn entries(&self) -> &[ReleaseFile] {
        &self.entries
    }

    /// The whole files.
    pub fn whole(&self) -> &[DistFile] {
        self.whole.get_or_init(|| {
            self.entries
                .iter()
                .map(|e| e.dist_file(&self.version))
                .collect()
        })
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

//! What the solver reads about distributions, behind a trait so that tests and small banks
//! resolve from memory and `infer` from the index (as uv's resolver reads through a provider).

use std::sync::Arc;

use jiff::Timestamp;
use pep508_rs::pep440_rs::Version;

use super::release_files::ReleaseFiles;
use super::target::Target;
use crate::names::DistName;
use crate::pypi::{
    DistFile, FileKind, InvalidRequiresDist, PypiError, RequiresDist, RequiresPython,
};

/// A source of releases and their dependencies. Implementations memoize: the solver asks for
/// the same distribution many times. `Sync`, so that one catalog serves worker threads.
pub trait Catalog: Sync {
    /// Every release of `dist`, oldest first (PEP 440 order).
    fn releases(&self, dist: &DistName) -> Result<Arc<[Release]>, CatalogError>;

    /// The Requires-Dist and Requires-Python of one release, as the file best fitting
    /// `target` declares them (wheels of one release may differ).
    fn metadata(
        &self,
        dist: &DistName,
        release: &Release,
        target: &Target,
    ) -> Result<Arc<ReleaseMetadata>, CatalogError>;

    /// Whether `sdist`, a file of `release`, is pure Python (builds without compiling
    /// anything). Asked only of releases the solver considers that have no wheel for the
    /// target; what cannot be found out (offline, too large) is not pure, and no error.
    fn is_pure_python_sdist(&self, dist: &DistName, release: &Release, sdist: &DistFile) -> bool;
}

/// One version of a distribution, with its files.
#[derive(Debug, Clone)]
pub struct Release {
    pub version: Version,
    /// As the index gives it (when absent, the metadata may still have one).
    pub requires_python: RequiresPython,
    /// Every file is yanked (PEP 592).
    pub yanked: bool,
    pub files: ReleaseFiles,
}

impl Release {
    /// When the release appeared: its earliest upload.
    pub fn upload_time(&self) -> Option<Timestamp> {
        self.files
            .entries()
            .iter()
            .filter_map(|f| f.upload_time)
            .min()
    }

    pub fn has_sdist(&self) -> bool {
        self.files
            .entries()
            .iter()
            .any(|f| matches!(f.kind, FileKind::Sdist { .. }))
    }
}

/// The dependency fields of a release's core metadata.
#[derive(Debug, Clone, Default)]
pub struct ReleaseMetadata {
    pub requires_dist: Vec<RequiresDist>,
    pub requires_python: RequiresPython,
    /// Requires-Dist lines no leniency can read: left out of the resolution, kept to report.
    pub unreadable: Vec<InvalidRequiresDist>,
}

impl ReleaseMetadata {
    /// Parses Requires-Dist lines as metadata gives them, beside its Requires-Python.
    pub fn parse<'a>(
        requires_dist: impl IntoIterator<Item = &'a str>,
        requires_python: RequiresPython,
    ) -> Self {
        let mut meta = Self {
            requires_python,
            ..Self::default()
        };
        for line in requires_dist {
            match line.parse::<RequiresDist>() {
                Ok(r) => meta.requires_dist.push(r),
                Err(e) => meta.unreadable.push(e),
            }
        }
        meta
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("{dist} is not on the index")]
    NotFound { dist: DistName },
    #[error("could not read the releases of {dist}: {source}")]
    Releases {
        dist: DistName,
        #[source]
        source: PypiError,
    },
    #[error("could not read the metadata of {dist} {version}: {source}")]
    Metadata {
        dist: DistName,
        version: Version,
        #[source]
        source: PypiError,
    },
    #[error("{dist} {version} has no file to read its metadata from")]
    NoFiles { dist: DistName, version: Version },
}

impl CatalogError {
    /// Whether the error says something about the release itself (its metadata is missing or
    /// broken), so that the solver moves on to another release, rather than about reaching
    /// the index, which stops the resolution.
    pub fn release_is_unusable(&self) -> bool {
        match self {
            CatalogError::NoFiles { .. } => true,
            CatalogError::Metadata { source, .. } => {
                source.is_not_found()
                    || matches!(
                        source,
                        PypiError::NoMetadata { .. }
                            | PypiError::BadArchive { .. }
                            | PypiError::Refused { .. }
                            | PypiError::HashMismatch { .. }
                    )
            }
            CatalogError::NotFound { .. } | CatalogError::Releases { .. } => false,
        }
    }
}

//! A catalog read from a package index through [`IndexClient`]: project pages for releases
//! (through their compact copies in the cache, keeping only the files that may install on
//! this machine), core metadata for dependencies, each read once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::catalog::{Catalog, CatalogError, Release, ReleaseMetadata};
use super::release_files::ReleaseFiles;
use super::target::Target;
use crate::names::DistName;
use crate::pypi::{DistFile, FileKind, IndexClient, ReleaseFile};
use crate::python::wheel_platform_fits;

/// Reads releases and metadata from an index, memoizing both for the catalog's lifetime.
pub struct IndexCatalog<'c> {
    client: &'c IndexClient,
    releases: Mutex<HashMap<DistName, Arc<[Release]>>>,
    /// Keyed by file: targets that pick the same file share its metadata.
    metadata: Mutex<HashMap<String, Arc<ReleaseMetadata>>>,
    /// Whether each sdist asked about is pure Python, by file.
    pure: Mutex<HashMap<String, bool>>,
}

impl<'c> IndexCatalog<'c> {
    pub fn new(client: &'c IndexClient) -> Self {
        Self {
            client,
            releases: Mutex::default(),
            metadata: Mutex::default(),
            pure: Mutex::default(),
        }
    }
}

/// The file whose metadata speaks for the release on `target`: a wheel that installs there
/// (unyanked first), else an sdist (what would be built), else any wheel. Only that release's
/// files are read whole.
fn metadata_file<'r>(release: &'r Release, target: &Target) -> Option<&'r DistFile> {
    let entries = release.files.entries();
    let fitting =
        |f: &&ReleaseFile| matches!(&f.kind, FileKind::Wheel { tags, .. } if target.fits(tags));
    let chosen = entries
        .iter()
        .filter(fitting)
        .min_by_key(|f| f.yanked)
        .or_else(|| {
            entries
                .iter()
                .find(|f| matches!(f.kind, FileKind::Sdist { .. }))
        })
        .or_else(|| entries.first())?;
    let at = entries.iter().position(|e| std::ptr::eq(e, chosen))?;
    release.files.whole().get(at)
}

impl Catalog for IndexCatalog<'_> {
    fn releases(&self, dist: &DistName) -> Result<Arc<[Release]>, CatalogError> {
        if let Some(found) = lock(&self.releases).get(dist) {
            return Ok(found.clone());
        }
        let page = self
            .client
            .project_releases(dist, &may_install_here)
            .map_err(|source| {
                if source.is_not_found() {
                    CatalogError::NotFound { dist: dist.clone() }
                } else {
                    CatalogError::Releases {
                        dist: dist.clone(),
                        source,
                    }
                }
            })?;
        let releases: Arc<[Release]> = page
            .into_iter()
            .map(|r| Release {
                requires_python: r.requires_python,
                files: ReleaseFiles::lazy(r.version.clone(), r.files),
                version: r.version,
                yanked: r.yanked,
            })
            .collect();
        lock(&self.releases).insert(dist.clone(), releases.clone());
        Ok(releases)
    }

    fn metadata(
        &self,
        dist: &DistName,
        release: &Release,
        target: &Target,
    ) -> Result<Arc<ReleaseMetadata>, CatalogError> {
        let file = metadata_file(release, target).ok_or_else(|| CatalogError::NoFiles {
            dist: dist.clone(),
            version: release.version.clone(),
        })?;
        let key = file.cache_key();
        if let Some(found) = lock(&self.metadata).get(&key) {
            return Ok(found.clone());
        }
        let (core, _source) =
            self.client
                .core_metadata(file)
                .map_err(|source| CatalogError::Metadata {
                    dist: dist.clone(),
                    version: release.version.clone(),
                    source,
                })?;
        let parsed = Arc::new(ReleaseMetadata::parse(
            core.requires_dist.iter().map(String::as_str),
            core.requires_python,
        ));
        lock(&self.metadata).insert(key, parsed.clone());
        Ok(parsed)
    }

    /// From the sdist's survey (see [`IndexClient::survey_sdist`]: fetched once, then read
    /// from the cache); a survey that cannot be made (offline, the network) says not pure.
    fn is_pure_python_sdist(&self, _dist: &DistName, _release: &Release, sdist: &DistFile) -> bool {
        let key = sdist.cache_key();
        if let Some(&known) = lock(&self.pure).get(&key) {
            return known;
        }
        let pure = self
            .client
            .survey_sdist(sdist)
            .is_ok_and(|survey| survey.is_pure_python());
        lock(&self.pure).insert(key, pure);
        pure
    }
}

/// Whether a file may install on some interpreter of this machine: an sdist, or a wheel
/// whose platform tags fit here (targets differ only in their Python). Wheels for other
/// platforms (most files of a binary project) could never be chosen, so they are not read.
/// A release keeps its place, its yanked state and its Requires-Python even when none of its
/// files is kept; the one trace of the others is in `--exclude-newer` verdicts, where a
/// release whose only files uploaded in time are for other platforms is said to be
/// "uploaded after" the cap rather than to have no wheel.
fn may_install_here(kind: &FileKind) -> bool {
    match kind {
        FileKind::Sdist { .. } => true,
        FileKind::Wheel { tags, .. } => wheel_platform_fits(tags),
    }
}

/// A poisoned memo is still a valid memo: entries are inserted whole.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

//! The releases of one distribution that a search may read or lean on, in version order: the
//! ones already read and those it could read (index, or introspect). Releases that cannot be
//! read (indexing failed), yanked ones, pre-releases (when finals exist), releases outside what
//! the notebook's install lines allow, and uploads after the date cap are left out: no pin
//! falls on them.

use jiff::Timestamp;

use crate::bank::store::{Catalog, CatalogRelease, IndexStatus, ReleaseSet};

/// One distribution's line of releases, oldest first.
#[derive(Debug)]
pub struct Line<'a> {
    pub releases: Vec<&'a CatalogRelease>,
    read: Vec<bool>,
}

/// What counts as read, and what could be.
pub trait Reading {
    fn is_read(&self, release: &CatalogRelease) -> bool;
    fn can_read(&self, release: &CatalogRelease) -> bool;
}

/// Indexing: a release is read once indexed; any not indexed (nor failed) can be.
pub struct Indexing;

impl Reading for Indexing {
    fn is_read(&self, release: &CatalogRelease) -> bool {
        release.index == IndexStatus::Indexed
    }
    fn can_read(&self, release: &CatalogRelease) -> bool {
        release.index == IndexStatus::NotIndexed
    }
}

impl<'a> Line<'a> {
    /// The line of `catalog` within `scope` (all registered releases when `None`).
    pub fn new(catalog: &'a Catalog, scope: Option<&ReleaseSet>, cap: Option<Timestamp>) -> Self {
        Self::reading(catalog, scope, cap, &Indexing)
    }

    /// The same, for another way of reading releases.
    pub fn reading(
        catalog: &'a Catalog,
        scope: Option<&ReleaseSet>,
        cap: Option<Timestamp>,
        reading: &dyn Reading,
    ) -> Self {
        let usable = |r: &&CatalogRelease| {
            (reading.is_read(r) || reading.can_read(r))
                && !r.yanked
                && scope.is_none_or(|s| s.contains(r.slot))
                && match (cap, r.upload_time) {
                    (Some(cap), Some(at)) => at <= cap,
                    _ => true,
                }
        };
        let all: Vec<&CatalogRelease> = catalog.releases.iter().filter(usable).collect();
        let finals: Vec<&CatalogRelease> = all
            .iter()
            .copied()
            .filter(|r| !r.version.any_prerelease())
            .collect();
        let releases = if finals.is_empty() { all } else { finals };
        let read = releases.iter().map(|r| reading.is_read(r)).collect();
        Self { releases, read }
    }

    /// Whether the release at `at` is read (indexed, or settled).
    pub fn is_read(&self, at: usize) -> bool {
        self.read[at]
    }

    /// Positions of the releases read, oldest first.
    pub fn read(&self) -> Vec<usize> {
        (0..self.releases.len())
            .filter(|&i| self.is_read(i))
            .collect()
    }

    /// The release nearest to `target` among those not read in `from..=to`, ties to the
    /// newer one.
    pub fn nearest_unread(&self, target: usize, from: usize, to: usize) -> Option<usize> {
        (from..=to.min(self.releases.len().saturating_sub(1)))
            .filter(|&i| !self.is_read(i))
            .min_by_key(|&i| (i.abs_diff(target), std::cmp::Reverse(i)))
    }
}

//! The releases of one distribution that lazy indexing may read or lean on, in version order:
//! the indexed ones and those it could index. Releases whose indexing failed, yanked ones,
//! pre-releases (when finals exist), releases outside what the notebook's install lines
//! allow, and uploads after the date cap are left out: no pin falls on them.

use jiff::Timestamp;

use crate::bank::store::{Catalog, CatalogRelease, IndexStatus, ReleaseSet};

/// One distribution's line of releases, oldest first.
#[derive(Debug)]
pub struct Line<'a> {
    pub releases: Vec<&'a CatalogRelease>,
}

impl<'a> Line<'a> {
    /// The line of `catalog` within `scope` (all registered releases when `None`).
    pub fn new(catalog: &'a Catalog, scope: Option<&ReleaseSet>, cap: Option<Timestamp>) -> Self {
        let usable = |r: &&CatalogRelease| {
            r.index != IndexStatus::Failed
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
        Self {
            releases: if finals.is_empty() { all } else { finals },
        }
    }

    pub fn is_indexed(&self, at: usize) -> bool {
        self.releases[at].index == IndexStatus::Indexed
    }

    /// Positions of the indexed releases, oldest first.
    pub fn indexed(&self) -> Vec<usize> {
        (0..self.releases.len())
            .filter(|&i| self.is_indexed(i))
            .collect()
    }

    /// The release nearest to `target` among those not indexed in `from..=to`, ties to the
    /// newer one.
    pub fn nearest_unindexed(&self, target: usize, from: usize, to: usize) -> Option<usize> {
        (from..=to.min(self.releases.len().saturating_sub(1)))
            .filter(|&i| !self.is_indexed(i))
            .min_by_key(|&i| (i.abs_diff(target), std::cmp::Reverse(i)))
    }
}

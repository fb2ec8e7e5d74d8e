//! A distribution's releases as the resolver reads them: in PEP 440 order, with what the
//! index said of each (upload time, Requires-Python, yanked) and whether the bank indexed it.
//!
//! Whether a release was indexed is kept beside every answer, because a release the bank has
//! not read says nothing about its APIs: it must never be mistaken for one that lacks them.

use std::collections::HashMap;

use jiff::Timestamp;
use pep508_rs::pep440_rs::{Version, VersionSpecifiers};
use serde::Serialize;

use crate::pypi::RequiresPython;

use super::registry::ReleaseStatus;
use super::release_facts::ReleaseFacts;
use super::{DistId, ReleaseSet, Slot, Store, StoreError};

/// Whether the bank has read a release's APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IndexStatus {
    Indexed,
    /// Indexing was tried and failed: as unknown as a release never tried.
    Failed,
    /// Registered from the index, not read yet.
    NotIndexed,
}

/// One release, as the resolver needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CatalogRelease {
    pub slot: Slot,
    pub version: Version,
    pub upload_time: Option<Timestamp>,
    pub requires_python: RequiresPython,
    pub yanked: bool,
    pub index: IndexStatus,
    /// Introspection could not run it here: an inference does not try again.
    pub runtime_gap: bool,
}

impl CatalogRelease {
    /// `requires_python` gives a row's Requires-Python as parsed before, if it was.
    fn from_row<'r>(
        row: &'r ReleaseFacts,
        requires_python: &mut HashMap<Option<&'r str>, RequiresPython>,
    ) -> Self {
        Self {
            slot: row.slot,
            version: row.version.clone(),
            upload_time: row.upload_time,
            requires_python: requires_python
                .entry(row.requires_python.as_deref())
                .or_insert_with_key(|text| RequiresPython::parse(*text))
                .clone(),
            yanked: row.yanked,
            runtime_gap: row.runtime_gap,
            index: match row.status {
                ReleaseStatus::Indexed => IndexStatus::Indexed,
                ReleaseStatus::Failed => IndexStatus::Failed,
                ReleaseStatus::Pending => IndexStatus::NotIndexed,
            },
        }
    }
}

/// Every registered release of one distribution, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Catalog {
    /// Sorted by version; each slot appears once.
    pub releases: Vec<CatalogRelease>,
}

impl Catalog {
    /// Sorts `releases` by version, so that callers building one need not.
    pub fn new(mut releases: Vec<CatalogRelease>) -> Self {
        releases.sort_by(|a, b| a.version.cmp(&b.version));
        Self { releases }
    }

    pub fn registered(&self) -> ReleaseSet {
        self.releases.iter().map(|r| r.slot).collect()
    }

    pub fn indexed(&self) -> ReleaseSet {
        self.releases
            .iter()
            .filter(|r| r.index == IndexStatus::Indexed)
            .map(|r| r.slot)
            .collect()
    }

    /// Releases the bank knows nothing of: never indexed, or indexing failed.
    pub fn not_indexed(&self) -> ReleaseSet {
        self.registered().difference(&self.indexed())
    }

    pub fn release(&self, slot: Slot) -> Option<&CatalogRelease> {
        self.releases.iter().find(|r| r.slot == slot)
    }

    pub fn find(&self, version: &Version) -> Option<&CatalogRelease> {
        self.releases.iter().find(|r| &r.version == version)
    }

    /// The releases of `set`, oldest first.
    pub fn in_order<'a>(
        &'a self,
        set: &'a ReleaseSet,
    ) -> impl Iterator<Item = &'a CatalogRelease> + 'a {
        self.releases.iter().filter(|r| set.contains(r.slot))
    }

    /// The versions of `set`, oldest first.
    pub fn versions(&self, set: &ReleaseSet) -> Vec<Version> {
        self.in_order(set).map(|r| r.version.clone()).collect()
    }

    /// The releases whose version `specifiers` accept, indexed or not.
    pub fn matching(&self, specifiers: &VersionSpecifiers) -> ReleaseSet {
        self.releases
            .iter()
            .filter(|r| specifiers.contains(&r.version))
            .map(|r| r.slot)
            .collect()
    }
}

impl Store {
    /// The releases of a distribution, oldest first, with their index status; read once per
    /// store until the bank changes (a resolution asks for each distribution's several times,
    /// and each read parses every version and Requires-Python).
    pub fn catalog(&self, dist_id: DistId) -> Result<Catalog, StoreError> {
        if let Some(found) = self.catalogs.borrow().get(&dist_id) {
            return Ok(found.clone());
        }
        let rows = self.release_facts(dist_id)?;
        // Most releases say the same Requires-Python as the one before: each text is parsed
        // once.
        let mut requires_python = HashMap::new();
        let catalog = Catalog::new(
            rows.iter()
                .map(|row| CatalogRelease::from_row(row, &mut requires_python))
                .collect(),
        );
        self.catalogs.borrow_mut().insert(dist_id, catalog.clone());
        Ok(catalog)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn release(slot: u32, version: &str, index: IndexStatus) -> CatalogRelease {
        CatalogRelease {
            runtime_gap: false,
            slot: Slot(slot),
            version: version.parse().unwrap(),
            upload_time: None,
            requires_python: RequiresPython::Any,
            yanked: false,
            index,
        }
    }

    #[test]
    fn orders_by_version_and_keeps_not_indexed_apart() {
        // Slots follow registration, not version: 1.10 registered last sorts after 1.9.
        let catalog = Catalog::new(vec![
            release(2, "1.10", IndexStatus::Indexed),
            release(0, "1.2", IndexStatus::Failed),
            release(1, "1.9", IndexStatus::NotIndexed),
        ]);
        let shown: Vec<String> = catalog
            .versions(&catalog.registered())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(shown, ["1.2", "1.9", "1.10"]);
        assert_eq!(catalog.indexed(), [Slot(2)].into_iter().collect());
        assert_eq!(
            catalog.not_indexed(),
            [Slot(0), Slot(1)].into_iter().collect()
        );
        let spec = VersionSpecifiers::from_str(">=1.5").unwrap();
        assert_eq!(
            catalog.matching(&spec),
            [Slot(1), Slot(2)].into_iter().collect()
        );
    }

    #[test]
    fn requires_python_keeps_what_does_not_parse() {
        let row = |text: Option<&str>| ReleaseFacts {
            slot: Slot(0),
            version: "1.0".parse().unwrap(),
            upload_time: None,
            requires_python: text.map(str::to_string),
            yanked: false,
            status: ReleaseStatus::Indexed,
            introspected: false,
            runtime_gap: false,
        };
        let mut memo = HashMap::new();
        let any = row(None);
        let spec = row(Some(">=3.6"));
        let bad = row(Some(">=3.6.*, garbage"));
        assert_eq!(
            CatalogRelease::from_row(&any, &mut memo).requires_python,
            RequiresPython::Any
        );
        assert!(CatalogRelease::from_row(&spec, &mut memo)
            .requires_python
            .specifiers()
            .is_some());
        assert_eq!(
            CatalogRelease::from_row(&bad, &mut memo).requires_python,
            RequiresPython::Unreadable(">=3.6.*, garbage".into())
        );
    }
}

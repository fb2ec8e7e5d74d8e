//! What answers read of a distribution's releases: each one's place, version and index facts,
//! and whether the bank indexed and introspected it, without the indexing details a report
//! shows. Catalogs and presence answers start from these rows for every distribution a
//! resolution asks about; read whole, with their texts copied and parsed, they cost more
//! than many of those answers.

use std::rc::Rc;
use std::str::FromStr;

use jiff::Timestamp;
use pep508_rs::pep440_rs::Version;

use super::registry::{ReleaseStatus, RuntimeStatus};
use super::{DistId, Slot, Store, StoreError};

/// One registered release, as answers read it.
#[derive(Debug, Clone)]
pub(crate) struct ReleaseFacts {
    pub slot: Slot,
    pub version: Version,
    pub upload_time: Option<Timestamp>,
    pub requires_python: Option<String>,
    pub yanked: bool,
    pub status: ReleaseStatus,
    /// Introspection imported and recorded it.
    pub introspected: bool,
    /// Introspection could not run it here (a runtime gap).
    pub runtime_gap: bool,
}

impl Store {
    /// The distribution's releases, oldest first, read once for the queries of this store
    /// until the bank changes.
    pub(crate) fn release_facts(
        &self,
        dist_id: DistId,
    ) -> Result<Rc<Vec<ReleaseFacts>>, StoreError> {
        if let Some(found) = self.release_facts.borrow().get(&dist_id) {
            return Ok(found.clone());
        }
        let err = self.err();
        let mut stmt = self
            .conn()
            .prepare_cached(
                "SELECT slot, version, upload_time, requires_python, yanked, status, runtime_status
                 FROM releases WHERE dist_id = ?1",
            )
            .map_err(&err)?;
        let mut rows = stmt.query([dist_id]).map_err(&err)?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(&err)? {
            // Texts are read in place, not copied first.
            let text = |i: usize| -> Result<Option<&str>, StoreError> {
                r.get_ref(i)
                    .map_err(&err)?
                    .as_str_or_null()
                    .map_err(|_| self.corrupt("release row"))
            };
            let version = text(1)?.ok_or_else(|| self.corrupt("release row"))?;
            let version = Version::from_str(version)
                .map_err(|_| self.corrupt(format!("release version `{version}`")))?;
            let status = text(5)?.ok_or_else(|| self.corrupt("release row"))?;
            out.push(ReleaseFacts {
                slot: r.get(0).map_err(&err)?,
                version,
                // Stored as RFC 3339 text; one that does not read is not worth failing on.
                upload_time: text(2)?.and_then(|t| t.parse().ok()),
                requires_python: text(3)?.map(str::to_string),
                yanked: r.get(4).map_err(&err)?,
                status: ReleaseStatus::parse(status),
                introspected: text(6)?.and_then(RuntimeStatus::parse) == Some(RuntimeStatus::Ok),
                runtime_gap: text(6)?.and_then(RuntimeStatus::parse) == Some(RuntimeStatus::Gap),
            });
        }
        out.sort_by(|a, b| a.version.cmp(&b.version));
        let out = Rc::new(out);
        self.release_facts.borrow_mut().insert(dist_id, out.clone());
        Ok(out)
    }
}

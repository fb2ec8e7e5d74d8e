//! Which distributions provide a top-level import name, and in which releases: the bank's
//! `import_names` table, read from each indexed release's `top_level.txt` or RECORD.

use super::{ReleaseSet, Store, StoreError};
use crate::names::{DistName, ModulePath};

/// One distribution's releases that install an import name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportProvider {
    pub dist: DistName,
    /// The name as the release records it: the top-level name itself, or a dotted name under
    /// it for a namespace package (`google.protobuf` under `google`).
    pub import_name: ModulePath,
    pub releases: ReleaseSet,
}

impl Store {
    /// The distributions whose indexed releases install `top_level`, or a dotted name under
    /// it, sorted by distribution then name.
    pub fn import_providers(&self, top_level: &str) -> Result<Vec<ImportProvider>, StoreError> {
        let err = self.err();
        // `top.` up to `top/` (the next byte after `.`): the dotted names under `top`, found
        // through the index rather than a LIKE pattern (`_` would be a wildcard there).
        let rows: Vec<(String, String, Vec<u8>)> = self
            .conn()
            .prepare_cached(
                "SELECT d.name, i.name, i.releases FROM import_names i JOIN distributions d ON d.id = i.dist_id
                 WHERE i.name = ?1 OR (i.name >= ?2 AND i.name < ?3)
                 ORDER BY d.name, i.name",
            )
            .map_err(&err)?
            .query_map(
                rusqlite::params![top_level, format!("{top_level}."), format!("{top_level}/")],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(&err)?
            .collect::<Result<_, _>>()
            .map_err(&err)?;
        let mut out = Vec::with_capacity(rows.len());
        for (dist, name, blob) in rows {
            let dist = DistName::new(&dist)
                .map_err(|_| self.corrupt(format!("distribution name `{dist}`")))?;
            let Ok(import_name) = ModulePath::new(&name) else {
                continue;
            };
            let releases = self.decode_set(&blob)?;
            if !releases.is_empty() {
                out.push(ImportProvider {
                    dist,
                    import_name,
                    releases,
                });
            }
        }
        Ok(out)
    }
}

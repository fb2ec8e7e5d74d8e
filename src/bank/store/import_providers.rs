//! Which distributions provide a top-level import name, and in which releases: the bank's
//! `import_names` table, read from each indexed release's `top_level.txt` or RECORD.

use super::seal::IMPORT_NAMES;
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
        let mut rows: Vec<(String, String, ReleaseSet)> = Vec::new();
        self.check_name_indexes()?;
        self.each_sealed(
            &IMPORT_NAMES,
            "SELECT i.dist_id, i.name, i.releases, i.seal, d.name
             FROM import_names i JOIN distributions d ON d.id = i.dist_id
             WHERE i.name = ?1 OR (i.name >= ?2 AND i.name < ?3)
             ORDER BY d.name, i.name",
            rusqlite::params![top_level, format!("{top_level}."), format!("{top_level}/")],
            |r| {
                rows.push((
                    r.get(4).map_err(&err)?,
                    r.get(1).map_err(&err)?,
                    self.set_at(r, 2)?,
                ));
                Ok(())
            },
        )?;
        let mut out = Vec::with_capacity(rows.len());
        for (dist, name, releases) in rows {
            let dist = DistName::new(&dist)
                .map_err(|_| self.corrupt(format!("distribution name `{dist}`")))?;
            let Ok(import_name) = ModulePath::new(&name) else {
                continue;
            };
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

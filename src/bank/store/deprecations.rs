//! What functions' bodies say of their own deprecation (see `bank::extract::Warned`): table
//! `deprecations`, one row per distribution, definition path and fact, with the releases
//! whose source says it. A shim's template, the successor its warning names, and renamed
//! keywords are read from these by [`super::moves`]; so are modules a release forwards to
//! another module, keyed by the forwarded module's path.

use std::collections::HashMap;

use rusqlite::{params, Transaction};
use serde::{Deserialize, Serialize};

use super::release_set::ReleaseSet;
use super::seal::{execute_sealed, select_sealed, DEPRECATIONS};
use super::{DistId, Slot, Store, StoreError};
use crate::bank::extract::{KeywordRename, Shim};
use crate::bank::flow::ReleaseApis;

/// One fact a definition's body states; stored as its JSON text, so that the same fact in
/// many releases is one row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum DeprecationFact {
    Shim(Shim),
    KeywordRename(KeywordRename),
    /// The module at the row's path is put in place by one that forwards every name to
    /// `mirror`, by the code of module `by` (see [`crate::bank::flow::ModuleMirror`]).
    Mirror {
        mirror: String,
        by: String,
    },
}

/// A fact with the definition it is about and the releases that state it.
#[derive(Debug, Clone)]
pub(super) struct StoredFact {
    pub path: String,
    pub fact: DeprecationFact,
    pub releases: ReleaseSet,
}

/// Rows by (definition path, fact text), as the writer caches them.
pub(super) type Rows = HashMap<(String, String), ReleaseSet>;

impl Store {
    /// Every row of the distribution, for the writer's cache.
    pub(super) fn deprecation_rows(&self, dist_id: DistId) -> Result<Rows, StoreError> {
        let err = self.err();
        let mut out = HashMap::new();
        self.each_sealed(
            &DEPRECATIONS,
            select_sealed!(deprecations, "WHERE dist_id = ?1"),
            [dist_id],
            |r| {
                out.insert(
                    (r.get(1).map_err(&err)?, r.get(2).map_err(&err)?),
                    self.set_at(r, 3)?,
                );
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// The distribution's facts, by path; a fact whose text does not decode is corrupt.
    pub(super) fn deprecations(&self, dist_id: DistId) -> Result<Vec<StoredFact>, StoreError> {
        let mut out = Vec::new();
        for ((path, text), releases) in self.deprecation_rows(dist_id)? {
            if releases.is_empty() {
                continue;
            }
            let fact = serde_json::from_str(&text).map_err(|e| {
                self.corrupt(format!("deprecations row ({path}) does not decode: {e}"))
            })?;
            out.push(StoredFact {
                path,
                fact,
                releases,
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}

/// The facts of one release's definitions.
fn facts(apis: &ReleaseApis) -> impl Iterator<Item = (&str, DeprecationFact)> {
    let mirrors = apis.mirrors.iter().map(|m| {
        let fact = DeprecationFact::Mirror {
            mirror: m.mirror.to_string(),
            by: m.by.to_string(),
        };
        (m.module.as_str(), fact)
    });
    apis.apis
        .iter()
        .flat_map(|api| {
            let warned = api.warned.as_deref();
            let shim = warned
                .and_then(|w| w.shim.clone())
                .map(DeprecationFact::Shim);
            let renames = warned
                .into_iter()
                .flat_map(|w| w.renames.iter().cloned())
                .map(DeprecationFact::KeywordRename);
            shim.into_iter()
                .chain(renames)
                .map(move |fact| (api.path.as_str(), fact))
        })
        .chain(mirrors)
}

/// Records the facts of release `slot`, updating the cached sets. Called after the slot was
/// cleared from every set, when the release was indexed before.
pub(super) fn write(
    tx: &Transaction<'_>,
    cache: &mut Rows,
    dist_id: DistId,
    slot: Slot,
    apis: &ReleaseApis,
) -> rusqlite::Result<()> {
    for (path, fact) in facts(apis) {
        let text = serde_json::to_string(&fact).expect("facts serialize");
        let set = cache.entry((path.to_string(), text.clone())).or_default();
        set.insert(slot);
        execute_sealed(
            &mut tx.prepare_cached(
                "INSERT OR REPLACE INTO deprecations (dist_id, path, fact, releases, seal) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?,
            params![dist_id, path, text, set.encode()],
        )?;
    }
    Ok(())
}

/// Removes `slot` from every row, as a release indexed again must not keep what was read of
/// it before.
pub(super) fn clear(
    tx: &Transaction<'_>,
    cache: &mut Rows,
    dist_id: DistId,
    slot: Slot,
) -> rusqlite::Result<()> {
    for ((path, text), set) in cache.iter_mut() {
        if set.contains(slot) {
            set.remove(slot);
            execute_sealed(
                &mut tx.prepare_cached(
                    "UPDATE deprecations SET releases = ?4, seal = ?5 WHERE dist_id = ?1 AND path = ?2 AND fact = ?3",
                )?,
                params![dist_id, path, text, set.encode()],
            )?;
        }
    }
    Ok(())
}

//! What the bank knows about the APIs a notebook uses, read once: each API's presence over
//! the releases of the distributions that have it, and the moves of those distributions
//! whose APIs the notebook uses and the newest release lacks (or rejects a keyword of).

use std::collections::BTreeMap;

use crate::bank::store::{ApiReport, MovesReport, Store, StoreError};
use crate::names::{ApiPath, DistName};
use crate::notebook::{Origin, Usage};

/// What the bank says about the APIs a notebook uses: each API's reports (one per
/// distribution that has it) and the moves of each distribution among them.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub apis: BTreeMap<ApiPath, Vec<ApiReport>>,
    pub moves: BTreeMap<DistName, MovesReport>,
}

impl Facts {
    /// Reads the bank for the third-party APIs of `usage`. What the bank lacks is left out:
    /// nothing is known of it, so nothing is moved or pinned for it.
    pub fn gather(store: &Store, usage: &Usage) -> Result<Self, StoreError> {
        let mut facts = Facts::default();
        for u in usage.apis.iter().filter(|u| u.origin == Origin::ThirdParty) {
            let reports = store.query_api(u.api.as_str())?;
            for r in &reports {
                let gone = r
                    .latest_indexed
                    .as_ref()
                    .is_some_and(|latest| r.last.as_ref().is_some_and(|last| last < latest));
                // A keyword the newest release rejects may have been renamed.
                let rejected = !super::plan::rejected_keywords(u, r).is_empty();
                if (gone || rejected) && !facts.moves.contains_key(&r.distribution) {
                    if let Some(moves) = store.moves(&r.distribution)? {
                        facts.moves.insert(r.distribution.clone(), moves);
                    }
                }
            }
            if !reports.is_empty() {
                facts.apis.insert(u.api.clone(), reports);
            }
        }
        Ok(facts)
    }
}

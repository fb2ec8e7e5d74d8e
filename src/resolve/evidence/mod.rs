//! The evidence stage of resolution: the bank read through a provider trait, candidate
//! distributions for each import name, and version sets with the records behind them.
//!
//! - [`BankView`] is what the resolver asks the bank: releases with their index status, and
//!   release sets for APIs, members, keywords and import names, "absent" kept apart from
//!   "unknown" and "not indexed". [`SharedBank`] answers from the store, from any thread;
//!   [`MemoryBank`] from what a test wrote into it.
//! - [`decide_imports`] picks the distribution behind each third-party import name (API
//!   evidence, then the notebook's own install lines, then `apibank/providers.txt`), or says
//!   why none is credible.
//! - [`version_sets`] turns used APIs, members, keywords and install lines into the allowed
//!   releases of each distribution, with an [`EvidenceRecord`] for each.

mod bank_view;
mod candidates;
mod error;
mod history;
mod index_lookup;
mod memory_bank;
mod provider_choice;
mod provider_list;
mod record;
mod shared_bank;
mod sources;
mod unresolved;
mod used_paths;
mod version_set;

pub use bank_view::{BankReadError, BankView};
pub use candidates::{decide_imports, Chosen, ImportDecision, ImportOutcome};
pub use error::EvidenceError;
pub use history::{changes, spans, Change, ReleaseState, Span};
pub use index_lookup::{conventional_names, resembles, IndexLookup, LookupError, NoIndexLookup};
pub use memory_bank::MemoryBank;
pub use provider_choice::{Candidate, CandidateSource, ChoiceReason, PathState, Verdict};
pub use provider_list::{
    AvoidKind, Avoided, Channel, Preference, ProviderList, ProviderListError, Unavailable,
};
pub use record::{
    DropReason, Effect, EvidenceRecord, EvidenceSource, NoConstraint, Rank, ShownVersion, Strength,
};
pub use shared_bank::SharedBank;
pub use sources::{listed_imports, Sources};
pub use unresolved::{NotOnPyPiSource, Unresolved};
pub use used_paths::{used_paths, PathUse, UsedPath};
pub use version_set::{version_sets, DistVersions, Need, Relaxation};

use crate::notebook::Usage;

/// Everything the evidence says about a notebook's distributions.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Evidence {
    pub imports: Vec<ImportDecision>,
    pub distributions: Vec<DistVersions>,
}

impl Evidence {
    /// The same evidence with the soft records `relaxation` names set aside; `None` when no
    /// such record constrains anything.
    pub fn relaxed(&self, relaxation: Relaxation) -> Option<Evidence> {
        let mut changed = false;
        let distributions = self
            .distributions
            .iter()
            .map(|d| match d.relaxed(relaxation) {
                Some(r) => {
                    changed = true;
                    r
                }
                None => d.clone(),
            })
            .collect();
        changed.then(|| Evidence {
            imports: self.imports.clone(),
            distributions,
        })
    }
}

/// Decides the import names, then the version sets of the chosen distributions.
pub fn gather<B: BankView + ?Sized>(
    usage: &Usage,
    bank: &B,
    sources: &Sources<'_>,
) -> Result<Evidence, EvidenceError> {
    let _clock = crate::timings::start(crate::timings::Stage::Evidence);
    let imports = decide_imports(usage, bank, sources)?;
    let distributions = version_sets(usage, &imports, bank)?;
    Ok(Evidence {
        imports,
        distributions,
    })
}

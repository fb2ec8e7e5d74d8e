//! What can stop evidence gathering: the bank could not be read, or the index hook failed.

use super::bank_view::BankReadError;
use super::index_lookup::LookupError;

#[derive(Debug, thiserror::Error)]
pub enum EvidenceError {
    #[error(transparent)]
    Bank(#[from] BankReadError),
    #[error(transparent)]
    Lookup(#[from] LookupError),
}

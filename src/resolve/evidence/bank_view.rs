//! The bank as the resolver reads it, behind a trait: the store in production
//! ([`super::SharedBank`]), small in-memory banks in tests ([`super::MemoryBank`]), as uv's
//! resolver reads packages through a provider.

use crate::bank::store::{Catalog, ImportProvider, Presence, ReleaseSet, StoreError};
use crate::names::{ApiPath, DistName};
use pep508_rs::pep440_rs::Version;

/// Reading the bank failed; the in-memory bank never fails.
#[derive(Debug, thiserror::Error)]
pub enum BankReadError {
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The questions the resolver asks the bank. Every answer about releases is a set of the
/// distribution's release slots, which its [`Catalog`] turns into versions; a release that was
/// not indexed is reported as such, never as lacking anything.
pub trait BankView {
    /// The distribution's registered releases, or `None` when the bank has never heard of it.
    fn catalog(&self, dist: &DistName) -> Result<Option<Catalog>, BankReadError>;

    /// For each of `apis`, the releases that have it. A distribution the bank does not know
    /// answers with empty sets.
    fn api_presence(
        &self,
        dist: &DistName,
        apis: &[ApiPath],
    ) -> Result<Vec<Presence>, BankReadError>;

    /// The releases where some class of the distribution has a member of that name.
    fn member_presence(&self, dist: &DistName, member: &str) -> Result<Presence, BankReadError>;

    /// The releases where `api` accepts `keyword` as a keyword argument.
    fn keyword_presence(
        &self,
        dist: &DistName,
        api: &ApiPath,
        keyword: &str,
    ) -> Result<Presence, BankReadError>;

    /// The releases whose `api` has the signature it has in `version`, text for text,
    /// `version` included: where a keyword `version` refused in a run is refused too. Empty
    /// when the bank has no signature for it there (a bank without signatures).
    fn signature_alike(
        &self,
        _dist: &DistName,
        _api: &ApiPath,
        _version: &Version,
    ) -> Result<ReleaseSet, BankReadError> {
        Ok(ReleaseSet::new())
    }

    /// The distributions that install `top_level` (or a dotted name under it), and in which
    /// releases.
    fn import_providers(&self, top_level: &str) -> Result<Vec<ImportProvider>, BankReadError>;

    /// The other distributions' modules and names (`scipy.sparse`) release `version` of
    /// `dist` imports whenever it is imported; `None` when the bank has not read them.
    fn release_imports(
        &self,
        dist: &DistName,
        version: &Version,
    ) -> Result<Option<Vec<String>>, BankReadError>;
}

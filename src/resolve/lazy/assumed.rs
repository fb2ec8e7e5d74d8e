//! The bank as lazy indexing ranks with it: a release not read yet (not indexed, or unknown to
//! static reading and not settled by introspection), lying where the read releases around it
//! lack an API (between two that lack it, or older than the oldest read, which lacks it), is
//! taken to lack it too, once some read release has it.
//! That is bisection's own assumption (an API's releases are contiguous), applied to the
//! version sets, so the solver does not walk down unread releases one round at a time.
//!
//! Only absence is assumed, and only for ranking: a release that may have an API stays "not
//! indexed" or "unknown", so a pin on it is read before it is trusted ([`super::unindexed_pins`],
//! [`super::unsettled_pins`]), and what reading it shows (a gap) is read whole
//! ([`super::search`]).

use super::super::evidence::{BankReadError, BankView};
use crate::bank::store::{Catalog, ImportProvider, Presence, ReleaseSet};
use crate::names::{ApiPath, DistName};

/// A [`BankView`] whose presence answers assume absence as the module doc says.
pub struct Assumed<'a, B: ?Sized> {
    bank: &'a B,
}

impl<'a, B: BankView + ?Sized> Assumed<'a, B> {
    pub fn new(bank: &'a B) -> Self {
        Self { bank }
    }

    fn assume(&self, dist: &DistName, presence: Presence) -> Result<Presence, BankReadError> {
        if presence.present.is_empty()
            || (presence.not_indexed.is_empty() && presence.unknown.is_empty())
        {
            return Ok(presence);
        }
        let Some(catalog) = self.bank.catalog(dist)? else {
            return Ok(presence);
        };
        Ok(assume_absent(&catalog, presence))
    }
}

/// Moves the releases not read (not indexed, or unknown) whose nearest read neighbours (or
/// the one neighbour, at either end) both lack it into `absent`.
pub fn assume_absent(catalog: &Catalog, mut presence: Presence) -> Presence {
    if presence.present.is_empty() {
        return presence;
    }
    let read = |slot| presence.present.contains(slot) || presence.absent.contains(slot);
    let unread = |slot| presence.not_indexed.contains(slot) || presence.unknown.contains(slot);
    let slots: Vec<_> = catalog.releases.iter().map(|r| r.slot).collect();
    let mut assumed = Vec::new();
    let mut at = 0;
    while at < slots.len() {
        if !unread(slots[at]) {
            at += 1;
            continue;
        }
        let start = at;
        while at < slots.len() && unread(slots[at]) {
            at += 1;
        }
        let older = start.checked_sub(1).map(|i| slots[i]).filter(|&s| read(s));
        let newer = slots.get(at).copied().filter(|&s| read(s));
        let lacks = |s: Option<_>| s.is_none_or(|s| presence.absent.contains(s));
        if (older.is_some() || newer.is_some()) && lacks(older) && lacks(newer) {
            assumed.extend(slots[start..at].iter().copied());
        }
    }
    for slot in assumed {
        presence.not_indexed.remove(slot);
        presence.unknown.remove(slot);
        presence.absent.insert(slot);
    }
    presence
}

impl<B: BankView + ?Sized> BankView for Assumed<'_, B> {
    fn catalog(&self, dist: &DistName) -> Result<Option<Catalog>, BankReadError> {
        self.bank.catalog(dist)
    }

    fn api_presence(
        &self,
        dist: &DistName,
        apis: &[ApiPath],
    ) -> Result<Vec<Presence>, BankReadError> {
        self.bank
            .api_presence(dist, apis)?
            .into_iter()
            .map(|p| self.assume(dist, p))
            .collect()
    }

    fn member_presence(&self, dist: &DistName, member: &str) -> Result<Presence, BankReadError> {
        let p = self.bank.member_presence(dist, member)?;
        self.assume(dist, p)
    }

    fn keyword_presence(
        &self,
        dist: &DistName,
        api: &ApiPath,
        keyword: &str,
    ) -> Result<Presence, BankReadError> {
        let p = self.bank.keyword_presence(dist, api, keyword)?;
        self.assume(dist, p)
    }

    fn signature_alike(
        &self,
        dist: &DistName,
        api: &ApiPath,
        version: &pep508_rs::pep440_rs::Version,
    ) -> Result<ReleaseSet, BankReadError> {
        self.bank.signature_alike(dist, api, version)
    }

    fn import_providers(&self, top_level: &str) -> Result<Vec<ImportProvider>, BankReadError> {
        self.bank.import_providers(top_level)
    }

    fn release_imports(
        &self,
        dist: &DistName,
        version: &pep508_rs::pep440_rs::Version,
    ) -> Result<Option<Vec<String>>, BankReadError> {
        self.bank.release_imports(dist, version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::store::{CatalogRelease, IndexStatus, ReleaseSet, Slot};
    use crate::pypi::RequiresPython;

    /// `states`: one letter a release, oldest first: P present, A absent, U unknown, . not
    /// indexed. Returns the same with assumed absences as `a`.
    fn assume(states: &str) -> String {
        let catalog = Catalog::new(
            states
                .chars()
                .enumerate()
                .map(|(i, c)| CatalogRelease {
                    runtime_gap: false,
                    slot: Slot(i as u32),
                    version: format!("{}.0", i + 1).parse().unwrap(),
                    upload_time: None,
                    requires_python: RequiresPython::Any,
                    yanked: false,
                    index: if c == '.' {
                        IndexStatus::NotIndexed
                    } else {
                        IndexStatus::Indexed
                    },
                })
                .collect(),
        );
        let of = |want: char| -> ReleaseSet {
            states
                .chars()
                .enumerate()
                .filter(|&(_, c)| c == want)
                .map(|(i, _)| Slot(i as u32))
                .collect()
        };
        let p = Presence {
            present: of('P'),
            unknown: of('U'),
            absent: of('A'),
            not_indexed: of('.'),
        };
        let out = assume_absent(&catalog, p.clone());
        (0..states.len())
            .map(|i| {
                let s = Slot(i as u32);
                if !p.absent.contains(s) && out.absent.contains(s) {
                    'a'
                } else {
                    states.as_bytes()[i] as char
                }
            })
            .collect()
    }

    #[test]
    fn absence_is_assumed_only_between_releases_that_lack_it() {
        assert_eq!(assume("..P..A..A"), "..P..AaaA");
        assert_eq!(assume("..P..A.."), "..P..Aaa");
        assert_eq!(assume("...A..P..P"), "aaaA..P..P");
        // Unknown counts as not read: between releases that lack it, it is ranked as lacking.
        assert_eq!(assume("..U..A..P"), "aaaaaA..P");
        assert_eq!(assume("P.U.A"), "P.U.A");
        // Nothing read has it: nothing is assumed (the search is still looking back).
        assert_eq!(assume("....A..A"), "....A..A");
    }
}

//! What the notebook asks for: the root of the resolution.

use std::collections::BTreeSet;

use pep508_rs::pep440_rs::{Operator, Version, VersionSpecifiers};
use pep508_rs::ExtraName;
use pubgrub::Ranges;

/// One distribution the notebook needs, with the versions its evidence allows.
#[derive(Debug, Clone)]
pub struct RootRequirement {
    pub dist: crate::names::DistName,
    pub extras: Vec<ExtraName>,
    pub allowed: Allowed,
    /// Why, in the user's terms ("cell 3 uses sklearn.cross_validation"): conflicts quote them.
    pub evidence: Vec<String>,
}

/// The versions a root requirement allows.
#[derive(Debug, Clone)]
pub enum Allowed {
    /// A PEP 440 specifier set (`!pip install x==1.2`, `>=0.18,<0.20`); empty allows all.
    Specifiers(VersionSpecifiers),
    /// Exactly these versions: the releases the bank found to have every used API. Need not
    /// be contiguous (an API removed, then restored).
    Versions(BTreeSet<Version>),
}

impl Allowed {
    /// Any version.
    pub fn any() -> Self {
        Allowed::Specifiers(VersionSpecifiers::empty())
    }

    pub fn contains(&self, version: &Version) -> bool {
        match self {
            Allowed::Specifiers(s) => s.contains(version),
            Allowed::Versions(set) => set.contains(version),
        }
    }

    /// Versions pinned with `==` or `===`: a yanked release is used only when pinned so (PEP 592).
    pub fn is_pinned(&self, version: &Version) -> bool {
        match self {
            Allowed::Specifiers(s) => s.iter().any(|s| {
                matches!(s.operator(), Operator::Equal | Operator::ExactEqual)
                    && s.version() == version
            }),
            Allowed::Versions(_) => false,
        }
    }

    /// A specifier names a pre-release, which asks for pre-releases (PEP 440).
    pub fn asks_for_prerelease(&self) -> bool {
        match self {
            Allowed::Specifiers(s) => s.iter().any(|s| s.any_prerelease()),
            Allowed::Versions(_) => false,
        }
    }

    /// As a version range over `known` (the distribution's releases, oldest first). An
    /// explicit set becomes its runs of consecutive releases (`>=0.15, <0.20`), which PubGrub
    /// handles in fewer terms and a conflict prints readably.
    pub fn to_ranges(&self, known: &[&Version]) -> Ranges<Version> {
        match self {
            Allowed::Specifiers(s) => Ranges::from(s.clone()),
            Allowed::Versions(set) => runs_over(known, |v| set.contains(v)),
        }
    }
}

/// The range made of the runs of consecutive `known` versions (oldest first) that `keep`
/// accepts: each run from its first version up to, not including, the next known version.
pub(crate) fn runs_over(known: &[&Version], keep: impl Fn(&Version) -> bool) -> Ranges<Version> {
    let mut ranges = Ranges::empty();
    let mut start: Option<usize> = None;
    for i in 0..=known.len() {
        let kept = known.get(i).is_some_and(|v| keep(v));
        match (kept, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let lower = (s > 0).then(|| known[s]);
                let run = match (lower, known.get(i)) {
                    (None, None) => Ranges::full(),
                    (None, Some(next)) => Ranges::strictly_lower_than((*next).clone()),
                    (Some(low), None) => Ranges::higher_than(low.clone()),
                    (Some(low), Some(next)) => {
                        Ranges::from_range_bounds(low.clone()..(*next).clone())
                    }
                };
                ranges = ranges.union(&run);
                start = None;
            }
            _ => {}
        }
    }
    ranges
}

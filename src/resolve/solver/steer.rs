//! What a restoration's search asks of a resolution beyond the notebook's evidence: releases a
//! run refuted are out, the search keeps within the bounds runs have set, and the release it
//! wants tried next is chosen over the newest whenever the range allows it. Dependencies are
//! steered as roots are (protobuf under tensorflow).

use pep508_rs::pep440_rs::Version;

use super::exclusion::Exclusion;
use crate::names::DistName;

/// The search's ask of one distribution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Steer {
    pub dist: DistName,
    /// The release to try next: chosen whenever the range allows it.
    pub target: Option<Version>,
    /// The target has no wheel for the run's Python and is built from its sdist: the
    /// distribution's sdists count as installable, whatever the sdist rule.
    pub build: bool,
    /// Releases at or below this failed for being too old: only newer ones are candidates.
    pub above: Option<Version>,
    /// Releases at or above this failed for being too new: only older ones are candidates.
    pub below: Option<Version>,
    /// Releases runs refuted one by one.
    pub refuted: Vec<Version>,
}

impl Steer {
    pub fn new(dist: DistName) -> Self {
        Self {
            dist,
            target: None,
            build: false,
            above: None,
            below: None,
            refuted: Vec::new(),
        }
    }

    /// Why `version` is out, if the search rules it out.
    pub(crate) fn rules_out(&self, version: &Version) -> Option<Exclusion> {
        if self.refuted.contains(version) {
            return Some(Exclusion::Refuted);
        }
        let too_old = self.above.as_ref().is_some_and(|a| version <= a);
        let too_new = self
            .below
            .as_ref()
            .is_some_and(|b| version >= b && !rebuild_of(version, b));
        (too_old || too_new).then(|| Exclusion::OutsideSearch {
            above: self.above.clone(),
            below: self.below.clone(),
        })
    }
}

/// Whether `v` is a post-release of `of`'s release (`1.11.post1` of `1.11` or of
/// `1.11.post0`): newer, but the same code, so a search does not take it to fail as `of` did.
pub fn rebuild_of(v: &Version, of: &Version) -> bool {
    v > of
        && v.release() == of.release()
        && v.post().is_some()
        && v.pre().is_none()
        && v.dev().is_none()
        && of.pre().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuted_releases_and_those_past_the_bounds_are_out() {
        let v = |s: &str| s.parse::<Version>().unwrap();
        let steer = Steer {
            above: Some(v("1.0")),
            below: Some(v("3.0")),
            refuted: vec![v("2.0")],
            ..Steer::new(DistName::new("pkg").unwrap())
        };
        assert_eq!(steer.rules_out(&v("2.0")), Some(Exclusion::Refuted));
        assert!(steer.rules_out(&v("1.0")).is_some());
        assert!(steer.rules_out(&v("3.1")).is_some());
        assert_eq!(steer.rules_out(&v("1.5")), None);
        assert_eq!(steer.rules_out(&v("2.9")), None);
        // A rebuild of the release at the bound is the same code: not taken to fail.
        assert_eq!(steer.rules_out(&v("3.0.post1")), None);
        assert!(steer.rules_out(&v("3.0.1")).is_some());
    }
}

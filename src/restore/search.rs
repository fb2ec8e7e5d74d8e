//! Repair as a search, not a walk. When a run stops at something a release may cause, the
//! releases it ran with are suspects, the likeliest first (the library the traceback ends in,
//! the provider of the missing name). The first repair of a suspect jumps to its era release
//! (the newest that installs on the run's Python and was uploaded by the notebook's date):
//! the notebook worked for its author with the libraries of its time. When that fails too,
//! or cannot be installed, the next release tried halves what is left open between the
//! releases runs have bounded, so that a removal hidden from the bank (a keyword swallowed
//! by `**kwargs`, a member served by `__getattr__`, a change of behaviour) costs a few rounds,
//! not one round per release.
//!
//! Where no release with a wheel for the run's Python is left open, the search builds one:
//! the era's release (else the first after it) from its sdist, once per distribution
//! (pyproj before 2.0 published no Linux wheel for Python 2.7; 2.0.0 refuses the notebook's
//! `+init=ESRI:102003`, and 1.9.5.1, of the era, builds in half a minute). Builds cost minutes
//! and fail for reasons of their own, so one that does not install ends the search there.
//!
//! A release a run refuted is never tried again: the resolution keeps it out (see
//! [`crate::resolve::solver::Steer`]), and the bank's run records keep it out of the next
//! restoration of the same notebook. Runs also set bounds: releases newer than one that
//! failed are taken to fail too, and when a release that got past one cell fails a later
//! one while newer releases failed the first, the search keeps between the two.
//!
//! This file decides; what a distribution's releases are, and the runs, are the caller's.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use jiff::Timestamp;
use pep508_rs::pep440_rs::Version;
use serde::Serialize;

pub use crate::bank::store::{Bound, Refutation};
use crate::names::DistName;
use crate::resolve::solver::{rebuild_of, Steer};

/// A release a run installed that the failure points at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suspect {
    pub dist: DistName,
    pub version: Version,
    /// The run's Python could not read its code (a SyntaxError inside it). Released before
    /// that Python, it is too old for it (astor 0.6 names a parameter `async`, a keyword
    /// since 3.7): only newer releases may do, the first after the Python's release first.
    /// Released after it, it is too new (Python 3 syntax on 2.7), as other failures are.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unreadable: bool,
}

impl Suspect {
    pub fn new(dist: DistName, version: Version) -> Self {
        Self {
            dist,
            version,
            unreadable: false,
        }
    }
}

/// One release of a distribution that installs on the run's Python.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub version: Version,
    pub uploaded: Option<Timestamp>,
    /// It installs only by building its sdist: no wheel of it fits the run's Python.
    pub built: bool,
}

/// What the search needs to know of a distribution's releases.
pub trait SearchSpace {
    /// The stable releases of `dist` that install on the run's Python, oldest first: those
    /// with a wheel for it, and (unless only wheels are allowed) those that would be built
    /// from their sdist.
    fn candidates(&mut self, dist: &DistName) -> Vec<Candidate>;
    /// The notebook's era: releases uploaded before it are its era's.
    fn era(&self) -> Option<Timestamp>;
    /// When the run's Python came out.
    fn python_released(&self) -> Option<Timestamp>;
}

/// Why the next round tries a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// The newest release of the notebook's era.
    Era,
    /// None of the era installs on the run's Python: the first release after it that does.
    AfterEra,
    /// The middle of what runs left open.
    Bisect,
    /// A post-release of the release that failed: the same code rebuilt or repackaged
    /// (graphillion 1.11.post1's extension built against other libraries than 1.11's).
    Rebuild,
    /// No release with a wheel for the run's Python is left open: the era's release (else
    /// the first after it) built from its sdist.
    Build,
    /// As [`Step::Build`], with no era to prefer (`--date none`): the newest open release.
    BuildNewest,
    /// The run's Python could not read a release older than itself: the first release
    /// after that Python came out.
    AfterPython,
}

/// What the search moves for the next round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Move {
    pub dist: DistName,
    pub from: Version,
    pub to: Version,
    pub step: Step,
    /// Releases still open (the one moved to included).
    pub open: usize,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = match self.step {
            Step::Era => "the newest release of the notebook's era",
            Step::AfterEra => {
                "the first release after the notebook's era that installs on this Python"
            }
            Step::Bisect => "the middle of the releases runs left open",
            Step::Rebuild => "a rebuild of the same release",
            Step::AfterPython => {
                "the first release after this Python came out (the failing one is older and \
                 this Python cannot read its code)"
            }
            Step::Build => {
                "built from its sdist, the release of the notebook's era nearest its date \
                 (no release with a wheel for this Python is left)"
            }
            Step::BuildNewest => {
                "built from its sdist, the newest release left open (no release with a wheel \
                 for this Python is left)"
            }
        };
        write!(
            f,
            "{} {} failed: trying {} next, {how} ({} open)",
            self.dist, self.from, self.to, self.open
        )
    }
}

/// A release a run refuted: the cell it failed at, and the side of it the failure ruled out
/// too (none where the bank, not the search, said where to go).
#[derive(Debug, Clone, Copy)]
struct Refuted {
    cell: u32,
    bound: Option<Bound>,
}

impl Refuted {
    fn alone(cell: u32) -> Self {
        Self { cell, bound: None }
    }

    fn bounding(cell: u32, side: Bound) -> Self {
        Self {
            cell,
            bound: Some(side),
        }
    }
}

/// The search over one distribution's releases.
#[derive(Debug, Clone, Default)]
struct DistSearch {
    /// Releases runs refuted, with the cell each failed at and the side it ruled out.
    refuted: BTreeMap<Version, Refuted>,
    /// Releases that got past a cell where a newer release failed, with that cell.
    passed: BTreeMap<Version, u32>,
    /// Releases that failed to install: not open, but no bound either.
    broken: BTreeSet<Version>,
    /// Those at or below it were too old.
    above: Option<Version>,
    /// Those at or above it were too new.
    below: Option<Version>,
    /// The release the next resolution is asked for.
    target: Option<Version>,
    /// The target is built from its sdist.
    target_built: bool,
    /// The era release was tried (or had none to try).
    era_tried: bool,
    /// A release was built from its sdist (once per distribution).
    build_tried: bool,
}

impl DistSearch {
    fn is_open(&self, v: &Version) -> bool {
        !self.refuted.contains_key(v)
            && !self.broken.contains(v)
            && self.above.as_ref().is_none_or(|a| v > a)
            && self
                .below
                .as_ref()
                .is_none_or(|b| v < b || rebuild_of(v, b))
    }

    /// Runs the failure of `version` at `cell` into the bounds.
    fn refute(&mut self, version: &Version, cell: u32) {
        // It got past an earlier cell where newer releases failed: too old for this one.
        let passed_before = self.passed.iter().any(|(p, c)| p == version && *c < cell);
        let newer_failed = self.refuted.keys().any(|r| r > version);
        let side = if passed_before && newer_failed {
            Bound::TooOld
        } else {
            Bound::TooNew
        };
        self.refute_as(version, cell, side);
    }

    /// Records `version` refuted at `cell`: too old (releases at or below it are out) or too
    /// new (those at or above it are).
    fn refute_as(&mut self, version: &Version, cell: u32, side: Bound) {
        self.refuted
            .insert(version.clone(), Refuted::bounding(cell, side));
        self.bound(version, side);
        if self.target.as_ref() == Some(version) {
            self.target = None;
        }
    }

    /// Rules out `version` and every release on its `side`.
    fn bound(&mut self, version: &Version, side: Bound) {
        let too_old = side == Bound::TooOld;
        let bound = if too_old {
            &mut self.above
        } else {
            &mut self.below
        };
        *bound = Some(match bound.take() {
            Some(b) if too_old => b.max(version.clone()),
            Some(b) => b.min(version.clone()),
            None => version.clone(),
        });
    }

    /// After a release too old for the run's Python: the first open release with a wheel
    /// uploaded once that Python was out, as the target, with how many are open.
    fn after_python(
        &mut self,
        candidates: &[Candidate],
        python_released: Option<Timestamp>,
    ) -> Option<(Version, usize)> {
        let open: Vec<&Candidate> = candidates
            .iter()
            .filter(|c| !c.built && self.is_open(&c.version))
            .collect();
        let first = open.iter().find(|c| {
            c.uploaded
                .zip(python_released)
                .is_some_and(|(uploaded, python)| uploaded >= python)
        })?;
        self.era_tried = true;
        self.target = Some(first.version.clone());
        self.target_built = false;
        Some((first.version.clone(), open.len()))
    }

    /// The next release to try, and why; `None` when nothing is left open.
    fn next(
        &mut self,
        candidates: &[Candidate],
        era: Option<Timestamp>,
    ) -> Option<(Version, Step, usize)> {
        self.target_built = false;
        let open_of = |s: &Self, built: bool| -> Vec<&Candidate> {
            candidates
                .iter()
                .filter(|c| c.built == built && s.is_open(&c.version))
                .collect()
        };
        let mut open = open_of(self, false);
        if open.is_empty() && self.above.is_some() {
            // Nothing between the bounds: the lower one was a guess (the later cell may need
            // an older release still); search below the upper one alone.
            self.above = None;
            open = open_of(self, false);
        }
        if open.is_empty() {
            return self.build(&open_of(self, true), era);
        }
        // A rebuild of a release that failed is the same code: tried first, as it is the one
        // release newer than a failure that may not fail the same way.
        let rebuild = open
            .iter()
            .find(|c| self.refuted.keys().any(|r| rebuild_of(&c.version, r)));
        if let Some(c) = rebuild {
            return Some((c.version.clone(), Step::Rebuild, open.len()));
        }
        if !self.era_tried {
            self.era_tried = true;
            let of_era = era.and_then(|before| {
                open.iter()
                    .rev()
                    .find(|c| c.uploaded.is_some_and(|t| t <= before))
            });
            if let Some(c) = of_era {
                return Some((c.version.clone(), Step::Era, open.len()));
            }
            let after_era =
                era.and_then(|before| open.iter().find(|c| c.uploaded.is_some_and(|t| t > before)));
            if let Some(c) = after_era {
                return Some((c.version.clone(), Step::AfterEra, open.len()));
            }
        }
        Some((
            open[open.len() / 2].version.clone(),
            Step::Bisect,
            open.len(),
        ))
    }

    /// The release to build when no release with a wheel is left: the era's, else the first
    /// after it, else (no era) the newest open; once per distribution.
    fn build(
        &mut self,
        open: &[&Candidate],
        era: Option<Timestamp>,
    ) -> Option<(Version, Step, usize)> {
        if self.build_tried || open.is_empty() {
            return None;
        }
        self.build_tried = true;
        let uploaded_by =
            |c: &&&Candidate, before: Timestamp| c.uploaded.is_some_and(|t| t <= before);
        let (chosen, step) = match era {
            Some(before) => (
                open.iter()
                    .rev()
                    .find(|c| uploaded_by(c, before))
                    .or_else(|| open.iter().find(|c| !uploaded_by(c, before)))?,
                Step::Build,
            ),
            None => (open.last()?, Step::BuildNewest),
        };
        self.target_built = true;
        Some((chosen.version.clone(), step, open.len()))
    }
}

/// A restoration's search, over every distribution a failure pointed at.
#[derive(Debug, Clone, Default)]
pub struct Search {
    dists: BTreeMap<DistName, DistSearch>,
}

impl Search {
    /// The search resumed from what earlier restorations of the notebook refuted (the bank's
    /// run records): those releases are out from the first round.
    pub fn resumed(refuted: &[Refutation]) -> Self {
        let mut search = Search::default();
        for r in refuted {
            let dist = search.dists.entry(r.dist.clone()).or_default();
            dist.refuted.insert(
                r.version.clone(),
                Refuted {
                    cell: r.cell,
                    bound: r.bound,
                },
            );
            if let Some(side) = r.bound {
                dist.bound(&r.version, side);
            }
        }
        search
    }

    /// A run with `ran_with` installed got past `cell` (or to the end, `None`): releases it
    /// ran with passed every earlier cell where a release of theirs failed.
    pub fn reached(&mut self, stopped_at: Option<u32>, ran_with: &[(DistName, Version)]) {
        for (dist, version) in ran_with {
            let Some(search) = self.dists.get_mut(dist) else {
                continue;
            };
            let cells: Vec<u32> = search
                .refuted
                .values()
                .map(|r| r.cell)
                .filter(|c| stopped_at.is_none_or(|s| *c < s))
                .collect();
            if let Some(cell) = cells.into_iter().max() {
                search.passed.insert(version.clone(), cell);
            }
        }
    }

    /// A run stopped at `cell`, pointing at `suspects`, likeliest first. The first suspect
    /// with a release left to try is refuted and moved; the others follow to their era
    /// releases when they have not been there yet. `None` when no suspect has a release
    /// left open: the search has nothing to learn.
    pub fn failed(
        &mut self,
        cell: u32,
        suspects: &[Suspect],
        space: &mut dyn SearchSpace,
    ) -> Option<Move> {
        let era = space.era();
        let python_released = space.python_released();
        for suspect in suspects {
            let candidates = space.candidates(&suspect.dist);
            let search = self.dists.entry(suspect.dist.clone()).or_default();
            let mut trial = search.clone();
            let uploaded = candidates
                .iter()
                .find(|c| c.version == suspect.version)
                .and_then(|c| c.uploaded);
            let too_old = suspect.unreadable
                && uploaded
                    .zip(python_released)
                    .is_some_and(|(uploaded, python)| uploaded < python);
            if too_old {
                trial.refute_as(&suspect.version, cell, Bound::TooOld);
                if let Some((to, open)) = trial.after_python(&candidates, python_released) {
                    *search = trial;
                    return Some(Move {
                        dist: suspect.dist.clone(),
                        from: suspect.version.clone(),
                        to,
                        step: Step::AfterPython,
                        open,
                    });
                }
            } else {
                trial.refute(&suspect.version, cell);
            }
            // A release of the era failed already: the era has been tried, and the next
            // step halves what is left (the era's next release would be a walk).
            // (The first release after the era, which stands in for it where none of the era
            // installs here, is the oldest candidate: when it fails, nothing is left below.)
            let of_era = uploaded
                .zip(era)
                .is_some_and(|(uploaded, before)| uploaded <= before);
            if of_era {
                trial.era_tried = true;
            }
            let Some((to, step, open)) = trial.next(&candidates, era) else {
                // Refuted all the same: the run showed it failing; nothing to move to.
                search
                    .refuted
                    .insert(suspect.version.clone(), Refuted::alone(cell));
                continue;
            };
            trial.target = Some(to.clone());
            *search = trial;
            return Some(Move {
                dist: suspect.dist.clone(),
                from: suspect.version.clone(),
                to,
                step,
                open,
            });
        }
        None
    }

    /// A run stopped at `cell` where the bank knows which releases have what the suspects
    /// lacked: they are refuted (never tried again, in this restoration or the next), and
    /// no bound is set: the evidence, not the search, moves them.
    pub fn refuted_at(&mut self, cell: u32, suspects: &[Suspect]) {
        for s in suspects {
            let search = self.dists.entry(s.dist.clone()).or_default();
            search
                .refuted
                .insert(s.version.clone(), Refuted::alone(cell));
            if search.target.as_ref() == Some(&s.version) {
                search.target = None;
            }
        }
    }

    /// A release the search asked for failed to install: the next one tried for that
    /// distribution is between it and the releases that failed, else below it. Whether the
    /// search moved.
    pub fn broken(
        &mut self,
        dist: &DistName,
        version: &Version,
        space: &mut dyn SearchSpace,
    ) -> Option<Move> {
        let search = self.dists.get_mut(dist)?;
        if search.target.as_ref() != Some(version) {
            return None;
        }
        search.broken.insert(version.clone());
        search.target = None;
        let candidates = space.candidates(dist);
        let between: Vec<&Candidate> = candidates
            .iter()
            .filter(|c| !c.built && &c.version > version && search.is_open(&c.version))
            .collect();
        let (to, open) = if between.is_empty() {
            let (to, _, open) = search.next(&candidates, None)?;
            (to, open)
        } else {
            search.target_built = false;
            (between[between.len() / 2].version.clone(), between.len())
        };
        search.target = Some(to.clone());
        Some(Move {
            dist: dist.clone(),
            from: version.clone(),
            to,
            step: Step::Bisect,
            open,
        })
    }

    /// What the next resolution is asked: for each distribution searched, the releases
    /// refuted, the bounds and the release to try.
    pub fn steer(&self) -> Vec<Steer> {
        self.dists
            .iter()
            .map(|(dist, s)| Steer {
                target: s.target.clone(),
                build: s.target.is_some() && s.target_built,
                above: s.above.clone(),
                below: s.below.clone(),
                refuted: s.refuted.keys().cloned().collect(),
                ..Steer::new(dist.clone())
            })
            .collect()
    }

    /// Where a resolution's `pins` did not take the release the search asked for (the bank,
    /// indexed further since the move, placed the change): each distribution, with the
    /// release asked for and the one pinned.
    pub fn departures(&self, pins: &[(DistName, Version)]) -> Vec<(DistName, Version, Version)> {
        self.dists
            .iter()
            .filter_map(|(dist, s)| {
                let target = s.target.as_ref()?;
                let (_, pinned) = pins.iter().find(|(d, _)| d == dist)?;
                (pinned != target).then(|| (dist.clone(), target.clone(), pinned.clone()))
            })
            .collect()
    }

    /// Every release runs refuted, with the cell.
    pub fn refuted(&self) -> Vec<Refutation> {
        self.dists
            .iter()
            .flat_map(|(dist, s)| {
                s.refuted.iter().map(|(version, r)| Refutation {
                    dist: dist.clone(),
                    version: version.clone(),
                    cell: r.cell,
                    bound: r.bound,
                })
            })
            .collect()
    }

    /// Whether `version` of `dist` was refuted by a run.
    pub fn is_refuted(&self, dist: &DistName, version: &Version) -> bool {
        self.dists
            .get(dist)
            .is_some_and(|s| s.refuted.contains_key(version))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        s.parse().unwrap()
    }

    fn d(s: &str) -> DistName {
        DistName::new(s).unwrap()
    }

    fn at(day: &str) -> Timestamp {
        format!("{day}T00:00:00Z").parse().unwrap()
    }

    /// Releases `0.1 ... 0.N`, release `0.i` uploaded in year 2010 + i.
    struct Space {
        releases: Vec<Candidate>,
        era: Option<Timestamp>,
    }

    impl Space {
        fn years(n: u32, era: Option<&str>) -> Self {
            Self {
                releases: (1..=n)
                    .map(|i| Candidate {
                        version: v(&format!("0.{i}")),
                        uploaded: Some(at(&format!("{}-06-01", 2010 + i))),
                        built: false,
                    })
                    .collect(),
                era: era.map(at),
            }
        }
    }

    impl SearchSpace for Space {
        fn candidates(&mut self, _: &DistName) -> Vec<Candidate> {
            self.releases.clone()
        }
        fn era(&self) -> Option<Timestamp> {
            self.era
        }
        fn python_released(&self) -> Option<Timestamp> {
            Some(at("2018-06-27"))
        }
    }

    fn suspect(dist: &str, version: &str) -> Suspect {
        Suspect::new(d(dist), v(version))
    }

    /// The hold= case: the newest fails, the era's release is tried next, not the one
    /// before the newest.
    #[test]
    fn the_first_repair_jumps_to_the_era() {
        let mut space = Space::years(16, Some("2017-03-01"));
        let mut search = Search::default();
        let m = search
            .failed(4, &[suspect("mpl", "0.16")], &mut space)
            .unwrap();
        assert_eq!((m.to, m.step), (v("0.6"), Step::Era));
        let steer = search.steer();
        assert_eq!(steer[0].target, Some(v("0.6")));
        assert_eq!(steer[0].below, Some(v("0.16")));
        assert_eq!(steer[0].refuted, [v("0.16")]);
    }

    /// graphillion 1.11 (of the era) fails importing its extension; 1.11.post1, after the era,
    /// is the same release rebuilt: tried next, not taken to fail as a newer release would be.
    #[test]
    fn a_rebuild_of_the_failing_release_is_tried_first() {
        let release = |version: &str, day: &str| Candidate {
            version: v(version),
            uploaded: Some(at(day)),
            built: false,
        };
        let mut space = Space {
            releases: vec![
                release("1.9", "2016-01-01"),
                release("1.10", "2017-01-01"),
                release("1.11", "2018-01-01"),
                release("1.11.post1", "2019-01-01"),
                release("1.12", "2020-01-01"),
            ],
            era: Some(at("2018-08-06")),
        };
        let mut search = Search::default();
        let m = search
            .failed(4, &[suspect("graphillion", "1.11")], &mut space)
            .unwrap();
        assert_eq!((m.to, m.step), (v("1.11.post1"), Step::Rebuild));
        // It failing too: the search goes on below, never to 1.12.
        let m = search
            .failed(4, &[suspect("graphillion", "1.11.post1")], &mut space)
            .unwrap();
        assert!(m.to < v("1.11"), "{m}");
    }

    /// A release of the era that fails (the era's preference chose it) is no reason to try the
    /// era's next one: that would be a walk. The search bisects.
    #[test]
    fn a_failing_release_of_the_era_is_bisected_from() {
        let mut space = Space::years(16, Some("2017-03-01"));
        let mut search = Search::default();
        let m = search
            .failed(4, &[suspect("mpl", "0.6")], &mut space)
            .unwrap();
        assert_eq!((m.to, m.step), (v("0.3"), Step::Bisect));
    }

    /// Where none of the era installs on the run's Python, the first release after it stands
    /// in for the era's: jumped to first, and the oldest there is.
    #[test]
    fn with_nothing_of_the_era_the_first_after_it_stands_in() {
        let mut space = Space::years(16, Some("2009-03-01"));
        let mut search = Search::default();
        let m = search
            .failed(4, &[suspect("np", "0.16")], &mut space)
            .unwrap();
        assert_eq!((m.to, m.step), (v("0.1"), Step::AfterEra));
        // It failing leaves nothing older to try here.
        let mut search = Search::default();
        assert_eq!(search.failed(4, &[suspect("np", "0.1")], &mut space), None);
    }

    /// Without an era, and when the era's release fails too, each round halves what is left.
    #[test]
    fn then_it_bisects() {
        let mut space = Space::years(16, None);
        let mut search = Search::default();
        let m = search
            .failed(4, &[suspect("p", "0.16")], &mut space)
            .unwrap();
        assert_eq!((m.to.clone(), m.step, m.open), (v("0.8"), Step::Bisect, 15));
        let m = search
            .failed(4, &[suspect("p", "0.8")], &mut space)
            .unwrap();
        assert_eq!((m.to.clone(), m.open), (v("0.4"), 7));
        let m = search
            .failed(4, &[suspect("p", "0.4")], &mut space)
            .unwrap();
        assert_eq!((m.to.clone(), m.open), (v("0.2"), 3));
        let mut space = Space::years(16, Some("2015-01-01"));
        let mut search = Search::default();
        let m = search
            .failed(4, &[suspect("p", "0.16")], &mut space)
            .unwrap();
        assert_eq!((m.to, m.step), (v("0.4"), Step::Era));
        let m = search
            .failed(4, &[suspect("p", "0.4")], &mut space)
            .unwrap();
        assert_eq!((m.to, m.step), (v("0.2"), Step::Bisect));
    }

    /// A release that got past the first failing cell and fails a later one, while newer
    /// ones failed the first: the search keeps between them.
    #[test]
    fn a_later_cell_bounds_the_search_from_below() {
        let mut space = Space::years(16, Some("2013-01-01"));
        let mut search = Search::default();
        let m = search
            .failed(3, &[suspect("p", "0.16")], &mut space)
            .unwrap();
        assert_eq!(m.to, v("0.2"));
        // 0.2 got past cell 3 and failed cell 9.
        search.reached(Some(9), &[(d("p"), v("0.2"))]);
        let m = search
            .failed(9, &[suspect("p", "0.2")], &mut space)
            .unwrap();
        assert_eq!(m.step, Step::Bisect);
        assert!(m.to > v("0.2") && m.to < v("0.16"), "{m:?}");
        let steer = &search.steer()[0];
        assert_eq!(steer.above, Some(v("0.2")));
        assert_eq!(steer.below, Some(v("0.16")));
    }

    /// Nothing left open for the first suspect: the next one is moved; none left, nothing.
    #[test]
    fn nothing_open_is_nothing_to_learn() {
        let mut space = Space::years(1, None);
        let mut search = Search::default();
        assert_eq!(search.failed(2, &[suspect("a", "0.1")], &mut space), None);
        assert!(search.is_refuted(&d("a"), &v("0.1")));
        let mut space = Space::years(3, None);
        let m = search
            .failed(2, &[suspect("a", "0.1"), suspect("b", "0.3")], &mut space)
            .unwrap();
        assert_eq!(m.dist, d("b"));
    }

    /// A target that fails to install moves up, between it and the release that failed.
    #[test]
    fn a_target_that_does_not_install_moves_toward_the_failure() {
        let mut space = Space::years(16, Some("2013-01-01"));
        let mut search = Search::default();
        let m = search
            .failed(3, &[suspect("p", "0.16")], &mut space)
            .unwrap();
        assert_eq!(m.to, v("0.2"));
        let m = search.broken(&d("p"), &v("0.2"), &mut space).unwrap();
        assert!(m.to > v("0.2") && m.to < v("0.16"), "{m:?}");
        // Only the release the search asked for moves it.
        assert_eq!(search.broken(&d("p"), &v("0.5"), &mut space), None);
    }

    /// pyproj on Linux's Python 2.7: nothing before 2.0.0 has a wheel. 2.0.0 failing, the
    /// era's release is built from its sdist, once; a build that does not install ends it.
    #[test]
    fn with_no_wheel_left_the_era_release_is_built_once() {
        let release = |version: &str, day: &str, built: bool| Candidate {
            version: v(version),
            uploaded: Some(at(day)),
            built,
        };
        let mut space = Space {
            releases: vec![
                release("1.9.4", "2014-01-01", true),
                release("1.9.5.1", "2016-01-06", true),
                release("1.9.6", "2018-12-29", true),
                release("2.0.0", "2019-03-08", false),
                release("2.1.0", "2019-03-15", false),
            ],
            era: Some(at("2017-04-30")),
        };
        let mut search = Search::default();
        let m = search
            .failed(2, &[suspect("pyproj", "2.0.0")], &mut space)
            .unwrap();
        assert_eq!(
            (m.to.clone(), m.step, m.open),
            (v("1.9.5.1"), Step::Build, 3)
        );
        let steer = &search.steer()[0];
        assert!(steer.build, "{steer:?}");
        assert_eq!(steer.target, Some(v("1.9.5.1")));
        assert_eq!(
            m.to_string(),
            "pyproj 2.0.0 failed: trying 1.9.5.1 next, built from its sdist, the release of \
             the notebook's era nearest its date (no release with a wheel for this Python is \
             left) (3 open)"
        );
        // The build fails: no second build.
        assert_eq!(search.broken(&d("pyproj"), &v("1.9.5.1"), &mut space), None);
        assert!(!search.steer()[0].build);
        // While a release with a wheel is open, none is built.
        let mut search = Search::default();
        let m = search
            .failed(2, &[suspect("pyproj", "2.1.0")], &mut space)
            .unwrap();
        assert_eq!((m.to, m.step), (v("2.0.0"), Step::AfterEra));
        assert!(!search.steer()[0].build);
    }

    /// astor 0.6 (2017) names a parameter `async`, a keyword of Python 3.7 (2018-06-27): a
    /// SyntaxError inside it. Older releases would fail alike; the first after 3.7 came out
    /// is tried next, and later failures of the kind keep the search above.
    #[test]
    fn a_release_too_old_for_the_python_moves_to_the_first_after_it() {
        let mut space = Space::years(12, Some("2017-08-08"));
        let mut search = Search::default();
        let unreadable = |version: &str| Suspect {
            unreadable: true,
            ..suspect("astor", version)
        };
        // 0.7 came out in 2017, before Python 3.7; 0.8 in 2018, after it.
        let m = search.failed(1, &[unreadable("0.7")], &mut space).unwrap();
        assert_eq!((m.to.clone(), m.step), (v("0.9"), Step::AfterPython));
        assert_eq!(search.steer()[0].above, Some(v("0.7")));
        assert_eq!(search.steer()[0].below, None);
        // Any other failure of the era's release bounds from above: the search goes down.
        let mut search = Search::default();
        let m = search
            .failed(1, &[suspect("astor", "0.7")], &mut space)
            .unwrap();
        assert_eq!((m.to, m.step), (v("0.4"), Step::Bisect));
        // Released after the Python, an unreadable release is too new (Python 3 code on 2.7).
        let mut search = Search::default();
        let m = search.failed(1, &[unreadable("0.10")], &mut space).unwrap();
        assert_eq!(m.step, Step::Era);
        assert_eq!(search.steer()[0].below, Some(v("0.10")));
    }

    /// What earlier restorations refuted is out from the first round.
    #[test]
    fn a_resumed_search_keeps_what_was_refuted() {
        let search = Search::resumed(&[Refutation {
            dist: d("p"),
            version: v("0.16"),
            cell: 3,
            bound: None,
        }]);
        assert!(search.is_refuted(&d("p"), &v("0.16")));
        assert_eq!(search.steer()[0].refuted, [v("0.16")]);
        assert_eq!(search.refuted().len(), 1);
    }

    /// The side a run ruled out comes back with the release, and a resumed search keeps
    /// it: pyproj 2.0.0 failed, so 2.0.1 is out too in the next restoration.
    #[test]
    fn a_resumed_search_keeps_the_bounds_runs_set() {
        let mut space = Space::years(6, None);
        let mut search = Search::default();
        let m = search.failed(2, &[Suspect::new(d("p"), v("0.4"))], &mut space);
        assert!(m.is_some());
        let refuted = search.refuted();
        assert_eq!(refuted[0].bound, Some(Bound::TooNew));
        assert_eq!(
            refuted[0].to_string(),
            "p 0.4 (cell 2, and every newer release)"
        );
        let resumed = Search::resumed(&refuted);
        assert_eq!(resumed.steer()[0].below, Some(v("0.4")));
        assert_eq!(resumed.steer()[0].above, None);
        assert_eq!(resumed.refuted(), refuted);

        let old = Search::resumed(&[Refutation {
            dist: d("p"),
            version: v("0.2"),
            cell: 7,
            bound: Some(Bound::TooOld),
        }]);
        assert_eq!(old.steer()[0].above, Some(v("0.2")));
        assert_eq!(old.steer()[0].below, None);
    }

    /// A resolution that took another release than the search's target says so; one that
    /// took the target, or left the distribution out, does not.
    #[test]
    fn a_resolution_that_departs_from_the_target_is_named() {
        let mut space = Space::years(6, None);
        let mut search = Search::default();
        let m = search
            .failed(2, &[Suspect::new(d("p"), v("0.6"))], &mut space)
            .unwrap();
        assert_eq!(
            search.departures(&[(d("p"), v("0.2")), (d("q"), v("1.0"))]),
            [(d("p"), m.to.clone(), v("0.2"))]
        );
        assert!(search.departures(&[(d("p"), m.to)]).is_empty());
        assert!(search.departures(&[(d("q"), v("1.0"))]).is_empty());
    }

    /// With no era (`--date none`), the release built is the newest left open, and the
    /// move says so rather than naming an era.
    #[test]
    fn with_no_era_the_newest_open_release_is_built() {
        let mut space = Space::years(3, None);
        for c in &mut space.releases {
            c.built = c.version != v("0.3");
        }
        let mut search = Search::default();
        let m = search
            .failed(2, &[Suspect::new(d("p"), v("0.3"))], &mut space)
            .unwrap();
        assert_eq!((m.to.clone(), m.step), (v("0.2"), Step::BuildNewest));
        assert!(
            m.to_string().contains("the newest release left open"),
            "{m}"
        );
    }
}

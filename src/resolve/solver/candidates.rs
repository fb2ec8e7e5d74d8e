//! A distribution's releases judged for the target: which are installable, which of those
//! to prefer, and why the others are out.

use std::ops::Bound;
use std::sync::Arc;

use pep508_rs::pep440_rs::Version;
use pubgrub::Ranges;

use super::catalog::{Catalog, Release};
use super::exclusion::{Exclusion, SdistRefused};
use super::options::{pure_sdist_admitted, Sdists, SolveOptions};
use super::root::Allowed;
use super::target::Target;
use crate::names::DistName;
use crate::pypi::{Admits, DistFile, FileKind, ReleaseFile};

/// What the root asks of one distribution beyond its range.
#[derive(Debug, Clone, Default)]
pub(crate) struct RootPolicy {
    /// Pinned with `==`: usable even when yanked.
    pub pinned: Vec<Version>,
    /// A root specifier names a pre-release: pre-releases rank with stable ones.
    pub prereleases: bool,
    /// What each root requirement on the distribution allows (none for a dependency only):
    /// pre-releases are candidates only when no final release they allow installs.
    pub allowed: Vec<Allowed>,
}

/// A release's standing on the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Installable from the files the rules admit: wheels that fit, sdists when allowed.
    Usable,
    /// Installable from its sdist `entry` (an index into its files), surveyed as pure Python.
    PureSdist {
        entry: usize,
    },
    Out(Exclusion),
    /// Installable from one of these sdists (indices into its files) if it is pure Python,
    /// which the catalog is asked when the solver first considers the release; else as
    /// `otherwise` says (`None`: built all the same, under the fallback's rule).
    IfPure {
        sdists: Vec<usize>,
        otherwise: Option<Exclusion>,
    },
}

impl Verdict {
    /// Usable, or may be once its sdist is surveyed.
    fn may_be_usable(&self) -> bool {
        !matches!(self, Verdict::Out(_))
    }

    /// Usable whatever a survey would say.
    fn surely_usable(&self) -> bool {
        matches!(
            self,
            Verdict::Usable
                | Verdict::PureSdist { .. }
                | Verdict::IfPure {
                    otherwise: None,
                    ..
                }
        )
    }

    /// Why the release is out; for one not surveyed yet, why it would be if its sdist is not
    /// pure Python.
    fn exclusion(&self) -> Option<&Exclusion> {
        match self {
            Verdict::Out(e) => Some(e),
            Verdict::IfPure { otherwise, .. } => otherwise.as_ref(),
            Verdict::Usable | Verdict::PureSdist { .. } => None,
        }
    }
}

/// A release that failed on the target's Python in an earlier run, unless a root pins it (the
/// notebook's own `pip install x==v` is kept: the run record says why it may fail).
fn failed_before(
    dist: &DistName,
    release: &Release,
    target: &Target,
    options: &SolveOptions,
) -> Option<Exclusion> {
    let python = target.python().feature();
    options
        .failed
        .iter()
        .rev()
        .find(|f| &f.dist == dist && f.version == release.version && f.python.feature() == python)
        .map(|f| Exclusion::FailedBefore {
            python,
            step: f.step,
            at: f.at,
        })
}

/// Every release of one distribution with its verdict for the target.
#[derive(Debug)]
pub(crate) struct Candidates {
    pub releases: Arc<[Release]>,
    /// Aligned with `releases`.
    pub verdicts: Vec<Verdict>,
    /// `usable_before[i]`: releases among the first `i` that are usable or may be (one more
    /// entry than releases), so that a count is two subtractions per segment.
    usable_before: Vec<usize>,
    /// The index has no such project.
    pub not_found: bool,
    prereleases: bool,
    /// Which sdists count as installable (see [`SolveOptions::sdists_for`]).
    pub sdists: Sdists,
    /// Chosen first when a range allows it: what a restoration's search wants tried.
    target: Option<Version>,
    /// The era: releases uploaded before it are preferred to newer ones.
    prefer_before: Option<jiff::Timestamp>,
    /// The last release chosen below a newer one the range allowed, and what held it there.
    pub held: Option<(Version, Held)>,
    /// A restoration's search asks something of this distribution: whatever is chosen is
    /// held by it (an installer left to itself would take a release runs refuted).
    steered: bool,
    /// Releases installable only by building their sdist while others have a wheel (the
    /// last resort's rule): chosen only when no release with a wheel fits the range.
    built_last: Vec<bool>,
}

/// What held a choice below the newest release its range allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Held {
    /// The notebook's era.
    Era,
    /// A restoration's search.
    Search,
}

impl Candidates {
    pub fn judge(
        dist: &DistName,
        releases: Arc<[Release]>,
        target: &Target,
        options: &SolveOptions,
        policy: &RootPolicy,
    ) -> Self {
        let steer = options.steer.iter().find(|s| &s.dist == dist);
        // The search builds one release from its sdist when no release with a wheel is left.
        let sdists = if steer.is_some_and(|s| s.build) {
            Sdists::Any
        } else {
            options.sdists_for(&releases, target)
        };
        let survey = options.surveys_sdists(&releases);
        let mut verdicts: Vec<Verdict> = releases
            .iter()
            .map(|r| {
                let pinned = policy.pinned.contains(&r.version);
                let judged = verdict(r, target, options, (sdists, survey), pinned);
                if !judged.may_be_usable() {
                    return judged;
                }
                // A run is the strongest evidence: what it refuted is out, pinned or not.
                if let Some(out) = steer.and_then(|s| s.rules_out(&r.version)) {
                    return Verdict::Out(out);
                }
                match (!pinned)
                    .then(|| failed_before(dist, r, target, options))
                    .flatten()
                {
                    Some(failed) => Verdict::Out(failed),
                    None => judged,
                }
            })
            .collect();
        // Finals first: a pre-release is a candidate only when the notebook names one, or
        // when no final release it allows installs (matplotlib 3.0.0rc2 does not import).
        let allows = |v: &Version| policy.allowed.iter().all(|a| a.contains(v));
        let final_fits = releases
            .iter()
            .zip(&verdicts)
            .any(|(r, v)| v.surely_usable() && r.version.is_stable() && allows(&r.version));
        if final_fits && !policy.prereleases {
            for (r, v) in releases.iter().zip(verdicts.iter_mut()) {
                if !r.version.is_stable() && v.may_be_usable() {
                    *v = Verdict::Out(Exclusion::PreRelease);
                }
            }
        }
        // Under the last resort, a release with a wheel goes before one that is built.
        let built_last: Vec<bool> = if options.sdist_anywhere {
            releases
                .iter()
                .map(|r| {
                    !r.files.entries().iter().any(
                        |f| matches!(&f.kind, FileKind::Wheel { tags, .. } if target.fits(tags)),
                    )
                })
                .collect()
        } else {
            Vec::new()
        };
        Self {
            releases,
            usable_before: usable_before(&verdicts),
            verdicts,
            not_found: false,
            prereleases: policy.prereleases,
            sdists,
            target: steer.and_then(|s| s.target.clone()),
            prefer_before: options.prefer_before,
            held: None,
            steered: steer.is_some(),
            built_last,
        }
    }

    pub fn not_found() -> Self {
        Self {
            releases: Arc::from([]),
            verdicts: Vec::new(),
            usable_before: vec![0],
            not_found: true,
            prereleases: false,
            sdists: Sdists::No,
            target: None,
            prefer_before: None,
            held: None,
            steered: false,
            built_last: Vec::new(),
        }
    }

    /// The indices of the releases inside each segment of `range`, found by binary search
    /// (releases are sorted): PubGrub asks for counts and choices thousands of times.
    fn spans<'a>(
        &'a self,
        range: &'a Ranges<Version>,
    ) -> impl Iterator<Item = std::ops::Range<usize>> + 'a {
        range.iter().map(|(lower, upper)| {
            let start = self.releases.partition_point(|r| match lower {
                Bound::Included(v) => r.version < *v,
                Bound::Excluded(v) => r.version <= *v,
                Bound::Unbounded => false,
            });
            let end = self.releases.partition_point(|r| match upper {
                Bound::Included(v) => r.version <= *v,
                Bound::Excluded(v) => r.version < *v,
                Bound::Unbounded => true,
            });
            start..end.max(start)
        })
    }

    /// The preferred installable release in `range`: the search's target when the range
    /// allows it; else the newest stable one of the era (uploaded before `prefer_before`),
    /// else the newest stable one, else the newest pre-release (or simply the newest when the
    /// root asked for pre-releases). A release installable only from its sdist is surveyed
    /// (`is_pure`: whether the sdist at that index of its files is pure Python) when it is
    /// reached, and not before: the first usable release ends the search, so older sdists
    /// are never fetched.
    pub fn choose(
        &mut self,
        range: &Ranges<Version>,
        is_pure: &mut dyn FnMut(&Release, usize) -> bool,
    ) -> Option<Version> {
        let (chosen, held) = self.choose_held(range, is_pure);
        // Held only when a newer release the range allows would install: the one the
        // preference moved the choice from.
        self.held = match (&chosen, held) {
            (Some(v), _) if self.steered => Some((v.clone(), Held::Search)),
            (Some(v), Some(why)) if self.newest(range, v, is_pure) => Some((v.clone(), why)),
            _ => None,
        };
        chosen
    }

    /// Whether a stable release newer than `than` in `range` is usable.
    fn newest(
        &mut self,
        range: &Ranges<Version>,
        than: &Version,
        is_pure: &mut dyn FnMut(&Release, usize) -> bool,
    ) -> bool {
        let spans: Vec<std::ops::Range<usize>> = self.spans(range).collect();
        for span in spans.into_iter().rev() {
            for i in span.rev() {
                if &self.releases[i].version <= than {
                    return false;
                }
                if self.verdicts[i].may_be_usable()
                    && (self.prereleases || self.releases[i].version.is_stable())
                    && self.settle(i, is_pure)
                {
                    return true;
                }
            }
        }
        false
    }

    fn choose_held(
        &mut self,
        range: &Ranges<Version>,
        is_pure: &mut dyn FnMut(&Release, usize) -> bool,
    ) -> (Option<Version>, Option<Held>) {
        if self.built_last.iter().any(|b| *b) {
            // Wheels first, with every release that must be built kept out; then all.
            let saved = self.verdicts.clone();
            for (v, built) in self.verdicts.iter_mut().zip(&self.built_last) {
                if *built {
                    *v = Verdict::Out(Exclusion::PreRelease);
                }
            }
            let found = self.choose_among(range, is_pure);
            // What the pass settled (sdists surveyed) is kept; what it hid comes back.
            for ((v, old), built) in self.verdicts.iter_mut().zip(saved).zip(&self.built_last) {
                if *built {
                    *v = old;
                }
            }
            self.usable_before = usable_before(&self.verdicts);
            if found.0.is_some() {
                return found;
            }
        }
        self.choose_among(range, is_pure)
    }

    fn choose_among(
        &mut self,
        range: &Ranges<Version>,
        is_pure: &mut dyn FnMut(&Release, usize) -> bool,
    ) -> (Option<Version>, Option<Held>) {
        if let Some(target) = self.target.clone().filter(|t| range.contains(t)) {
            if let Some(i) = self.position(&target) {
                if self.verdicts[i].may_be_usable() && self.settle(i, is_pure) {
                    return (Some(target), Some(Held::Search));
                }
            }
        }
        let spans: Vec<std::ops::Range<usize>> = self.spans(range).collect();
        if let Some(before) = self.prefer_before {
            let of_era = |r: &Release| r.upload_time().is_some_and(|t| t <= before);
            for span in spans.iter().rev() {
                for i in span.clone().rev() {
                    let release = &self.releases[i];
                    if !self.verdicts[i].may_be_usable()
                        || !of_era(release)
                        || (!self.prereleases && !release.version.is_stable())
                    {
                        continue;
                    }
                    if self.settle(i, is_pure) {
                        return (Some(self.releases[i].version.clone()), Some(Held::Era));
                    }
                }
            }
            // Nothing of the era installs here: the first stable release after it that does,
            // the nearest to the notebook's APIs (numpy 1.23 on Python 3.11 for a notebook of
            // 2016, not 2.x), and the nearest in kind to the era's pins of the rest. Only
            // releases usable without a survey: a walk up from the era would fetch an sdist
            // per release to survey it.
            let after = |r: &Release| r.upload_time().is_some_and(|t| t > before);
            for span in &spans {
                for i in span.clone() {
                    let release = &self.releases[i];
                    if matches!(
                        self.verdicts[i],
                        Verdict::Usable | Verdict::PureSdist { .. }
                    ) && after(release)
                        && (self.prereleases || release.version.is_stable())
                    {
                        return (Some(release.version.clone()), Some(Held::Era));
                    }
                }
            }
        }
        let mut pre = Vec::new();
        for span in spans.into_iter().rev() {
            for i in span.rev() {
                if !self.verdicts[i].may_be_usable() {
                    continue;
                }
                if !self.prereleases && !self.releases[i].version.is_stable() {
                    pre.push(i);
                    continue;
                }
                if self.settle(i, is_pure) {
                    return (Some(self.releases[i].version.clone()), None);
                }
            }
        }
        for i in pre {
            if self.settle(i, is_pure) {
                return (Some(self.releases[i].version.clone()), None);
            }
        }
        (None, None)
    }

    /// Whether release `i` is usable, surveying its sdists if that is still to be done.
    fn settle(&mut self, i: usize, is_pure: &mut dyn FnMut(&Release, usize) -> bool) -> bool {
        let Verdict::IfPure { sdists, otherwise } = &self.verdicts[i] else {
            return self.verdicts[i].may_be_usable();
        };
        let release = &self.releases[i];
        let settled = match sdists
            .iter()
            .copied()
            .find(|&entry| is_pure(release, entry))
        {
            Some(entry) => Verdict::PureSdist { entry },
            None => otherwise.clone().map_or(Verdict::Usable, Verdict::Out),
        };
        let usable = settled.may_be_usable();
        self.verdicts[i] = settled;
        if !usable {
            self.usable_before = usable_before(&self.verdicts);
        }
        usable
    }

    /// How many installable releases `range` holds (for prioritizing).
    pub fn count(&self, range: &Ranges<Version>) -> usize {
        self.spans(range)
            .map(|span| self.usable_before[span.end] - self.usable_before[span.start])
            .sum()
    }

    /// Whether the release is usable (a release whose sdist is still to be surveyed is not
    /// yet).
    pub fn is_usable(&self, version: &Version) -> bool {
        self.position(version).is_some_and(|i| {
            matches!(
                self.verdicts[i],
                Verdict::Usable | Verdict::PureSdist { .. }
            )
        })
    }

    pub fn position(&self, version: &Version) -> Option<usize> {
        self.releases
            .binary_search_by(|r| r.version.cmp(version))
            .ok()
    }

    /// Versions in `range` that are out, with why, oldest first.
    pub fn excluded_in<'a>(
        &'a self,
        range: &'a Ranges<Version>,
    ) -> impl Iterator<Item = (&'a Version, &'a Exclusion)> + 'a {
        self.releases
            .iter()
            .zip(&self.verdicts)
            .filter_map(move |(r, v)| Some((&r.version, v.exclusion()?)))
            .filter(move |(v, _)| range.contains(v))
    }

    /// All release versions, oldest first.
    pub fn versions(&self) -> Vec<&Version> {
        self.releases.iter().map(|r| &r.version).collect()
    }

    /// Marks a release out for a reason found later (its metadata is unreadable).
    pub fn exclude(&mut self, version: &Version, why: Exclusion) {
        if let Some(i) = self.position(version) {
            self.verdicts[i] = Verdict::Out(why);
            self.usable_before = usable_before(&self.verdicts);
        }
    }
}

fn usable_before(verdicts: &[Verdict]) -> Vec<usize> {
    let mut counts = Vec::with_capacity(verdicts.len() + 1);
    counts.push(0);
    for v in verdicts {
        counts.push(counts[counts.len() - 1] + usize::from(v.may_be_usable()));
    }
    counts
}

/// The files of `release` an installer may use on the target (read whole), each with
/// whether it is an sdist surveyed as pure Python, for a release judged `verdict`.
pub(crate) fn installable_files<'a>(
    release: &'a Release,
    target: &'a Target,
    options: &'a SolveOptions,
    sdists: Sdists,
    pinned: bool,
    verdict: &Verdict,
) -> impl Iterator<Item = (&'a DistFile, bool)> + 'a {
    let pure = match verdict {
        Verdict::PureSdist { entry } => Some(*entry),
        _ => None,
    };
    let entries = release.files.entries();
    let fits: Vec<(bool, bool)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let pure = pure == Some(i);
            (
                pure || installable(e, target, options, sdists, pinned),
                pure,
            )
        })
        .collect();
    let whole: &[DistFile] = if fits.iter().any(|(fit, _)| *fit) {
        release.files.whole()
    } else {
        &[]
    };
    whole
        .iter()
        .zip(fits)
        .filter_map(|(f, (fit, pure))| fit.then_some((f, pure)))
}

/// Whether an installer may use this file on the target (`sdists`: which sdists count).
fn installable(
    file: &ReleaseFile,
    target: &Target,
    options: &SolveOptions,
    sdists: Sdists,
    pinned: bool,
) -> bool {
    in_time(file.upload_time, options)
        && (pinned || !file.yanked)
        && match &file.kind {
            FileKind::Wheel { tags, .. } => target.fits(tags),
            FileKind::Sdist { .. } => sdists.admit(file.upload_time, target),
        }
}

fn in_time(upload_time: Option<jiff::Timestamp>, options: &SolveOptions) -> bool {
    match (options.exclude_newer, upload_time) {
        (Some(cap), Some(t)) => t <= cap,
        _ => true,
    }
}

/// Why each of a distribution's `releases` cannot be installed on `target` under `options`
/// (`None`: it can), as the solver judges releases no root pins exactly; releases whose only
/// file for the target is an sdist are surveyed through `catalog`.
pub fn exclusions(
    catalog: &dyn Catalog,
    dist: &DistName,
    releases: &[Release],
    target: &Target,
    options: &SolveOptions,
) -> Vec<Option<Exclusion>> {
    let sdists = options.sdists_for(releases, target);
    let survey = options.surveys_sdists(releases);
    releases
        .iter()
        .map(
            |r| match verdict(r, target, options, (sdists, survey), false) {
                Verdict::Usable | Verdict::PureSdist { .. } => None,
                Verdict::IfPure {
                    otherwise: None, ..
                } => None,
                Verdict::Out(e) => Some(e),
                Verdict::IfPure {
                    sdists,
                    otherwise: Some(e),
                } => {
                    let whole = r.files.whole();
                    let pure = sdists
                        .iter()
                        .any(|&i| catalog.is_pure_python_sdist(dist, r, &whole[i]));
                    (!pure).then_some(e)
                }
            },
        )
        .collect()
}

/// A release's verdict on the target, with `sdists` the distribution's sdist rule and
/// whether its sdists are surveyed for pure Python (see [`SolveOptions::surveys_sdists`]).
fn verdict(
    release: &Release,
    target: &Target,
    options: &SolveOptions,
    (sdists, survey): (Sdists, bool),
    pinned: bool,
) -> Verdict {
    let files = release.files.entries();
    if let Some(cap) = options.exclude_newer {
        if !files.is_empty() && !files.iter().any(|f| in_time(f.upload_time, options)) {
            return Verdict::Out(Exclusion::UploadedAfter(cap));
        }
    }
    if release.yanked && !pinned {
        return Verdict::Out(Exclusion::Yanked);
    }
    // An unreadable Requires-Python constrains nothing, as installers ignore it.
    if target.python().meets(&release.requires_python) == Admits::No {
        return Verdict::Out(Exclusion::RequiresPython(release.requires_python.clone()));
    }
    let fits = |f: &ReleaseFile| installable(f, target, options, sdists, pinned);
    let is_sdist = |f: &ReleaseFile| matches!(f.kind, FileKind::Sdist { .. });
    if files.iter().any(|f| !is_sdist(f) && fits(f)) {
        return Verdict::Usable;
    }
    // No wheel fits: sdists built under `--allow-sdist` or the fallback's rule, else (and
    // for the output to say which are pure) those that are pure Python.
    let built = files.iter().any(fits);
    let sdists_in_time = || {
        files
            .iter()
            .filter(|f| is_sdist(f) && in_time(f.upload_time, options))
    };
    let eligible = |f: &ReleaseFile| {
        (pinned || !f.yanked)
            && pure_sdist_admitted(
                release.requires_python.specifiers().is_some(),
                f.upload_time,
                target,
            )
    };
    let pure_candidates: Vec<usize> = if !survey {
        Vec::new()
    } else {
        files
            .iter()
            .enumerate()
            .filter(|(_, f)| is_sdist(f) && in_time(f.upload_time, options) && eligible(f))
            .map(|(i, _)| i)
            .collect()
    };
    let refused = if !pure_candidates.is_empty() {
        SdistRefused::NotKnownPure
    } else if survey && sdists_in_time().any(|f| !eligible(f) && !f.yanked) {
        SdistRefused::AfterEndOfLife
    } else {
        SdistRefused::NotAllowed
    };
    let otherwise = (!built).then(|| {
        no_wheel(
            files,
            target,
            options,
            sdists_in_time().next().map(|_| refused),
        )
    });
    match (pure_candidates.is_empty(), otherwise) {
        (true, None) => Verdict::Usable,
        (true, Some(out)) => Verdict::Out(out),
        (false, otherwise) => Verdict::IfPure {
            sdists: pure_candidates,
            otherwise,
        },
    }
}

/// Why a release with no wheel for the target is out: the Pythons its wheels are for, and
/// why its sdist (if it has one) does not count.
fn no_wheel(
    files: &[ReleaseFile],
    target: &Target,
    options: &SolveOptions,
    sdist: Option<SdistRefused>,
) -> Exclusion {
    let mut wheels_for: Vec<String> = files
        .iter()
        .filter(|f| in_time(f.upload_time, options))
        .filter_map(|f| match &f.kind {
            FileKind::Wheel { tags, .. } => Some(tags.python.join(".")),
            FileKind::Sdist { .. } => None,
        })
        .collect();
    wheels_for.sort();
    wheels_for.dedup();
    Exclusion::NoWheel {
        python: target.python(),
        sdist,
        wheels_for,
    }
}

//! A distribution's releases judged for the target: which are installable, which of those
//! to prefer, and why the others are out.

use std::ops::Bound;
use std::sync::Arc;

use pep508_rs::pep440_rs::Version;
use pubgrub::Ranges;

use super::catalog::Release;
use super::exclusion::Exclusion;
use super::options::{Sdists, SolveOptions};
use super::requires_python;
use super::target::Target;
use crate::names::DistName;
use crate::pypi::{DistFile, FileKind, ReleaseFile};

/// What the root asks of one distribution beyond its range.
#[derive(Debug, Clone, Default)]
pub(crate) struct RootPolicy {
    /// Pinned with `==`: usable even when yanked.
    pub pinned: Vec<Version>,
    /// A root specifier names a pre-release: pre-releases rank with stable ones.
    pub prereleases: bool,
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
    /// Aligned with `releases`: `None` when installable.
    pub verdicts: Vec<Option<Exclusion>>,
    /// `usable_before[i]`: installable releases among the first `i` (one more entry than
    /// releases), so that a count is two subtractions per segment.
    usable_before: Vec<usize>,
    /// The index has no such project.
    pub not_found: bool,
    prereleases: bool,
    /// Which sdists count as installable (see [`SolveOptions::sdists_for`]).
    pub sdists: Sdists,
}

impl Candidates {
    pub fn judge(
        dist: &DistName,
        releases: Arc<[Release]>,
        target: &Target,
        options: &SolveOptions,
        policy: &RootPolicy,
    ) -> Self {
        let sdists = options.sdists_for(&releases, target);
        let verdicts: Vec<Option<Exclusion>> = releases
            .iter()
            .map(|r| {
                let pinned = policy.pinned.contains(&r.version);
                verdict(r, target, options, sdists, pinned).or_else(|| {
                    (!pinned)
                        .then(|| failed_before(dist, r, target, options))
                        .flatten()
                })
            })
            .collect();
        Self {
            releases,
            usable_before: usable_before(&verdicts),
            verdicts,
            not_found: false,
            prereleases: policy.prereleases,
            sdists,
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

    /// The preferred installable release in `range`: the newest stable one, else the newest
    /// pre-release (or simply the newest when the root asked for pre-releases).
    pub fn choose<'a>(&'a self, range: &'a Ranges<Version>) -> Option<&'a Version> {
        let mut newest_pre = None;
        let spans: Vec<std::ops::Range<usize>> = self.spans(range).collect();
        for span in spans.into_iter().rev() {
            for i in span.rev() {
                if self.verdicts[i].is_some() {
                    continue;
                }
                let version = &self.releases[i].version;
                if self.prereleases || version.is_stable() {
                    return Some(version);
                }
                newest_pre.get_or_insert(version);
            }
        }
        newest_pre
    }

    /// How many installable releases `range` holds (for prioritizing).
    pub fn count(&self, range: &Ranges<Version>) -> usize {
        self.spans(range)
            .map(|span| self.usable_before[span.end] - self.usable_before[span.start])
            .sum()
    }

    pub fn is_usable(&self, version: &Version) -> bool {
        self.position(version)
            .is_some_and(|i| self.verdicts[i].is_none())
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
            .filter_map(move |(r, v)| Some((&r.version, v.as_ref()?)))
            .filter(move |(v, _)| range.contains(v))
    }

    /// All release versions, oldest first.
    pub fn versions(&self) -> Vec<&Version> {
        self.releases.iter().map(|r| &r.version).collect()
    }

    /// Marks a release out for a reason found later (its metadata is unreadable).
    pub fn exclude(&mut self, version: &Version, why: Exclusion) {
        if let Some(i) = self.position(version) {
            self.verdicts[i] = Some(why);
            self.usable_before = usable_before(&self.verdicts);
        }
    }
}

fn usable_before(verdicts: &[Option<Exclusion>]) -> Vec<usize> {
    let mut counts = Vec::with_capacity(verdicts.len() + 1);
    counts.push(0);
    for v in verdicts {
        counts.push(counts[counts.len() - 1] + usize::from(v.is_none()));
    }
    counts
}

/// The files of `release` an installer may use on the target (read whole).
pub(crate) fn installable_files<'a>(
    release: &'a Release,
    target: &'a Target,
    options: &'a SolveOptions,
    sdists: Sdists,
    pinned: bool,
) -> impl Iterator<Item = &'a DistFile> + 'a {
    let entries = release.files.entries();
    let fits: Vec<bool> = entries
        .iter()
        .map(|e| installable(e, target, options, sdists, pinned))
        .collect();
    let whole: &[DistFile] = if fits.contains(&true) {
        release.files.whole()
    } else {
        &[]
    };
    whole
        .iter()
        .zip(fits)
        .filter_map(|(f, fit)| fit.then_some(f))
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
/// (`None`: it can), as the solver judges releases no root pins exactly.
pub fn exclusions(
    releases: &[Release],
    target: &Target,
    options: &SolveOptions,
) -> Vec<Option<Exclusion>> {
    let sdists = options.sdists_for(releases, target);
    releases
        .iter()
        .map(|r| verdict(r, target, options, sdists, false))
        .collect()
}

fn verdict(
    release: &Release,
    target: &Target,
    options: &SolveOptions,
    sdists: Sdists,
    pinned: bool,
) -> Option<Exclusion> {
    let files = release.files.entries();
    if let Some(cap) = options.exclude_newer {
        if !files.is_empty() && !files.iter().any(|f| in_time(f.upload_time, options)) {
            return Some(Exclusion::UploadedAfter(cap));
        }
    }
    if release.yanked && !pinned {
        return Some(Exclusion::Yanked);
    }
    if let Some(spec) = &release.requires_python {
        if !requires_python::allows(spec, target) {
            return Some(Exclusion::RequiresPython(spec.clone()));
        }
    }
    if !files
        .iter()
        .any(|f| installable(f, target, options, sdists, pinned))
    {
        let sdist = files
            .iter()
            .any(|f| matches!(f.kind, FileKind::Sdist { .. }) && in_time(f.upload_time, options));
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
        return Some(Exclusion::NoWheel {
            python: target.python(),
            only_sdist: sdist && sdists == Sdists::No,
            wheels_for,
        });
    }
    None
}

//! What the user can ask of a resolution beyond its requirements.

use jiff::Timestamp;

use crate::bank::store::ReleaseFailure;

#[derive(Debug, Clone, Default)]
pub struct SolveOptions {
    /// Count a release with an sdist but no fitting wheel as installable (it will be built).
    pub allow_sdist: bool,
    /// Count no sdist as installable, not even a pure-Python one (`--wheels-only`). Without
    /// it, a release whose only file for the target is an sdist of pure Python counts (the
    /// catalog surveys the sdist when the solver first considers the release), unless it
    /// says no Requires-Python and came after the target Python's end of life.
    pub wheels_only: bool,
    /// Count sdists as installable for a distribution none of whose releases has a wheel for
    /// the target (lime, langid, jieba, qgrid never published one), and for no other: what a
    /// resolution falls back to when none from wheels alone exists.
    pub sdist_where_no_wheel: bool,
    /// When no interpreter has a resolution from wheels alone, resolve again with
    /// `sdist_where_no_wheel` (`infer` does unless `--wheels-only`).
    pub sdist_fallback: bool,
    /// With `sdist_where_no_wheel`: sdists count for every distribution, not only those with
    /// no wheel for the target, though a release with a wheel is always preferred (the last
    /// resort before no resolution: tensorflow 2.6 needs wrapt 1.12.1, which has only an
    /// sdist, while other wrapt releases have wheels).
    pub sdist_anywhere: bool,
    /// Ignore files uploaded after this instant, to reproduce an era (`--exclude-newer`).
    /// Files whose upload time the index does not give are kept.
    pub exclude_newer: Option<Timestamp>,
    /// Releases that failed to install or import on an interpreter in an earlier run (the
    /// bank's run records): not chosen again for that Python unless a root pins them.
    pub failed: Vec<ReleaseFailure>,
    /// What releases import whenever they are imported: each release taken depends on those
    /// distributions too (none by default).
    pub import_time: super::ImportTime,
    /// The notebook's era: of the releases a range allows, the newest uploaded before this
    /// instant is chosen, and a newer one only when none of those installs. A preference,
    /// for dependencies as for roots; `exclude_newer` is the cap.
    pub prefer_before: Option<Timestamp>,
    /// What a restoration's search asks of distributions (see [`super::Steer`]).
    pub steer: Vec<super::Steer>,
}

/// Which sdists count as installable for one distribution on a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sdists {
    No,
    /// `--allow-sdist`: every one.
    Any,
    /// The fallback, for a distribution with no wheel for the target: those uploaded before
    /// the target Python's end of life. A project that never said which Pythons it supports
    /// (no Requires-Python) is not taken to support one that was dead when it was released.
    BeforeEndOfLife,
}

/// When each old CPython stopped being supported (python.org's release schedules).
fn end_of_life(python: crate::python::PythonVersion) -> Option<jiff::Timestamp> {
    let date = match (python.major, python.minor) {
        (2, _) => "2020-01-01",
        (3, 3) => "2017-09-29",
        (3, 4) => "2019-03-18",
        (3, 5) => "2020-09-13",
        (3, 6) => "2021-12-23",
        (3, 7) => "2023-06-27",
        (3, 8) => "2024-10-07",
        (3, 9) => "2025-10-31",
        _ => return None,
    };
    Some(
        format!("{date}T00:00:00Z")
            .parse()
            .expect("the table's dates parse"),
    )
}

impl Sdists {
    /// Whether an sdist uploaded at `upload_time` counts on `target`.
    pub(crate) fn admit(
        self,
        upload_time: Option<jiff::Timestamp>,
        target: &super::target::Target,
    ) -> bool {
        match self {
            Sdists::No => false,
            Sdists::Any => true,
            Sdists::BeforeEndOfLife => match (end_of_life(target.python()), upload_time) {
                (Some(eol), Some(t)) => t < eol,
                _ => true,
            },
        }
    }
}

/// Whether a pure-Python sdist uploaded at `upload_time` counts on `target`, for a release
/// whose Requires-Python is `requires_python` (already checked against the target): one that
/// says which Pythons it supports is taken at its word; one that does not, only if it came
/// before the target Python's end of life (a 2023 sdist is doubtful on Python 2.7).
pub(crate) fn pure_sdist_admitted(
    requires_python: bool,
    upload_time: Option<jiff::Timestamp>,
    target: &super::target::Target,
) -> bool {
    requires_python || Sdists::BeforeEndOfLife.admit(upload_time, target)
}

impl SolveOptions {
    /// Whether the sdists of the distribution whose releases are `releases` are surveyed for
    /// pure Python, when no wheel fits: not when only wheels are asked for, nor under
    /// `--allow-sdist` (every sdist counts), nor when some release has a binary wheel (one
    /// built per Python or platform): such a project compiles, and fetching scikit-learn's
    /// sdists one by one to find that out would cost hundreds of megabytes.
    pub(crate) fn surveys_sdists(&self, releases: &[super::catalog::Release]) -> bool {
        !self.wheels_only
            && !self.allow_sdist
            && !releases.iter().any(|r| {
                r.files.entries().iter().any(|f| {
                    matches!(&f.kind, crate::pypi::FileKind::Wheel { tags, .. } if !tags.is_universal())
                })
            })
    }

    /// Which sdists count for the distribution whose releases are `releases`, on `target`.
    pub(crate) fn sdists_for(
        &self,
        releases: &[super::catalog::Release],
        target: &super::target::Target,
    ) -> Sdists {
        if self.allow_sdist {
            return Sdists::Any;
        }
        let some_wheel = || {
            releases.iter().any(|r| {
                r.files.entries().iter().any(|f| {
                    matches!(&f.kind, crate::pypi::FileKind::Wheel { tags, .. } if target.fits(tags))
                })
            })
        };
        if self.sdist_where_no_wheel && (self.sdist_anywhere || !some_wheel()) {
            Sdists::BeforeEndOfLife
        } else {
            Sdists::No
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::PythonVersion;
    use crate::resolve::solver::target::Target;

    #[test]
    fn the_fallback_builds_only_what_was_released_while_its_python_lived() {
        let py27 = Target::new(PythonVersion::new(2, 7));
        let py311 = Target::new(PythonVersion::new(3, 11));
        let at = |s: &str| Some(format!("{s}T00:00:00Z").parse().unwrap());
        let fallback = Sdists::BeforeEndOfLife;
        assert!(fallback.admit(at("2019-06-30"), &py27));
        assert!(!fallback.admit(at("2022-01-01"), &py27), "after 2.7's end");
        assert!(fallback.admit(at("2022-01-01"), &py311), "3.11 lives");
        assert!(fallback.admit(None, &py27), "no upload time: not judged");
        assert!(Sdists::Any.admit(at("2022-01-01"), &py27));
        assert!(!Sdists::No.admit(at("2019-06-30"), &py27));
        // Each of 3.3, 3.4 and 3.5 ended on its own day.
        let py = |minor| Target::new(PythonVersion::new(3, minor));
        assert!(fallback.admit(at("2017-09-28"), &py(3)));
        assert!(!fallback.admit(at("2017-09-30"), &py(3)));
        assert!(fallback.admit(at("2019-03-17"), &py(4)));
        assert!(!fallback.admit(at("2019-03-19"), &py(4)));
        assert!(fallback.admit(at("2020-09-12"), &py(5)));
        assert!(!fallback.admit(at("2020-09-14"), &py(5)));
    }

    #[test]
    fn a_pure_sdist_without_requires_python_only_while_its_python_lived() {
        let py27 = Target::new(PythonVersion::new(2, 7));
        let at = |s: &str| Some(format!("{s}T00:00:00Z").parse().unwrap());
        assert!(pure_sdist_admitted(false, at("2016-09-05"), &py27));
        assert!(!pure_sdist_admitted(false, at("2023-03-01"), &py27));
        assert!(pure_sdist_admitted(true, at("2023-03-01"), &py27));
    }
}

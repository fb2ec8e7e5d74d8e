//! Why a release cannot be installed on the target: what a conflict says of the versions it
//! could not use.

use std::fmt;

use crate::pypi::RequiresPython;
use jiff::Timestamp;

use crate::bank::store::FailedStep;
use crate::python::PythonVersion;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exclusion {
    /// Every file came after the `--exclude-newer` cap.
    UploadedAfter(Timestamp),
    /// Yanked and not pinned with `==`.
    Yanked,
    /// The index's Requires-Python excludes the target.
    RequiresPython(RequiresPython),
    /// No wheel installs on the target; `sdist` when an sdist exists, with why it does not
    /// count.
    NoWheel {
        python: PythonVersion,
        sdist: Option<SdistRefused>,
        /// The Python tags its wheels are for (`cp27`, `cp35`), so that the reader sees what
        /// it was built for.
        wheels_for: Vec<String>,
    },
    /// A pre-release, while final releases the notebook allows install on the target (and
    /// the notebook names no pre-release).
    PreRelease,
    /// Its metadata could not be read.
    Unreadable(String),
    /// It failed to install or import on the target's Python in an earlier run.
    FailedBefore {
        python: PythonVersion,
        step: FailedStep,
        at: Timestamp,
    },
    /// A run of the notebook with it failed, and the failure pointed at it.
    Refuted,
    /// Beyond a bound a run of the notebook set: releases at or below `above` were too old
    /// for it, those at or above `below` too new.
    OutsideSearch {
        above: Option<pep508_rs::pep440_rs::Version>,
        below: Option<pep508_rs::pep440_rs::Version>,
    },
}

/// Why a release's sdist does not count as installable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SdistRefused {
    /// Only wheels are asked for, or the sdist rules do not reach this distribution.
    NotAllowed,
    /// Building it compiles something, or what it takes is not known (too large to survey,
    /// offline).
    NotKnownPure,
    /// No Requires-Python, and uploaded after the target Python's end of life.
    AfterEndOfLife,
}

impl SdistRefused {
    fn describe(self, python: PythonVersion) -> String {
        match self {
            SdistRefused::NotAllowed => "an sdist".to_string(),
            SdistRefused::NotKnownPure => "an sdist not known to be pure Python".to_string(),
            SdistRefused::AfterEndOfLife => {
                format!("an sdist uploaded after Python {python}'s end of life")
            }
        }
    }
}

impl fmt::Display for Exclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exclusion::UploadedAfter(t) => write!(f, "uploaded after {}", day_or_instant(*t)),
            Exclusion::Yanked => f.write_str("yanked"),
            Exclusion::RequiresPython(spec) => write!(f, "requires Python {spec}"),
            Exclusion::NoWheel {
                python,
                sdist,
                wheels_for,
            } => {
                // "no wheel for CPython 3.11, only for cp27, cp36 and an sdist"
                write!(f, "no wheel for CPython {python}")?;
                let sdist = sdist.map(|s| s.describe(python.feature()));
                match (wheels_for.is_empty(), sdist) {
                    (true, None) => Ok(()),
                    (true, Some(sdist)) => write!(f, ", only {sdist}"),
                    (false, sdist) => write!(
                        f,
                        ", only for {}{}",
                        wheels_for.join(", "),
                        sdist.map(|s| format!(" and {s}")).unwrap_or_default()
                    ),
                }
            }
            Exclusion::PreRelease => {
                f.write_str("a pre-release, and final releases the notebook allows install")
            }
            Exclusion::Unreadable(why) => write!(f, "metadata unreadable: {why}"),
            Exclusion::FailedBefore { python, step, at } => write!(
                f,
                "failed to {step} on Python {python} in a run on {}",
                at.strftime("%Y-%m-%d")
            ),
            Exclusion::Refuted => f.write_str("a run of the notebook failed with it"),
            Exclusion::OutsideSearch { above, below } => {
                f.write_str("outside what runs of the notebook left open")?;
                match (above, below) {
                    (Some(a), Some(b)) => write!(f, " (newer than {a}, older than {b})"),
                    (Some(a), None) => write!(f, " (newer than {a})"),
                    (None, Some(b)) => write!(f, " (older than {b})"),
                    (None, None) => Ok(()),
                }
            }
        }
    }
}

/// `2019-01-01` for a midnight cap (what `--exclude-newer DATE` gives), else the instant.
pub(crate) fn day_or_instant(t: Timestamp) -> String {
    if t.as_second().rem_euclid(86_400) == 0 && t.subsec_nanosecond() == 0 {
        t.strftime("%Y-%m-%d").to_string()
    } else {
        t.to_string()
    }
}

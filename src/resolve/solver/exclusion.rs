//! Why a release cannot be installed on the target: what a conflict says of the versions it
//! could not use.

use std::fmt;

use jiff::Timestamp;
use pep508_rs::pep440_rs::VersionSpecifiers;

use crate::bank::store::FailedStep;
use crate::python::PythonVersion;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exclusion {
    /// Every file came after the `--exclude-newer` cap.
    UploadedAfter(Timestamp),
    /// Yanked and not pinned with `==`.
    Yanked,
    /// The index's Requires-Python excludes the target.
    RequiresPython(VersionSpecifiers),
    /// No wheel installs on the target; `only_sdist` when an sdist exists but sdists are not
    /// allowed.
    NoWheel {
        python: PythonVersion,
        only_sdist: bool,
        /// The Python tags its wheels are for (`cp27`, `cp35`), so that the reader sees what
        /// it was built for.
        wheels_for: Vec<String>,
    },
    /// Its metadata could not be read.
    Unreadable(String),
    /// It failed to install or import on the target's Python in an earlier run.
    FailedBefore {
        python: PythonVersion,
        step: FailedStep,
        at: Timestamp,
    },
}

impl fmt::Display for Exclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exclusion::UploadedAfter(t) => write!(f, "uploaded after {}", day_or_instant(*t)),
            Exclusion::Yanked => f.write_str("yanked"),
            Exclusion::RequiresPython(spec) => write!(f, "requires Python {spec}"),
            Exclusion::NoWheel {
                python,
                only_sdist,
                wheels_for,
            } => {
                // "no wheel for CPython 3.11, only for cp27, cp36 and an sdist"
                write!(f, "no wheel for CPython {python}")?;
                match (wheels_for.is_empty(), *only_sdist) {
                    (true, false) => Ok(()),
                    (true, true) => f.write_str(", only an sdist"),
                    (false, sdist) => write!(
                        f,
                        ", only for {}{}",
                        wheels_for.join(", "),
                        if sdist { " and an sdist" } else { "" }
                    ),
                }
            }
            Exclusion::Unreadable(why) => write!(f, "metadata unreadable: {why}"),
            Exclusion::FailedBefore { python, step, at } => write!(
                f,
                "failed to {step} on Python {python} in a run on {}",
                at.strftime("%Y-%m-%d")
            ),
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

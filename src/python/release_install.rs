//! What to install for one pinned release, when its own metadata is more than the installer
//! accepts.
//!
//! uv reads Requires-Dist strictly: pandas before 0.24 declares `pytz (>=2011k)`, which is not
//! a PEP 440 version, and uv refuses to install the release at all ("invalid metadata"), as
//! recent pip does. Such a release goes in by itself without its dependencies, after them, with
//! the constraints nobody can read dropped and the rest (names, extras, markers) kept. The
//! decision is made on nbenv's own reading of the metadata, never on the installer's message.

use crate::pypi::RequiresDist;

/// An install of one release, in two steps when its metadata needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseInstall {
    /// Installed first, with dependencies: the release itself, or its readable dependencies.
    pub requirements: Vec<String>,
    /// Installed next, without dependencies: the release, when its metadata was unreadable.
    pub without_dependencies: Vec<String>,
    /// The Requires-Dist lines whose constraints were dropped, as written.
    pub unreadable: Vec<String>,
}

impl ReleaseInstall {
    /// The install of `pinned` (`pandas==0.19.2`), whose Requires-Dist is `requires_dist`.
    /// Lines of extras are left out as a plain install leaves them; a line that is not a
    /// requirement at all is dropped whole.
    pub fn plan(pinned: &str, requires_dist: &[String]) -> Self {
        let parsed: Vec<(&String, Result<RequiresDist, _>)> = requires_dist
            .iter()
            .map(|line| (line, line.parse::<RequiresDist>()))
            .collect();
        let unreadable: Vec<String> = parsed
            .iter()
            .filter(|(_, r)| !matches!(r, Ok(r) if r.unreadable_version.is_none()))
            .map(|(line, _)| line.to_string())
            .collect();
        if unreadable.is_empty() {
            return Self {
                requirements: vec![pinned.to_string()],
                without_dependencies: Vec::new(),
                unreadable,
            };
        }
        let requirements = parsed
            .into_iter()
            .filter_map(|(_, r)| r.ok())
            .filter(|r| r.requirement.marker.top_level_extra().is_none())
            .map(|r| r.requirement.to_string())
            .collect();
        Self {
            requirements,
            without_dependencies: vec![pinned.to_string()],
            unreadable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn readable_metadata_installs_the_release_with_its_dependencies() {
        let plan = ReleaseInstall::plan(
            "pandas==1.0.5",
            &lines(&["pytz (>=2017.2)", "numpy (>=1.13.3)"]),
        );
        assert_eq!(plan.requirements, ["pandas==1.0.5"]);
        assert!(plan.without_dependencies.is_empty());
        assert!(plan.unreadable.is_empty());
    }

    /// pandas 0.19.2's own Requires-Dist, which uv refuses.
    #[test]
    fn unreadable_constraints_are_dropped_and_the_release_goes_in_alone() {
        let plan = ReleaseInstall::plan(
            "pandas==0.19.2",
            &lines(&[
                "python-dateutil",
                "pytz (>=2011k)",
                "numpy (>=1.7.0)",
                "pytest ; extra == 'test'",
                "futures ; python_version < \"3\"",
            ]),
        );
        assert_eq!(
            plan.requirements,
            [
                "python-dateutil",
                "pytz",
                "numpy>=1.7.0",
                "futures ; python_full_version < '3'"
            ]
        );
        assert_eq!(plan.without_dependencies, ["pandas==0.19.2"]);
        assert_eq!(plan.unreadable, ["pytz (>=2011k)"]);
    }
}

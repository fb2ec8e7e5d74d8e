//! Which interpreters of this machine a release can be installed on.

use super::interpreter::Interpreter;
use super::release_dates::by_fitness_for;
use super::tags::wheel_fits;
use super::version::PythonVersion;
use crate::pypi::{Admits, FileKind, Release};

/// No interpreter of this machine takes any of a release's wheels.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no wheel fits an interpreter on this machine (wheels for: {}; interpreters: {})",
    listed(wheels),
    listed(interpreters)
)]
pub struct NoFittingInterpreter {
    /// The wheels' Python tags, each wheel's joined with `.`.
    pub wheels: Vec<String>,
    /// The feature releases of this machine's interpreters.
    pub interpreters: Vec<PythonVersion>,
}

fn listed<T: std::fmt::Display>(items: &[T]) -> String {
    if items.is_empty() {
        return "none".into();
    }
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The interpreters a release can be installed on, best first: its Requires-Python allows
/// them, one of its wheels fits them, and those of the release's time come first.
pub fn candidate_interpreters<'i>(
    interpreters: &'i [Interpreter],
    release: &Release<'_>,
) -> Result<Vec<&'i Interpreter>, NoFittingInterpreter> {
    // An unreadable Requires-Python excludes no interpreter, as installers ignore it.
    let requires = release.requires_python();
    let mut fitting: Vec<&Interpreter> = interpreters
        .iter()
        .filter(|i| i.version.meets(requires) != Admits::No)
        .filter(|i| {
            release.files.iter().any(|f| match &f.kind {
                FileKind::Wheel { tags, .. } => wheel_fits(tags, i.version),
                FileKind::Sdist { .. } => false,
            })
        })
        .collect();
    if fitting.is_empty() {
        let have: Vec<PythonVersion> = interpreters.iter().map(|i| i.version.feature()).collect();
        let wheels: Vec<String> = release
            .files
            .iter()
            .filter_map(|f| match &f.kind {
                FileKind::Wheel { tags, .. } => Some(tags.python.join(".")),
                FileKind::Sdist { .. } => None,
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        return Err(NoFittingInterpreter {
            wheels,
            interpreters: have,
        });
    }
    let mut versions: Vec<_> = fitting.iter().map(|i| i.version).collect();
    by_fitness_for(release.upload_time(), &mut versions);
    fitting.sort_by_key(|i| versions.iter().position(|v| *v == i.version));
    Ok(fitting)
}

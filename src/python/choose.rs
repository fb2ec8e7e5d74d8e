//! Which interpreters of this machine a release can be installed on.

use std::str::FromStr;

use super::interpreter::Interpreter;
use super::release_dates::by_fitness_for;
use super::tags::wheel_fits;
use crate::pypi::{FileKind, Release, VersionSpecifiers};

/// The interpreters a release can be installed on, best first: its Requires-Python allows
/// them, one of its wheels fits them, and those of the release's time come first.
pub fn candidate_interpreters<'i>(
    interpreters: &'i [Interpreter],
    release: &Release<'_>,
) -> Result<Vec<&'i Interpreter>, String> {
    let requires = release
        .requires_python()
        .and_then(|s| VersionSpecifiers::from_str(s).ok());
    let mut fitting: Vec<&Interpreter> = interpreters
        .iter()
        .filter(|i| {
            requires
                .as_ref()
                .is_none_or(|r| r.contains(&i.version.as_pep440()))
        })
        .filter(|i| {
            release.files.iter().any(|f| match &f.kind {
                FileKind::Wheel { tags, .. } => wheel_fits(tags, i.version),
                FileKind::Sdist { .. } => false,
            })
        })
        .collect();
    if fitting.is_empty() {
        let have: Vec<String> = interpreters
            .iter()
            .map(|i| format!("{}.{}", i.version.major, i.version.minor))
            .collect();
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
        return Err(format!(
            "no wheel fits an interpreter on this machine (wheels for: {}; interpreters: {})",
            if wheels.is_empty() {
                "none".into()
            } else {
                wheels.join(", ")
            },
            if have.is_empty() {
                "none".into()
            } else {
                have.join(", ")
            }
        ));
    }
    let mut versions: Vec<_> = fitting.iter().map(|i| i.version).collect();
    by_fitness_for(release.upload_time(), &mut versions);
    fitting.sort_by_key(|i| versions.iter().position(|v| *v == i.version));
    Ok(fitting)
}

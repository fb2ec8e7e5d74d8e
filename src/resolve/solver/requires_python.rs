//! Requires-Python as a dependency on the `Python` package, whose only version is the target.

use pep508_rs::pep440_rs::{release_specifiers_to_ranges, Version, VersionSpecifiers};
use pubgrub::Ranges;

use super::target::Target;

/// The Python versions `spec` allows, as a range that contains the target's one version
/// exactly when the target meets `spec`.
///
/// Release-only semantics, as installers compare interpreters (`>3.13` admits `3.13.1`). A
/// feature-release target meets `spec` when one of its patch levels does: the range is then
/// widened to hold the target's `X.Y.0`. The same answer as [`PythonVersion::meets`], as a
/// range for PubGrub.
///
/// [`PythonVersion::meets`]: crate::python::PythonVersion::meets
pub(crate) fn python_range(spec: &VersionSpecifiers, target: &Target) -> Ranges<Version> {
    let range = release_specifiers_to_ranges(spec.clone());
    let version = target.python_pep440();
    if range.contains(version) || target.python().micro.is_some() {
        return range;
    }
    let python = target.python();
    let next_feature = Version::new([u64::from(python.major), u64::from(python.minor) + 1]);
    let patches = Ranges::from_range_bounds(version.clone()..next_feature);
    if range.is_disjoint(&patches) {
        range
    } else {
        range.union(&Ranges::singleton(version.clone()))
    }
}

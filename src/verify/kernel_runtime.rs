//! The kernel runtime's bounds a notebook asks for: the IPython of its era, and the one its
//! cells need to stay below; each said when it applies.

use pep508_rs::pep440_rs::Version;

use crate::python::PythonVersion;
use crate::reporter::Reporter;

/// The IPython of the notebook's era, for the kernel runtime: the newest release when the
/// notebook was last committed, where the notebook runs on the Python it was saved with (on a
/// newer one, an IPython that old may not import, and the interpreter decides). Said when
/// applied; `None` without a commit date or an index answer.
pub fn runtime_era(
    reporter: &dyn Reporter,
    nb: &crate::notebook::Notebook,
    python: PythonVersion,
    client: &crate::pypi::IndexClient,
) -> Option<Version> {
    let when = crate::notebook::last_commit_date(&nb.path)?;
    if !super::era_fits(nb, python, when) {
        return None;
    }
    let ipython = crate::names::DistName::new("ipython").ok()?;
    let page = client.project(&ipython).ok()?;
    let version = super::runtime_of_era(&page.files, when)?;
    // Newer than the standing bound (`ipython<9.1`): that bound is the tighter one.
    if version >= "9.1".parse().expect("a version") {
        return None;
    }
    reporter.note(
        &format!(
            "kernel runtime: IPython {version} at most, the newest when the notebook was last committed ({})",
            when.strftime("%Y-%m-%d")
        ),
        None,
    );
    Some(version)
}

/// The IPython the notebook's cells need to stay below, said once when there is one.
pub fn runtime_below(reporter: &dyn Reporter, nb: &crate::notebook::Notebook) -> Option<Version> {
    let bound = crate::notebook::ipython_bound(nb)?;
    reporter.note(
        &format!(
            "kernel runtime: IPython before {}: cell {} has {}",
            bound.below_major, bound.cell, bound.why
        ),
        None,
    );
    Some(bound.below())
}

//! The kernel runtime's bounds a notebook asks for: the IPython of its era, and the one its
//! cells need to stay below; each said when it applies.

use pep508_rs::pep440_rs::Version;

use crate::python::PythonVersion;
use crate::reporter::Reporter;

/// The kernel runtime of the notebook's era: the newest IPython and ipykernel when the
/// notebook was last committed. ipykernel is held too: its inline backend of later years
/// calls what the matplotlib of the era lacks (ipykernel 4.10 reads a figure's colour with
/// `matplotlib.colors.to_rgba`, new in matplotlib 2.0, after every cell that draws).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeEra {
    pub ipython: Version,
    /// `None` when the index has no ipykernel that old.
    pub ipykernel: Option<Version>,
}

/// The kernel runtime of the notebook's era, where the notebook runs on the Python it was
/// saved with (on a newer one, an IPython that old may not import, and the interpreter
/// decides). Said when applied; `None` without a commit date or an index answer.
pub fn runtime_era(
    reporter: &dyn Reporter,
    nb: &crate::notebook::Notebook,
    python: PythonVersion,
    client: &crate::pypi::IndexClient,
) -> Option<RuntimeEra> {
    let when = crate::notebook::last_commit_date(&nb.path)?;
    if !super::era_fits(nb, python, when) {
        return None;
    }
    let of_era = |name: &str| {
        let dist = crate::names::DistName::new(name).ok()?;
        let page = client.project(&dist).ok()?;
        super::runtime_of_era(&page.files, when)
    };
    let version = of_era("ipython")?;
    // Newer than the standing bound (`ipython<9.1`): that bound is the tighter one.
    if version >= "9.1".parse().expect("a version") {
        return None;
    }
    let ipykernel = of_era(super::environment::KERNEL_PACKAGE);
    reporter.note(
        &format!(
            "kernel runtime: IPython {version}{} at most, the newest when the notebook was last committed ({})",
            ipykernel
                .as_ref()
                .map(|v| format!(" and ipykernel {v}"))
                .unwrap_or_default(),
            when.strftime("%Y-%m-%d")
        ),
        None,
    );
    Some(RuntimeEra {
        ipython: version,
        ipykernel,
    })
}

/// The IPython the notebook's cells need to stay below on `python`, said once when there is
/// one.
pub fn runtime_below(
    reporter: &dyn Reporter,
    nb: &crate::notebook::Notebook,
    python: PythonVersion,
) -> Option<Version> {
    let bound = crate::notebook::ipython_bound(nb, python)?;
    reporter.note(
        &format!(
            "kernel runtime: IPython before {}: cell {} has {}",
            bound.below_major, bound.cell, bound.why
        ),
        None,
    );
    Some(bound.below())
}

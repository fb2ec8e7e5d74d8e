//! PubGrub over a notebook's needs: the root depends on each needed distribution with the
//! versions its evidence allows; every release depends on its Requires-Dist (markers and
//! extras evaluated for the target) and, through Requires-Python, on the `Python` package,
//! whose only version is the target.
//!
//! A release with no file that installs on the target (no fitting wheel, unless sdists are
//! allowed), yanked (unless pinned with `==`), or uploaded after the date cap is not a
//! candidate, and a conflict says so. Among candidates the newest stable release is
//! preferred (the newest of the notebook's era first, when it has one, and the release a
//! restoration's search asks for before either); pre-releases only when nothing else fits or
//! the notebook asks for one.

mod candidates;
mod catalog;
mod error;
mod exclusion;
mod import_time;
mod index_catalog;
mod memory_catalog;
mod options;
mod package;
mod priority;
mod provider;
mod release_files;
mod report;
mod requires_python;
mod root;
mod solution;
mod steer;
mod target;
#[cfg(test)]
mod tests;

pub use candidates::{exclusions, Held};
pub use catalog::{Catalog, CatalogError, Release, ReleaseMetadata};
pub use error::SolveError;
pub use exclusion::Exclusion;
pub use import_time::ImportTime;
pub use index_catalog::IndexCatalog;
pub use memory_catalog::{InvalidRelease, MemoryCatalog, MemoryRelease};
pub use options::SolveOptions;
pub use package::Package;
pub use release_files::ReleaseFiles;
pub use root::{Allowed, RootRequirement};
pub use solution::{LockedFile, LockedKind, Pin, RequiredBy, Solution};
pub use steer::{rebuild_of, Steer};
pub use target::Target;

use pubgrub::PubGrubError;

use provider::{root_version, Provider};

/// Chooses one release of every distribution the `roots` need, transitively, for `target`.
pub fn solve(
    catalog: &dyn Catalog,
    target: &Target,
    roots: &[RootRequirement],
    options: &SolveOptions,
) -> Result<Solution, SolveError> {
    let _clock = crate::timings::start(crate::timings::Stage::Solver);
    let provider = Provider::new(catalog, target, roots, options);
    match pubgrub::resolve(&provider, Package::Root, root_version()) {
        Ok(selected) => Ok(Solution::build(selected, &provider)),
        Err(PubGrubError::NoSolution(tree)) => {
            let (explanation, sdists_refused) = report::explain(tree, &provider);
            Err(SolveError::NoSolution {
                explanation,
                sdists_refused,
            })
        }
        Err(PubGrubError::ErrorRetrievingDependencies { source, .. })
        | Err(PubGrubError::ErrorChoosingVersion { source, .. })
        | Err(PubGrubError::ErrorInShouldCancel(source)) => Err(source),
    }
}

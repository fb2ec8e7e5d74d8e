//! Import-time dependencies in the resolution: a release taken depends, besides its
//! Requires-Dist, on each distribution it imports whenever it is imported, restricted to the
//! releases that have what it imports (see [`crate::resolve::import_time`]). One declared
//! already gets only that restriction.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use pep508_rs::pep440_rs::Version;
use pubgrub::{Ranges, SelectedDependencies};

use super::catalog::ReleaseMetadata;
use super::error::SolveError;
use super::package::Package;
use super::provider::Provider;
use super::solution::RequiredBy;
use crate::names::DistName;
use crate::resolve::import_time::{Asked, ImportTimeDependencies};

/// Where a resolution learns what releases import (none by default), as
/// [`super::SolveOptions::import_time`].
#[derive(Clone, Default)]
pub struct ImportTime(Option<Arc<dyn ImportTimeDependencies>>);

impl ImportTime {
    pub fn new(source: Arc<dyn ImportTimeDependencies>) -> Self {
        Self(Some(source))
    }
}

impl std::fmt::Debug for ImportTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "ImportTime(on)"
        } else {
            "ImportTime(off)"
        })
    }
}

/// One distribution a decided release imports, kept to say why it was brought in.
#[derive(Debug, Clone)]
struct ImportEdge {
    dist: DistName,
    /// The top-level modules imported (`scipy`).
    modules: Vec<String>,
    /// The release's Requires-Dist names it already: only the versions were narrowed.
    declared: bool,
}

/// A release: (distribution, version).
type ReleaseKey = (DistName, Version);

/// The import-time dependencies of each decided release.
#[derive(Debug, Default)]
pub(crate) struct ImportEdges(RefCell<HashMap<ReleaseKey, Rc<[ImportEdge]>>>);

impl Provider<'_> {
    /// Adds the import-time dependencies of `dist` at `version` to `deps` (its
    /// Requires-Python and Requires-Dist): a distribution `deps` holds already has its range
    /// narrowed to the releases that have what is imported.
    pub(super) fn add_import_time(
        &self,
        dist: &DistName,
        version: &Version,
        metadata: &ReleaseMetadata,
        deps: &mut Vec<(Package, Ranges<Version>)>,
    ) -> Result<(), SolveError> {
        let Some(source) = &self.options.import_time.0 else {
            return Ok(());
        };
        let mut preferred: Vec<DistName> = metadata
            .requires_dist
            .iter()
            .map(|rd| DistName::from(&rd.requirement.name))
            .collect();
        preferred.extend(self.roots.iter().map(|r| r.dist.clone()));
        let imported = source.dependencies(&Asked {
            dist,
            version,
            python: self.target.python(),
            preferred: &preferred,
        });
        let mut edges = Vec::new();
        for import in imported {
            if &import.dist == dist
                || self.with_candidates(&import.dist, |c| c.releases.is_empty())?
            {
                // Not on the index: nothing to install, so nothing to require.
                continue;
            }
            let allowed = import.lacking.iter().fold(Ranges::full(), |range, v| {
                range.intersection(&Ranges::singleton(v.clone()).complement())
            });
            let package = Package::Dist(import.dist.clone());
            let declared = match deps.iter_mut().find(|(p, _)| *p == package) {
                Some((_, range)) => {
                    *range = range.intersection(&allowed);
                    true
                }
                None => {
                    deps.push((package, allowed));
                    false
                }
            };
            edges.push(ImportEdge {
                modules: import.modules().into_iter().map(str::to_string).collect(),
                dist: import.dist,
                declared,
            });
        }
        self.import_edges
            .0
            .borrow_mut()
            .insert((dist.clone(), version.clone()), edges.into());
        Ok(())
    }
}

impl Provider<'_> {
    /// What releases of `parent` in `versions` import of `dist` whenever imported, as
    /// decided so far: `None` when none does (their dependency on it is a Requires-Dist).
    pub(super) fn imported_modules(
        &self,
        parent: &DistName,
        versions: &Ranges<Version>,
        dist: &DistName,
    ) -> Option<Vec<String>> {
        let edges = self.import_edges.0.borrow();
        let mut modules: Vec<String> = edges
            .iter()
            .filter(|((p, v), _)| p == parent && versions.contains(v))
            .flat_map(|(_, found)| found.iter())
            .filter(|e| &e.dist == dist)
            .flat_map(|e| e.modules.iter().cloned())
            .collect();
        modules.sort();
        modules.dedup();
        (!modules.is_empty()).then_some(modules)
    }
}

/// Why each pin that a decided release imports undeclared is there: (pin, reason).
pub(super) fn imported_by(
    selected: &SelectedDependencies<Package, Version>,
    provider: &Provider<'_>,
) -> Vec<(DistName, RequiredBy)> {
    let edges = provider.import_edges.0.borrow();
    let mut out = Vec::new();
    for (package, version) in selected.iter() {
        let Package::Dist(parent) = package else {
            continue;
        };
        let Some(found) = edges.get(&(parent.clone(), version.clone())) else {
            continue;
        };
        for edge in found.iter().filter(|e| !e.declared) {
            out.push((
                edge.dist.clone(),
                RequiredBy::Imported {
                    parent: parent.clone(),
                    parent_version: version.clone(),
                    modules: edge.modules.clone(),
                },
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{
        solve, Allowed, MemoryCatalog, MemoryRelease, RootRequirement, SolveError, SolveOptions,
        Target,
    };
    use super::*;
    use crate::python::PythonVersion;
    use crate::resolve::import_time::MemoryImportTime;

    fn root(dist: &str, specifiers: &str) -> RootRequirement {
        RootRequirement {
            dist: DistName::new(dist).unwrap(),
            extras: Vec::new(),
            allowed: Allowed::Specifiers(specifiers.parse().unwrap()),
            evidence: vec![format!("the notebook imports {dist}")],
        }
    }

    fn catalog(releases: impl IntoIterator<Item = MemoryRelease>) -> MemoryCatalog {
        let mut c = MemoryCatalog::new();
        for r in releases {
            c.add(r).unwrap();
        }
        c
    }

    fn pure(dist: &str, version: &str) -> MemoryRelease {
        MemoryRelease::new(dist, version).wheel("py3-none-any")
    }

    fn with(imports: MemoryImportTime) -> SolveOptions {
        SolveOptions {
            import_time: ImportTime::new(Arc::new(imports)),
            ..SolveOptions::default()
        }
    }

    fn solve_on(
        c: &MemoryCatalog,
        roots: &[RootRequirement],
        options: &SolveOptions,
    ) -> Result<super::super::Solution, SolveError> {
        solve(c, &Target::new(PythonVersion::new(3, 6)), roots, options)
    }

    fn pins(s: &super::super::Solution) -> Vec<String> {
        s.pins
            .iter()
            .map(|p| format!("{}=={}", p.dist, p.version))
            .collect()
    }

    /// geopandas imports numpy and declares pandas, which declares numpy: numpy is in what
    /// geopandas declares, so the import is no "undeclared" claim (issue 38 item 11), while
    /// the releases lacking what it imports stay out.
    #[test]
    fn an_import_the_declared_closure_brings_is_not_undeclared() {
        let c = catalog([
            pure("geopandas", "0.6.0").requires("pandas"),
            pure("pandas", "1.0.0").requires("numpy"),
            pure("numpy", "1.17.0"),
            pure("numpy", "1.18.0"),
        ]);
        let mut imports = MemoryImportTime::new();
        imports.imports("geopandas", "0.6.0", "numpy", &["numpy"], &["1.18.0"]);
        let s = solve_on(&c, &[root("geopandas", "")], &with(imports)).unwrap();
        assert_eq!(
            pins(&s),
            ["geopandas==0.6.0", "numpy==1.17.0", "pandas==1.0.0"]
        );
        let numpy = s.get(&DistName::new("numpy").unwrap()).unwrap();
        assert!(!numpy.is_imported_undeclared(), "{:?}", numpy.required_by);
        assert!(numpy
            .required_by
            .iter()
            .all(|r| matches!(r, RequiredBy::Dependency { .. })));
    }

    /// scikit-learn 0.19.1 declares scipy only under an extra, and imports it: scipy comes
    /// along, said so, and only the releases having what it imports.
    #[test]
    fn a_module_imported_undeclared_brings_its_distribution() {
        let c = catalog([
            pure("scikit-learn", "0.19.1").requires("scipy>=0.13.3; extra == 'alldeps'"),
            pure("scipy", "1.2.0"),
            pure("scipy", "1.3.0"),
        ]);
        let roots = [root("scikit-learn", "")];
        let plain = solve_on(&c, &roots, &SolveOptions::default()).unwrap();
        assert_eq!(pins(&plain), ["scikit-learn==0.19.1"]);

        let mut imports = MemoryImportTime::new();
        imports.imports(
            "scikit-learn",
            "0.19.1",
            "scipy",
            &["scipy.misc.comb", "scipy.sparse"],
            &["1.3.0"],
        );
        let s = solve_on(&c, &roots, &with(imports)).unwrap();
        assert_eq!(pins(&s), ["scikit-learn==0.19.1", "scipy==1.2.0"]);
        let scipy = s.get(&DistName::new("scipy").unwrap()).unwrap();
        assert_eq!(
            scipy.required_by,
            [RequiredBy::Imported {
                parent: DistName::new("scikit-learn").unwrap(),
                parent_version: "0.19.1".parse().unwrap(),
                modules: vec!["scipy".into()],
            }]
        );
        assert!(scipy.is_imported_undeclared() && !scipy.is_root());
    }

    /// Standalone keras 2.10 imports `tensorflow.compat.v2`, which tensorflow 1.1 lacks: with
    /// the notebook on tensorflow 1.1, an older keras that does not import it is taken.
    #[test]
    fn a_release_is_never_taken_with_one_lacking_what_it_imports() {
        let c = catalog([
            pure("keras", "2.0.8"),
            pure("keras", "2.10.0"),
            pure("tensorflow", "1.1.0"),
            pure("tensorflow", "2.10.0"),
        ]);
        let roots = [root("keras", ""), root("tensorflow", "==1.1.0")];
        let plain = solve_on(&c, &roots, &SolveOptions::default()).unwrap();
        assert_eq!(pins(&plain), ["keras==2.10.0", "tensorflow==1.1.0"]);

        let mut imports = MemoryImportTime::new();
        imports.imports(
            "keras",
            "2.10.0",
            "tensorflow",
            &["tensorflow.compat.v2"],
            &["1.1.0"],
        );
        let options = with(imports);
        let s = solve_on(&c, &roots, &options).unwrap();
        assert_eq!(pins(&s), ["keras==2.0.8", "tensorflow==1.1.0"]);
        // A root is no undeclared addition, whoever imports it.
        let tf = s.get(&DistName::new("tensorflow").unwrap()).unwrap();
        assert!(!tf.is_imported_undeclared());

        // Pinned to the incompatible pair, there is no resolution, and the conflict says why.
        let pinned = [root("keras", "==2.10.0"), root("tensorflow", "==1.1.0")];
        match solve_on(&c, &pinned, &options) {
            Err(SolveError::NoSolution { explanation, .. }) => assert!(
                explanation.contains("imports tensorflow whenever it is imported"),
                "{explanation}"
            ),
            other => panic!("{:?}", other.map(|s| pins(&s))),
        }
    }

    /// A declared dependency keeps its Requires-Dist range and gets the narrowing too, without
    /// being listed as an undeclared import.
    #[test]
    fn a_declared_import_is_only_narrowed() {
        let c = catalog([
            pure("app", "1.0").requires("lib>=1.0"),
            pure("lib", "0.9"),
            pure("lib", "1.0"),
            pure("lib", "2.0"),
        ]);
        let mut imports = MemoryImportTime::new();
        imports.imports("app", "1.0", "lib", &["lib.old_api"], &["2.0"]);
        let s = solve_on(&c, &[root("app", "")], &with(imports)).unwrap();
        assert_eq!(pins(&s), ["app==1.0", "lib==1.0"]);
        let lib = s.get(&DistName::new("lib").unwrap()).unwrap();
        assert!(!lib.is_imported_undeclared(), "{:?}", lib.required_by);
    }

    /// A distribution the index lacks is no requirement: nothing could install it.
    #[test]
    fn an_import_of_nothing_on_the_index_requires_nothing() {
        let c = catalog([pure("app", "1.0")]);
        let mut imports = MemoryImportTime::new();
        imports.imports("app", "1.0", "gone", &["gone"], &[]);
        let s = solve_on(&c, &[root("app", "")], &with(imports)).unwrap();
        assert_eq!(pins(&s), ["app==1.0"]);
    }
}

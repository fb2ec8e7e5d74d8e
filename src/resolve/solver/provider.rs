//! The PubGrub dependency provider: candidates from the catalog, dependencies from metadata,
//! both judged for one target.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use pep508_rs::pep440_rs::Version;
use pep508_rs::{ExtraName, MarkerTree, VersionOrUrl};
use pubgrub::{Dependencies, DependencyProvider, PackageResolutionStatistics, Ranges};

use super::candidates::{Candidates, RootPolicy};
use super::catalog::{Catalog, CatalogError};
use super::error::SolveError;
use super::exclusion::Exclusion;
use super::options::SolveOptions;
use super::package::Package;
use super::priority::{Priority, Urgency};
use super::requires_python::python_range;
use super::root::RootRequirement;
use super::target::Target;
use crate::names::DistName;
use crate::pypi::RequiresDist;

/// One applicable Requires-Dist line of a decided release, kept to say why its target was
/// brought in.
#[derive(Debug, Clone)]
pub(crate) struct Edge {
    pub dist: DistName,
    /// The requirement as written, without its marker.
    pub requirement: String,
    pub marker: Option<String>,
}

/// The applicable requirements of each decided (package, version).
type EdgeMap = HashMap<(Package, Version), Rc<[Edge]>>;

pub(crate) struct Provider<'a> {
    catalog: &'a dyn Catalog,
    pub target: &'a Target,
    pub options: &'a SolveOptions,
    pub roots: &'a [RootRequirement],
    policies: HashMap<DistName, RootPolicy>,
    direct: HashSet<DistName>,
    candidates: RefCell<HashMap<DistName, Candidates>>,
    /// The requirements each (package, version) was asked about, for attribution.
    edges: RefCell<EdgeMap>,
    /// The range each root requirement became (by index into `roots`).
    root_ranges: RefCell<Vec<Ranges<Version>>>,
    /// The version last chosen for each distribution: its extras try it first, since they
    /// must match it (PubGrub would otherwise learn that one conflict per newer version).
    last_chosen: RefCell<HashMap<DistName, Version>>,
    pub(super) import_edges: super::import_time::ImportEdges,
}

impl<'a> Provider<'a> {
    pub fn new(
        catalog: &'a dyn Catalog,
        target: &'a Target,
        roots: &'a [RootRequirement],
        options: &'a SolveOptions,
    ) -> Self {
        let mut policies: HashMap<DistName, RootPolicy> = HashMap::new();
        for root in roots {
            let policy = policies.entry(root.dist.clone()).or_default();
            policy.prereleases |= root.allowed.asks_for_prerelease();
            policy.allowed.push(root.allowed.clone());
        }
        Self {
            catalog,
            target,
            options,
            roots,
            direct: roots.iter().map(|r| r.dist.clone()).collect(),
            policies,
            candidates: RefCell::default(),
            edges: RefCell::default(),
            root_ranges: RefCell::default(),
            last_chosen: RefCell::default(),
            import_edges: Default::default(),
        }
    }

    /// Runs `f` on the judged releases of `dist`, reading them from the catalog once.
    pub fn with_candidates<R>(
        &self,
        dist: &DistName,
        f: impl FnOnce(&Candidates) -> R,
    ) -> Result<R, SolveError> {
        if let Some(c) = self.candidates.borrow().get(dist) {
            return Ok(f(c));
        }
        let judged = match self.catalog.releases(dist) {
            Ok(releases) => {
                let mut policy = self.policies.get(dist).cloned().unwrap_or_default();
                policy.pinned = releases
                    .iter()
                    .map(|r| &r.version)
                    .filter(|v| {
                        self.roots
                            .iter()
                            .any(|root| &root.dist == dist && root.allowed.is_pinned(v))
                    })
                    .cloned()
                    .collect();
                Candidates::judge(dist, releases, self.target, self.options, &policy)
            }
            Err(CatalogError::NotFound { .. }) => Candidates::not_found(),
            Err(e) => return Err(e.into()),
        };
        self.candidates.borrow_mut().insert(dist.clone(), judged);
        Ok(f(&self.candidates.borrow()[dist]))
    }

    /// Runs `f` on the judged releases of `dist`, which it may settle (surveying sdists).
    fn with_candidates_mut<R>(
        &self,
        dist: &DistName,
        f: impl FnOnce(&mut Candidates) -> R,
    ) -> Result<R, SolveError> {
        self.with_candidates(dist, |_| ())?;
        let mut all = self.candidates.borrow_mut();
        Ok(f(all.get_mut(dist).expect("judged above")))
    }

    /// The preferred release of `dist` in `range`, its sdists surveyed through the catalog
    /// as the search reaches them.
    fn choose(
        &self,
        dist: &DistName,
        range: &Ranges<Version>,
    ) -> Result<Option<Version>, SolveError> {
        let catalog = self.catalog;
        self.with_candidates_mut(dist, |c| {
            c.choose(range, &mut |release, entry| {
                catalog.is_pure_python_sdist(dist, release, &release.files.whole()[entry])
            })
        })
    }

    pub fn root_ranges(&self) -> std::cell::Ref<'_, Vec<Ranges<Version>>> {
        self.root_ranges.borrow()
    }

    pub fn edges(&self, package: &Package, version: &Version) -> Option<Rc<[Edge]>> {
        self.edges
            .borrow()
            .get(&(package.clone(), version.clone()))
            .cloned()
    }

    fn root_dependencies(&self) -> Result<Vec<(Package, Ranges<Version>)>, SolveError> {
        let mut deps = Vec::new();
        let mut ranges = Vec::with_capacity(self.roots.len());
        for root in self.roots {
            let range =
                self.with_candidates(&root.dist, |c| root.allowed.to_ranges(&c.versions()))?;
            deps.push((Package::Dist(root.dist.clone()), range.clone()));
            for extra in &root.extras {
                deps.push((
                    Package::Extra(root.dist.clone(), extra.clone()),
                    range.clone(),
                ));
            }
            ranges.push(range);
        }
        *self.root_ranges.borrow_mut() = ranges;
        Ok(deps)
    }

    /// The dependencies of `dist` at `version`, or of its `extra` alone.
    fn release_dependencies(
        &self,
        package: &Package,
        dist: &DistName,
        extra: Option<&ExtraName>,
        version: &Version,
    ) -> Result<Dependencies<Package, Ranges<Version>, Exclusion>, SolveError> {
        let releases = self.with_candidates(dist, |c| c.releases.clone())?;
        let Ok(at) = releases.binary_search_by(|r| r.version.cmp(version)) else {
            return Ok(Dependencies::Unavailable(Exclusion::Unreadable(
                "not in the catalog".into(),
            )));
        };
        let metadata = match self.catalog.metadata(dist, &releases[at], self.target) {
            Ok(m) => m,
            Err(e) if e.release_is_unusable() => {
                let why = Exclusion::Unreadable(match &e {
                    CatalogError::Metadata { source, .. } => source.to_string(),
                    other => other.to_string(),
                });
                if let Some(c) = self.candidates.borrow_mut().get_mut(dist) {
                    c.exclude(version, why.clone());
                }
                return Ok(Dependencies::Unavailable(why));
            }
            Err(e) => return Err(e.into()),
        };
        let env = self.target.markers();
        let mut deps: Vec<(Package, Ranges<Version>)> = Vec::new();
        let mut edges = Vec::new();
        match extra {
            None => {
                if let Some(spec) = metadata.requires_python.specifiers() {
                    deps.push((Package::Python, python_range(spec, self.target)));
                }
            }
            Some(_) => deps.push((
                Package::Dist(dist.clone()),
                Ranges::singleton(version.clone()),
            )),
        }
        let extras: &[ExtraName] = extra.map_or(&[], std::slice::from_ref);
        for rd in &metadata.requires_dist {
            let req = &rd.requirement;
            let applies = req.evaluate_markers(env, extras)
                && (extra.is_none() || !req.evaluate_markers(env, &[]));
            if !applies {
                continue;
            }
            let dep = DistName::from(&req.name);
            let range = match &req.version_or_url {
                Some(VersionOrUrl::VersionSpecifier(s)) => Ranges::from(s.clone()),
                _ => Ranges::full(),
            };
            if &dep != dist {
                deps.push((Package::Dist(dep.clone()), range.clone()));
            }
            for e in &req.extras {
                deps.push((Package::Extra(dep.clone(), e.clone()), range.clone()));
            }
            edges.push(edge(dep, rd));
        }
        if extra.is_none() {
            self.add_import_time(dist, version, &metadata, &mut deps)?;
        }
        self.edges
            .borrow_mut()
            .insert((package.clone(), version.clone()), edges.into());
        Ok(Dependencies::Available(deps.into_iter().collect()))
    }
}

fn edge(dist: DistName, rd: &RequiresDist) -> Edge {
    let mut bare = rd.requirement.clone();
    bare.marker = MarkerTree::TRUE;
    let mut requirement = bare.to_string();
    if let Some(unread) = &rd.unreadable_version {
        requirement.push_str(&format!(" ({unread}, not a PEP 440 version: not enforced)"));
    }
    Edge {
        dist,
        requirement,
        marker: rd.requirement.marker.try_to_string(),
    }
}

impl DependencyProvider for Provider<'_> {
    type P = Package;
    type V = Version;
    type VS = Ranges<Version>;
    type M = Exclusion;
    type Priority = Priority;
    type Err = SolveError;

    fn prioritize(
        &self,
        package: &Package,
        range: &Ranges<Version>,
        stats: &PackageResolutionStatistics,
    ) -> Priority {
        let (urgency, count) = match package {
            Package::Root | Package::Python => (Urgency::Python, 1),
            Package::Dist(d) | Package::Extra(d, _) => {
                // A catalog error gives no candidates: deciding it next reports the error.
                let count = self.with_candidates(d, |c| c.count(range)).unwrap_or(0);
                let urgency = if count == 0 {
                    Urgency::NoCandidates
                } else if self.direct.contains(d) {
                    Urgency::Direct
                } else {
                    Urgency::Transitive
                };
                (urgency, count)
            }
        };
        Priority {
            urgency,
            conflicts: stats.conflict_count(),
            fewer_candidates: Reverse(count),
        }
    }

    fn choose_version(
        &self,
        package: &Package,
        range: &Ranges<Version>,
    ) -> Result<Option<Version>, SolveError> {
        match package {
            Package::Root => Ok(Some(root_version())),
            Package::Python => {
                let v = self.target.python_pep440();
                Ok(range.contains(v).then(|| v.clone()))
            }
            Package::Dist(d) => {
                let chosen = self.choose(d, range)?;
                if let Some(v) = &chosen {
                    self.last_chosen.borrow_mut().insert(d.clone(), v.clone());
                }
                Ok(chosen)
            }
            Package::Extra(d, _) => {
                let base = self.last_chosen.borrow().get(d).cloned();
                let base = base.filter(|v| range.contains(v));
                if let Some(v) = base {
                    if self.with_candidates(d, |c| c.is_usable(&v))? {
                        return Ok(Some(v));
                    }
                }
                self.choose(d, range)
            }
        }
    }

    fn get_dependencies(
        &self,
        package: &Package,
        version: &Version,
    ) -> Result<Dependencies<Package, Ranges<Version>, Exclusion>, SolveError> {
        match package {
            Package::Root => Ok(Dependencies::Available(
                self.root_dependencies()?.into_iter().collect(),
            )),
            Package::Python => Ok(Dependencies::Available(Default::default())),
            Package::Dist(d) => self.release_dependencies(package, d, None, version),
            Package::Extra(d, e) => self.release_dependencies(package, d, Some(e), version),
        }
    }

    fn should_cancel(&self) -> Result<(), SolveError> {
        if crate::interrupt::requested() {
            return Err(SolveError::Interrupted);
        }
        Ok(())
    }
}

/// The notebook's one version.
pub(crate) fn root_version() -> Version {
    Version::new([0])
}

//! A bank held in memory, written by hand: for resolving against a few releases in tests
//! without indexing anything. It answers exactly what it was told; whatever it was not told
//! about an indexed release is absent, and a release marked not indexed is never absent.

use std::collections::HashMap;

use pep508_rs::pep440_rs::Version;

use super::bank_view::{BankReadError, BankView};
use crate::bank::store::{
    Catalog, CatalogRelease, ImportProvider, IndexStatus, Presence, ReleaseSet, Slot,
};
use crate::names::{ApiPath, DistName, ModulePath};
use crate::pypi::RequiresPython;

/// What is known of one distribution.
#[derive(Debug, Clone, Default)]
struct Dist {
    catalog: Catalog,
    /// Import name → releases that install it.
    imports: Vec<(ModulePath, ReleaseSet)>,
    /// Release → what it imports whenever it is imported.
    release_imports: HashMap<Version, Vec<String>>,
    /// API path → (present, unknown).
    apis: HashMap<String, (ReleaseSet, ReleaseSet)>,
    members: HashMap<String, (ReleaseSet, ReleaseSet)>,
    /// (API path, keyword) → (present, unknown).
    keywords: HashMap<(String, String), (ReleaseSet, ReleaseSet)>,
}

/// Panics on malformed input: it is written by tests, where that is a bug in the test.
#[derive(Debug, Clone, Default)]
pub struct MemoryBank {
    dists: HashMap<DistName, Dist>,
}

fn dist_name(name: &str) -> DistName {
    DistName::new(name).unwrap_or_else(|e| panic!("{e}"))
}

fn version(v: &str) -> Version {
    v.parse()
        .unwrap_or_else(|e| panic!("`{v}` is not a version: {e}"))
}

impl MemoryBank {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `versions` of `dist`, all indexed. Registering again adds releases.
    pub fn releases(&mut self, dist: &str, versions: &[&str]) -> &mut Self {
        for v in versions {
            self.release(dist, v, IndexStatus::Indexed);
        }
        self
    }

    /// Registers one release with the given index status.
    pub fn release(&mut self, dist: &str, v: &str, index: IndexStatus) -> &mut Self {
        let entry = self.dists.entry(dist_name(dist)).or_default();
        let v = version(v);
        let mut releases = std::mem::take(&mut entry.catalog.releases);
        match releases.iter_mut().find(|r| r.version == v) {
            Some(existing) => existing.index = index,
            None => releases.push(CatalogRelease {
                runtime_gap: false,
                slot: Slot(releases.len() as u32),
                version: v,
                upload_time: None,
                requires_python: RequiresPython::Any,
                yanked: false,
                index,
            }),
        }
        entry.catalog = Catalog::new(releases);
        self
    }

    /// The releases of `dist` at `versions`, which must be registered.
    fn set(&self, dist: &str, versions: &[&str]) -> ReleaseSet {
        let d = &self.dists[&dist_name(dist)];
        versions
            .iter()
            .map(|v| {
                d.catalog
                    .find(&version(v))
                    .unwrap_or_else(|| panic!("{dist} {v} is not registered"))
                    .slot
            })
            .collect()
    }

    /// `dist` installs `import` in `versions`.
    pub fn provides(&mut self, dist: &str, import: &str, versions: &[&str]) -> &mut Self {
        let set = self.set(dist, versions);
        let import = ModulePath::new(import).unwrap_or_else(|e| panic!("{e}"));
        self.dist(dist).imports.push((import, set));
        self
    }

    /// `api` is present in `present` and unknown in `unknown` releases of `dist`.
    pub fn api(&mut self, dist: &str, api: &str, present: &[&str], unknown: &[&str]) -> &mut Self {
        let sets = (self.set(dist, present), self.set(dist, unknown));
        self.dist(dist).apis.insert(api.to_string(), sets);
        self
    }

    /// Some class of `dist` has `member` in `present` releases, and may in `unknown` ones.
    pub fn member(
        &mut self,
        dist: &str,
        member: &str,
        present: &[&str],
        unknown: &[&str],
    ) -> &mut Self {
        let sets = (self.set(dist, present), self.set(dist, unknown));
        self.dist(dist).members.insert(member.to_string(), sets);
        self
    }

    /// `api` of `dist` accepts `keyword` in `present` releases, and may in `unknown` ones.
    pub fn keyword(
        &mut self,
        dist: &str,
        api: &str,
        keyword: &str,
        present: &[&str],
        unknown: &[&str],
    ) -> &mut Self {
        let sets = (self.set(dist, present), self.set(dist, unknown));
        self.dist(dist)
            .keywords
            .insert((api.to_string(), keyword.to_string()), sets);
        self
    }

    /// Release `v` of `dist` imports `paths` (`scipy.sparse`) whenever it is imported.
    pub fn imports(&mut self, dist: &str, v: &str, paths: &[&str]) -> &mut Self {
        self.set(dist, &[v]);
        let paths = paths.iter().map(|p| p.to_string()).collect();
        self.dist(dist).release_imports.insert(version(v), paths);
        self
    }

    fn dist(&mut self, dist: &str) -> &mut Dist {
        self.dists
            .get_mut(&dist_name(dist))
            .unwrap_or_else(|| panic!("{dist} has no releases registered"))
    }

    fn presence(&self, dist: &DistName, found: Option<&(ReleaseSet, ReleaseSet)>) -> Presence {
        let Some(d) = self.dists.get(dist) else {
            return Presence::default();
        };
        let (present, unknown) = found.cloned().unwrap_or_default();
        Presence::split(
            &d.catalog.registered(),
            &d.catalog.indexed(),
            &present,
            &unknown,
        )
    }
}

impl BankView for MemoryBank {
    fn catalog(&self, dist: &DistName) -> Result<Option<Catalog>, BankReadError> {
        Ok(self.dists.get(dist).map(|d| d.catalog.clone()))
    }

    fn api_presence(
        &self,
        dist: &DistName,
        apis: &[ApiPath],
    ) -> Result<Vec<Presence>, BankReadError> {
        let d = self.dists.get(dist);
        Ok(apis
            .iter()
            .map(|a| self.presence(dist, d.and_then(|d| d.apis.get(a.as_str()))))
            .collect())
    }

    fn member_presence(&self, dist: &DistName, member: &str) -> Result<Presence, BankReadError> {
        let d = self.dists.get(dist);
        Ok(self.presence(dist, d.and_then(|d| d.members.get(member))))
    }

    fn keyword_presence(
        &self,
        dist: &DistName,
        api: &ApiPath,
        keyword: &str,
    ) -> Result<Presence, BankReadError> {
        let d = self.dists.get(dist);
        let key = (api.as_str().to_string(), keyword.to_string());
        Ok(self.presence(dist, d.and_then(|d| d.keywords.get(&key))))
    }

    fn import_providers(&self, top_level: &str) -> Result<Vec<ImportProvider>, BankReadError> {
        let mut out: Vec<ImportProvider> = self
            .dists
            .iter()
            .flat_map(|(dist, d)| {
                d.imports.iter().filter_map(move |(name, releases)| {
                    let under = name.top_level() == top_level;
                    (under && !releases.is_empty()).then(|| ImportProvider {
                        dist: dist.clone(),
                        import_name: name.clone(),
                        releases: releases.clone(),
                    })
                })
            })
            .collect();
        out.sort_by(|a, b| (&a.dist, &a.import_name).cmp(&(&b.dist, &b.import_name)));
        Ok(out)
    }

    fn release_imports(
        &self,
        dist: &DistName,
        version: &Version,
    ) -> Result<Option<Vec<String>>, BankReadError> {
        Ok(self
            .dists
            .get(dist)
            .and_then(|d| d.release_imports.get(version))
            .cloned())
    }
}

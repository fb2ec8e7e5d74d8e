//! A resolution's answer: one release per distribution, why each is there, and the files a
//! hashed lock installs.

use std::collections::{BTreeMap, HashMap, HashSet};

use pep508_rs::pep440_rs::Version;
use pep508_rs::ExtraName;
use pubgrub::SelectedDependencies;
use serde::Serialize;

use super::candidates::{installable_files, Held};
use super::package::Package;
use super::provider::Provider;
use crate::names::DistName;
use crate::python::PythonVersion;

#[derive(Debug, Clone, Serialize)]
pub struct Solution {
    pub python: PythonVersion,
    /// By distribution name.
    pub pins: Vec<Pin>,
}

/// The release chosen for one distribution.
#[derive(Debug, Clone, Serialize)]
pub struct Pin {
    pub dist: DistName,
    pub version: Version,
    /// Extras some requirement asked for.
    pub extras: Vec<ExtraName>,
    pub required_by: Vec<RequiredBy>,
    /// The files an installer may use on the target, with their hashes.
    pub files: Vec<LockedFile>,
    /// What held it below the newest release its range allowed (the notebook's era, a
    /// restoration's search): a dependency so held is listed in the requirements, since an
    /// installer left to itself would take the newest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held: Option<Held>,
}

/// Why a distribution is in the solution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum RequiredBy {
    /// The notebook asks for it; `evidence` says why.
    Root { evidence: Vec<String> },
    /// A Requires-Dist line of another chosen release (of its `extra`, when set).
    Dependency {
        parent: DistName,
        parent_version: Version,
        extra: Option<ExtraName>,
        requirement: String,
        marker: Option<String>,
    },
    /// Another chosen release imports it whenever it is imported, without declaring it, as
    /// the bank read its code (scikit-learn 0.19.1 imports scipy): `modules` are what it
    /// imports.
    Imported {
        parent: DistName,
        parent_version: Version,
        modules: Vec<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LockedFile {
    pub filename: String,
    pub url: String,
    pub sha256: Option<String>,
    pub kind: LockedKind,
    /// As the index gives them (PEP 700): a PEP 751 lock records both when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload_time: Option<jiff::Timestamp>,
    /// An sdist surveyed as pure Python: it builds without compiling anything.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pure_python: bool,
}

/// Whether an installer unpacks the file or builds it (a PEP 751 lock lists them apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LockedKind {
    Wheel,
    Sdist,
}

impl LockedFile {
    fn from_dist_file(f: &crate::pypi::DistFile, pure_python: bool) -> Self {
        Self {
            filename: f.filename.clone(),
            url: f.url.clone(),
            sha256: f.sha256().map(str::to_string),
            kind: if f.is_wheel() {
                LockedKind::Wheel
            } else {
                LockedKind::Sdist
            },
            size: f.size,
            upload_time: f.upload_time,
            pure_python,
        }
    }
}

impl Solution {
    /// The distributions the notebook asks for directly (what requirements.txt lists).
    pub fn roots(&self) -> impl Iterator<Item = &Pin> {
        self.pins.iter().filter(|p| p.is_root())
    }

    pub fn get(&self, dist: &DistName) -> Option<&Pin> {
        self.pins
            .binary_search_by(|p| p.dist.cmp(dist))
            .ok()
            .map(|i| &self.pins[i])
    }

    pub(crate) fn build(
        selected: SelectedDependencies<Package, Version>,
        provider: &Provider<'_>,
    ) -> Self {
        let mut pins: BTreeMap<DistName, Pin> = BTreeMap::new();
        for (package, version) in selected.iter() {
            if let Package::Dist(d) = package {
                let held = provider
                    .with_candidates(d, |c| {
                        c.held
                            .as_ref()
                            .filter(|(v, _)| v == version)
                            .map(|(_, why)| *why)
                    })
                    .ok()
                    .flatten();
                let files = provider
                    .with_candidates(d, |c| {
                        let Some(at) = c.position(version) else {
                            return Vec::new();
                        };
                        let pinned = provider
                            .roots
                            .iter()
                            .any(|r| &r.dist == d && r.allowed.is_pinned(version));
                        let release = &c.releases[at];
                        installable_files(
                            release,
                            provider.target,
                            provider.options,
                            c.sdists,
                            pinned,
                            &c.verdicts[at],
                        )
                        .map(|(file, pure)| LockedFile::from_dist_file(file, pure))
                        .collect()
                    })
                    .unwrap_or_default();
                pins.insert(
                    d.clone(),
                    Pin {
                        dist: d.clone(),
                        version: version.clone(),
                        extras: Vec::new(),
                        required_by: Vec::new(),
                        files,
                        held,
                    },
                );
            }
        }
        for root in provider.roots {
            if let Some(pin) = pins.get_mut(&root.dist) {
                pin.required_by.push(RequiredBy::Root {
                    evidence: root.evidence.clone(),
                });
                pin.extras.extend(root.extras.iter().cloned());
            }
        }
        for (package, version) in selected.iter() {
            let (parent, extra) = match package {
                Package::Dist(d) => (d, None),
                Package::Extra(d, e) => (d, Some(e)),
                Package::Root | Package::Python => continue,
            };
            for edge in provider
                .edges(package, version)
                .iter()
                .flat_map(|e| e.iter())
            {
                let Some(pin) = pins.get_mut(&edge.dist) else {
                    continue;
                };
                pin.required_by.push(RequiredBy::Dependency {
                    parent: parent.clone(),
                    parent_version: version.clone(),
                    extra: extra.cloned(),
                    requirement: edge.requirement.clone(),
                    marker: edge.marker.clone(),
                });
            }
            if let (Some(e), Some(pin)) = (extra, pins.get_mut(parent)) {
                pin.extras.push(e.clone());
            }
        }
        // An import is undeclared only when nothing the importer declares, directly or
        // through what that declares, brings the distribution (geopandas imports numpy, which
        // pandas declares): a claim that would otherwise come and go with what the bank
        // happened to index of the releases in between.
        let declared = declared_closures(&pins);
        for (dist, why) in super::import_time::imported_by(&selected, provider) {
            if let RequiredBy::Imported { parent, .. } = &why {
                if declared.get(parent).is_some_and(|c| c.contains(&dist)) {
                    continue;
                }
            }
            if let Some(pin) = pins.get_mut(&dist) {
                pin.required_by.push(why);
            }
        }
        let mut pins: Vec<Pin> = pins.into_values().collect();
        for pin in &mut pins {
            pin.extras.sort();
            pin.extras.dedup();
            pin.required_by
                .sort_by(|a, b| a.order_key().cmp(&b.order_key()));
        }
        Solution {
            python: provider.target.python(),
            pins,
        }
    }
}

/// For each pinned distribution, every distribution its Requires-Dist brings, transitively
/// (through the pins' [`RequiredBy::Dependency`] reasons).
fn declared_closures(pins: &BTreeMap<DistName, Pin>) -> HashMap<DistName, HashSet<DistName>> {
    let mut children: HashMap<&DistName, Vec<&DistName>> = HashMap::new();
    for pin in pins.values() {
        for why in &pin.required_by {
            if let RequiredBy::Dependency { parent, .. } = why {
                children.entry(parent).or_default().push(&pin.dist);
            }
        }
    }
    pins.keys()
        .map(|start| {
            let mut seen: HashSet<DistName> = HashSet::new();
            let mut stack: Vec<&DistName> = children.get(start).cloned().unwrap_or_default();
            while let Some(d) = stack.pop() {
                if seen.insert(d.clone()) {
                    stack.extend(children.get(d).into_iter().flatten().copied());
                }
            }
            (start.clone(), seen)
        })
        .collect()
}

impl RequiredBy {
    /// The notebook first (`None` sorts first), then parents by name and version.
    fn order_key(&self) -> Option<(&DistName, &Version, Option<&ExtraName>)> {
        match self {
            RequiredBy::Root { .. } => None,
            RequiredBy::Dependency {
                parent,
                parent_version,
                extra,
                ..
            } => Some((parent, parent_version, extra.as_ref())),
            RequiredBy::Imported {
                parent,
                parent_version,
                ..
            } => Some((parent, parent_version, None)),
        }
    }

    /// The release that asks for the pin, unless the notebook does.
    pub fn parent(&self) -> Option<&DistName> {
        match self {
            RequiredBy::Root { .. } => None,
            RequiredBy::Dependency { parent, .. } | RequiredBy::Imported { parent, .. } => {
                Some(parent)
            }
        }
    }
}

impl Pin {
    /// No wheel: the installer builds it from its sdist.
    pub fn builds_from_sdist(&self) -> bool {
        !self.files.is_empty() && !self.files.iter().any(|f| f.kind == LockedKind::Wheel)
    }

    /// Built from an sdist surveyed as pure Python.
    pub fn builds_pure_sdist(&self) -> bool {
        self.builds_from_sdist() && self.files.iter().any(|f| f.pure_python)
    }

    pub fn is_root(&self) -> bool {
        self.required_by
            .iter()
            .any(|r| matches!(r, RequiredBy::Root { .. }))
    }

    /// Another chosen release imports it without declaring it: requirements.txt lists it,
    /// since installing the roots would not bring it.
    pub fn is_imported_undeclared(&self) -> bool {
        self.required_by
            .iter()
            .any(|r| matches!(r, RequiredBy::Imported { .. }))
    }
}

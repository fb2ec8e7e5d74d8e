//! Where candidate distributions for an import name come from, besides the bank: the package
//! list's import names, the provider list, and (on demand) the package index.

use std::sync::OnceLock;

use super::index_lookup::{IndexLookup, NoIndexLookup};
use super::provider_list::ProviderList;
use crate::bank::indexer::{built_in as built_in_packages, PackageEntry};
use crate::names::{DistName, ModulePath};

/// The lists and the index hook candidate selection reads.
pub struct Sources<'a> {
    pub packages: &'a [PackageEntry],
    pub providers: &'a ProviderList,
    pub lookup: &'a dyn IndexLookup,
}

impl Sources<'static> {
    /// The lists built into nbenv, and no index lookup.
    pub fn built_in() -> Self {
        static PACKAGES: OnceLock<Vec<PackageEntry>> = OnceLock::new();
        Self {
            packages: PACKAGES.get_or_init(built_in_packages),
            providers: ProviderList::built_in(),
            lookup: &NoIndexLookup,
        }
    }
}

/// The import names a package-list entry installs: its `import=` names, else the default,
/// its normalized name with `-` as `_` (`apibank/README.md`).
pub fn listed_imports(entry: &PackageEntry) -> Vec<ModulePath> {
    if entry.import_names.is_empty() {
        ModulePath::new(&entry.name.as_str().replace('-', "_"))
            .into_iter()
            .collect()
    } else {
        entry
            .import_names
            .iter()
            .filter_map(|n| ModulePath::new(n).ok())
            .collect()
    }
}

impl Sources<'_> {
    /// Package-list entries installing `top_level` or a dotted name under it, with that name.
    pub fn listed_providers(&self, top_level: &str) -> Vec<(DistName, ModulePath, usize)> {
        let mut out = Vec::new();
        // Hundreds of entries, asked once per import name: compare their text first, and
        // build paths only for the entries that can match.
        for entry in self.packages.iter().filter(|e| may_install(e, top_level)) {
            for import in listed_imports(entry) {
                if import.top_level() == top_level {
                    out.push((entry.name.clone(), import, entry.line));
                }
            }
        }
        out
    }
}

/// Whether some import name of `entry` has `top_level` as its first segment, by their text
/// (the default name is the distribution's with `-` as `_`).
fn may_install(entry: &PackageEntry, top_level: &str) -> bool {
    if entry.import_names.is_empty() {
        let name = entry.name.as_str();
        return name.len() == top_level.len()
            && name
                .bytes()
                .zip(top_level.bytes())
                .all(|(a, b)| a == b || (a == b'-' && b == b'_'));
    }
    entry
        .import_names
        .iter()
        .any(|n| n.split('.').next() == Some(top_level))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A distribution that renamed its module keeps both names: pystan 3 installs `stan`,
    /// pystan 2 (of the notebooks that import it) `pystan`.
    #[test]
    fn the_built_in_list_keeps_an_old_import_name() {
        let sources = Sources::built_in();
        for import in ["stan", "pystan"] {
            let found: Vec<String> = sources
                .listed_providers(import)
                .into_iter()
                .map(|(d, _, _)| d.to_string())
                .collect();
            assert_eq!(found, ["pystan"], "{import}");
        }
    }
}

//! Import-time dependencies from the bank: what it read a release to import whenever it is
//! imported, the distribution providing each imported module, and the releases of that
//! distribution the bank shows lack what is imported.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;

use pep508_rs::pep440_rs::Version;

use super::{Asked, ImportTimeDependencies, ImportedDist};
use crate::bank::store::{ImportProvider, IndexStatus};
use crate::names::{ApiPath, DistName, ModulePath};
use crate::notebook::{is_stdlib, VersionSet};
use crate::resolve::evidence::{conventional_names, BankReadError, BankView, ProviderList};

/// Reads a [`BankView`]; remembers each answer, as the solver asks again on every interpreter
/// it tries.
pub struct BankImportTime<B> {
    bank: B,
    list: &'static ProviderList,
    /// (distribution, path) → the releases lacking it.
    lacking: Mutex<HashMap<(DistName, String), Vec<Version>>>,
}

impl<B: BankView + Send + Sync> BankImportTime<B> {
    pub fn new(bank: B) -> Self {
        Self {
            bank,
            list: ProviderList::built_in(),
            lacking: Mutex::default(),
        }
    }

    /// The distribution providing `path` (a module or a name in one) for `asked`; `None`
    /// when nothing says which: the bank's providers, then the notebook's and the release's
    /// own choices among them, then the preference list (read by the bank or not); a
    /// distribution named like the module that the release itself requires (under some
    /// extra); the one provider; the one named like the module.
    fn provider(
        &self,
        asked: &Asked<'_>,
        path: &str,
        providers: &[ImportProvider],
    ) -> Option<DistName> {
        let top = path.split('.').next().unwrap_or(path);
        let mut candidates: Vec<DistName> = Vec::new();
        for p in providers {
            let name = p.import_name.as_str();
            let under = path == name || path.starts_with(&format!("{name}."));
            if under
                && &p.dist != asked.dist
                && self.list.avoided(&p.dist).is_none()
                && !candidates.contains(&p.dist)
            {
                candidates.push(p.dist.clone());
            }
        }
        if let Some(d) = asked.preferred.iter().find(|d| candidates.contains(d)) {
            return Some(d.clone());
        }
        let module = ModulePath::new(top).ok()?;
        // The list names the project that installs the module. The bank may not have read it
        // yet, and then a copy vendored elsewhere is the only provider it knows (matplotlib
        // before 1.2 shipped `dateutil`): the list's choice still wins.
        if let Some(preference) = self.list.preference(&module) {
            let listed = preference
                .order
                .iter()
                .find(|d| candidates.contains(d))
                .or(preference.order.first());
            if let Some(d) = listed.filter(|d| *d != asked.dist) {
                return Some(d.clone());
            }
        }
        // The release requires a project named like the module: that one, read or not.
        let named = conventional_names(&module);
        if let Some(d) = asked
            .preferred
            .iter()
            .find(|d| named.contains(d) && *d != asked.dist)
        {
            return Some(d.clone());
        }
        match candidates.as_slice() {
            [one] => Some(one.clone()),
            [] => None,
            several => several.iter().find(|d| named.first() == Some(d)).cloned(),
        }
    }

    /// Whether the provider's newest indexed release still installs the module: one that
    /// stopped is a copy it once vendored (matplotlib 1.2 shipped `six`, before 1.2
    /// `dateutil`), not where a later release's import comes from. Unknown: kept.
    fn still_provides(&self, provider: &ImportProvider) -> bool {
        let Ok(Some(catalog)) = self.bank.catalog(&provider.dist) else {
            return true;
        };
        catalog
            .releases
            .iter()
            .rev()
            .find(|r| r.index == IndexStatus::Indexed)
            .is_none_or(|newest| provider.releases.contains(newest.slot))
    }

    /// The releases of `dist` that the bank shows lack some of `paths`. A private path, or
    /// one the bank knows in no release of `dist`, tells nothing.
    fn lacking(&self, dist: &DistName, paths: &[String]) -> Result<Vec<Version>, BankReadError> {
        let Some(catalog) = self.bank.catalog(dist)? else {
            return Ok(Vec::new());
        };
        let mut out: BTreeSet<Version> = BTreeSet::new();
        let mut ask: Vec<ApiPath> = Vec::new();
        {
            let known = self.lacking.lock().unwrap_or_else(|e| e.into_inner());
            for path in paths {
                if path.split('.').any(|s| s.starts_with('_')) {
                    continue;
                }
                match known.get(&(dist.clone(), path.clone())) {
                    Some(versions) => out.extend(versions.iter().cloned()),
                    None => ask.extend(ApiPath::new(path).ok()),
                }
            }
        }
        let presence = self.bank.api_presence(dist, &ask)?;
        let mut known = self.lacking.lock().unwrap_or_else(|e| e.into_inner());
        for (path, presence) in ask.iter().zip(presence) {
            let versions = if presence.known() {
                catalog.versions(&presence.absent)
            } else {
                Vec::new()
            };
            out.extend(versions.iter().cloned());
            known.insert((dist.clone(), path.as_str().to_string()), versions);
        }
        Ok(out.into_iter().collect())
    }

    fn read(&self, asked: &Asked<'_>) -> Result<Vec<ImportedDist>, BankReadError> {
        let Some(paths) = self.bank.release_imports(asked.dist, asked.version)? else {
            return Ok(Vec::new());
        };
        let python = VersionSet::of(&[asked.python]);
        let mut by_dist: BTreeMap<DistName, Vec<String>> = BTreeMap::new();
        let mut providers: HashMap<String, Vec<ImportProvider>> = HashMap::new();
        for path in paths {
            let top = path.split('.').next().unwrap_or(&path);
            if is_stdlib(top, python) {
                continue;
            }
            if !providers.contains_key(top) {
                // Read once per module: a copy its provider no longer ships is none.
                let mut known = self.bank.import_providers(top)?;
                known.retain(|p| self.still_provides(p));
                providers.insert(top.to_string(), known);
            }
            if let Some(dist) = self.provider(asked, &path, &providers[top]) {
                by_dist.entry(dist).or_default().push(path);
            }
        }
        by_dist
            .into_iter()
            .map(|(dist, mut paths)| {
                paths.sort();
                let lacking = self.lacking(&dist, &paths)?;
                Ok(ImportedDist {
                    dist,
                    paths,
                    lacking,
                })
            })
            .collect()
    }
}

impl<B: BankView + Send + Sync> ImportTimeDependencies for BankImportTime<B> {
    /// A bank that cannot be read says nothing more than one that has not read the release:
    /// the release needs what it declares.
    fn dependencies(&self, asked: &Asked<'_>) -> Vec<ImportedDist> {
        self.read(asked).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::PythonVersion;
    use crate::resolve::evidence::MemoryBank;

    fn name(n: &str) -> DistName {
        DistName::new(n).unwrap()
    }

    fn ask(
        bank: &BankImportTime<MemoryBank>,
        dist: &str,
        version: &str,
        preferred: &[&str],
    ) -> Vec<ImportedDist> {
        let preferred: Vec<DistName> = preferred.iter().map(|p| name(p)).collect();
        bank.dependencies(&Asked {
            dist: &name(dist),
            version: &version.parse().unwrap(),
            python: PythonVersion::new(3, 6),
            preferred: &preferred,
        })
    }

    fn versions(vs: &[&str]) -> Vec<Version> {
        vs.iter().map(|v| v.parse().unwrap()).collect()
    }

    #[test]
    fn each_imported_module_s_provider_is_a_dependency_minus_the_releases_lacking_what_is_used() {
        let mut bank = MemoryBank::new();
        bank.releases("scikit-learn", &["0.19.1"])
            .provides("scikit-learn", "sklearn", &["0.19.1"])
            .imports(
                "scikit-learn",
                "0.19.1",
                &["numpy", "os.path", "scipy.misc.comb", "scipy.sparse", "scipy._lib.six"],
            )
            .releases("scipy", &["1.1.0", "1.2.0", "1.3.0"])
            .provides("scipy", "scipy", &["1.1.0", "1.2.0", "1.3.0"])
            .api("scipy", "scipy.sparse", &["1.1.0", "1.2.0", "1.3.0"], &[])
            .api("scipy", "scipy.misc.comb", &["1.1.0", "1.2.0"], &[])
            // numpy is not in the bank at all.
            ;
        let bank = BankImportTime::new(bank);
        let deps = ask(&bank, "scikit-learn", "0.19.1", &[]);
        assert_eq!(
            deps,
            [ImportedDist {
                dist: name("scipy"),
                paths: vec!["scipy._lib.six".into(), "scipy.misc.comb".into(), "scipy.sparse".into()],
                lacking: versions(&["1.3.0"]),
            }],
            "numpy has no known provider, os is the standard library's, a private path tells nothing"
        );
        // The release's own Requires-Dist (under an extra) names numpy: that is its provider.
        let deps = ask(&bank, "scikit-learn", "0.19.1", &["numpy"]);
        assert_eq!(deps[0].dist, name("numpy"));
        assert_eq!(deps[0].lacking, []);
        // Not read: nothing is added.
        assert!(ask(&bank, "scipy", "1.3.0", &[]).is_empty());
    }

    #[test]
    fn the_provider_is_the_one_the_resolution_has_then_the_preferred_one() {
        let mut bank = MemoryBank::new();
        bank.releases("keras", &["2.10.0"])
            .imports(
                "keras",
                "2.10.0",
                &["tensorflow.compat.v2", "keras_helper.x"],
            )
            .provides("keras", "keras", &["2.10.0"]);
        for tf in ["tensorflow", "tensorflow-gpu"] {
            bank.releases(tf, &["1.1.0", "2.10.0"])
                .provides(tf, "tensorflow", &["1.1.0", "2.10.0"])
                .api(tf, "tensorflow.compat.v2", &["2.10.0"], &[]);
        }
        bank.releases("kh-other", &["1.0"])
            .provides("kh-other", "keras_helper", &["1.0"])
            .releases("kh-fork", &["1.0"])
            .provides("kh-fork", "keras_helper", &["1.0"]);
        let bank = BankImportTime::new(bank);
        let deps = ask(&bank, "keras", "2.10.0", &[]);
        assert_eq!(
            deps.len(),
            1,
            "two providers of keras_helper, none preferred nor named so: {deps:?}"
        );
        assert_eq!(
            deps[0].dist,
            name("tensorflow"),
            "the preference list's first"
        );
        assert_eq!(deps[0].lacking, versions(&["1.1.0"]));
        let deps = ask(&bank, "keras", "2.10.0", &["tensorflow-gpu", "kh-fork"]);
        let dists: Vec<&str> = deps.iter().map(|d| d.dist.as_str()).collect();
        assert_eq!(dists, ["kh-fork", "tensorflow-gpu"]);
    }

    #[test]
    fn among_several_providers_the_one_named_like_the_module_is_taken() {
        let mut bank = MemoryBank::new();
        bank.releases("app", &["1.0"])
            .imports("app", "1.0", &["helper.x"])
            .releases("helper", &["1.0"])
            .provides("helper", "helper", &["1.0"])
            .releases("helper-fork", &["1.0"])
            .provides("helper-fork", "helper", &["1.0"]);
        let deps = ask(&BankImportTime::new(bank), "app", "1.0", &[]);
        assert_eq!(deps[0].dist, name("helper"));
    }

    #[test]
    fn a_vendored_copy_is_not_the_provider_when_the_real_one_is_unread() {
        // matplotlib before 1.2 shipped `dateutil` and `pytz`; python-dateutil and pytz are
        // not in the bank. pandas importing them must not depend on old matplotlib.
        let mut bank = MemoryBank::new();
        bank.releases("pandas", &["1.1.5"])
            .provides("pandas", "pandas", &["1.1.5"])
            .imports("pandas", "1.1.5", &["dateutil.parser", "helperlib.x"])
            .releases("matplotlib", &["1.1.1", "3.3.4"])
            .provides("matplotlib", "matplotlib", &["1.1.1", "3.3.4"])
            .provides("matplotlib", "dateutil", &["1.1.1"])
            .provides("matplotlib", "helperlib", &["1.1.1"]);
        let bank = BankImportTime::new(bank);
        let deps = ask(&bank, "pandas", "1.1.5", &[]);
        let dists: Vec<&str> = deps.iter().map(|d| d.dist.as_str()).collect();
        // The list says python-dateutil installs `dateutil`; helperlib's only known provider
        // stopped shipping it, so nothing says who installs it.
        assert_eq!(dists, ["python-dateutil"], "{deps:?}");
        // The release declares a project named like the module: that one.
        let deps = ask(&bank, "pandas", "1.1.5", &["helperlib"]);
        let dists: Vec<&str> = deps.iter().map(|d| d.dist.as_str()).collect();
        assert_eq!(dists, ["helperlib", "python-dateutil"], "{deps:?}");
        // A copy the provider's newest release no longer ships says nothing: tensorflow
        // importing six does not depend on matplotlib 1.2.
        let mut bank = MemoryBank::new();
        bank.releases("tensorflow", &["2.2.0"])
            .provides("tensorflow", "tensorflow", &["2.2.0"])
            .imports("tensorflow", "2.2.0", &["six.moves"])
            .releases("matplotlib", &["1.2.1", "3.3.4"])
            .provides("matplotlib", "matplotlib", &["1.2.1", "3.3.4"])
            .provides("matplotlib", "six", &["1.2.1"]);
        let deps = ask(&BankImportTime::new(bank), "tensorflow", "2.2.0", &[]);
        assert!(deps.is_empty(), "{deps:?}");
    }
}

//! The bank's store answering the classifier's questions ([`ApiHistory`]).
//!
//! A question about a name is put to every distribution that installs the name's top-level
//! module (the bank's import names): yes when one of them has it in some release, no only when
//! every one of them is indexed in every registered release and none has it or may have it.
//! A bank that is missing, unreadable or silent about the module answers unknown.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use pep440_rs::Version;

use super::history::{ApiHistory, BankSays};
use crate::bank::store::{DistId, IndexStatus, Presence, Store, StoreError};
use crate::names::{ApiPath, DistName, ModulePath};

/// The bank, read-only, opened when first asked.
pub struct BankHistory {
    path: PathBuf,
    store: OnceCell<Option<Store>>,
}

impl BankHistory {
    /// The bank at `path`. Nothing is opened until a question comes; a bank that cannot be
    /// opened then (there is none, it is not a bank) answers unknown.
    pub fn at(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            store: OnceCell::new(),
        }
    }

    /// A bank already open.
    pub fn new(store: Store) -> Self {
        Self {
            path: PathBuf::new(),
            store: OnceCell::from(Some(store)),
        }
    }

    fn store(&self) -> Option<&Store> {
        self.store
            .get_or_init(|| Store::open_read_only(&self.path).ok())
            .as_ref()
    }

    /// Puts `question` to each distribution that installs `name`'s top-level module (for a
    /// namespace package, the one whose import name `name` is under), in one read; `None`
    /// when there is no bank or it cannot be read.
    fn ask_each<T>(
        &self,
        name: &str,
        question: impl Fn(&Store, DistId, &DistName) -> Result<T, StoreError>,
    ) -> Option<Vec<T>> {
        let store = self.store()?;
        let top = name.split('.').next().unwrap_or(name);
        store
            .read_snapshot(|store| {
                let mut answers = Vec::new();
                let mut asked: Vec<DistName> = Vec::new();
                for provider in store.import_providers(top)? {
                    let import = provider.import_name.as_str();
                    let covers = import == top
                        || name
                            .strip_prefix(import)
                            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'));
                    if !covers || asked.contains(&provider.dist) {
                        continue;
                    }
                    if let Some(id) = store.distribution_id(&provider.dist)? {
                        answers.push(question(store, id, &provider.dist)?);
                    }
                    asked.push(provider.dist);
                }
                Ok(answers)
            })
            .ok()
    }

    /// [`Self::ask_each`], the answers taken together ([`BankSays::any`]).
    fn ask(
        &self,
        name: &str,
        question: impl Fn(&Store, DistId, &DistName) -> Result<BankSays, StoreError>,
    ) -> BankSays {
        match self.ask_each(name, question) {
            Some(answers) if !answers.is_empty() => BankSays::any(answers),
            _ => BankSays::Unknown,
        }
    }
}

/// Yes when some release has it; no when every registered release is indexed, none has it
/// and none may have it.
fn from_presence(p: &Presence, dist: &DistName) -> BankSays {
    if !p.present.is_empty() {
        BankSays::SomeRelease {
            distribution: dist.clone(),
        }
    } else if p.unknown.is_empty() && p.not_indexed.is_empty() && !p.absent.is_empty() {
        BankSays::NoRelease {
            distribution: dist.clone(),
        }
    } else {
        BankSays::Unknown
    }
}

/// An API in one release, as far as a call of it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State<'s> {
    Absent,
    Present(&'s str),
}

impl ApiHistory for BankHistory {
    fn api(&self, api: &ApiPath) -> BankSays {
        self.ask(api.as_str(), |store, id, dist| {
            let presence = store.api_presence(id, &[api.as_str()])?.pop();
            Ok(presence.map_or(BankSays::Unknown, |p| from_presence(&p, dist)))
        })
    }

    fn member(&self, module: &ModulePath, class: &str, member: &str) -> BankSays {
        self.ask(module.as_str(), |store, id, dist| {
            Ok(store
                .class_member_presence(id, class, member)?
                .map_or(BankSays::Unknown, |p| from_presence(&p, dist)))
        })
    }

    fn member_path(&self, module: &ModulePath, class: &str, member: &str) -> Option<ApiPath> {
        let paths = self.ask_each(module.as_str(), |store, id, _| {
            store.class_member_paths(id, class, member)
        })?;
        // The shortest path: the public one before a private module's.
        paths
            .iter()
            .flatten()
            .filter_map(|p| ApiPath::new(p).ok())
            .min_by_key(|p| (p.as_str().len(), p.as_str().to_string()))
    }

    fn keyword(&self, api: &ApiPath, keyword: &str) -> BankSays {
        self.ask(api.as_str(), |store, id, dist| {
            // A keyword of an API no release has is not a question about this distribution.
            let api_present = store
                .api_presence(id, &[api.as_str()])?
                .pop()
                .is_some_and(|p| !p.present.is_empty());
            if !api_present {
                return Ok(BankSays::Unknown);
            }
            let p = store.keyword_presence(id, api.as_str(), keyword)?;
            Ok(from_presence(&p, dist))
        })
    }

    fn changed(&self, api: &ApiPath, installed: &[(DistName, Version)]) -> BankSays {
        self.ask(api.as_str(), |store, id, dist| {
            let history = store.signature_history(id, api.as_str())?;
            let p = &history.presence;
            if p.present.is_empty() {
                return Ok(BankSays::Unknown);
            }
            let some = || BankSays::SomeRelease {
                distribution: dist.clone(),
            };
            let catalog = store.catalog(id)?;
            // Each indexed release, oldest first: the API there, `None` when not known.
            let states: Vec<(&Version, Option<State>)> = catalog
                .releases
                .iter()
                .filter(|r| r.index == IndexStatus::Indexed)
                .map(|r| {
                    let state = if p.present.contains(r.slot) {
                        history.signature_at(r.slot).map(State::Present)
                    } else if p.absent.contains(r.slot) {
                        Some(State::Absent)
                    } else {
                        None
                    };
                    (&r.version, state)
                })
                .collect();
            match installed.iter().find(|(d, _)| d == dist) {
                // Against the releases next to the installed one: where a repair round moves.
                Some((_, version)) => {
                    let Some(at) = states.iter().position(|(v, _)| *v == version) else {
                        return Ok(BankSays::Unknown);
                    };
                    let Some(here) = states[at].1 else {
                        return Ok(BankSays::Unknown);
                    };
                    let next = [at.checked_sub(1), Some(at + 1)]
                        .into_iter()
                        .flatten()
                        .filter_map(|i| states.get(i).map(|(_, s)| *s));
                    let mut unknown = at + 1 >= states.len() && at == 0;
                    for state in next {
                        match state {
                            Some(s) if s != here => return Ok(some()),
                            Some(_) => {}
                            None => unknown = true,
                        }
                    }
                    Ok(if unknown {
                        BankSays::Unknown
                    } else {
                        BankSays::NoRelease {
                            distribution: dist.clone(),
                        }
                    })
                }
                // Anywhere in its history.
                None => {
                    let known: Vec<State> = states.iter().filter_map(|(_, s)| *s).collect();
                    let differ = known.windows(2).any(|w| w[0] != w[1]);
                    Ok(if differ {
                        some()
                    } else if known.len() == states.len() && p.not_indexed.is_empty() {
                        BankSays::NoRelease {
                            distribution: dist.clone(),
                        }
                    } else {
                        BankSays::Unknown
                    })
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::str::FromStr;

    use super::*;
    use crate::bank::extract::{summarize_source, ArchiveKind, FileSummary, ReleaseLayout};
    use crate::bank::flow::{analyze, ReleaseInput};
    use crate::bank::store::{BankWriter, IndexedRelease, ReleaseInfo, SourceCounts};

    /// `pandas` as a small bank: `DataFrame` inherits `ix` from `NDFrame` until 0.20 and has
    /// `sort` until 0.19; `rolling_mean` goes after 0.19; `concat` drops `join_axes` in 1.0;
    /// `read_csv` never changes. `unindexed` is registered beside them and never read.
    fn bank(unindexed: Option<&str>) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("bank.sqlite3")).unwrap();
        let mut versions = vec!["0.19", "0.20", "1.0"];
        versions.extend(unindexed);
        let infos: Vec<ReleaseInfo> = versions
            .iter()
            .map(|v| ReleaseInfo {
                version: Version::from_str(v).unwrap(),
                upload_time: None,
                requires_python: None,
                yanked: None,
            })
            .collect();
        let (dist, rows) = store
            .register(&DistName::new("pandas").unwrap(), "http://index/", &infos)
            .unwrap();
        let sources = |v: &str| {
            let mut s = String::from(
                "def read_csv(path, sep=','):\n    pass\n\nclass NDFrame:\n    def copy(self):\n        pass\n",
            );
            if v != "1.0" {
                s.push_str("    @property\n    def ix(self):\n        pass\n");
                s.push_str("\ndef concat(objs, axis=0, join_axes=None):\n    pass\n");
            } else {
                s.push_str("\ndef concat(objs, axis=0):\n    pass\n");
                // pandas 1.x's module `__getattr__`: it serves the names it tests for, and
                // raises for every other, so the module stays closed.
                s.push_str(
                    "\ndef __getattr__(name):\n    if name == 'np':\n        import numpy as np\n        \
                     return np\n    raise AttributeError(name)\n",
                );
            }
            s.push_str("\nclass DataFrame(NDFrame):\n    def head(self, n=5):\n        pass\n");
            if v == "0.19" {
                s.push_str("    def sort(self, columns=None):\n        pass\n");
                s.push_str("\ndef rolling_mean(arg, window):\n    pass\n");
            }
            s
        };
        for v in ["0.19", "0.20", "1.0"] {
            let source = sources(v);
            let files = [("pandas/__init__.py", source.as_str())];
            let layout = ReleaseLayout::new(ArchiveKind::Wheel, files.iter().map(|(p, _)| *p));
            let summaries: HashMap<&str, FileSummary> = files
                .iter()
                .map(|(p, src)| (*p, summarize_source(src, false)))
                .collect();
            let apis = analyze(&ReleaseInput::from_layout(&layout, |p| summaries.get(p)));
            let row = rows
                .iter()
                .find(|r| r.version == Version::from_str(v).unwrap())
                .unwrap();
            BankWriter::new(&mut store)
                .write_release(&IndexedRelease {
                    dist_id: dist,
                    release_id: row.id,
                    slot: row.slot,
                    file_name: "pandas.whl",
                    file_sha256: None,
                    apis: &apis,
                    import_names: &["pandas".to_string()],
                    requires_dist: &[],
                    file_requires_dist: &[],
                    requires_python: None,
                    no_sources: None,
                    display_name: None,
                    counts: SourceCounts::default(),
                })
                .unwrap();
        }
        (dir, store)
    }

    fn api(path: &str) -> ApiPath {
        ApiPath::new(path).unwrap()
    }

    fn some() -> BankSays {
        BankSays::SomeRelease {
            distribution: DistName::new("pandas").unwrap(),
        }
    }

    fn none() -> BankSays {
        BankSays::NoRelease {
            distribution: DistName::new("pandas").unwrap(),
        }
    }

    fn pinned(version: &str) -> Vec<(DistName, Version)> {
        vec![(
            DistName::new("pandas").unwrap(),
            Version::from_str(version).unwrap(),
        )]
    }

    #[test]
    fn names_some_release_has_and_names_none_had() {
        let (_dir, store) = bank(None);
        let h = BankHistory::new(store);
        assert_eq!(h.api(&api("pandas.rolling_mean")), some());
        assert_eq!(h.api(&api("pandas.DataFrame.ix")), some());
        // A typo: no release has it, 1.0's `__getattr__` included.
        assert_eq!(h.api(&api("pandas.dataframe")), none());
        assert_eq!(h.api(&api("pandas.np")), some());
        assert_eq!(h.api(&api("pandas.DataFrame.concat")), none());
        // A library the bank has no import name for.
        assert_eq!(h.api(&api("numpy.asarry")), BankSays::Unknown);

        let pandas = ModulePath::new("pandas").unwrap();
        assert_eq!(h.member(&pandas, "DataFrame", "sort"), some());
        // Inherited from `NDFrame`.
        assert_eq!(h.member(&pandas, "DataFrame", "ix"), some());
        assert_eq!(h.member(&pandas, "DataFrame", "concat"), none());
        // No class of that name: not a question about pandas.
        assert_eq!(h.member(&pandas, "Tensor", "numpy"), BankSays::Unknown);

        assert_eq!(h.keyword(&api("pandas.concat"), "join_axes"), some());
        assert_eq!(h.keyword(&api("pandas.concat"), "joinaxes"), none());
        assert_eq!(
            h.keyword(&api("pandas.concat_all"), "axis"),
            BankSays::Unknown
        );
    }

    #[test]
    fn a_release_not_indexed_leaves_a_missing_name_unknown() {
        let (_dir, store) = bank(Some("2.0"));
        let h = BankHistory::new(store);
        assert_eq!(h.api(&api("pandas.dataframe")), BankSays::Unknown);
        assert_eq!(h.api(&api("pandas.rolling_mean")), some());
        // Without a bank, nothing is known.
        let h = BankHistory::at(Path::new("/nonexistent/bank.sqlite3"));
        assert_eq!(h.api(&api("pandas.rolling_mean")), BankSays::Unknown);
    }

    #[test]
    fn signatures_that_changed_next_to_the_installed_release() {
        let (_dir, store) = bank(None);
        let h = BankHistory::new(store);
        let concat = api("pandas.concat");
        // 1.0 dropped `join_axes`: from 1.0 the release next to it differs.
        assert_eq!(h.changed(&concat, &pinned("1.0")), some());
        assert_eq!(h.changed(&concat, &pinned("0.20")), some());
        // 0.19's neighbour, 0.20, takes the same call.
        assert_eq!(h.changed(&concat, &pinned("0.19")), none());
        // The installed release unknown: anywhere in its history.
        assert_eq!(h.changed(&concat, &[]), some());
        assert_eq!(h.changed(&api("pandas.read_csv"), &[]), none());
        assert_eq!(h.changed(&api("pandas.read_csv"), &pinned("0.20")), none());
        // Gone after 0.19: its presence changed.
        assert_eq!(
            h.changed(&api("pandas.rolling_mean"), &pinned("0.19")),
            some()
        );
    }
}

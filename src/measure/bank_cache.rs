//! The bank as a batch reads it: every answer remembered, so that the thousandth notebook
//! calling `pandas.read_csv` does not ask SQLite again. Notebooks of a corpus share most of
//! their APIs, and reading the bank's evidence was most of a warm inference's time.
//!
//! Shared by the batch's threads. It holds one entry per distinct question the corpus asks
//! (tens of megabytes for a large corpus). When the batch writes the bank (lazy indexing,
//! introspection), [`CachedBank::forget`] drops every answer; an answer being read while
//! the bank changed is not kept. What another process writes meanwhile is seen once this
//! batch next writes, or by the next batch.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::bank::store::{Catalog, ImportProvider, Presence, ReleaseSet};
use crate::names::{ApiPath, DistName};
use crate::resolve::evidence::{BankReadError, BankView};
use pep508_rs::pep440_rs::Version;

/// A [`BankView`] that asks `inner` each question once.
pub struct CachedBank<B> {
    inner: B,
    /// Goes up at each [`CachedBank::forget`].
    generation: AtomicU64,
    catalogs: Memo<DistName, Option<Catalog>>,
    apis: Memo<(DistName, ApiPath), Presence>,
    members: Memo<(DistName, String), Presence>,
    keywords: Memo<(DistName, ApiPath, String), Presence>,
    providers: Memo<String, Vec<ImportProvider>>,
    release_imports: Memo<(DistName, Version), Option<Vec<String>>>,
}

struct Memo<K, V>(Mutex<HashMap<K, V>>);

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    fn new() -> Self {
        Self(Mutex::new(HashMap::new()))
    }

    fn get(&self, key: &K) -> Option<V> {
        self.lock().get(key).cloned()
    }

    /// Keeps `value`, read at `generation`, unless the bank was written since.
    fn put(&self, key: K, value: V, generation: u64, now: &AtomicU64) {
        let mut map = self.lock();
        if now.load(Ordering::SeqCst) == generation {
            map.insert(key, value);
        }
    }

    fn clear(&self) {
        self.lock().clear();
    }

    /// A poisoned memo is still whole: entries are inserted whole.
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, V>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The remembered answer, or `ask`'s, remembered. Two threads asking at once may both
    /// ask: the answers are the same.
    fn or_ask(
        &self,
        key: K,
        now: &AtomicU64,
        ask: impl FnOnce() -> Result<V, BankReadError>,
    ) -> Result<V, BankReadError> {
        if let Some(v) = self.get(&key) {
            return Ok(v);
        }
        let generation = now.load(Ordering::SeqCst);
        let v = ask()?;
        self.put(key, v.clone(), generation, now);
        Ok(v)
    }
}

impl<B> CachedBank<B> {
    pub fn new(inner: B) -> Self {
        Self {
            inner,
            generation: AtomicU64::new(0),
            catalogs: Memo::new(),
            apis: Memo::new(),
            members: Memo::new(),
            keywords: Memo::new(),
            providers: Memo::new(),
            release_imports: Memo::new(),
        }
    }
}

impl<B> CachedBank<B> {
    /// Drops every answer: the bank was just written.
    pub fn forget(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.catalogs.clear();
        self.apis.clear();
        self.members.clear();
        self.keywords.clear();
        self.providers.clear();
        self.release_imports.clear();
    }
}

impl<B: BankView + Sync + Send> crate::resolve::session::RememberingBank for CachedBank<B> {
    fn forget(&self) {
        CachedBank::forget(self);
    }
}

impl<B: BankView> BankView for CachedBank<B> {
    fn catalog(&self, dist: &DistName) -> Result<Option<Catalog>, BankReadError> {
        self.catalogs
            .or_ask(dist.clone(), &self.generation, || self.inner.catalog(dist))
    }

    fn api_presence(
        &self,
        dist: &DistName,
        apis: &[ApiPath],
    ) -> Result<Vec<Presence>, BankReadError> {
        let mut out: Vec<Option<Presence>> = apis
            .iter()
            .map(|api| self.apis.get(&(dist.clone(), api.clone())))
            .collect();
        let missing: Vec<ApiPath> = apis
            .iter()
            .zip(&out)
            .filter(|(_, known)| known.is_none())
            .map(|(api, _)| api.clone())
            .collect();
        if !missing.is_empty() {
            // One question for all of them, as the resolver asked.
            let generation = self.generation.load(Ordering::SeqCst);
            let answers = self.inner.api_presence(dist, &missing)?;
            let mut answers = missing.into_iter().zip(answers);
            for (slot, api) in out.iter_mut().zip(apis) {
                if slot.is_none() {
                    let (asked, presence) = answers.next().expect("one answer per API");
                    debug_assert_eq!(&asked, api);
                    self.apis.put(
                        (dist.clone(), asked),
                        presence.clone(),
                        generation,
                        &self.generation,
                    );
                    *slot = Some(presence);
                }
            }
        }
        Ok(out.into_iter().map(|p| p.unwrap_or_default()).collect())
    }

    fn member_presence(&self, dist: &DistName, member: &str) -> Result<Presence, BankReadError> {
        self.members
            .or_ask((dist.clone(), member.to_string()), &self.generation, || {
                self.inner.member_presence(dist, member)
            })
    }

    fn keyword_presence(
        &self,
        dist: &DistName,
        api: &ApiPath,
        keyword: &str,
    ) -> Result<Presence, BankReadError> {
        self.keywords.or_ask(
            (dist.clone(), api.clone(), keyword.to_string()),
            &self.generation,
            || self.inner.keyword_presence(dist, api, keyword),
        )
    }

    fn signature_alike(
        &self,
        dist: &DistName,
        api: &ApiPath,
        version: &Version,
    ) -> Result<ReleaseSet, BankReadError> {
        // Asked once per refusal and round: not worth a cache.
        self.inner.signature_alike(dist, api, version)
    }

    fn import_providers(&self, top_level: &str) -> Result<Vec<ImportProvider>, BankReadError> {
        self.providers
            .or_ask(top_level.to_string(), &self.generation, || {
                self.inner.import_providers(top_level)
            })
    }

    fn release_imports(
        &self,
        dist: &DistName,
        version: &Version,
    ) -> Result<Option<Vec<String>>, BankReadError> {
        self.release_imports
            .or_ask((dist.clone(), version.clone()), &self.generation, || {
                self.inner.release_imports(dist, version)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::evidence::MemoryBank;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts the questions that reach the bank behind.
    struct Counting {
        inner: MemoryBank,
        asked: AtomicUsize,
    }

    impl BankView for Counting {
        fn catalog(&self, dist: &DistName) -> Result<Option<Catalog>, BankReadError> {
            self.asked.fetch_add(1, Ordering::SeqCst);
            self.inner.catalog(dist)
        }
        fn api_presence(
            &self,
            dist: &DistName,
            apis: &[ApiPath],
        ) -> Result<Vec<Presence>, BankReadError> {
            self.asked.fetch_add(apis.len(), Ordering::SeqCst);
            self.inner.api_presence(dist, apis)
        }
        fn member_presence(&self, dist: &DistName, m: &str) -> Result<Presence, BankReadError> {
            self.asked.fetch_add(1, Ordering::SeqCst);
            self.inner.member_presence(dist, m)
        }
        fn keyword_presence(
            &self,
            dist: &DistName,
            api: &ApiPath,
            k: &str,
        ) -> Result<Presence, BankReadError> {
            self.asked.fetch_add(1, Ordering::SeqCst);
            self.inner.keyword_presence(dist, api, k)
        }
        fn import_providers(&self, top: &str) -> Result<Vec<ImportProvider>, BankReadError> {
            self.asked.fetch_add(1, Ordering::SeqCst);
            self.inner.import_providers(top)
        }
        fn release_imports(
            &self,
            dist: &DistName,
            version: &Version,
        ) -> Result<Option<Vec<String>>, BankReadError> {
            self.asked.fetch_add(1, Ordering::SeqCst);
            self.inner.release_imports(dist, version)
        }
    }

    #[test]
    fn each_question_reaches_the_bank_once_with_the_same_answer() {
        let memory = MemoryBank::default();
        let cached = CachedBank::new(Counting {
            inner: memory.clone(),
            asked: AtomicUsize::new(0),
        });
        let asked = || cached.inner.asked.load(Ordering::SeqCst);
        let dist = DistName::new("toolkit").unwrap();
        let a = ApiPath::new("toolkit.a").unwrap();
        let b = ApiPath::new("toolkit.b").unwrap();
        let first = cached
            .api_presence(&dist, std::slice::from_ref(&a))
            .unwrap();
        let both = cached.api_presence(&dist, &[b.clone(), a.clone()]).unwrap();
        assert_eq!(both[1], first[0]);
        assert_eq!(both, memory.api_presence(&dist, &[b, a.clone()]).unwrap());
        assert_eq!(asked(), 2, "a asked once, b once");
        cached.catalog(&dist).unwrap();
        cached.catalog(&dist).unwrap();
        cached.import_providers("toolkit").unwrap();
        cached.import_providers("toolkit").unwrap();
        assert_eq!(asked(), 4);
        // Once the bank is written, each question is asked again.
        cached.forget();
        cached.catalog(&dist).unwrap();
        cached
            .api_presence(&dist, std::slice::from_ref(&a))
            .unwrap();
        assert_eq!(asked(), 6);
    }
}

//! The bank shared by worker threads: one read-only [`Store`] per thread, opened on first use.
//!
//! A `Store` caches decoded path dictionaries in `Rc`s and so cannot cross threads; its
//! SQLite connection is opened read-only and takes no writer lock, so readers never wait for
//! a build (WAL mode). A `SharedBank` holds only the bank's path and an identity: it is
//! `Send + Sync` and cheap to clone, and each thread keeps its own connection to it.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use super::bank_view::{BankReadError, BankView};
use crate::bank::store::{Catalog, ImportProvider, Presence, ReleaseSet, Store, StoreError};
use crate::names::{ApiPath, DistName};
use pep508_rs::pep440_rs::Version;

/// A bank file that any number of threads read at once.
#[derive(Debug, Clone)]
pub struct SharedBank {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    path: PathBuf,
    /// Tells this bank's stores apart from other banks' in a thread's pool.
    id: u64,
}

/// A thread's open store of one bank. The weak handle lets the pool drop stores of banks
/// that no longer exist.
struct Pooled {
    bank: Weak<Inner>,
    id: u64,
    store: Store,
}

thread_local! {
    static POOL: RefCell<Vec<Pooled>> = const { RefCell::new(Vec::new()) };
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

impl SharedBank {
    /// Opens the bank at `path` once on this thread, so that a missing or foreign file is
    /// reported here rather than by the first question.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let bank = Self {
            inner: Arc::new(Inner {
                path: path.to_path_buf(),
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            }),
        };
        bank.with_store(|_| Ok(()))?;
        Ok(bank)
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Runs `read` with this thread's store of the bank, opening it if needed. The store is
    /// taken out of the pool while `read` runs, so a nested call opens a second one rather
    /// than failing.
    pub fn with_store<T>(
        &self,
        read: impl FnOnce(&Store) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let taken = POOL.with(|pool| {
            let mut pool = pool.borrow_mut();
            pool.retain(|p| p.bank.strong_count() > 0);
            let at = pool.iter().position(|p| p.id == self.inner.id);
            at.map(|i| pool.swap_remove(i))
        });
        let pooled = match taken {
            Some(p) => p,
            None => Pooled {
                bank: Arc::downgrade(&self.inner),
                id: self.inner.id,
                store: Store::open_read_only(&self.inner.path)?,
            },
        };
        // A writer may have committed since this store last read: what it cached is stale.
        pooled.store.others_wrote()?;
        let result = pooled.store.read_snapshot(read);
        POOL.with(|pool| pool.borrow_mut().push(pooled));
        result
    }
}

impl BankView for SharedBank {
    fn catalog(&self, dist: &DistName) -> Result<Option<Catalog>, BankReadError> {
        Ok(self.with_store(|store| {
            store
                .distribution_id(dist)?
                .map(|id| store.catalog(id))
                .transpose()
        })?)
    }

    fn api_presence(
        &self,
        dist: &DistName,
        apis: &[ApiPath],
    ) -> Result<Vec<Presence>, BankReadError> {
        Ok(self.with_store(|store| match store.distribution_id(dist)? {
            Some(id) => {
                let paths: Vec<&str> = apis.iter().map(ApiPath::as_str).collect();
                store.api_presence(id, &paths)
            }
            None => Ok(vec![Presence::default(); apis.len()]),
        })?)
    }

    fn member_presence(&self, dist: &DistName, member: &str) -> Result<Presence, BankReadError> {
        Ok(self.with_store(|store| match store.distribution_id(dist)? {
            Some(id) => store.member_presence(id, member),
            None => Ok(Presence::default()),
        })?)
    }

    fn keyword_presence(
        &self,
        dist: &DistName,
        api: &ApiPath,
        keyword: &str,
    ) -> Result<Presence, BankReadError> {
        Ok(self.with_store(|store| match store.distribution_id(dist)? {
            Some(id) => store.keyword_presence(id, api.as_str(), keyword),
            None => Ok(Presence::default()),
        })?)
    }

    fn signature_alike(
        &self,
        dist: &DistName,
        api: &ApiPath,
        version: &Version,
    ) -> Result<ReleaseSet, BankReadError> {
        Ok(self.with_store(|store| {
            let Some(id) = store.distribution_id(dist)? else {
                return Ok(ReleaseSet::new());
            };
            let Some(release) = store.catalog(id)?.find(version).map(|r| r.slot) else {
                return Ok(ReleaseSet::new());
            };
            let mut alike = store.signature_history(id, api.as_str())?.alike(release);
            alike.insert(release);
            Ok(alike)
        })?)
    }

    fn import_providers(&self, top_level: &str) -> Result<Vec<ImportProvider>, BankReadError> {
        Ok(self.with_store(|store| store.import_providers(top_level))?)
    }

    fn release_imports(
        &self,
        dist: &DistName,
        version: &Version,
    ) -> Result<Option<Vec<String>>, BankReadError> {
        Ok(self.with_store(|store| {
            let Some(id) = store.distribution_id(dist)? else {
                return Ok(None);
            };
            match store.catalog(id)?.find(version) {
                Some(release) => store.import_time(id, release.slot),
                None => Ok(None),
            }
        })?)
    }
}

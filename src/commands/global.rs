//! What every command shares, as plain values: where the bank and the caches are, the index
//! and how it is reached, the disk budget; and the library objects a command opens from them.

use std::path::{Path, PathBuf};

use crate::bank::store::LockPolicy;
use crate::pypi::{EventSink, IndexClient, IndexConfig, PypiError, PYPI_SIMPLE};
use crate::python::{Installer, Interpreter, Tools};
use crate::resolve::options::InferOptions;
use crate::resolve::session::{InferSession, SessionPlace};

use super::CommandError;
use crate::verify::{DiskBudget, InstallerCache};

/// Where, under the cache directory, nbenv keeps the environments it builds.
pub const ENVS_DIR: &str = "envs";

/// Where, under the cache directory, nbenv installs the tools it needs (uv, virtualenv).
pub const TOOLS_DIR: &str = "tools";

/// The options and environment variables every command reads, resolved once.
#[derive(Clone)]
pub struct GlobalSettings {
    /// The API bank (an SQLite file).
    pub bank: PathBuf,
    /// nbenv's cache directory (absolute: it is handed to processes started elsewhere).
    pub cache_dir: PathBuf,
    /// The index, the cache of its pages and files, and how requests are made.
    pub index: IndexConfig,
    /// Who is told of each request, retry and cache hit, if anyone.
    pub events: Option<EventSink>,
    /// What a writer of the bank does when another holds it.
    pub bank_lock: LockPolicy,
    /// What built environments and nbenv's installer caches may hold together.
    pub env_cache_budget: u64,
}

impl GlobalSettings {
    pub fn offline(&self) -> bool {
        self.index.offline
    }

    pub fn index_url(&self) -> &str {
        &self.index.index_url
    }

    /// The index installers are given, where it is not PyPI (a private index works for them
    /// too).
    pub fn index_url_if_not_pypi(&self) -> Option<String> {
        (self.index_url() != PYPI_SIMPLE).then(|| self.index_url().to_string())
    }

    pub fn index_client(&self) -> Result<IndexClient, PypiError> {
        IndexClient::new(self.index.clone(), self.events.clone())
    }

    /// Where an inference session works.
    pub fn session_place(&self) -> SessionPlace {
        SessionPlace {
            bank: self.bank.clone(),
            tools_dir: self.cache_dir.join(TOOLS_DIR),
            installer_index: self.index_url_if_not_pypi(),
            offline: self.offline(),
            installed: crate::python::found_by_name().to_vec(),
            lock: self.bank_lock.clone(),
        }
    }

    /// The inference session these settings and `options` describe.
    pub fn open_session(&self, options: &InferOptions) -> Result<InferSession, CommandError> {
        Ok(InferSession::open(
            self.session_place(),
            self.index_client()?,
            options,
        )?)
    }

    /// nbenv's tools (uv, old virtualenv), kept in `<cache>/tools` and installed from the
    /// index nbenv uses, with the newest suitable interpreter among `interpreters`.
    pub fn tools(&self, interpreters: &[Interpreter]) -> Tools {
        Tools::new(
            self.cache_dir.join(TOOLS_DIR),
            Some(self.index_url().to_string()),
            interpreters,
        )
    }

    /// uv's and pip's own caches, inside nbenv's cache directory rather than the machine's,
    /// unless the user chose theirs: a day of restores grew `~/.cache/uv` to tens of GB, and
    /// nbenv's cache is what its budget and `cache prune` look after. Call it once, before
    /// any thread starts, so that every installer nbenv runs inherits it.
    pub fn confine_installer_caches(&self) {
        for (var, sub) in [("UV_CACHE_DIR", "uv"), ("PIP_CACHE_DIR", "pip")] {
            if std::env::var_os(var).is_none() {
                std::env::set_var(var, self.cache_dir.join(sub));
            }
        }
    }

    /// Where environments are kept.
    pub fn envs(&self) -> PathBuf {
        self.cache_dir.join(ENVS_DIR)
    }

    /// One budget for what verification leaves on disk: the environments under `envs` and
    /// nbenv's own installer caches (`<cache>/uv`, `<cache>/pip`); a cache the user chose is
    /// not nbenv's to count or prune. uv's cache is pruned and cleaned by the uv that
    /// installs (`installer`).
    pub fn disk_budget(&self, envs: &Path, installer: &Installer) -> DiskBudget {
        DiskBudget {
            envs: envs.to_path_buf(),
            caches: InstallerCache::under(&self.cache_dir),
            bytes: self.env_cache_budget,
            uv: match installer {
                Installer::Uv(uv) => Some(uv.clone()),
                Installer::Pip => None,
            },
            largest_seen: Default::default(),
            reserved: Default::default(),
        }
    }
}

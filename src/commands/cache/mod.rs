//! `cache`: what nbenv keeps on disk, part by part against its budgets, and removing what
//! can be fetched or made again.

mod installer;
mod part;
mod survey;

pub use installer::Tidied;
pub use part::{Part, PartSize};

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::pypi::{cache_versioned_root, remove_entry, Tally};

use super::global::ENVS_DIR;
use super::GlobalSettings;
use part::Found;

/// What the cache holds, against its budgets.
#[derive(Debug, Serialize)]
pub struct CacheInfo {
    pub cache_dir: PathBuf,
    /// What the index cache may keep, and what of it the budget counts (archives, byte
    /// ranges and core metadata).
    #[serde(rename = "budget_bytes")]
    pub budget: u64,
    #[serde(rename = "budgeted_bytes")]
    pub budgeted: u64,
    /// What the environments and nbenv's installer caches may hold together, what they hold
    /// (each file once, however many hold it), and the bytes hard-linked between them.
    #[serde(rename = "environments_budget_bytes")]
    pub env_budget: u64,
    #[serde(rename = "environments_counted_bytes")]
    pub env_counted: u64,
    #[serde(rename = "environments_shared_bytes")]
    pub env_shared: u64,
    /// The cache uv uses when the user chose it (`UV_CACHE_DIR`): not nbenv's.
    pub users_uv_cache: Option<PathBuf>,
    pub parts: Vec<PartSize>,
}

/// What `cache prune` removed (or, with `dry_run`, would remove).
#[derive(Debug, Serialize)]
pub struct Pruned {
    pub cache_dir: PathBuf,
    pub dry_run: bool,
    pub removed: Vec<PartSize>,
    #[serde(rename = "freed_bytes")]
    pub freed: u64,
    #[serde(rename = "installer_caches")]
    pub tidied: Vec<Tidied>,
}

/// The directory beside the bank, where killed runs leave temporary files.
fn bank_dir(global: &GlobalSettings) -> PathBuf {
    match global.bank.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

pub fn info(global: &GlobalSettings) -> CacheInfo {
    let root = &global.cache_dir;
    let (parts, budgeted_envs) = survey::survey(root, &bank_dir(global));
    CacheInfo {
        cache_dir: root.clone(),
        budget: global.index.cache_budget,
        budgeted: survey::cache_budgeted(&parts),
        env_budget: global.env_cache_budget,
        env_counted: budgeted_envs.counted(),
        env_shared: survey::shared_between(&parts, &budgeted_envs),
        users_uv_cache: installer::users_uv_cache(root),
        parts: parts.iter().map(PartSize::of).collect(),
    }
}

/// Removes what can be fetched or made again: with `all`, everything nbenv has cached; with
/// `dry_run`, nothing, saying what would go.
pub fn prune(global: &GlobalSettings, all: bool, dry_run: bool) -> Pruned {
    let root = &global.cache_dir;
    let (parts, _) = survey::survey(root, &bank_dir(global));
    let envs = root.join(ENVS_DIR);
    let mut removed = Vec::new();
    let mut freed = 0u64;
    for found in &parts {
        if !found.part.pruned(all) || found.tally.entries == 0 {
            continue;
        }
        let tally = remove_part(found, &envs, dry_run);
        freed += tally.bytes;
        removed.push(PartSize {
            entries: tally.entries,
            bytes: tally.bytes,
            ..PartSize::of(found)
        });
    }
    // Empty shard directories are left by what went; they cost nothing but clutter.
    if !dry_run {
        remove_empty_dirs(&cache_versioned_root(root));
    }
    let tidied = if dry_run {
        Vec::new()
    } else {
        installer::tidy_installer_caches(root, all)
    };
    Pruned {
        cache_dir: root.clone(),
        dry_run,
        removed,
        freed,
        tidied,
    }
}

/// Removes a part's paths (none with `dry_run`), and tallies what went.
fn remove_part(found: &Found, envs: &Path, dry_run: bool) -> Tally {
    let mut tally = Tally::default();
    for (path, bytes) in found.paths.iter().zip(survey::sizes(found)) {
        // An environment goes with its kernel specs, and not while a run uses it.
        let gone = match found.part {
            _ if dry_run => true,
            Part::Environments => crate::verify::remove_unused(envs, path),
            // An unfinished build under its environment's lock, lest a run start it again.
            Part::Leftovers if path.parent() == Some(envs) => {
                crate::verify::remove_unfinished(envs, path)
            }
            Part::Leftovers | Part::BankLeftovers => crate::leftover::remove(path),
            _ => remove_entry(path),
        };
        if gone {
            tally.add(bytes);
        }
    }
    tally
}

fn remove_empty_dirs(dir: &Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            remove_empty_dirs(&entry.path());
            // Fails unless empty, which is the point.
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

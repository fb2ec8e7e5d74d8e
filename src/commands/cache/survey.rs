//! Everything nbenv keeps on disk, found part by part.

use std::path::Path;

use crate::bank::indexer::SUMMARY_CACHE_FILE;
use crate::pypi::{cache_entries, dir_size, EntryKind};
use crate::verify::{CachedInstaller, DiskSurvey, Holding, InstallerCache};

use super::super::global::{ENVS_DIR, TOOLS_DIR};
use super::part::{Found, Part};

/// Everything nbenv keeps: the cache directory's parts, scratch venvs, what killed runs left
/// (in the cache, and beside the bank), the environments and the installer caches; and the
/// last two file by file, as their budget counts them.
pub fn survey(root: &Path, bank_dir: &Path) -> (Vec<Found>, DiskSurvey) {
    let (mut parts, temps) = index_parts(root);
    let (current, old) = summary_caches(root);
    parts.push(current);
    parts.push(old);
    parts.push(temps);
    parts.push(leftovers(root));
    parts.push(bank_leftovers(bank_dir));
    let (in_use, abandoned) = scratch_venvs();
    parts.push(in_use);
    parts.push(abandoned);
    parts.push(installed_tools(root));
    let budgeted = budgeted_survey(root);
    parts.push(environments(&budgeted));
    parts.extend(installer_caches(root, &budgeted));
    (parts, budgeted)
}

/// The index cache, kind by kind; and apart, the temporary files killed writes left in it.
fn index_parts(root: &Path) -> (Vec<Found>, Found) {
    let mut parts: Vec<Found> = Vec::new();
    let mut temps = Found::new(Part::LeftoverTempFiles);
    for kind in EntryKind::ALL {
        let mut found = Found::new(Part::of_kind(kind));
        for entry in cache_entries(root, kind) {
            // write_atomic's temporary files, left by a process that was killed mid-write.
            let is_temp = entry
                .path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".tmp"));
            if is_temp {
                temps.add(entry.path, entry.bytes);
            } else {
                found.add(entry.path, entry.bytes);
            }
        }
        parts.push(found);
    }
    (parts, temps)
}

/// The summary cache this nbenv uses, and those older ones left behind.
fn summary_caches(root: &Path) -> (Found, Found) {
    let mut current = Found::new(Part::SummaryCache);
    let mut old = Found::new(Part::OldSummaryCaches);
    for entry in std::fs::read_dir(root).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with("summaries-v") {
            continue;
        }
        let bytes = entry.metadata().map_or(0, |m| m.len());
        // The -wal and -shm files go with their database.
        if name.starts_with(SUMMARY_CACHE_FILE) {
            current.add(entry.path(), bytes);
        } else {
            old.add(entry.path(), bytes);
        }
    }
    (current, old)
}

/// Unfinished builds of environments, and tools half installed, whose owner is gone: a
/// live run's are its own (see `crate::leftover`).
fn leftovers(root: &Path) -> Found {
    let mut left = Found::new(Part::Leftovers);
    let builds = crate::verify::unfinished_builds(&root.join(ENVS_DIR));
    let tools = crate::leftover::temporaries_in(&root.join(TOOLS_DIR));
    for t in builds.into_iter().chain(tools).filter(|t| !t.in_use) {
        let bytes = path_size(&t.path);
        left.add(t.path, bytes);
    }
    left
}

/// What killed runs left beside the bank, whose owner is gone.
fn bank_leftovers(bank_dir: &Path) -> Found {
    let mut beside_bank = Found::new(Part::BankLeftovers);
    for t in crate::leftover::temporaries_in(bank_dir) {
        if !t.in_use {
            let bytes = path_size(&t.path);
            beside_bank.add(t.path, bytes);
        }
    }
    beside_bank.location = Some(bank_dir.to_path_buf());
    beside_bank
}

/// The scratch venvs in the temporary directory: those a live run uses, and the abandoned.
fn scratch_venvs() -> (Found, Found) {
    let temp = std::env::temp_dir();
    let mut in_use = Found::new(Part::ScratchVenvsInUse);
    let mut abandoned = Found::new(Part::AbandonedScratchVenvs);
    for dir in crate::python::scratch_dirs(&temp) {
        let bytes = dir_size(&dir.path);
        if dir.in_use {
            in_use.add(dir.path, bytes);
        } else {
            abandoned.add(dir.path, bytes);
        }
    }
    in_use.location = Some(temp.clone());
    abandoned.location = Some(temp);
    (in_use, abandoned)
}

/// uv and virtualenv, when nbenv installed them itself (see `crate::python::Tools`).
fn installed_tools(root: &Path) -> Found {
    let tools = root.join(TOOLS_DIR);
    let mut installed = Found::new(Part::InstalledTools);
    if tools.is_dir() {
        installed.add(tools.clone(), dir_size(&tools));
    }
    installed
}

/// The environments, their bytes as the budget counts them.
fn environments(budgeted: &DiskSurvey) -> Found {
    let mut envs = Found::new(Part::Environments);
    for holder in budgeted.holders() {
        if let Holding::Environment(env) = &holder.holding {
            envs.add(env.clone(), 0);
        }
    }
    // Each file once: uv links the same files into many environments.
    envs.tally.bytes = budgeted.bytes_of(|h| matches!(h, Holding::Environment(_)));
    envs
}

/// nbenv's own installer caches, one part each, their bytes as the budget counts them.
fn installer_caches(root: &Path, budgeted: &DiskSurvey) -> Vec<Found> {
    let mut parts = Vec::new();
    for cache in InstallerCache::under(root) {
        let part = match cache.installer {
            CachedInstaller::Uv => Part::UvCache,
            CachedInstaller::Pip => Part::PipCache,
        };
        let mut found = Found::new(part);
        if cache.dir.is_dir() {
            let bytes =
                budgeted.bytes_of(|h| matches!(h, Holding::InstallerCache(c) if *c == cache));
            found.add(cache.dir.clone(), bytes);
        }
        found.location = Some(cache.dir);
        parts.push(found);
    }
    parts
}

/// What the environments budget counts: the environments and nbenv's installer caches.
fn budgeted_survey(root: &Path) -> DiskSurvey {
    DiskSurvey::read(&root.join(ENVS_DIR), &InstallerCache::under(root))
}

/// The bytes the cache's budget counts: archives, byte ranges and core metadata.
pub fn cache_budgeted(parts: &[Found]) -> u64 {
    parts
        .iter()
        .filter(|p| {
            matches!(
                p.part,
                Part::Archives | Part::ByteRanges | Part::CoreMetadata
            )
        })
        .map(|p| p.tally.bytes)
        .sum()
}

/// The bytes hard-linked between the environments and installer caches, each part having
/// counted them.
pub fn shared_between(parts: &[Found], budgeted_envs: &DiskSurvey) -> u64 {
    let held = budgeted_envs.bytes_of(|_| true);
    parts
        .iter()
        .filter(|p| matches!(p.part, Part::Environments | Part::UvCache | Part::PipCache))
        .map(|p| p.tally.bytes)
        .sum::<u64>()
        .saturating_sub(held)
}

/// The size of each of a part's paths, in order.
pub fn sizes(found: &Found) -> Vec<u64> {
    if found.paths.len() == 1 {
        return vec![found.tally.bytes];
    }
    found.paths.iter().map(|p| path_size(p)).collect()
}

/// The bytes of a file, or of all files under a directory.
pub fn path_size(path: &Path) -> u64 {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => dir_size(path),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

//! `nbenv cache`: what nbenv keeps on disk, and removing what can be fetched or made again.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, Subcommand};
use nbenv::bank::indexer::SUMMARY_CACHE_FILE;
use nbenv::pypi::{cache_entries, cache_versioned_root, dir_size, remove_entry, EntryKind, Tally};
use nbenv::python::DieWithNbenv;
use nbenv::verify::{tidy_cache, CacheStep, CachedInstaller, DiskSurvey, Holding, InstallerCache};
use serde::Serialize;

use super::args::{Format, FormatArg};
use super::context::Global;
use super::context::TOOLS_DIR;
use super::index::human_size;
use super::output::{count, table, write_json};

#[derive(Debug, Args)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub command: CacheCommand,
}

#[derive(Debug, Subcommand)]
pub enum CacheCommand {
    /// What the cache holds, part by part, against its budget.
    Info {
        #[command(flatten)]
        format: FormatArg,
    },
    /// Remove archives, byte ranges, old summary caches and abandoned scratch venvs.
    ///
    /// What the bank needs is in the bank: all of this can be fetched or made again. Index
    /// pages, the summary cache, the tools nbenv installed and the environments (with the
    /// Jupyter kernels nbenv registered for them) stay (they make the next build cheap)
    /// unless `--all`. nbenv's own uv cache is pruned with `uv cache prune`, which keeps what
    /// uv still uses, and cleaned with `--all`; a cache the user chose is never touched.
    Prune {
        /// Also remove index pages, the summary cache, installed tools, environments and
        /// nbenv's installer caches: everything nbenv has cached.
        #[arg(long)]
        all: bool,
        /// Say what would be removed, and remove nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        format: FormatArg,
    },
}

/// One part of what nbenv keeps on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Part {
    IndexPages,
    CompactIndexPages,
    Archives,
    ByteRanges,
    CoreMetadata,
    FileLengths,
    SummaryCache,
    OldSummaryCaches,
    LeftoverTempFiles,
    Leftovers,
    BankLeftovers,
    ScratchVenvsInUse,
    AbandonedScratchVenvs,
    InstalledTools,
    Environments,
    UvCache,
    PipCache,
}

impl Part {
    fn label(self) -> &'static str {
        match self {
            Part::IndexPages => "index pages",
            Part::CompactIndexPages => "compact index pages",
            Part::Archives => "archives",
            Part::ByteRanges => "byte ranges",
            Part::CoreMetadata => "core metadata",
            Part::FileLengths => "file lengths",
            Part::SummaryCache => "summary cache",
            Part::OldSummaryCaches => "old summary caches",
            Part::LeftoverTempFiles => "left-over temporary files",
            Part::Leftovers => "left by killed runs",
            Part::BankLeftovers => "left beside the bank",
            Part::ScratchVenvsInUse => "scratch venvs in use",
            Part::AbandonedScratchVenvs => "abandoned scratch venvs",
            Part::InstalledTools => "tools nbenv installed",
            Part::Environments => "environments (verify, restore)",
            Part::UvCache => "uv's cache (nbenv's)",
            Part::PipCache => "pip's cache (nbenv's)",
        }
    }

    fn of_kind(kind: EntryKind) -> Part {
        match kind {
            EntryKind::Pages => Part::IndexPages,
            EntryKind::Compact => Part::CompactIndexPages,
            EntryKind::Files => Part::Archives,
            EntryKind::Ranges => Part::ByteRanges,
            EntryKind::Metadata => Part::CoreMetadata,
            EntryKind::Lengths => Part::FileLengths,
        }
    }

    /// Removed by a plain `prune`; the rest only with `--all`, or never (in use).
    fn pruned(self, all: bool) -> bool {
        match self {
            Part::IndexPages
            | Part::CompactIndexPages
            | Part::SummaryCache
            | Part::InstalledTools
            | Part::Environments => all,
            // Pruned by their installer (`uv cache prune`), and cleaned with `--all`.
            Part::ScratchVenvsInUse | Part::UvCache | Part::PipCache => false,
            _ => true,
        }
    }
}

/// A part with the paths it is made of.
struct Found {
    part: Part,
    tally: Tally,
    paths: Vec<PathBuf>,
    /// Where it is, when not in the cache directory.
    location: Option<PathBuf>,
}

impl Found {
    fn new(part: Part) -> Self {
        Self {
            part,
            tally: Tally::default(),
            paths: Vec::new(),
            location: None,
        }
    }

    fn add(&mut self, path: PathBuf, bytes: u64) {
        self.tally.add(bytes);
        self.paths.push(path);
    }
}

pub fn run(global: &Global, args: &CacheArgs) -> Result<()> {
    let root = global.cache_dir();
    let bank = global.bank();
    let bank_dir = match bank.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let budget = global.cache_budget();
    match &args.command {
        CacheCommand::Info { format } => info(
            &root,
            &bank_dir,
            budget,
            global.env_cache_budget(),
            format.format,
        ),
        CacheCommand::Prune {
            all,
            dry_run,
            format,
        } => prune(&root, &bank_dir, *all, *dry_run, format.format),
    }
}

/// Everything nbenv keeps: the cache directory's parts, scratch venvs, what killed runs left
/// (in the cache, and beside the bank), the environments and the installer caches; and the
/// last two file by file, as their budget counts them.
fn survey(root: &Path, bank_dir: &Path) -> (Vec<Found>, DiskSurvey) {
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
/// live run's are its own (see `nbenv::leftover`).
fn leftovers(root: &Path) -> Found {
    let mut left = Found::new(Part::Leftovers);
    let builds = nbenv::verify::unfinished_builds(&root.join(super::verify::ENVS_DIR));
    let tools = nbenv::leftover::temporaries_in(&root.join(TOOLS_DIR));
    for t in builds.into_iter().chain(tools).filter(|t| !t.in_use) {
        let bytes = path_size(&t.path);
        left.add(t.path, bytes);
    }
    left
}

/// What killed runs left beside the bank, whose owner is gone.
fn bank_leftovers(bank_dir: &Path) -> Found {
    let mut beside_bank = Found::new(Part::BankLeftovers);
    for t in nbenv::leftover::temporaries_in(bank_dir) {
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
    for dir in nbenv::python::scratch_dirs(&temp) {
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

/// uv and virtualenv, when nbenv installed them itself (see `nbenv::python::Tools`).
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
    DiskSurvey::read(
        &root.join(super::verify::ENVS_DIR),
        &InstallerCache::under(root),
    )
}

/// The uv that installs for nbenv (`NBENV_UV`, else `uv` on PATH, else the one nbenv
/// installed) and the cache directory it uses: nbenv's own (`<cache>/uv`) unless the user
/// set `UV_CACHE_DIR`.
fn uv_cache(root: &Path) -> Option<(PathBuf, PathBuf)> {
    let candidates = match std::env::var_os("NBENV_UV").filter(|v| !v.is_empty()) {
        Some(uv) => vec![PathBuf::from(uv)],
        None => vec![
            PathBuf::from("uv"),
            root.join(TOOLS_DIR).join("bin").join("uv"),
        ],
    };
    candidates.into_iter().find_map(|uv| {
        let out = std::process::Command::new(&uv)
            .args(["cache", "dir"])
            .die_with_nbenv()
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        (!dir.as_os_str().is_empty()).then_some((uv, dir))
    })
}

#[derive(Serialize)]
struct PartJson {
    part: Part,
    entries: u64,
    bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    location: Option<PathBuf>,
}

fn part_json(found: &Found) -> PartJson {
    PartJson {
        part: found.part,
        entries: found.tally.entries,
        bytes: found.tally.bytes,
        location: found.location.clone(),
    }
}

fn info(root: &Path, bank_dir: &Path, budget: u64, env_budget: u64, format: Format) -> Result<()> {
    let (parts, budgeted_envs) = survey(root, bank_dir);
    let budgeted = cache_budgeted(&parts);
    // Environments and installer caches: each file once, however many hold it.
    let counted = budgeted_envs.counted();
    let shared = shared_between(&parts, &budgeted_envs);
    let users_uv = users_uv_cache(root);
    let mut out = super::printer::stdout();
    if format == Format::Json {
        let json: Vec<PartJson> = parts.iter().map(part_json).collect();
        return write_json(
            &mut out,
            &serde_json::json!({
                "cache_dir": root,
                "budget_bytes": budget,
                "budgeted_bytes": budgeted,
                "environments_budget_bytes": env_budget,
                "environments_counted_bytes": counted,
                "environments_shared_bytes": shared,
                "users_uv_cache": users_uv,
                "parts": json,
            }),
        );
    }
    write_parts_table(&mut out, root, &parts)?;
    writeln!(
        out,
        "archives, byte ranges and core metadata: {} of a {} budget (least recently used go first)",
        human_size(budgeted),
        human_size(budget)
    )?;
    writeln!(
        out,
        "environments, uv's and pip's caches: {} of a {} budget (NBENV_ENV_CACHE_SIZE; {} hard-linked between them counted once; least recently used environments go first, then the caches)",
        human_size(counted),
        human_size(env_budget),
        human_size(shared)
    )?;
    if let Some(dir) = users_uv {
        writeln!(
            out,
            "uv uses the cache in {} (UV_CACHE_DIR): not nbenv's, neither counted nor pruned",
            dir.display()
        )?;
    }
    Ok(())
}

/// The bytes the cache's budget counts: archives, byte ranges and core metadata.
fn cache_budgeted(parts: &[Found]) -> u64 {
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
fn shared_between(parts: &[Found], budgeted_envs: &DiskSurvey) -> u64 {
    let held = budgeted_envs.bytes_of(|_| true);
    parts
        .iter()
        .filter(|p| matches!(p.part, Part::Environments | Part::UvCache | Part::PipCache))
        .map(|p| p.tally.bytes)
        .sum::<u64>()
        .saturating_sub(held)
}

/// The cache uv uses when the user chose it (`UV_CACHE_DIR`): not nbenv's.
fn users_uv_cache(root: &Path) -> Option<PathBuf> {
    uv_cache(root)
        .map(|(_, dir)| dir)
        .filter(|dir| !same_dir(dir, &root.join("uv")))
}

/// The cache's directory, then a table of its parts: entries, size, and where when elsewhere.
fn write_parts_table(out: &mut impl Write, root: &Path, parts: &[Found]) -> Result<()> {
    writeln!(out, "nbenv's cache at {}", root.display())?;
    let mut rows = vec![vec![
        "PART".into(),
        "ENTRIES".into(),
        "SIZE".into(),
        String::new(),
    ]];
    for p in parts {
        rows.push(vec![
            p.part.label().to_string(),
            p.tally.entries.to_string(),
            human_size(p.tally.bytes),
            p.location
                .as_ref()
                .map_or(String::new(), |l| format!("in {}", l.display())),
        ]);
    }
    write!(out, "{}", table(&rows, "", &[1, 2]))?;
    Ok(())
}

/// Whether two paths name one directory (both may be missing).
fn same_dir(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon(a) == canon(b)
}

fn prune(root: &Path, bank_dir: &Path, all: bool, dry_run: bool, format: Format) -> Result<()> {
    let (parts, _) = survey(root, bank_dir);
    let envs = root.join(super::verify::ENVS_DIR);
    let mut removed: Vec<PartJson> = Vec::new();
    let mut freed = 0u64;
    for found in &parts {
        if !found.part.pruned(all) || found.tally.entries == 0 {
            continue;
        }
        let tally = remove_part(found, &envs, dry_run);
        freed += tally.bytes;
        removed.push(PartJson {
            part: found.part,
            entries: tally.entries,
            bytes: tally.bytes,
            location: found.location.clone(),
        });
    }
    // Empty shard directories are left by what went; they cost nothing but clutter.
    if !dry_run {
        remove_empty_dirs(&cache_versioned_root(root));
    }
    let tidied = if dry_run {
        Vec::new()
    } else {
        tidy_installer_caches(root, all)
    };
    let mut out = super::printer::stdout();
    if format == Format::Json {
        return write_prune_json(&mut out, root, dry_run, &removed, freed, &tidied);
    }
    write_removed(&mut out, root, dry_run, &removed)?;
    write_tidied(&mut out, &tidied)?;
    writeln!(
        out,
        "{}: {}",
        if dry_run { "would free" } else { "freed" },
        human_size(freed)
    )?;
    Ok(())
}

/// Removes a part's paths (none with `dry_run`), and tallies what went.
fn remove_part(found: &Found, envs: &Path, dry_run: bool) -> Tally {
    let mut tally = Tally::default();
    for (path, bytes) in found.paths.iter().zip(sizes(found)) {
        // An environment goes with its kernel specs, and not while a run uses it.
        let gone = match found.part {
            _ if dry_run => true,
            Part::Environments => nbenv::verify::remove_unused(envs, path),
            // An unfinished build under its environment's lock, lest a run start it again.
            Part::Leftovers if path.parent() == Some(envs) => {
                nbenv::verify::remove_unfinished(envs, path)
            }
            Part::Leftovers | Part::BankLeftovers => nbenv::leftover::remove(path),
            _ => remove_entry(path),
        };
        if gone {
            tally.add(bytes);
        }
    }
    tally
}

/// nbenv's own installer caches, by their installer: pruned (uv), or with `--all`
/// cleaned; never a cache the user chose. Each with what was done and the bytes it freed.
fn tidy_installer_caches(root: &Path, all: bool) -> Vec<(InstallerCache, CacheStep, u64)> {
    let mut tidied: Vec<(InstallerCache, CacheStep, u64)> = Vec::new();
    let uv = uv_cache(root).map(|(uv, _)| uv);
    for cache in InstallerCache::under(root)
        .into_iter()
        .filter(|c| c.dir.is_dir())
    {
        let before = dir_size(&cache.dir);
        if let Some(step) = tidy_cache(&cache, uv.as_deref(), all) {
            let after = if cache.dir.exists() {
                dir_size(&cache.dir)
            } else {
                0
            };
            tidied.push((cache, step, before.saturating_sub(after)));
        }
    }
    tidied
}

/// What `prune --format json` prints: the parts removed, and the installer caches tidied.
fn write_prune_json(
    out: &mut impl Write,
    root: &Path,
    dry_run: bool,
    removed: &[PartJson],
    freed: u64,
    tidied: &[(InstallerCache, CacheStep, u64)],
) -> Result<()> {
    write_json(
        out,
        &serde_json::json!({
            "cache_dir": root,
            "dry_run": dry_run,
            "removed": removed,
            "freed_bytes": freed,
            "installer_caches": tidied.iter().map(|(cache, step, bytes)| serde_json::json!({
                "installer": cache.installer,
                "dir": cache.dir,
                "done": match step {
                    CacheStep::Pruned => "pruned",
                    CacheStep::Cleaned => "cleaned",
                    CacheStep::Failed(_) => "failed",
                },
                "freed_bytes": bytes,
            })).collect::<Vec<_>>(),
        }),
    )
}

/// A line for each part removed (or that would be), or one saying there was nothing.
fn write_removed(
    out: &mut impl Write,
    root: &Path,
    dry_run: bool,
    removed: &[PartJson],
) -> Result<()> {
    let verb = if dry_run { "would remove" } else { "removed" };
    if removed.is_empty() {
        writeln!(out, "nothing to remove in {}", root.display())?;
    }
    for r in removed {
        writeln!(
            out,
            "{verb} {}: {}, {}",
            r.part.label(),
            count(r.entries as usize, "entry", "entries"),
            human_size(r.bytes)
        )?;
    }
    Ok(())
}

/// A line for each installer cache: pruned or cleaned and what that freed, or why not.
fn write_tidied(out: &mut impl Write, tidied: &[(InstallerCache, CacheStep, u64)]) -> Result<()> {
    for (cache, step, bytes) in tidied {
        let which = match cache.installer {
            CachedInstaller::Uv => "uv's cache",
            CachedInstaller::Pip => "pip's cache",
        };
        let dir = cache.dir.display();
        match step {
            CacheStep::Pruned => writeln!(out, "pruned {which} in {dir}: {}", human_size(*bytes))?,
            CacheStep::Cleaned => {
                writeln!(out, "cleaned {which} in {dir}: {}", human_size(*bytes))?
            }
            CacheStep::Failed(why) => writeln!(
                out,
                "{which} in {dir} could not be pruned, and was left as it was: {why}"
            )?,
        }
    }
    Ok(())
}

/// The size of each of a part's paths, in order.
fn sizes(found: &Found) -> Vec<u64> {
    if found.paths.len() == 1 {
        return vec![found.tally.bytes];
    }
    found.paths.iter().map(|p| path_size(p)).collect()
}

/// The bytes of a file, or of all files under a directory.
fn path_size(path: &Path) -> u64 {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => dir_size(path),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
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

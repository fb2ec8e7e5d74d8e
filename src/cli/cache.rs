//! `nbenv cache`: what nbenv keeps on disk, and removing what can be fetched or made again.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;
use clap::{Args, Subcommand};
use nbenv::bank::indexer::SUMMARY_CACHE_FILE;
use nbenv::pypi::{cache_entries, cache_versioned_root, dir_size, remove_entry, EntryKind, Tally};
use serde::Serialize;

use super::args::{Format, FormatArg, GlobalArgs};
use super::context::{self, TOOLS_DIR};
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
    /// pages, the summary cache and the tools nbenv installed stay (they make the next build
    /// cheap) unless `--all`. uv's cache is pruned with `uv cache prune`, which keeps what uv
    /// still uses.
    Prune {
        /// Also remove index pages, the summary cache and installed tools: everything nbenv
        /// has cached.
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
    ScratchVenvsInUse,
    AbandonedScratchVenvs,
    InstalledTools,
    Environments,
    UvCache,
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
            Part::ScratchVenvsInUse => "scratch venvs in use",
            Part::AbandonedScratchVenvs => "abandoned scratch venvs",
            Part::InstalledTools => "tools nbenv installed",
            Part::Environments => "environments (verify, restore)",
            Part::UvCache => "uv's cache",
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
            Part::ScratchVenvsInUse | Part::UvCache => false,
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

pub fn run(global: &GlobalArgs, args: &CacheArgs) -> Result<()> {
    let root = context::cache_dir(global);
    let budget = global.cache_budget();
    match &args.command {
        CacheCommand::Info { format } => {
            info(&root, budget, global.env_cache_budget(), format.format)
        }
        CacheCommand::Prune {
            all,
            dry_run,
            format,
        } => prune(&root, *all, *dry_run, format.format),
    }
}

/// Everything nbenv keeps: the cache directory's parts, scratch venvs, uv's cache.
fn survey(root: &Path) -> Vec<Found> {
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
    parts.push(current);
    parts.push(old);
    parts.push(temps);
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
    parts.push(in_use);
    parts.push(abandoned);
    // uv and virtualenv, when nbenv installed them itself (see `nbenv::python::Tools`).
    let tools = root.join(TOOLS_DIR);
    let mut installed = Found::new(Part::InstalledTools);
    if tools.is_dir() {
        installed.add(tools.clone(), dir_size(&tools));
    }
    parts.push(installed);
    let mut envs = Found::new(Part::Environments);
    for env in nbenv::verify::cached_environments(&root.join(super::verify::ENVS_DIR)) {
        envs.add(env.root, env.bytes);
    }
    parts.push(envs);
    if let Some((_, dir)) = uv_cache(root) {
        let mut found = Found::new(Part::UvCache);
        found.add(dir.clone(), dir_size(&dir));
        found.location = Some(dir);
        parts.push(found);
    }
    parts
}

/// The uv that installs for nbenv (`NBENV_UV`, else `uv` on PATH, else the one nbenv
/// installed) and its cache directory.
fn uv_cache(root: &Path) -> Option<(PathBuf, PathBuf)> {
    let candidates = match std::env::var_os("NBENV_UV").filter(|v| !v.is_empty()) {
        Some(uv) => vec![PathBuf::from(uv)],
        None => vec![
            PathBuf::from("uv"),
            root.join(TOOLS_DIR).join("bin").join("uv"),
        ],
    };
    candidates.into_iter().find_map(|uv| {
        let out = Command::new(&uv).args(["cache", "dir"]).output().ok()?;
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

fn info(root: &Path, budget: u64, env_budget: u64, format: Format) -> Result<()> {
    let parts = survey(root);
    let budgeted: u64 = parts
        .iter()
        .filter(|p| {
            matches!(
                p.part,
                Part::Archives | Part::ByteRanges | Part::CoreMetadata
            )
        })
        .map(|p| p.tally.bytes)
        .sum();
    let mut out = std::io::stdout().lock();
    if format == Format::Json {
        let json: Vec<PartJson> = parts.iter().map(part_json).collect();
        return write_json(
            &mut out,
            &serde_json::json!({
                "cache_dir": root,
                "budget_bytes": budget,
                "budgeted_bytes": budgeted,
                "environments_budget_bytes": env_budget,
                "parts": json,
            }),
        );
    }
    writeln!(out, "nbenv's cache at {}", root.display())?;
    let mut rows = vec![vec![
        "PART".into(),
        "ENTRIES".into(),
        "SIZE".into(),
        String::new(),
    ]];
    for p in &parts {
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
    writeln!(
        out,
        "archives, byte ranges and core metadata: {} of a {} budget (least recently used go first)",
        human_size(budgeted),
        human_size(budget)
    )?;
    let envs = parts
        .iter()
        .find(|p| p.part == Part::Environments)
        .map_or(0, |p| p.tally.bytes);
    writeln!(
        out,
        "environments: {} of a {} budget (NBENV_ENV_CACHE_SIZE; least recently used go first)",
        human_size(envs),
        human_size(env_budget)
    )?;
    Ok(())
}

fn prune(root: &Path, all: bool, dry_run: bool, format: Format) -> Result<()> {
    let parts = survey(root);
    let mut removed: Vec<PartJson> = Vec::new();
    let mut freed = 0u64;
    for found in &parts {
        if !found.part.pruned(all) || found.tally.entries == 0 {
            continue;
        }
        let mut tally = Tally::default();
        for (path, bytes) in found.paths.iter().zip(sizes(found)) {
            if dry_run || remove_entry(path) {
                tally.add(bytes);
            }
        }
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
    let uv_pruned = if dry_run {
        None
    } else {
        uv_cache(root).map(|(uv, dir)| {
            let before = dir_size(&dir);
            let ok = Command::new(uv)
                .args(["cache", "prune", "--quiet"])
                .status()
                .is_ok_and(|s| s.success());
            (ok, before.saturating_sub(dir_size(&dir)))
        })
    };
    let mut out = std::io::stdout().lock();
    if format == Format::Json {
        return write_json(
            &mut out,
            &serde_json::json!({
                "cache_dir": root,
                "dry_run": dry_run,
                "removed": removed,
                "freed_bytes": freed,
                "uv_cache_pruned": uv_pruned.map(|(ok, bytes)| serde_json::json!({"ok": ok, "freed_bytes": bytes})),
            }),
        );
    }
    let verb = if dry_run { "would remove" } else { "removed" };
    if removed.is_empty() {
        writeln!(out, "nothing to remove in {}", root.display())?;
    }
    for r in &removed {
        writeln!(
            out,
            "{verb} {}: {}, {}",
            r.part.label(),
            count(r.entries as usize, "entry", "entries"),
            human_size(r.bytes)
        )?;
    }
    if let Some((ok, bytes)) = uv_pruned {
        if ok {
            writeln!(out, "uv cache prune freed {}", human_size(bytes))?;
        } else {
            writeln!(out, "uv cache prune failed; uv's cache was left as it was")?;
        }
    }
    writeln!(
        out,
        "{}: {}",
        if dry_run { "would free" } else { "freed" },
        human_size(freed)
    )?;
    Ok(())
}

/// The size of each of a part's paths, in order.
fn sizes(found: &Found) -> Vec<u64> {
    if found.paths.len() == 1 {
        return vec![found.tally.bytes];
    }
    found
        .paths
        .iter()
        .map(|p| match std::fs::symlink_metadata(p) {
            Ok(m) if m.is_dir() => dir_size(p),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .collect()
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

//! `nbenv cache`: what nbenv keeps on disk, and removing what can be fetched or made again.

use std::io::Write;

use anyhow::Result;
use clap::{Args, Subcommand};
use nbenv::commands::cache::{self, CacheInfo, PartSize, Pruned, Tidied};
use nbenv::verify::{CacheStep, CachedInstaller};

use super::args::{Format, FormatArg};
use super::context::Global;
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

pub fn run(global: &Global, args: &CacheArgs) -> Result<()> {
    let mut out = super::printer::stdout();
    match &args.command {
        CacheCommand::Info { format } => {
            let info = cache::info(&global.settings);
            match format.format {
                // Through a value, so the keys are sorted as they always were.
                Format::Json => write_json(&mut out, &serde_json::to_value(&info)?)?,
                Format::Text => write_info(&mut out, &info)?,
            }
        }
        CacheCommand::Prune {
            all,
            dry_run,
            format,
        } => {
            let pruned = cache::prune(&global.settings, *all, *dry_run);
            match format.format {
                Format::Json => write_json(&mut out, &serde_json::to_value(&pruned)?)?,
                Format::Text => write_pruned(&mut out, &pruned)?,
            }
        }
    }
    Ok(())
}

fn write_info(out: &mut impl Write, info: &CacheInfo) -> Result<()> {
    write_parts_table(out, info)?;
    writeln!(
        out,
        "archives, byte ranges and core metadata: {} of a {} budget (least recently used go first)",
        human_size(info.budgeted),
        human_size(info.budget)
    )?;
    writeln!(
        out,
        "environments, uv's and pip's caches: {} of a {} budget (NBENV_ENV_CACHE_SIZE; {} hard-linked between them counted once; least recently used environments go first, then the caches)",
        human_size(info.env_counted),
        human_size(info.env_budget),
        human_size(info.env_shared)
    )?;
    if let Some(dir) = &info.users_uv_cache {
        writeln!(
            out,
            "uv uses the cache in {} (UV_CACHE_DIR): not nbenv's, neither counted nor pruned",
            dir.display()
        )?;
    }
    Ok(())
}

/// The cache's directory, then a table of its parts: entries, size, and where when elsewhere.
fn write_parts_table(out: &mut impl Write, info: &CacheInfo) -> Result<()> {
    writeln!(out, "nbenv's cache at {}", info.cache_dir.display())?;
    let mut rows = vec![vec![
        "PART".into(),
        "ENTRIES".into(),
        "SIZE".into(),
        String::new(),
    ]];
    for p in &info.parts {
        rows.push(vec![
            p.part.label().to_string(),
            p.entries.to_string(),
            human_size(p.bytes),
            p.location
                .as_ref()
                .map_or(String::new(), |l| format!("in {}", l.display())),
        ]);
    }
    write!(out, "{}", table(&rows, "", &[1, 2]))?;
    Ok(())
}

fn write_pruned(out: &mut impl Write, pruned: &Pruned) -> Result<()> {
    write_removed(out, pruned)?;
    write_tidied(out, &pruned.tidied)?;
    writeln!(
        out,
        "{}: {}",
        if pruned.dry_run {
            "would free"
        } else {
            "freed"
        },
        human_size(pruned.freed)
    )?;
    Ok(())
}

/// A line for each part removed (or that would be), or one saying there was nothing.
fn write_removed(out: &mut impl Write, pruned: &Pruned) -> Result<()> {
    let verb = if pruned.dry_run {
        "would remove"
    } else {
        "removed"
    };
    if pruned.removed.is_empty() {
        writeln!(out, "nothing to remove in {}", pruned.cache_dir.display())?;
    }
    for r in &pruned.removed {
        let PartSize {
            part,
            entries,
            bytes,
            ..
        } = r;
        writeln!(
            out,
            "{verb} {}: {}, {}",
            part.label(),
            count(*entries as usize, "entry", "entries"),
            human_size(*bytes)
        )?;
    }
    Ok(())
}

/// A line for each installer cache: pruned or cleaned and what that freed, or why not.
fn write_tidied(out: &mut impl Write, tidied: &[Tidied]) -> Result<()> {
    for t in tidied {
        let which = match t.installer {
            CachedInstaller::Uv => "uv's cache",
            CachedInstaller::Pip => "pip's cache",
        };
        let (dir, bytes) = (t.dir.display(), t.freed_bytes);
        match &t.step {
            CacheStep::Pruned => writeln!(out, "pruned {which} in {dir}: {}", human_size(bytes))?,
            CacheStep::Cleaned => writeln!(out, "cleaned {which} in {dir}: {}", human_size(bytes))?,
            CacheStep::Failed(why) => writeln!(
                out,
                "{which} in {dir} could not be pruned, and was left as it was: {why}"
            )?,
        }
    }
    Ok(())
}

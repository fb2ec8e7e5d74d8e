//! `nbenv bank export` and `nbenv bank import`: what they print.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use nbenv::bank::snapshot::{
    self, CacheInstall, ExistingBank, ExportOptions, ImportOptions, ImportReport, RunRecords,
    SnapshotSource,
};
use serde_json::json;

use super::args::Format;
use super::context::Global;
use super::index::human_size;
use super::output::{count, write_json};

pub fn export(bank: &Path, file: &Path, options: &ExportOptions, format: Format) -> Result<()> {
    let started = Instant::now();
    let report = snapshot::export(bank, file, options)?;
    let seconds = started.elapsed().as_secs_f64();
    let h = &report.header;
    // The bank's own compression: an index cache after it is told apart.
    let ratio = h.db_len as f64 / h.payload_len.max(1) as f64;
    let mut out = super::printer::stdout();
    if format == Format::Json {
        return write_json(
            &mut out,
            &json!({
                "bank": bank,
                "snapshot": report.snapshot,
                "header": h,
                "snapshot_bytes": report.snapshot_len,
                "ratio": ratio,
                "seconds": seconds,
                "run_tables": report.runs.tables,
                "run_rows": report.runs.rows,
            }),
        );
    }
    writeln!(
        out,
        "exported {} to {} in {seconds:.1} s",
        bank.display(),
        report.snapshot.display()
    )?;
    writeln!(out, "{}; schema {}", counts(&h.counts), h.schema_version)?;
    writeln!(
        out,
        "{} bank → {} compressed (ratio {ratio:.2}); sha256 {}",
        human_size(h.db_len),
        human_size(h.payload_len),
        h.db_sha256
    )?;
    writeln!(out, "{}", runs_line(&report.runs, h.with_runs, "left out"))?;
    if let Some(i) = &h.index_cache {
        writeln!(
            out,
            "index cache: {}; {} → {} compressed",
            carried(i),
            human_size(i.len),
            human_size(i.payload_len)
        )?;
    }
    let read = h.decompressed_len();
    writeln!(
        out,
        "snapshot: {} ({:.0} MB/s)",
        human_size(report.snapshot_len),
        read as f64 / 1e6 / seconds.max(1e-9)
    )?;
    Ok(())
}

pub fn import(
    global: &Global,
    bank: &Path,
    source: &str,
    options: &ImportOptions,
    format: Format,
) -> Result<()> {
    let started = Instant::now();
    let source = SnapshotSource::parse(source)?;
    refuse_url_offline(global, &source)?;
    // The index client's HTTP layer: the same TLS roots, retries and timeouts as every
    // other request nbenv makes.
    let client = global.index_client()?;
    let cache_dir = client.cache().root().to_path_buf();
    let options = ImportOptions {
        cache: Some(client.cache().clone()),
        ..options.clone()
    };
    let report = snapshot::import(&source, bank, client.http(), &options)?;
    let seconds = started.elapsed().as_secs_f64();
    let mut out = super::printer::stdout();
    let replaced = replaced_note(&report.replaced);
    if format == Format::Json {
        return write_import_json(&mut out, &report, &source, &replaced, seconds);
    }
    write_imported(&mut out, &report, &source, &replaced, seconds)?;
    if let (Some(i), Some(done)) = (&report.header.index_cache, &report.index_cache) {
        writeln!(
            out,
            "index cache: {}; {} written into {}{}",
            carried(i),
            done.written,
            cache_dir.display(),
            kept_note(done)
        )?;
    }
    Ok(())
}

/// Offline, a snapshot at a URL is an error before anything else is done.
fn refuse_url_offline(global: &Global, source: &SnapshotSource) -> Result<()> {
    if global.offline() {
        if let SnapshotSource::Url(url) = source {
            return Err(snapshot::SnapshotError::Fetch {
                url: url.to_string(),
                source: nbenv::pypi::PypiError::Offline {
                    url: url.to_string(),
                },
            }
            .into());
        }
    }
    Ok(())
}

/// What the import did to the bank it found.
fn replaced_note(existing: &ExistingBank) -> String {
    match existing {
        ExistingBank::Missing => "new bank".to_string(),
        ExistingBank::Empty => "replaced an empty bank".to_string(),
        ExistingBank::Bank { releases: Some(n) } => format!(
            "replaced a bank of {}",
            count(*n as usize, "release", "releases")
        ),
        ExistingBank::Bank { releases: None } => "replaced a damaged bank".to_string(),
        ExistingBank::Foreign { .. } => unreachable!("a foreign file is never replaced"),
    }
}

/// What `bank import --format json` prints.
fn write_import_json(
    out: &mut impl Write,
    report: &ImportReport,
    source: &SnapshotSource,
    replaced: &str,
    seconds: f64,
) -> Result<()> {
    write_json(
        out,
        &json!({
            "bank": report.bank,
            "snapshot": source.name(),
            "header": report.header,
            "snapshot_bytes": report.snapshot_len,
            "replaced": replaced,
            "migrated_from": report.migrated_from,
            "run_tables": report.runs.tables,
            "run_rows": report.runs.rows,
            "runs_kept": report.runs_kept,
            "index_cache": report.index_cache,
            "seconds": seconds,
        }),
    )
}

/// What was imported and from what: the bank's counts and schema, sizes, and the run records.
fn write_imported(
    out: &mut impl Write,
    report: &ImportReport,
    source: &SnapshotSource,
    replaced: &str,
    seconds: f64,
) -> Result<()> {
    let h = &report.header;
    writeln!(
        out,
        "imported {} into {} in {seconds:.1} s ({replaced})",
        source.name(),
        report.bank.display()
    )?;
    let schema = match report.migrated_from {
        Some(from) => format!(
            "schema {} (migrated from {from})",
            nbenv::bank::store::SCHEMA_VERSION
        ),
        None => format!("schema {}", h.schema_version),
    };
    writeln!(
        out,
        "{}; {schema}; exported {} by nbenv {}",
        counts(&h.counts),
        h.created.strftime("%Y-%m-%d %H:%M UTC"),
        h.nbenv_version
    )?;
    let read = h.decompressed_len();
    writeln!(
        out,
        "{} snapshot → {} bank ({:.0} MB/s decompressed); sha256 and SQLite integrity checked",
        human_size(report.snapshot_len),
        human_size(h.db_len),
        read as f64 / 1e6 / seconds.max(1e-9),
    )?;
    writeln!(
        out,
        "{}",
        runs_line(&report.runs, report.runs_kept, "not in the snapshot")
    )?;
    Ok(())
}

/// The index cache's entries not written, and why: `; ...`, or nothing when all were.
fn kept_note(done: &CacheInstall) -> String {
    let mut kept = Vec::new();
    if done.kept_local > 0 {
        kept.push(format!("{} kept (fetched here later)", done.kept_local));
    }
    if done.already_held > 0 {
        kept.push(format!("{} already held", done.already_held));
    }
    if done.over_budget > 0 {
        kept.push(format!(
            "{} over the cache's budget, left out",
            done.over_budget
        ));
    }
    if kept.is_empty() {
        String::new()
    } else {
        format!("; {}", kept.join(", "))
    }
}

fn carried(i: &snapshot::IndexSection) -> String {
    format!(
        "{}, {}, {}",
        count(i.pages as usize, "index page", "index pages"),
        count(i.compact as usize, "compact copy", "compact copies"),
        count(i.metadata as usize, "metadata file", "metadata files")
    )
}

fn counts(c: &snapshot::BankCounts) -> String {
    format!(
        "{}, {}, {}",
        count(c.distributions as usize, "distribution", "distributions"),
        count(c.releases as usize, "release", "releases"),
        count(c.apis as usize, "API", "APIs")
    )
}

/// What became of the run records: `absent` says it for a snapshot without them.
fn runs_line(runs: &RunRecords, kept: bool, absent: &str) -> String {
    let tables = if runs.tables.is_empty() {
        "no run tables".to_string()
    } else {
        runs.tables.join(", ")
    };
    let rows = count(runs.rows as usize, "row", "rows");
    match (kept, runs.rows) {
        (true, _) => format!("run records kept: {rows} ({tables})"),
        (false, 0) => format!("run records {absent} ({tables})"),
        (false, _) => format!("run records {absent}: {rows} dropped ({tables})"),
    }
}

//! `nbenv report FILE...`: the tables over the records of one or more batch outputs (shards
//! merged), as text, Markdown or JSON; with `--html` and `--svg`, also a page and charts,
//! which the library renders and this module only writes.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;

use nbenv::measure::{charts, merge, page, read_records, Report, Source, Table};

use super::context::Global;
use super::exit::CliError;
use super::output::{table, write_json};

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Outputs of `nbenv batch` (JSONL), for instance one per shard. A notebook in several
    /// counts once: the last record of each path and content hash wins.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// How to print the report.
    #[arg(long, value_enum, default_value_t, value_name = "FORMAT")]
    pub format: ReportFormat,
    /// Also write the report as one self-contained HTML page (tables and charts, no external
    /// resources) to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also write the charts as SVG files into DIR (created when missing):
    /// `error-classes.svg`, `executability.svg`, `verdicts.svg`.
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ReportFormat {
    /// For people: titled, aligned tables.
    #[default]
    Text,
    /// Markdown tables, for a README, an issue or a notebook.
    Markdown,
    /// For programs: the counts behind every table, `schema_version` first.
    Json,
}

#[derive(Serialize)]
struct ReportJson<'a> {
    files: &'a [Source],
    #[serde(flatten)]
    report: &'a Report,
}

pub fn run(global: &Global, args: &ReportArgs) -> Result<()> {
    let mut files = Vec::new();
    let mut records = Vec::new();
    for path in &args.files {
        if !path.is_file() {
            return Err(
                CliError::not_found(format!("{}: there is no such file", path.display())).into(),
            );
        }
        let file = read_records(path)?;
        if let Some(t) = file.truncated {
            if !global.quiet {
                super::printer::note(&format!(
                    "{}:{}: ignoring a last line cut short ({} bytes): its batch was interrupted while writing it",
                    path.display(),
                    t.line,
                    t.bytes
                ));
            }
        }
        for (line, why) in &file.malformed {
            super::printer::warn(&format!(
                "{}:{line}: not a record, ignored ({why})",
                path.display()
            ));
        }
        files.push(Source {
            path: path.clone(),
            records: file.records.len(),
            truncated: file.truncated.is_some(),
            malformed: file.malformed.iter().map(|(l, _)| *l).collect(),
            modified: modified(path),
        });
        records.extend(file.records);
    }
    let report = Report::of(&merge(records));
    // Files first: a path that cannot be written fails the command before anything is printed.
    if let Some(dir) = &args.svg {
        write_charts(global, &report, dir)?;
    }
    if let Some(path) = &args.html {
        let html = page(&report, &files, jiff::Timestamp::now());
        write_file(path, html.as_bytes(), "the HTML report")?;
        if !global.quiet {
            super::printer::note(&format!("wrote the HTML report to {}", path.display()));
        }
    }
    let mut out = std::io::BufWriter::new(super::printer::stdout());
    match args.format {
        ReportFormat::Json => write_json(
            &mut out,
            &ReportJson {
                files: &files,
                report: &report,
            },
        )?,
        ReportFormat::Text => out.write_all(text(&report.tables()).as_bytes())?,
        ReportFormat::Markdown => out.write_all(markdown(&report.tables()).as_bytes())?,
    }
    out.flush().context("writing to stdout")
}

/// When the file was last written, if the file system says.
fn modified(path: &Path) -> Option<jiff::Timestamp> {
    let time = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    jiff::Timestamp::try_from(time).ok()
}

fn write_charts(global: &Global, report: &Report, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the chart directory {}", dir.display()))?;
    let charts = charts(report);
    for chart in &charts {
        let path = dir.join(chart.file_name());
        write_file(&path, chart.standalone().as_bytes(), "a chart")?;
    }
    if !global.quiet {
        let names: Vec<String> = charts.iter().map(|c| c.file_name()).collect();
        super::printer::note(&format!(
            "wrote {} charts to {}: {}",
            charts.len(),
            dir.display(),
            names.join(", ")
        ));
    }
    Ok(())
}

/// Through a temporary file renamed over `path`: a reader never sees half a page.
fn write_file(path: &Path, bytes: &[u8], what: &str) -> Result<()> {
    nbenv::output::write_atomically(path, bytes)
        .with_context(|| format!("cannot write {what} to {}", path.display()))
}

/// Each table under its title, aligned, a blank line between tables.
pub fn text(tables: &[Table]) -> String {
    let mut s = String::new();
    for (i, t) in tables.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str(&t.title);
        s.push('\n');
        if t.rows.is_empty() {
            s.push_str(&format!("  {}\n", t.empty));
            continue;
        }
        let mut rows = vec![t.header.clone()];
        rows.extend(t.rows.iter().cloned());
        s.push_str(&table(&rows, "  ", &t.numeric));
    }
    s
}

/// Each table as a Markdown table under a heading.
pub fn markdown(tables: &[Table]) -> String {
    let cell = |c: &str| c.replace('|', "\\|");
    let mut s = String::new();
    for (i, t) in tables.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str(&format!("### {}\n\n", cell(&t.title)));
        if t.rows.is_empty() {
            s.push_str(&format!("_{}_\n", t.empty));
            continue;
        }
        let header: Vec<String> = t.header.iter().map(|h| cell(h)).collect();
        s.push_str(&format!("| {} |\n", header.join(" | ")));
        let rule: Vec<&str> = (0..t.header.len())
            .map(|c| {
                if t.numeric.contains(&c) {
                    "---:"
                } else {
                    "---"
                }
            })
            .collect();
        s.push_str(&format!("| {} |\n", rule.join(" | ")));
        for row in &t.rows {
            let cells: Vec<String> = row.iter().map(|c| cell(c.trim_start())).collect();
            let indent = row.first().map_or(0, |c| c.len() - c.trim_start().len());
            let mut cells = cells;
            if indent > 0 {
                // Sub-rows (`  by environment`) keep their nesting visible.
                cells[0] = format!("&nbsp;&nbsp;{}", cells[0]);
            }
            s.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
    }
    s
}

//! `nbenv report FILE...`: the tables over the records of one or more batch outputs (shards
//! merged), as text, Markdown or JSON; with `--html` and `--svg`, also a page and charts,
//! which the library renders and writes ([`nbenv::commands::report`]).

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use clap::{Args, ValueEnum};

use nbenv::commands::report::ReportSettings;
use nbenv::measure::Table;

use super::context::Global;
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

impl ReportArgs {
    fn settings(&self) -> ReportSettings {
        ReportSettings {
            files: self.files.clone(),
            html: self.html.clone(),
            svg: self.svg.clone(),
        }
    }
}

pub fn run(global: &Global, args: &ReportArgs) -> Result<()> {
    let done = nbenv::commands::report::run(&args.settings(), &global.printer)?;
    let mut out = std::io::BufWriter::new(super::printer::stdout());
    match args.format {
        ReportFormat::Json => write_json(&mut out, &done)?,
        ReportFormat::Text => out.write_all(text(&done.report.tables()).as_bytes())?,
        ReportFormat::Markdown => out.write_all(markdown(&done.report.tables()).as_bytes())?,
    }
    out.flush().context("writing to stdout")
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

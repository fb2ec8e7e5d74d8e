//! `report`: the tables over the records of one or more batch outputs (shards merged); with
//! an HTML path or a chart directory, the page and the charts written too. The caller prints
//! the tables of the [`ReportOutcome`].

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::measure::{charts, merge, page, read_records, Report, Source};
use crate::reporter::Reporter;

use super::CommandError;

#[derive(Debug, Clone, Default)]
pub struct ReportSettings {
    /// Outputs of `batch` (JSONL).
    pub files: Vec<PathBuf>,
    /// Where the self-contained HTML page is written.
    pub html: Option<PathBuf>,
    /// The directory the SVG charts are written into (created when missing).
    pub svg: Option<PathBuf>,
}

/// The report, and the files it was made from (as its JSON document has them).
#[derive(Debug, Serialize)]
pub struct ReportOutcome {
    pub files: Vec<Source>,
    #[serde(flatten)]
    pub report: Report,
}

pub fn run(
    settings: &ReportSettings,
    reporter: &dyn Reporter,
) -> Result<ReportOutcome, CommandError> {
    let mut files = Vec::new();
    let mut records = Vec::new();
    for path in &settings.files {
        if !path.is_file() {
            return Err(CommandError::NoSuchFile(path.clone()));
        }
        let file = read_records(path)?;
        if let Some(t) = file.truncated {
            reporter.note(
                &format!(
                    "{}:{}: ignoring a last line cut short ({} bytes): its batch was interrupted while writing it",
                    path.display(),
                    t.line,
                    t.bytes
                ),
                None,
            );
        }
        for (line, why) in &file.malformed {
            reporter.warn(
                &format!("{}:{line}: not a record, ignored ({why})", path.display()),
                None,
            );
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
    if let Some(dir) = &settings.svg {
        write_charts(&report, dir, reporter)?;
    }
    if let Some(path) = &settings.html {
        let html = page(&report, &files, jiff::Timestamp::now());
        write_file(path, html.as_bytes(), "the HTML report")?;
        reporter.note(
            &format!("wrote the HTML report to {}", path.display()),
            None,
        );
    }
    Ok(ReportOutcome { files, report })
}

/// When the file was last written, if the file system says.
fn modified(path: &Path) -> Option<jiff::Timestamp> {
    let time = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    jiff::Timestamp::try_from(time).ok()
}

fn write_charts(report: &Report, dir: &Path, reporter: &dyn Reporter) -> Result<(), CommandError> {
    std::fs::create_dir_all(dir).map_err(|source| CommandError::ChartDir {
        dir: dir.to_path_buf(),
        source,
    })?;
    let charts = charts(report);
    for chart in &charts {
        let path = dir.join(chart.file_name());
        write_file(&path, chart.standalone().as_bytes(), "a chart")?;
    }
    let names: Vec<String> = charts.iter().map(|c| c.file_name()).collect();
    reporter.note(
        &format!(
            "wrote {} charts to {}: {}",
            charts.len(),
            dir.display(),
            names.join(", ")
        ),
        None,
    );
    Ok(())
}

/// Through a temporary file renamed over `path`: a reader never sees half a page.
fn write_file(path: &Path, bytes: &[u8], what: &'static str) -> Result<(), CommandError> {
    crate::output::write_atomically(path, bytes).map_err(|source| CommandError::WriteFile {
        what,
        path: path.to_path_buf(),
        source,
    })
}

//! The report as one self-contained HTML page: what was read and when, the charts inlined as
//! SVG, then every table of the text report. Nothing is fetched: the style is inline, there
//! is no script, and the page's Content-Security-Policy forbids loading anything, so it opens
//! the same from a mail attachment, an artifact store or a laptop offline. Every string that
//! comes from records or paths is escaped.

use std::fmt::Write as _;
use std::path::PathBuf;

use jiff::Timestamp;
use serde::Serialize;

use super::chart::charts;
use super::escape::escape;
use super::report::Report;
use super::tables::Table;

/// A batch output the report read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    pub path: PathBuf,
    pub records: usize,
    /// A last line cut short (a batch killed mid-write): ignored.
    pub truncated: bool,
    /// Lines that are not records: ignored.
    pub malformed: Vec<usize>,
    /// When the file was last written, when the file system says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<Timestamp>,
}

const STYLE: &str = "
body { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 64em;
       padding: 0 1em; color: #222; background: #fff; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 2em; }
.meta { color: #555; margin-top: 0; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: 0 0 1.5em; }
h3 { font-size: 1em; margin: 1.5em 0 0.4em; }
th, td { padding: 0.25em 0.8em; border-bottom: 1px solid #e5e5e5; text-align: left; vertical-align: top; }
th { border-bottom: 2px solid #bbb; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.sub td:first-child { padding-left: 2.2em; color: #444; }
tr.empty td { color: #777; font-style: italic; }
td.path { font-family: 'DejaVu Sans Mono', monospace; word-break: break-all; }
figure { margin: 1em 0 2em; }
figure svg { max-width: 100%; height: auto; }
footer { color: #777; font-size: 0.85em; margin-top: 3em; border-top: 1px solid #ddd; padding-top: 0.5em; }
";

/// The page, for `report` over `sources`, made at `made` (a value, not the clock: the page is
/// a pure function of its inputs).
pub fn page(report: &Report, sources: &[Source], made: Timestamp) -> String {
    let version = env!("CARGO_PKG_VERSION");
    let title = format!(
        "nbenv report: {}",
        plural(report.notebooks, "notebook", "notebooks")
    );
    let mut s = String::new();
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    s.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n",
    );
    s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(
        s,
        "<meta name=\"generator\" content=\"nbenv {version}\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>",
        escape(&title)
    );
    let _ = writeln!(s, "<header>\n<h1>{}</h1>", escape(&title));
    let records: usize = sources.iter().map(|f| f.records).sum();
    let _ = writeln!(
        s,
        "<p class=\"meta\">Made by nbenv {version} at <time datetime=\"{}\">{}</time> from {} in {}: {} (a notebook in several files counts once, its last record wins).</p>",
        rfc3339(made),
        stamp(made),
        plural(records, "record", "records"),
        plural(sources.len(), "file", "files"),
        plural(report.notebooks, "notebook", "notebooks"),
    );
    s.push_str("<nav><a href=\"#inputs\">Inputs</a><a href=\"#charts\">Charts</a><a href=\"#tables\">Tables</a></nav>\n</header>\n");

    s.push_str("<section id=\"inputs\">\n<h2>Inputs read</h2>\n");
    s.push_str(&table_html(&inputs_table(sources), &[0]));
    s.push_str("</section>\n");

    s.push_str("<section id=\"charts\">\n<h2>Charts</h2>\n");
    for chart in charts(report) {
        let _ = write!(
            s,
            "<figure id=\"figure-{}\">\n{}</figure>\n",
            chart.id, chart.svg
        );
    }
    s.push_str("</section>\n");

    s.push_str("<section id=\"tables\">\n<h2>Tables</h2>\n");
    for t in report.tables() {
        s.push_str(&table_html(&t, &[]));
    }
    s.push_str("</section>\n");
    let _ = writeln!(
        s,
        "<footer id=\"end\">nbenv {version} · <code>nbenv report --html</code></footer>\n</body>\n</html>"
    );
    s
}

/// UTC to the second, as people read it; RFC 3339 in the `datetime` attribute.
fn stamp(t: Timestamp) -> String {
    to_second(t).strftime("%Y-%m-%d %H:%M:%S UTC").to_string()
}

fn rfc3339(t: Timestamp) -> String {
    to_second(t).to_string()
}

fn to_second(t: Timestamp) -> Timestamp {
    t.round(jiff::Unit::Second).unwrap_or(t)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn inputs_table(sources: &[Source]) -> Table {
    let rows = sources
        .iter()
        .map(|f| {
            let malformed: Vec<String> = f.malformed.iter().map(|l| l.to_string()).collect();
            vec![
                f.path.display().to_string(),
                f.records.to_string(),
                if f.truncated { "yes, ignored" } else { "no" }.into(),
                if malformed.is_empty() {
                    "none".into()
                } else {
                    malformed.join(", ")
                },
                f.modified.map_or_else(|| "unknown".into(), stamp),
            ]
        })
        .collect();
    Table {
        id: "inputs",
        title: format!("Batch outputs read ({})", sources.len()),
        header: [
            "file",
            "records",
            "last line cut short",
            "lines not records",
            "last written (UTC)",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        numeric: vec![1],
        empty: "no file read",
    }
}

/// A table; rows whose first cell is indented are sub-rows (`  by environment`); `paths`
/// are columns shown in a monospace font that wraps anywhere.
fn table_html(t: &Table, paths: &[usize]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<h3 id=\"title-{id}\">{}</h3>\n<table id=\"table-{id}\" class=\"report\" aria-labelledby=\"title-{id}\">",
        escape(&t.title),
        id = t.id,
    );
    s.push_str("<thead><tr>");
    for (c, h) in t.header.iter().enumerate() {
        let class = if t.numeric.contains(&c) {
            " class=\"num\""
        } else {
            ""
        };
        let _ = write!(s, "<th{class}>{}</th>", escape(h));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    if t.rows.is_empty() {
        let _ = writeln!(
            s,
            "<tr class=\"empty\"><td colspan=\"{}\">{}</td></tr>",
            t.header.len().max(1),
            escape(t.empty)
        );
    }
    for row in &t.rows {
        let sub = row.first().is_some_and(|c| c.starts_with(' '));
        s.push_str(if sub { "<tr class=\"sub\">" } else { "<tr>" });
        for (c, cell) in row.iter().enumerate() {
            let class = if t.numeric.contains(&c) {
                " class=\"num\""
            } else if paths.contains(&c) {
                " class=\"path\""
            } else {
                ""
            };
            let _ = write!(s, "<td{class}>{}</td>", escape(cell.trim_start()));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::record::{ErrorType, Executability, Record, Stage, Verdict};
    use crate::measure::report::merge;
    use crate::notebook::failure::FailureClass;

    const EVIL: &str = "<script>alert('x')</script>";

    fn made() -> Timestamp {
        "2025-01-02T03:04:05.678Z".parse().unwrap()
    }

    fn source(path: &str) -> Source {
        Source {
            path: path.into(),
            records: 1,
            truncated: false,
            malformed: vec![3],
            modified: None,
        }
    }

    fn run_with_error(ename: &str) -> Record {
        let mut r = Record::new(format!("{EVIL}.ipynb"), Some("h".into()), Stage::Verify);
        r.executability_before = Some(Executability {
            cells_ran: 0,
            code_cells: 2,
            first_error_cell: Some(1),
        });
        r.first_error = Some(ErrorType {
            class: FailureClass::Code,
            cause: "raised".into(),
            ename: Some(ename.into()),
            message: String::new(),
            cell: Some(1),
        });
        r.verdict = Some(Verdict::Pathological);
        r
    }

    #[test]
    fn strings_from_records_and_paths_are_escaped() {
        let report = Report::of(&merge(vec![run_with_error(EVIL)]));
        let html = page(&report, &[source(&format!("/tmp/{EVIL}.jsonl"))], made());
        assert!(!html.contains("<script"), "{html}");
        assert!(
            html.contains("<td>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</td>"),
            "{html}"
        );
        assert!(html.contains("&lt;/script&gt;.jsonl</td>"), "{html}");
    }

    #[test]
    fn the_page_holds_every_table_and_chart_and_fetches_nothing() {
        let report = Report::of(&merge(vec![run_with_error("ValueError")]));
        let html = page(&report, &[source("a.jsonl"), source("b.jsonl")], made());
        for t in report.tables() {
            assert!(
                html.contains(&format!("<table id=\"table-{}\"", t.id)),
                "{}",
                t.id
            );
        }
        assert!(html.contains("<table id=\"table-inputs\""));
        for id in ["error-classes", "executability", "verdicts"] {
            assert!(
                html.contains(&format!("<figure id=\"figure-{id}\">")),
                "{id}"
            );
        }
        assert_eq!(html.matches("<svg ").count(), 3);
        // Inline SVG in HTML takes no XML declaration.
        assert!(!html.contains("<?xml"));
        for fetch in ["src=", "href=\"http", "url(", "@import", "<link", "<script"] {
            assert!(!html.contains(fetch), "{fetch}");
        }
        assert!(html.contains("2025-01-02 03:04:06 UTC"), "made when");
        assert!(html.contains("datetime=\"2025-01-02T03:04:06Z\""));
        assert!(html.contains("from 2 records in 2 files: 1 notebook "));
        assert!(html.contains("<td class=\"num\">1</td><td>no</td><td>3</td><td>unknown</td>"));
    }

    #[test]
    fn an_empty_report_is_still_a_page() {
        let html = page(&Report::of(&merge(Vec::new())), &[], made());
        assert_eq!(html.matches(">no data</text>").count(), 3);
        assert!(html.contains("<tr class=\"empty\"><td colspan=\"5\">no file read</td></tr>"));
        assert!(html.trim_end().ends_with("</html>"));
    }
}

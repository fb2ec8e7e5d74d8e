//! Writing results: every command's `--format json` is the library's one JSON document
//! ([`nbenv::output::write_json`]).

use std::io::Write;

use anyhow::{Context, Result};
use serde::Serialize;

/// Writes `value` as the one JSON document of a command (see [`nbenv::output::write_json`]).
pub fn write_json<T: Serialize + ?Sized>(out: &mut impl Write, value: &T) -> Result<()> {
    nbenv::output::write_json(out, value).context("writing JSON")
}

/// `1 cell`, `2 cells`: a count and its noun, singular or plural.
pub use nbenv::reporter::count;

/// Rows of cells as aligned columns, whatever their content (`…`, `()`, wide names): widths
/// counted in characters, two spaces between columns, the last column unpadded, no trailing
/// spaces. Columns listed in `right` are aligned to the right (counts).
pub fn table(rows: &[Vec<String>], indent: &str, right: &[usize]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::from(indent);
        for (i, cell) in row.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            let last = i + 1 == row.len();
            if right.contains(&i) {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            } else {
                line.push_str(cell);
                if !last {
                    line.push_str(&" ".repeat(pad));
                }
            }
            if !last {
                line.push_str("  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `--timings`: where the run's time went, on stderr after everything else.
pub fn timings(wall: std::time::Duration) {
    super::printer::block(&nbenv::timings::render(wall, &nbenv::timings::totals()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_by_characters_and_trim() {
        let rows = vec![
            vec!["df[…].values()".to_string(), "1×".into(), "".into()],
            vec!["df.ix".to_string(), "12×".into(), "x".into()],
        ];
        assert_eq!(
            table(&rows, "  ", &[1]),
            "  df[…].values()   1×\n  df.ix           12×  x\n"
        );
    }

    #[test]
    fn every_document_starts_with_the_schema_version() {
        let mut out = Vec::new();
        write_json(&mut out, &serde_json::json!({"b": 1, "a": [2]})).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("{\n  \"schema_version\": 1,\n"), "{text}");
        assert!(text.ends_with("}\n"));
        assert!(write_json(&mut Vec::new(), &[1, 2]).is_err());
    }
}

//! Writing results. Every command's `--format json` is one JSON document (pretty, with a final
//! newline) whose first field is `schema_version`, the same number across commands; it goes up
//! when a field changes meaning or goes away, not when one is added.

use std::io::Write;

use anyhow::{Context, Result};
use serde::Serialize;

/// The version of every command's JSON output.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a, T: ?Sized> {
    schema_version: u32,
    #[serde(flatten)]
    body: &'a T,
}

/// Writes `value`, which must serialize as a JSON object (a list goes under a named field),
/// with `schema_version` first.
pub fn write_json<T: Serialize + ?Sized>(out: &mut impl Write, value: &T) -> Result<()> {
    let document = Document {
        schema_version: SCHEMA_VERSION,
        body: value,
    };
    serde_json::to_writer_pretty(&mut *out, &document).context("writing JSON")?;
    writeln!(out)?;
    Ok(())
}

/// `1 cell`, `2 cells`: a count and its noun, singular or plural.
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

#[cfg(test)]
mod tests {
    use super::*;

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

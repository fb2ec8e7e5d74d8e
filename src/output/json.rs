//! Every command's `--format json` is one JSON document (pretty, with a final newline) whose
//! first field is `schema_version`, the same number across commands; it goes up when a field
//! changes meaning or goes away, not when one is added.

use std::io::Write;

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
pub fn write_json<T: Serialize + ?Sized>(out: &mut impl Write, value: &T) -> std::io::Result<()> {
    let document = Document {
        schema_version: SCHEMA_VERSION,
        body: value,
    };
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

/// [`write_json`] into a string.
pub fn json_document<T: Serialize + ?Sized>(value: &T) -> std::io::Result<String> {
    let mut buf = Vec::new();
    write_json(&mut buf, value)?;
    Ok(String::from_utf8(buf).expect("JSON is UTF-8"))
}

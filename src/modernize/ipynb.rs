//! The modernized notebook: the input's JSON with only the rewritten code cells' sources
//! replaced, so outputs, metadata and every other cell stay as they were.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::error::ModernizeError;

/// `bytes` (an nbformat 4 notebook read from `path`) with the sources of `cells` (by cell
/// number, counted from 1) replaced, written as Jupyter writes notebooks: one-space indent,
/// sorted keys, a final newline.
pub fn with_sources(
    path: &Path,
    bytes: &[u8],
    cells: &BTreeMap<u32, String>,
) -> Result<Vec<u8>, ModernizeError> {
    let json = |source| ModernizeError::Json {
        path: path.to_path_buf(),
        source,
    };
    let original = bytes;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut nb: Value = serde_json::from_slice(bytes).map_err(json)?;
    let format = nb.get("nbformat").and_then(Value::as_u64);
    // Nothing rewritten: the notebook as it is, whatever its nbformat (an nbformat 3 notebook
    // with nothing to move still runs on today's stack).
    if cells.is_empty() && format.is_some() {
        return Ok(original.to_vec());
    }
    if format == Some(3) {
        // nbformat 3: cells in worksheets, numbered across them; a code cell's source is
        // its `input`.
        let cells_of = |ws: &mut Value| -> Vec<Value> {
            ws.get_mut("cells")
                .and_then(Value::as_array_mut)
                .map(std::mem::take)
                .unwrap_or_default()
        };
        let mut number = 0u32;
        if let Some(worksheets) = nb.get_mut("worksheets").and_then(Value::as_array_mut) {
            for ws in worksheets {
                let mut list = cells_of(ws);
                for cell in &mut list {
                    number += 1;
                    if let Some(source) = cells.get(&number) {
                        let field = if cell.get("input").is_some() {
                            "input"
                        } else {
                            "source"
                        };
                        cell[field] = lines(source);
                    }
                }
                ws["cells"] = Value::Array(list);
            }
        }
        return serialized(nb).map_err(json);
    }
    if format != Some(4) {
        return Err(ModernizeError::NotNbformat4 {
            path: path.to_path_buf(),
            what: match format {
                Some(n) => format!("nbformat {n}"),
                None => "no nbformat".into(),
            },
        });
    }
    let Some(list) = nb.get_mut("cells").and_then(Value::as_array_mut) else {
        return Err(ModernizeError::NotNbformat4 {
            path: path.to_path_buf(),
            what: "no cell list".into(),
        });
    };
    for (number, source) in cells {
        if let Some(cell) = list.get_mut(*number as usize - 1) {
            cell["source"] = lines(source);
        }
    }
    serialized(nb).map_err(json)
}

/// A source as the notebook stores it: a list of lines, each with its newline.
fn lines(source: &str) -> Value {
    Value::Array(
        source
            .split_inclusive('\n')
            .map(|l| Value::String(l.to_string()))
            .collect(),
    )
}

/// As Jupyter writes notebooks: one-space indent, sorted keys, a final newline.
fn serialized(nb: Value) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(
        &mut out,
        serde_json::ser::PrettyFormatter::with_indent(b" "),
    );
    nb.serialize(&mut ser)?;
    out.push(b'\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NB: &str = r##"{"cells": [
      {"cell_type": "markdown", "metadata": {}, "source": ["# t"]},
      {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
       "source": ["from a.old import f\n", "f()"]}
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 2}"##;

    #[test]
    fn only_the_rewritten_cell_changes() {
        let cells = BTreeMap::from([(2, "from a.new import f\nf()".to_string())]);
        let out = with_sources(Path::new("x.ipynb"), NB.as_bytes(), &cells).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            v["cells"][1]["source"],
            serde_json::json!(["from a.new import f\n", "f()"])
        );
        assert_eq!(v["cells"][0]["source"], serde_json::json!(["# t"]));
        assert_eq!(v["cells"][1]["execution_count"], 1);
    }

    #[test]
    fn nbformat_3_cells_are_numbered_across_worksheets() {
        let v3 = br#"{"nbformat": 3, "metadata": {}, "worksheets": [
          {"cells": [{"cell_type": "heading", "level": 1, "source": ["T"]},
                     {"cell_type": "code", "input": ["print x"], "outputs": [], "language": "python"}]},
          {"cells": [{"cell_type": "code", "input": "print y", "outputs": [], "language": "python"}]}
        ]}"#;
        let cells = BTreeMap::from([(3, "print(y)\n".to_string())]);
        let out = with_sources(Path::new("x.ipynb"), v3, &cells).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            v["worksheets"][1]["cells"][0]["input"],
            serde_json::json!(["print(y)\n"])
        );
        assert_eq!(
            v["worksheets"][0]["cells"][1]["input"],
            serde_json::json!(["print x"])
        );
        assert_eq!(v["nbformat"], 3);
    }

    #[test]
    fn other_formats_are_refused_when_a_cell_changes() {
        let v2 = br#"{"nbformat": 2, "worksheets": []}"#;
        let cells = BTreeMap::from([(1, "x = 1".to_string())]);
        let err = with_sources(Path::new("x.ipynb"), v2, &cells).unwrap_err();
        assert!(matches!(err, ModernizeError::NotNbformat4 { .. }));
        // With nothing to rewrite, the notebook is taken as it is.
        let same = with_sources(Path::new("x.ipynb"), v2, &BTreeMap::new()).unwrap();
        assert_eq!(same, v2);
    }
}

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
            let lines: Vec<Value> = source
                .split_inclusive('\n')
                .map(|l| Value::String(l.to_string()))
                .collect();
            cell["source"] = Value::Array(lines);
        }
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(
        &mut out,
        serde_json::ser::PrettyFormatter::with_indent(b" "),
    );
    nb.serialize(&mut ser).map_err(json)?;
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
    fn older_formats_are_refused_when_a_cell_changes() {
        let v3 = br#"{"nbformat": 3, "worksheets": []}"#;
        let cells = BTreeMap::from([(1, "x = 1".to_string())]);
        let err = with_sources(Path::new("x.ipynb"), v3, &cells).unwrap_err();
        assert!(matches!(err, ModernizeError::NotNbformat4 { .. }));
        // With nothing to rewrite, the notebook is taken as it is.
        let same = with_sources(Path::new("x.ipynb"), v3, &BTreeMap::new()).unwrap();
        assert_eq!(same, v3);
    }
}

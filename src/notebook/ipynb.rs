//! Reading `.ipynb` JSON: nbformat 4 (flat `cells`) and nbformat 1–3 (`worksheets`, `input`,
//! `prompt_number`, `pyout`/`pyerr`). Deserialization is typed so that image payloads and widget
//! state are skipped without being copied; only text nbenv can learn from is kept.

use std::fmt;
use std::path::Path;

use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::error::NotebookError;
use super::format::{Cell, CellKind, Kernel, Notebook, Output, SourceFormat, StreamName};

/// Parses notebook JSON; `path` is only used in messages.
pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<Notebook, NotebookError> {
    let raw: RawNotebook = serde_json::from_slice(bytes).map_err(|e| {
        use serde_json::error::Category;
        match e.classify() {
            Category::Data => NotebookError::NotANotebook {
                path: path.to_path_buf(),
                reason: format!("unexpected JSON content: {e}"),
            },
            _ => NotebookError::BrokenJson {
                path: path.to_path_buf(),
                line: e.line(),
                column: e.column(),
                message: strip_position(&e.to_string()),
            },
        }
    })?;
    let RawNotebook {
        nbformat,
        nbformat_minor,
        metadata,
        cells,
        worksheets,
    } = raw;
    let nbformat = nbformat.as_ref().and_then(Value::as_u64);
    let (raw_cells, default_major) = match (cells, worksheets) {
        (Some(cells), _) => (cells, 4),
        (None, Some(sheets)) => (sheets.into_iter().flat_map(|w| w.cells).collect(), 3),
        (None, None) => {
            return Err(NotebookError::NotANotebook {
                path: path.to_path_buf(),
                reason: "it has neither `cells` (nbformat 4) nor `worksheets` (nbformat 3)".into(),
            })
        }
    };
    let metadata = metadata.unwrap_or_default();
    let kernel = metadata.kernelspec.as_ref().and_then(kernel_from);
    let language_info = metadata.language_info.as_ref();
    let language_version = language_info
        .and_then(|l| l.get("version"))
        .and_then(value_to_string);
    let info_language = language_info
        .and_then(|l| l.get("name"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let kernel = merge_language(kernel, info_language);

    let mut out_cells = Vec::with_capacity(raw_cells.len());
    for (i, c) in raw_cells.into_iter().enumerate() {
        out_cells.push(c.into_cell(i as u32 + 1));
    }
    Ok(Notebook {
        path: path.to_path_buf(),
        format: SourceFormat::Ipynb {
            nbformat: nbformat.map_or(default_major, |v| v as u32),
            nbformat_minor: nbformat_minor.as_ref().and_then(Value::as_u64).unwrap_or(0) as u32,
        },
        kernel,
        language_version,
        cells: out_cells,
    })
}

/// serde_json appends " at line L column C"; the error variant carries those separately.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

fn value_to_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn kernel_from(v: &Value) -> Option<Kernel> {
    let obj = v.as_object()?;
    let get = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(Kernel {
        name: get("name"),
        display_name: get("display_name"),
        language: get("language"),
    })
}

/// `language_info.name` says the language when the kernelspec does not.
fn merge_language(kernel: Option<Kernel>, info_language: Option<String>) -> Option<Kernel> {
    match (kernel, info_language) {
        (Some(mut k), lang) => {
            if k.language.is_none() {
                k.language = lang;
            }
            Some(k)
        }
        (None, Some(lang)) => Some(Kernel {
            language: Some(lang),
            ..Kernel::default()
        }),
        (None, None) => None,
    }
}

#[derive(Deserialize)]
struct RawNotebook {
    #[serde(default)]
    nbformat: Option<Value>,
    #[serde(default)]
    nbformat_minor: Option<Value>,
    #[serde(default)]
    metadata: Option<RawMetadata>,
    #[serde(default)]
    cells: Option<Vec<RawCell>>,
    #[serde(default)]
    worksheets: Option<Vec<RawWorksheet>>,
}

#[derive(Deserialize)]
struct RawWorksheet {
    #[serde(default)]
    cells: Vec<RawCell>,
}

/// Only the two small metadata entries are materialized; widget state and the like are skipped.
#[derive(Deserialize, Default)]
struct RawMetadata {
    #[serde(default)]
    kernelspec: Option<Value>,
    #[serde(default)]
    language_info: Option<Value>,
}

#[derive(Deserialize)]
struct RawCell {
    #[serde(default)]
    cell_type: Option<String>,
    #[serde(default)]
    source: Option<Text>,
    /// nbformat 3 code cells keep their code here.
    #[serde(default)]
    input: Option<Text>,
    #[serde(default)]
    execution_count: Option<Value>,
    #[serde(default)]
    prompt_number: Option<Value>,
    #[serde(default)]
    outputs: Option<Vec<RawOutput>>,
}

impl RawCell {
    fn into_cell(self, number: u32) -> Cell {
        let kind = match self.cell_type.as_deref() {
            Some("code") => CellKind::Code,
            Some("markdown") => CellKind::Markdown,
            Some("raw") => CellKind::Raw,
            _ => CellKind::Other,
        };
        let source = self.source.or(self.input).map(|t| t.0).unwrap_or_default();
        let count = self
            .execution_count
            .as_ref()
            .or(self.prompt_number.as_ref())
            .and_then(Value::as_u64)
            .map(|n| n as u32);
        let outputs = self
            .outputs
            .unwrap_or_default()
            .into_iter()
            .filter_map(RawOutput::into_output)
            .collect();
        Cell {
            number,
            kind,
            source,
            execution_count: count,
            outputs,
        }
    }
}

#[derive(Deserialize)]
struct RawOutput {
    #[serde(default)]
    output_type: Option<String>,
    /// nbformat 4 stream name.
    #[serde(default)]
    name: Option<Value>,
    /// nbformat 3 stream name.
    #[serde(default)]
    stream: Option<Value>,
    #[serde(default)]
    text: Option<Text>,
    #[serde(default)]
    data: Option<RawData>,
    #[serde(default)]
    ename: Option<Value>,
    #[serde(default)]
    evalue: Option<Value>,
    #[serde(default)]
    traceback: Option<Vec<Value>>,
}

#[derive(Deserialize)]
struct RawData {
    #[serde(default, rename = "text/plain")]
    text_plain: Option<Text>,
}

impl RawOutput {
    fn into_output(self) -> Option<Output> {
        match self.output_type.as_deref()? {
            "stream" => {
                let name = self.name.or(self.stream);
                let name = match name.as_ref().and_then(Value::as_str) {
                    Some("stderr") => StreamName::Stderr,
                    _ => StreamName::Stdout,
                };
                Some(Output::Stream {
                    name,
                    text: self.text.map(|t| t.0).unwrap_or_default(),
                })
            }
            "execute_result" | "display_data" | "pyout" => {
                let text = self
                    .data
                    .and_then(|d| d.text_plain)
                    .or(self.text)
                    .map(|t| t.0)?;
                Some(Output::Data { text })
            }
            "error" | "pyerr" => {
                let s = |v: Option<Value>| v.as_ref().and_then(value_to_string).unwrap_or_default();
                Some(Output::Error {
                    ename: s(self.ename),
                    evalue: s(self.evalue),
                    traceback: self
                        .traceback
                        .unwrap_or_default()
                        .iter()
                        .filter_map(value_to_string)
                        .collect(),
                })
            }
            _ => None,
        }
    }
}

/// Multiline text stored either as one string or as a list of lines (each with its `\n`).
/// Lines are appended into one buffer straight from the JSON, without a `String` per line.
struct Text(String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut out = String::new();
        d.deserialize_any(TextVisitor(&mut out))?;
        Ok(Text(out))
    }
}

struct TextVisitor<'a>(&'a mut String);

impl<'de> Visitor<'de> for TextVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string or a list of strings")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.push_str(v);
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(AppendLine(&mut *self.0))?.is_some() {}
        Ok(())
    }
}

struct AppendLine<'a>(&'a mut String);

impl<'de> DeserializeSeed<'de> for AppendLine<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(LineVisitor(self.0))
    }
}

struct LineVisitor<'a>(&'a mut String);

impl<'de> Visitor<'de> for LineVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a line of text")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.push_str(v);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(s: &str) -> Result<Notebook, NotebookError> {
        parse(Path::new("t.ipynb"), s.as_bytes())
    }

    #[test]
    fn source_as_string_or_lines() {
        let nb = parse_str(
            r##"{"nbformat": 4, "nbformat_minor": 5, "metadata": {},
               "cells": [{"cell_type": "code", "source": ["import a\n", "a.b()"], "outputs": [], "execution_count": 3},
                         {"cell_type": "markdown", "source": "# T\\n"}]}"##,
        )
        .unwrap();
        assert_eq!(nb.cells[0].source, "import a\na.b()");
        assert_eq!(nb.cells[0].execution_count, Some(3));
        assert_eq!(nb.cells[1].kind, CellKind::Markdown);
        assert_eq!(nb.cells[1].number, 2);
        assert_eq!(
            nb.format,
            SourceFormat::Ipynb {
                nbformat: 4,
                nbformat_minor: 5
            }
        );
    }

    #[test]
    fn broken_and_foreign_json() {
        assert!(matches!(
            parse_str(r#"{"cells": [ "#),
            Err(NotebookError::BrokenJson { line: 1, .. })
        ));
        assert!(matches!(
            parse_str(r#"[1, 2]"#),
            Err(NotebookError::NotANotebook { .. })
        ));
        assert!(matches!(
            parse_str(r#"{"name": "package.json"}"#),
            Err(NotebookError::NotANotebook { .. })
        ));
    }

    #[test]
    fn outputs_keep_text_and_drop_images() {
        let nb = parse_str(
            r#"{"nbformat": 4, "nbformat_minor": 2, "metadata": {"language_info": {"name": "python", "version": "3.6.8"}},
               "cells": [{"cell_type": "code", "source": "x", "execution_count": null, "outputs": [
                 {"output_type": "stream", "name": "stderr", "text": ["a\n", "b\n"]},
                 {"output_type": "display_data", "data": {"image/png": "iVBOR...", "text/plain": ["<Figure>"]}, "metadata": {}},
                 {"output_type": "error", "ename": "KeyError", "evalue": "'x'", "traceback": ["line1", "line2"]}]}]}"#,
        )
        .unwrap();
        assert_eq!(nb.language_version.as_deref(), Some("3.6.8"));
        assert_eq!(
            nb.kernel.as_ref().unwrap().language.as_deref(),
            Some("python")
        );
        let outs = &nb.cells[0].outputs;
        assert_eq!(
            outs[0],
            Output::Stream {
                name: StreamName::Stderr,
                text: "a\nb\n".into()
            }
        );
        assert_eq!(
            outs[1],
            Output::Data {
                text: "<Figure>".into()
            }
        );
        assert!(
            matches!(&outs[2], Output::Error { ename, traceback, .. } if ename == "KeyError" && traceback.len() == 2)
        );
    }
}

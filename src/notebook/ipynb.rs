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
    let not_a_notebook = |reason: String| NotebookError::NotANotebook {
        path: path.to_path_buf(),
        reason,
    };
    if let Some(reason) = not_json(bytes) {
        return Err(not_a_notebook(reason));
    }
    let raw: RawNotebook = serde_json::from_slice(bytes).map_err(|e| {
        use serde_json::error::Category;
        match e.classify() {
            // Valid JSON of the wrong shape: say where, in the notebook's own terms.
            Category::Data => not_a_notebook(
                serde_json::from_slice::<Value>(bytes)
                    .ok()
                    .and_then(|v| shape_error(&v))
                    .unwrap_or_else(|| {
                        format!(
                            "unexpected content at line {}, column {}",
                            e.line(),
                            e.column()
                        )
                    }),
            ),
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

/// A file that is not JSON at all (a script or a text file given as a notebook) is not a
/// notebook; one that starts like JSON, or mentions notebook keys, is a broken notebook
/// (truncated, or with merge-conflict markers). Nothing of the file is quoted: the path may
/// be a link to a file that is not the user's to show (`x.ipynb -> /etc/shadow`), and the
/// message goes to logs and batch records; what kind of file it looks like is said instead.
fn not_json(bytes: &[u8]) -> Option<String> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    if matches!(bytes[start], b'{' | b'[') {
        return None;
    }
    let head = &bytes[start..bytes.len().min(start + 4096)];
    let text = String::from_utf8_lossy(head);
    if text.contains("\"cells\"") || text.contains("\"nbformat\"") {
        return None;
    }
    let kind = file_kind(head);
    let hint = if kind == FileKind::Python {
        "; a Python script needs a `.py` name"
    } else {
        ""
    };
    Some(format!(
        "it is not JSON (it looks like {}); a notebook is a JSON `.ipynb` file{hint}",
        kind.describe()
    ))
}

/// What a file that is not a notebook looks like, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Binary,
    Python,
    Shell,
    Markup,
    Text,
}

impl FileKind {
    fn describe(self) -> &'static str {
        match self {
            FileKind::Binary => "binary data",
            FileKind::Python => "Python code",
            FileKind::Shell => "a shell script",
            FileKind::Markup => "HTML or XML",
            FileKind::Text => "a text file",
        }
    }
}

fn file_kind(head: &[u8]) -> FileKind {
    let Ok(text) = std::str::from_utf8(head) else {
        // A cut multi-byte character at the end of the sample is still text.
        let valid = std::str::from_utf8(head).map_or_else(|e| e.valid_up_to(), str::len);
        if head.len() - valid > 3 {
            return FileKind::Binary;
        }
        return file_kind(&head[..valid]);
    };
    if text.contains('\0') {
        return FileKind::Binary;
    }
    let first = text.lines().next().unwrap_or_default().trim_start();
    if first.starts_with("#!") {
        return if first.contains("python") {
            FileKind::Python
        } else {
            FileKind::Shell
        };
    }
    if first.starts_with('<') {
        return FileKind::Markup;
    }
    let python = text.lines().map(str::trim_start).any(|l| {
        ["import ", "from ", "def ", "class ", "print(", "print "]
            .iter()
            .any(|k| l.starts_with(k))
    });
    if python {
        FileKind::Python
    } else {
        FileKind::Text
    }
}

/// The first place where `v` does not have the shape nbenv reads, as a JSON path and what is
/// there (`cells[3].source` is a number, expected text). `None` when the shape is fine.
fn shape_error(v: &Value) -> Option<String> {
    fn kind(v: &Value) -> &'static str {
        match v {
            Value::Null => "null",
            Value::Bool(_) => "true or false",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "a list",
            Value::Object(_) => "an object",
        }
    }
    fn wrong(path: &str, v: &Value, expected: &str) -> Option<String> {
        Some(format!("`{path}` is {}, expected {expected}", kind(v)))
    }
    fn text(path: &str, v: &Value) -> Option<String> {
        match v {
            Value::Null | Value::String(_) => None,
            Value::Array(lines) => lines.iter().enumerate().find_map(|(i, l)| {
                (!l.is_string()).then(|| wrong(&format!("{path}[{i}]"), l, "a line of text"))?
            }),
            other => wrong(path, other, "text (a string or a list of strings)"),
        }
    }
    fn string(path: &str, v: &Value) -> Option<String> {
        (!v.is_null() && !v.is_string()).then(|| wrong(path, v, "a string"))?
    }
    fn output(path: &str, v: &Value) -> Option<String> {
        let Value::Object(o) = v else {
            return wrong(path, v, "an output object");
        };
        let field = |k: &str| o.get(k).filter(|v| !v.is_null());
        string(&format!("{path}.output_type"), field("output_type")?)
            .or_else(|| text(&format!("{path}.text"), field("text")?))
            .or_else(|| match field("data")? {
                Value::Object(d) => text(
                    &format!("{path}.data[\"text/plain\"]"),
                    d.get("text/plain")?,
                ),
                other => wrong(&format!("{path}.data"), other, "an object"),
            })
            .or_else(|| match field("traceback")? {
                Value::Array(_) => None,
                other => wrong(&format!("{path}.traceback"), other, "a list"),
            })
    }
    fn cell(path: &str, v: &Value) -> Option<String> {
        let Value::Object(o) = v else {
            return wrong(path, v, "a cell object");
        };
        let field = |k: &str| o.get(k).filter(|v| !v.is_null());
        let at = |k: &str| format!("{path}.{k}");
        field("cell_type")
            .and_then(|t| string(&at("cell_type"), t))
            .or_else(|| text(&at("source"), field("source")?))
            .or_else(|| text(&at("input"), field("input")?))
            .or_else(|| match field("outputs")? {
                Value::Array(outs) => outs
                    .iter()
                    .enumerate()
                    .find_map(|(i, out)| output(&format!("{path}.outputs[{i}]"), out)),
                other => wrong(&at("outputs"), other, "a list of outputs"),
            })
    }
    fn cells(path: &str, v: &Value) -> Option<String> {
        match v {
            Value::Array(all) => all
                .iter()
                .enumerate()
                .find_map(|(i, c)| cell(&format!("{path}[{i}]"), c)),
            other => wrong(path, other, "a list of cells"),
        }
    }
    let Value::Object(top) = v else {
        return Some(format!(
            "the file holds {}; a notebook is an object with `cells` (nbformat 4) or \
             `worksheets` (nbformat 3)",
            kind(v)
        ));
    };
    let field = |k: &str| top.get(k).filter(|v| !v.is_null());
    field("metadata")
        .and_then(|m| (!m.is_object()).then(|| wrong("metadata", m, "an object"))?)
        .or_else(|| cells("cells", field("cells")?))
        .or_else(|| match field("worksheets")? {
            Value::Array(sheets) => sheets.iter().enumerate().find_map(|(i, w)| match w {
                Value::Object(o) => cells(
                    &format!("worksheets[{i}].cells"),
                    o.get("cells").filter(|v| !v.is_null())?,
                ),
                other => wrong(&format!("worksheets[{i}]"), other, "a worksheet object"),
            }),
            other => wrong("worksheets", other, "a list of worksheets"),
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

    fn reason(s: &str) -> String {
        match parse_str(s) {
            Err(NotebookError::NotANotebook { reason, .. }) => reason,
            other => panic!("{:?}", other.map(|n| n.cells.len())),
        }
    }

    /// What is wrong is said in notebook terms, with a JSON path, never as serde's internals.
    #[test]
    fn wrong_shapes_are_named_by_their_json_path() {
        let r = reason("[1,2,3]");
        assert!(
            r.starts_with("the file holds a list; a notebook is an object"),
            "{r}"
        );
        assert_eq!(
            reason(
                r#"{"metadata": {}, "cells": [{"cell_type": "code", "source": "x"}, {"cell_type": "code", "source": 3}]}"#
            ),
            "`cells[1].source` is a number, expected text (a string or a list of strings)"
        );
        assert_eq!(
            reason(r#"{"cells": [{"source": ["a", 7]}]}"#),
            "`cells[0].source[1]` is a number, expected a line of text"
        );
        assert_eq!(
            reason(r#"{"metadata": 5, "cells": []}"#),
            "`metadata` is a number, expected an object"
        );
        assert_eq!(
            reason(r#"{"cells": [{"cell_type": "code", "source": "x", "outputs": [{"output_type": "stream", "text": {"a": 1}}]}]}"#),
            "`cells[0].outputs[0].text` is an object, expected text (a string or a list of strings)"
        );
        assert_eq!(
            reason(r#"{"worksheets": [{"cells": "none"}]}"#),
            "`worksheets[0].cells` is a string, expected a list of cells"
        );
        for r in [reason("[1,2,3]"), reason(r#"{"cells": 5}"#)] {
            assert!(
                !r.contains("RawMetadata") && !r.contains("invalid type"),
                "{r}"
            );
        }
    }

    #[test]
    fn text_that_is_not_json_is_not_a_notebook() {
        let r = reason("import os\nprint(os.getcwd())\n");
        assert!(
            r.contains("it is not JSON (it looks like Python code); a notebook is a JSON `.ipynb` file; a Python script needs a `.py` name"),
            "{r}"
        );
        // Nothing of a file that is not a notebook is quoted: only what it looks like.
        for (bytes, kind) in [
            (&b"root:$6$secret:19000:0:99999:7:::\n"[..], "a text file"),
            (&b"#!/bin/sh\necho secret\n"[..], "a shell script"),
            (&b"<!DOCTYPE html><p>secret</p>"[..], "HTML or XML"),
            (&b"\x7fELF\x02\x01\x01\0\0secret"[..], "binary data"),
            (&b"\xff\xfe\xfa\xfb\xfc secret"[..], "binary data"),
        ] {
            let r = match parse(Path::new("t.ipynb"), bytes) {
                Err(NotebookError::NotANotebook { reason, .. }) => reason,
                other => panic!("{:?}", other.map(|n| n.cells.len())),
            };
            assert!(r.contains(&format!("it looks like {kind})")), "{r}");
            assert!(!r.contains("secret") && !r.contains("root"), "{r}");
        }
        // A notebook with merge-conflict markers is a broken notebook, not a foreign file.
        assert!(matches!(
            parse_str("<<<<<<< HEAD\n{\"cells\": []}\n"),
            Err(NotebookError::BrokenJson { .. })
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

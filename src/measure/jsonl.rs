//! Reading a batch's JSONL output back: one [`Record`] a line. A batch killed mid-write can
//! leave its last line cut short; that line is set aside and said, never an error. A line
//! from a newer nbenv's schema is refused: its fields may mean something else.

use std::path::{Path, PathBuf};

use super::record::{Record, SCHEMA};

/// The records of one file, and what could not be read of it.
#[derive(Debug, Default)]
pub struct RecordsFile {
    pub records: Vec<Record>,
    /// A last line without its newline: a write cut short. Its bytes start at `valid_len`.
    pub truncated: Option<Truncated>,
    /// Complete lines that are not records (1-based line numbers, with why).
    pub malformed: Vec<(usize, String)>,
    /// Bytes up to the end of the last complete line.
    pub valid_len: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncated {
    pub line: usize,
    pub bytes: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum RecordsError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}: a record of schema {schema}, from a newer nbenv (this one reads schema {SCHEMA})", path.display())]
    NewerSchema {
        path: PathBuf,
        line: usize,
        schema: u64,
    },
}

/// Reads `path`; a file that does not exist has no records.
pub fn read_records(path: &Path) -> Result<RecordsFile, RecordsError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(RecordsFile::default()),
        Err(source) => {
            return Err(RecordsError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    parse_records(path, &bytes)
}

/// Parses the bytes of a records file; `path` names it in messages.
pub fn parse_records(path: &Path, bytes: &[u8]) -> Result<RecordsFile, RecordsError> {
    let mut out = RecordsFile::default();
    let complete = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(i) => i + 1,
        None => 0,
    };
    out.valid_len = complete as u64;
    let mut line_no = 0;
    for line in bytes[..complete].split(|&b| b == b'\n') {
        line_no += 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse_line(line) {
            Ok(record) => out.records.push(record),
            Err(Problem::Newer(schema)) => {
                return Err(RecordsError::NewerSchema {
                    path: path.to_path_buf(),
                    line: line_no,
                    schema,
                })
            }
            Err(Problem::Malformed(why)) => out.malformed.push((line_no, why)),
        }
    }
    let tail = &bytes[complete..];
    if !tail.iter().all(u8::is_ascii_whitespace) {
        let line = bytes[..complete].iter().filter(|&&b| b == b'\n').count() + 1;
        out.truncated = Some(Truncated {
            line,
            bytes: tail.len(),
        });
    }
    Ok(out)
}

enum Problem {
    Newer(u64),
    Malformed(String),
}

fn parse_line(line: &[u8]) -> Result<Record, Problem> {
    let value: serde_json::Value =
        serde_json::from_slice(line).map_err(|e| Problem::Malformed(e.to_string()))?;
    match value.get("schema").and_then(serde_json::Value::as_u64) {
        Some(s) if s > u64::from(SCHEMA) => return Err(Problem::Newer(s)),
        Some(_) => {}
        None => return Err(Problem::Malformed("no `schema` field".into())),
    }
    serde_json::from_value(value).map_err(|e| Problem::Malformed(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::record::Stage;

    fn line(path: &str) -> String {
        let r = Record::new(path.into(), Some("00".into()), Stage::Usage);
        serde_json::to_string(&r).unwrap() + "\n"
    }

    #[test]
    fn a_cut_last_line_is_set_aside() {
        let cut = "{\"schema\":1,\"pa";
        let text = format!("{}{}{cut}", line("a.ipynb"), line("b.ipynb"));
        let file = parse_records(Path::new("r.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(file.records.len(), 2);
        assert_eq!(
            file.truncated,
            Some(Truncated {
                line: 3,
                bytes: cut.len()
            })
        );
        assert_eq!(file.valid_len as usize, text.len() - cut.len());
        assert!(file.malformed.is_empty());
    }

    #[test]
    fn bad_lines_are_counted_and_newer_schemas_refused() {
        let text = format!("{}not json\n\n{}", line("a.ipynb"), line("b.ipynb"));
        let file = parse_records(Path::new("r.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(file.records.len(), 2);
        assert_eq!(file.malformed.len(), 1);
        assert_eq!(file.malformed[0].0, 2);
        assert_eq!(file.truncated, None);

        let newer = line("a.ipynb").replace("\"schema\":1", "\"schema\":2");
        let err = parse_records(Path::new("r.jsonl"), newer.as_bytes()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("r.jsonl:1: a record of schema 2"),
            "{err}"
        );
    }
}

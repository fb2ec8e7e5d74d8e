//! The runner's output: one line per event, each `@nbenv ` and a JSON object, on a private
//! copy of its stdout. Whatever else reaches that stream (a C extension writing to the
//! original descriptor before the runner moved it, a line cut short by a kill) is counted
//! and skipped, never fatal.

use serde::Deserialize;

use crate::notebook::failure::Raised;
use crate::notebook::{Output, StreamName};

pub(crate) const MARK: &str = "@nbenv ";

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub(crate) enum Record {
    Start(StartRecord),
    /// A cell starts (for progress; its record comes when it ends).
    CellStart {
        index: u32,
    },
    Cell(CellRecord),
    End(EndRecord),
}

/// The cell a `cell_start` line names, read from one protocol line as it arrives.
pub(crate) fn cell_start(line: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(line).ok()?.trim_end();
    let json = text.strip_prefix(MARK)?;
    match serde_json::from_str::<Record>(json).ok()? {
        Record::CellStart { index } => Some(index),
        _ => None,
    }
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct StartRecord {
    /// `ipython`, `plain`, or `none` when IPython was required and missing.
    pub mode: String,
    pub python: String,
    #[serde(default)]
    pub ipython: Option<String>,
    /// Why plain exec was used (or why IPython could not be).
    #[serde(default)]
    pub reason: Option<String>,
    /// The in-process kernel the IPython shell belongs to, if one started.
    #[serde(default)]
    pub kernel: Option<String>,
    /// Why none did.
    #[serde(default)]
    pub kernel_reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RecordStatus {
    Ok,
    Error,
    Timeout,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CellRecord {
    pub index: u32,
    pub status: RecordStatus,
    pub duration: f64,
    #[serde(default)]
    pub outputs: Vec<OutputRecord>,
    #[serde(default)]
    pub dropped: u64,
    #[serde(default)]
    pub error: Option<Raised>,
    #[serde(default)]
    pub skipped: Vec<String>,
    /// Folders a glob of the cell's looked in that are not there.
    #[serde(default)]
    pub absent: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum OutputRecord {
    Stream { name: String, text: String },
    Data { text: String },
}

impl OutputRecord {
    pub(crate) fn into_output(self) -> Output {
        match self {
            OutputRecord::Stream { name, text } => Output::Stream {
                name: if name == "stderr" {
                    StreamName::Stderr
                } else {
                    StreamName::Stdout
                },
                text,
            },
            OutputRecord::Data { text } => Output::Data { text },
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct EndRecord {
    /// `done`, or `stopped` at an error.
    pub reason: String,
}

#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub records: Vec<Record>,
    /// Lines that were not records, or records that did not parse.
    pub garbage: u32,
}

pub(crate) fn parse(stdout: &[u8]) -> Parsed {
    let text = String::from_utf8_lossy(stdout);
    let mut parsed = Parsed::default();
    let complete = text.ends_with('\n');
    let mut lines: Vec<&str> = text.split('\n').collect();
    // The last piece has no newline: empty, or a line the process did not finish.
    let last = lines.pop().unwrap_or("");
    if !complete && !last.is_empty() {
        parsed.garbage += 1;
    }
    for line in lines {
        let Some(at) = line.rfind(MARK) else {
            if !line.trim().is_empty() {
                parsed.garbage += 1;
            }
            continue;
        };
        if at > 0 {
            // Something wrote to the stream without a newline before the record.
            parsed.garbage += 1;
        }
        match serde_json::from_str::<Record>(&line[at + MARK.len()..]) {
            Ok(r) => parsed.records.push(r),
            Err(_) => parsed.garbage += 1,
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_and_partial_lines_are_survived() {
        let out = b"hello from C\n@nbenv {\"event\":\"start\",\"mode\":\"plain\",\"python\":\"3.11.7\"}\nxx@nbenv {\"event\":\"cell\",\"index\":2,\"status\":\"ok\",\"duration\":0.1}\n@nbenv {\"event\":\"cell\",\"index\":3,\"sta\n@nbenv {not json}\n@nbenv {\"event\":\"cell\",\"index\":4,\"status\":\"ok\"";
        let p = parse(out);
        assert_eq!(p.records.len(), 2);
        assert!(matches!(&p.records[1], Record::Cell(c) if c.index == 2));
        // `hello`, the glued `xx`, the cut record, the bad JSON, the unfinished last line
        assert_eq!(p.garbage, 5);
    }
}

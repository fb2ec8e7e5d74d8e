//! Resuming: a batch run again on the same output skips the notebooks it already has a
//! record for, with the same path, the same content hash and the same stage. A notebook
//! whose file changed, or a further stage, is measured again.

use std::collections::HashSet;
use std::path::Path;

use super::jsonl::{read_records, RecordsError, Truncated};
use super::record::{Record, Stage};

/// What an output already holds.
#[derive(Debug, Default)]
pub struct Done {
    keys: HashSet<(String, Option<String>, Stage)>,
    /// Records read.
    pub records: usize,
    /// A last line cut short by a kill: ignored, and cut off before appending.
    pub truncated: Option<Truncated>,
    /// Bytes of the file up to its last complete line.
    pub valid_len: u64,
    /// Complete lines that are not records (line numbers).
    pub malformed: Vec<usize>,
}

impl Done {
    /// Reads the output at `path` (none yet: nothing done).
    pub fn read(path: &Path) -> Result<Self, RecordsError> {
        let file = read_records(path)?;
        let mut done = Done {
            records: file.records.len(),
            truncated: file.truncated,
            valid_len: file.valid_len,
            malformed: file.malformed.iter().map(|(line, _)| *line).collect(),
            ..Done::default()
        };
        for r in &file.records {
            done.add(r);
        }
        Ok(done)
    }

    pub fn add(&mut self, record: &Record) {
        self.keys
            .insert((record.path.clone(), record.sha256.clone(), record.stage));
    }

    /// Whether the notebook named `path` with this content has a record at `stage`.
    pub fn contains(&self, path: &str, sha256: Option<&str>, stage: Stage) -> bool {
        self.keys
            .contains(&(path.to_string(), sha256.map(str::to_string), stage))
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_path_hash_and_stage_are_done() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.jsonl");
        let a = Record::new("a.ipynb".into(), Some("aa".into()), Stage::Infer);
        let text = serde_json::to_string(&a).unwrap() + "\n{\"schema\":1,\"path\":\"b.ip";
        std::fs::write(&out, &text).unwrap();
        let done = Done::read(&out).unwrap();
        assert!(done.contains("a.ipynb", Some("aa"), Stage::Infer));
        assert!(!done.contains("a.ipynb", Some("ab"), Stage::Infer));
        assert!(!done.contains("a.ipynb", Some("aa"), Stage::Usage));
        assert!(!done.contains("b.ipynb", Some("aa"), Stage::Infer));
        assert_eq!(done.records, 1);
        assert!(done.truncated.is_some());
        assert_eq!(
            done.valid_len as usize,
            serde_json::to_string(&a).unwrap().len() + 1
        );
        assert!(Done::read(&dir.path().join("none.jsonl"))
            .unwrap()
            .is_empty());
    }
}

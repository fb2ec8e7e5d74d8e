//! A wheel's `RECORD`: one CSV line per installed file, `path,sha256=<urlsafe base64>,size`.
//!
//! The hash is what makes the per-file cache work: a file whose hash was seen in an earlier
//! release is neither downloaded nor parsed again.

use std::fmt;

use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::Digest;

/// A sha256 digest; shown and stored as lowercase hex.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Sha256(pub [u8; 32]);

impl Sha256 {
    pub fn of(bytes: &[u8]) -> Self {
        Self(sha2::Sha256::digest(bytes).into())
    }

    /// Decodes RECORD's urlsafe base64 form (padding optional).
    pub fn from_record_b64(text: &str) -> Option<Self> {
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let bytes = engine.decode(text.trim_end_matches('=')).ok()?;
        Some(Self(bytes.try_into().ok()?))
    }

    pub fn to_hex(&self) -> String {
        let mut out = String::with_capacity(64);
        for b in self.0 {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }
}

impl fmt::Display for Sha256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Sha256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sha256({})", self.to_hex())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordEntry {
    pub path: String,
    /// Absent for RECORD itself, signatures, and hashes in another algorithm.
    pub sha256: Option<Sha256>,
    pub size: Option<u64>,
}

/// A line of RECORD that could not be read; the rest of the file is still used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("RECORD line {line}: {message}")]
pub struct RecordProblem {
    pub line: usize,
    pub message: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub entries: Vec<RecordEntry>,
    pub problems: Vec<RecordProblem>,
}

impl Record {
    pub fn parse(text: &str) -> Self {
        let mut record = Record::default();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            if raw.trim().is_empty() {
                continue;
            }
            let mut problem = |message: String| {
                record.problems.push(RecordProblem { line, message });
            };
            let fields = match split_csv_line(raw) {
                Ok(fields) => fields,
                Err(message) => {
                    problem(message.to_string());
                    continue;
                }
            };
            let [path, hash, size] = match <[String; 3]>::try_from(fields) {
                Ok(f) => f,
                Err(fields) => {
                    problem(format!("expected 3 fields, found {}", fields.len()));
                    continue;
                }
            };
            if path.is_empty() {
                problem("empty path".to_string());
                continue;
            }
            let sha256 = match hash.split_once('=') {
                Some(("sha256", b64)) => match Sha256::from_record_b64(b64) {
                    Some(h) => Some(h),
                    None => {
                        problem(format!("`{hash}` is not a sha256 in urlsafe base64"));
                        None
                    }
                },
                Some(_) => None,
                None if hash.is_empty() => None,
                None => {
                    problem(format!("hash `{hash}` has no `algorithm=` prefix"));
                    None
                }
            };
            let size = if size.is_empty() {
                None
            } else {
                match size.parse::<u64>() {
                    Ok(n) => Some(n),
                    Err(_) => {
                        problem(format!("size `{size}` is not a number"));
                        None
                    }
                }
            };
            record.entries.push(RecordEntry { path, sha256, size });
        }
        record
    }
}

/// Splits one CSV line (RFC 4180 quoting: `"a,b"` and `""` inside quotes).
fn split_csv_line(line: &str) -> Result<Vec<String>, &'static str> {
    let mut fields = Vec::with_capacity(3);
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut in_quotes = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        match (c, in_quotes) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', true) => in_quotes = false,
            ('"', false) if field.is_empty() && !was_quoted => {
                in_quotes = true;
                was_quoted = true;
            }
            (',', false) => {
                fields.push(std::mem::take(&mut field));
                was_quoted = false;
            }
            (c, _) => field.push(c),
        }
    }
    if in_quotes {
        return Err("unterminated quoted field");
    }
    fields.push(field);
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_entries_quotes_and_problems() {
        let text = "pkg/__init__.py,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\r\n\
                    \"pkg/a,b.py\",sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,12\n\
                    pkg-1.0.dist-info/RECORD,,\n\
                    pkg/x.py,sha256=notbase64!,3\n\
                    just-one-field\n";
        let record = Record::parse(text);
        assert_eq!(record.entries.len(), 4);
        assert_eq!(record.entries[0].path, "pkg/__init__.py");
        // The sha256 of the empty file.
        assert_eq!(
            record.entries[0].sha256.unwrap(),
            Sha256::of(b""),
            "RECORD's base64 digest decodes to the real sha256"
        );
        assert_eq!(record.entries[1].path, "pkg/a,b.py");
        assert_eq!(record.entries[1].size, Some(12));
        assert_eq!(record.entries[2].sha256, None);
        assert_eq!(record.entries[3].sha256, None);
        assert_eq!(record.problems.len(), 2);
        assert_eq!(record.problems[0].line, 4);
        assert!(record.problems[1].to_string().starts_with("RECORD line 5"));
    }

    #[test]
    fn hex() {
        assert_eq!(
            Sha256::of(b"").to_hex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}

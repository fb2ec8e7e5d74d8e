use serde::Serialize;

use super::requires_dist::{InvalidRequiresDist, RequiresDist};

/// The core metadata fields nbenv needs from METADATA, PKG-INFO or a PEP 658 file.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct CoreMetadata {
    pub metadata_version: Option<String>,
    pub name: String,
    pub version: String,
    pub summary: Option<String>,
    pub requires_python: Option<String>,
    /// PEP 508 requirement strings as written (the bank stores them so); [`Self::requirements`]
    /// parses them.
    pub requires_dist: Vec<String>,
    pub provides_extra: Vec<String>,
}

/// Why a metadata file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidMetadata {
    #[error("line `{0}` is not a `Key: value` header")]
    NotAHeader(String),
    #[error("no Name or Version header")]
    NoNameOrVersion,
}

/// Where core metadata came from, cheapest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MetadataSource {
    /// A PEP 658 `.metadata` file beside the wheel.
    Pep658,
    /// `*.dist-info/METADATA` read out of the wheel.
    Wheel,
    /// `PKG-INFO` read out of the sdist.
    Sdist,
}

impl CoreMetadata {
    /// Reads RFC 822-style headers up to the first blank line (the body is the description).
    /// Continuation lines (starting with whitespace) extend the previous header.
    pub fn parse(bytes: &[u8]) -> Result<Self, InvalidMetadata> {
        // Only the headers are read: the description after them (most of a METADATA file)
        // is not even decoded.
        let text = String::from_utf8_lossy(&bytes[..headers_end(bytes)]);
        let mut headers: Vec<(String, String)> = Vec::new();
        for line in text.lines() {
            if line.trim().is_empty() {
                break;
            }
            if line.starts_with([' ', '\t']) {
                if let Some((_, value)) = headers.last_mut() {
                    value.push('\n');
                    value.push_str(line.trim());
                }
                continue;
            }
            let Some((key, value)) = line.split_once(':') else {
                return Err(InvalidMetadata::NotAHeader(line.to_string()));
            };
            headers.push((key.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
        let mut meta = CoreMetadata::default();
        for (key, value) in headers {
            match key.as_str() {
                "metadata-version" => meta.metadata_version = Some(value),
                "name" => meta.name = value,
                "version" => meta.version = value,
                "summary" => meta.summary = Some(value),
                "requires-python" => meta.requires_python = Some(value),
                "requires-dist" => meta.requires_dist.push(value),
                "provides-extra" => meta.provides_extra.push(value),
                _ => {}
            }
        }
        if meta.name.is_empty() || meta.version.is_empty() {
            return Err(InvalidMetadata::NoNameOrVersion);
        }
        Ok(meta)
    }
}

/// Where the headers of `bytes` end: after the line before the first blank one (a line of
/// whitespace alone), or at the end.
fn headers_end(bytes: &[u8]) -> usize {
    let mut at = 0;
    while at < bytes.len() {
        let end = bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| at + i + 1);
        if bytes[at..end].iter().all(u8::is_ascii_whitespace) {
            return at;
        }
        at = end;
    }
    bytes.len()
}

impl CoreMetadata {
    /// Every Requires-Dist line, parsed with its extras and markers; a line no leniency can
    /// read is returned as its error, so that one bad line does not hide the others.
    pub fn requirements(&self) -> Vec<Result<RequiresDist, InvalidRequiresDist>> {
        self.requires_dist.iter().map(|l| l.parse()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_headers_and_stops_at_body() {
        let raw = b"Metadata-Version: 2.1\nName: foo\nVersion: 1.0\nSummary: a\n  longer summary\nRequires-Python: >=3.7\nRequires-Dist: numpy (>=1.0)\nRequires-Dist: six; extra == 'compat'\nProvides-Extra: compat\n\nRequires-Dist: not-a-header\n";
        let m = CoreMetadata::parse(raw).unwrap();
        assert_eq!(m.name, "foo");
        assert_eq!(m.summary.as_deref(), Some("a\nlonger summary"));
        assert_eq!(
            m.requires_dist,
            vec!["numpy (>=1.0)", "six; extra == 'compat'"]
        );
        assert_eq!(m.provides_extra, vec!["compat"]);
        assert_eq!(m.requires_python.as_deref(), Some(">=3.7"));
        assert_eq!(
            CoreMetadata::parse(b"Name: x\n"),
            Err(InvalidMetadata::NoNameOrVersion)
        );
        assert_eq!(
            CoreMetadata::parse(b"Name: x\nno colon here\n"),
            Err(InvalidMetadata::NotAHeader("no colon here".into()))
        );
    }
}

use pep440_rs::{Version, VersionParseError};
use serde::Serialize;

use super::requires_dist::{InvalidRequiresDist, RequiresDist};
use super::requires_python::RequiresPython;
use crate::names::{DistName, InvalidDistName};

/// The core metadata fields nbenv needs from METADATA, PKG-INFO or a PEP 658 file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CoreMetadata {
    pub metadata_version: Option<String>,
    /// The Name header in normal form.
    #[serde(skip)]
    pub name: DistName,
    /// The Name header as written (`Pillow`), for display (and the bank's display name).
    #[serde(rename = "name")]
    pub name_as_written: String,
    pub version: Version,
    pub summary: Option<String>,
    pub requires_python: RequiresPython,
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
    #[error("Name: {0}")]
    Name(#[from] InvalidDistName),
    #[error("Version `{text}` is not a PEP 440 version: {source}")]
    Version {
        text: String,
        #[source]
        source: VersionParseError,
    },
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
    /// Reads RFC 822-style headers up to the first empty line (the body is the description).
    /// Continuation lines (starting with whitespace, spaces alone included) extend the
    /// previous header.
    pub fn parse(bytes: &[u8]) -> Result<Self, InvalidMetadata> {
        // Only the headers are read: the description after them (most of a METADATA file)
        // is not even decoded.
        let text = String::from_utf8_lossy(&bytes[..headers_end(bytes)]);
        let mut headers: Vec<(String, String)> = Vec::new();
        for line in text.lines() {
            if line.is_empty() {
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
        let (mut metadata_version, mut name, mut version) = (None, None, None);
        let (mut summary, mut requires_python) = (None, None);
        let (mut requires_dist, mut provides_extra) = (Vec::new(), Vec::new());
        for (key, value) in headers {
            match key.as_str() {
                "metadata-version" => metadata_version = Some(value),
                "name" => name = Some(value),
                "version" => version = Some(value),
                "summary" => summary = Some(value),
                "requires-python" => requires_python = Some(value),
                "requires-dist" => requires_dist.push(value),
                "provides-extra" => provides_extra.push(value),
                _ => {}
            }
        }
        let (Some(name), Some(version)) = (
            name.filter(|n| !n.is_empty()),
            version.filter(|v| !v.is_empty()),
        ) else {
            return Err(InvalidMetadata::NoNameOrVersion);
        };
        Ok(CoreMetadata {
            metadata_version,
            name: DistName::new(&name)?,
            name_as_written: name,
            version: version.parse().map_err(|source| InvalidMetadata::Version {
                text: version.clone(),
                source,
            })?,
            summary,
            requires_python: RequiresPython::parse(requires_python.as_deref()),
            requires_dist,
            provides_extra,
        })
    }
}

/// Where the headers of `bytes` end: after the line before the first empty one, or at the
/// end. A line of spaces is not empty: it continues a header, as in email's rules, and
/// matplotlib's multi-line `License:` has such lines before its `Requires-Dist:` ones.
pub(crate) fn headers_end(bytes: &[u8]) -> usize {
    let mut at = 0;
    while at < bytes.len() {
        let end = bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| at + i + 1);
        if matches!(&bytes[at..end], b"\n" | b"\r\n" | b"\r" | b"") {
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

    /// matplotlib 3.11's METADATA: a multi-line `License:` whose blank-looking lines are
    /// spaces, then the `Requires-Dist:` lines. Those lines continue the license; the
    /// requirements after them are headers, not the description.
    #[test]
    fn a_line_of_spaces_continues_a_header() {
        let raw = b"Metadata-Version: 2.1\nName: matplotlib\nVersion: 3.11.2\nLicense: License agreement for matplotlib versions 1.3.0 and later\n         =========================================\n         \n         1. This LICENSE AGREEMENT is between the Matplotlib Development Team\nRequires-Python: >=3.11\nRequires-Dist: numpy>=1.25\nRequires-Dist: python-dateutil>=2.7\r\nDescription-Content-Type: text/markdown\n\n# Matplotlib\n\nRequires-Dist: not-a-header\n";
        let m = CoreMetadata::parse(raw).unwrap();
        assert_eq!(m.requires_dist, ["numpy>=1.25", "python-dateutil>=2.7"]);
        assert_eq!(m.requires_python, RequiresPython::parse(Some(">=3.11")));
    }

    #[test]
    fn parses_headers_and_stops_at_body() {
        let raw = b"Metadata-Version: 2.1\nName: foo\nVersion: 1.0\nSummary: a\n  longer summary\nRequires-Python: >=3.7\nRequires-Dist: numpy (>=1.0)\nRequires-Dist: six; extra == 'compat'\nProvides-Extra: compat\n\nRequires-Dist: not-a-header\n";
        let m = CoreMetadata::parse(raw).unwrap();
        assert_eq!(m.name.as_str(), "foo");
        assert_eq!(m.version, Version::new([1, 0]));
        assert_eq!(m.summary.as_deref(), Some("a\nlonger summary"));
        assert_eq!(
            m.requires_dist,
            vec!["numpy (>=1.0)", "six; extra == 'compat'"]
        );
        assert_eq!(m.provides_extra, vec!["compat"]);
        assert_eq!(m.requires_python.text(), Some(">=3.7"));
        assert!(m.requires_python.specifiers().is_some());
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

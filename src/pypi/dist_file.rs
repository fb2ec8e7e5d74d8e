use std::collections::BTreeMap;

use pep440_rs::Version;
use serde::{Deserialize, Serialize};

use super::filename::FileKind;
use super::requires_python::RequiresPython;

/// One file of a project as the index lists it, with its version already parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DistFile {
    pub filename: String,
    /// Absolute URL, without the `#sha256=` fragment that PEP 503 pages append.
    pub url: String,
    pub version: Version,
    pub kind: FileKind,
    /// Hash algorithm → lowercase hex digest.
    pub hashes: BTreeMap<String, String>,
    pub requires_python: RequiresPython,
    pub size: Option<u64>,
    /// When the file was uploaded (PEP 700); HTML pages do not say.
    pub upload_time: Option<jiff::Timestamp>,
    /// `Some(reason)` when yanked; the reason may be empty.
    pub yanked: Option<String>,
    pub core_metadata: MetadataHint,
}

/// What the index says about a PEP 658 `.metadata` file for this file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "state")]
pub enum MetadataHint {
    /// The index did not say; PyPI often serves one anyway.
    Unknown,
    Absent,
    Available {
        sha256: Option<String>,
    },
}

impl DistFile {
    pub fn sha256(&self) -> Option<&str> {
        self.hashes.get("sha256").map(String::as_str)
    }

    pub fn is_wheel(&self) -> bool {
        matches!(self.kind, FileKind::Wheel { .. })
    }

    pub fn is_yanked(&self) -> bool {
        self.yanked.is_some()
    }

    /// A stable cache key for the file's bytes: its sha256 when the index gives one, else a
    /// hash of its URL (files on an index never change under the same URL).
    pub fn cache_key(&self) -> String {
        match self.sha256() {
            Some(h) => h.to_string(),
            None => format!("url-{}", super::cache::hex_sha256(self.url.as_bytes())),
        }
    }
}

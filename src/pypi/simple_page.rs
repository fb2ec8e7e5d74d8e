use std::collections::BTreeMap;

use reqwest::Url;

use super::dist_file::{DistFile, MetadataHint};
use super::filename::DistFilename;
use super::project::{PageFormat, ProjectPage, SkippedFile};
use super::requires_python::RequiresPython;
use crate::names::DistName;

/// A file entry as either page format lists it, before its version is parsed.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawFile {
    pub filename: String,
    pub href: String,
    pub hashes: BTreeMap<String, String>,
    pub requires_python: Option<String>,
    pub size: Option<u64>,
    pub upload_time: Option<jiff::Timestamp>,
    pub yanked: Option<String>,
    pub core_metadata: Option<MetadataHint>,
}

/// A page's link that does not make a URL against the page's own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("link `{href}` is not a valid URL: {detail}")]
pub(crate) struct InvalidLink {
    pub href: String,
    pub detail: String,
}

/// Turns raw entries into a project page: resolves links against the page URL, moves
/// `#sha256=` fragments into hashes, and sets aside what is not a wheel or sdist of a valid
/// version instead of failing the whole page on it.
pub(crate) fn build_page(
    name: &DistName,
    page_url: &Url,
    format: PageFormat,
    raw: Vec<RawFile>,
) -> Result<ProjectPage, InvalidLink> {
    let mut files = Vec::with_capacity(raw.len());
    let mut skipped = Vec::new();
    for mut entry in raw {
        let mut url = page_url.join(&entry.href).map_err(|e| InvalidLink {
            href: entry.href.clone(),
            detail: e.to_string(),
        })?;
        if let Some(fragment) = url.fragment() {
            if let Some((algo, digest)) = fragment.split_once('=') {
                entry
                    .hashes
                    .entry(algo.to_ascii_lowercase())
                    .or_insert_with(|| digest.to_ascii_lowercase());
            }
            url.set_fragment(None);
        }
        if entry.filename.is_empty() {
            entry.filename = url
                .path_segments()
                .and_then(|mut s| s.next_back())
                .unwrap_or_default()
                .to_string();
        }
        match DistFilename::parse(&entry.filename, name) {
            Ok(parsed) => files.push(DistFile {
                filename: entry.filename,
                url: url.to_string(),
                version: parsed.version,
                kind: parsed.kind,
                hashes: entry.hashes,
                requires_python: RequiresPython::parse(entry.requires_python.as_deref()),
                size: entry.size,
                upload_time: entry.upload_time,
                yanked: entry.yanked,
                core_metadata: entry.core_metadata.unwrap_or(MetadataHint::Unknown),
            }),
            Err(error) => skipped.push(SkippedFile {
                filename: entry.filename,
                reason: error.to_string(),
                error,
            }),
        }
    }
    Ok(ProjectPage {
        name: name.clone(),
        url: page_url.to_string(),
        format,
        files,
        skipped,
    })
}

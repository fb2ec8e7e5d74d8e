use std::collections::BTreeMap;

use pep440_rs::Version;
use serde::Serialize;

use super::dist_file::DistFile;
use super::filename::FilenameError;
use crate::names::DistName;

/// Everything an index page says about one project.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectPage {
    pub name: DistName,
    /// The page's final URL (after redirects), against which its links were resolved.
    pub url: String,
    pub format: PageFormat,
    pub files: Vec<DistFile>,
    /// Files that are not wheels or sdists of a valid PEP 440 version, kept to be reported.
    pub skipped: Vec<SkippedFile>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PageFormat {
    /// PEP 691 JSON.
    Json,
    /// PEP 503 HTML.
    Html,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedFile {
    pub filename: String,
    /// `error`, as text (for JSON output).
    pub reason: String,
    #[serde(skip)]
    pub error: FilenameError,
}

impl SkippedFile {
    /// Eggs, installers and the like: expected on old projects, not worth reporting.
    pub fn is_other_kind(&self) -> bool {
        self.error == FilenameError::OtherKind
    }
}

/// One version of the project, with its files.
#[derive(Debug, Clone, Serialize)]
pub struct Release<'a> {
    pub version: &'a Version,
    pub files: Vec<&'a DistFile>,
}

impl ProjectPage {
    /// Releases in PEP 440 order, oldest first.
    pub fn releases(&self) -> Vec<Release<'_>> {
        let mut by_version: BTreeMap<&Version, Vec<&DistFile>> = BTreeMap::new();
        for file in &self.files {
            by_version.entry(&file.version).or_default().push(file);
        }
        by_version
            .into_iter()
            .map(|(version, files)| Release { version, files })
            .collect()
    }

    pub fn release(&self, version: &Version) -> Option<Release<'_>> {
        let files: Vec<&DistFile> = self
            .files
            .iter()
            .filter(|f| &f.version == version)
            .collect();
        let version = &files.first()?.version;
        Some(Release { version, files })
    }

    /// Files whose version text is not PEP 440, for reporting.
    pub fn invalid_versions(&self) -> impl Iterator<Item = &SkippedFile> {
        self.skipped
            .iter()
            .filter(|s| matches!(s.error, FilenameError::InvalidVersion { .. }))
    }
}

impl Release<'_> {
    /// The earliest upload among the release's files: when the release appeared.
    pub fn upload_time(&self) -> Option<&str> {
        self.files
            .iter()
            .filter_map(|f| f.upload_time.as_deref())
            .min()
    }

    pub fn has_wheel(&self) -> bool {
        self.files.iter().any(|f| f.is_wheel())
    }

    pub fn has_sdist(&self) -> bool {
        self.files.iter().any(|f| !f.is_wheel())
    }

    /// A release counts as yanked when every one of its files is (PEP 592).
    pub fn is_yanked(&self) -> bool {
        self.files.iter().all(|f| f.is_yanked())
    }

    /// The Requires-Python the index gives, from the first file that has one.
    pub fn requires_python(&self) -> Option<&str> {
        self.files.iter().find_map(|f| f.requires_python.as_deref())
    }

    /// The file to read for source and metadata: a wheel if there is one (the source is the
    /// same on every platform, so prefer the smallest, usually pure or least binary), else an
    /// sdist.
    pub fn preferred_file(&self) -> Option<&DistFile> {
        let wheels = self.files.iter().filter(|f| f.is_wheel() && !f.is_yanked());
        let any_wheel = self.files.iter().filter(|f| f.is_wheel());
        let by_size = |f: &&&DistFile| f.size.unwrap_or(u64::MAX);
        wheels
            .min_by_key(by_size)
            .or_else(|| any_wheel.min_by_key(by_size))
            .or_else(|| self.files.iter().min_by_key(by_size))
            .copied()
    }
}

use std::collections::BTreeMap;

use pep440_rs::Version;
use serde::Serialize;

use super::dist_file::DistFile;
use super::filename::FileKind;
use super::filename::FilenameError;
use super::requires_python::RequiresPython;
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
    pub fn upload_time(&self) -> Option<jiff::Timestamp> {
        self.files.iter().filter_map(|f| f.upload_time).min()
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
    pub fn requires_python(&self) -> &RequiresPython {
        static ANY: RequiresPython = RequiresPython::Any;
        self.files
            .iter()
            .map(|f| &f.requires_python)
            .find(|r| !r.is_any())
            .unwrap_or(&ANY)
    }

    /// The files to read the release's Python sources from, most likely to carry all of
    /// them first: pure wheels, then Linux x86_64 wheels (the platform every binary project
    /// builds for, newest CPython first), then other wheels largest first (a wheel far smaller
    /// than its siblings is often a meta wheel holding no code, as TensorFlow's Windows and
    /// aarch64 wheels require `tensorflow-intel` and hold nothing), then sdists.
    pub fn source_candidates(&self) -> Vec<&DistFile> {
        let mut files: Vec<&DistFile> = self.files.clone();
        files.sort_by_key(|f| source_rank(f));
        files
    }

    /// The file to read for source and metadata: the first of [`Release::source_candidates`].
    pub fn preferred_file(&self) -> Option<&DistFile> {
        self.source_candidates().first().copied()
    }
}

/// The kinds of files a release's sources can be read from, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SourceClass {
    /// A pure wheel for Python 3.
    PureWheel,
    /// A pure wheel for Python 2 only.
    PurePython2Wheel,
    /// A Linux x86_64 wheel: every binary project builds one, with all its code.
    LinuxX86_64Wheel,
    OtherWheel,
    Sdist,
}

impl SourceClass {
    pub fn of(file: &DistFile) -> Self {
        match &file.kind {
            FileKind::Wheel { tags, .. } if tags.is_universal() => {
                let py3 = tags
                    .python
                    .iter()
                    .any(|t| t.starts_with("py3") || t.starts_with("cp3"));
                if py3 {
                    SourceClass::PureWheel
                } else {
                    SourceClass::PurePython2Wheel
                }
            }
            FileKind::Wheel { tags, .. }
                if tags.platform.iter().any(|p| {
                    p.ends_with("x86_64") && (p.starts_with("manylinux") || p.starts_with("linux"))
                }) =>
            {
                SourceClass::LinuxX86_64Wheel
            }
            FileKind::Wheel { .. } => SourceClass::OtherWheel,
            FileKind::Sdist { .. } => SourceClass::Sdist,
        }
    }
}

/// How a file ranks as a source of a release's Python code (smaller is better): by class,
/// then the newest CPython, then size (smallest first, but largest first among other wheels,
/// where a small one is likely a meta wheel).
fn source_rank(file: &DistFile) -> (SourceClass, std::cmp::Reverse<u32>, i128) {
    let size = file.size.map_or(i128::MAX, i128::from);
    let class = SourceClass::of(file);
    match (&file.kind, class) {
        (FileKind::Wheel { tags, .. }, SourceClass::LinuxX86_64Wheel) => {
            (class, std::cmp::Reverse(newest_cpython(&tags.python)), size)
        }
        (_, SourceClass::OtherWheel) => (class, std::cmp::Reverse(0), -size),
        _ => (class, std::cmp::Reverse(0), size),
    }
}

/// `cp311` → 311: the newest CPython a wheel is tagged for (0 for none).
fn newest_cpython(python_tags: &[String]) -> u32 {
    python_tags
        .iter()
        .filter_map(|t| t.strip_prefix("cp")?.parse().ok())
        .max()
        .unwrap_or(0)
}

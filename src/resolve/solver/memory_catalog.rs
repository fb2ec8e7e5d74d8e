//! A catalog built in code: for tests, and for banks small enough to hold in memory.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use jiff::Timestamp;
use pep508_rs::pep440_rs::Version;

use super::catalog::{Catalog, CatalogError, Release, ReleaseMetadata};
use super::release_files::ReleaseFiles;
use super::target::Target;
use crate::names::DistName;
use crate::pypi::{hex_sha256, DistFile, DistFilename, MetadataHint, RequiresPython};

/// Releases and their metadata, held in memory.
#[derive(Debug, Default)]
pub struct MemoryCatalog {
    dists: HashMap<DistName, MemoryDist>,
    /// The file names of the sdists that are pure Python.
    pure_sdists: HashSet<String>,
    /// The sdists the solver asked about, in order: what an index would have fetched.
    surveyed: Mutex<Vec<String>>,
}

#[derive(Debug, Default)]
struct MemoryDist {
    by_version: BTreeMap<Version, Arc<ReleaseMetadata>>,
    /// Rebuilt on each addition, so that reads only clone an `Arc`.
    releases: Arc<[Release]>,
}

/// One release to add to a [`MemoryCatalog`], described as an index and its metadata would.
#[derive(Debug, Clone)]
pub struct MemoryRelease {
    name: String,
    version: String,
    wheel_tags: Vec<String>,
    sdist: bool,
    /// The sdist is pure Python.
    pure: bool,
    requires_dist: Vec<String>,
    requires_python: RequiresPython,
    /// Requires-Python in the metadata only, as on indexes whose pages do not carry it.
    metadata_requires_python: RequiresPython,
    uploaded: Option<String>,
    yanked: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("release {name} {version}: {message}")]
pub struct InvalidRelease {
    pub name: String,
    pub version: String,
    pub message: String,
}

impl MemoryRelease {
    pub fn new(name: &str, version: &str) -> Self {
        Self {
            name: name.to_string(),
            version: version.to_string(),
            wheel_tags: Vec::new(),
            sdist: false,
            pure: false,
            requires_dist: Vec::new(),
            requires_python: RequiresPython::Any,
            metadata_requires_python: RequiresPython::Any,
            uploaded: None,
            yanked: false,
        }
    }

    /// Adds a wheel with these compatibility tags (`py3-none-any`, `cp27-cp27mu-manylinux1_x86_64`).
    pub fn wheel(mut self, tags: &str) -> Self {
        self.wheel_tags.push(tags.to_string());
        self
    }

    /// Adds an sdist that compiles something (or whose build is not known).
    pub fn sdist(mut self) -> Self {
        self.sdist = true;
        self
    }

    /// Adds an sdist of pure Python.
    pub fn pure_sdist(mut self) -> Self {
        self.sdist = true;
        self.pure = true;
        self
    }

    /// Adds a Requires-Dist line.
    pub fn requires(mut self, line: &str) -> Self {
        self.requires_dist.push(line.to_string());
        self
    }

    /// Requires-Python, both on the index page and in the metadata.
    pub fn requires_python(mut self, spec: &str) -> Self {
        self.requires_python = RequiresPython::parse(Some(spec));
        self
    }

    /// Requires-Python in the metadata but not on the index page (old uploads, HTML indexes).
    pub fn metadata_requires_python(mut self, spec: &str) -> Self {
        self.metadata_requires_python = RequiresPython::parse(Some(spec));
        self
    }

    /// The upload time of every file (RFC 3339, `2018-07-15T00:00:00Z`).
    pub fn uploaded(mut self, time: &str) -> Self {
        self.uploaded = Some(time.to_string());
        self
    }

    pub fn yanked(mut self) -> Self {
        self.yanked = true;
        self
    }

    fn invalid(&self, message: impl Into<String>) -> InvalidRelease {
        InvalidRelease {
            name: self.name.clone(),
            version: self.version.clone(),
            message: message.into(),
        }
    }

    /// The release, its metadata, and the file name of its sdist when that is pure Python.
    fn build(self) -> Result<(DistName, Release, ReleaseMetadata, Option<String>), InvalidRelease> {
        let dist = DistName::new(&self.name).map_err(|e| self.invalid(e.to_string()))?;
        let version: Version = self
            .version
            .parse()
            .map_err(|e| self.invalid(format!("version: {e}")))?;
        let upload_time = match &self.uploaded {
            Some(t) => Some(
                t.parse::<Timestamp>()
                    .map_err(|e| self.invalid(format!("upload time `{t}`: {e}")))?,
            ),
            None => None,
        };
        let stem = format!("{}-{}", dist.as_filename_part(), self.version);
        let mut filenames: Vec<String> = self
            .wheel_tags
            .iter()
            .map(|tags| format!("{stem}-{tags}.whl"))
            .collect();
        let sdist = format!("{stem}.tar.gz");
        if self.sdist {
            filenames.push(sdist.clone());
        }
        let mut files = Vec::with_capacity(filenames.len());
        for filename in filenames {
            let parsed = DistFilename::parse(&filename, &dist)
                .map_err(|e| self.invalid(format!("{filename}: {e}")))?;
            files.push(DistFile {
                url: format!("memory:///{dist}/{filename}"),
                // A stand-in digest, stable per file name, so that locks carry one.
                hashes: [("sha256".to_string(), hex_sha256(filename.as_bytes()))].into(),
                filename,
                version: parsed.version,
                kind: parsed.kind,
                requires_python: self.requires_python.clone(),
                size: None,
                upload_time,
                yanked: self.yanked.then(String::new),
                core_metadata: MetadataHint::Unknown,
            });
        }
        let metadata_python = if self.metadata_requires_python.is_any() {
            &self.requires_python
        } else {
            &self.metadata_requires_python
        };
        if let RequiresPython::Unreadable(spec) = metadata_python {
            return Err(self.invalid(format!("Requires-Python `{spec}` is unreadable")));
        }
        let metadata = ReleaseMetadata::parse(
            self.requires_dist.iter().map(String::as_str),
            metadata_python.clone(),
        );
        if let Some(bad) = metadata.unreadable.first() {
            return Err(self.invalid(bad.to_string()));
        }
        let release = Release {
            requires_python: self.requires_python,
            yanked: self.yanked,
            files: ReleaseFiles::new(version.clone(), files),
            version,
        };
        Ok((dist, release, metadata, self.pure.then_some(sdist)))
    }
}

impl MemoryCatalog {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) one release.
    pub fn add(&mut self, release: MemoryRelease) -> Result<&mut Self, InvalidRelease> {
        let (dist, release, metadata, pure) = release.build()?;
        self.pure_sdists.extend(pure);
        let entry = self.dists.entry(dist).or_default();
        let mut releases: Vec<Release> = entry
            .releases
            .iter()
            .filter(|r| r.version != release.version)
            .cloned()
            .collect();
        entry
            .by_version
            .insert(release.version.clone(), Arc::new(metadata));
        releases.push(release);
        releases.sort_by(|a, b| a.version.cmp(&b.version));
        entry.releases = releases.into();
        Ok(self)
    }
}

impl MemoryCatalog {
    /// The sdists the solver asked about so far, in order.
    pub fn surveyed(&self) -> Vec<String> {
        self.surveyed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Catalog for MemoryCatalog {
    fn releases(&self, dist: &DistName) -> Result<Arc<[Release]>, CatalogError> {
        self.dists
            .get(dist)
            .map(|d| d.releases.clone())
            .ok_or_else(|| CatalogError::NotFound { dist: dist.clone() })
    }

    fn metadata(
        &self,
        dist: &DistName,
        release: &Release,
        _target: &Target,
    ) -> Result<Arc<ReleaseMetadata>, CatalogError> {
        self.dists
            .get(dist)
            .and_then(|d| d.by_version.get(&release.version))
            .cloned()
            .ok_or_else(|| CatalogError::NoFiles {
                dist: dist.clone(),
                version: release.version.clone(),
            })
    }

    fn is_pure_python_sdist(&self, _dist: &DistName, _release: &Release, sdist: &DistFile) -> bool {
        self.surveyed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(sdist.filename.clone());
        self.pure_sdists.contains(&sdist.filename)
    }
}

use std::path::PathBuf;
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue, ACCEPT, IF_MODIFIED_SINCE, IF_NONE_MATCH};
use reqwest::Url;

use super::archive::{ArchiveContents, ArchiveLimits, ReadMethod, Transfer};
use super::archive_reader::ArchiveReader;
use super::cache::{check_sha256, hex_sha256, now_secs, unless_disk_full, Cache, CachedPage};
use super::cache_budget::DEFAULT_CACHE_BUDGET;
use super::compact_page::{self, CompactError, PageFingerprint, ProjectRelease};
use super::dist_file::{DistFile, MetadataHint};
use super::error::PypiError;
use super::filename::{FileKind, SdistFormat};
use super::http::{Budget, EventSink, HttpClient, HttpConfig, HttpEvent};
use super::metadata::{CoreMetadata, MetadataSource};
use super::project::{PageFormat, ProjectPage};
use super::remote_file::RemoteFile;
use super::sdist::{is_streamed, unsupported};
use super::streamed_file::StreamedFile;
use super::{egg_requires, metadata_memo};
use super::{simple_html, simple_json, simple_page};
use crate::names::DistName;

/// PEP 691 JSON first; PEP 503 HTML for indexes that only speak that.
const ACCEPT_SIMPLE: &str = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01";

pub const PYPI_SIMPLE: &str = "https://pypi.org/simple/";

/// Everything that configures an [`IndexClient`].
#[derive(Debug, Clone)]
pub struct IndexConfig {
    /// The simple API root, e.g. `https://pypi.org/simple/`.
    pub index_url: String,
    pub cache_dir: PathBuf,
    /// Serve only from the cache.
    pub offline: bool,
    /// How long an index page is used without asking the index whether it changed.
    pub page_ttl: Duration,
    pub http: HttpConfig,
    pub limits: ArchiveLimits,
    /// Ranges closer than this many bytes are fetched in one request. A request costs a round
    /// trip (through a proxy, a large share of a small member's time), and in a manylinux wheel
    /// the Python files sit between compiled libraries: fetching gaps of up to 256 KiB with
    /// them cut `scripts/bench-bank`'s wall time by about a fifth for 1.5x the bytes (64 KiB:
    /// 1.0 GiB in about 11,500 requests; 256 KiB: 1.8 GiB).
    pub merge_gap: u64,
    /// Bytes of archives and ranges the cache may keep (least recently used go first).
    pub cache_budget: u64,
}

impl IndexConfig {
    pub fn new(index_url: impl Into<String>, cache_dir: impl Into<PathBuf>) -> Self {
        Self {
            index_url: index_url.into(),
            cache_dir: cache_dir.into(),
            offline: false,
            page_ttl: Duration::from_secs(600),
            http: HttpConfig::default(),
            limits: ArchiveLimits::default(),
            merge_gap: 256 << 10,
            cache_budget: DEFAULT_CACHE_BUDGET,
        }
    }
}

/// A client for one package index: project pages, core metadata, archive members.
pub struct IndexClient {
    index: Url,
    cache: Cache,
    http: HttpClient,
    offline: bool,
    page_ttl: Duration,
    limits: ArchiveLimits,
    merge_gap: u64,
}

impl IndexClient {
    pub fn new(config: IndexConfig, events: Option<EventSink>) -> Result<Self, PypiError> {
        let mut raw = config.index_url.trim().to_string();
        if !raw.ends_with('/') {
            raw.push('/');
        }
        let index = Url::parse(&raw).map_err(|e| PypiError::BadIndexUrl {
            url: config.index_url.clone(),
            message: e.to_string(),
        })?;
        if !matches!(index.scheme(), "http" | "https") {
            return Err(PypiError::BadIndexUrl {
                url: config.index_url,
                message: "only http and https indexes are supported".into(),
            });
        }
        Ok(Self {
            index,
            cache: Cache::with_budget(config.cache_dir, config.cache_budget),
            http: HttpClient::new(config.http, events),
            offline: config.offline,
            page_ttl: config.page_ttl,
            limits: config.limits,
            merge_gap: config.merge_gap,
        })
    }

    pub fn index_url(&self) -> &Url {
        &self.index
    }

    pub fn http(&self) -> &HttpClient {
        &self.http
    }

    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    /// The project's page: every file with its version, hashes, size, upload time, yanked
    /// state and requires-python.
    ///
    /// A page the cache may serve as it is (fresh, or offline) is read from its compact copy
    /// when that copy was made from the same body; otherwise the page is fetched or
    /// revalidated as usual, parsed, and its compact copy made again.
    pub fn project(&self, name: &DistName) -> Result<ProjectPage, PypiError> {
        self.read_project(
            name,
            |file, fingerprint| compact_page::decode(file, fingerprint, name),
            |page| page,
        )
    }

    /// The project's releases, oldest first, each with its release-wide facts (yanked,
    /// Requires-Python) and only the files `keep` accepts: what a resolver for one platform
    /// reads, without making the files it would discard. Served like [`Self::project`].
    pub fn project_releases(
        &self,
        name: &DistName,
        keep: &dyn Fn(&FileKind) -> bool,
    ) -> Result<Vec<ProjectRelease>, PypiError> {
        self.read_project(
            name,
            |file, fingerprint| compact_page::decode_releases(file, fingerprint, name, keep),
            |page| compact_page::page_releases(page, keep),
        )
    }

    /// Reads a project's page through its compact copy when that copy speaks for the page
    /// the cache serves, else fetches (or revalidates) and parses it, and keeps a new copy.
    fn read_project<T>(
        &self,
        name: &DistName,
        from_compact: impl Fn(std::fs::File, &PageFingerprint) -> Result<T, CompactError>,
        from_page: impl FnOnce(ProjectPage) -> T,
    ) -> Result<T, PypiError> {
        let url = self
            .index
            .join(&format!("{name}/"))
            .map_err(|e| PypiError::BadIndexUrl {
                url: self.index.to_string(),
                message: e.to_string(),
            })?;
        let key = url.as_str();
        let compact = |fingerprint: &PageFingerprint| {
            let file = self.cache.open_compact(key, ACCEPT_SIMPLE)?;
            from_compact(file, fingerprint).ok()
        };
        if let Some(header) = self.cache.get_page_header(key, ACCEPT_SIMPLE) {
            if self.serves_as_is(&header) {
                if let Some(found) = PageFingerprint::from_header(&header).and_then(|f| compact(&f))
                {
                    self.http.emit(HttpEvent::CacheHit { url: key });
                    return Ok(found);
                }
            }
        }
        let page = self.fetch_page(&url, name)?;
        let fingerprint = PageFingerprint::of(&page);
        if page.digest.is_none() {
            self.cache
                .record_page_digest(key, ACCEPT_SIMPLE, &page, &fingerprint.digest)?;
        }
        if let Some(found) = compact(&fingerprint) {
            return Ok(found);
        }
        let parsed = parse_page(name, &url, &page)?;
        // A copy that fails to be written only costs the next run a parse.
        unless_disk_full(self.cache.put_compact(
            key,
            ACCEPT_SIMPLE,
            &compact_page::encode(&parsed, &fingerprint),
        ))?;
        Ok(from_page(parsed))
    }

    /// Whether a cached page is used without asking the index: offline, or within its TTL.
    fn serves_as_is(&self, page: &CachedPage) -> bool {
        self.offline || now_secs().saturating_sub(page.fetched_at) < self.page_ttl.as_secs()
    }

    fn fetch_page(&self, url: &Url, name: &DistName) -> Result<CachedPage, PypiError> {
        let key = url.as_str();
        let cached = self.cache.get_page(key, ACCEPT_SIMPLE);
        if let Some(page) = &cached {
            if self.serves_as_is(page) {
                self.http.emit(HttpEvent::CacheHit { url: key });
                return Ok(page.clone());
            }
        }
        if self.offline {
            return Err(PypiError::Offline {
                url: url.to_string(),
            });
        }
        let mut headers: Vec<(HeaderName, HeaderValue)> =
            vec![(ACCEPT, HeaderValue::from_static(ACCEPT_SIMPLE))];
        if let Some(page) = &cached {
            if let Some(v) = page
                .etag
                .as_deref()
                .and_then(|v| HeaderValue::from_str(v).ok())
            {
                headers.push((IF_NONE_MATCH, v));
            }
            if let Some(v) = page
                .last_modified
                .as_deref()
                .and_then(|v| HeaderValue::from_str(v).ok())
            {
                headers.push((IF_MODIFIED_SINCE, v));
            }
        }
        let response = self.http.get(url, &headers, Budget::Page)?;
        match response.status {
            304 if cached.is_some() => {
                let mut page = cached.expect("checked above");
                page.fetched_at = now_secs();
                unless_disk_full(self.cache.put_page(key, ACCEPT_SIMPLE, &page))?;
                self.http.emit(HttpEvent::NotModified { url: key });
                Ok(page)
            }
            200 => {
                let page = CachedPage {
                    final_url: response.final_url.to_string(),
                    content_type: response.header("content-type").map(str::to_string),
                    etag: response.header("etag").map(str::to_string),
                    last_modified: response.header("last-modified").map(str::to_string),
                    fetched_at: now_secs(),
                    digest: Some(hex_sha256(&response.body)),
                    body: response.body,
                };
                // A page that fails to cache is still good to use.
                unless_disk_full(self.cache.put_page(key, ACCEPT_SIMPLE, &page))?;
                Ok(page)
            }
            404 | 410 => Err(PypiError::ProjectNotFound {
                name: name.to_string(),
                url: url.to_string(),
            }),
            status => Err(PypiError::Status {
                url: url.to_string(),
                status,
                detail: None,
            }),
        }
    }

    /// What the client will read out of an archive.
    pub fn limits(&self) -> ArchiveLimits {
        self.limits
    }

    /// Opens `file` for reading members: a wheel or a zip sdist by HTTP Range (its central
    /// directory is read now), a tarball sdist as a stream when members are read.
    pub fn open_archive(&self, file: &DistFile) -> Result<ArchiveReader<'_>, PypiError> {
        self.open_archive_within(file, self.limits)
    }

    /// [`Self::open_archive`] under other limits.
    pub(crate) fn open_archive_within(
        &self,
        file: &DistFile,
        limits: ArchiveLimits,
    ) -> Result<ArchiveReader<'_>, PypiError> {
        match &file.kind {
            FileKind::Wheel { .. }
            | FileKind::Sdist {
                format: SdistFormat::Zip,
            } => {
                let remote =
                    RemoteFile::open(&self.http, &self.cache, file, self.offline, self.merge_gap)?;
                ArchiveReader::zip(remote, limits)
            }
            FileKind::Sdist { format } if is_streamed(*format) => Ok(ArchiveReader::tar(
                StreamedFile::new(&self.http, &self.cache, file, self.offline, limits),
                *format,
                limits,
            )),
            FileKind::Sdist { format } => Err(unsupported(&file.filename, *format)),
        }
    }

    /// Lists `file` and reads the members `select` picks: wheels and zip sdists by HTTP Range
    /// (central directory, then only those members), tarball sdists streamed through.
    pub fn read_archive(
        &self,
        file: &DistFile,
        select: &dyn Fn(&str) -> bool,
    ) -> Result<ArchiveContents, PypiError> {
        let mut reader = self.open_archive(file)?;
        let members = reader.read(select)?;
        Ok(ArchiveContents {
            entries: reader.entries()?,
            members,
            transfer: reader.transfer(),
        })
    }

    /// The whole file, from the cache or the index, checked against its sha256.
    pub fn download(&self, file: &DistFile) -> Result<(Vec<u8>, Transfer), PypiError> {
        let key = file.cache_key();
        let mut transfer = Transfer {
            method: Some(ReadMethod::Full),
            ..Transfer::default()
        };
        if let Some(bytes) = self.cache.get_blob("files", &key) {
            self.http.emit(HttpEvent::CacheHit { url: &file.url });
            transfer.archive_size = bytes.len() as u64;
            return Ok((bytes, transfer));
        }
        if self.offline {
            return Err(PypiError::Offline {
                url: file.url.clone(),
            });
        }
        let url = Url::parse(&file.url).map_err(|e| PypiError::BadPage {
            url: file.url.clone(),
            message: e.to_string(),
        })?;
        let response = self.http.get(&url, &[], Budget::File)?;
        transfer.requests = 1;
        transfer.bytes_fetched = response.body.len() as u64;
        if response.status != 200 {
            return Err(PypiError::Status {
                url: file.url.clone(),
                status: response.status,
                detail: None,
            });
        }
        check_sha256(&file.url, file.sha256(), &response.body)?;
        unless_disk_full(self.cache.put_blob("files", &key, &response.body))?;
        transfer.archive_size = response.body.len() as u64;
        Ok((response.body, transfer))
    }

    /// The file's core metadata: the PEP 658 file if the index serves one, else METADATA from
    /// the wheel (by range), else PKG-INFO from the sdist.
    pub fn core_metadata(
        &self,
        file: &DistFile,
    ) -> Result<(CoreMetadata, MetadataSource), PypiError> {
        let bad = |message: String| PypiError::NoMetadata {
            file: file.filename.clone(),
            message,
        };
        let hinted = matches!(file.kind, FileKind::Wheel { .. })
            && file.core_metadata != MetadataHint::Absent;
        let pep658_key = format!("{}.metadata", file.cache_key());
        if hinted {
            if let Some(bytes) = self.cache.get_blob("metadata", &pep658_key) {
                let meta = CoreMetadata::parse(&bytes).map_err(|e| bad(e.to_string()))?;
                return Ok((meta, MetadataSource::Pep658));
            }
        }
        // Read out of this very archive before: no request, no archive to open.
        if let Some(found) = self
            .cache
            .get_blob("metadata", &metadata_memo::key(file))
            .and_then(|bytes| metadata_memo::decode(&bytes))
        {
            return Ok(found);
        }
        let (raw, source) = match &file.kind {
            FileKind::Wheel { .. } => {
                if hinted {
                    if let Some(bytes) = self.pep658_metadata(file)? {
                        let meta = CoreMetadata::parse(&bytes).map_err(|e| bad(e.to_string()))?;
                        return Ok((meta, MetadataSource::Pep658));
                    }
                }
                let is_metadata = |name: &str| {
                    name.strip_suffix(".dist-info/METADATA")
                        .is_some_and(|dir| !dir.contains('/'))
                };
                let contents = self.read_archive(file, &is_metadata)?;
                let member = contents
                    .members
                    .into_iter()
                    .next()
                    .ok_or_else(|| bad("the wheel has no .dist-info/METADATA".into()))?;
                (member.data, MetadataSource::Wheel)
            }
            FileKind::Sdist { .. } => {
                let is_pkg_info = |name: &str| {
                    name == "PKG-INFO"
                        || name
                            .strip_suffix("/PKG-INFO")
                            .is_some_and(|dir| !dir.contains('/'))
                };
                let wanted = |name: &str| is_pkg_info(name) || egg_requires::is_requires_txt(name);
                let contents = self.read_archive(file, &wanted)?;
                let (pkg_infos, requires): (Vec<_>, Vec<_>) = contents
                    .members
                    .into_iter()
                    .partition(|m| is_pkg_info(&m.name));
                let member = pkg_infos
                    .into_iter()
                    .min_by_key(|m| m.name.len())
                    .ok_or_else(|| bad("the sdist has no PKG-INFO".into()))?;
                // The egg-info's requires.txt where PKG-INFO is too old to declare any.
                let requires_txt = requires.iter().min_by_key(|m| m.name.len());
                let raw = requires_txt
                    .and_then(|r| {
                        egg_requires::with_requires(&member.data, &String::from_utf8_lossy(&r.data))
                    })
                    .unwrap_or(member.data);
                (raw, MetadataSource::Sdist)
            }
        };
        let meta = CoreMetadata::parse(&raw).map_err(|e| bad(e.to_string()))?;
        // A memo that fails to be written only costs the next run the archive read.
        unless_disk_full(self.cache.put_blob(
            "metadata",
            &metadata_memo::key(file),
            &metadata_memo::encode(source, &raw),
        ))?;
        Ok((meta, source))
    }

    /// The PEP 658 file, or `None` when the index has none for this file (or, offline, when
    /// it is not cached: the wheel's own METADATA may still be).
    fn pep658_metadata(&self, file: &DistFile) -> Result<Option<Vec<u8>>, PypiError> {
        let key = format!("{}.metadata", file.cache_key());
        if let Some(bytes) = self.cache.get_blob("metadata", &key) {
            return Ok(Some(bytes));
        }
        if self.offline {
            return Ok(None);
        }
        let Ok(url) = Url::parse(&format!("{}.metadata", file.url)) else {
            return Ok(None);
        };
        let response = match self.http.get(&url, &[], Budget::Page) {
            Ok(r) => r,
            // The wheel itself is the fallback; a flaky .metadata endpoint should not fail us.
            Err(PypiError::Status { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        if response.status != 200 {
            return Ok(None);
        }
        if let MetadataHint::Available { sha256 } = &file.core_metadata {
            check_sha256(url.as_str(), sha256.as_deref(), &response.body)?;
        }
        unless_disk_full(self.cache.put_blob("metadata", &key, &response.body))?;
        Ok(Some(response.body))
    }
}

/// Reads a fetched page body as its content type says: PEP 691 JSON, else PEP 503 HTML.
fn parse_page(name: &DistName, url: &Url, page: &CachedPage) -> Result<ProjectPage, PypiError> {
    let final_url = Url::parse(&page.final_url).unwrap_or(url.clone());
    let is_json = page
        .content_type
        .as_deref()
        .is_some_and(|c| c.contains("json"));
    let bad_page = |message: String| PypiError::BadPage {
        url: final_url.to_string(),
        message,
    };
    let (format, raw, base) = if is_json {
        let raw = simple_json::parse(&page.body).map_err(|e| bad_page(e.to_string()))?;
        (PageFormat::Json, raw, None)
    } else {
        let (raw, base) = simple_html::parse(&page.body);
        (PageFormat::Html, raw, base)
    };
    let base = match base {
        Some(b) => final_url.join(&b).map_err(|e| bad_page(e.to_string()))?,
        None => final_url.clone(),
    };
    simple_page::build_page(name, &base, format, raw).map_err(|e| bad_page(e.to_string()))
}

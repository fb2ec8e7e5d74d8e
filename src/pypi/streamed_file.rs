//! A file read front to back, as tarballs must be: from the cache when it holds the file,
//! else as it arrives from the index, its sha256 checked on the way, and never held whole in
//! memory.

use std::io::{Read, Write};

use reqwest::Url;
use sha2::{Digest, Sha256};

use super::archive::{ArchiveLimits, ReadMethod, Transfer};
use super::cache::{unless_disk_full, Cache};
use super::cache_usage::EntryKind;
use super::dist_file::DistFile;
use super::error::PypiError;
use super::http::{Budget, HttpClient};
use crate::disk_full::Limit;

pub struct StreamedFile<'a> {
    http: &'a HttpClient,
    cache: &'a Cache,
    file: DistFile,
    offline: bool,
    limits: ArchiveLimits,
    pub transfer: Transfer,
}

/// What went wrong under a consumer, which sees only `std::io::Error`s.
#[derive(Default)]
struct Trouble {
    network: Option<String>,
    too_large: bool,
    /// The cache's copy could not be written for a full disk.
    disk_full: Option<std::io::Error>,
}

impl<'a> StreamedFile<'a> {
    pub fn new(
        http: &'a HttpClient,
        cache: &'a Cache,
        file: &DistFile,
        offline: bool,
        limits: ArchiveLimits,
    ) -> Self {
        Self {
            http,
            cache,
            file: file.clone(),
            offline,
            limits,
            transfer: Transfer {
                archive_size: file.size.unwrap_or(0),
                method: Some(ReadMethod::Full),
                ..Transfer::default()
            },
        }
    }

    pub fn filename(&self) -> &str {
        &self.file.filename
    }

    /// Runs `consume` over the file's bytes, in order. A download cut short is started over
    /// (the consumer runs again from the first byte); the file is kept in the cache when the
    /// budget admits it.
    pub fn read_with<T>(
        &mut self,
        consume: &mut dyn FnMut(&mut dyn Read) -> Result<T, PypiError>,
    ) -> Result<T, PypiError> {
        let key = self.file.cache_key();
        if let Some(path) = self.cache.blob_path("files", &key) {
            if let Ok(file) = std::fs::File::open(&path) {
                self.transfer.archive_size = file.metadata().map_or(0, |m| m.len());
                return consume(&mut std::io::BufReader::with_capacity(64 << 10, file));
            }
        }
        if self.offline {
            return Err(PypiError::Offline {
                url: self.file.url.clone(),
            });
        }
        let max = self.limits.max_streamed_size;
        if let Some(size) = self.file.size.filter(|&s| s > max) {
            return Err(self.too_large(Some(size)));
        }
        let url = Url::parse(&self.file.url).map_err(|e| PypiError::BadPage {
            url: self.file.url.clone(),
            message: e.to_string(),
        })?;
        let mut attempt = 0;
        loop {
            match self.attempt(&url, &key, consume) {
                Err(Failure::Network(cause)) if attempt < self.http.retries() => {
                    attempt += 1;
                    self.http.back_off(&url, attempt, &cause);
                }
                Err(Failure::Network(cause)) => {
                    return Err(PypiError::Network {
                        url: url.to_string(),
                        attempts: attempt + 1,
                        cause,
                    })
                }
                Err(Failure::Final(e)) => return Err(e),
                Ok(value) => return Ok(value),
            }
        }
    }

    fn attempt<T>(
        &mut self,
        url: &Url,
        key: &str,
        consume: &mut dyn FnMut(&mut dyn Read) -> Result<T, PypiError>,
    ) -> Result<T, Failure> {
        let mut response = self
            .http
            .get_stream(url, &[], Budget::File)
            .map_err(Failure::Final)?;
        self.transfer.requests += 1;
        if response.status != 200 {
            return Err(Failure::Final(PypiError::Status {
                url: url.to_string(),
                status: response.status,
                detail: (response.status == 404)
                    .then(|| "file listed by the index is missing".to_string()),
            }));
        }
        let declared = self.file.size.or(response.content_length());
        if let Some(len) = declared.filter(|&len| len > self.limits.max_streamed_size) {
            return Err(Failure::Final(self.too_large(Some(len))));
        }
        let keep = declared.and_then(|len| self.cache.blob_writer("files", key, len));
        let mut tracked = Tracked {
            inner: &mut response,
            hasher: Sha256::new(),
            copy: keep,
            read: 0,
            max: self.limits.max_streamed_size,
            trouble: Trouble::default(),
        };
        let consumed = consume(&mut tracked);
        // The rest (tar padding, the gzip trailer, or all of it after an error) must be read
        // for the hash: bytes that fail it mean nothing, whatever the consumer made of them.
        let drained = std::io::copy(&mut tracked, &mut std::io::sink());
        self.transfer.bytes_fetched += tracked.read;
        if let Some(cause) = tracked.trouble.network.take() {
            return Err(Failure::Network(cause));
        }
        if tracked.trouble.too_large {
            return Err(Failure::Final(self.too_large(None)));
        }
        let kept_at = self.cache.entry_path(EntryKind::Files, key);
        if let Some(e) = tracked.trouble.disk_full.take() {
            return Err(Failure::Final(PypiError::cache_write(&kept_at, e)));
        }
        let actual = format!("{:x}", tracked.hasher.finalize_reset());
        if drained.is_ok() {
            if let Some(expected) = self.file.sha256() {
                if actual != expected {
                    return Err(Failure::Final(PypiError::HashMismatch {
                        file: self.file.url.clone(),
                        expected: expected.to_string(),
                        actual,
                    }));
                }
            }
        }
        let value = consumed.map_err(Failure::Final)?;
        self.transfer.archive_size = tracked.read;
        if let (Some(mut copy), Ok(_)) = (tracked.copy.take(), drained) {
            // A cache that fails to keep the file costs a download next time, nothing more.
            let kept = copy
                .flush()
                .map_err(|e| PypiError::cache_write(&kept_at, e))
                .and_then(|()| self.cache.keep_blob("files", key, copy));
            unless_disk_full(kept).map_err(Failure::Final)?;
        }
        Ok(value)
    }

    fn too_large(&self, size: Option<u64>) -> PypiError {
        let max = self.limits.max_streamed_size;
        PypiError::Refused {
            file: self.file.filename.clone(),
            message: format!(
                "{} the {} MiB limit for sdists that must be read whole (NBENV_MAX_SDIST_SIZE)",
                match size {
                    Some(s) => format!("{} MiB, more than", s.div_ceil(1 << 20)),
                    None => "larger than".to_string(),
                },
                max >> 20
            ),
        }
    }
}

enum Failure {
    /// The transfer broke off: worth starting over.
    Network(String),
    Final(PypiError),
}

/// The response as the consumer reads it: hashed, counted against the size limit, copied to
/// the cache when it is to be kept, and with network errors told apart from the consumer's.
struct Tracked<'r> {
    inner: &'r mut dyn Read,
    hasher: Sha256,
    copy: Option<tempfile::NamedTempFile>,
    read: u64,
    max: u64,
    trouble: Trouble,
}

impl Read for Tracked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.trouble.network.is_some() || self.trouble.too_large {
            return Err(std::io::Error::other("the download already failed"));
        }
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Err(e),
            Err(e) => {
                self.trouble.network = Some(format!("reading the body: {e}"));
                return Err(e);
            }
        };
        self.read += n as u64;
        if self.read > self.max {
            self.trouble.too_large = true;
            return Err(std::io::Error::other("archive size limit exceeded"));
        }
        self.hasher.update(&buf[..n]);
        if let Some(copy) = &mut self.copy {
            if let Err(e) = copy.write_all(&buf[..n]) {
                if Limit::of_io(&e).is_some() {
                    self.trouble.disk_full = Some(e);
                }
                self.copy = None;
            }
        }
        Ok(n)
    }
}

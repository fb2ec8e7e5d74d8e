use std::borrow::Cow;
use std::ops::Range;

use reqwest::header::{HeaderName, HeaderValue, RANGE};
use reqwest::Url;

use super::archive::{ReadMethod, Transfer};
use super::byte_source::{merge_ranges, ByteSource, Chunks};
use super::cache::{check_sha256, unless_disk_full, Cache};
use super::dist_file::DistFile;
use super::error::PypiError;
use super::http::{Budget, HttpClient};
use super::zip_directory::TAIL_LEN;

/// A remote archive read with HTTP Range requests, backed by the on-disk cache.
///
/// Only single ranges are ever sent (multi-range answers are often the whole file) and every
/// answer is checked for 206: a server that ignores Range gets downloaded once, whole, and
/// the rest is served from that copy.
pub struct RemoteFile<'a> {
    http: &'a HttpClient,
    cache: &'a Cache,
    url: Url,
    filename: String,
    key: String,
    sha256: Option<String>,
    len: u64,
    chunks: Chunks,
    whole: bool,
    offline: bool,
    merge_gap: u64,
    pub transfer: Transfer,
}

impl<'a> RemoteFile<'a> {
    pub fn open(
        http: &'a HttpClient,
        cache: &'a Cache,
        file: &DistFile,
        offline: bool,
        merge_gap: u64,
    ) -> Result<Self, PypiError> {
        let url = Url::parse(&file.url).map_err(|e| PypiError::BadPage {
            url: file.url.clone(),
            message: e.to_string(),
        })?;
        let key = file.cache_key();
        let mut remote = Self {
            http,
            cache,
            url,
            filename: file.filename.clone(),
            sha256: file.sha256().map(str::to_string),
            len: file.size.unwrap_or(0),
            chunks: Chunks::default(),
            whole: false,
            offline,
            merge_gap,
            transfer: Transfer {
                method: Some(ReadMethod::Ranges),
                ..Transfer::default()
            },
            key,
        };
        if let Some(bytes) = cache.get_blob("files", &remote.key) {
            remote.set_whole(bytes);
            return Ok(remote);
        }
        for (start, bytes) in cache.get_ranges(&remote.key) {
            remote.chunks.insert(start, bytes);
        }
        if file.size.is_none() {
            remote.len = cache.get_len(&remote.key).unwrap_or(0);
        }
        if remote.len == 0 {
            // Unknown size: a suffix range gives the tail and, in Content-Range, the length.
            remote.fetch(None)?;
        }
        remote.transfer.archive_size = remote.len;
        Ok(remote)
    }

    fn set_whole(&mut self, bytes: Vec<u8>) {
        self.len = bytes.len() as u64;
        self.chunks = Chunks::default();
        self.chunks.insert(0, bytes);
        self.whole = true;
        self.transfer.archive_size = self.len;
        self.transfer.method = Some(ReadMethod::Full);
    }

    /// Fetches `range`, or the file's tail when `None`.
    fn fetch(&mut self, range: Option<Range<u64>>) -> Result<(), PypiError> {
        if self.offline {
            return Err(PypiError::Offline {
                url: self.url.to_string(),
            });
        }
        let spec = match &range {
            Some(r) => format!("bytes={}-{}", r.start, r.end - 1),
            None => format!("bytes=-{TAIL_LEN}"),
        };
        let headers: [(HeaderName, HeaderValue); 1] = [(
            RANGE,
            HeaderValue::from_str(&spec).expect("range header is ASCII"),
        )];
        let response = self.http.get(&self.url, &headers, Budget::File)?;
        self.transfer.requests += 1;
        self.transfer.bytes_fetched += response.body.len() as u64;
        match response.status {
            206 => {
                let content_range = response.header("content-range").unwrap_or_default();
                let (start, total) =
                    parse_content_range(content_range).ok_or_else(|| PypiError::BadArchive {
                        file: self.url.to_string(),
                        message: format!("unreadable Content-Range `{content_range}`"),
                    })?;
                if let Some(total) = total {
                    if self.len == 0 {
                        self.len = total;
                        unless_disk_full(self.cache.put_len(&self.key, total))?;
                    } else if total != self.len {
                        return Err(PypiError::BadArchive {
                            file: self.url.to_string(),
                            message: format!(
                                "the server says the file has {total} bytes, the index says {}",
                                self.len
                            ),
                        });
                    }
                }
                unless_disk_full(self.cache.put_range(&self.key, start, &response.body))?;
                self.chunks.insert(start, response.body);
                Ok(())
            }
            200 => {
                // The server ignored Range and sent everything: keep it whole.
                let body = response.body;
                check_sha256(self.url.as_str(), self.sha256.as_deref(), &body)?;
                unless_disk_full(self.cache.put_blob("files", &self.key, &body))?;
                self.set_whole(body);
                Ok(())
            }
            404 => Err(PypiError::Status {
                url: self.url.to_string(),
                status: 404,
                detail: Some("file listed by the index is missing".into()),
            }),
            status => Err(PypiError::Status {
                url: self.url.to_string(),
                status,
                detail: Some(format!("asked for {spec}")),
            }),
        }
    }
}

impl ByteSource for RemoteFile<'_> {
    fn len(&self) -> u64 {
        self.len
    }

    fn prefetch(&mut self, ranges: &[Range<u64>]) -> Result<(), PypiError> {
        if self.whole {
            return Ok(());
        }
        let gaps: Vec<Range<u64>> = ranges
            .iter()
            .flat_map(|r| self.chunks.missing(r.start..r.end.min(self.len)))
            .collect();
        for range in merge_ranges(gaps, self.merge_gap) {
            if self.whole {
                break;
            }
            if self.chunks.missing(range.clone()).is_empty() {
                continue;
            }
            self.fetch(Some(range))?;
        }
        Ok(())
    }

    fn read(&mut self, range: Range<u64>) -> Result<Cow<'_, [u8]>, PypiError> {
        if range.end > self.len {
            return Err(PypiError::BadArchive {
                file: self.filename.clone(),
                message: format!("offset {} is past the end of the file", range.end),
            });
        }
        if !self.chunks.missing(range.clone()).is_empty() {
            self.prefetch(std::slice::from_ref(&range))?;
        }
        self.chunks
            .get(range.clone())
            .ok_or_else(|| PypiError::BadArchive {
                file: self.url.to_string(),
                message: format!(
                    "the server did not return bytes {}..{}",
                    range.start, range.end
                ),
            })
    }

    fn name(&self) -> &str {
        &self.filename
    }
}

/// `bytes 100-199/1000` → (100, Some(1000)); `bytes 100-199/*` → (100, None).
fn parse_content_range(value: &str) -> Option<(u64, Option<u64>)> {
    let rest = value.trim().strip_prefix("bytes")?.trim_start();
    let (span, total) = rest.split_once('/')?;
    let (start, _end) = span.split_once('-')?;
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    Some((start.trim().parse().ok()?, total))
}

#[cfg(test)]
mod tests {
    use super::parse_content_range;

    #[test]
    fn content_range() {
        assert_eq!(
            parse_content_range("bytes 100-199/1000"),
            Some((100, Some(1000)))
        );
        assert_eq!(parse_content_range("bytes 0-9/*"), Some((0, None)));
        assert_eq!(parse_content_range("items 0-9/10"), None);
    }
}

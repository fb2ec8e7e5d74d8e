use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Once, OnceLock};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};
use reqwest::Url;

use super::error::PypiError;
use super::limiter::{Limiter, Permit};
use super::retry::RetryPolicy;
use crate::timings::{self, Stage};

/// The default of [`HttpConfig::max_page_body`].
pub const DEFAULT_MAX_PAGE_BODY: u64 = 64 << 20;

/// Settings of the HTTP layer.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub retry: RetryPolicy,
    pub max_concurrency: usize,
    pub connect_timeout: Duration,
    /// Whole-request limit for index pages and `.metadata` files.
    pub page_timeout: Duration,
    /// Whole-request limit for archive downloads and ranges (and bank snapshots).
    pub file_timeout: Duration,
    /// Largest body accepted for any one response.
    pub max_body: u64,
    /// Largest index page or `.metadata` file accepted: they are held in memory whole. The
    /// largest simple page of PyPI seen (JSON, `ddtrace`, November 2026) is 21 MB; the default
    /// leaves three times that, and refuses a page that would take a worker's memory.
    pub max_page_body: u64,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            retry: RetryPolicy::default(),
            max_concurrency: 8,
            connect_timeout: Duration::from_secs(15),
            page_timeout: Duration::from_secs(60),
            file_timeout: Duration::from_secs(900),
            max_body: 1 << 30,
            max_page_body: DEFAULT_MAX_PAGE_BODY,
        }
    }
}

/// Something worth telling a user who asked for `--verbose`.
#[derive(Debug)]
pub enum HttpEvent<'a> {
    Request {
        url: &'a Url,
        range: Option<&'a str>,
    },
    Retry {
        url: &'a Url,
        attempt: u32,
        delay: Duration,
        cause: &'a str,
    },
    CacheHit {
        url: &'a str,
    },
    NotModified {
        url: &'a str,
    },
}

pub type EventSink = Arc<dyn Fn(&HttpEvent<'_>) + Send + Sync>;

/// A response whose body has been read in full.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub final_url: Url,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Which request timeout applies.
#[derive(Debug, Clone, Copy)]
pub enum Budget {
    Page,
    File,
}

/// Blocking HTTP with retries, a concurrency bound and transfer accounting.
pub struct HttpClient {
    /// Built on the first request: building it reads the system's CA certificates, a large
    /// share of a command that the cache answers whole (`nbenv infer` on a warm bank).
    client: OnceLock<reqwest::blocking::Client>,
    config: HttpConfig,
    limiter: Limiter,
    events: Option<EventSink>,
    bytes_received: AtomicU64,
    requests: AtomicU64,
}

static INSTALL_PROVIDER: Once = Once::new();

impl HttpClient {
    pub fn new(config: HttpConfig, events: Option<EventSink>) -> Self {
        Self {
            client: OnceLock::new(),
            limiter: Limiter::new(config.max_concurrency),
            config,
            events,
            bytes_received: AtomicU64::new(0),
            requests: AtomicU64::new(0),
        }
    }

    /// The reqwest client, built once.
    fn client(&self) -> Result<&reqwest::blocking::Client, PypiError> {
        if let Some(client) = self.client.get() {
            return Ok(client);
        }
        // reqwest is built without a default crypto provider; ring is the one we ship. The
        // platform verifier then trusts the system CA bundle (and SSL_CERT_FILE), which a
        // built-in webpki root list would not: proxies with their own CA need that.
        INSTALL_PROVIDER.call_once(|| {
            let _ = rustls::crypto::ring::default_provider().install_default();
        });
        let built = reqwest::blocking::Client::builder()
            .user_agent(concat!("nbenv/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(self.config.connect_timeout)
            .timeout(None)
            .build()
            .map_err(|e| PypiError::Client(error_chain(&e)))?;
        // Two threads may build one each; the first kept is used by all.
        Ok(self.client.get_or_init(|| built))
    }

    /// Says that `url` is tried again, and why, then waits the retry policy's delay (or what
    /// the server asked for with Retry-After).
    fn wait_to_retry(
        &self,
        url: &Url,
        attempt: u32,
        retry_after: Option<std::time::Duration>,
        cause: &str,
    ) {
        let delay = self.config.retry.delay(attempt, retry_after);
        self.emit(HttpEvent::Retry {
            url,
            attempt,
            delay,
            cause,
        });
        std::thread::sleep(delay);
    }

    pub fn emit(&self, event: HttpEvent<'_>) {
        if let Some(sink) = &self.events {
            sink(&event);
        }
    }

    /// Bytes of response bodies received so far (after decompression), for benchmarks.
    pub fn bytes_received(&self) -> u64 {
        self.bytes_received.load(Ordering::Relaxed)
    }

    pub fn requests_sent(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// GETs `url`, retrying transient failures. Any final status is returned, not turned into
    /// an error, except retryable ones that persisted: the caller knows what a 404 means.
    pub fn get(
        &self,
        url: &Url,
        headers: &[(HeaderName, HeaderValue)],
        budget: Budget,
    ) -> Result<Response, PypiError> {
        let timeout = match budget {
            Budget::Page => self.config.page_timeout,
            Budget::File => self.config.file_timeout,
        };
        let limit = self.body_limit(budget);
        let range = headers
            .iter()
            .find(|(k, _)| k == reqwest::header::RANGE)
            .and_then(|(_, v)| v.to_str().ok());
        let _clock = timings::start(match (range, budget) {
            (Some(_), _) => Stage::RangeReads,
            (None, Budget::Page) => Stage::IndexPages,
            (None, Budget::File) => Stage::Downloads,
        });
        let mut attempt = 0;
        loop {
            self.emit(HttpEvent::Request { url, range });
            let outcome = {
                let _permit = self.limiter.acquire();
                self.requests.fetch_add(1, Ordering::Relaxed);
                self.attempt(url, headers, timeout, limit)
            };
            let (cause, retry_after) = match outcome {
                Ok(response) if RetryPolicy::is_retryable_status(response.status) => {
                    let retry_after = response
                        .header(RETRY_AFTER.as_str())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(Duration::from_secs);
                    if attempt >= self.config.retry.retries {
                        return Err(PypiError::Status {
                            url: url.to_string(),
                            status: response.status,
                            detail: Some(format!("after {} attempt(s)", attempt + 1)),
                        });
                    }
                    (format!("HTTP {}", response.status), retry_after)
                }
                Ok(response) => return Ok(response),
                Err(Attempt::Fatal(err)) => return Err(err),
                Err(Attempt::Transient(cause)) => {
                    if attempt >= self.config.retry.retries {
                        return Err(PypiError::Network {
                            url: url.to_string(),
                            attempts: attempt + 1,
                            cause,
                        });
                    }
                    (cause, None)
                }
            };
            attempt += 1;
            self.wait_to_retry(url, attempt, retry_after, &cause);
        }
    }

    fn attempt(
        &self,
        url: &Url,
        headers: &[(HeaderName, HeaderValue)],
        timeout: Duration,
        limit: BodyLimit,
    ) -> Result<Response, Attempt> {
        let mut request = self
            .client()
            .map_err(Attempt::Fatal)?
            .get(url.clone())
            .timeout(timeout);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let response = request.send().map_err(|e| {
            if e.is_builder() {
                Attempt::Fatal(PypiError::Network {
                    url: url.to_string(),
                    attempts: 1,
                    cause: error_chain(&e),
                })
            } else {
                Attempt::Transient(error_chain(&e))
            }
        })?;
        let status = response.status().as_u16();
        let final_url = response.url().clone();
        let headers = response.headers().clone();
        // Refused on the length the server announces, else counted as the body arrives: no
        // more than the limit and one byte is ever held.
        if let Some(len) = response.content_length() {
            if len > limit.bytes {
                return Err(Attempt::Fatal(limit.refuse(url)));
            }
        }
        let mut body = Vec::new();
        let mut limited = response.take(limit.bytes + 1);
        limited
            .read_to_end(&mut body)
            .map_err(|e| Attempt::Transient(format!("reading the body: {}", io_chain(&e))))?;
        if body.len() as u64 > limit.bytes {
            return Err(Attempt::Fatal(limit.refuse(url)));
        }
        self.bytes_received
            .fetch_add(body.len() as u64, Ordering::Relaxed);
        Ok(Response {
            status,
            final_url,
            headers,
            body,
        })
    }
}

/// A response whose body is read as it arrives, holding its place among the requests in
/// flight until dropped: a 450 MB sdist is decompressed on the way instead of buffered.
pub struct StreamResponse<'a> {
    pub status: u16,
    pub headers: HeaderMap,
    body: reqwest::blocking::Response,
    counter: &'a AtomicU64,
    _permit: Permit<'a>,
}

impl StreamResponse<'_> {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn content_length(&self) -> Option<u64> {
        self.body.content_length()
    }
}

impl Read for StreamResponse<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = timings::time(Stage::Downloads, || self.body.read(buf))?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl HttpClient {
    /// GETs `url` for reading its body as a stream. Failures before the body starts are retried
    /// as [`HttpClient::get`] does; a failure while reading it surfaces as an I/O error, and the
    /// caller starts over (see [`HttpClient::retries`]).
    pub fn get_stream(
        &self,
        url: &Url,
        headers: &[(HeaderName, HeaderValue)],
        budget: Budget,
    ) -> Result<StreamResponse<'_>, PypiError> {
        let timeout = match budget {
            Budget::Page => self.config.page_timeout,
            Budget::File => self.config.file_timeout,
        };
        let _clock = timings::start(Stage::Downloads);
        let mut attempt = 0;
        loop {
            self.emit(HttpEvent::Request { url, range: None });
            let permit = self.limiter.acquire();
            self.requests.fetch_add(1, Ordering::Relaxed);
            let mut request = self.client()?.get(url.clone()).timeout(timeout);
            for (name, value) in headers {
                request = request.header(name, value);
            }
            let (cause, retry_after) = match request.send() {
                Ok(response) if RetryPolicy::is_retryable_status(response.status().as_u16()) => {
                    let status = response.status().as_u16();
                    if attempt >= self.config.retry.retries {
                        return Err(PypiError::Status {
                            url: url.to_string(),
                            status,
                            detail: Some(format!("after {} attempt(s)", attempt + 1)),
                        });
                    }
                    let retry_after = response
                        .headers()
                        .get(RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(Duration::from_secs);
                    (format!("HTTP {status}"), retry_after)
                }
                Ok(response) => {
                    return Ok(StreamResponse {
                        status: response.status().as_u16(),
                        headers: response.headers().clone(),
                        body: response,
                        counter: &self.bytes_received,
                        _permit: permit,
                    })
                }
                Err(e) if e.is_builder() => {
                    return Err(PypiError::Network {
                        url: url.to_string(),
                        attempts: 1,
                        cause: error_chain(&e),
                    })
                }
                Err(e) => {
                    if attempt >= self.config.retry.retries {
                        return Err(PypiError::Network {
                            url: url.to_string(),
                            attempts: attempt + 1,
                            cause: error_chain(&e),
                        });
                    }
                    (error_chain(&e), None)
                }
            };
            drop(permit);
            attempt += 1;
            self.wait_to_retry(url, attempt, retry_after, &cause);
        }
    }

    /// Retries after the first attempt, for callers that start a streamed read over.
    pub fn retries(&self) -> u32 {
        self.config.retry.retries
    }

    /// Waits before retry `attempt` of a streamed read, saying so.
    pub fn back_off(&self, url: &Url, attempt: u32, cause: &str) {
        self.wait_to_retry(url, attempt, None, cause);
    }
}

enum Attempt {
    Transient(String),
    Fatal(PypiError),
}

/// The largest body read whole for one request, and what it is the limit of.
#[derive(Debug, Clone, Copy)]
struct BodyLimit {
    bytes: u64,
    budget: Budget,
}

impl HttpClient {
    fn body_limit(&self, budget: Budget) -> BodyLimit {
        let bytes = match budget {
            Budget::Page => self.config.max_page_body.min(self.config.max_body),
            Budget::File => self.config.max_body,
        };
        BodyLimit { bytes, budget }
    }
}

impl BodyLimit {
    fn refuse(&self, url: &Url) -> PypiError {
        let size = if self.bytes.is_multiple_of(1 << 20) {
            format!("{} MiB", self.bytes >> 20)
        } else {
            format!("{} bytes", self.bytes)
        };
        PypiError::Refused {
            file: url.to_string(),
            message: match self.budget {
                Budget::Page => format!(
                    "the answer is larger than the {size} limit for index pages and metadata (NBENV_MAX_PAGE_SIZE)"
                ),
                Budget::File => format!("response is larger than the {size} limit"),
            },
        }
    }
}

/// The error and its causes on one line: reqwest's own message ("error sending request")
/// says little without them.
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut out = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = cause.source();
    }
    out
}

fn io_chain(err: &std::io::Error) -> String {
    match err.get_ref() {
        Some(inner) => error_chain(inner),
        None => err.to_string(),
    }
}

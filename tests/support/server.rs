//! A loopback HTTP package index for tests: PEP 691 JSON or PEP 503 HTML pages, files with or
//! without Range support, injected failures, and a log of what was asked.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

use sha2::{Digest, Sha256};

use super::archives::{sdist_tar_gz, WheelBuilder};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageMode {
    Json,
    Html,
}

#[derive(Debug, Clone)]
pub struct Route {
    /// Shared, so that serving a big fixture allocates nothing per request (a test counting
    /// the process's allocations would count the server's copies).
    pub body: Arc<Vec<u8>>,
    pub content_type: String,
    pub etag: Option<String>,
}

#[derive(Debug, Clone)]
pub struct LoggedRequest {
    pub path: String,
    pub range: Option<String>,
    pub accept: Option<String>,
    pub if_none_match: Option<String>,
    pub status: u16,
    pub body_len: usize,
}

#[derive(Default)]
struct State {
    routes: HashMap<String, Route>,
    honor_range: bool,
    failures: HashMap<String, u32>,
    /// Paths whose connection is dropped without an answer, this many times.
    resets: HashMap<String, u32>,
    /// Paths answered only after a pause, this many times.
    delays: HashMap<String, (u32, std::time::Duration)>,
    /// Paths whose answer breaks off after half its body, this many times.
    truncations: HashMap<String, u32>,
    /// Paths whose answer pauses after half its body, this many times.
    stalls: HashMap<String, (u32, std::time::Duration)>,
    /// Paths answered without a Content-Length: the body ends where the connection does.
    no_length: std::collections::HashSet<String>,
    log: Vec<LoggedRequest>,
}

/// A file to publish, with what the index says about it.
#[derive(Debug, Clone, Default)]
pub struct FixtureFile {
    pub filename: String,
    pub bytes: Vec<u8>,
    pub requires_python: Option<String>,
    pub yanked: Option<String>,
    pub upload_time: Option<String>,
    /// Served as the PEP 658 `.metadata` file when present.
    pub metadata: Option<Vec<u8>>,
}

impl FixtureFile {
    pub fn new(filename: &str, bytes: Vec<u8>) -> Self {
        Self {
            filename: filename.to_string(),
            bytes,
            ..Self::default()
        }
    }

    /// The wheel `w` builds, under its own file name, with nothing else said about it.
    pub fn wheel(w: &WheelBuilder) -> Self {
        Self::new(&w.filename(), w.build())
    }

    /// `name-version.tar.gz` holding `files`, with the PKG-INFO of an old setuptools build
    /// (Metadata-Version 1.1, name and version only).
    pub fn sdist(name: &str, version: &str, files: &[(&str, &str)]) -> Self {
        let pkg_info = format!("Metadata-Version: 1.1\nName: {name}\nVersion: {version}\n");
        Self::new(
            &format!("{name}-{version}.tar.gz"),
            sdist_tar_gz(name, version, files, &pkg_info),
        )
    }

    /// The same file, uploaded at midnight (UTC) on `day` (`YYYY-MM-DD`): uv refuses a JSON
    /// page whose files have no upload time, and an era or `--exclude-newer` reads it.
    pub fn uploaded(self, day: &str) -> Self {
        Self {
            upload_time: Some(format!("{day}T00:00:00Z")),
            ..self
        }
    }
}

pub struct TestServer {
    pub addr: SocketAddr,
    pub mode: PageMode,
    state: Arc<Mutex<State>>,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl TestServer {
    pub fn start(mode: PageMode) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State {
            honor_range: true,
            ..State::default()
        }));
        let shared = state.clone();
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = shared.clone();
                thread::spawn(move || {
                    let _ = handle(stream, &shared);
                });
            }
        });
        Self { addr, mode, state }
    }

    pub fn index_url(&self) -> String {
        format!("http://{}/simple/", self.addr)
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn set_honor_range(&self, on: bool) {
        self.state.lock().unwrap().honor_range = on;
    }

    /// The next `n` requests for `path` answer 500.
    pub fn fail_next(&self, path: &str, n: u32) {
        self.state
            .lock()
            .unwrap()
            .failures
            .insert(path.to_string(), n);
    }

    /// The next `n` connections asking for `path` are closed without an answer.
    pub fn reset_next(&self, path: &str, n: u32) {
        self.state
            .lock()
            .unwrap()
            .resets
            .insert(path.to_string(), n);
    }

    /// The next `n` answers for `path` announce their full length, send half the body and
    /// close the connection, as a dropped download does.
    pub fn truncate_next(&self, path: &str, n: u32) {
        self.state
            .lock()
            .unwrap()
            .truncations
            .insert(path.to_string(), n);
    }

    /// The next `n` answers for `path` send half the body, then nothing for `pause`, then the
    /// rest: a download stalled in the middle.
    pub fn stall_next(&self, path: &str, n: u32, pause: std::time::Duration) {
        self.state
            .lock()
            .unwrap()
            .stalls
            .insert(path.to_string(), (n, pause));
    }

    /// Answers for `path` say no Content-Length; the body ends with the connection.
    pub fn omit_length(&self, path: &str) {
        self.state
            .lock()
            .unwrap()
            .no_length
            .insert(path.to_string());
    }

    /// The next `n` requests for `path` are answered only after `pause`.
    pub fn delay_next(&self, path: &str, n: u32, pause: std::time::Duration) {
        self.state
            .lock()
            .unwrap()
            .delays
            .insert(path.to_string(), (n, pause));
    }

    pub fn route(&self, path: &str, body: Vec<u8>, content_type: &str) {
        self.state.lock().unwrap().routes.insert(
            path.to_string(),
            Route {
                etag: Some(format!("\"{}\"", &sha256_hex(&body)[..16])),
                body: Arc::new(body),
                content_type: content_type.to_string(),
            },
        );
    }

    pub fn log(&self) -> Vec<LoggedRequest> {
        self.state.lock().unwrap().log.clone()
    }

    pub fn clear_log(&self) {
        self.state.lock().unwrap().log.clear();
    }

    /// Requests whose path ends with `suffix`.
    pub fn requests_for(&self, suffix: &str) -> Vec<LoggedRequest> {
        self.log()
            .into_iter()
            .filter(|r| r.path.ends_with(suffix))
            .collect()
    }

    /// Publishes the wheels of `project`, each uploaded on its day (see
    /// [`FixtureFile::uploaded`]), in the order given.
    pub fn publish_dated(&self, project: &str, wheels: &[(&WheelBuilder, &str)]) {
        let files: Vec<FixtureFile> = wheels
            .iter()
            .map(|(w, day)| FixtureFile::wheel(w).uploaded(day))
            .collect();
        self.publish(project, &files);
    }

    /// Serves `files` under `/files/` and the project's page under `/simple/<project>/`, with
    /// links relative to the page, as many real indexes write them.
    pub fn publish(&self, project: &str, files: &[FixtureFile]) {
        for f in files {
            self.route(
                &format!("/files/{}", f.filename),
                f.bytes.clone(),
                "application/octet-stream",
            );
            if let Some(meta) = &f.metadata {
                self.route(
                    &format!("/files/{}.metadata", f.filename),
                    meta.clone(),
                    "text/plain",
                );
            }
        }
        let path = format!("/simple/{project}/");
        match self.mode {
            PageMode::Json => {
                let entries: Vec<serde_json::Value> = files
                    .iter()
                    .map(|f| {
                        let mut v = serde_json::json!({
                            "filename": f.filename,
                            "url": format!("../../files/{}", f.filename),
                            "hashes": {"sha256": sha256_hex(&f.bytes)},
                            "size": f.bytes.len(),
                            "upload-time": f.upload_time,
                            "requires-python": f.requires_python,
                            "yanked": match &f.yanked { Some(r) if r.is_empty() => serde_json::json!(true), Some(r) => serde_json::json!(r), None => serde_json::json!(false) },
                        });
                        if let Some(meta) = &f.metadata {
                            v["core-metadata"] = serde_json::json!({"sha256": sha256_hex(meta)});
                        } else {
                            v["core-metadata"] = serde_json::json!(false);
                        }
                        v
                    })
                    .collect();
                let page = serde_json::json!({
                    "meta": {"api-version": "1.1"},
                    "name": project,
                    "files": entries,
                });
                self.route(
                    &path,
                    serde_json::to_vec(&page).unwrap(),
                    "application/vnd.pypi.simple.v1+json",
                );
            }
            PageMode::Html => {
                let mut html = String::from("<!DOCTYPE html>\n<html><body>\n");
                for f in files {
                    let mut attrs = String::new();
                    if let Some(rp) = &f.requires_python {
                        attrs.push_str(&format!(
                            " data-requires-python=\"{}\"",
                            rp.replace('>', "&gt;").replace('<', "&lt;")
                        ));
                    }
                    if let Some(y) = &f.yanked {
                        attrs.push_str(&format!(" data-yanked=\"{y}\""));
                    }
                    if let Some(meta) = &f.metadata {
                        attrs.push_str(&format!(
                            " data-core-metadata=\"sha256={}\"",
                            sha256_hex(meta)
                        ));
                    }
                    html.push_str(&format!(
                        "<a href=\"../../files/{0}#sha256={1}\"{attrs}>{0}</a><br/>\n",
                        f.filename,
                        sha256_hex(&f.bytes)
                    ));
                }
                html.push_str("</body></html>\n");
                self.route(&path, html.into_bytes(), "text/html");
            }
        }
    }
}

fn handle(mut stream: TcpStream, state: &Mutex<State>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut headers: HashMap<String, String> = HashMap::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_string();
    let range = headers.get("range").cloned();

    let mut guard = state.lock().unwrap();
    if let Some(n) = guard.resets.get_mut(&path) {
        if *n > 0 {
            *n -= 1;
            guard.log.push(LoggedRequest {
                path,
                range,
                accept: headers.get("accept").cloned(),
                if_none_match: headers.get("if-none-match").cloned(),
                status: 0,
                body_len: 0,
            });
            drop(guard);
            // Drop the connection mid-request: the client sees a reset / empty reply.
            let _ = stream.shutdown(std::net::Shutdown::Both);
            return Ok(());
        }
    }
    let pause = guard.delays.get_mut(&path).and_then(|(n, pause)| {
        (*n > 0).then(|| {
            *n -= 1;
            *pause
        })
    });
    if let Some(pause) = pause {
        drop(guard);
        thread::sleep(pause);
        guard = state.lock().unwrap();
    }
    let failing = guard.failures.get_mut(&path).is_some_and(|n| {
        let fail = *n > 0;
        *n = n.saturating_sub(1);
        fail
    });
    let truncating = guard.truncations.get_mut(&path).is_some_and(|n| {
        let cut = *n > 0;
        *n = n.saturating_sub(1);
        cut
    });
    let stall = guard.stalls.get_mut(&path).and_then(|(n, pause)| {
        (*n > 0).then(|| {
            *n -= 1;
            *pause
        })
    });
    let no_length = guard.no_length.contains(&path);
    let route = guard.routes.get(&path).cloned();
    let honor_range = guard.honor_range;
    let whole = |bytes: Arc<Vec<u8>>| {
        let len = bytes.len();
        (bytes, 0..len)
    };
    let message = |text: &[u8]| whole(Arc::new(text.to_vec()));
    type Body = (Arc<Vec<u8>>, std::ops::Range<usize>);
    let (status, extra_headers, body): (u16, Vec<(String, String)>, Body) = if failing {
        (500, vec![], message(b"injected failure"))
    } else {
        match route {
            None => (404, vec![], message(b"not found")),
            Some(route) => {
                let mut hdrs = vec![("Content-Type".to_string(), route.content_type.clone())];
                if let Some(etag) = &route.etag {
                    hdrs.push(("ETag".to_string(), etag.clone()));
                }
                if route.etag.is_some() && headers.get("if-none-match") == route.etag.as_ref() {
                    (304, hdrs, message(b""))
                } else {
                    match range
                        .as_deref()
                        .and_then(|r| parse_range(r, route.body.len()))
                    {
                        Some((start, end)) if honor_range => {
                            hdrs.push((
                                "Content-Range".to_string(),
                                format!("bytes {start}-{}/{}", end - 1, route.body.len()),
                            ));
                            (206, hdrs, (route.body.clone(), start..end))
                        }
                        _ => (200, hdrs, whole(route.body.clone())),
                    }
                }
            }
        }
    };
    guard.log.push(LoggedRequest {
        path,
        range,
        accept: headers.get("accept").cloned(),
        if_none_match: headers.get("if-none-match").cloned(),
        status,
        body_len: body.1.len(),
    });
    drop(guard);
    let reason = match status {
        200 => "OK",
        206 => "Partial Content",
        304 => "Not Modified",
        404 => "Not Found",
        _ => "Internal Server Error",
    };
    let (bytes, range) = body;
    let mut head = format!("HTTP/1.1 {status} {reason}\r\nConnection: close\r\n");
    if !no_length {
        head.push_str(&format!("Content-Length: {}\r\n", range.len()));
    }
    for (k, v) in extra_headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if truncating {
        stream.write_all(&bytes[range.start..range.start + range.len() / 2])?;
        stream.flush()?;
        let _ = stream.shutdown(std::net::Shutdown::Both);
        return Ok(());
    }
    if let Some(pause) = stall {
        let half = range.start + range.len() / 2;
        stream.write_all(&bytes[range.start..half])?;
        stream.flush()?;
        thread::sleep(pause);
        stream.write_all(&bytes[half..range.end])?;
    } else {
        stream.write_all(&bytes[range])?;
    }
    stream.flush()?;
    if no_length {
        let _ = stream.shutdown(std::net::Shutdown::Write);
    }
    // Drain anything left so the client sees a clean close.
    let _ = reader.read(&mut [0u8; 0]);
    Ok(())
}

/// One `bytes=a-b` or `bytes=-n` range; multi-range requests get the whole file, as the
/// files host does.
fn parse_range(header: &str, len: usize) -> Option<(usize, usize)> {
    let spec = header.strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    if a.is_empty() {
        let n: usize = b.parse().ok()?;
        return Some((len.saturating_sub(n), len));
    }
    let start: usize = a.parse().ok()?;
    let end = if b.is_empty() {
        len
    } else {
        (b.parse::<usize>().ok()? + 1).min(len)
    };
    (start < end).then_some((start, end))
}

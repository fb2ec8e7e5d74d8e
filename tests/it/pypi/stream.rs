//! Tarball sdists read as streams: only the selected members are ever held, whatever the
//! archive bundles; a transfer that breaks off is started over; a file past the size limit is
//! refused before it is downloaded; a tampered file is refused and not cached.
//!
//! This binary counts the process's allocations (nextest runs each test in its own process),
//! so that "never held whole" is measured, not assumed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::support::archives::{sdist_tar_gz, sdist_zip};
use crate::support::server::{FixtureFile, PageMode, TestServer};
use nbenv::names::DistName;
use nbenv::pypi::{IndexClient, IndexConfig, PypiError, ReadMethod};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size > layout.size() {
                let grown = new_size - layout.size();
                let now = CURRENT.fetch_add(grown, Ordering::Relaxed) + grown;
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes allocated at the peak of `f`, above what was allocated when it started.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

fn noise(len: usize, seed: u64) -> String {
    // Incompressible (six random bits a byte), but text: tar members are &str in the builder.
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'0' + (x >> 58) as u8)
        })
        .collect()
}

fn index_client(
    server: &TestServer,
    cache: &tempfile::TempDir,
    configure: impl FnOnce(&mut IndexConfig),
) -> IndexClient {
    let mut config = IndexConfig::new(server.index_url(), cache.path());
    config.http.retry.base_delay = Duration::from_millis(10);
    configure(&mut config);
    IndexClient::new(config, None).unwrap()
}

fn name(s: &str) -> DistName {
    DistName::new(s).unwrap()
}

const PKG_INFO: &str = "Metadata-Version: 1.1\nName: jarred\nVersion: 1.0\n";

/// An sdist like pyspark's: a little Python beside a big bundled jar (compressed fast: a
/// debug build's default compression of megabytes of noise takes a minute).
fn jarred_sdist(jar_len: usize) -> Vec<u8> {
    use std::io::Write;
    let jar = noise(jar_len, 7);
    let mut builder = tar::Builder::new(Vec::new());
    for (path, data) in [
        ("PKG-INFO", PKG_INFO),
        ("jarred/__init__.py", "from .core import run\n"),
        ("jarred/jars/spark-core.jar", &jar),
        ("jarred/core.py", "def run(x):\n    return x\n"),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, format!("jarred-1.0/{path}"), data.as_bytes())
            .unwrap();
    }
    let tar = builder.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar).unwrap();
    gz.finish().unwrap()
}

#[test]
fn a_big_bundled_member_is_never_held_in_memory() {
    let server = TestServer::start(PageMode::Json);
    let sdist = jarred_sdist(16 << 20);
    assert!(
        sdist.len() > 10 << 20,
        "the fixture must stay big compressed: {}",
        sdist.len()
    );
    server.publish("jarred", &[FixtureFile::new("jarred-1.0.tar.gz", sdist)]);
    let cache = tempfile::tempdir().unwrap();
    let client = index_client(&server, &cache, |_| {});
    let page = client.project(&name("jarred")).unwrap();
    let select = |n: &str| n.ends_with(".py") || n.ends_with("/PKG-INFO");

    let (contents, peak) = peak_during(|| client.read_archive(&page.files[0], &select).unwrap());
    let names: Vec<&str> = contents.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "jarred-1.0/PKG-INFO",
            "jarred-1.0/jarred/__init__.py",
            "jarred-1.0/jarred/core.py"
        ]
    );
    assert!(
        contents
            .entries
            .iter()
            .any(|e| e.name.ends_with("spark-core.jar") && e.size == 16 << 20),
        "{:?}",
        contents.entries
    );
    assert_eq!(contents.transfer.method, Some(ReadMethod::Full));
    eprintln!("peak while streaming: {peak} bytes");
    assert!(
        peak < 4 << 20,
        "reading held {} MiB at its peak",
        peak >> 20
    );

    // Kept in the cache (the budget admits it), and read from there as a stream too.
    server.clear_log();
    let (again, peak) = peak_during(|| client.read_archive(&page.files[0], &select).unwrap());
    assert_eq!(again.members.len(), 3);
    assert!(server.requests_for(".tar.gz").is_empty());
    eprintln!("peak while reading the cached file: {peak} bytes");
    assert!(
        peak < 4 << 20,
        "reading from the cache held {} MiB",
        peak >> 20
    );
}

#[test]
fn a_download_that_breaks_off_is_started_over() {
    let server = TestServer::start(PageMode::Json);
    server.publish(
        "jarred",
        &[FixtureFile::new("jarred-1.0.tar.gz", jarred_sdist(1 << 20))],
    );
    server.truncate_next("/files/jarred-1.0.tar.gz", 2);
    let cache = tempfile::tempdir().unwrap();
    let client = index_client(&server, &cache, |_| {});
    let page = client.project(&name("jarred")).unwrap();
    let contents = client
        .read_archive(&page.files[0], &|n: &str| n.ends_with(".py"))
        .unwrap();
    assert_eq!(contents.members.len(), 2);
    assert_eq!(server.requests_for(".tar.gz").len(), 3);

    // With no retries left the failure is a network one, naming the file.
    server.truncate_next("/files/jarred-1.0.tar.gz", 5);
    let cache = tempfile::tempdir().unwrap();
    let client = index_client(&server, &cache, |c| c.http.retry.retries = 1);
    let err = client
        .read_archive(&page.files[0], &|n: &str| n.ends_with(".py"))
        .unwrap_err();
    assert!(
        matches!(err, PypiError::Network { attempts: 2, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("jarred-1.0.tar.gz"), "{err}");
}

#[test]
fn an_archive_past_the_limit_is_refused_before_it_is_downloaded() {
    for mode in [PageMode::Json, PageMode::Html] {
        let server = TestServer::start(mode);
        server.publish(
            "jarred",
            &[FixtureFile::new("jarred-1.0.tar.gz", jarred_sdist(1 << 20))],
        );
        let cache = tempfile::tempdir().unwrap();
        let client = index_client(&server, &cache, |c| c.limits.max_streamed_size = 256 << 10);
        let page = client.project(&name("jarred")).unwrap();
        let err = client
            .read_archive(&page.files[0], &|n: &str| n.ends_with(".py"))
            .unwrap_err();
        assert!(matches!(err, PypiError::Refused { .. }), "{err:?}");
        let message = err.to_string();
        assert!(
            message.contains("jarred-1.0.tar.gz") && message.contains("NBENV_MAX_SDIST_SIZE"),
            "{message}"
        );
        let fetched: usize = server
            .requests_for(".tar.gz")
            .iter()
            .map(|r| r.body_len)
            .sum();
        match mode {
            // The JSON page gives the size: nothing is asked for.
            PageMode::Json => assert_eq!(fetched, 0),
            // HTML pages do not: the read stops at the limit (the server may have sent a
            // little more into the socket's buffers).
            PageMode::Html => assert!(server.requests_for(".tar.gz").len() == 1),
        }
    }
}

#[test]
fn a_tampered_tarball_is_refused_and_not_cached() {
    let server = TestServer::start(PageMode::Json);
    let good = jarred_sdist(64 << 10);
    server.publish("jarred", &[FixtureFile::new("jarred-1.0.tar.gz", good)]);
    let other = sdist_tar_gz(
        "jarred",
        "1.0",
        &[("jarred/__init__.py", "import os\n")],
        PKG_INFO,
    );
    server.route("/files/jarred-1.0.tar.gz", other, "application/gzip");
    let cache = tempfile::tempdir().unwrap();
    let client = index_client(&server, &cache, |_| {});
    let page = client.project(&name("jarred")).unwrap();
    let err = client
        .read_archive(&page.files[0], &|n: &str| n.ends_with(".py"))
        .unwrap_err();
    assert!(matches!(err, PypiError::HashMismatch { .. }), "{err:?}");
    let files = cache.path().join("v1/files");
    let kept: Vec<_> = walk(&files);
    assert!(kept.is_empty(), "{kept:?}");
}

#[test]
fn zip_sdists_are_read_by_range() {
    let server = TestServer::start(PageMode::Json);
    let jar = noise(4 << 20, 3);
    let zip = sdist_zip(
        "zipped",
        "1.0",
        &[
            ("zipped/__init__.py", "x = 1\n"),
            ("zipped/data/blob.bin", &jar),
            ("zipped/util.py", "def f():\n    pass\n"),
        ],
        "Metadata-Version: 1.1\nName: zipped\nVersion: 1.0\n",
    );
    let size = zip.len() as u64;
    server.publish("zipped", &[FixtureFile::new("zipped-1.0.zip", zip)]);
    let cache = tempfile::tempdir().unwrap();
    let client = index_client(&server, &cache, |_| {});
    let page = client.project(&name("zipped")).unwrap();
    let contents = client
        .read_archive(&page.files[0], &|n: &str| n.ends_with(".py"))
        .unwrap();
    assert_eq!(contents.members.len(), 2);
    assert_eq!(contents.transfer.method, Some(ReadMethod::Ranges));
    assert!(
        contents.transfer.bytes_fetched < size / 4,
        "fetched {} of {size}",
        contents.transfer.bytes_fetched
    );
    assert!(server
        .requests_for(".zip")
        .iter()
        .all(|r| r.status == 206 && r.range.is_some()));
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_type().unwrap().is_dir() {
            out.extend(walk(&entry.path()));
        } else {
            out.push(entry.path());
        }
    }
    out
}

//! The cache's size budget: archives and ranges beyond it are evicted, least recently used
//! first; a budget of 0 keeps none; index pages are never evicted.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::archives::sdist_tar_gz;
use crate::support::server::{FixtureFile, PageMode, TestServer};
use nbenv::names::DistName;
use nbenv::pypi::{IndexClient, IndexConfig};

fn noise(len: usize, seed: u32) -> String {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            char::from(b'!' + ((x >> 16) % 90) as u8)
        })
        .collect()
}

/// `count` releases of `pile`, release `i` an sdist of about `len(i)` incompressible bytes.
fn publish_pile(server: &TestServer, count: usize, len: impl Fn(usize) -> usize) {
    let files: Vec<FixtureFile> = (0..count)
        .map(|i| {
            let version = format!("1.{i}");
            let data = noise(len(i), i as u32 + 1);
            let bytes = sdist_tar_gz(
                "pile",
                &version,
                &[("pile/__init__.py", "x = 1\n"), ("pile/data.txt", &data)],
                &format!("Name: pile\nVersion: {version}\n"),
            );
            FixtureFile::new(&format!("pile-{version}.tar.gz"), bytes)
        })
        .collect();
    server.publish("pile", &files);
}

fn client(server: &TestServer, cache: &Path, budget: u64) -> IndexClient {
    let mut config = IndexConfig::new(server.index_url(), cache);
    config.http.retry.base_delay = Duration::from_millis(10);
    config.cache_budget = budget;
    IndexClient::new(config, None).unwrap()
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_type().unwrap().is_dir() {
            out.extend(files_in(&entry.path()));
        } else {
            out.push(entry.path());
        }
    }
    out
}

fn bytes_in(dir: &Path) -> u64 {
    files_in(dir)
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum()
}

#[test]
fn archives_beyond_the_budget_go_least_recently_used_first() {
    let server = TestServer::start(PageMode::Json);
    publish_pile(&server, 24, |_| 60 << 10);
    let cache = tempfile::tempdir().unwrap();
    // A sixteenth of 1 MiB admits each archive (about 50 KiB); 24 of them do not fit.
    let budget = 1 << 20;
    let client = client(&server, cache.path(), budget);
    let page = client.project(&DistName::new("pile").unwrap()).unwrap();
    let read = |i: usize| {
        client
            .read_archive(&page.files[i], &|n: &str| n.ends_with(".py"))
            .unwrap();
        // File times are coarse: keep uses apart.
        std::thread::sleep(Duration::from_millis(15));
    };
    let files = cache.path().join("v1/files");
    for i in 0..24 {
        read(i);
        // Release 0 is read again and again: the most recently used, it must stay.
        read(0);
        assert!(
            bytes_in(&files) <= budget,
            "{} bytes after {i}",
            bytes_in(&files)
        );
    }
    let kept = files_in(&files);
    assert!(kept.len() < 24, "nothing was evicted");
    let key = |i: usize| page.files[i].sha256().unwrap().to_string();
    let is_kept = |i: usize| kept.iter().any(|p| p.ends_with(key(i)));
    assert!(is_kept(0), "the most recently used archive was evicted");
    assert!(is_kept(23), "the newest archive was evicted");
    assert!(
        !is_kept(1),
        "the least recently used archive is still there"
    );

    // Pages are outside the budget: still there, and an offline client can use them.
    assert!(!files_in(&cache.path().join("v1/pages")).is_empty());
    server.clear_log();
    let again = self::client(&server, cache.path(), budget);
    again
        .read_archive(&page.files[0], &|n: &str| n.ends_with(".py"))
        .unwrap();
    assert!(server.requests_for(".tar.gz").is_empty());
}

#[test]
fn a_budget_of_zero_keeps_no_archives_or_ranges() {
    let server = TestServer::start(PageMode::Json);
    publish_pile(&server, 2, |_| 1 << 10);
    let cache = tempfile::tempdir().unwrap();
    let client = client(&server, cache.path(), 0);
    let page = client.project(&DistName::new("pile").unwrap()).unwrap();
    for file in &page.files {
        client
            .read_archive(file, &|n: &str| n.ends_with(".py"))
            .unwrap();
    }
    for kind in ["files", "ranges", "metadata"] {
        assert!(
            files_in(&cache.path().join("v1").join(kind)).is_empty(),
            "{kind}"
        );
    }
    // The next read downloads again, and works.
    server.clear_log();
    client
        .read_archive(&page.files[0], &|n: &str| n.ends_with(".py"))
        .unwrap();
    assert_eq!(server.requests_for(".tar.gz").len(), 1);
}

#[test]
fn an_existing_cache_over_the_budget_is_trimmed_on_the_next_write() {
    let server = TestServer::start(PageMode::Json);
    // Eleven archives of about 13 KiB, then a small one.
    publish_pile(&server, 12, |i| if i < 11 { 16 << 10 } else { 1 << 10 });
    let cache = tempfile::tempdir().unwrap();
    let files = cache.path().join("v1/files");
    {
        // A generous budget first: everything is kept.
        let client = client(&server, cache.path(), 64 << 20);
        let page = client.project(&DistName::new("pile").unwrap()).unwrap();
        for file in &page.files[..11] {
            client
                .read_archive(file, &|n: &str| n.ends_with(".py"))
                .unwrap();
        }
        assert_eq!(files_in(&files).len(), 11);
    }
    // A smaller budget in a later run: its first write brings the cache under it.
    let budget = 64 << 10;
    let client = client(&server, cache.path(), budget);
    let page = client.project(&DistName::new("pile").unwrap()).unwrap();
    client
        .read_archive(&page.files[11], &|n: &str| n.ends_with(".py"))
        .unwrap();
    assert!(bytes_in(&files) <= budget, "{}", bytes_in(&files));
    assert!(files_in(&files)
        .iter()
        .any(|p| p.ends_with(page.files[11].sha256().unwrap())));
}

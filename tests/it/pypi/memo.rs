//! Core metadata read out of an archive is remembered by the archive's hash: the next read
//! needs no request and no archive, and a damaged memo is read past.

use std::path::Path;

use crate::support::archives::{sdist_tar_gz, WheelBuilder};
use crate::support::server::{FixtureFile, PageMode, TestServer};
use nbenv::names::DistName;
use nbenv::pypi::{IndexClient, IndexConfig, MetadataSource};

fn client(server: &TestServer, cache: &Path, offline: bool) -> IndexClient {
    let mut config = IndexConfig::new(server.index_url(), cache);
    config.offline = offline;
    IndexClient::new(config, None).unwrap()
}

/// Every cache file under `kind` whose name ends with `suffix`.
fn cached(cache: &Path, kind: &str, suffix: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let dir = cache.join("v1").join(kind);
    for shard in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(shard.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if f.file_name().to_string_lossy().ends_with(suffix) {
                out.push(f.path());
            }
        }
    }
    out
}

#[test]
fn metadata_read_from_an_archive_is_remembered_by_its_hash() {
    let server = TestServer::start(PageMode::Json);
    let wheel = WheelBuilder::new("memo", "1.0")
        .file("memo/__init__.py", "x = 1\n")
        .requires("numpy>=1.20")
        .requires_python(">=3.8");
    let sdist = sdist_tar_gz(
        "memo",
        "0.9",
        &[("memo/__init__.py", "x = 0\n")],
        "Metadata-Version: 1.1\nName: memo\nVersion: 0.9\nRequires-Dist: six\n\nlong text\n",
    );
    server.publish(
        "memo",
        &[
            FixtureFile::new(&wheel.filename(), wheel.build()),
            FixtureFile::new("memo-0.9.tar.gz", sdist),
        ],
    );
    let cache = tempfile::tempdir().unwrap();
    let name = DistName::new("memo").unwrap();
    let first = client(&server, cache.path(), false);
    let page = first.project(&name).unwrap();
    let (wheel_file, sdist_file) = (&page.files[0], &page.files[1]);
    let (meta, source) = first.core_metadata(wheel_file).unwrap();
    assert_eq!(
        (meta.requires_dist.as_slice(), source),
        (&["numpy>=1.20".to_string()][..], MetadataSource::Wheel)
    );
    let (meta, source) = first.core_metadata(sdist_file).unwrap();
    assert_eq!(
        (meta.requires_dist.as_slice(), source),
        (&["six".to_string()][..], MetadataSource::Sdist)
    );
    assert_eq!(cached(cache.path(), "metadata", ".from-archive").len(), 2);

    // With the archives' cached bytes gone, offline, the memos answer alone.
    std::fs::remove_dir_all(cache.path().join("v1/ranges")).ok();
    std::fs::remove_dir_all(cache.path().join("v1/files")).ok();
    server.clear_log();
    let offline = client(&server, cache.path(), true);
    let (meta, source) = offline.core_metadata(wheel_file).unwrap();
    assert_eq!(meta.requires_python.text(), Some(">=3.8"));
    assert_eq!(source, MetadataSource::Wheel);
    assert_eq!(
        offline
            .core_metadata(sdist_file)
            .unwrap()
            .0
            .version
            .to_string(),
        "0.9"
    );
    assert!(server.log().is_empty());

    // A damaged memo is read past: the archive is read again (online) and the memo made again.
    for memo in cached(cache.path(), "metadata", ".from-archive") {
        std::fs::write(&memo, b"nbenv-archive-metadata-v1\nw\nnot metadata").unwrap();
    }
    let online = client(&server, cache.path(), false);
    let (meta, _) = online.core_metadata(wheel_file).unwrap();
    assert_eq!(meta.requires_dist, ["numpy>=1.20"]);
    assert!(
        !server.requests_for(".whl").is_empty(),
        "the wheel was read again"
    );
    let memo = cached(cache.path(), "metadata", ".from-archive");
    assert!(memo.iter().any(|m| std::fs::read(m)
        .unwrap()
        .ends_with(b"Requires-Python: >=3.8\n")
        || std::fs::read(m)
            .unwrap()
            .windows(11)
            .any(|w| w == b"numpy>=1.20")));
}

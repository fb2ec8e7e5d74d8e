//! Compact copies of index pages: a warm run reads the page through its copy, and a copy
//! that is damaged or was made from another body of the page is never used.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::server::{FixtureFile, PageMode, TestServer};
use nbenv::names::DistName;
use nbenv::pypi::{FileKind, IndexClient, IndexConfig, ProjectPage};

fn name() -> DistName {
    DistName::new("mixed").unwrap()
}

fn file(filename: &str) -> FixtureFile {
    FixtureFile {
        upload_time: Some("2019-03-04T05:06:07.123456Z".into()),
        ..FixtureFile::new(filename, filename.as_bytes().to_vec())
    }
}

/// A binary project as PyPI lists one: wheels for several platforms, an sdist, an egg the
/// page lists but nbenv skips, a yanked release, Requires-Python on some files only.
fn publish(server: &TestServer, with_2_0: bool) {
    let mut files = vec![
        FixtureFile {
            requires_python: Some(">=3.5".into()),
            ..file("mixed-1.0-cp36-cp36m-win_amd64.whl")
        },
        file("mixed-1.0-cp36-cp36m-manylinux1_x86_64.whl"),
        file("mixed-1.0-cp36-cp36m-manylinux1_aarch64.whl"),
        file("mixed-1.0.tar.gz"),
        file("mixed-1.0-py3.6.egg"),
        FixtureFile {
            yanked: Some("broken build".into()),
            ..file("mixed-1.1-cp36-cp36m-manylinux1_x86_64.whl")
        },
        FixtureFile {
            yanked: Some(String::new()),
            ..file("mixed-1.1.tar.gz")
        },
        // Yanked for Linux only: the release as a whole is not.
        FixtureFile {
            yanked: Some(String::new()),
            ..file("mixed-1.2-cp37-cp37m-manylinux2010_x86_64.whl")
        },
        FixtureFile {
            metadata: Some(b"Metadata-Version: 2.1\nName: mixed\nVersion: 1.2\n".to_vec()),
            ..file("mixed-1.2-cp37-cp37m-macosx_10_9_x86_64.whl")
        },
        file("mixed-1.2-1-py2.py3-none-any.whl"),
    ];
    if with_2_0 {
        files.push(file("mixed-2.0-py3-none-any.whl"));
    }
    server.publish("mixed", &files);
}

fn client(server: &TestServer, cache: &Path, offline: bool, ttl: Duration) -> IndexClient {
    let mut config = IndexConfig::new(server.index_url(), cache);
    config.offline = offline;
    config.page_ttl = ttl;
    IndexClient::new(config, None).unwrap()
}

const DAY: Duration = Duration::from_secs(86_400);

/// The one file under the cache's `kind` directory.
fn only_file(cache: &Path, kind: &str) -> PathBuf {
    let mut found = Vec::new();
    let dir = cache.join("v1").join(kind);
    for shard in std::fs::read_dir(&dir).unwrap().flatten() {
        for f in std::fs::read_dir(shard.path()).unwrap().flatten() {
            if !f.file_name().to_string_lossy().starts_with(".tmp") {
                found.push(f.path());
            }
        }
    }
    assert_eq!(found.len(), 1, "{found:?}");
    found.pop().unwrap()
}

/// What a page says, in a form two reads of it can be compared by.
fn summary(page: &ProjectPage) -> String {
    let skipped: Vec<&str> = page.skipped.iter().map(|s| s.filename.as_str()).collect();
    format!(
        "{} {:?} {:?} skipped {skipped:?}",
        page.url, page.format, page.files
    )
}

/// Keeps the magic line and the header of a cached page and drops its body.
fn drop_page_body(page: &Path) {
    let bytes = std::fs::read(page).unwrap();
    let magic_end = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    let header_end = magic_end + bytes[magic_end..].iter().position(|&b| b == b'\n').unwrap() + 1;
    std::fs::write(page, &bytes[..header_end]).unwrap();
}

#[test]
fn a_fresh_page_is_read_through_its_copy_with_the_same_content() {
    for mode in [PageMode::Json, PageMode::Html] {
        let server = TestServer::start(mode);
        publish(&server, false);
        let cache = tempfile::tempdir().unwrap();
        let parsed = client(&server, cache.path(), false, DAY)
            .project(&name())
            .unwrap();
        assert_eq!(parsed.files.len(), 9, "{mode:?}");
        assert_eq!(parsed.skipped.len(), 1);
        only_file(cache.path(), "compact");

        // The copy speaks for the page: with the page's body gone, the same page is read.
        drop_page_body(&only_file(cache.path(), "pages"));
        server.clear_log();
        for offline in [false, true] {
            let again = client(&server, cache.path(), offline, DAY)
                .project(&name())
                .unwrap();
            assert_eq!(summary(&again), summary(&parsed), "{mode:?}");
            assert_eq!(again.skipped[0].error, parsed.skipped[0].error);
        }
        assert!(server.log().is_empty(), "{:?}", server.log());
    }
}

#[test]
fn a_damaged_copy_falls_back_to_the_page_and_is_made_again() {
    let server = TestServer::start(PageMode::Json);
    publish(&server, false);
    let cache = tempfile::tempdir().unwrap();
    let parsed = client(&server, cache.path(), false, DAY)
        .project(&name())
        .unwrap();
    let copy = only_file(cache.path(), "compact");
    let good = std::fs::read(&copy).unwrap();
    let flipped = {
        let mut b = good.clone();
        let at = b.len() / 2;
        b[at] ^= 0x20;
        b
    };
    let damaged: [(&str, Vec<u8>); 5] = [
        ("a flipped byte", flipped),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("cut before its checksum", good[..24].to_vec()),
        ("empty", Vec::new()),
        ("another program's", b"GIF89a....".to_vec()),
    ];
    for (what, bytes) in damaged {
        std::fs::write(&copy, &bytes).unwrap();
        let again = client(&server, cache.path(), true, DAY)
            .project(&name())
            .unwrap();
        assert_eq!(summary(&again), summary(&parsed), "{what}");
        assert_eq!(std::fs::read(&copy).unwrap(), good, "{what}: made again");
    }
}

#[test]
fn a_copy_of_another_body_of_the_page_is_never_used() {
    let server = TestServer::start(PageMode::Json);
    publish(&server, false);
    let cache = tempfile::tempdir().unwrap();
    client(&server, cache.path(), false, DAY)
        .project(&name())
        .unwrap();
    let copy = only_file(cache.path(), "compact");
    let old_copy = std::fs::read(&copy).unwrap();

    // The project gains a release; once the page is revalidated, the old copy is out.
    publish(&server, true);
    let versions = |page: &ProjectPage| -> Vec<String> {
        page.releases()
            .iter()
            .map(|r| r.version.to_string())
            .collect()
    };
    let changed = client(&server, cache.path(), false, Duration::ZERO)
        .project(&name())
        .unwrap();
    assert_eq!(versions(&changed), ["1.0", "1.1", "1.2", "2.0"]);
    assert_ne!(std::fs::read(&copy).unwrap(), old_copy);

    // An old copy put back (as a slower concurrent nbenv might) is refused, online and
    // offline, and the page it no longer speaks for is read instead.
    for offline in [true, false] {
        std::fs::write(&copy, &old_copy).unwrap();
        let page = client(&server, cache.path(), offline, DAY)
            .project(&name())
            .unwrap();
        assert_eq!(
            versions(&page),
            ["1.0", "1.1", "1.2", "2.0"],
            "offline {offline}"
        );
    }
}

#[test]
fn a_page_cached_without_its_digest_is_checked_once_then_read_through_its_copy() {
    let server = TestServer::start(PageMode::Json);
    publish(&server, false);
    let cache = tempfile::tempdir().unwrap();
    let parsed = client(&server, cache.path(), false, DAY)
        .project(&name())
        .unwrap();
    // As an nbenv from before compact copies wrote it: no `digest` in the header.
    let page = only_file(cache.path(), "pages");
    let text = std::fs::read(&page).unwrap();
    let magic_end = text.iter().position(|&b| b == b'\n').unwrap() + 1;
    let header_end = magic_end + text[magic_end..].iter().position(|&b| b == b'\n').unwrap();
    let mut header: serde_json::Value =
        serde_json::from_slice(&text[magic_end..header_end]).unwrap();
    assert!(header.as_object_mut().unwrap().remove("digest").is_some());
    let mut legacy = text[..magic_end].to_vec();
    legacy.extend_from_slice(&serde_json::to_vec(&header).unwrap());
    legacy.extend_from_slice(&text[header_end..]);
    std::fs::write(&page, &legacy).unwrap();
    let copy = only_file(cache.path(), "compact");
    let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
    let copy_inode = inode(&copy);

    let again = client(&server, cache.path(), true, DAY)
        .project(&name())
        .unwrap();
    assert_eq!(summary(&again), summary(&parsed));
    // The copy served (it was not made again), and the page now records its digest, so
    // that the next read needs its header alone.
    assert_eq!(inode(&copy), copy_inode);
    let upgraded = std::fs::read(&page).unwrap();
    assert_ne!(upgraded, legacy);
    assert!(upgraded.ends_with(&text[header_end..]), "same body");
    drop_page_body(&page);
    let third = client(&server, cache.path(), true, DAY)
        .project(&name())
        .unwrap();
    assert_eq!(summary(&third), summary(&parsed));
}

#[test]
fn releases_keep_only_the_chosen_files_but_every_release_and_its_facts() {
    let server = TestServer::start(PageMode::Json);
    publish(&server, false);
    let cache = tempfile::tempdir().unwrap();
    let sdists_only = |kind: &FileKind| matches!(kind, FileKind::Sdist { .. });
    let describe = |client: &IndexClient| -> Vec<String> {
        client
            .project_releases(&name(), &sdists_only)
            .unwrap()
            .iter()
            .map(|r| {
                let files: Vec<String> = r
                    .files
                    .iter()
                    .map(|f| f.dist_file(&r.version).filename)
                    .collect();
                format!(
                    "{} yanked={} requires-python={:?} {files:?}",
                    r.version,
                    r.yanked,
                    r.requires_python.text()
                )
            })
            .collect()
    };
    let expected = [
        r#"1.0 yanked=false requires-python=Some(">=3.5") ["mixed-1.0.tar.gz"]"#,
        "1.1 yanked=true requires-python=None [\"mixed-1.1.tar.gz\"]",
        "1.2 yanked=false requires-python=None []",
    ];
    // From the page (which makes the copy), then from the copy.
    assert_eq!(
        describe(&client(&server, cache.path(), false, DAY)),
        expected
    );
    only_file(cache.path(), "compact");
    drop_page_body(&only_file(cache.path(), "pages"));
    assert_eq!(
        describe(&client(&server, cache.path(), true, DAY)),
        expected
    );
}

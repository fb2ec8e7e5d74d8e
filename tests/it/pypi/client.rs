//! The index client against a loopback index: page formats, range reads and their fallback,
//! retries, limits, the cache and offline mode.

use std::time::Duration;

use crate::support::archives::{
    patch_declared_size, sdist_tar_bz2, sdist_tar_gz, sdist_zip, zip_bytes, WheelBuilder,
};
use crate::support::server::{FixtureFile, PageMode, TestServer};
use nbenv::names::DistName;
use nbenv::pypi::{
    ArchiveLimits, FileKind, IndexClient, IndexConfig, MetadataSource, PageFormat, PypiError,
    ReadMethod,
};

fn config(server: &TestServer, cache: &tempfile::TempDir) -> IndexConfig {
    let mut config = IndexConfig::new(server.index_url(), cache.path());
    config.http.retry.base_delay = Duration::from_millis(10);
    config
}

fn client(server: &TestServer, cache: &tempfile::TempDir) -> IndexClient {
    IndexClient::new(config(server, cache), None).unwrap()
}

fn name(s: &str) -> DistName {
    DistName::new(s).unwrap()
}

/// A wheel whose Python sources are small and whose compiled part is big, like most
/// scientific wheels.
fn binary_wheel() -> WheelBuilder {
    // Incompressible bytes, so the stored size stays large.
    let mut blob = Vec::with_capacity(3 << 20);
    let mut x: u32 = 12345;
    for _ in 0..(3 << 20) {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        blob.push((x >> 16) as u8);
    }
    WheelBuilder::new("fastlib", "1.0")
        .tag("cp311-cp311-manylinux_2_17_x86_64")
        .file(
            "fastlib/__init__.py",
            "from fastlib._core import fast\n__all__ = ['fast']\n",
        )
        .file("fastlib/_core.cpython-311-x86_64-linux-gnu.so", blob)
        .file("fastlib/util.py", "def helper(x, *, y=1):\n    return x\n")
        .requires("numpy>=1.20")
        .requires_python(">=3.8")
}

fn publish_sample(server: &TestServer) -> (Vec<u8>, Vec<u8>) {
    let w10 = WheelBuilder::new("sample", "1.0").file("sample/__init__.py", "x = 1\n");
    let w11 = WheelBuilder::new("sample", "1.1")
        .file("sample/__init__.py", "x = 2\n")
        .requires("six");
    let (b10, b11) = (w10.build(), w11.build());
    let files = vec![
        FixtureFile {
            requires_python: Some(">=3.6".into()),
            upload_time: Some("2019-01-02T03:04:05.000000Z".into()),
            ..FixtureFile::new(&w10.filename(), b10.clone())
        },
        FixtureFile {
            yanked: Some("broken build".into()),
            upload_time: Some("2020-01-01T00:00:00Z".into()),
            metadata: Some(w11.metadata().into_bytes()),
            ..FixtureFile::new(&w11.filename(), b11.clone())
        },
        FixtureFile::new(
            "sample-0.9.tar.gz",
            sdist_tar_gz(
                "sample",
                "0.9",
                &[("sample/__init__.py", "x = 0\n")],
                "Metadata-Version: 1.1\nName: sample\nVersion: 0.9\n",
            ),
        ),
        FixtureFile::new("sample-latest.tar.gz", b"not really".to_vec()),
        FixtureFile::new("sample-1.0-py2.7.egg", b"egg".to_vec()),
    ];
    server.publish("sample", &files);
    (b10, b11)
}

fn check_sample_page(server: &TestServer, expected_format: PageFormat) {
    let cache = tempfile::tempdir().unwrap();
    let client = client(server, &cache);
    let page = client.project(&name("Sample")).unwrap();
    assert_eq!(page.format, expected_format);
    let versions: Vec<String> = page
        .releases()
        .iter()
        .map(|r| r.version.to_string())
        .collect();
    assert_eq!(versions, ["0.9", "1.0", "1.1"]);

    let releases = page.releases();
    let r10 = &releases[1];
    assert_eq!(r10.requires_python().text(), Some(">=3.6"));
    assert!(!r10.is_yanked());
    assert!(r10.has_wheel() && !r10.has_sdist());
    let r11 = &releases[2];
    assert!(r11.is_yanked());
    assert_eq!(r11.files[0].yanked.as_deref(), Some("broken build"));
    assert!(!releases[0].has_wheel() && releases[0].has_sdist());

    // Relative links are resolved against the page, and the hashes survive either format.
    let file = r10.files[0];
    assert_eq!(file.url, server.url("/files/sample-1.0-py3-none-any.whl"));
    assert_eq!(file.sha256().map(str::len), Some(64));
    assert!(matches!(file.kind, FileKind::Wheel { .. }));

    // The invalid version and the egg are set aside, not fatal.
    let invalid: Vec<_> = page
        .invalid_versions()
        .map(|s| s.filename.as_str())
        .collect();
    assert_eq!(invalid, ["sample-latest.tar.gz"]);
    assert!(page.skipped.iter().any(|s| s.filename.ends_with(".egg")));

    // Fetching through the resolved relative URL works.
    let contents = client
        .read_archive(file, &|n: &str| n.ends_with(".py"))
        .unwrap();
    assert_eq!(
        contents.member("sample/__init__.py").unwrap().data,
        b"x = 1\n"
    );
}

#[test]
fn json_pages_list_files_with_metadata() {
    let server = TestServer::start(PageMode::Json);
    publish_sample(&server);
    check_sample_page(&server, PageFormat::Json);
    let cache = tempfile::tempdir().unwrap();
    let page = client(&server, &cache).project(&name("sample")).unwrap();
    let r10 = page.releases()[1].files[0].clone();
    assert_eq!(
        r10.upload_time.map(|t| t.to_string()),
        Some("2019-01-02T03:04:05Z".into())
    );
    assert!(r10.size.is_some());
    let accept = server.requests_for("/simple/sample/")[0]
        .accept
        .clone()
        .unwrap();
    assert!(accept.starts_with("application/vnd.pypi.simple.v1+json"));
}

#[test]
fn html_pages_list_files_with_metadata() {
    let server = TestServer::start(PageMode::Html);
    publish_sample(&server);
    check_sample_page(&server, PageFormat::Html);
}

#[test]
fn range_reads_fetch_only_the_chosen_members() {
    let server = TestServer::start(PageMode::Json);
    let wheel = binary_wheel();
    let bytes = wheel.build();
    server.publish(
        "fastlib",
        &[FixtureFile::new(&wheel.filename(), bytes.clone())],
    );
    let cache = tempfile::tempdir().unwrap();
    let client = client(&server, &cache);
    let page = client.project(&name("fastlib")).unwrap();
    let file = &page.files[0];
    server.clear_log();

    let contents = client
        .read_archive(file, &|n: &str| n.ends_with(".py") || n.ends_with("RECORD"))
        .unwrap();
    let names: Vec<&str> = contents.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "fastlib/__init__.py",
            "fastlib/util.py",
            "fastlib-1.0.dist-info/RECORD"
        ]
    );
    assert_eq!(
        contents.member("fastlib/util.py").unwrap().data,
        b"def helper(x, *, y=1):\n    return x\n"
    );
    // The listing still names every member, compiled ones included.
    assert!(contents
        .entries
        .iter()
        .any(|e| e.name.ends_with(".so") && e.size == 3 << 20));

    let t = contents.transfer;
    assert_eq!(t.method, Some(ReadMethod::Ranges));
    assert_eq!(t.archive_size, bytes.len() as u64);
    assert!(
        t.bytes_fetched < bytes.len() as u64 / 20,
        "fetched {} of {}",
        t.bytes_fetched,
        bytes.len()
    );
    let log = server.requests_for(".whl");
    assert_eq!(log.len() as u32, t.requests);
    assert!(log
        .iter()
        .all(|r| r.status == 206 && r.range.as_deref().is_some_and(|h| !h.contains(','))));

    // A second read is served from the cached ranges.
    server.clear_log();
    let again = client
        .read_archive(file, &|n: &str| n.ends_with(".py"))
        .unwrap();
    assert_eq!(again.members.len(), 2);
    assert_eq!(again.transfer.bytes_fetched, 0);
    assert!(server.log().is_empty());
}

#[test]
fn servers_that_ignore_range_get_one_full_download() {
    let server = TestServer::start(PageMode::Html);
    server.set_honor_range(false);
    let wheel = binary_wheel();
    let bytes = wheel.build();
    server.publish(
        "fastlib",
        &[FixtureFile::new(&wheel.filename(), bytes.clone())],
    );
    let cache = tempfile::tempdir().unwrap();
    let client = client(&server, &cache);
    let page = client.project(&name("fastlib")).unwrap();
    let file = &page.files[0];
    assert_eq!(file.size, None, "HTML pages carry no size");

    let contents = client
        .read_archive(file, &|n: &str| n.ends_with(".py"))
        .unwrap();
    assert_eq!(contents.members.len(), 2);
    assert_eq!(contents.transfer.method, Some(ReadMethod::Full));
    assert_eq!(contents.transfer.bytes_fetched, bytes.len() as u64);
    let log = server.requests_for(".whl");
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].status, 200);

    server.clear_log();
    let again = client
        .read_archive(file, &|n: &str| n.ends_with(".py"))
        .unwrap();
    assert_eq!(again.members.len(), 2);
    assert!(server.requests_for(".whl").is_empty());
}

#[test]
fn a_500_then_success_is_retried() {
    let server = TestServer::start(PageMode::Json);
    publish_sample(&server);
    server.fail_next("/simple/sample/", 2);
    let cache = tempfile::tempdir().unwrap();
    let page = client(&server, &cache).project(&name("sample")).unwrap();
    assert_eq!(page.releases().len(), 3);
    let statuses: Vec<u16> = server
        .requests_for("/simple/sample/")
        .iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(statuses, [500, 500, 200]);
}

#[test]
fn a_reset_connection_is_retried() {
    let server = TestServer::start(PageMode::Json);
    let (b10, _) = publish_sample(&server);
    let cache = tempfile::tempdir().unwrap();
    let client = client(&server, &cache);
    let page = client.project(&name("sample")).unwrap();
    let file = page.releases()[1].files[0].clone();
    server.reset_next("/files/sample-1.0-py3-none-any.whl", 1);
    let contents = client
        .read_archive(&file, &|n: &str| n.ends_with(".py"))
        .unwrap();
    assert_eq!(contents.members.len(), 1);
    assert_eq!(contents.transfer.archive_size, b10.len() as u64);
    assert_eq!(
        server.requests_for(".whl")[0].status,
        0,
        "first attempt was dropped"
    );
}

#[test]
fn a_timeout_is_retried() {
    let server = TestServer::start(PageMode::Json);
    publish_sample(&server);
    server.delay_next("/simple/sample/", 1, Duration::from_secs(3));
    let cache = tempfile::tempdir().unwrap();
    let mut config = config(&server, &cache);
    config.http.page_timeout = Duration::from_millis(300);
    let page = IndexClient::new(config.clone(), None)
        .unwrap()
        .project(&name("sample"))
        .unwrap();
    assert_eq!(page.releases().len(), 3);

    // Without retries the same pause is a network error naming the URL.
    server.delay_next("/simple/sample/", 1, Duration::from_secs(3));
    config.http.retry.retries = 0;
    let fresh = tempfile::tempdir().unwrap();
    config.cache_dir = fresh.path().to_path_buf();
    let err = IndexClient::new(config, None)
        .unwrap()
        .project(&name("sample"))
        .unwrap_err();
    assert!(
        matches!(err, PypiError::Network { attempts: 1, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("/simple/sample/"), "{err}");
}

#[test]
fn persistent_failures_name_the_url_and_the_status() {
    let server = TestServer::start(PageMode::Json);
    publish_sample(&server);
    server.fail_next("/simple/sample/", 100);
    let cache = tempfile::tempdir().unwrap();
    let mut config = config(&server, &cache);
    config.http.retry.retries = 2;
    let err = IndexClient::new(config, None)
        .unwrap()
        .project(&name("sample"))
        .unwrap_err();
    assert!(
        matches!(err, PypiError::Status { status: 500, .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains(&server.url("/simple/sample/")),
        "{message}"
    );
    assert!(
        message.contains("500") && message.contains("3 attempt"),
        "{message}"
    );
    assert_eq!(server.requests_for("/simple/sample/").len(), 3);
}

#[test]
fn unreachable_index_is_a_network_error() {
    // Bind then drop a listener: nothing accepts on that port.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cache = tempfile::tempdir().unwrap();
    let mut config = IndexConfig::new(format!("http://127.0.0.1:{port}/simple/"), cache.path());
    config.http.retry.retries = 1;
    config.http.retry.base_delay = Duration::from_millis(5);
    let err = IndexClient::new(config, None)
        .unwrap()
        .project(&name("six"))
        .unwrap_err();
    assert!(
        matches!(err, PypiError::Network { attempts: 2, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains(&format!("127.0.0.1:{port}")));
}

#[test]
fn missing_projects_are_not_found() {
    let server = TestServer::start(PageMode::Json);
    let cache = tempfile::tempdir().unwrap();
    let err = client(&server, &cache)
        .project(&name("nothing-here"))
        .unwrap_err();
    assert!(err.is_not_found(), "{err:?}");
    assert!(err.to_string().contains("nothing-here"));
}

#[test]
fn corrupt_zips_are_reported_with_the_file_name() {
    let server = TestServer::start(PageMode::Json);
    let good = WheelBuilder::new("broken", "1.0")
        .file("broken/__init__.py", "x = 1\n")
        .build();
    let truncated = good[..good.len() / 2].to_vec();
    let mut garbage = good.clone();
    // Keep the end record but wreck the central directory it points at.
    let eocd = garbage
        .windows(4)
        .rposition(|w| w == b"PK\x05\x06")
        .unwrap();
    let cd_offset = u32::from_le_bytes(garbage[eocd + 16..eocd + 20].try_into().unwrap()) as usize;
    garbage[cd_offset..cd_offset + 4].copy_from_slice(b"XXXX");
    server.publish(
        "broken",
        &[
            FixtureFile::new("broken-1.0-py3-none-any.whl", truncated),
            FixtureFile::new("broken-1.1-py3-none-any.whl", garbage),
            FixtureFile::new(
                "broken-1.2-py3-none-any.whl",
                b"this is not a zip file at all".to_vec(),
            ),
        ],
    );
    let cache = tempfile::tempdir().unwrap();
    let client = client(&server, &cache);
    let page = client.project(&name("broken")).unwrap();
    for file in &page.files {
        let err = client
            .read_archive(file, &|n: &str| n.ends_with(".py"))
            .unwrap_err();
        assert!(
            matches!(err, PypiError::BadArchive { .. }),
            "{}: {err:?}",
            file.filename
        );
        assert!(err.is_bad_archive());
        assert!(err.to_string().contains(&file.filename), "{err}");
    }
}

#[test]
fn members_that_claim_huge_sizes_are_refused() {
    let server = TestServer::start(PageMode::Json);
    let wheel = WheelBuilder::new("bomb", "1.0")
        .file("bomb/__init__.py", "x = 1\n")
        .file("bomb/big.py", "y = 2\n".repeat(1000));
    let mut huge = wheel.build();
    patch_declared_size(&mut huge, "bomb/big.py", 3_000_000_000);
    let liar = WheelBuilder::new("bomb", "1.1").file("bomb/big.py", "y = 2\n".repeat(1000));
    let mut lying = liar.build();
    // Claims 10 bytes but inflates to 6000: the decompressor must stop, not trust it.
    patch_declared_size(&mut lying, "bomb/big.py", 10);
    server.publish(
        "bomb",
        &[
            FixtureFile::new(&wheel.filename(), huge),
            FixtureFile::new(&liar.filename(), lying),
        ],
    );
    let cache = tempfile::tempdir().unwrap();
    let client = client(&server, &cache);
    let page = client.project(&name("bomb")).unwrap();
    let err = client
        .read_archive(&page.files[0], &|n: &str| n.ends_with(".py"))
        .unwrap_err();
    assert!(matches!(err, PypiError::Refused { .. }), "{err:?}");
    assert!(
        err.to_string().contains("bomb/big.py") && err.to_string().contains("3000000000"),
        "{err}"
    );
    let err = client
        .read_archive(&page.files[1], &|n: &str| n.ends_with(".py"))
        .unwrap_err();
    assert!(err.to_string().contains("inflates to more than"), "{err}");
}

#[test]
fn member_count_and_total_size_limits() {
    let server = TestServer::start(PageMode::Json);
    let members: Vec<(String, Vec<u8>)> = (0..50)
        .map(|i| (format!("many/m{i}.py"), b"x = 1\n".to_vec()))
        .collect();
    let many = zip_bytes(&members, false);
    let sdist = sdist_tar_gz(
        "many",
        "2.0",
        &[("many/a.py", &"z = 0\n".repeat(20_000))],
        "Name: many\nVersion: 2.0\n",
    );
    server.publish(
        "many",
        &[
            FixtureFile::new("many-1.0-py3-none-any.whl", many),
            FixtureFile::new("many-2.0.tar.gz", sdist),
        ],
    );
    let cache = tempfile::tempdir().unwrap();
    let mut config = config(&server, &cache);
    config.limits = ArchiveLimits {
        max_members: 20,
        max_member_size: 1 << 20,
        max_total_size: 50_000,
        ..ArchiveLimits::default()
    };
    let client = IndexClient::new(config, None).unwrap();
    let page = client.project(&name("many")).unwrap();
    let wheel = page.files.iter().find(|f| f.is_wheel()).unwrap();
    let err = client.read_archive(wheel, &|_: &str| true).unwrap_err();
    assert!(
        matches!(err, PypiError::Refused { .. }) && err.to_string().contains("50 members"),
        "{err}"
    );
    let sdist = page.files.iter().find(|f| !f.is_wheel()).unwrap();
    let err = client.read_archive(sdist, &|_: &str| false).unwrap_err();
    assert!(
        matches!(err, PypiError::Refused { .. })
            && err.to_string().contains("decompresses to more than"),
        "{err}"
    );
}

#[test]
fn core_metadata_prefers_pep658_then_the_wheel_then_the_sdist() {
    let server = TestServer::start(PageMode::Json);
    publish_sample(&server);
    let cache = tempfile::tempdir().unwrap();
    let client = client(&server, &cache);
    let page = client.project(&name("sample")).unwrap();
    let releases = page.releases();

    server.clear_log();
    let (meta, source) = client.core_metadata(releases[2].files[0]).unwrap();
    assert_eq!(source, MetadataSource::Pep658);
    assert_eq!(meta.requires_dist, ["six"]);
    assert!(
        server.requests_for(".whl").is_empty(),
        "the wheel itself was not touched"
    );

    let (meta, source) = client.core_metadata(releases[1].files[0]).unwrap();
    assert_eq!(source, MetadataSource::Wheel);
    assert_eq!(
        (meta.name.as_str(), meta.version.to_string().as_str()),
        ("sample", "1.0")
    );
    assert!(server.requests_for(".whl.metadata").len() <= 1);

    let (meta, source) = client.core_metadata(releases[0].files[0]).unwrap();
    assert_eq!(source, MetadataSource::Sdist);
    assert_eq!(meta.version.to_string(), "0.9");
}

#[test]
fn sdists_are_read_whole() {
    let server = TestServer::start(PageMode::Html);
    publish_sample(&server);
    let cache = tempfile::tempdir().unwrap();
    let client = client(&server, &cache);
    let page = client.project(&name("sample")).unwrap();
    let sdist = page.releases()[0].files[0].clone();
    let contents = client
        .read_archive(&sdist, &|n: &str| n.ends_with(".py"))
        .unwrap();
    assert_eq!(contents.members.len(), 1);
    assert_eq!(contents.members[0].name, "sample-0.9/sample/__init__.py");
    assert_eq!(contents.transfer.method, Some(ReadMethod::Full));
    assert!(contents
        .entries
        .iter()
        .any(|e| e.name == "sample-0.9/PKG-INFO"));
}

#[test]
fn pages_are_revalidated_after_their_ttl() {
    let server = TestServer::start(PageMode::Json);
    publish_sample(&server);
    let cache = tempfile::tempdir().unwrap();
    let mut config = config(&server, &cache);
    config.page_ttl = Duration::ZERO;
    let client = IndexClient::new(config, None).unwrap();
    client.project(&name("sample")).unwrap();
    let page = client.project(&name("sample")).unwrap();
    assert_eq!(page.releases().len(), 3);
    let log = server.requests_for("/simple/sample/");
    assert_eq!(log.len(), 2);
    assert!(log[1].if_none_match.is_some());
    assert_eq!(log[1].status, 304);

    // Within the TTL, no request at all.
    server.clear_log();
    client_with_ttl(&server, &cache)
        .project(&name("sample"))
        .unwrap();
    assert!(server.log().is_empty());
}

fn client_with_ttl(server: &TestServer, cache: &tempfile::TempDir) -> IndexClient {
    IndexClient::new(config(server, cache), None).unwrap()
}

#[test]
fn offline_runs_need_no_network_once_cached() {
    let server = TestServer::start(PageMode::Json);
    publish_sample(&server);
    let wheel = binary_wheel();
    server.publish(
        "fastlib",
        &[FixtureFile::new(&wheel.filename(), wheel.build())],
    );
    let cache = tempfile::tempdir().unwrap();
    {
        let client = client(&server, &cache);
        let page = client.project(&name("fastlib")).unwrap();
        client
            .read_archive(&page.files[0], &|n: &str| n.ends_with(".py"))
            .unwrap();
        client.core_metadata(&page.files[0]).unwrap();
    }
    server.clear_log();
    let mut config = config(&server, &cache);
    config.offline = true;
    let offline = IndexClient::new(config, None).unwrap();
    let page = offline.project(&name("fastlib")).unwrap();
    let contents = offline
        .read_archive(&page.files[0], &|n: &str| n.ends_with(".py"))
        .unwrap();
    assert_eq!(contents.members.len(), 2);
    let (meta, _) = offline.core_metadata(&page.files[0]).unwrap();
    assert_eq!(meta.requires_dist, ["numpy>=1.20"]);
    assert!(
        server.log().is_empty(),
        "offline mode sent {:?}",
        server.log()
    );

    let err = offline.project(&name("sample")).unwrap_err();
    assert!(matches!(err, PypiError::Offline { .. }), "{err:?}");
    assert!(err.to_string().contains("/simple/sample/"));
}

#[test]
fn a_wrong_hash_is_refused_and_not_cached() {
    let server = TestServer::start(PageMode::Json);
    let wheel = WheelBuilder::new("tampered", "1.0").file("tampered/__init__.py", "x = 1\n");
    server.publish(
        "tampered",
        &[FixtureFile::new(&wheel.filename(), wheel.build())],
    );
    // Swap the file after the page advertised the original's hash.
    let other = WheelBuilder::new("tampered", "1.0").file("tampered/__init__.py", "x = 666\n");
    server.route(
        &format!("/files/{}", wheel.filename()),
        other.build(),
        "application/octet-stream",
    );
    server.set_honor_range(false);
    let cache = tempfile::tempdir().unwrap();
    let client = client(&server, &cache);
    let page = client.project(&name("tampered")).unwrap();
    let err = client
        .read_archive(&page.files[0], &|n: &str| n.ends_with(".py"))
        .unwrap_err();
    assert!(matches!(err, PypiError::HashMismatch { .. }), "{err:?}");
    let err = client.download(&page.files[0]).unwrap_err();
    assert!(matches!(err, PypiError::HashMismatch { .. }), "{err:?}");
}

#[test]
fn old_sdist_formats_are_read_too() {
    let server = TestServer::start(PageMode::Html);
    let files = [("legacy/__init__.py", "def f():\n    pass\n")];
    let info = "Metadata-Version: 1.0\nName: legacy\nVersion: 0.1\n";
    server.publish(
        "legacy",
        &[
            FixtureFile::new(
                "legacy-0.1.tar.bz2",
                sdist_tar_bz2("legacy", "0.1", &files, info),
            ),
            FixtureFile::new(
                "legacy-0.2.zip",
                sdist_zip("legacy", "0.2", &files, &info.replace("0.1", "0.2")),
            ),
        ],
    );
    let cache = tempfile::tempdir().unwrap();
    let client = client(&server, &cache);
    let page = client.project(&name("legacy")).unwrap();
    assert_eq!(page.files.len(), 2);
    for file in &page.files {
        let contents = client
            .read_archive(file, &|n: &str| n.ends_with(".py"))
            .unwrap();
        assert_eq!(contents.members.len(), 1, "{}", file.filename);
        assert!(contents.members[0].name.ends_with("legacy/__init__.py"));
        let (meta, source) = client.core_metadata(file).unwrap();
        assert_eq!(source, MetadataSource::Sdist);
        assert_eq!(meta.version, file.version);
    }
}

//! A few bounded tests against the real PyPI, through the same client path users get.
//! They fetch a handful of small requests into a fresh cache each time.

use nbenv::names::DistName;
use nbenv::pypi::{FileKind, IndexClient, IndexConfig, MetadataSource, ReadMethod, PYPI_SIMPLE};

fn client(cache: &tempfile::TempDir) -> IndexClient {
    IndexClient::new(IndexConfig::new(PYPI_SIMPLE, cache.path()), None).unwrap()
}

#[test]
fn live_six_releases() {
    let cache = tempfile::tempdir().unwrap();
    let page = client(&cache)
        .project(&DistName::new("six").unwrap())
        .unwrap();
    let releases = page.releases();
    assert!(releases.len() >= 29, "six has at least 29 releases");
    let r = releases
        .iter()
        .find(|r| r.version.to_string() == "1.16.0")
        .expect("six 1.16.0");
    assert_eq!(
        r.upload_time().map(|t| t.strftime("%Y-%m-%d").to_string()),
        Some("2021-05-05".into())
    );
    assert!(r.has_wheel() && r.has_sdist() && !r.is_yanked());
    assert!(r.requires_python().text().unwrap().contains(">=2.7"));
    assert!(r
        .files
        .iter()
        .all(|f| f.size.is_some() && f.sha256().is_some()));
    // Oldest first, PEP 440 order.
    assert_eq!(releases[0].version.to_string(), "0.9.0");
}

#[test]
fn live_metadata_and_py_members_by_range() {
    let cache = tempfile::tempdir().unwrap();
    let client = client(&cache);
    let page = client.project(&DistName::new("PyYAML").unwrap()).unwrap();
    let file = page
        .files
        .iter()
        .find(|f| {
            f.filename == "PyYAML-6.0.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
        })
        .expect("the PyYAML 6.0.1 manylinux wheel");
    assert!(matches!(&file.kind, FileKind::Wheel { tags, .. } if tags.abi == ["cp311"]));

    let select = |n: &str| n.ends_with(".py") || n.ends_with(".dist-info/METADATA");
    let contents = client.read_archive(file, &select).unwrap();
    let init = contents
        .member("yaml/__init__.py")
        .expect("yaml/__init__.py");
    assert!(String::from_utf8_lossy(&init.data).contains("__version__ = '6.0.1'"));
    assert!(contents.members.iter().all(|m| select(&m.name)));
    assert!(contents.entries.iter().any(|e| e.name.ends_with(".so")));
    let meta = contents
        .members
        .iter()
        .find(|m| m.name.ends_with("METADATA"))
        .unwrap();
    assert!(String::from_utf8_lossy(&meta.data).contains("Name: PyYAML"));

    let t = contents.transfer;
    assert_eq!(t.method, Some(ReadMethod::Ranges));
    assert!(
        t.bytes_fetched * 2 < t.archive_size,
        "range reads fetched {} of {} bytes",
        t.bytes_fetched,
        t.archive_size
    );

    let (meta, source) = client.core_metadata(file).unwrap();
    assert_eq!(meta.version.to_string(), "6.0.1");
    assert!(matches!(
        source,
        MetadataSource::Pep658 | MetadataSource::Wheel
    ));
}

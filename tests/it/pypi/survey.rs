//! Sdists surveyed through the client: whether they are pure Python and which modules they
//! hold, read once (tarballs fetched, zips by range) and kept in the cache; one too large to
//! fetch is of unknown build; offline, a survey not kept is an error, one kept is answered.

use std::path::Path;

use crate::support::archives::{sdist_tar_gz, sdist_zip};
use crate::support::server::{FixtureFile, PageMode, TestServer};
use nbenv::names::DistName;
use nbenv::pypi::{DistFile, IndexClient, IndexConfig, PypiError, SdistBuild};

fn client(
    server: &TestServer,
    cache: &Path,
    configure: impl FnOnce(&mut IndexConfig),
) -> IndexClient {
    let mut config = IndexConfig::new(server.index_url(), cache);
    config.http.retry.retries = 0;
    configure(&mut config);
    IndexClient::new(config, None).unwrap()
}

fn files(client: &IndexClient, project: &str) -> Vec<DistFile> {
    client
        .project(&DistName::new(project).unwrap())
        .unwrap()
        .files
}

const SETUP: &str = "from setuptools import setup\nsetup(name='pkg', packages=['pkg'])\n";
const PKG_INFO: &str = "Metadata-Version: 1.1\nName: pkg\nVersion: 1.0\n";

fn publish(server: &TestServer) {
    server.publish(
        "pkg",
        &[
            FixtureFile::new(
                "pkg-1.0.tar.gz",
                sdist_tar_gz(
                    "pkg",
                    "1.0",
                    &[("setup.py", SETUP), ("pkg/__init__.py", "")],
                    PKG_INFO,
                ),
            ),
            FixtureFile::new(
                "pkg-1.1.zip",
                sdist_zip(
                    "pkg",
                    "1.1",
                    &[
                        ("setup.py", SETUP),
                        ("pkg/__init__.py", ""),
                        ("pkg/_speedups.c", "int fast(void);\n"),
                    ],
                    PKG_INFO,
                ),
            ),
        ],
    );
}

#[test]
fn sdists_are_surveyed_once_and_kept() {
    let server = TestServer::start(PageMode::Json);
    publish(&server);
    let cache = tempfile::tempdir().unwrap();
    let online = client(&server, cache.path(), |_| {});
    let [tar, zip] = files(&online, "pkg").try_into().unwrap();

    let pure = online.survey_sdist(&tar).unwrap();
    assert_eq!(pure.build, SdistBuild::PurePython);
    assert_eq!(pure.modules, ["pkg".to_string()].into());
    let compiled = online.survey_sdist(&zip).unwrap();
    assert_eq!(
        compiled.build,
        SdistBuild::Compiled {
            evidence: "pkg/_speedups.c".into()
        }
    );

    // Read once: the next surveys, online or off, ask the index nothing.
    server.clear_log();
    assert_eq!(online.survey_sdist(&tar).unwrap(), pure);
    let offline = client(&server, cache.path(), |c| c.offline = true);
    assert_eq!(offline.survey_sdist(&zip).unwrap(), compiled);
    assert!(server.log().is_empty(), "{:?}", server.log());

    // Offline, what was never surveyed is an error, not a verdict.
    let empty = tempfile::tempdir().unwrap();
    let offline = client(&server, empty.path(), |c| c.offline = true);
    assert!(matches!(
        offline.survey_sdist(&tar),
        Err(PypiError::Offline { .. })
    ));
}

#[test]
fn an_sdist_too_large_to_fetch_is_of_unknown_build() {
    // Its size on the page is past the limit: not fetched at all.
    let server = TestServer::start(PageMode::Json);
    publish(&server);
    let cache = tempfile::tempdir().unwrap();
    let small = client(&server, cache.path(), |c| c.limits.max_streamed_size = 64);
    let tar = files(&small, "pkg").remove(0);
    server.clear_log();
    let survey = small.survey_sdist(&tar).unwrap();
    assert!(
        matches!(&survey.build, SdistBuild::Unknown { why } if why.contains("more than")),
        "{survey:?}"
    );
    assert!(!survey.is_pure_python());
    assert!(server.requests_for(".tar.gz").is_empty());

    // No size on the page (PEP 503 HTML): the download stops at the limit, and the verdict
    // is kept, so the sdist is not fetched again.
    let server = TestServer::start(PageMode::Html);
    publish(&server);
    let cache = tempfile::tempdir().unwrap();
    let small = client(&server, cache.path(), |c| c.limits.max_streamed_size = 64);
    let tar = files(&small, "pkg").remove(0);
    assert_eq!(tar.size, None);
    let survey = small.survey_sdist(&tar).unwrap();
    assert!(
        matches!(&survey.build, SdistBuild::Unknown { .. }),
        "{survey:?}"
    );
    server.clear_log();
    assert_eq!(small.survey_sdist(&tar).unwrap(), survey);
    assert!(server.requests_for(".tar.gz").is_empty());
}

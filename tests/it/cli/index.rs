//! `nbenv index` end to end: the built binary against a loopback index.

use std::process::Output;

use crate::support::archives::WheelBuilder;
use crate::support::context::TestContext;
use crate::support::server::{FixtureFile, PageMode, TestServer};
use crate::support::snapshot::printed;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `demo-pkg` 1.0 (a wheel, sdists) and 2.0 (yanked), `broken` (not a zip); one retry.
fn setup() -> TestContext {
    let server = TestServer::start(PageMode::Json);
    let w1 = WheelBuilder::new("demo-pkg", "1.0")
        .file("demo_pkg/__init__.py", "x = 1\n")
        .requires("numpy>=1.10")
        .requires_python(">=3.7");
    let w2 = WheelBuilder::new("demo-pkg", "2.0").file("demo_pkg/__init__.py", "x = 2\n");
    server.publish(
        "demo-pkg",
        &[
            FixtureFile {
                upload_time: Some("2018-03-04T05:06:07Z".into()),
                requires_python: Some(">=3.7".into()),
                ..FixtureFile::new(&w1.filename(), w1.build())
            },
            FixtureFile {
                yanked: Some("".into()),
                ..FixtureFile::new(&w2.filename(), w2.build())
            },
            FixtureFile::new("demo_pkg-1.0.tar.gz", b"unused".to_vec()),
            FixtureFile::new("demo-pkg-dev.tar.gz", b"unused".to_vec()),
        ],
    );
    server.publish(
        "broken",
        &[FixtureFile::new(
            "broken-1.0-py3-none-any.whl",
            b"garbage".to_vec(),
        )],
    );
    TestContext::with_server(server).env("NBENV_HTTP_RETRIES", "1")
}

#[test]
fn releases_as_text_and_json() {
    let ctx = setup();
    let _server = ctx.server();
    // Asked as `Demo_Pkg`, listed as the index names it: 1.0's date, files and requires-python,
    // 2.0 yanked, and the file with no valid version skipped with the reason.
    snapshot!(
        "index-releases-yanked",
        ctx.printed(["index", "releases", "Demo_Pkg"])
    );

    let out = ctx.output(["index", "releases", "demo-pkg", "--format", "json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &v["projects"];
    let releases = &v[0]["releases"];
    assert_eq!(releases[0]["version"], "1.0");
    assert_eq!(releases[0]["wheels"], 1);
    assert_eq!(releases[0]["sdist"], true);
    assert_eq!(releases[1]["yanked"], true);
    assert_eq!(v[0]["skipped"][0]["filename"], "demo-pkg-dev.tar.gz");
}

#[test]
fn files_and_metadata() {
    let ctx = setup();
    let _server = ctx.server();
    snapshot!(
        "index-files-wheel-and-sdist",
        ctx.printed(["index", "files", "demo-pkg==1.0"])
    );

    let out = ctx.output(["index", "files", "demo-pkg==1.0", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["name"], "demo-pkg");
    let v = &v["files"];
    assert_eq!(v[0]["kind"]["tags"]["python"][0], "py3");
    assert_eq!(v[0]["hashes"]["sha256"].as_str().unwrap().len(), 64);

    snapshot!(
        "index-metadata-requires",
        ctx.printed(["index", "metadata", "demo-pkg==1.0"])
    );

    let out = ctx.output(["index", "metadata", "demo-pkg==1.0", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["metadata"]["requires_dist"][0], "numpy>=1.10");
    assert_eq!(v["source"], "wheel");
}

#[test]
fn exit_codes() {
    let ctx = setup();
    let server = ctx.server();
    let out = ctx.output(["index", "releases", "no-such-project"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("no-such-project"));

    snapshot!(
        "index-files-no-release",
        ctx.printed(["index", "files", "demo-pkg==9.9"])
    );

    server.fail_next("/simple/flaky/", 10);
    let out = ctx.output(["index", "releases", "flaky"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("HTTP 500"), "{}", stderr(&out));

    let out = ctx.output(["index", "metadata", "broken==1.0"]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("broken-1.0-py3-none-any.whl"),
        "{}",
        stderr(&out)
    );

    let out = ctx.output(["--offline", "index", "releases", "never-fetched"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(stderr(&out).contains("--offline"), "{}", stderr(&out));

    let out = ctx.output(["index", "files", "demo-pkg"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "bad arguments are clap's code 2"
    );
}

#[test]
fn verbose_shows_requests_and_offline_reuses_the_cache() {
    let ctx = setup();
    let server = ctx.server();
    let out = ctx.output(["-v", "index", "metadata", "demo-pkg==1.0"]);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("nbenv: GET http://"),
        "{}",
        stderr(&out)
    );
    server.clear_log();
    let out = ctx.output(["--offline", "index", "metadata", "demo-pkg==1.0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(server.log().is_empty());
}

/// `nbenv` with extra environment variables, on a cache of its own.
fn nbenv_with(ctx: &TestContext, vars: &[(&str, &str)], args: &[&str]) -> (Output, String) {
    let cache = tempfile::tempdir().unwrap();
    let mut cmd = ctx.command();
    cmd.env("NBENV_CACHE_DIR", cache.path()).args(args);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let err = stderr(&out);
    (out, err)
}

#[test]
fn an_index_page_over_the_size_limit_is_refused_as_it_arrives() {
    let ctx = setup();
    let server = ctx.server();
    let page = "/simple/demo-pkg/";
    let limit = [("NBENV_MAX_PAGE_SIZE", "200")];
    let releases = ["index", "releases", "demo-pkg"];
    // Refused on the announced length, then on the bytes counted when none is announced.
    for (announced, name) in [
        (true, "index-page-too-big"),
        (false, "index-page-too-big-unannounced"),
    ] {
        if !announced {
            server.omit_length(page);
        }
        // The URL, the limit and the variable that sets it; exit 5.
        let (out, _) = nbenv_with(&ctx, &limit, &releases);
        snapshot!(name, printed(&out));
    }
    // The same page under the default limit is read.
    let (out, err) = nbenv_with(&ctx, &[], &releases);
    assert!(out.status.success(), "{err}");
}

#[test]
fn a_stalled_download_fails_after_the_download_timeout() {
    let ctx = setup();
    let server = ctx.server();
    // Every request for the wheel sends half its answer, then nothing for two minutes.
    server.stall_next(
        "/files/demo_pkg-1.0-py3-none-any.whl",
        100,
        std::time::Duration::from_secs(120),
    );
    let started = std::time::Instant::now();
    let (out, err) = nbenv_with(
        &ctx,
        &[("NBENV_DOWNLOAD_TIMEOUT", "2")],
        &["index", "metadata", "demo-pkg==1.0"],
    );
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("timed out"), "says it timed out: {err}");
    // Two attempts of 2 s and a back-off, far short of the stall.
    assert!(took < std::time::Duration::from_secs(60), "took {took:?}");
}

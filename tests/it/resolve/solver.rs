//! The solver reading a real index through `IndexCatalog`: wheels with Requires-Dist and
//! Requires-Python on the loopback index (offline), and one bounded resolution against PyPI.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::support::archives::{sdist_tar_gz, WheelBuilder};
use crate::support::server::{sha256_hex, FixtureFile, PageMode, TestServer};
use nbenv::names::DistName;
use nbenv::pypi::{IndexClient, IndexConfig, PYPI_SIMPLE};
use nbenv::python::PythonVersion;
use nbenv::resolve::solver::{
    solve, Allowed, IndexCatalog, RequiredBy, RootRequirement, Solution, SolveError, SolveOptions,
    Target,
};

const ARCH: &str = std::env::consts::ARCH;

fn name(s: &str) -> DistName {
    DistName::new(s).unwrap()
}

fn target(python: &str) -> Target {
    Target::new(PythonVersion::parse(python).unwrap())
}

fn root(dist: &str, specifiers: &str, evidence: &str) -> RootRequirement {
    RootRequirement {
        dist: name(dist),
        extras: Vec::new(),
        allowed: Allowed::Specifiers(specifiers.parse().unwrap()),
        evidence: vec![evidence.to_string()],
    }
}

fn pins(s: &Solution) -> Vec<String> {
    s.pins
        .iter()
        .map(|p| format!("{}=={}", p.dist, p.version))
        .collect()
}

/// Publishes `wheel`, with its Requires-Python on the page unless `page_python` is false, its
/// PEP 658 metadata when `pep658`, and this upload time.
fn file(
    wheel: &WheelBuilder,
    page_python: Option<&str>,
    pep658: bool,
    uploaded: &str,
) -> FixtureFile {
    FixtureFile {
        requires_python: page_python.map(str::to_string),
        upload_time: Some(uploaded.to_string()),
        metadata: pep658.then(|| wheel.metadata().into_bytes()),
        ..FixtureFile::new(&wheel.filename(), wheel.build())
    }
}

/// A small scientific stack: `learn` 0.20 needs numpy and scipy and runs on 3.5+, `learn` 1.0
/// needs Python 3.8; numpy 1.22 needs 3.8; scipy needs numpy and, before 3.4, enum34.
fn publish_stack(server: &TestServer) -> Vec<u8> {
    let learn_old = WheelBuilder::new("learn", "0.19.2")
        .tag(&format!("cp36-cp36m-manylinux1_{ARCH}"))
        .file("learn/__init__.py", "");
    let learn_020 = WheelBuilder::new("learn", "0.20.0")
        .file("learn/__init__.py", "")
        .requires("numpy (>=1.8.2)")
        .requires("scipy>=0.13.3")
        .requires("pytest>=3 ; extra == 'tests'")
        .requires_python(">=3.5");
    let learn_10 = WheelBuilder::new("learn", "1.0")
        .file("learn/__init__.py", "")
        .requires("numpy>=1.17")
        .requires("scipy")
        .requires_python(">=3.8");
    let learn_020_bytes = learn_020.build();
    // Not a zip, and no PEP 658 file: its metadata cannot be read, so it is passed over.
    let broken = FixtureFile {
        upload_time: Some("2019-01-01T00:00:00Z".into()),
        ..FixtureFile::new(
            "learn-0.21.0-py3-none-any.whl",
            b"truncated upload".to_vec(),
        )
    };
    server.publish(
        "learn",
        &[
            file(&learn_old, None, false, "2018-07-15T00:00:00Z"),
            // Requires-Python only in the wheel's METADATA, read by range.
            FixtureFile {
                upload_time: Some("2018-09-25T00:00:00Z".into()),
                ..FixtureFile::new(&learn_020.filename(), learn_020_bytes.clone())
            },
            broken,
            file(&learn_10, Some(">=3.8"), true, "2021-09-24T00:00:00Z"),
        ],
    );
    let numpy = |v: &str, python: Option<&str>, uploaded: &str| {
        let mut w = WheelBuilder::new("numpy", v).file("numpy/__init__.py", "");
        if let Some(p) = python {
            w = w.requires_python(p);
        }
        file(&w, python, true, uploaded)
    };
    server.publish(
        "numpy",
        &[
            numpy("1.16.6", None, "2019-12-29T00:00:00Z"),
            numpy("1.19.5", Some(">=3.6"), "2021-01-05T00:00:00Z"),
            numpy("1.22.0", Some(">=3.8"), "2021-12-31T00:00:00Z"),
        ],
    );
    let scipy = WheelBuilder::new("scipy", "1.5.4")
        .file("scipy/__init__.py", "")
        .requires("numpy>=1.14.5")
        .requires("enum34; python_version < \"3.4\"")
        .requires_python(">=3.6");
    server.publish(
        "scipy",
        &[file(&scipy, Some(">=3.6"), false, "2020-11-04T00:00:00Z")],
    );
    // Only an sdist: its PKG-INFO is the metadata.
    let pkg_info = "Metadata-Version: 1.2\nName: oldutil\nVersion: 0.3\nRequires-Dist: numpy\n";
    server.publish(
        "oldutil",
        &[FixtureFile {
            upload_time: Some("2015-01-01T00:00:00Z".into()),
            ..FixtureFile::new(
                "oldutil-0.3.tar.gz",
                sdist_tar_gz("oldutil", "0.3", &[("oldutil.py", "")], pkg_info),
            )
        }],
    );
    learn_020_bytes
}

fn loopback_client(server: &TestServer, cache: &tempfile::TempDir) -> IndexClient {
    let mut config = IndexConfig::new(server.index_url(), cache.path());
    config.http.retry.base_delay = Duration::from_millis(10);
    IndexClient::new(config, None).unwrap()
}

#[test]
fn index_catalog_resolves_through_the_loopback_index() {
    let server = TestServer::start(PageMode::Json);
    let learn_020 = publish_stack(&server);
    let cache = tempfile::tempdir().unwrap();
    let client = loopback_client(&server, &cache);
    let catalog = IndexCatalog::new(&client);
    let options = SolveOptions::default();

    let roots = [root("learn", "<1", "cell 3 uses learn.cross_validation")];
    let s = solve(&catalog, &target("3.6"), &roots, &options).unwrap();
    assert_eq!(pins(&s), ["learn==0.20.0", "numpy==1.19.5", "scipy==1.5.4"]);
    let learn = s.get(&name("learn")).unwrap();
    assert_eq!(
        learn.required_by,
        [RequiredBy::Root {
            evidence: vec!["cell 3 uses learn.cross_validation".into()]
        }]
    );
    // The lock carries the index's hash of the file that was published.
    assert_eq!(learn.files.len(), 1);
    assert_eq!(
        learn.files[0].sha256.as_deref(),
        Some(sha256_hex(&learn_020).as_str())
    );
    assert_eq!(
        learn.files[0].url,
        server.url("/files/learn-0.20.0-py3-none-any.whl")
    );
    let numpy_parents: Vec<String> = s
        .get(&name("numpy"))
        .unwrap()
        .required_by
        .iter()
        .map(|r| match r {
            RequiredBy::Dependency {
                parent,
                requirement,
                ..
            } => format!("{parent}: {requirement}"),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        numpy_parents,
        ["learn: numpy>=1.8.2", "scipy: numpy>=1.14.5"]
    );

    // The unreadable 0.21.0 was tried and passed over; its wheel was asked for.
    assert!(!server
        .requests_for("learn-0.21.0-py3-none-any.whl")
        .is_empty());

    // Everything is read once: solving again asks the index nothing more.
    let asked = server.log().len();
    let again = solve(&catalog, &target("3.6"), &roots, &options).unwrap();
    assert_eq!(pins(&again), pins(&s));
    assert_eq!(server.log().len(), asked);

    // On 3.11 the newest releases fit; METADATA's Requires-Python (3.5+) keeps 0.20 on 3.5.
    let any = [root("learn", "", "cell 1 imports learn")];
    let s = solve(&catalog, &target("3.11"), &any, &options).unwrap();
    assert_eq!(pins(&s), ["learn==1.0", "numpy==1.22.0", "scipy==1.5.4"]);
    let s = solve(&catalog, &target("3.4"), &roots, &options);
    let Err(SolveError::NoSolution { explanation, .. }) = s else {
        panic!("3.4 has no learn 0.20: {s:?}");
    };
    assert!(
        explanation.contains("learn ==0.20.0 requires Python >=3.5"),
        "{explanation}"
    );
    assert!(
        explanation.contains("cell 3 uses learn.cross_validation"),
        "{explanation}"
    );
    assert!(
        explanation.contains(
            "learn ==0.21.0 cannot be used (metadata unreadable: \
             learn-0.21.0-py3-none-any.whl: too short to be a zip archive)"
        ),
        "{explanation}"
    );

    // A date cap at the end of 2020 keeps numpy 1.19.5 out (scipy 1.5.4 came before it).
    let capped = SolveOptions {
        exclude_newer: Some("2020-12-01T00:00:00Z".parse().unwrap()),
        ..SolveOptions::default()
    };
    let s = solve(&catalog, &target("3.6"), &roots, &capped).unwrap();
    assert_eq!(pins(&s), ["learn==0.20.0", "numpy==1.16.6", "scipy==1.5.4"]);
}

/// An sdist too old to declare Requires-Dist in PKG-INFO (setuptools wrote them to the
/// egg-info's requires.txt): its requirements still count, so a release whose dependency
/// left the index is passed over for one that installs (fancyimpute 0.2.0 and `climate`).
#[test]
fn an_old_sdists_egg_info_requirements_count() {
    let server = TestServer::start(PageMode::Json);
    publish_stack(&server);
    let sdist = |version: &str, requires: &str| {
        // A 1.x Description runs on over lines of spaces.
        let pkg_info = format!("Metadata-Version: 1.1\nName: fancy\nVersion: {version}\nDescription: fancy\n        \n        imputation\nPlatform: UNKNOWN\n");
        let egg = "fancy.egg-info/requires.txt";
        FixtureFile {
            upload_time: Some("2016-01-01T00:00:00Z".into()),
            ..FixtureFile::new(
                &format!("fancy-{version}.tar.gz"),
                sdist_tar_gz(
                    "fancy",
                    version,
                    &[("fancy/__init__.py", ""), (egg, requires)],
                    &pkg_info,
                ),
            )
        }
    };
    server.publish(
        "fancy",
        &[
            sdist("0.1", "numpy>=1.10\n\n[docs]\nsphinx\n"),
            sdist("0.2", "numpy>=1.10\nclimate\n"),
        ],
    );
    let cache = tempfile::tempdir().unwrap();
    let client = loopback_client(&server, &cache);
    let catalog = IndexCatalog::new(&client);
    let roots = [root("fancy", "", "cell 1 imports fancy")];
    let s = solve(&catalog, &target("3.6"), &roots, &SolveOptions::default()).unwrap();
    assert_eq!(pins(&s), ["fancy==0.1", "numpy==1.19.5"]);
    // The same from the cache's memo of the headers, in a later process.
    let catalog = IndexCatalog::new(&client);
    let s = solve(&catalog, &target("3.6"), &roots, &SolveOptions::default()).unwrap();
    assert_eq!(pins(&s), ["fancy==0.1", "numpy==1.19.5"]);
    let Err(SolveError::NoSolution { explanation, .. }) = solve(
        &catalog,
        &target("3.6"),
        &[root("fancy", ">=0.2", "cell 1 uses fancy.new")],
        &SolveOptions::default(),
    ) else {
        panic!("fancy 0.2 needs a project the index does not have");
    };
    assert!(explanation.contains("climate"), "{explanation}");
}

#[test]
fn index_catalog_reads_an_sdists_metadata_when_sdists_are_allowed() {
    let server = TestServer::start(PageMode::Html);
    publish_stack(&server);
    let cache = tempfile::tempdir().unwrap();
    let client = loopback_client(&server, &cache);
    let catalog = IndexCatalog::new(&client);
    let roots = [root("oldutil", "", "cell 2 imports oldutil")];

    // Its sdist is pure Python (its file list says so): it counts from the start.
    let s = solve(&catalog, &target("3.6"), &roots, &SolveOptions::default()).unwrap();
    assert_eq!(pins(&s), ["numpy==1.19.5", "oldutil==0.3"]);
    assert!(s.get(&name("oldutil")).unwrap().builds_pure_sdist());
    let wheels_only = SolveOptions {
        wheels_only: true,
        ..SolveOptions::default()
    };
    let Err(SolveError::NoSolution { explanation, .. }) =
        solve(&catalog, &target("3.6"), &roots, &wheels_only)
    else {
        panic!("wheels only refuse an sdist-only project");
    };
    assert!(
        explanation.contains("oldutil 0.3 cannot be installed on CPython 3.6 (no wheel for CPython 3.6, only an sdist)"),
        "{explanation}"
    );

    let allow = SolveOptions {
        allow_sdist: true,
        ..SolveOptions::default()
    };
    let s = solve(&catalog, &target("3.6"), &roots, &allow).unwrap();
    assert_eq!(pins(&s), ["numpy==1.19.5", "oldutil==0.3"]);
    let locked: BTreeSet<&str> = s
        .get(&name("oldutil"))
        .unwrap()
        .files
        .iter()
        .map(|f| f.filename.as_str())
        .collect();
    assert_eq!(locked, BTreeSet::from(["oldutil-0.3.tar.gz"]));

    // A project the index does not have is named as such.
    let ghost = [root("no-such-project", "", "cell 9 imports ghost")];
    let Err(SolveError::NoSolution { explanation, .. }) =
        solve(&catalog, &target("3.6"), &ghost, &allow)
    else {
        panic!("no such project");
    };
    assert!(
        explanation.contains("no-such-project is not on the index"),
        "{explanation}"
    );
    assert!(
        explanation.contains("cell 9 imports ghost"),
        "{explanation}"
    );
}

/// scikit-learn before 0.20 on CPython 3.6, from PyPI: 0.19.2, the last with
/// `sklearn.cross_validation`. Its metadata declares numpy and scipy only under the `alldeps`
/// extra, so they come in through that extra, at the newest releases for 3.6.
#[test]
fn live_scikit_learn_below_0_20_on_python_3_6() {
    let cache = tempfile::tempdir().unwrap();
    let client = IndexClient::new(IndexConfig::new(PYPI_SIMPLE, cache.path()), None).unwrap();
    let catalog = IndexCatalog::new(&client);
    let mut sklearn = root(
        "scikit-learn",
        "<0.20",
        "cell 4 uses sklearn.cross_validation",
    );
    let bare = solve(
        &catalog,
        &target("3.6"),
        std::slice::from_ref(&sklearn),
        &SolveOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(pins(&bare), ["scikit-learn==0.19.2"]);

    sklearn.extras = vec!["alldeps".parse().unwrap()];
    let s = solve(
        &catalog,
        &target("3.6"),
        &[sklearn],
        &SolveOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        pins(&s),
        ["numpy==1.19.5", "scikit-learn==0.19.2", "scipy==1.5.4"]
    );
    let roots: Vec<&str> = s.roots().map(|p| p.dist.as_str()).collect();
    assert_eq!(roots, ["scikit-learn"]);
    assert!(s.get(&name("scipy")).unwrap().required_by.iter().any(
        |r| matches!(r, RequiredBy::Dependency { parent, extra: Some(e), .. }
            if parent.as_str() == "scikit-learn" && e.as_ref() == "alldeps")
    ));
    // Every pin has wheels for cp36 on this platform, each with its hash.
    assert!(s
        .pins
        .iter()
        .all(|p| !p.files.is_empty() && p.files.iter().all(|f| f.sha256.is_some())));
}

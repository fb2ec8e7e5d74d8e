//! The solver on small in-memory catalogs: each test builds the releases it reasons about.

use std::collections::BTreeSet;

use pep508_rs::pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::ExtraName;

use super::*;
use crate::names::DistName;
use crate::python::PythonVersion;

const ARCH: &str = std::env::consts::ARCH;

fn name(s: &str) -> DistName {
    DistName::new(s).unwrap()
}

fn v(s: &str) -> Version {
    s.parse().unwrap()
}

fn target(python: &str) -> Target {
    Target::new(PythonVersion::parse(python).unwrap())
}

/// A manylinux wheel tag for CPython `X.Y` on this machine.
fn cp(python: &str) -> String {
    let p = PythonVersion::parse(python).unwrap();
    let digits = format!("{}{}", p.major, p.minor);
    // Before 3.8 the ABI tag carried `m`.
    let abi = if p < PythonVersion::new(3, 8) {
        format!("cp{digits}m")
    } else {
        format!("cp{digits}")
    };
    format!("cp{digits}-{abi}-manylinux2014_{ARCH}")
}

fn spec(dist: &str, specifiers: &str, evidence: &[&str]) -> RootRequirement {
    RootRequirement {
        dist: name(dist),
        extras: Vec::new(),
        allowed: Allowed::Specifiers(specifiers.parse::<VersionSpecifiers>().unwrap()),
        evidence: evidence.iter().map(|s| s.to_string()).collect(),
    }
}

fn exactly(dist: &str, versions: &[&str], evidence: &[&str]) -> RootRequirement {
    RootRequirement {
        dist: name(dist),
        extras: Vec::new(),
        allowed: Allowed::Versions(versions.iter().map(|s| v(s)).collect::<BTreeSet<_>>()),
        evidence: evidence.iter().map(|s| s.to_string()).collect(),
    }
}

fn catalog(releases: impl IntoIterator<Item = MemoryRelease>) -> MemoryCatalog {
    let mut c = MemoryCatalog::new();
    for r in releases {
        c.add(r).unwrap();
    }
    c
}

fn pure(dist: &str, version: &str) -> MemoryRelease {
    MemoryRelease::new(dist, version).wheel("py3-none-any")
}

fn solved(
    catalog: &MemoryCatalog,
    python: &str,
    roots: &[RootRequirement],
    options: &SolveOptions,
) -> Solution {
    solve(catalog, &target(python), roots, options).unwrap_or_else(|e| panic!("{e}"))
}

fn failure(
    catalog: &MemoryCatalog,
    python: &str,
    roots: &[RootRequirement],
    options: &SolveOptions,
) -> String {
    match solve(catalog, &target(python), roots, options) {
        Err(SolveError::NoSolution { explanation, .. }) => explanation,
        Err(e) => panic!("expected no solution, got error {e}"),
        Ok(s) => panic!("expected no solution, got {:?}", pins(&s)),
    }
}

fn pins(s: &Solution) -> Vec<String> {
    s.pins
        .iter()
        .map(|p| format!("{}=={}", p.dist, p.version))
        .collect()
}

fn version_of(s: &Solution, dist: &str) -> String {
    s.get(&name(dist))
        .unwrap_or_else(|| panic!("{dist} not in {:?}", pins(s)))
        .version
        .to_string()
}

#[test]
fn non_contiguous_allowed_set_picks_the_newest_allowed() {
    // An API present in 1.0–1.1, removed in 1.2, restored in 1.3, removed again in 2.0.
    let c = catalog(["1.0", "1.1", "1.2", "1.3", "2.0"].map(|r| pure("lib", r)));
    let allowed = ["1.0", "1.1", "1.3"];
    let s = solved(
        &c,
        "3.11",
        &[exactly("lib", &allowed, &["cell 1 uses lib.f"])],
        &SolveOptions::default(),
    );
    assert_eq!(pins(&s), ["lib==1.3"]);

    // Without 1.3 the newest allowed is below the gap.
    let s = solved(
        &c,
        "3.11",
        &[exactly("lib", &["1.0", "1.1"], &[])],
        &SolveOptions::default(),
    );
    assert_eq!(pins(&s), ["lib==1.1"]);

    // The set becomes runs of consecutive releases, not one range over the gap.
    let known: Vec<Version> = ["1.0", "1.1", "1.2", "1.3", "2.0"].map(v).into();
    let known: Vec<&Version> = known.iter().collect();
    let ranges = exactly("lib", &allowed, &[]).allowed.to_ranges(&known);
    assert!(ranges.contains(&v("1.1")) && ranges.contains(&v("1.3")));
    assert!(!ranges.contains(&v("1.2")) && !ranges.contains(&v("2.0")));
    assert_eq!(
        report::describe_over(&ranges, &known),
        "<1.2 or >=1.3, <2.0"
    );
}

#[test]
fn requires_python_excludes_releases() {
    let c = catalog([
        pure("lib", "1.5").requires_python(">=3.6"),
        pure("lib", "2.0").requires_python(">=3.8"),
        // Only the metadata says so, as on indexes whose pages omit it.
        pure("lib", "2.1").metadata_requires_python(">=3.9"),
    ]);
    let any = [spec("lib", "", &[])];
    let options = SolveOptions::default();
    assert_eq!(version_of(&solved(&c, "3.6", &any, &options), "lib"), "1.5");
    assert_eq!(version_of(&solved(&c, "3.8", &any, &options), "lib"), "2.0");
    assert_eq!(
        version_of(&solved(&c, "3.11", &any, &options), "lib"),
        "2.1"
    );

    // Forcing the excluded releases says why they are out, both ways.
    let why = failure(
        &c,
        "3.6",
        &[spec("lib", ">=2", &["cell 2 uses lib.g"])],
        &options,
    );
    assert!(why.contains("requires Python >=3.8"), "{why}");
    assert!(why.contains("cell 2 uses lib.g"), "{why}");
    let why = failure(&c, "3.8", &[spec("lib", ">=2.1", &[])], &options);
    assert!(why.contains("lib ==2.1 requires Python >=3.9"), "{why}");
    assert!(why.contains("the target is CPython 3.8"), "{why}");
}

/// An index's Requires-Python that is not PEP 440 is unknown: the release stays a candidate
/// on any target, as installers ignore such a field.
#[test]
fn an_unreadable_requires_python_excludes_no_target() {
    let c = catalog([
        pure("lib", "1.0"),
        pure("lib", "2.0")
            .requires_python(">=3.6.*, garbage")
            .metadata_requires_python(">=3"),
    ]);
    let any = [spec("lib", "", &[])];
    let options = SolveOptions::default();
    for python in ["3.5", "3.12"] {
        assert_eq!(
            version_of(&solved(&c, python, &any, &options), "lib"),
            "2.0",
            "{python}"
        );
    }
}

#[test]
fn a_feature_release_meets_a_patch_level_lower_bound() {
    // pandas 1.2 declares >=3.7.1: every 3.7 still installed is newer than 3.7.0.
    let c = catalog([
        pure("pandas", "1.1.5").requires_python(">=3.6.1"),
        pure("pandas", "1.2.0").requires_python(">=3.7.1"),
        pure("pandas", "1.4.0").requires_python(">=3.8"),
    ]);
    let s = solved(
        &c,
        "3.7",
        &[spec("pandas", "", &[])],
        &SolveOptions::default(),
    );
    assert_eq!(version_of(&s, "pandas"), "1.2.0");
    // A known patch level is compared as it is.
    let s = solved(
        &c,
        "3.7.0",
        &[spec("pandas", "", &[])],
        &SolveOptions::default(),
    );
    assert_eq!(version_of(&s, "pandas"), "1.1.5");
}

#[test]
fn markers_are_evaluated_for_the_target() {
    let c = catalog([
        MemoryRelease::new("app", "1.0")
            .wheel("py2.py3-none-any")
            .requires("enum34; python_version < \"3.4\"")
            .requires("futures ; python_version < '3'")
            .requires("typing-extensions>=3.7; python_version >= \"3.8\"")
            .requires("pywin32; sys_platform == 'win32'")
            .requires(
                "uvloop; sys_platform == 'linux' and platform_python_implementation == 'CPython'",
            ),
        MemoryRelease::new("enum34", "1.1.10").wheel("py2.py3-none-any"),
        MemoryRelease::new("futures", "3.3.0").wheel("py2-none-any"),
        pure("typing-extensions", "4.0.0"),
        pure("pywin32", "300"),
        MemoryRelease::new("uvloop", "0.17.0").wheel("py2.py3-none-any"),
    ]);
    let root = [spec("app", "", &[])];
    let s = solved(&c, "3.11", &root, &SolveOptions::default());
    assert_eq!(
        pins(&s),
        ["app==1.0", "typing-extensions==4.0.0", "uvloop==0.17.0"]
    );
    let s = solved(&c, "2.7", &root, &SolveOptions::default());
    assert_eq!(
        pins(&s),
        [
            "app==1.0",
            "enum34==1.1.10",
            "futures==3.3.0",
            "uvloop==0.17.0"
        ]
    );
    let enum34 = s.get(&name("enum34")).unwrap();
    assert_eq!(
        enum34.required_by,
        [RequiredBy::Dependency {
            parent: name("app"),
            parent_version: v("1.0"),
            extra: None,
            requirement: "enum34".into(),
            marker: Some("python_full_version < '3.4'".into()),
        }]
    );
    // enum came with 3.4: the backport is needed on 3.3 only.
    let s = solved(&c, "3.3", &root, &SolveOptions::default());
    assert_eq!(pins(&s), ["app==1.0", "enum34==1.1.10", "uvloop==0.17.0"]);
    for python in ["3.4", "3.5"] {
        let s = solved(&c, python, &root, &SolveOptions::default());
        assert_eq!(pins(&s), ["app==1.0", "uvloop==0.17.0"], "{python}");
    }
}

#[test]
fn extras_pull_their_requirements() {
    let c = catalog([
        pure("client", "2.0")
            .requires("idna>=2")
            .requires("pysocks>=1.5.6, !=1.5.7; extra == 'socks'")
            .requires("brotli; extra == 'brotli'"),
        pure("client", "1.0").requires("idna>=2"),
        pure("idna", "3.4"),
        pure("pysocks", "1.5.7"),
        pure("pysocks", "1.7.1"),
        pure("brotli", "1.0"),
        pure("app", "1.0").requires("client[socks]>=1"),
    ]);
    let options = SolveOptions::default();
    // Without the extra, only the base requirements.
    let s = solved(&c, "3.11", &[spec("client", "", &[])], &options);
    assert_eq!(pins(&s), ["client==2.0", "idna==3.4"]);

    // Asked for by the root.
    let mut root = spec("client", "", &["cell 1 uses client.socks_proxy"]);
    root.extras = vec!["socks".parse::<ExtraName>().unwrap()];
    let s = solved(&c, "3.11", &[root], &options);
    assert_eq!(pins(&s), ["client==2.0", "idna==3.4", "pysocks==1.7.1"]);
    let client = s.get(&name("client")).unwrap();
    assert_eq!(client.extras, ["socks".parse::<ExtraName>().unwrap()]);
    let pysocks = s.get(&name("pysocks")).unwrap();
    assert!(
        matches!(
            &pysocks.required_by[..],
            [RequiredBy::Dependency { parent, extra: Some(e), requirement, .. }]
                if parent.as_str() == "client" && e.as_ref() == "socks" && requirement == "pysocks>=1.5.6,!=1.5.7"
        ),
        "{:?}",
        pysocks.required_by
    );

    // Asked for by a dependency; the extra pins the same release as the base.
    let s = solved(&c, "3.11", &[spec("app", "", &[])], &options);
    assert_eq!(
        pins(&s),
        ["app==1.0", "client==2.0", "idna==3.4", "pysocks==1.7.1"]
    );

    // The extra exists only in 2.0: a root capped below it gets the base alone.
    let mut root = spec("client", "<2", &[]);
    root.extras = vec!["socks".parse::<ExtraName>().unwrap()];
    let s = solved(&c, "3.11", &[root], &options);
    assert_eq!(pins(&s), ["client==1.0", "idna==3.4"]);
}

#[test]
fn wheel_tags_decide_availability() {
    let c = catalog([
        MemoryRelease::new("old", "0.19.2")
            .wheel(&cp("2.7"))
            .wheel(&cp("3.6"))
            .sdist(),
        MemoryRelease::new("old", "0.20.0")
            .wheel(&cp("3.7"))
            .sdist(),
        MemoryRelease::new("old", "1.0.0").wheel(&cp("3.11")),
    ]);
    let options = SolveOptions::default();
    let roots = [spec("old", "<0.20", &["cell 4 uses old.cross_validation"])];
    assert_eq!(
        version_of(&solved(&c, "3.6", &roots, &options), "old"),
        "0.19.2"
    );
    assert_eq!(
        version_of(&solved(&c, "2.7", &roots, &options), "old"),
        "0.19.2"
    );
    let why = failure(&c, "3.11", &roots, &options);
    assert!(
        why.contains("the notebook needs old <0.20 (cell 4 uses old.cross_validation)"),
        "{why}"
    );
    assert!(
        why.contains("old 0.19.2 cannot be installed on CPython 3.11 (no wheel for CPython 3.11, only for cp27, cp36 and an sdist)"),
        "{why}"
    );
    // The newest release fits 3.11 but 0.20.0 does not: without a cap, 1.0.0.
    let any = [spec("old", "", &[])];
    assert_eq!(
        version_of(&solved(&c, "3.11", &any, &options), "old"),
        "1.0.0"
    );
    assert_eq!(
        version_of(&solved(&c, "3.7", &any, &options), "old"),
        "0.20.0"
    );

    // Allowing sdists makes sdist-only releases candidates, and the lock lists the sdist.
    let allow = SolveOptions {
        allow_sdist: true,
        ..SolveOptions::default()
    };
    let s = solved(&c, "3.11", &roots, &allow);
    let pin = s.get(&name("old")).unwrap();
    assert_eq!(pin.version, v("0.19.2"));
    assert_eq!(
        pin.files
            .iter()
            .map(|f| f.filename.as_str())
            .collect::<Vec<_>>(),
        ["old-0.19.2.tar.gz"]
    );
    assert_eq!(
        version_of(&solved(&c, "3.8", &any, &allow), "old"),
        "0.20.0"
    );
}

#[test]
fn the_lock_lists_the_wheels_that_fit_with_hashes() {
    let c = catalog([MemoryRelease::new("fast", "1.0")
        .wheel(&cp("3.10"))
        .wheel(&cp("3.11"))
        .wheel("cp311-cp311-win_amd64")
        .wheel(&format!("cp38-abi3-manylinux2014_{ARCH}"))
        .sdist()]);
    let s = solved(
        &c,
        "3.11",
        &[spec("fast", "", &[])],
        &SolveOptions::default(),
    );
    let files = &s.get(&name("fast")).unwrap().files;
    let names: Vec<&str> = files.iter().map(|f| f.filename.as_str()).collect();
    assert_eq!(
        names,
        [
            format!("fast-1.0-{}.whl", cp("3.11")),
            format!("fast-1.0-cp38-abi3-manylinux2014_{ARCH}.whl")
        ]
    );
    assert!(files
        .iter()
        .all(|f| f.sha256.as_ref().is_some_and(|h| h.len() == 64)));
}

#[test]
fn exclude_newer_caps_upload_times() {
    let c = catalog([
        pure("lib", "1.0").uploaded("2017-03-01T00:00:00Z"),
        pure("lib", "1.1").uploaded("2018-06-01T12:00:00Z"),
        pure("lib", "2.0").uploaded("2020-01-01T00:00:00Z"),
    ]);
    let cap = |t: &str| SolveOptions {
        exclude_newer: Some(t.parse().unwrap()),
        ..SolveOptions::default()
    };
    let any = [spec("lib", "", &[])];
    assert_eq!(
        version_of(
            &solved(&c, "3.11", &any, &cap("2019-01-01T00:00:00Z")),
            "lib"
        ),
        "1.1"
    );
    assert_eq!(
        version_of(
            &solved(&c, "3.11", &any, &cap("2018-06-01T00:00:00Z")),
            "lib"
        ),
        "1.0"
    );
    let why = failure(
        &c,
        "3.11",
        &[spec("lib", ">=1.1", &["line 3 pins lib>=1.1"])],
        &cap("2018-01-01T00:00:00Z"),
    );
    assert!(why.contains("uploaded after 2018-01-01"), "{why}");
}

#[test]
fn releases_that_failed_on_the_python_in_a_run_are_passed_over_there_only() {
    use crate::bank::store::{FailedStep, ReleaseFailure};
    // lib 2.0 depends on dep; dep 1.5 failed to install on 3.11 (a dependency, not a root).
    let c = catalog([
        pure("lib", "1.0"),
        pure("lib", "2.0").requires("dep>=1"),
        pure("dep", "1.0"),
        pure("dep", "1.5"),
    ]);
    let failed = |dist: &str, version: &str, python: &str, step| ReleaseFailure {
        dist: name(dist),
        version: v(version),
        python: PythonVersion::parse(python).unwrap(),
        step,
        detail: String::new(),
        at: "2026-11-23T10:00:00Z".parse().unwrap(),
        notebook: "nb.ipynb".into(),
    };
    let options = SolveOptions {
        failed: vec![
            failed("dep", "1.5", "3.11", FailedStep::Install),
            failed("lib", "2.0", "3.10", FailedStep::Import),
        ],
        ..SolveOptions::default()
    };
    let any = [spec("lib", "", &[])];
    let on_311 = solved(&c, "3.11", &any, &options);
    assert_eq!(pins(&on_311), ["dep==1.0", "lib==2.0"]);
    // On 3.10 lib 2.0 failed to import: 1.0 instead; dep 1.5 is fine there.
    assert_eq!(pins(&solved(&c, "3.10", &any, &options)), ["lib==1.0"]);
    // A root that pins the release keeps it; asking only for it says why it is out.
    let pinned = solved(&c, "3.10", &[spec("lib", "==2.0", &[])], &options);
    assert_eq!(version_of(&pinned, "lib"), "2.0");
    let why = failure(&c, "3.10", &[spec("lib", ">=2.0", &["cell 1"])], &options);
    assert!(
        why.contains("failed to import on Python 3.10 in a run on 2026-11-23"),
        "{why}"
    );
}

#[test]
fn yanked_releases_only_when_pinned() {
    let c = catalog([pure("lib", "1.0"), pure("lib", "1.1").yanked()]);
    let options = SolveOptions::default();
    assert_eq!(
        version_of(
            &solved(&c, "3.11", &[spec("lib", "", &[])], &options),
            "lib"
        ),
        "1.0"
    );
    let pinned = solved(&c, "3.11", &[spec("lib", "==1.1", &[])], &options);
    assert_eq!(version_of(&pinned, "lib"), "1.1");
    assert_eq!(pinned.get(&name("lib")).unwrap().files.len(), 1);
    let why = failure(&c, "3.11", &[spec("lib", ">=1.1", &["cell 7"])], &options);
    assert!(
        why.contains("lib 1.1 cannot be installed on CPython 3.11 (yanked)"),
        "{why}"
    );
}

#[test]
fn pre_releases_only_when_nothing_else_fits_or_asked_for() {
    let c = catalog([
        pure("lib", "1.9"),
        pure("lib", "2.0rc1"),
        pure("beta-only", "0.1b1"),
        pure("beta-only", "0.1b2"),
    ]);
    let options = SolveOptions::default();
    let s = solved(
        &c,
        "3.11",
        &[spec("lib", "", &[]), spec("beta-only", "", &[])],
        &options,
    );
    assert_eq!(pins(&s), ["beta-only==0.1b2", "lib==1.9"]);
    let s = solved(&c, "3.11", &[spec("lib", ">=2.0rc1", &[])], &options);
    assert_eq!(version_of(&s, "lib"), "2.0rc1");
}

#[test]
fn a_conflict_names_the_evidence_on_both_sides() {
    let c = catalog([
        pure("np", "1.16.0"),
        pure("np", "1.26.0"),
        pure("tf", "1.15.0").requires("np<1.19"),
        pure("tf", "2.15.0").requires("np>=1.23"),
        pure("pd", "0.25.0").requires("np>=1.13.3"),
        pure("pd", "2.1.0").requires("np>=1.22.4"),
    ]);
    let roots = [
        spec(
            "tf",
            "<2",
            &["cell 2 uses tf.Session", "cell 3 uses tf.contrib"],
        ),
        spec("pd", ">=2", &["cell 5 uses pd.DataFrame.map"]),
    ];
    let why = failure(&c, "3.11", &roots, &SolveOptions::default());
    assert!(
        why.contains("the notebook needs tf <2 (cell 2 uses tf.Session; cell 3 uses tf.contrib)"),
        "{why}"
    );
    assert!(
        why.contains("the notebook needs pd >=2 (cell 5 uses pd.DataFrame.map)"),
        "{why}"
    );
    assert!(
        why.contains("the notebook's requirements cannot all be met on CPython 3.11"),
        "{why}"
    );
}

#[test]
fn transitive_dependencies_are_attributed_to_their_parent() {
    let c = catalog([
        MemoryRelease::new("scikit-learn", "0.19.2")
            .wheel(&cp("3.6"))
            .requires_python(">=2.7"),
        MemoryRelease::new("scikit-learn", "0.20.0")
            .wheel(&cp("3.6"))
            .requires("numpy>=1.8.2")
            .requires("scipy>=0.13.3"),
        MemoryRelease::new("numpy", "1.19.5").wheel(&cp("3.6")),
        MemoryRelease::new("numpy", "1.20.0")
            .wheel(&cp("3.7"))
            .requires_python(">=3.7"),
        MemoryRelease::new("scipy", "1.5.4")
            .wheel(&cp("3.6"))
            .requires("numpy>=1.14.5"),
    ]);
    let s = solved(
        &c,
        "3.6",
        &[spec("scikit-learn", ">=0.20", &["cell 1 imports sklearn"])],
        &SolveOptions::default(),
    );
    assert_eq!(
        pins(&s),
        ["numpy==1.19.5", "scikit-learn==0.20.0", "scipy==1.5.4"]
    );
    let roots: Vec<&str> = s.roots().map(|p| p.dist.as_str()).collect();
    assert_eq!(roots, ["scikit-learn"]);
    assert_eq!(
        s.get(&name("scikit-learn")).unwrap().required_by,
        [RequiredBy::Root {
            evidence: vec!["cell 1 imports sklearn".into()]
        }]
    );
    let numpy_parents: Vec<(String, String)> = s
        .get(&name("numpy"))
        .unwrap()
        .required_by
        .iter()
        .map(|r| match r {
            RequiredBy::Dependency {
                parent,
                requirement,
                ..
            } => (parent.to_string(), requirement.clone()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        numpy_parents,
        [
            ("scikit-learn".to_string(), "numpy>=1.8.2".to_string()),
            ("scipy".to_string(), "numpy>=1.14.5".to_string())
        ]
    );
    assert_eq!(s.python, PythonVersion::new(3, 6));
}

#[test]
fn a_missing_distribution_is_explained() {
    let c = catalog([pure("app", "1.0").requires("ghost>=1")]);
    let why = failure(
        &c,
        "3.11",
        &[spec("app", "", &["cell 1 imports app"])],
        &SolveOptions::default(),
    );
    assert!(why.contains("ghost is not on the index"), "{why}");
    assert!(
        why.contains("app ==1.0 depends on ghost >=1") || why.contains("app depends on ghost >=1"),
        "{why}"
    );
}

#[test]
fn an_empty_allowed_set_is_a_conflict_not_a_panic() {
    let c = catalog([pure("lib", "1.0")]);
    let why = failure(
        &c,
        "3.11",
        &[exactly("lib", &[], &["cell 1 uses lib.gone"])],
        &SolveOptions::default(),
    );
    assert!(why.contains("cell 1 uses lib.gone"), "{why}");
}

#[test]
fn the_whole_explanation_of_a_release_with_no_wheel_for_the_target() {
    let c = catalog([
        MemoryRelease::new("scikit-learn", "0.18.0").wheel(&cp("3.6")),
        MemoryRelease::new("scikit-learn", "0.19.2")
            .wheel(&cp("3.6"))
            .wheel(&cp("2.7"))
            .sdist(),
        MemoryRelease::new("scikit-learn", "0.20.0").wheel(&cp("3.7")),
        MemoryRelease::new("scikit-learn", "1.3.0").wheel(&cp("3.11")),
    ]);
    let why = failure(
        &c,
        "3.11",
        &[spec(
            "scikit-learn",
            "<0.20",
            &["cell 4 uses sklearn.cross_validation"],
        )],
        &SolveOptions::default(),
    );
    assert_eq!(
        why,
        "Because the notebook needs scikit-learn <0.20 (cell 4 uses sklearn.cross_validation) \
         and scikit-learn <0.20 has no release installable on CPython 3.11 (0.18.0: no wheel for \
         CPython 3.11, only for cp36; 0.19.2: no wheel for CPython 3.11, only for cp27, cp36 and \
         an sdist), the notebook's requirements cannot all be met on CPython 3.11."
    );
}

/// seaborn as it stood in 2016: 0.7.0 and 0.7.1 only as sdists of pure Python, 0.8 with a
/// wheel for Python 3 alone.
fn seaborn() -> MemoryCatalog {
    catalog([
        MemoryRelease::new("seaborn", "0.7.0")
            .pure_sdist()
            .uploaded("2016-01-25T00:00:00Z"),
        MemoryRelease::new("seaborn", "0.7.1")
            .pure_sdist()
            .uploaded("2016-06-05T00:00:00Z"),
        MemoryRelease::new("seaborn", "0.8")
            .wheel("py3-none-any")
            .sdist()
            .uploaded("2017-07-08T00:00:00Z"),
    ])
}

#[test]
fn a_release_whose_only_file_for_the_target_is_a_pure_sdist_is_installable() {
    let c = seaborn();
    let roots = [spec("seaborn", "", &["cell 1 imports seaborn"])];
    let s = solved(&c, "2.7", &roots, &SolveOptions::default());
    let pin = s.get(&name("seaborn")).unwrap();
    assert_eq!(pin.version, v("0.7.1"));
    assert!(pin.builds_pure_sdist(), "{pin:?}");
    assert_eq!(
        pin.files
            .iter()
            .map(|f| (f.filename.as_str(), f.kind, f.pure_python))
            .collect::<Vec<_>>(),
        [("seaborn-0.7.1.tar.gz", LockedKind::Sdist, true)]
    );
    // Surveyed lazily: 0.8 (no wheel for 2.7, an sdist not known to be pure) was asked about,
    // then 0.7.1 ended the search; 0.7.0 was never fetched.
    assert_eq!(c.surveyed(), ["seaborn-0.8.tar.gz", "seaborn-0.7.1.tar.gz"]);
    // Where a wheel fits, no sdist is asked about.
    let c = seaborn();
    let s = solved(&c, "3.6", &roots, &SolveOptions::default());
    assert_eq!(version_of(&s, "seaborn"), "0.8");
    assert!(!s.get(&name("seaborn")).unwrap().builds_from_sdist());
    assert!(c.surveyed().is_empty(), "{:?}", c.surveyed());
    // Capped before 0.7.1: 0.7.0, as with any file.
    let capped = SolveOptions {
        exclude_newer: Some("2016-03-01T00:00:00Z".parse().unwrap()),
        ..SolveOptions::default()
    };
    assert_eq!(
        version_of(&solved(&c, "2.7", &roots, &capped), "seaborn"),
        "0.7.0"
    );
    // Wheels only: none of it.
    let wheels_only = SolveOptions {
        wheels_only: true,
        ..SolveOptions::default()
    };
    let why = failure(&c, "2.7", &roots, &wheels_only);
    assert!(
        why.contains("0.7.1: no wheel for CPython 2.7, only an sdist"),
        "{why}"
    );
}

#[test]
fn a_compiled_sdist_is_built_only_by_the_fallback() {
    let c = catalog([
        MemoryRelease::new("speedy", "1.0").sdist(),
        MemoryRelease::new("speedy", "1.1").sdist(),
    ]);
    let roots = [spec("speedy", "", &["cell 1 imports speedy"])];
    let why = failure(&c, "3.11", &roots, &SolveOptions::default());
    assert!(
        why.contains("no wheel for CPython 3.11, only an sdist not known to be pure Python"),
        "{why}"
    );
    let fallback = SolveOptions {
        sdist_where_no_wheel: true,
        ..SolveOptions::default()
    };
    let s = solved(&c, "3.11", &roots, &fallback);
    let pin = s.get(&name("speedy")).unwrap();
    assert_eq!(pin.version, v("1.1"));
    assert!(
        pin.builds_from_sdist() && !pin.builds_pure_sdist(),
        "{pin:?}"
    );

    // A project that publishes binary wheels compiles: its sdists are not even fetched.
    let c = catalog([
        MemoryRelease::new("binary", "1.0").pure_sdist(),
        MemoryRelease::new("binary", "2.0")
            .wheel(&cp("3.11"))
            .sdist(),
    ]);
    let why = failure(
        &c,
        "3.6",
        &[spec("binary", "", &[])],
        &SolveOptions::default(),
    );
    assert!(
        why.contains("1.0: no wheel for CPython 3.6, only an sdist;"),
        "{why}"
    );
    assert!(c.surveyed().is_empty(), "{:?}", c.surveyed());
}

/// A restoration's search that has no release with a wheel left builds one from its sdist:
/// the steered release's sdist counts, under the default rule that would refuse it.
#[test]
fn a_search_steering_a_build_admits_the_release_without_a_wheel() {
    let c = catalog([
        MemoryRelease::new("pyproj", "1.9.5.1").sdist(),
        MemoryRelease::new("pyproj", "2.0.0")
            .wheel(&cp("2.7"))
            .sdist(),
    ]);
    let roots = [spec("pyproj", "", &["cell 1 imports pyproj"])];
    let steer = |build: bool| SolveOptions {
        steer: vec![Steer {
            target: Some(v("1.9.5.1")),
            build,
            below: Some(v("2.0.0")),
            refuted: vec![v("2.0.0")],
            ..Steer::new(name("pyproj"))
        }],
        ..SolveOptions::default()
    };
    let why = failure(&c, "2.7", &roots, &steer(false));
    assert!(why.contains("1.9.5.1: no wheel for CPython 2.7"), "{why}");
    let s = solved(&c, "2.7", &roots, &steer(true));
    let pin = s.get(&name("pyproj")).unwrap();
    assert_eq!(pin.version, v("1.9.5.1"));
    assert!(
        pin.builds_from_sdist() && !pin.builds_pure_sdist(),
        "{pin:?}"
    );
}

#[test]
fn a_pure_sdist_that_says_no_requires_python_is_doubtful_after_its_pythons_end() {
    let c = catalog([
        MemoryRelease::new("late", "1.0")
            .pure_sdist()
            .uploaded("2018-01-01T00:00:00Z"),
        MemoryRelease::new("late", "2.0")
            .pure_sdist()
            .uploaded("2023-03-01T00:00:00Z"),
        MemoryRelease::new("said", "2.0")
            .pure_sdist()
            .requires_python(">=2.7")
            .uploaded("2023-03-01T00:00:00Z"),
    ]);
    let roots = [spec("late", "", &[]), spec("said", "", &[])];
    let s = solved(&c, "2.7", &roots, &SolveOptions::default());
    assert_eq!(pins(&s), ["late==1.0", "said==2.0"]);
    let why = failure(
        &c,
        "2.7",
        &[spec("late", ">=2", &[])],
        &SolveOptions::default(),
    );
    assert!(
        why.contains("only an sdist uploaded after Python 2.7's end of life"),
        "{why}"
    );
    // On a Python still supported, the newest.
    let s = solved(&c, "3.11", &roots, &SolveOptions::default());
    assert_eq!(pins(&s), ["late==2.0", "said==2.0"]);
}

#[test]
fn no_pre_release_while_a_final_release_the_evidence_allows_installs() {
    // The newest seaborn wants matplotlib>=3.0.0rc1, which only its release candidate
    // meets: taking the newest of everything pins the rc. Finals first: the older seaborn,
    // and a final matplotlib.
    let c = catalog([
        pure("matplotlib", "2.2.2"),
        pure("matplotlib", "2.2.3"),
        pure("matplotlib", "3.0.0rc2"),
        pure("seaborn", "0.8"),
        pure("seaborn", "0.9").requires("matplotlib>=3.0.0rc1"),
    ]);
    let evidence = ["cell 1 uses matplotlib.pyplot.plot"];
    let roots = [
        exactly("matplotlib", &["2.2.2", "2.2.3", "3.0.0rc2"], &evidence),
        spec("seaborn", "", &[]),
    ];
    let s = solved(&c, "3.11", &roots, &SolveOptions::default());
    assert_eq!(pins(&s), ["matplotlib==2.2.3", "seaborn==0.8"]);
    // With only the rc allowed, the rc.
    let only_rc = [exactly("matplotlib", &["3.0.0rc2"], &evidence)];
    let s = solved(&c, "3.11", &only_rc, &SolveOptions::default());
    assert_eq!(pins(&s), ["matplotlib==3.0.0rc2"]);
    // A root that names a pre-release asks for it.
    let s = solved(
        &c,
        "3.11",
        &[
            spec("seaborn", "==0.9", &[]),
            spec("matplotlib", ">=3.0.0rc1", &[]),
        ],
        &SolveOptions::default(),
    );
    assert_eq!(pins(&s), ["matplotlib==3.0.0rc2", "seaborn==0.9"]);
    // Else the conflict says why the rc is out.
    let why = failure(
        &c,
        "3.11",
        &[spec("seaborn", "==0.9", &[])],
        &SolveOptions::default(),
    );
    assert!(
        why.contains("a pre-release, and final releases the notebook allows install"),
        "{why}"
    );
}

#[test]
fn candidates_are_counted_and_chosen_segment_by_segment() {
    use super::candidates::{Candidates, RootPolicy};
    use pubgrub::Ranges;

    let c = catalog([
        pure("lib", "1.0"),
        pure("lib", "1.1").yanked(),
        pure("lib", "1.2"),
        pure("lib", "2.0b1"),
        pure("lib", "2.0"),
        pure("lib", "3.0"),
    ]);
    let releases = c.releases(&name("lib")).unwrap();
    let judge = |policy: &RootPolicy| {
        Candidates::judge(
            &name("lib"),
            releases.clone(),
            &target("3.11"),
            &SolveOptions::default(),
            policy,
        )
    };
    let never = &mut |_: &Release, _: usize| -> bool { panic!("no sdist to survey") };
    let range = |s: &str| Ranges::from(s.parse::<VersionSpecifiers>().unwrap());
    // (1.0, 1.2] or [2.0b1, 3.0): 1.1 is yanked; bounds both open and closed.
    let two_segments = Ranges::from_range_bounds((
        std::ops::Bound::Excluded(v("1.0")),
        std::ops::Bound::Included(v("1.2")),
    ))
    .union(&Ranges::from_range_bounds(v("2.0b1")..v("3.0")));
    // Final releases install: the beta is no candidate, even where it is all a range holds.
    let mut judged = judge(&RootPolicy::default());
    assert_eq!(judged.count(&two_segments), 2);
    assert_eq!(judged.choose(&two_segments, never), Some(v("2.0")));
    let only_beta = Ranges::from_range_bounds(v("2.0b1")..v("2.0"));
    assert_eq!(judged.count(&only_beta), 0);
    assert_eq!(judged.choose(&only_beta, never), None);
    assert_eq!(judged.count(&range("<1.2")), 1);
    assert_eq!(judged.choose(&range("<1.2"), never), Some(v("1.0")));
    assert_eq!(judged.count(&range("==1.1")), 0);
    assert_eq!(judged.choose(&range("==1.1"), never), None);
    assert_eq!(judged.count(&range(">3.0")), 0);
    assert_eq!(judged.count(&Ranges::full()), 4);
    assert_eq!(judged.choose(&Ranges::full(), never), Some(v("3.0")));
    // Asked for: the beta counts, and ranks with the finals.
    let mut judged = judge(&RootPolicy {
        prereleases: true,
        ..RootPolicy::default()
    });
    // `<2.0` leaves out 2.0's pre-releases (PEP 440); a bare bound does not.
    assert_eq!(judged.count(&range(">=2.0b1,<2.0")), 0);
    assert_eq!(judged.count(&only_beta), 1);
    assert_eq!(judged.choose(&only_beta, never), Some(v("2.0b1")));
    assert_eq!(judged.count(&two_segments), 3);
}

/// The era's newest release is preferred; where none of the era installs on the target, the
/// first release after it that does, not the newest (a notebook of 2016 on Python 3.11 gets
/// the oldest numpy with wheels there, whose APIs are nearest to its own).
#[test]
fn the_era_prefers_its_own_releases_then_the_first_after_it_that_installs() {
    let c = catalog([
        MemoryRelease::new("lib", "1.0")
            .wheel("cp36-cp36m-manylinux1_x86_64")
            .uploaded("2016-01-01T00:00:00Z"),
        MemoryRelease::new("lib", "1.1")
            .wheel("cp36-cp36m-manylinux1_x86_64")
            .uploaded("2016-06-01T00:00:00Z"),
        MemoryRelease::new("lib", "1.2")
            .wheel("cp36-cp36m-manylinux1_x86_64")
            .wheel("cp311-cp311-manylinux1_x86_64")
            .uploaded("2017-01-01T00:00:00Z"),
        MemoryRelease::new("lib", "1.3")
            .sdist()
            .wheel("cp311-cp311-manylinux1_x86_64")
            .uploaded("2018-01-01T00:00:00Z"),
        MemoryRelease::new("lib", "2.0rc1")
            .wheel("cp311-cp311-manylinux1_x86_64")
            .uploaded("2019-01-01T00:00:00Z"),
        MemoryRelease::new("lib", "2.0")
            .wheel("cp311-cp311-manylinux1_x86_64")
            .uploaded("2020-01-01T00:00:00Z"),
    ]);
    let era = |t: &str| SolveOptions {
        prefer_before: Some(t.parse().unwrap()),
        ..SolveOptions::default()
    };
    let any = [spec("lib", "", &[])];
    let of = |python: &str, when: &str| version_of(&solved(&c, python, &any, &era(when)), "lib");
    // Of the era, on a Python it had wheels for.
    assert_eq!(of("3.6", "2016-07-01T00:00:00Z"), "1.1");
    // None of the era installs on 3.11: the first after it that does.
    assert_eq!(of("3.11", "2016-07-01T00:00:00Z"), "1.2");
    assert_eq!(of("3.11", "2017-06-01T00:00:00Z"), "1.2");
    assert_eq!(of("3.11", "2017-02-01T00:00:00Z"), "1.2");
    assert_eq!(of("3.11", "2018-06-01T00:00:00Z"), "1.3");
    // Without an era, the newest stable.
    assert_eq!(
        version_of(&solved(&c, "3.11", &any, &SolveOptions::default()), "lib"),
        "2.0"
    );
    // A range that leaves nothing after the era but the newest still gets it.
    let above = [spec("lib", ">=1.4", &[])];
    assert_eq!(
        version_of(
            &solved(&c, "3.11", &above, &era("2016-07-01T00:00:00Z")),
            "lib"
        ),
        "2.0"
    );
}

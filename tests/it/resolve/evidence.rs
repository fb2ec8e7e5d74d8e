//! The evidence stage of resolution: provider choice and version sets, on small in-memory
//! banks and on banks the real writer built from fixture wheels served by a loopback index.

use std::path::PathBuf;
use std::process::Command;

use nbenv::bank::store::{IndexStatus, Presence};
use nbenv::names::{ApiPath, DistName};
use nbenv::notebook::{self, AnalyzeOptions, Usage};
use nbenv::resolve::evidence::{
    gather, AvoidKind, BankView, Change, ChoiceReason, DistVersions, DropReason, Effect, Evidence,
    EvidenceSource, ImportDecision, ImportOutcome, MemoryBank, NoConstraint, NoIndexLookup,
    NotOnPyPiSource, PathState, ProviderList, Rank, ReleaseState, SharedBank, Sources, Unresolved,
    Verdict,
};

use crate::support::archives::WheelBuilder;
use crate::support::server::{FixtureFile, PageMode, TestServer};
use crate::support::usage::usage_of_source;

// ---- helpers ----

fn evidence<B: BankView>(bank: &B, usage: &Usage) -> Evidence {
    gather(usage, bank, &Sources::built_in()).unwrap()
}

fn decision<'a>(e: &'a Evidence, import: &str) -> &'a ImportDecision {
    e.imports
        .iter()
        .find(|d| d.import.as_str() == import)
        .unwrap_or_else(|| panic!("no decision for {import}: {:#?}", e.imports))
}

fn versions<'a>(e: &'a Evidence, dist: &str) -> &'a DistVersions {
    e.distributions
        .iter()
        .find(|d| d.dist.as_str() == dist)
        .unwrap_or_else(|| panic!("no version set for {dist}: {:#?}", e.distributions))
}

fn allowed(d: &DistVersions) -> Vec<String> {
    d.allowed.iter().map(ToString::to_string).collect()
}

fn chosen(d: &ImportDecision) -> Vec<&str> {
    d.providers().iter().map(|c| c.dist.as_str()).collect()
}

fn dist(name: &str) -> DistName {
    DistName::new(name).unwrap()
}

fn api(path: &str) -> ApiPath {
    ApiPath::new(path).unwrap()
}

fn record_for<'a>(d: &'a DistVersions, what: &str) -> &'a nbenv::resolve::evidence::EvidenceRecord {
    d.records
        .iter()
        .find(|r| match &r.source {
            EvidenceSource::Api { api } | EvidenceSource::Import { module: api } => {
                api.as_str() == what
            }
            EvidenceSource::Member { member, .. } => member == what,
            EvidenceSource::Keyword { keyword, .. } => keyword == what,
            EvidenceSource::Install { command, .. } => command.contains(what),
            EvidenceSource::Output { version, .. } => version == what,
            EvidenceSource::Declared { text, .. } => text == what,
        })
        .unwrap_or_else(|| panic!("no record for {what}: {:#?}", d.records))
}

fn v(s: &str) -> pep508_rs::pep440_rs::Version {
    s.parse().unwrap()
}

/// scikit-learn 0.17 (not indexed) to 0.21: `cross_validation` until 0.19.2.
fn sklearn_memory() -> MemoryBank {
    let mut bank = MemoryBank::new();
    bank.release("scikit-learn", "0.17", IndexStatus::NotIndexed)
        .releases("scikit-learn", &["0.18", "0.19.2", "0.20.0", "0.21.0"])
        .provides(
            "scikit-learn",
            "sklearn",
            &["0.18", "0.19.2", "0.20.0", "0.21.0"],
        )
        .api(
            "scikit-learn",
            "sklearn.cross_validation",
            &["0.18", "0.19.2"],
            &[],
        )
        .api(
            "scikit-learn",
            "sklearn.cross_validation.train_test_split",
            &["0.18", "0.19.2"],
            &[],
        );
    bank
}

// ---- in-memory banks ----

#[test]
fn cross_validation_keeps_the_releases_before_its_removal_and_those_not_indexed() {
    let bank = sklearn_memory();
    let usage = usage_of_source("from sklearn.cross_validation import train_test_split\n");
    let e = evidence(&bank, &usage);
    assert_eq!(chosen(decision(&e, "sklearn")), ["scikit-learn"]);
    let sk = versions(&e, "scikit-learn");
    // 0.17 is not indexed: never taken as lacking the API.
    assert_eq!(allowed(sk), ["0.17", "0.18", "0.19.2"]);
    assert_eq!(sk.allowed_not_indexed, [v("0.17")]);
    let r = record_for(sk, "sklearn.cross_validation.train_test_split");
    assert_eq!(r.effect, Effect::Constrains);
    assert_eq!(r.at(), Some(crate::support::usage::at(1, 1)));
    assert_eq!(
        r.changes(),
        [Change::Removed {
            version: v("0.20.0"),
            after: v("0.19.2")
        }]
    );
}

#[test]
fn a_removed_then_restored_api_gives_a_set_with_a_hole() {
    let mut bank = MemoryBank::new();
    bank.releases("restored", &["1.0", "2.0", "3.0", "4.0"])
        .provides("restored", "restored", &["1.0", "2.0", "3.0", "4.0"])
        .api("restored", "restored.f", &["1.0", "3.0"], &["4.0"]);
    let e = evidence(&bank, &usage_of_source("import restored\nrestored.f()\n"));
    let d = versions(&e, "restored");
    // 4.0 only may have it: unknown does not exclude.
    assert_eq!(allowed(d), ["1.0", "3.0", "4.0"]);
    assert_eq!(
        record_for(d, "restored.f").changes(),
        [
            Change::Removed {
                version: v("2.0"),
                after: v("1.0")
            },
            Change::Added {
                version: v("3.0"),
                after: v("2.0")
            }
        ]
    );
}

#[test]
fn an_api_the_bank_does_not_know_constrains_nothing() {
    let mut bank = MemoryBank::new();
    bank.releases("scikit-learn", &["0.18", "0.19.2", "0.20.0"])
        .provides("scikit-learn", "sklearn", &["0.18", "0.19.2", "0.20.0"])
        .api(
            "scikit-learn",
            "sklearn.cross_validation",
            &["0.18", "0.19.2"],
            &[],
        )
        .api(
            "scikit-learn",
            "sklearn.cross_validation.train_test_split",
            &["0.18", "0.19.2"],
            &[],
        );
    let usage = usage_of_source(
        "import sklearn\nfrom sklearn.cross_validation import train_test_split\nsklearn.made_up_helper()\n",
    );
    let e = evidence(&bank, &usage);
    let sk = versions(&e, "scikit-learn");
    assert_eq!(allowed(sk), ["0.18", "0.19.2"]);
    assert_eq!(
        record_for(sk, "sklearn.made_up_helper").effect,
        Effect::NoConstraint(NoConstraint::UnknownToBank)
    );
    // Still the provider, for the API it has; the unknown one is reported.
    match &decision(&e, "sklearn").outcome {
        ImportOutcome::Provided { unprovided, .. } => {
            assert_eq!(unprovided, &[api("sklearn.made_up_helper")])
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_provider_indexed_only_where_it_lacks_the_api_is_not_a_namesake() {
    // Only 0.20.0 is indexed; older releases may have `cross_validation`.
    let mut bank = MemoryBank::new();
    bank.release("scikit-learn", "0.19.2", IndexStatus::NotIndexed)
        .release("scikit-learn", "0.18", IndexStatus::Failed)
        .releases("scikit-learn", &["0.20.0"])
        .provides("scikit-learn", "sklearn", &["0.20.0"]);
    let usage = usage_of_source("from sklearn.cross_validation import train_test_split\n");
    let e = evidence(&bank, &usage);
    let d = decision(&e, "sklearn");
    assert_eq!(chosen(d), ["scikit-learn"]);
    assert!(d.candidates[0]
        .paths
        .iter()
        .all(|(_, s)| *s == PathState::NotIndexedOnly));
    // Absent from the one indexed release, perhaps present in the others: undecided until
    // they are indexed, so nothing is excluded yet.
    let sk = versions(&e, "scikit-learn");
    assert_eq!(allowed(sk), ["0.18", "0.19.2", "0.20.0"]);
    assert_eq!(
        record_for(sk, "sklearn.cross_validation.train_test_split").effect,
        Effect::NoConstraint(NoConstraint::NotFoundWhereIndexed)
    );
}

#[test]
fn pip_lines_constrain_and_unsatisfiable_soft_evidence_is_dropped() {
    let mut bank = MemoryBank::new();
    bank.releases("pandas", &["0.23.0", "0.25.3", "1.0.0", "1.1.0"])
        .provides("pandas", "pandas", &["0.23.0", "0.25.3", "1.0.0", "1.1.0"])
        .api(
            "pandas",
            "pandas.read_csv",
            &["0.23.0", "0.25.3", "1.0.0", "1.1.0"],
            &[],
        )
        .member("pandas", "ix", &["0.23.0", "0.25.3"], &[]);
    let source = "import pandas as pd\ndf = pd.read_csv('x.csv')\ndf.ix[0]\n";

    let e = evidence(&bank, &usage_of_source(source));
    let pandas = versions(&e, "pandas");
    assert_eq!(allowed(pandas), ["0.23.0", "0.25.3"]);
    assert_eq!(record_for(pandas, "ix").effect, Effect::Constrains);

    let pinned = format!("{source}!pip install pandas==0.25.3\n");
    let e = evidence(&bank, &usage_of_source(&pinned));
    assert_eq!(allowed(versions(&e, "pandas")), ["0.25.3"]);

    // A hard `>=1.0` leaves no release with `ix`: the member is dropped, with a warning.
    let newer = format!("{source}!pip install 'pandas>=1.0'\n");
    let e = evidence(&bank, &usage_of_source(&newer));
    let pandas = versions(&e, "pandas");
    assert_eq!(allowed(pandas), ["1.0.0", "1.1.0"]);
    let dropped: Vec<_> = pandas.dropped().collect();
    assert_eq!(dropped.len(), 1);
    assert!(matches!(&dropped[0].source, EvidenceSource::Member { member, .. } if member == "ix"));
    assert_eq!(pandas.requirements.len(), 1);
}

/// pandas' classes are open to static reading in every release (some base lies outside the
/// release), so a member no class lists there is unknown. `ix` was a member up to 0.25: where
/// no class lists it after, it counts as lacking and pins pandas before 1.0 (soft). `sales`
/// was never a member of any class: a column, unknown, and nothing to choose by.
#[test]
fn a_member_some_release_had_is_evidence_where_open_classes_leave_it_unknown() {
    let all = ["0.23.0", "0.25.3", "1.0.0", "1.1.0"];
    let mut bank = MemoryBank::new();
    bank.releases("pandas", &all)
        .provides("pandas", "pandas", &all)
        .api("pandas", "pandas.read_csv", &all, &[])
        .member("pandas", "ix", &["0.23.0", "0.25.3"], &["1.0.0", "1.1.0"])
        .member("pandas", "sales", &[], &all);
    let source = "import pandas as pd\ndf = pd.read_csv('x.csv')\ndf.ix[0]\ndf.sales.sum()\n";
    let e = evidence(&bank, &usage_of_source(source));
    let pandas = versions(&e, "pandas");
    assert_eq!(allowed(pandas), ["0.23.0", "0.25.3"]);
    let ix = record_for(pandas, "ix");
    assert_eq!(ix.effect, Effect::Constrains);
    assert_eq!(ix.strength, nbenv::resolve::evidence::Strength::Soft);
    assert_eq!(
        record_for(pandas, "sales").effect,
        Effect::NoConstraint(NoConstraint::NeverSeen)
    );
}

/// numpy's `nditer` is compiled: static reading sees its members only where stubs list them
/// (2.x). No class the bank read has `finished` before, but the type itself is unknown to
/// static reading there, so those releases stay possible rather than lacking it.
#[test]
fn a_member_of_a_type_static_reading_cannot_see_into_stays_unknown() {
    let all = ["1.10.4", "1.16.6", "2.0.0"];
    let mut bank = MemoryBank::new();
    bank.releases("numpy", &all)
        .provides("numpy", "numpy", &all)
        .api("numpy", "numpy.nditer", &all, &[])
        .api(
            "numpy",
            "numpy.nditer.finished",
            &["2.0.0"],
            &["1.10.4", "1.16.6"],
        )
        .member("numpy", "finished", &["2.0.0"], &[]);
    let source =
        "import numpy as np\nit = np.nditer([1, 2])\nwhile not it.finished:\n    it.iternext()\n";
    let e = evidence(&bank, &usage_of_source(source));
    let numpy = versions(&e, "numpy");
    assert_eq!(allowed(numpy), all);
    assert!(!numpy.records.iter().any(|r| r.is_dropped()));
}

/// `Series.order` left pandas in 0.20.0; pandas' classes are open to static reading, so the
/// bank saw it up to 0.19.2 and cannot tell after. A round on 0.21.0 showed it lacking: that
/// release and the unsettled ones after it are ruled out, and those between the last seen
/// with it and 0.21.0 are not a free choice: the next round jumps to 0.19.2, not 0.20.2.
#[test]
fn a_release_a_run_showed_lacking_an_api_settles_the_releases_static_reading_could_not() {
    let all = ["0.19.2", "0.20.1", "0.20.2", "0.21.0", "0.21.1"];
    let mut bank = MemoryBank::new();
    bank.releases("pandas", &all)
        .provides("pandas", "pandas", &all)
        .api("pandas", "pandas.Series", &all, &[])
        .api(
            "pandas",
            "pandas.Series.order",
            &["0.19.2"],
            &["0.20.1", "0.20.2", "0.21.0", "0.21.1"],
        );
    let source = "import pandas as pd\ns = pd.Series([3, 1])\ns.order()\n";
    let mut usage = usage_of_source(source);
    let e = evidence(&bank, &usage);
    assert_eq!(allowed(versions(&e, "pandas")), all);
    usage.lacked.push(nbenv::notebook::Lacked {
        api: nbenv::names::ApiPath::new("pandas.Series.order").unwrap(),
        dist: nbenv::names::DistName::new("pandas").unwrap(),
        version: "0.21.0".parse().unwrap(),
        cell: 1,
    });
    let e = evidence(&bank, &usage);
    assert_eq!(allowed(versions(&e, "pandas")), ["0.19.2"]);
}

/// The same where the bank has not indexed the releases around the one a run showed lacking
/// `Series.order` (lazy indexing reads a few): they are not a free choice either.
#[test]
fn a_release_a_run_showed_lacking_an_api_settles_the_releases_not_indexed() {
    let all = ["0.19.2", "0.20.1", "0.20.2", "0.20.3", "0.21.0"];
    let indexed = ["0.19.2", "0.20.3"];
    let mut bank = MemoryBank::new();
    bank.releases("pandas", &indexed);
    for v in ["0.20.1", "0.20.2", "0.21.0"] {
        bank.release("pandas", v, IndexStatus::NotIndexed);
    }
    bank.provides("pandas", "pandas", &all)
        .api("pandas", "pandas.Series", &indexed, &[])
        .api("pandas", "pandas.Series.order", &["0.19.2"], &["0.20.3"]);
    let source = "import pandas as pd\ns = pd.Series([3, 1])\ns.order()\n";
    let mut usage = usage_of_source(source);
    usage.lacked.push(nbenv::notebook::Lacked {
        api: nbenv::names::ApiPath::new("pandas.Series.order").unwrap(),
        dist: nbenv::names::DistName::new("pandas").unwrap(),
        version: "0.20.3".parse().unwrap(),
        cell: 1,
    });
    let e = evidence(&bank, &usage);
    assert_eq!(allowed(versions(&e, "pandas")), ["0.19.2"]);
}

#[test]
fn contrib_api_picks_the_contrib_build_and_plain_code_the_preferred_one() {
    let mut bank = MemoryBank::new();
    for d in ["opencv-python", "opencv-contrib-python"] {
        bank.releases(d, &["4.5.0"])
            .provides(d, "cv2", &["4.5.0"])
            .api(d, "cv2.imread", &["4.5.0"], &[]);
    }
    // The plain build's compiled module cannot be listed: `xfeatures2d` is unknown there.
    bank.api("opencv-python", "cv2.xfeatures2d", &[], &["4.5.0"])
        .api(
            "opencv-python",
            "cv2.xfeatures2d.SIFT_create",
            &[],
            &["4.5.0"],
        )
        .api("opencv-contrib-python", "cv2.xfeatures2d", &["4.5.0"], &[])
        .api(
            "opencv-contrib-python",
            "cv2.xfeatures2d.SIFT_create",
            &["4.5.0"],
            &[],
        );
    let e = evidence(
        &bank,
        &usage_of_source(
            "import cv2\nimg = cv2.imread('a.png')\nsift = cv2.xfeatures2d.SIFT_create()\n",
        ),
    );
    let d = decision(&e, "cv2");
    assert_eq!(chosen(d), ["opencv-contrib-python"]);
    match &d.providers()[0].reason {
        ChoiceReason::ApiEvidence { apis, .. } => {
            assert!(
                apis.contains(&api("cv2.xfeatures2d.SIFT_create")),
                "{apis:?}"
            )
        }
        other => panic!("{other:?}"),
    }
    assert!(e
        .distributions
        .iter()
        .all(|d| d.dist.as_str() != "opencv-python"));

    let e = evidence(
        &bank,
        &usage_of_source("import cv2\nimg = cv2.imread('a.png')\n"),
    );
    let d = decision(&e, "cv2");
    assert_eq!(chosen(d), ["opencv-python"]);
    match &d.providers()[0].reason {
        ChoiceReason::Preferred { over, note, .. } => {
            assert_eq!(over.as_str(), "opencv-contrib-python");
            assert!(note.contains("reference build"), "{note}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn placeholders_are_never_chosen() {
    let mut bank = MemoryBank::new();
    bank.releases("sklearn", &["0.0"])
        .provides("sklearn", "sklearn", &["0.0"])
        .releases("scikit-learn", &["0.19.2"])
        .provides("scikit-learn", "sklearn", &["0.19.2"]);
    let e = evidence(&bank, &usage_of_source("import sklearn\n"));
    let d = decision(&e, "sklearn");
    assert_eq!(chosen(d), ["scikit-learn"]);
    let placeholder = d
        .candidates
        .iter()
        .find(|c| c.dist.as_str() == "sklearn")
        .unwrap();
    assert!(matches!(
        placeholder.verdict,
        Verdict::Avoided {
            avoid: AvoidKind::Stub,
            ..
        }
    ));

    assert!(e.distributions.iter().all(|d| d.dist.as_str() != "sklearn"));
}

/// Case 6 of the repair issue: `sns.plt.show()` pinned seaborn before 0.8 once, and no
/// longer did, since seaborn's `plt` is matplotlib's module and the bank cannot see `show`
/// behind it. What a path is reached through is evidence too: seaborn's releases with `plt`.
#[test]
fn a_librarys_alias_of_another_module_is_evidence_of_the_releases_that_had_it() {
    let mut bank = MemoryBank::new();
    bank.releases("seaborn", &["0.7.1", "0.8.0", "0.9.0"])
        .provides("seaborn", "seaborn", &["0.7.1", "0.8.0", "0.9.0"])
        .api("seaborn", "seaborn.plt", &["0.7.1"], &[])
        .api("seaborn", "seaborn.plt.show", &[], &["0.7.1"]);
    let e = evidence(
        &bank,
        &usage_of_source("import seaborn as sns\nsns.plt.show()\n"),
    );
    let d = versions(&e, "seaborn");
    assert_eq!(allowed(d), ["0.7.1"], "{:#?}", d.records);
}

/// Item 6 of the repair issue: between the last release seen with an API and the first seen
/// without it, the releases static reading could not settle are no free choice. `df.ix`
/// pinned pandas 1.1.3 ("removed after 0.25.2, by 1.1.4"); `.ix` left in 1.0.0.
#[test]
fn unsettled_releases_after_the_last_seen_with_an_api_are_not_chosen() {
    let mut bank = MemoryBank::new();
    let all = ["0.24.2", "0.25.3", "1.0.0", "1.1.3", "1.1.4", "1.2.0"];
    bank.releases("pandas", &all)
        .provides("pandas", "pandas", &all)
        .api("pandas", "pandas.DataFrame", &all, &[])
        .api(
            "pandas",
            "pandas.DataFrame.ix",
            &["0.24.2", "0.25.3"],
            &["1.0.0", "1.1.3"],
        );
    let e = evidence(
        &bank,
        &usage_of_source("import pandas as pd\nx = pd.DataFrame.ix\n"),
    );
    assert_eq!(allowed(versions(&e, "pandas")), ["0.24.2", "0.25.3"]);
    // Unknown past the last absent one is still possible (it may have come back).
    let mut bank = MemoryBank::new();
    let all = ["1.0", "2.0", "3.0"];
    bank.releases("lib", &all)
        .provides("lib", "lib", &all)
        .api("lib", "lib.f", &["1.0"], &["3.0"]);
    let e = evidence(&bank, &usage_of_source("import lib\nlib.f()\n"));
    assert_eq!(allowed(versions(&e, "lib")), ["1.0", "3.0"]);
}

/// Case 9 of the repair issue: old matplotlib shipped a copy of pytz, and with pytz itself
/// not indexed the copy's API evidence made matplotlib the provider of `import pytz` (and
/// pinned it before 1.3). An import whose name is a distribution of its own is that
/// distribution's first.
#[test]
fn an_import_named_after_a_distribution_is_that_distributions_over_a_vendored_copy() {
    let mut bank = MemoryBank::new();
    bank.releases("matplotlib", &["1.2.1", "1.3.0"])
        .provides("matplotlib", "pytz", &["1.2.1"])
        .api("matplotlib", "pytz.timezone", &["1.2.1"], &[])
        .release("pytz", "2017.2", IndexStatus::NotIndexed)
        .provides("pytz", "pytz", &[]);
    let e = evidence(
        &bank,
        &usage_of_source("import pytz\npytz.timezone('UTC')\n"),
    );
    let d = decision(&e, "pytz");
    assert_eq!(chosen(d), ["pytz"], "{:#?}", d.candidates);
    let winner = d
        .candidates
        .iter()
        .find(|c| c.dist.as_str() == "pytz")
        .unwrap();
    assert!(
        matches!(&winner.verdict, Verdict::Chosen(ChoiceReason::OwnName { over }) if over.as_str() == "matplotlib"),
        "{:?}",
        winner.verdict
    );
}

#[test]
fn an_import_only_placeholders_provide_is_unresolved() {
    let mut bank = MemoryBank::new();
    bank.releases("skimage", &["0.0"])
        .provides("skimage", "skimage", &["0.0"]);
    let usage = usage_of_source(
        "import skimage
",
    );
    // The shipped lists name scikit-image, the real project: it is the choice.
    let e = evidence(&bank, &usage);
    assert_eq!(chosen(decision(&e, "skimage")), ["scikit-image"]);
    // Lists that know only the placeholder: nothing is chosen, and nothing required.
    let list = ProviderList::parse("avoid skimage placeholder # an empty release\n", "t").unwrap();
    let sources = Sources {
        packages: &[],
        providers: &list,
        lookup: &NoIndexLookup,
    };
    let e = gather(&usage, &bank, &sources).unwrap();
    match &decision(&e, "skimage").outcome {
        ImportOutcome::Unresolved(Unresolved::OnlyAvoided { dists }) => {
            assert_eq!(dists, &[(dist("skimage"), AvoidKind::Placeholder)])
        }
        other => panic!("{other:?}"),
    }
    assert!(e.distributions.is_empty(), "{:#?}", e.distributions);
}

#[test]
fn a_namesake_without_the_used_apis_is_unresolved_and_never_required() {
    let mut bank = MemoryBank::new();
    bank.releases("utils", &["0.9", "1.0"])
        .provides("utils", "utils", &["0.9", "1.0"])
        .api("utils", "utils.other", &["0.9", "1.0"], &[]);
    let usage =
        usage_of_source("import utils\nX = utils.load_data('train.csv')\nimport helpers_nowhere\n");
    let e = evidence(&bank, &usage);
    match &decision(&e, "utils").outcome {
        ImportOutcome::Unresolved(Unresolved::ProvidersLackApis { providers }) => {
            assert_eq!(providers, &[(dist("utils"), vec![api("utils.load_data")])]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        decision(&e, "helpers_nowhere").outcome,
        ImportOutcome::Unresolved(Unresolved::NoProvider)
    ));
    assert!(e.distributions.is_empty(), "{:#?}", e.distributions);
}

#[test]
fn local_modules_conda_and_system_names_are_unresolved_with_their_reason() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("helpers.py"), "def load():\n    pass\n").unwrap();
    let nb = dir.path().join("nb.py");
    std::fs::write(
        &nb,
        "# %%\nimport helpers\nimport graph_tool\nimport foo_native\n%conda install foo-native\n",
    )
    .unwrap();
    let usage = notebook::analyze(&notebook::read(&nb).unwrap(), &AnalyzeOptions::default());
    let e = evidence(&MemoryBank::new(), &usage);
    assert!(matches!(
        &decision(&e, "helpers").outcome,
        ImportOutcome::Unresolved(Unresolved::LocalModule { .. })
    ));
    assert!(matches!(
        &decision(&e, "graph_tool").outcome,
        ImportOutcome::Unresolved(Unresolved::NotOnPyPi {
            said_by: NotOnPyPiSource::ProviderList { .. },
            ..
        })
    ));
    match &decision(&e, "foo_native").outcome {
        ImportOutcome::Unresolved(Unresolved::NotOnPyPi {
            said_by: NotOnPyPiSource::Notebook { at, .. },
            package,
            ..
        }) => {
            assert_eq!(package.as_deref(), Some("foo-native"));
            assert_eq!(at.line, 4);
        }
        other => panic!("{other:?}"),
    }
    assert!(e.distributions.is_empty(), "{:#?}", e.distributions);
}

#[test]
fn namespace_packages_take_one_provider_per_part() {
    let mut bank = MemoryBank::new();
    bank.releases("protobuf", &["3.20.0"])
        .provides("protobuf", "google", &["3.20.0"])
        .api("protobuf", "google.protobuf.text_format", &["3.20.0"], &[])
        .releases("google-cloud-storage", &["2.0.0"])
        .provides("google-cloud-storage", "google", &["2.0.0"])
        .api(
            "google-cloud-storage",
            "google.cloud.storage.Client",
            &["2.0.0"],
            &[],
        );
    let usage = usage_of_source(
        "from google.protobuf import text_format\nfrom google.cloud.storage import Client\n",
    );
    let e = evidence(&bank, &usage);
    let d = decision(&e, "google");
    assert_eq!(chosen(d), ["protobuf", "google-cloud-storage"]);
    assert!(matches!(
        d.providers()[1].reason,
        ChoiceReason::CoversApis { .. }
    ));
}

// ---- banks built by the real writer from a loopback index ----

struct Fixture {
    server: TestServer,
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        Self {
            server: TestServer::start(PageMode::Json),
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn bank_path(&self) -> PathBuf {
        self.dir.path().join("bank.sqlite3")
    }

    /// Publishes `project` with one wheel per (version, files).
    fn publish(&self, project: &str, releases: &[(&str, &[(&str, &str)])]) -> &Self {
        let files: Vec<FixtureFile> = releases
            .iter()
            .enumerate()
            .map(|(i, (version, files))| {
                let mut w = WheelBuilder::new(project, version);
                for (path, text) in *files {
                    w = w.file(path, text);
                }
                FixtureFile {
                    upload_time: Some(format!("20{:02}-01-01T00:00:00Z", 10 + i)),
                    ..FixtureFile::new(&w.filename(), w.build())
                }
            })
            .collect();
        self.server.publish(project, &files);
        self
    }

    /// `nbenv bank add ARGS`, which must succeed.
    fn add(&self, args: &[&str]) -> &Self {
        let out = Command::new(env!("CARGO_BIN_EXE_nbenv"))
            .args(["--index-url", &self.server.index_url()])
            .arg("--cache-dir")
            .arg(self.dir.path().join("cache"))
            .arg("--bank")
            .arg(self.bank_path())
            .args(["bank", "add"])
            .args(args)
            .env("NBENV_HTTP_RETRIES", "0")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        self
    }

    fn bank(&self) -> SharedBank {
        SharedBank::open(&self.bank_path()).unwrap()
    }
}

const SK_INIT: &str = "__version__ = '0'\n";
const SK_CV: &str = "def train_test_split(*arrays, test_size=None):\n    pass\n";
const SK_LINEAR_OLD: &str =
    "class LinearRegression:\n    def __init__(self, fit_intercept=True, normalize=False):\n        pass\n    def fit(self, X, y):\n        return self\n";
const SK_LINEAR_NEW: &str =
    "class LinearRegression:\n    def __init__(self, fit_intercept=True):\n        pass\n    def fit(self, X, y):\n        return self\n";

fn sklearn_fixture(fx: &Fixture) {
    let old: &[(&str, &str)] = &[
        ("sklearn/__init__.py", SK_INIT),
        ("sklearn/cross_validation.py", SK_CV),
        ("sklearn/model_selection.py", SK_CV),
        ("sklearn/linear_model.py", SK_LINEAR_OLD),
    ];
    let mid: &[(&str, &str)] = &[
        ("sklearn/__init__.py", SK_INIT),
        ("sklearn/model_selection.py", SK_CV),
        ("sklearn/linear_model.py", SK_LINEAR_OLD),
    ];
    let new: &[(&str, &str)] = &[
        ("sklearn/__init__.py", SK_INIT),
        ("sklearn/model_selection.py", SK_CV),
        ("sklearn/linear_model.py", SK_LINEAR_NEW),
    ];
    fx.publish(
        "scikit-learn",
        &[
            ("0.17", old),
            ("0.18", old),
            ("0.19.2", old),
            ("0.20.0", mid),
            ("0.21.0", new),
        ],
    );
}

/// 1.0 and 3.0 have `f`; 2.0 dropped it; 4.0 serves names through `__getattr__`.
fn restored_fixture(fx: &Fixture) {
    let with: &[(&str, &str)] = &[("restored/__init__.py", "def f():\n    pass\n")];
    let without: &[(&str, &str)] = &[("restored/__init__.py", "def g():\n    pass\n")];
    let lazy: &[(&str, &str)] = &[(
        "restored/__init__.py",
        "def __getattr__(name):\n    return _served(name)\n",
    )];
    fx.publish(
        "restored",
        &[
            ("1.0", with),
            ("2.0", without),
            ("3.0", with),
            ("4.0", lazy),
        ],
    );
}

#[test]
fn store_backed_cross_validation_and_keyword_evidence() {
    let fx = Fixture::new();
    sklearn_fixture(&fx);
    fx.add(&["scikit-learn>=0.18", "--all-versions"]);
    let bank = fx.bank();

    let usage = usage_of_source("from sklearn.cross_validation import train_test_split\n");
    let e = evidence(&bank, &usage);
    let d = decision(&e, "sklearn");
    assert_eq!(chosen(d), ["scikit-learn"]);
    assert_eq!(d.providers()[0].reason, ChoiceReason::OnlyCandidate);
    let sk = versions(&e, "scikit-learn");
    assert_eq!(allowed(sk), ["0.17", "0.18", "0.19.2"]);
    assert_eq!(sk.allowed_not_indexed, [v("0.17")]);
    assert_eq!(
        record_for(sk, "sklearn.cross_validation.train_test_split").changes(),
        [Change::Removed {
            version: v("0.20.0"),
            after: v("0.19.2")
        }]
    );
    // The imported module is evidence too, with the same history.
    assert_eq!(
        record_for(sk, "sklearn.cross_validation").effect,
        Effect::Constrains
    );

    // `normalize=` went away in 0.21: soft evidence that can be met.
    let usage = usage_of_source(
        "# %%\nfrom sklearn.linear_model import LinearRegression\n# %%\nm = LinearRegression(normalize=True)\n",
    );
    let e = evidence(&bank, &usage);
    let sk = versions(&e, "scikit-learn");
    assert_eq!(allowed(sk), ["0.17", "0.18", "0.19.2", "0.20.0"]);
    let r = record_for(sk, "normalize");
    assert_eq!(r.effect, Effect::Constrains);
    assert!(
        r.locations.contains(&crate::support::usage::at(2, 1)),
        "{:?}",
        r.locations
    );
}

#[test]
fn store_backed_non_contiguous_sets_unknown_and_not_indexed() {
    let fx = Fixture::new();
    restored_fixture(&fx);
    fx.add(&["restored", "--all-versions"]);
    let bank = fx.bank();
    let e = evidence(&bank, &usage_of_source("import restored\nrestored.f()\n"));
    let d = versions(&e, "restored");
    assert_eq!(allowed(d), ["1.0", "3.0", "4.0"]);
    let spans: Vec<String> = record_for(d, "restored.f")
        .history
        .iter()
        .map(|s| format!("{:?} {}-{}", s.state, s.first, s.last))
        .collect();
    assert_eq!(
        spans,
        [
            "Present 1.0-1.0",
            "Absent 2.0-2.0",
            "Present 3.0-3.0",
            "Unknown 4.0-4.0"
        ]
    );

    // A bank with only 3.0 indexed: the others are not indexed, never absent.
    let fx = Fixture::new();
    restored_fixture(&fx);
    fx.add(&["restored==3.0"]);
    let bank = fx.bank();
    let presence: Presence = bank
        .api_presence(&dist("restored"), &[api("restored.f")])
        .unwrap()
        .remove(0);
    let catalog = bank.catalog(&dist("restored")).unwrap().unwrap();
    assert_eq!(catalog.versions(&presence.present), [v("3.0")]);
    assert!(presence.absent.is_empty(), "{presence:?}");
    assert_eq!(
        catalog.versions(&presence.not_indexed),
        [v("1.0"), v("2.0"), v("4.0")]
    );
    let e = evidence(&bank, &usage_of_source("import restored\nrestored.f()\n"));
    assert_eq!(
        allowed(versions(&e, "restored")),
        ["1.0", "2.0", "3.0", "4.0"]
    );
}

#[test]
fn store_backed_names_in_compiled_modules_do_not_constrain() {
    let fx = Fixture::new();
    let pure: &[(&str, &str)] = &[("opaquelib/__init__.py", "def f():\n    pass\n")];
    // 2.0 moved everything into an extension module without a stub.
    let compiled: &[(&str, &str)] = &[
        ("opaquelib/__init__.py", "from ._core import *\n"),
        ("opaquelib/_core.cpython-311-x86_64-linux-gnu.so", ""),
    ];
    fx.publish("opaquelib", &[("1.0", pure), ("2.0", compiled)]);
    fx.add(&["opaquelib", "--all-versions"]);
    let e = evidence(
        &fx.bank(),
        &usage_of_source("import opaquelib\nopaquelib.f()\n"),
    );
    let d = versions(&e, "opaquelib");
    assert_eq!(allowed(d), ["1.0", "2.0"]);
    let r = record_for(d, "opaquelib.f");
    assert_eq!(r.effect, Effect::NoConstraint(NoConstraint::Everywhere));
    let states: Vec<ReleaseState> = r.history.iter().map(|s| s.state).collect();
    assert_eq!(states, [ReleaseState::Present, ReleaseState::Unknown]);
}

#[test]
fn store_backed_member_evidence_on_a_read_csv_result() {
    let fx = Fixture::new();
    let init = "from .core.frame import DataFrame\nfrom .io import read_csv\n";
    let io = "from .core.frame import DataFrame\n\ndef read_csv(path):\n    return DataFrame()\n";
    let frame = "from .generic import NDFrame\n\nclass DataFrame(NDFrame):\n    def head(self):\n        pass\n";
    let old_generic = "class NDFrame:\n    @property\n    def ix(self):\n        return self\n";
    let new_generic = "class NDFrame:\n    @property\n    def loc(self):\n        return self\n";
    let files = |generic: &'static str| -> Vec<(&'static str, &'static str)> {
        vec![
            ("pandas/__init__.py", init),
            ("pandas/io.py", io),
            ("pandas/core/__init__.py", ""),
            ("pandas/core/frame.py", frame),
            ("pandas/core/generic.py", generic),
        ]
    };
    let (old, new) = (files(old_generic), files(new_generic));
    fx.publish(
        "pandas",
        &[("0.25.3", old.as_slice()), ("1.0.0", new.as_slice())],
    );
    fx.add(&["pandas", "--all-versions"]);
    let bank = fx.bank();

    let source = "import pandas as pd\ndf = pd.read_csv('x.csv')\nfirst = df.ix[0]\n";
    let e = evidence(&bank, &usage_of_source(source));
    let pandas = versions(&e, "pandas");
    assert_eq!(allowed(pandas), ["0.25.3"]);
    let r = record_for(pandas, "ix");
    assert_eq!(r.effect, Effect::Constrains);
    assert!(
        matches!(&r.source, EvidenceSource::Member { derived_from, .. } if derived_from.as_str() == "pandas.read_csv")
    );
    assert_eq!(
        r.changes(),
        [Change::Removed {
            version: v("1.0.0"),
            after: v("0.25.3")
        }]
    );
}

#[test]
fn store_backed_namesake_and_contrib_choice() {
    let fx = Fixture::new();
    fx.publish(
        "utils",
        &[("1.0", &[("utils/__init__.py", "def other():\n    pass\n")])],
    );
    let plain: &[(&str, &str)] = &[("cv2/__init__.py", "def imread(path):\n    pass\n")];
    let contrib: &[(&str, &str)] = &[
        (
            "cv2/__init__.py",
            "from . import xfeatures2d\n\ndef imread(path):\n    pass\n",
        ),
        ("cv2/xfeatures2d.py", "def SIFT_create():\n    pass\n"),
    ];
    fx.publish("opencv-python", &[("4.5.0", plain)]);
    fx.publish("opencv-contrib-python", &[("4.5.0", contrib)]);
    fx.add(&["utils", "opencv-python", "opencv-contrib-python"]);
    let bank = fx.bank();

    let usage = usage_of_source(
        "import utils\nimport cv2\nX = utils.load_data()\nsift = cv2.xfeatures2d.SIFT_create()\n",
    );
    let e = evidence(&bank, &usage);
    match &decision(&e, "utils").outcome {
        ImportOutcome::Unresolved(Unresolved::ProvidersLackApis { providers }) => {
            assert_eq!(providers, &[(dist("utils"), vec![api("utils.load_data")])])
        }
        other => panic!("{other:?}"),
    }
    let cv2 = decision(&e, "cv2");
    assert_eq!(chosen(cv2), ["opencv-contrib-python"]);
    let plain = cv2
        .candidates
        .iter()
        .find(|c| c.dist.as_str() == "opencv-python")
        .unwrap();
    // What the call is reached through is used too.
    assert_eq!(
        plain.paths,
        [
            (api("cv2.xfeatures2d"), PathState::Lacks),
            (api("cv2.xfeatures2d.SIFT_create"), PathState::Lacks)
        ]
    );
    let needed: Vec<&str> = e.distributions.iter().map(|d| d.dist.as_str()).collect();
    assert_eq!(needed, ["opencv-contrib-python"]);
}

#[test]
fn the_shared_bank_answers_many_threads_at_once_without_the_writer_lock() {
    use std::os::fd::AsRawFd;

    let fx = Fixture::new();
    sklearn_fixture(&fx);
    restored_fixture(&fx);
    fx.add(&["scikit-learn>=0.18", "restored", "--all-versions"]);
    let bank = fx.bank();
    fn assert_send_sync<T: Send + Sync>(_: &T) {}
    assert_send_sync(&bank);

    // A writer holds the lock the whole time: readers must not wait for it.
    let mut lock_path = fx.bank_path().into_os_string();
    lock_path.push(".lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .unwrap();
    assert_eq!(
        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );

    let source =
        "from sklearn.cross_validation import train_test_split\nimport restored\nrestored.f()\n";
    let usage = usage_of_source(source);
    let expected = serde_json::to_value(evidence(&bank, &usage)).unwrap();
    let answers: Vec<serde_json::Value> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..6)
            .map(|_| {
                let (bank, usage) = (bank.clone(), &usage);
                scope.spawn(move || {
                    let mut last = serde_json::Value::Null;
                    for _ in 0..5 {
                        last = serde_json::to_value(evidence(&bank, usage)).unwrap();
                    }
                    last
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    drop(lock);
    assert_eq!(answers.len(), 6);
    for a in answers {
        assert_eq!(a, expected);
    }
    let e = evidence(&bank, &usage);
    assert_eq!(allowed(versions(&e, "restored")), ["1.0", "3.0", "4.0"]);
    assert_eq!(
        allowed(versions(&e, "scikit-learn")),
        ["0.17", "0.18", "0.19.2"]
    );
}

// ---- evidence that gives way (real notebooks: rougier/numpy-100, %pylab, sklearn arrays) ----

/// `from numpy import *` then prose pasted in a code cell (`An equivalent way ...`): the bare
/// names become `numpy.An`, `numpy.way`; numpy's compiled releases leave them unknown there and
/// introspected ones lack them. No release is known to have them: they choose no version, and
/// `numpy.int` (removed in 1.24) still does.
#[test]
fn a_name_no_release_is_known_to_have_constrains_nothing() {
    let mut bank = MemoryBank::new();
    bank.releases("numpy", &["1.5.1", "1.16.0", "1.23.5", "1.24.0"])
        .provides("numpy", "numpy", &["1.5.1", "1.16.0", "1.23.5", "1.24.0"])
        .api("numpy", "numpy.int", &["1.5.1", "1.16.0", "1.23.5"], &[])
        // Unknown in the oldest (compiled, never introspected), absent everywhere else.
        .api("numpy", "numpy.way", &[], &["1.5.1"]);
    let usage =
        usage_of_source("from numpy import *\nimport numpy as np\nnp.int(3)\nAn equivalent way\n");
    let e = evidence(&bank, &usage);
    let d = versions(&e, "numpy");
    assert_eq!(
        record_for(d, "numpy.way").effect,
        Effect::NoConstraint(NoConstraint::NeverSeen)
    );
    assert_eq!(allowed(d), ["1.5.1", "1.16.0", "1.23.5"]);
}

/// Two APIs no release has together: the one used twice stands, the one used once gives way
/// (dropped, said), and the notebook still has a version set.
#[test]
fn contradicting_apis_the_weaker_gives_way() {
    let mut bank = MemoryBank::new();
    bank.releases("lib", &["1.0", "2.0"])
        .provides("lib", "lib", &["1.0", "2.0"])
        .api("lib", "lib.old", &["1.0"], &[])
        .api("lib", "lib.new", &["2.0"], &[]);
    let usage = usage_of_source("import lib\nlib.old()\nlib.new()\nlib.new()\n");
    let e = evidence(&bank, &usage);
    let d = versions(&e, "lib");
    assert_eq!(allowed(d), ["2.0"]);
    let old = record_for(d, "lib.old");
    assert_eq!(old.rank, Rank::Single);
    assert_eq!(old.effect, Effect::Dropped(DropReason::Contradicts));
    assert_eq!(record_for(d, "lib.new").rank, Rank::Repeated);
    assert_eq!(record_for(d, "lib.new").effect, Effect::Constrains);
    // An import outranks any use.
    let usage = usage_of_source("from lib import old\nimport lib\nlib.new()\nlib.new()\n");
    let e = evidence(&bank, &usage);
    let d = versions(&e, "lib");
    assert_eq!(allowed(d), ["1.0"]);
    assert_eq!(record_for(d, "lib.old").rank, Rank::Import);
    assert_eq!(
        record_for(d, "lib.new").effect,
        Effect::Dropped(DropReason::Contradicts)
    );
}

/// A name only a star import can have defined is a guess: it gives way before a use the
/// notebook makes by name.
#[test]
fn a_star_attribution_is_a_guess_and_gives_way_first() {
    let mut bank = MemoryBank::new();
    bank.releases("lib", &["1.0", "2.0"])
        .provides("lib", "lib", &["1.0", "2.0"])
        .api("lib", "lib.figure", &["1.0"], &[])
        .api("lib", "lib.new", &["2.0"], &[]);
    let usage = usage_of_source("from lib import *\nimport lib\nfigure()\nfigure()\nlib.new()\n");
    let e = evidence(&bank, &usage);
    let d = versions(&e, "lib");
    assert_eq!(record_for(d, "lib.figure").rank, Rank::Guessed);
    assert_eq!(allowed(d), ["2.0"]);
}

/// `scores = cross_val_score(...)`, then `scores.mean()`: numpy's arrays have `mean`, so the
/// member says nothing of scikit-learn, whose old releases had some class with a `mean`.
/// Without numpy among the notebook's distributions, the member is evidence as before.
#[test]
fn a_member_another_library_has_too_says_nothing_of_the_one_that_returned_the_value() {
    let mut bank = MemoryBank::new();
    bank.releases("scikit-learn", &["0.19.2", "1.0"])
        .provides("scikit-learn", "sklearn", &["0.19.2", "1.0"])
        .api(
            "scikit-learn",
            "sklearn.cross_val_score",
            &["0.19.2", "1.0"],
            &[],
        )
        .member("scikit-learn", "mean", &["0.19.2"], &[])
        .releases("numpy", &["1.19.5"])
        .provides("numpy", "numpy", &["1.19.5"])
        .api("numpy", "numpy.array", &["1.19.5"], &[])
        .member("numpy", "mean", &["1.19.5"], &[]);
    let source =
        "from sklearn import cross_val_score\nscores = cross_val_score(m, X)\nscores.mean()\n";
    let with_numpy = format!("import numpy as np\nnp.array([1])\n{source}");
    let e = evidence(&bank, &usage_of_source(&with_numpy));
    let sk = versions(&e, "scikit-learn");
    let mean = sk
        .records
        .iter()
        .find(|r| matches!(&r.source, EvidenceSource::Member { member, .. } if member == "mean"))
        .unwrap();
    assert_eq!(
        mean.effect,
        Effect::NoConstraint(NoConstraint::AlsoElsewhere)
    );
    assert_eq!(allowed(sk), ["0.19.2", "1.0"]);
    let e = evidence(&bank, &usage_of_source(source));
    assert_eq!(allowed(versions(&e, "scikit-learn")), ["0.19.2"]);
}

/// A `%pylab` notebook: `from numlib import *` then `from plotlib.pylab import *`, where
/// `plotlib.pylab` star-imports numlib (another distribution). `figure` belongs to pylab (the
/// later star import, and the one that has it), not numlib; `cos` reaches pylab from numlib,
/// which static reading cannot list: unknown in pylab's releases, never absent. Nothing here
/// narrows either distribution, and nothing is left unresolvable.
#[test]
fn store_backed_star_imports_of_another_distribution_leave_names_unknown() {
    let fx = Fixture::new();
    let numlib: &[(&str, &str)] = &[(
        "numlib/__init__.py",
        "def cos(x):\n    pass\ndef sin(x):\n    pass\n",
    )];
    fx.publish("numlib", &[("1.0", numlib), ("2.0", numlib)]);
    let old: &[(&str, &str)] = &[
        ("plotlib/__init__.py", ""),
        // The oldest pylab defined its own math.
        (
            "plotlib/pylab.py",
            "def figure():\n    pass\ndef cos(x):\n    pass\n",
        ),
    ];
    let new: &[(&str, &str)] = &[
        ("plotlib/__init__.py", ""),
        (
            "plotlib/pylab.py",
            "from numlib import *\ndef figure():\n    pass\n",
        ),
    ];
    fx.publish("plotlib", &[("0.9", old), ("2.0", new), ("3.0", new)]);
    fx.add(&["numlib", "--all-versions"]);
    fx.add(&["plotlib", "--all-versions"]);
    let source = "from numlib import *\nfrom plotlib.pylab import *\nimport numlib\nimport plotlib.pylab\nfigure()\ncos(1)\n";
    let e = evidence(&fx.bank(), &usage_of_source(source));
    let plot = versions(&e, "plotlib");
    assert_eq!(allowed(plot), ["0.9", "2.0", "3.0"]);
    let cos = record_for(plot, "plotlib.pylab.cos");
    let states: Vec<ReleaseState> = cos.history.iter().map(|s| s.state).collect();
    assert_eq!(states, [ReleaseState::Present, ReleaseState::Unknown]);
    assert!(cos.changes().is_empty(), "{:?}", cos.changes());
    let num = versions(&e, "numlib");
    assert_eq!(
        record_for(num, "numlib.figure").effect,
        Effect::NoConstraint(NoConstraint::UnknownToBank)
    );
    assert_eq!(allowed(num), ["1.0", "2.0"]);
}
